/**
 * The storage test suite every {@link ShopStore} implementation must pass. SQLite and PostgreSQL
 * register it with their own harness factory, so both are held to exactly the same behaviour.
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kysely";
import {
  EffectChangedError,
  type Message,
  type StoredCall,
  type ToolCall,
  type ToolOutcome,
  toolCallOf,
} from "overlap-runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  addToCart,
  type Cart,
  type CartResult,
  cartTotal,
  EMPTY_CART,
  removeLine,
  updateQuantity,
  variantChoice,
} from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { type CheckoutEffect, checkoutEffect, checkout as draftOrder } from "../domain/orders.js";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import type { CartAddWorkerArgs, CartAddWorkerResult } from "./cart-add-worker.testkit.js";
import { LATEST_SCHEMA_VERSION, migrateToLatest } from "./migrations.js";
import type { OpenStoreOptions } from "./open-store.js";
import type { ShopDatabase } from "./shop-database.js";
import type { ShopStore } from "./shop-store.js";
import type { StoreDialect } from "./store-dialect.js";

/** What the store keeps of a call, and gives back for `restoreRound`. */
const stored = ({ round, index, block }: ToolCall): StoredCall => ({ round, index, block });

/** One fresh database for one test. */
export interface StoreHarness {
  /** A migrated store on a fresh database. */
  readonly store: ShopStore;
  /**
   * Opens another store on the same database, as a restarted or second server process would
   * (with `options`: another token lifetime, another clock).
   */
  openPeer(options?: PeerOptions): Promise<ShopStore>;
  /**
   * Whether a peer may run transactions while this store holds one open. False for SQLite: in one
   * process, better-sqlite3 would block the event loop waiting for the other connection's lock.
   */
  readonly concurrentPeers: boolean;
  /** What a worker process needs to open the same database. */
  readonly workerTarget: Pick<OpenStoreOptions, "databaseUrl" | "sqliteFile" | "pgSchema">;
  /** Closes the stores and deletes the database. */
  dispose(): Promise<void>;
}

/** Options of {@link StoreHarness.openPeer}. */
export interface PeerOptions {
  tokenTtlMs?: number;
  clock?: () => number;
}

