/**
 * The behaviour every store's turn leases and versioned conversation writes must have, registered
 * by the SQLite and PostgreSQL store tests with their own harness: one claim wins, a live lease
 * refuses, an expired one is taken over (and says whose it was), renewals and releases only touch
 * the holder's own lease, and a writer that lost (a stale version, a lease taken over) changes
 * nothing, neither the conversation nor the cart.
 */

import type { Message } from "overlap-runtime";
import { TurnLeaseLostError } from "overlap-runtime/durable";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import type { ShopStore } from "./shop-store.js";
import type { StoreHarness, StoreHarnessFactory } from "./store-suite.testkit.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const text = (role: "user" | "assistant", content: string): Message =>
  ({ role, content }) as Message;

/** Registers the lease tests under `name`. */
export function registerTurnLeaseSuite(name: string, createHarness: StoreHarnessFactory): void {
  describe(name, () => {
    let harness: StoreHarness;
    let store: ShopStore;

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    const claim = (s: ShopStore, sessionId: string, turnId: string, ttlMs = 60_000) =>
      s.durable.leases.claim(sessionId, { turnId, holder: `holder-of-${turnId}`, ttlMs });

    it("one claim holds a chat until it is released; other chats are free", async () => {
      const chat = await store.createSession("shopper");
      const other = await store.createSession("shopper");
      expect(await claim(store, chat.id, "t1")).toEqual({ ok: true });
      const refused = await claim(store, chat.id, "t2");
      expect(refused).toMatchObject({
        ok: false,
        heldBy: { turnId: "t1", holder: "holder-of-t1" },
      });
      expect(await claim(store, other.id, "t3")).toEqual({ ok: true });
      // Only the holder's release frees the chat.
      await store.durable.leases.release(chat.id, "t2");
      expect((await store.durable.leases.current(chat.id))?.turnId).toBe("t1");
      await store.durable.leases.release(chat.id, "t1");
      expect(await store.durable.leases.current(chat.id)).toBeUndefined();
      expect(await claim(store, chat.id, "t4")).toEqual({ ok: true });
    });

    it("of many claims at the same moment, from two stores, exactly one wins", async () => {
      const peer = harness.concurrentPeers ? await harness.openPeer() : store;
      for (let trial = 0; trial < 10; trial++) {
        const chat = await store.createSession("shopper");
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            claim(i % 2 === 0 ? store : peer, chat.id, `t${trial}-${i}`),
          ),
        );
        const winners = results.filter((r) => r.ok);
        expect(winners).toHaveLength(1);
        const holder = (await store.durable.leases.current(chat.id))?.turnId;
        expect(results[results.findIndex((r) => r.ok)]).toEqual({ ok: true });
        for (const r of results) if (!r.ok) expect(r.heldBy.turnId).toBe(holder);
      }
    });

    it("an expired lease is taken over and names the turn it belonged to", async () => {
      const chat = await store.createSession("shopper");
      await claim(store, chat.id, "dead", 30);
      await sleep(60);
      const taken = await claim(store, chat.id, "next");
      expect(taken).toMatchObject({
        ok: true,
        tookOver: { turnId: "dead", holder: "holder-of-dead" },
      });
      // The dead holder can neither renew nor release the new lease.
      expect(await store.durable.leases.renew(chat.id, "dead", 60_000)).toEqual({ held: false });
      await store.durable.leases.release(chat.id, "dead");
      expect((await store.durable.leases.current(chat.id))?.turnId).toBe("next");
      expect(await store.durable.leases.renew(chat.id, "next", 60_000)).toEqual({ held: true });
    });

    it("a renewed lease does not expire", async () => {
      const chat = await store.createSession("shopper");
      await claim(store, chat.id, "alive", 150);
      for (let i = 0; i < 4; i++) {
        await sleep(50);
        expect(await store.durable.leases.renew(chat.id, "alive", 150)).toEqual({ held: true });
      }
      expect(await claim(store, chat.id, "intruder")).toMatchObject({ ok: false });
    });

    it("a conversation write that read an older version changes nothing", async () => {
      const chat = await store.createSession("shopper");
      const first = await store.conversations.loadVersioned(chat.id);
      expect(first).toEqual({ messages: [], version: 0 });
      const v1 = await store.conversations.writeVersioned(chat.id, 0, [text("user", "hi")], {
        expectedVersion: first.version,
      });
      expect(v1).toBe(1);
      // A second writer that read the same version lost: no overwrite, no merge.
      await expect(
        store.conversations.writeVersioned(chat.id, 0, [text("user", "other")], {
          expectedVersion: first.version,
        }),
      ).rejects.toMatchObject({ code: "conversation_conflict" });
      expect(await store.conversations.loadVersioned(chat.id)).toEqual({
        messages: [text("user", "hi")],
        version: 1,
      });
      // Even a rewrite to the same length counts as a change.
      await store.conversations.writeVersioned(chat.id, 0, [text("user", "hi!")], {
        expectedVersion: 1,
      });
      await expect(
        store.conversations.writeVersioned(chat.id, 1, [text("assistant", "late")], {
          expectedVersion: 1,
        }),
      ).rejects.toMatchObject({ code: "conversation_conflict" });
      expect((await store.conversations.loadVersioned(chat.id)).version).toBe(2);
    });

    it("a writer whose lease was taken over writes nothing: neither messages nor cart", async () => {
      const chat = await store.createSession("shopper");
      const product = (await store.listProducts()).find((p) => p.sizes.length === 0 && p.stock > 5);
      if (!product) throw new Error("the catalog has no unsized product in stock");
      await claim(store, chat.id, "old", 30);
      await store.conversations.write(chat.id, 0, [text("user", "hi")], { lease: "old" });
      await sleep(60);
      await claim(store, chat.id, "new");
      await expect(
        store.conversations.write(chat.id, 1, [text("assistant", "zombie")], { lease: "old" }),
      ).rejects.toBeInstanceOf(TurnLeaseLostError);
      await expect(
        store.withCart(
          chat.id,
          async (cart, tx) => addInFirstVariant(cart, await tx.getProduct(product.id), 1, tx.rules),
          {
            record: () => ({
              sessionId: chat.id,
              lease: "old",
              outcome: {
                callId: "c-zombie",
                name: "add_to_cart",
                status: "ok",
                resultText: "added",
                events: [],
                isError: false,
              },
            }),
          },
        ),
      ).rejects.toBeInstanceOf(TurnLeaseLostError);
      expect((await store.getCart(chat.id)).lines).toEqual([]);
      expect(await store.ledger(chat.id).lookup("c-zombie")).toBeUndefined();
      expect(await store.conversations.load(chat.id)).toEqual([text("user", "hi")]);
      // The holder writes as usual.
      await store.conversations.write(chat.id, 1, [text("assistant", "hello")], { lease: "new" });
      expect(await store.conversations.load(chat.id)).toHaveLength(2);
    });
  });
}
