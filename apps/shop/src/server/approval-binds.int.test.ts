/**
 * What the shopper confirms is what is ordered, over HTTP against the embedded model, on SQLite
 * and on PostgreSQL: while checkout's card waits, another instance changes what the order would
 * be (the merchant raises a price, a sale ends, the cart is edited over the API, another chat of
 * the same shopper adds to the cart). The Confirm of the old card places nothing; the card comes
 * back with the order as it is now and what changed; only its own Confirm places the order, and
 * exactly that order.
 */

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "overlap-runtime";
import { decodeSseStream } from "overlap-runtime/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../db/postgres-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { openSqliteStore } from "../db/sqlite-store.js";
import { postgresProblem, TEST_DATABASE_URL } from "./services.testkit.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

type Request = Extract<AgentEvent, { type: "approval-request" }>;

interface Database {
  /** The shop's store, and a second one on the same database: another instance. */
  open(): Promise<{ store: ShopStore; other: ShopStore; dispose(): Promise<void> }>;
}

const sqlite: Database = {
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "shop-binds-"));
    const file = join(dir, "shop.sqlite");
    const store = await openSqliteStore({ file });
    const other = await openSqliteStore({ file });
    return {
      store,
      other,
      async dispose() {
        await other.close();
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: Database = {
  async open() {
    const schema = `shop_binds_${randomBytes(5).toString("hex")}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const open = () =>
      openPostgresStore({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    const store = await open();
    const other = await open();
    return {
      store,
      other,
      async dispose() {
        await other.close();
        await store.close();
        await admin.query(`drop schema if exists ${schema} cascade`);
        await admin.end();
      },
    };
  },
};

const pgProblem = await postgresProblem();
if (pgProblem !== null && process.env.CI !== "true") {
  console.warn(`\n!!! approval-binds on PostgreSQL SKIPPED: ${pgProblem}\n`);
}

const databases: [string, Database, boolean][] = [
  ["SQLite", sqlite, true],
  ["PostgreSQL", postgres, pgProblem === null || process.env.CI === "true"],
];

for (const [name, database, enabled] of databases) {
  describe.runIf(enabled)(`checkout places only the confirmed order (${name})`, () => {
    let t: TestShop;
    let other: ShopStore;
    let dispose: () => Promise<void>;
    beforeAll(async () => {
      const opened = await database.open();
      other = opened.other;
      dispose = opened.dispose;
      t = await createTestShop({
        store: opened.store,
        pacing: { tokensPerSecond: 400, firstTokenMs: 10 },
      });
    });
    afterAll(async () => {
      await t?.close();
      await dispose?.();
    });

    async function shopperWithCart() {
      const { id, token } = await t.session();
      await readEvents(
        await t.call("POST", `/api/sessions/${id}/messages`, {
          token,
          json: {
            text: "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart",
          },
        }),
      );
      const lines = (await t.store.getCart(id)).lines;
      expect(lines).toHaveLength(2);
      return { id, token, aero: lines[0]!.productId, socks: lines[1]!.productId };
    }

    /**
     * Says "check out" and answers each approval card: `change` runs while the first card
     * waits; every card is confirmed with its own digest, except the old card's digest is sent
     * once more for the second ask when `staleConfirm` is set. Returns the cards and the events.
     */
    async function checkOutWhile(
      chat: { id: string; token: string },
      change: () => Promise<void>,
      answer: (request: Request) => { approve: boolean; digest?: string } = (r) => ({
        approve: true,
        ...(r.digest ? { digest: r.digest } : {}),
      }),
    ) {
      const cards: Request[] = [];
      const ordersBeforeSecondCard: number[] = [];
      const response = await t.call("POST", `/api/sessions/${chat.id}/messages`, {
        token: chat.token,
        json: { text: "check out" },
      });
      const events: AgentEvent[] = [];
      if (!response.body) throw new Error(`no body (${response.status})`);
      for await (const frame of decodeSseStream(response.body)) {
        if (frame.event === undefined || frame.id === undefined) continue;
        const event = JSON.parse(frame.data) as AgentEvent;
        events.push(event);
        if (event.type !== "approval-request" || event.parentCallId !== undefined) continue;
        cards.push(event);
        if (cards.length === 1) await change();
        else ordersBeforeSecondCard.push((await t.store.listOrders({ sessionId: chat.id })).length);
        const decided = await t.call(
          "POST",
          `/api/sessions/${chat.id}/approvals/${encodeURIComponent(event.callId)}`,
          { token: chat.token, json: answer(event) },
        );
        expect(decided.status).toBe(200);
      }
      return { cards, events, ordersBeforeSecondCard };
    }

    const orders = (id: string) => t.store.listOrders({ sessionId: id });
    const totalOf = (card: Request | undefined) =>
      (card?.effect as { totalCents?: number } | undefined)?.totalCents;

    it("a price raised while the card waited: nothing at the new price until its own card is confirmed", async () => {
      const chat = await shopperWithCart();
      const aero = (await other.getProduct(chat.aero))!;
      const { cards, ordersBeforeSecondCard } = await checkOutWhile(chat, async () => {
        await other.setPrice(chat.aero, aero.priceCents + 10_100);
      });
      expect(cards).toHaveLength(2);
      expect(totalOf(cards[0])).toBe(10_350);
      expect(ordersBeforeSecondCard).toEqual([0]);
      expect(cards[1]).toMatchObject({ ask: 2 });
      expect(cards[1]?.changes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ before: 8_900, after: 19_000 }),
          { path: "totalCents", before: 10_350, after: 20_450 },
        ]),
      );
      const placed = await orders(chat.id);
      expect(placed).toHaveLength(1);
      expect(placed[0]?.totalCents).toBe(totalOf(cards[1]));
      await other.setPrice(chat.aero, aero.priceCents);
    });

    it("a sale that ended while the card waited", async () => {
      const chat = await shopperWithCart();
      await other.setDiscount("Socks", 50);
      // The cart captured the full price; the card shows what checkout charges: the sale price.
      const { cards } = await checkOutWhile(chat, async () => {
        await other.setDiscount("Socks", undefined);
      });
      expect(totalOf(cards[0])).toBe(8_900 + 725);
      expect(totalOf(cards[1])).toBe(10_350);
      expect((await orders(chat.id))[0]?.totalCents).toBe(10_350);
    });

    it("the cart edited over the API while the card waited: the order holds what the new card showed", async () => {
      const chat = await shopperWithCart();
      const { cards } = await checkOutWhile(chat, async () => {
        const edited = await t.call("PATCH", `/api/sessions/${chat.id}/cart/items/${chat.socks}`, {
          token: chat.token,
          json: { quantity: 9 },
        });
        expect(edited.status).toBe(200);
      });
      expect(cards[1]?.changes).toEqual(
        expect.arrayContaining([expect.objectContaining({ before: 1, after: 9 })]),
      );
      const [order] = await orders(chat.id);
      expect(order?.itemCount).toBe(10);
      expect(order?.totalCents).toBe(totalOf(cards[1]));
    });

    it("another chat of the same shopper added to the cart while the card waited; declining the new card orders nothing", async () => {
      const chat = await shopperWithCart();
      const { cards, events } = await checkOutWhile(
        chat,
        async () => {
          const second = await t.call("POST", "/api/sessions", { token: chat.token });
          const { id, token } = (await second.json()) as { id: string; token: string };
          const added = await t.call("POST", `/api/sessions/${id}/cart/items`, {
            token,
            json: { productId: chat.socks, quantity: 5, size: "L", color: "Oatmeal" },
          });
          expect(added.status).toBe(200);
        },
        (r) => ({ approve: r.ask === undefined, ...(r.digest ? { digest: r.digest } : {}) }),
      );
      expect(cards).toHaveLength(2);
      expect(cards[1]?.changes?.some((c) => c.before === undefined && c.after !== undefined)).toBe(
        true,
      );
      expect(await orders(chat.id)).toEqual([]);
      expect((await t.store.getCart(chat.id)).lines).toHaveLength(3);
      const results = events.filter((e) => e.type === "tool-result" && e.name === "checkout");
      expect(results).toMatchObject([{ status: "declined" }]);
    });

    it("a Confirm bound to another card's digest approves nothing: the card is asked again", async () => {
      const chat = await shopperWithCart();
      const { cards } = await checkOutWhile(
        chat,
        async () => {},
        (r) => ({
          approve: true,
          digest: r.ask === undefined ? `sha256:${"0".repeat(64)}` : r.digest,
        }),
      );
      expect(cards).toHaveLength(2);
      expect(cards[1]).toMatchObject({ ask: 2, digest: cards[0]?.digest });
      expect(cards[1]?.changes).toBeUndefined();
      expect(await orders(chat.id)).toHaveLength(1);
    });
  });
}