/** Creates a {@link StoreHarness}. */
export type StoreHarnessFactory = () => Promise<StoreHarness>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the shared storage tests under `name`. */
export function registerStoreSuite(name: string, createHarness: StoreHarnessFactory): void {
  describe(name, () => {
    let harness: StoreHarness;
    let store: ShopStore;
    let fixtures: Fixtures;

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
      fixtures = pickFixtures(await store.listProducts());
    });

    afterEach(async () => {
      await harness.dispose();
    });

    const add = (sessionId: string, productId: string, quantity: number) =>
      store.withCart(sessionId, async (cart, tx) =>
        addInFirstVariant(cart, await tx.getProduct(productId), quantity, tx.rules),
      );

    it("migrates idempotently and seeds the catalog once", async () => {
      const session = await store.createSession("shopper");
      await store.migrate();
      await store.migrate();
      const products = await store.listProducts();
      expect(products.length).toBeGreaterThanOrEqual(200);
      expect(products[0]).toMatchObject({
        id: "p-0001",
        name: "Aero Trail Runner",
        priceCents: 8_900,
      });
      expect(await store.getSession(session.id)).toMatchObject({ id: session.id });
      const peer = await harness.openPeer();
      if (harness.concurrentPeers) await Promise.all([store.migrate(), peer.migrate()]);
      expect((await peer.listProducts()).length).toBe(products.length);
    });

    it("creates sessions with secret tokens and finds them by token only", async () => {
      const shopper = await store.createSession("shopper");
      const merchant = await store.createSession("merchant");
      expect(shopper.id).not.toBe(merchant.id);
      expect(shopper.token).not.toBe(merchant.token);
      expect(shopper.token.length).toBeGreaterThanOrEqual(40);
      expect(await store.findSessionByToken(shopper.token)).toEqual({
        id: shopper.id,
        kind: "shopper",
        createdAt: shopper.createdAt,
        shopperId: shopper.shopperId,
      });
      expect(await store.findSessionByToken(merchant.token)).toMatchObject({ kind: "merchant" });
      for (const wrong of ["", "x", shopper.id, `${shopper.token}x`, "a".repeat(10_000)]) {
        expect(await store.findSessionByToken(wrong)).toBeUndefined();
      }
      expect(await store.getSession("s-missing")).toBeUndefined();
    });

    it("gives every shopper session a shopper: a new one with its own token, or the one asked for", async () => {
      const first = await store.createSession("shopper");
      expect(first.shopperId).toMatch(/^u-/);
      expect(first.shopperToken?.length).toBeGreaterThanOrEqual(40);
      expect(first.shopperToken).not.toBe(first.token);
      const second = await store.createSession("shopper", { shopperId: first.shopperId! });
      expect(second).toMatchObject({ kind: "shopper", shopperId: first.shopperId });
      expect(second.shopperToken).toBeUndefined();
      expect(second.id).not.toBe(first.id);
      expect(await store.getSession(second.id)).toMatchObject({ shopperId: first.shopperId });
      expect(await store.findShopperByToken(first.shopperToken!)).toMatchObject({
        id: first.shopperId,
      });
      // A session's token is not a shopper token, nor is anything else.
      for (const wrong of ["", first.token, first.shopperId!, `${first.shopperToken}x`]) {
        expect(await store.findShopperByToken(wrong)).toBeUndefined();
      }
      const other = await store.createSession("shopper");
      expect(other.shopperId).not.toBe(first.shopperId);
      const merchant = await store.createSession("merchant");
      expect(merchant.shopperId).toBeUndefined();
      expect(merchant.shopperToken).toBeUndefined();
      await expect(store.createSession("shopper", { shopperId: "u-missing" })).rejects.toThrow(
        RangeError,
      );
    });

    it("revokes a shopper's token and every chat token of theirs, and no one else's", async () => {
      const first = await store.createSession("shopper");
      const shopperId = first.shopperId!;
      const second = await store.createSession("shopper", { shopperId });
      const other = await store.createSession("shopper");
      const merchant = await store.createSession("merchant");
      const revoked = await store.revokeShopper(shopperId);
      expect([...revoked.sessionIds].sort()).toEqual([first.id, second.id].sort());
      for (const s of [store, await harness.openPeer()]) {
        expect(await s.findSessionByToken(first.token)).toBeUndefined();
        expect(await s.findSessionByToken(second.token)).toBeUndefined();
        expect(await s.findShopperByToken(first.shopperToken!)).toBeUndefined();
        // Other shoppers' and the merchant's tokens still open what they opened.
        expect(await s.findSessionByToken(other.token)).toMatchObject({ id: other.id });
        expect(await s.findShopperByToken(other.shopperToken!)).toMatchObject({
          id: other.shopperId,
        });
        expect(await s.findSessionByToken(merchant.token)).toMatchObject({ kind: "merchant" });
        // The chats themselves stay (reachable by no token).
        expect(await s.getSession(first.id)).toMatchObject({ shopperId });
      }
      // Nothing is left to revoke, and a revoked shopper gets no new chat (whose token would open).
      expect(await store.revokeShopper(shopperId)).toEqual({ sessionIds: [] });
      await expect(store.createSession("shopper", { shopperId })).rejects.toThrow(RangeError);
      expect(await store.revokeShopper("u-missing")).toEqual({ sessionIds: [] });
    });

    it("a token older than the token lifetime opens nothing, counted from its creation", async () => {
      const chat = await store.createSession("shopper");
      const merchant = await store.createSession("merchant");
      const created = Date.parse(chat.createdAt);
      const day = 24 * 60 * 60 * 1000;
      const at = async (time: number, tokenTtlMs?: number) => {
        const peer = await harness.openPeer({
          clock: () => time,
          ...(tokenTtlMs === undefined ? {} : { tokenTtlMs }),
        });
        return {
          session: (await peer.findSessionByToken(chat.token))?.id,
          shopper: (await peer.findShopperByToken(chat.shopperToken!))?.id,
        };
      };
      const open = { session: chat.id, shopper: chat.shopperId };
      const closed = { session: undefined, shopper: undefined };
      // The default lifetime: 30 days.
      expect(await at(created + 29 * day)).toEqual(open);
      expect(await at(created + 30 * day - 1)).toEqual(open);
      expect(await at(created + 30 * day)).toEqual(closed);
      expect(await at(created + 31 * day)).toEqual(closed);
      // Another lifetime, to the millisecond.
      expect(await at(created + 59_999, 60_000)).toEqual(open);
      expect(await at(created + 60_000, 60_000)).toEqual(closed);
      // Merchant session tokens have the same lifetime.
      const later = await harness.openPeer({
        clock: () => Date.parse(merchant.createdAt) + 31 * day,
      });
      expect(await later.findSessionByToken(merchant.token)).toBeUndefined();
      // The store's own clock: just made, the tokens open.
      expect(await store.findSessionByToken(chat.token)).toMatchObject({ id: chat.id });
    });

    it("a chat made with a token expires no later than the token that made it", async () => {
      const minute = 60_000;
      const first = await store.createSession("shopper");
      const born = Date.parse(first.createdAt);
      expect(Date.parse(first.expiresAt)).toBe(born + 30 * 24 * 60 * minute);
      const at = (time: number) => harness.openPeer({ clock: () => time, tokenTtlMs: minute });
      // 45 s in, a new chat of the same shopper (as the token of the first chat asks for).
      const later = await at(born + 45_000);
      const second = await later.createSession("shopper", { shopperId: first.shopperId! });
      expect(Date.parse(second.createdAt)).toBe(born + 45_000);
      expect(second.expiresAt).toBe(new Date(born + minute).toISOString());
      // And a chat made 10 s later again, with that one's token.
      const third = await (await at(born + 55_000)).createSession("shopper", {
        shopperId: second.shopperId!,
      });
      const tokens = async (time: number) => {
        const peer = await at(time);
        return {
          chats: await Promise.all(
            [first, second, third].map(async (c) => (await peer.findSessionByToken(c.token))?.id),
          ),
          shopper: (await peer.findShopperByToken(first.shopperToken!))?.id,
        };
      };
      expect(await tokens(born + minute - 1)).toEqual({
        chats: [first.id, second.id, third.id],
        shopper: first.shopperId,
      });
      // Past the shopper's lifetime nothing of the chain opens, however young the chat.
      for (const time of [born + minute, born + 65_000, born + 100_000]) {
        expect(await tokens(time)).toEqual({
          chats: [undefined, undefined, undefined],
          shopper: undefined,
        });
      }
      // A merchant session has no chain: its own lifetime.
      const merchant = await (await at(born + 45_000)).createSession("merchant");
      expect(merchant.expiresAt).toBe(new Date(born + 45_000 + minute).toISOString());
      expect((await (await at(born + 100_000)).findSessionByToken(merchant.token))?.id).toBe(
        merchant.id,
      );
    });

    it("keeps one cart and the orders per shopper, shared by the shopper's chats", async () => {
      const { cheap, limited } = fixtures;
      const chat1 = await store.createSession("shopper");
      const chat2 = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const stranger = await store.createSession("shopper");
      expect((await add(chat1.id, cheap.id, 2)).ok).toBe(true);
      // The second chat sees, and changes, the same cart.
      expect((await store.getCart(chat2.id)).lines).toMatchObject([
        { productId: cheap.id, quantity: 2 },
      ]);
      expect((await add(chat2.id, limited.id, 1)).ok).toBe(true);
      expect((await store.getCart(chat1.id)).lines.map((l) => l.productId)).toEqual([
        cheap.id,
        limited.id,
      ]);
      // The shopper id names the same cart; another shopper's cart is their own.
      expect(await store.getCart(chat1.shopperId!)).toEqual(await store.getCart(chat1.id));
      expect(await store.getCart(stranger.id)).toEqual(EMPTY_CART);
      const seen = await store.withCart(chat2.id, (cart, tx) => {
        expect(tx).toMatchObject({ sessionId: chat2.id, shopperId: chat1.shopperId });
        return { ok: true, cart } as const;
      });
      expect(seen.cart.lines).toHaveLength(2);

      // Checkout from chat 2 empties the cart for both chats; the order is the shopper's.
      const placed = await store.checkout(chat2.id, "call_1");
      if (!placed.ok) throw new Error(placed.message);
      expect(placed.order).toMatchObject({ sessionId: chat2.id, shopperId: chat1.shopperId });
      expect(await store.getCart(chat1.id)).toEqual(EMPTY_CART);
      expect(await store.listOrders({ shopperId: chat1.shopperId! })).toEqual([placed.order]);
      expect(await store.listOrders({ sessionId: chat2.id })).toEqual([placed.order]);
      expect(await store.listOrders({ sessionId: chat1.id })).toEqual([]);
      expect(await store.listOrders({ shopperId: stranger.shopperId! })).toEqual([]);
      // Idempotent per chat and call: the same call id again places nothing.
      expect(await store.checkout(chat2.id, "call_1")).toMatchObject({
        replayed: true,
        order: { id: placed.order.id },
      });
    });

    it("keeps the size and colour of each line in the order", async () => {
      const products = await store.listProducts();
      const shoe = products.find((p) => p.sizes.length > 1 && p.colors.length > 1 && p.stock > 2);
      if (!shoe) throw new Error("The catalog has no product with sizes and colours.");
      const size = shoe.sizes[1]!;
      const color = shoe.colors[1]!;
      const chat = await store.createSession("shopper");
      await store.withCart(chat.id, async (cart, tx) =>
        addToCart(cart, await tx.getProduct(shoe.id), 1, tx.rules, { size, color }),
      );
      expect((await add(chat.id, fixtures.cheap.id, 1)).ok).toBe(true);
      const placed = await store.checkout(chat.id, "call_v");
      if (!placed.ok) throw new Error(placed.message);
      const [order] = await store.listOrders({ shopperId: chat.shopperId! });
      expect(order?.lines[0]).toMatchObject({ productId: shoe.id, size, color });
      // The other line has the variant its product needed (its first size and colour here).
      expect(order?.lines[1]).toMatchObject({
        productId: fixtures.cheap.id,
        ...(fixtures.cheap.sizes[0] !== undefined ? { size: fixtures.cheap.sizes[0] } : {}),
        ...(fixtures.cheap.colors[0] !== undefined ? { color: fixtures.cheap.colors[0] } : {}),
      });
      expect(order).toEqual(placed.order);
    });

    it("serialises the cart changes of two chats of one shopper (30 concurrent adds, no lost update)", async () => {
      const snapshot = new Map((await store.listProducts()).map((p) => [p.id, p]));
      const chat1 = await store.createSession("shopper");
      const chat2 = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const plan = addPlan(fixtures);
      const ops = Array.from({ length: 30 }, (_, i) => ({
        chat: i % 2 === 0 ? chat1.id : chat2.id,
        ...plan[i % plan.length]!,
      }));
      const results = await Promise.all(ops.map((op) => add(op.chat, op.productId, op.quantity)));
      const cart = await store.getCart(chat1.id);
      expectWithinRules(store, cart, snapshot);
      // No lost update: the cart holds exactly what the successful adds added, from both chats.
      const added = new Map<string, number>();
      results.forEach((result, i) => {
        const op = ops[i]!;
        if (result.ok) added.set(op.productId, (added.get(op.productId) ?? 0) + op.quantity);
      });
      expect(new Map(cart.lines.map((l) => [l.productId, l.quantity]))).toEqual(added);
      // The limits were really exercised (which rule refuses depends on how the chats interleave).
      expect(results.some((r) => !r.ok)).toBe(true);
      // Both chats really changed the cart.
      expect(new Set(ops.filter((_, i) => results[i]!.ok).map((op) => op.chat)).size).toBe(2);
    });

    it("lists a shopper's chats with a message, most recently active first, and no one else's", async () => {
      const chat1 = await store.createSession("shopper");
      const chat2 = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const empty = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const stranger = await store.createSession("shopper");
      const text = (role: "user" | "assistant", t: string): Message => ({
        role,
        content: [{ type: "text", text: t }],
      });
      await store.conversations.write(chat1.id, 0, [
        text("user", "  show me\n running shoes  "),
        text("assistant", "Here they are."),
      ]);
      await sleep(5);
      await store.conversations.write(chat2.id, 0, [{ role: "user", content: "两双袜子" }]);
      await store.conversations.write(stranger.id, 0, [text("user", "not yours")]);
      let chats = await store.listChats(chat1.shopperId!);
      expect(chats.map((c) => c.id)).toEqual([chat2.id, chat1.id]);
      expect(chats[0]).toMatchObject({ title: "两双袜子", messageCount: 1 });
      expect(chats[1]).toMatchObject({ title: "show me running shoes", messageCount: 2 });
      expect(chats[1]?.createdAt).toBe(chat1.createdAt);
      expect(chats[0]!.lastActivity >= chats[1]!.lastActivity).toBe(true);
      expect(chats.some((c) => c.id === empty.id)).toBe(false);
      // Talking in the first chat again puts it first.
      await sleep(5);
      await store.conversations.write(chat1.id, 2, [text("user", "and socks")]);
      chats = await store.listChats(chat1.shopperId!);
      expect(chats.map((c) => c.id)).toEqual([chat1.id, chat2.id]);
      expect(chats[0]).toMatchObject({ title: "show me running shoes", messageCount: 3 });
      expect(await store.listChats(chat1.shopperId!, { limit: 1 })).toHaveLength(1);
      expect(await store.listChats("u-nobody")).toEqual([]);
      const long = await store.createSession("shopper");
      await store.conversations.write(long.id, 0, [text("user", "x".repeat(500))]);
      const [longChat] = await store.listChats(long.shopperId!);
      expect([...(longChat?.title ?? "")]).toHaveLength(120);
    });

    it("stores every message, rewrites from `from`, and survives a restart", async () => {
      const toolUse: Message = {
        role: "assistant",
        content: [
          { type: "text", text: "Adding it." },
          // Key order must come back unchanged (jsonb would sort it).
          {
            type: "tool_use",
            id: "call_1",
            name: "add_to_cart",
            input: { zeta: 1, alpha: { b: 2, a: 1 } },
          },
        ],
      };
      const answer = { type: "tool_result", tool_use_id: "call_1", content: "ok" } as const;
      const result: Message = { role: "user", content: [answer] };
      const conversations = store.conversations;
      await conversations.write("s1", 0, [{ role: "user", content: "add shoes" }, toolUse]);
      await conversations.write("s1", 2, [result]);
      expect(await conversations.load("s1")).toEqual([
        { role: "user", content: "add shoes" },
        toolUse,
        result,
      ]);
      const loaded = await conversations.load("s1");
      expect(JSON.stringify(loaded[1])).toBe(JSON.stringify(toolUse));
      // A turn that merges into the last message rewrites from length - 1.
      const merged: Message = {
        role: "user",
        content: [answer, { type: "text", text: "and socks" }],
      };
      await conversations.write("s1", 2, [merged]);
      expect((await conversations.load("s1")).at(-1)).toEqual(merged);
      await conversations.write("s1", 1, []);
      expect(await conversations.load("s1")).toHaveLength(1);
      await expect(conversations.write("s1", 3, [result])).rejects.toThrow(RangeError);
      await expect(conversations.write("s1", -1, [result])).rejects.toThrow(RangeError);
      expect(await conversations.load("other")).toEqual([]);
      await conversations.write("s1", 1, [toolUse, result]);
      const restarted = await harness.openPeer();
      expect(await restarted.conversations.load("s1")).toEqual([
        { role: "user", content: "add shoes" },
        toolUse,
        result,
      ]);
    });

    it("keeps what each turn showed beside its messages, replaced by the turn's later writes", async () => {
      const conversations = store.conversations;
      const card = {
        type: "ui",
        round: 1,
        callId: "c1",
        name: "search_products",
        ui: { b: 1, a: 2 },
      };
      await conversations.writeTurnDisplay("s1", 0, [card]);
      await conversations.writeTurnDisplay("s1", 4, [{ type: "round-end", round: 1 }]);
      await conversations.writeTurnDisplay("s1", 0, [card, { type: "round-end", round: 1 }]);
      await conversations.writeTurnDisplay("s2", 0, []);
      const restarted = await harness.openPeer();
      const kept = await restarted.conversations.loadTurnDisplays("s1");
      expect(kept).toEqual([
        { seq: 0, events: [card, { type: "round-end", round: 1 }] },
        { seq: 4, events: [{ type: "round-end", round: 1 }] },
      ]);
      expect(await conversations.loadTurnDisplays("other")).toEqual([]);
    });

    it("records tool outcomes per session and call id, first record wins", async () => {
      const outcome: ToolOutcome = {
        callId: "call_0",
        name: "add_to_cart",
        status: "ok",
        resultText: "Added 1 × Aero Trail Runner.",
        events: [{ type: "cart-updated", totalCents: 8_900 }],
        isError: false,
      };
      const ledger = store.ledger("s1");
      expect(await ledger.lookup("call_0")).toBeUndefined();
      await ledger.record({ ...outcome, replayed: true });
      expect(await ledger.lookup("call_0")).toEqual(outcome);
      await ledger.record({ ...outcome, resultText: "a later duplicate" });
      expect(await store.ledger("s1").lookup("call_0")).toEqual(outcome);
      // Another session's call_0 is another call.
      expect(await store.ledger("s2").lookup("call_0")).toBeUndefined();
      await store
        .ledger("s2")
        .record({ ...outcome, status: "error", isError: true, resultText: "failed" });
      expect(await store.ledger("s2").lookup("call_0")).toMatchObject({ status: "error" });
      expect(await store.ledger("s1").lookup("call_0")).toEqual(outcome);
      expect(await store.ledger().lookup("call_0")).toBeUndefined();
      expect(await (await harness.openPeer()).ledger("s1").lookup("call_0")).toEqual(outcome);
    });

    it("keeps the round journal until a write that stores the round clears it", async () => {
      const entry = (id: string, index: number): ToolCall =>
        toolCallOf(
          { type: "tool_use", id, name: "add_to_cart", input: { productId: "p-0001" } },
          { index },
        );
      const journal = store.roundJournal("s1", "t1");
      await journal.callComplete(entry("call_b", 2));
      await journal.callComplete(entry("call_a", 1));
      await journal.callComplete(entry("call_a", 1)); // a repeat changes nothing
      await store.roundJournal("s2", "t2").callComplete(entry("call_a", 1));
      const outcome: ToolOutcome = {
        callId: "call_a",
        name: "add_to_cart",
        status: "ok",
        resultText: "Added 1 × Aero Trail Runner.",
        events: [],
        isError: false,
      };
      await store.ledger("s1").record(outcome, entry("call_a", 1));
      // A record without its call (older rows) and a record of a call the conversation holds.
      await store.ledger("s1").record({ ...outcome, callId: "call_old" });
      await store.ledger("s1").record({ ...outcome, callId: "call_held" }, entry("call_held", 0));
      const lost = await lostCalls(await harness.openPeer(), "s1", new Set(["call_held"]));
      expect(lost.journaled).toEqual([stored(entry("call_a", 1)), stored(entry("call_b", 2))]);
      expect(lost.recorded).toEqual([{ call: stored(entry("call_a", 1)), outcome }]);

      const user: Message = { role: "user", content: "add shoes" };
      await store.conversations.write("s1", 0, [user]);
      expect((await lostCalls(store, "s1", new Set())).journaled).toHaveLength(2);
      await store.conversations.write("s1", 1, [], { clearJournal: true });
      expect((await lostCalls(store, "s1", new Set())).journaled).toEqual([]);
      // Another session's journal is its own.
      expect((await lostCalls(store, "s2", new Set())).journaled).toHaveLength(1);
      // A write refused for a conflict clears nothing.
      await store.roundJournal("s1", "t1").callComplete(entry("call_c", 1));
      await expect(
        store.conversations.write("s1", 1, [], { expectedLength: 5, clearJournal: true }),
      ).rejects.toThrow(/another writer/);
      expect((await lostCalls(store, "s1", new Set())).journaled).toHaveLength(1);
    });

    it("writes a call's record in the transaction of its effect: both commit, or neither", async () => {
      const { cheap, limited } = fixtures;
      const entry = (id: string): ToolCall =>
        toolCallOf({ type: "tool_use", id, name: "add_to_cart", input: { productId: cheap.id } });
      const outcome = (id: string, text: string): ToolOutcome => ({
        callId: id,
        name: "add_to_cart",
        status: "ok",
        resultText: text,
        events: [],
        isError: false,
      });
      const addRecorded = (id: string, productId: string, fail = false) =>
        store.withCart(
          "s",
          async (cart, tx) => addInFirstVariant(cart, await tx.getProduct(productId), 1, tx.rules),
          {
            record: async (result, tx) => {
              // The record sees the transaction's own writes.
              expect(await tx.getCart()).toEqual(result.ok ? result.cart : await tx.getCart());
              if (fail) throw new Error("crash between the effect and its record");
              return { sessionId: "s", outcome: outcome(id, `ok ${id}`), call: entry(id) };
            },
          },
        );
      await addRecorded("call_1", cheap.id);
      await expect(addRecorded("call_2", limited.id, true)).rejects.toThrow(/crash/);
      expect((await store.getCart("s")).lines.map((l) => l.productId)).toEqual([cheap.id]);
      expect(await store.ledger("s").lookup("call_1")).toEqual(outcome("call_1", "ok call_1"));
      expect(await store.ledger("s").lookup("call_2")).toBeUndefined();
      // The runtime's later record of the same call keeps the first.
      await store.ledger("s").record(outcome("call_1", "later"), entry("call_1"));
      expect((await store.ledger("s").lookup("call_1"))?.resultText).toBe("ok call_1");
      // The effect's transaction journaled its call too (the block-stop write never happened).
      const lost = await lostCalls(store, "s", new Set());
      expect(lost.journaled).toEqual([stored(entry("call_1"))]);
      expect(lost.recorded.map((r) => r.call)).toEqual([stored(entry("call_1"))]);
      // A record without a journal row (a round stored since) is not a lost call.
      await store.conversations.write("s", 0, [], { clearJournal: true });
      expect(await lostCalls(store, "s", new Set())).toEqual({ journaled: [], recorded: [] });

      // Checkout and the merchant's changes take the same option.
      const placed = await store.checkout("s", "call_3", {
        record: async (result, tx) => {
          expect(result.ok).toBe(true);
          expect(await tx.getCart()).toEqual(EMPTY_CART);
          return { sessionId: "s", outcome: outcome("call_3", "placed") };
        },
      });
      expect(placed.ok).toBe(true);
      expect((await store.ledger("s").lookup("call_3"))?.resultText).toBe("placed");
      await expect(
        store.restock(limited.id, 5, {
          record: () => {
            throw new Error("crash");
          },
        }),
      ).rejects.toThrow(/crash/);
      expect((await store.getProduct(limited.id))?.stock).toBe(limited.stock);
      await store.setPrice(limited.id, 1_234, {
        record: () => ({ sessionId: "m", outcome: outcome("call_4", "repriced") }),
      });
      expect((await store.ledger("m").lookup("call_4"))?.resultText).toBe("repriced");
    });

    it("applies the cart rules through withCart and stores only successful changes", async () => {
      const { limited, dear, cheap } = fixtures;
      expect(await add("s", "p-9999", 1)).toMatchObject({ ok: false, code: "unknown_product" });
      expect(await add("s", cheap.id, 0)).toMatchObject({
        ok: false,
        code: "quantity_out_of_range",
      });
      expect(await add("s", cheap.id, 11)).toMatchObject({
        ok: false,
        code: "quantity_out_of_range",
      });
      expect(await add("s", cheap.id, 10)).toMatchObject({ ok: true });
      expect(await add("s", cheap.id, 1)).toMatchObject({
        ok: false,
        code: "quantity_out_of_range",
      });
      expect(await add("s", limited.id, limited.stock)).toMatchObject({ ok: true });
      expect(await add("s", limited.id, 1)).toMatchObject({
        ok: false,
        code: "insufficient_stock",
      });
      const fits = Math.floor(
        (store.cartRules.maxTotalCents - cartTotal(await store.getCart("s"))) / dear.priceCents,
      );
      expect(await add("s", dear.id, fits + 1)).toMatchObject({ ok: false, code: "over_limit" });
      const cart = await store.getCart("s");
      expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([
        [cheap.id, 10],
        [limited.id, limited.stock],
      ]);
      expect(cart.lines[0]?.unitPriceCents).toBe(cheap.priceCents);
      const removed = await store.withCart("s", (c) => removeLine(c, cheap.id));
      expect(removed.ok).toBe(true);
      const updated = await store.withCart("s", async (c, tx) =>
        updateQuantity(c, await tx.getProduct(limited.id), 1, tx.rules),
      );
      expect(updated.ok && updated.cart.lines).toEqual([
        expect.objectContaining({
          productId: limited.id,
          quantity: 1,
          unitPriceCents: limited.priceCents,
        }),
      ]);
      // Sessions are isolated.
      expect(await store.getCart("someone-else")).toEqual(EMPTY_CART);
    });

    it("rolls back a failing callback, refuses malformed carts, and keeps the queue moving", async () => {
      await add("s", fixtures.cheap.id, 1);
      await expect(
        store.withCart("s", () => {
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      const malformed: Cart = { lines: [{ productId: "x", quantity: 0, unitPriceCents: 1 }] };
      await expect(store.withCart("s", () => ({ ok: true, cart: malformed }))).rejects.toThrow(
        TypeError,
      );
      expect((await add("s", fixtures.cheap.id, 1)).ok).toBe(true);
      expect((await store.getCart("s")).lines[0]?.quantity).toBe(2);
    });

    it("applies 30 concurrent adds on one session exactly like the same adds in call order", async () => {
      const snapshot = new Map((await store.listProducts()).map((p) => [p.id, p]));
      const plan = addPlan(fixtures);
      const ops = Array.from({ length: 30 }, (_, i) => plan[i % plan.length]!);
      const results = await Promise.all(ops.map((op) => add("s", op.productId, op.quantity)));

      let model: Cart = EMPTY_CART;
      const expected: CartResult[] = ops.map((op) => {
        const result = addInFirstVariant(
          model,
          snapshot.get(op.productId),
          op.quantity,
          store.cartRules,
        );
        if (result.ok) model = result.cart;
        return result;
      });
      expect(results).toEqual(expected);
      const cart = await store.getCart("s");
      expect(cart).toEqual(model);
      expectWithinRules(store, cart, snapshot);
      // The rules were really exercised: some adds succeeded, and each rule refused some.
      const codes = new Set(results.flatMap((r) => (r.ok ? [] : [r.code])));
      expect(results.some((r) => r.ok)).toBe(true);
      expect(codes).toEqual(new Set(["insufficient_stock", "over_limit", "quantity_out_of_range"]));
    });

    it("runs one session's cart calls in call order (add A, add B, then total sees both)", async () => {
      const { cheap: a, limited: b } = fixtures;
      const events: string[] = [];
      const addA = store.withCart("s", async (cart, tx) => {
        events.push("A starts");
        // A is slow: without the queue, B and the total would overtake it.
        await sleep(40);
        const result = addInFirstVariant(cart, await tx.getProduct(a.id), 1, tx.rules);
        events.push("A ends");
        return result;
      });
      const addB = store.withCart("s", async (cart, tx) => {
        events.push("B starts");
        const result = addInFirstVariant(cart, await tx.getProduct(b.id), 1, tx.rules);
        events.push("B ends");
        return result;
      });
      const total = store.withCart("s", (cart) => {
        events.push("total");
        return { ok: true, cart, totalCents: cartTotal(cart) } as const;
      });
      const [, , summary] = await Promise.all([addA, addB, total]);
      expect(events).toEqual(["A starts", "A ends", "B starts", "B ends", "total"]);
      expect(summary.cart.lines.map((l) => l.productId)).toEqual([a.id, b.id]);
      expect(summary.totalCents).toBe(a.priceCents + b.priceCents);
    });

    it("holds the session lock in the database, so another store waits (and other sessions do not)", async (context) => {
      if (!harness.concurrentPeers) {
        context.skip();
        return;
      }
      const peer = await harness.openPeer();
      const { cheap } = fixtures;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const first = store.withCart("s", async (cart, tx) => {
        entered();
        await gate;
        return addInFirstVariant(cart, await tx.getProduct(cheap.id), 1, tx.rules);
      });
      await inside;
      let peerEntered = false;
      const second = peer.withCart("s", async (cart, tx) => {
        peerEntered = true;
        return addInFirstVariant(cart, await tx.getProduct(cheap.id), 1, tx.rules);
      });
      try {
        // Another session is not held up by this one's lock.
        const other = await peer.withCart("other", async (cart, tx) =>
          addInFirstVariant(cart, await tx.getProduct(cheap.id), 1, tx.rules),
        );
        expect(other.ok).toBe(true);
        await sleep(150);
        expect(peerEntered).toBe(false);
      } finally {
        // Even when an expectation fails, so the open transaction does not hang the cleanup.
        release();
      }
      expect((await first).ok).toBe(true);
      const result = await second;
      // The peer read the cart only after the first transaction committed: no lost update.
      expect(result.ok && result.cart.lines[0]?.quantity).toBe(2);
    });

    it("keeps the rules when two OS processes add to one session at the same time", async () => {
      const snapshot = new Map((await store.listProducts()).map((p) => [p.id, p]));
      const plan = addPlan(fixtures);
      // The two workers walk the same plan from different starting points.
      const adds = (offset: number) =>
        Array.from({ length: 15 }, (_, i) => plan[(i + offset) % plan.length]!);
      const workers = [0, 1].map((w) =>
        startWorker({ target: harness.workerTarget, sessionId: "shared", adds: adds(w) }),
      );
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.go();
      const outputs = await Promise.all(workers.map((w) => w.results));
      const cart = await store.getCart("shared");
      expectWithinRules(store, cart, snapshot);
      // No lost update: every successful add is in the cart, nothing else is.
      const added = new Map<string, number>();
      outputs.forEach((results, w) => {
        results.forEach((result, i) => {
          const op = adds(w)[i]!;
          if (result.ok) added.set(op.productId, (added.get(op.productId) ?? 0) + op.quantity);
        });
      });
      expect(new Map(cart.lines.map((l) => [l.productId, l.quantity]))).toEqual(added);
      const all = outputs.flat();
      expect(all).toHaveLength(30);
      expect(all.some((r) => r.ok)).toBe(true);
      expect(all.some((r) => !r.ok)).toBe(true);
    });

    it("holds one shopper's cart lock across processes for every chat (and not other shoppers')", async (context) => {
      if (!harness.concurrentPeers) {
        context.skip();
        return;
      }
      const peer = await harness.openPeer();
      const chat1 = await store.createSession("shopper");
      const chat2 = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const stranger = await store.createSession("shopper");
      const { cheap } = fixtures;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const first = store.withCart(chat1.id, async (cart, tx) => {
        entered();
        await gate;
        return addInFirstVariant(cart, await tx.getProduct(cheap.id), 1, tx.rules);
      });
      await inside;
      let peerEntered = false;
      const second = peer.withCart(chat2.id, async (cart, tx) => {
        peerEntered = true;
        return addInFirstVariant(cart, await tx.getProduct(cheap.id), 1, tx.rules);
      });
      try {
        const other = await add(stranger.id, cheap.id, 1);
        expect(other.ok).toBe(true);
        await sleep(150);
        expect(peerEntered).toBe(false);
      } finally {
        release();
      }
      expect((await first).ok).toBe(true);
      const result = await second;
      expect(result.ok && result.cart.lines[0]?.quantity).toBe(2);
    });

    it("keeps the rules when two OS processes add through two chats of one shopper", async () => {
      const snapshot = new Map((await store.listProducts()).map((p) => [p.id, p]));
      const chat1 = await store.createSession("shopper");
      const chat2 = await store.createSession("shopper", { shopperId: chat1.shopperId! });
      const plan = addPlan(fixtures);
      const adds = (offset: number) =>
        Array.from({ length: 15 }, (_, i) => plan[(i + offset) % plan.length]!);
      const workers = [chat1.id, chat2.id].map((sessionId, w) =>
        startWorker({ target: harness.workerTarget, sessionId, adds: adds(w) }),
      );
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.go();
      const outputs = await Promise.all(workers.map((w) => w.results));
      const cart = await store.getCart(chat2.id);
      expectWithinRules(store, cart, snapshot);
      const added = new Map<string, number>();
      outputs.forEach((results, w) => {
        results.forEach((result, i) => {
          const op = adds(w)[i]!;
          if (result.ok) added.set(op.productId, (added.get(op.productId) ?? 0) + op.quantity);
        });
      });
      expect(new Map(cart.lines.map((l) => [l.productId, l.quantity]))).toEqual(added);
      expect(outputs.flat().some((r) => !r.ok)).toBe(true);
    });

    it("checks out once per call id: same order on retry, stock taken once, cart emptied", async () => {
      const { cheap, limited } = fixtures;
      await add("s", cheap.id, 3);
      await add("s", limited.id, 1);
      const attempts = await Promise.all([
        store.checkout("s", "call_checkout"),
        store.checkout("s", "call_checkout"),
        store.checkout("s", "call_checkout"),
      ]);
      const placed = attempts.filter((a) => a.ok && !a.replayed);
      expect(placed).toHaveLength(1);
      const orders = attempts.map((a) => (a.ok ? a.order : undefined));
      expect(new Set(orders.map((o) => o?.id)).size).toBe(1);
      const order = orders[0]!;
      expect(order).toMatchObject({
        sessionId: "s",
        callId: "call_checkout",
        totalCents: 3 * cheap.priceCents + limited.priceCents,
        itemCount: 4,
      });
      expect(order.lines.map((l) => [l.productId, l.quantity])).toEqual([
        [cheap.id, 3],
        [limited.id, 1],
      ]);
      expect((await store.getProduct(cheap.id))?.stock).toBe(cheap.stock - 3);
      expect((await store.getProduct(limited.id))?.stock).toBe(limited.stock - 1);
      expect(await store.getCart("s")).toEqual(EMPTY_CART);
      const again = await store.checkout("s", "call_checkout");
      expect(again).toMatchObject({ ok: true, replayed: true, order: { id: order.id } });
      expect((await store.getProduct(cheap.id))?.stock).toBe(cheap.stock - 3);
      expect(await store.listOrders({ sessionId: "s" })).toEqual([order]);
      expect(await store.checkout("s", "call_next")).toMatchObject({
        ok: false,
        code: "empty_cart",
      });
      // The same call id in another session is another call.
      await add("t", cheap.id, 1);
      const other = await store.checkout("t", "call_checkout");
      expect(other.ok && other.order.id).not.toBe(order.id);
    });

    it("charges current prices at checkout and refuses stock another session took", async () => {
      const { limited, cheap } = fixtures;
      const half = Math.floor(limited.stock / 2) + 1;
      await add("a", limited.id, half);
      await add("b", limited.id, half);
      await add("b", cheap.id, 1);
      const raised = await store.setPrice(limited.id, limited.priceCents + 100);
      expect(raised.ok).toBe(true);
      const first = await store.checkout("a", "c1");
      expect(first).toMatchObject({
        ok: true,
        order: { totalCents: half * (limited.priceCents + 100) },
        priceChanges: [
          {
            productId: limited.id,
            cartUnitPriceCents: limited.priceCents,
            unitPriceCents: limited.priceCents + 100,
          },
        ],
      });
      const second = await store.checkout("b", "c2");
      expect(second).toMatchObject({ ok: false, code: "insufficient_stock" });
      // Nothing of the refused checkout happened.
      expect((await store.getCart("b")).lines).toHaveLength(2);
      expect((await store.getProduct(limited.id))?.stock).toBe(limited.stock - half);
      expect((await store.getProduct(cheap.id))?.stock).toBe(cheap.stock);
      expect(await store.listOrders({ sessionId: "b" })).toEqual([]);
    });

    /** The order checkout would place for the chat now: what its approval card shows. */
    const orderToConfirm = async (sessionId: string): Promise<CheckoutEffect> => {
      const cart = await store.getCart(sessionId);
      const products = new Map<string, Product>();
      for (const line of cart.lines) {
        const product = await store.getProduct(line.productId);
        if (product) products.set(product.id, product);
      }
      const draft = draftOrder(cart, products, store.cartRules);
      if (!draft.ok) throw new Error(draft.message);
      return checkoutEffect(draft.draft);
    };

    /** Checkout bound to `effect`, with the error it threw (if any) and whether it recorded. */
    const confirmed = async (sessionId: string, callId: string, effect: unknown) => {
      let recorded = false;
      try {
        const result = await store.checkout(sessionId, callId, {
          approved: { effect },
          record: (result) => {
            recorded = true;
            return {
              sessionId,
              outcome: {
                callId,
                name: "checkout",
                status: result.ok ? "ok" : "error",
                resultText: "",
                events: [],
                isError: !result.ok,
              },
            };
          },
        });
        return { result, recorded, changed: undefined };
      } catch (error) {
        if (!(error instanceof EffectChangedError)) throw error;
        return { result: undefined, recorded, changed: error.current as CheckoutEffect };
      }
    };

    it("places only the order the shopper confirmed; any other order places nothing", async () => {
      const { limited, cheap } = fixtures;
      await add("a", cheap.id, 1);
      const card = await orderToConfirm("a");
      const expectNothingPlaced = async (cartLines: number, stock: number) => {
        expect((await store.getCart("a")).lines).toHaveLength(cartLines);
        expect((await store.getProduct(cheap.id))?.stock).toBe(stock);
        expect(await store.listOrders({ sessionId: "a" })).toEqual([]);
      };

      // The merchant raised the price while the card waited.
      await store.setPrice(cheap.id, cheap.priceCents + 5_000);
      const raised = await confirmed("a", "call_co", card);
      expect(raised.result).toBeUndefined();
      expect(raised.recorded).toBe(false);
      expect(raised.changed).toMatchObject({ totalCents: cheap.priceCents + 5_000 });
      await expectNothingPlaced(1, cheap.stock);

      // The cart was edited elsewhere (another chat of the shopper, the REST API).
      const second = await orderToConfirm("a");
      await add("a", limited.id, 1);
      const edited = await confirmed("a", "call_co", second);
      expect(edited.changed?.lines).toHaveLength(2);
      await expectNothingPlaced(2, cheap.stock);

      // Nothing confirmed at all (an approval without an effect) orders nothing either.
      expect((await confirmed("a", "call_co", undefined)).changed?.lines).toHaveLength(2);
      await expectNothingPlaced(2, cheap.stock);

      // The shopper confirms the order as it is now: placed, exactly that order.
      const now = await orderToConfirm("a");
      const placed = await confirmed("a", "call_co", now);
      expect(placed.changed).toBeUndefined();
      expect(placed.recorded).toBe(true);
      expect(placed.result).toMatchObject({ ok: true, order: { totalCents: now.totalCents } });
      expect((await store.getCart("a")).lines).toHaveLength(0);
    });

    it("restocks, reprices, reports low stock and summarises sales for the merchant", async () => {
      const { limited, cheap } = fixtures;
      expect(await store.restock(limited.id, 0)).toMatchObject({
        ok: false,
        code: "invalid_quantity",
      });
      expect(await store.restock("p-9999", 5)).toMatchObject({
        ok: false,
        code: "unknown_product",
      });
      expect(await store.setPrice(cheap.id, 12.5)).toMatchObject({
        ok: false,
        code: "invalid_price",
      });
      expect(await store.setPrice("p-9999", 100)).toMatchObject({
        ok: false,
        code: "unknown_product",
      });

      const low = await store.lowStock(limited.stock);
      expect(low.map((p) => p.id)).toContain(limited.id);
      expect(low.every((p) => p.stock <= limited.stock)).toBe(true);
      expect(low.map((p) => p.stock)).toEqual([...low.map((p) => p.stock)].sort((x, y) => x - y));
      const restocked = await store.restock(limited.id, 50);
      expect(restocked).toMatchObject({ ok: true, product: { stock: limited.stock + 50 } });
      expect((await store.lowStock(limited.stock)).map((p) => p.id)).not.toContain(limited.id);

      expect(await store.setPrice(cheap.id, 999)).toMatchObject({
        ok: true,
        product: { priceCents: 999 },
      });
      expect((await store.getProduct(cheap.id))?.priceCents).toBe(999);
      expect((await store.searchProducts({ text: cheap.name, limit: 1 }))[0]?.priceCents).toBe(999);

      expect(await store.salesSummary()).toMatchObject({ orderCount: 0, revenueCents: 0 });
      await add("a", cheap.id, 2);
      const a = await store.checkout("a", "c1");
      await add("b", cheap.id, 1);
      await add("b", limited.id, 1);
      const b = await store.checkout("b", "c1");
      const summary = await store.salesSummary();
      expect(summary).toMatchObject({
        orderCount: 2,
        itemCount: 4,
        revenueCents: 3 * 999 + limited.priceCents,
      });
      expect(summary.topProducts.map((p) => p.productId).sort()).toEqual(
        [cheap.id, limited.id].sort(),
      );
      const orders = await store.listOrders();
      expect(orders.map((o) => o.id)).toEqual([b.ok && b.order.id, a.ok && a.order.id]);
      expect(await store.listOrders({ limit: 1 })).toHaveLength(1);
    });
  });
}

/** Products chosen by property, so the tests hold for any catalog with such products. */
interface Fixtures {
  /** Stock 3..9: the stock binds before the per-line maximum. */
  limited: Product;
  /** Cheap and plentiful: the per-line maximum binds. */
  cheap: Product;
  /** Dear: ten of them break the limit. */
  dear: Product;
  dear2: Product;
}

/**
 * Adds that, repeated, run into every cart rule: the cheap line passes 10, the limited line its
 * stock, and the dear lines the total limit.
 */
function addPlan({ cheap, limited, dear, dear2 }: Fixtures) {
  return [
    { productId: cheap.id, quantity: 3 },
    { productId: limited.id, quantity: 2 },
    { productId: dear.id, quantity: 1 },
    { productId: dear2.id, quantity: 1 },
  ];
}

function pickFixtures(products: readonly Product[]): Fixtures {
  const find = (what: string, test: (p: Product) => boolean, skip?: Product) => {
    const product = products.find((p) => test(p) && p !== skip);
    if (!product) throw new Error(`The catalog has no ${what} product.`);
    return product;
  };
  const limited = find("limited", (p) => p.stock >= 3 && p.stock <= 9 && p.priceCents <= 20_000);
  const cheap = find("cheap", (p) => p.priceCents <= 3_000 && p.stock >= 40);
  const dear = find("dear", (p) => p.priceCents >= 40_000 && p.stock >= 10);
  const dear2 = find("second dear", (p) => p.priceCents >= 40_000 && p.stock >= 10, dear);
  return { limited, cheap, dear, dear2 };
}

function expectWithinRules(store: ShopStore, cart: Cart, products: ReadonlyMap<string, Product>) {
  const rules = store.cartRules;
  expect(cartTotal(cart)).toBeLessThanOrEqual(rules.maxTotalCents);
  expect(new Set(cart.lines.map((l) => l.productId)).size).toBe(cart.lines.length);
  for (const line of cart.lines) {
    expect(line.quantity).toBeGreaterThanOrEqual(1);
    expect(line.quantity).toBeLessThanOrEqual(rules.maxQuantityPerLine);
    expect(line.quantity).toBeLessThanOrEqual(products.get(line.productId)?.stock ?? 0);
  }
}

const WORKER = fileURLToPath(new URL("./cart-add-worker.testkit.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Spawns a worker process (its own store, its own connections) and talks to it over stdio. */
function startWorker(args: CartAddWorkerArgs) {
  const child = spawn(
    process.execPath,
    ["--conditions=overlap-source", "--import", "tsx", WORKER, JSON.stringify(args)],
    { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout });
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const results = new Promise<CartAddWorkerResult[]>((resolve, reject) => {
    let output: CartAddWorkerResult[] | undefined;
    lines.on("line", (line) => {
      if (line === "ready") markReady();
      else if (line.startsWith("[")) output = JSON.parse(line) as CartAddWorkerResult[];
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && output) resolve(output);
      else reject(new Error(`worker exited with ${code}: ${stderr}`));
    });
  });
  // A worker that dies before saying ready must fail the test, not hang it.
  const readyOrFail = Promise.race([ready, results.then(() => undefined)]);
  return { ready: readyOrFail, go: () => child.stdin.end("go\n"), results };
}

/** A fresh, empty database for an upgrade test, and how to open the store on it afterwards. */
export interface EmptyDatabase {
  /** A connection to build the old schema with (closed by the test before `open`). */
  readonly db: Kysely<ShopDatabase>;
  readonly dialect: StoreDialect;
  /** Opens (and so migrates) the store on the same database. */
  open(): Promise<ShopStore>;
  /** Deletes the database. */
  dispose(): Promise<void>;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Registers the upgrade test: a database made by the migrations of the version before shoppers
 * (2), holding sessions, a conversation, carts, an order and a ledger record, opened by this code.
 * Each old shopper session must become its own shopper (the session's id as the shopper's id)
 * owning its cart and orders, its token must still work, and new chats can join it.
 */
export function registerUpgradeSuite(name: string, createEmpty: () => Promise<EmptyDatabase>) {
  describe(name, () => {
    it("upgrades a version 2 database: each old session becomes its own shopper with its cart, orders and chat", async () => {
      const empty = await createEmpty();
      let store: ShopStore | undefined;
      try {
        const { db, dialect } = empty;
        expect(await migrateToLatest(db, dialect, 2)).toEqual([1, 2]);
        // A minute ago: a token older than the token lifetime (30 days) would open nothing.
        const at = new Date(Date.now() - 60_000).toISOString();
        await sql`insert into sessions (id, kind, token_hash, created_at) values
          ('s-old-a', 'shopper', ${sha256("token-a")}, ${at}),
          ('s-old-b', 'shopper', ${sha256("token-b")}, ${at}),
          ('s-old-m', 'merchant', ${sha256("token-m")}, ${at})`.execute(db);
        await sql`insert into messages (session_id, seq, role, content) values
          ('s-old-a', 0, 'user', ${JSON.stringify([{ type: "text", text: "add the socks" }])}),
          ('s-old-a', 1, 'assistant', ${JSON.stringify([{ type: "text", text: "Done." }])})`.execute(
          db,
        );
        const lines = JSON.stringify([{ productId: "p-0002", quantity: 2, unitPriceCents: 1450 }]);
        await sql`insert into carts (session_id, lines, updated_at)
          values ('s-old-a', ${lines}, ${at})`.execute(db);
        await sql`insert into orders (id, session_id, call_id, total_cents, item_count, created_at)
          values ('o-old', 's-old-a', 'call_old', 8900, 1, ${at})`.execute(db);
        await sql`insert into order_lines
          (order_id, position, product_id, name, quantity, unit_price_cents)
          values ('o-old', 0, 'p-0001', 'Aero Trail Runner', 1, 8900)`.execute(db);
        await sql`insert into tool_ledger (session_id, call_id, name, status, outcome, created_at)
          values ('s-old-a', 'call_old', 'checkout', 'ok', ${JSON.stringify({ status: "ok" })}, ${at})`.execute(
          db,
        );
        await db.destroy();

        store = await empty.open();
        const a = await store.findSessionByToken("token-a");
        expect(a).toEqual({ id: "s-old-a", kind: "shopper", createdAt: at, shopperId: "s-old-a" });
        expect(await store.findSessionByToken("token-m")).toEqual({
          id: "s-old-m",
          kind: "merchant",
          createdAt: at,
        });
        expect((await store.getSession("s-old-b"))?.shopperId).toBe("s-old-b");
        // The cart and the order stayed with their shopper; the other shopper has neither.
        expect((await store.getCart("s-old-a")).lines).toEqual([
          { productId: "p-0002", quantity: 2, unitPriceCents: 1450 },
        ]);
        expect(await store.getCart("s-old-b")).toEqual(EMPTY_CART);
        const orders = await store.listOrders({ shopperId: "s-old-a" });
        expect(orders).toHaveLength(1);
        expect(orders[0]).toMatchObject({
          id: "o-old",
          sessionId: "s-old-a",
          shopperId: "s-old-a",
        });
        expect(orders[0]?.lines).toEqual([
          {
            productId: "p-0001",
            name: "Aero Trail Runner",
            quantity: 1,
            unitPriceCents: 8900,
            lineTotalCents: 8900,
          },
        ]);
        expect(await store.listOrders({ shopperId: "s-old-b" })).toEqual([]);
        expect(await store.listChats("s-old-a")).toEqual([
          {
            id: "s-old-a",
            title: "add the socks",
            lastActivity: at,
            messageCount: 2,
            createdAt: at,
          },
        ]);
        // The conversation survived the upgrade byte for byte, and goes on under its version.
        const kept = await store.conversations.loadVersioned("s-old-a");
        expect(kept.messages).toEqual([
          { role: "user", content: [{ type: "text", text: "add the socks" }] },
          { role: "assistant", content: [{ type: "text", text: "Done." }] },
        ]);
        await store.conversations.write("s-old-a", 2, [{ role: "user", content: "and more" }], {
          expectedVersion: kept.version,
        });
        expect(await store.conversations.load("s-old-a")).toHaveLength(3);
        // The old checkout is still idempotent; a new chat of the old shopper shares the cart.
        expect(await store.checkout("s-old-a", "call_old")).toMatchObject({ replayed: true });
        const chat = await store.createSession("shopper", { shopperId: "s-old-a" });
        expect((await store.getCart(chat.id)).lines).toHaveLength(1);
        await store.migrate();
        expect(await store.ledger("s-old-a").lookup("call_old")).toMatchObject({ status: "ok" });
        expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
      } finally {
        await store?.close();
        await empty.dispose();
      }
    });

    it("upgrades a version 4 database: cart lines without their size stay and are marked, one-colour lines get their colour, orders are untouched", async () => {
      const empty = await createEmpty();
      let store: ShopStore | undefined;
      try {
        const { db, dialect } = empty;
        expect(await migrateToLatest(db, dialect, 4)).toEqual([1, 2, 3, 4]);
        const at = new Date(Date.now() - 60_000).toISOString();
        await sql`insert into shoppers (id, token_hash, created_at) values ('u-old', null, ${at})`.execute(
          db,
        );
        await sql`insert into sessions (id, kind, token_hash, created_at, shopper_id, last_active_at)
          values ('s-old', 'shopper', ${sha256("token-old")}, ${at}, 'u-old', ${at})`.execute(db);
        const lines = [
          // Aero Trail Runner: sizes and two colours, neither chosen.
          { productId: "p-0001", quantity: 1, unitPriceCents: 8900 },
          // Velocity Carbon Elite: one colour (Volt), size chosen.
          { productId: "p-0008", quantity: 1, unitPriceCents: 21900, size: "US 10" },
          // Echo Heart Rate Monitor: one size, one colour (White).
          { productId: "p-0017", quantity: 1, unitPriceCents: 4400 },
          { productId: "p-0002", quantity: 2, unitPriceCents: 1450, size: "M", color: "Charcoal" },
        ];
        await sql`insert into carts (shopper_id, lines, updated_at)
          values ('u-old', ${JSON.stringify(lines)}, ${at})`.execute(db);
        await sql`insert into orders (id, session_id, call_id, total_cents, item_count, created_at, shopper_id)
          values ('o-old', 's-old', 'call_old', 8900, 1, ${at}, 'u-old')`.execute(db);
        await sql`insert into order_lines
          (order_id, position, product_id, name, quantity, unit_price_cents)
          values ('o-old', 0, 'p-0001', 'Aero Trail Runner', 1, 8900)`.execute(db);
        await db.destroy();

        store = await empty.open();
        const cart = await store.getCart("s-old");
        expect(cart.lines).toEqual([
          lines[0],
          { ...lines[1], color: "Volt" },
          { ...lines[2], color: "White" },
          lines[3],
        ]);
        // What the cart view marks: the first line still needs its size and colour, no other.
        const needs = await Promise.all(
          cart.lines.map(async (l) => {
            const product = await store!.getProduct(l.productId);
            return product && variantChoice(product, l)?.missing;
          }),
        );
        expect(needs).toEqual([["size", "color"], undefined, undefined, undefined]);
        // Checkout asks for the size first: nothing is placed, no stock is taken.
        const stock = (await store.getProduct("p-0001"))?.stock;
        expect(await store.checkout("s-old", "call_new")).toMatchObject({
          ok: false,
          code: "variant_required",
          params: { choices: [{ productId: "p-0001", missing: ["size", "color"] }] },
        });
        expect((await store.getProduct("p-0001"))?.stock).toBe(stock);
        expect((await store.getCart("s-old")).lines).toHaveLength(4);
        const [order] = await store.listOrders({ shopperId: "u-old" });
        expect(order?.lines).toEqual([
          {
            productId: "p-0001",
            name: "Aero Trail Runner",
            quantity: 1,
            unitPriceCents: 8900,
            lineTotalCents: 8900,
          },
        ]);
        // Once the line has its size and colour, the order goes through.
        await store.withCart("s-old", async (c, tx) =>
          updateQuantity(c, await tx.getProduct("p-0001"), undefined, tx.rules, {
            size: "10",
            color: "Volt",
          }),
        );
        expect(await store.checkout("s-old", "call_new")).toMatchObject({ ok: true });
        expect((await store.getProduct("p-0001"))?.stock).toBe((stock ?? 0) - 1);
        expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(5);
      } finally {
        await store?.close();
        await empty.dispose();
      }
    });
  });
}

/**
 * What a crash may have left of a session's last round: the journaled calls `present` (the ids
 * the conversation holds) lacks, and the ledger records of those that ran.
 */
async function lostCalls(store: ShopStore, sessionId: string, present: ReadonlySet<string>) {
  const journaled = (await store.durable.journaled(sessionId))
    .filter((call) => !present.has(call.block.id))
    .map(({ round, index, block }) => ({ round, index, block }));
  return { journaled, recorded: await store.durable.records(sessionId, journaled) };
}
