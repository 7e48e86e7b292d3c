/**
 * Several server processes on one database, with three: three shop processes (`npm start`'s entry point) on one
 * PostgreSQL take 60 changes to ONE session's cart at once, through the REST cart routes and
 * through tool calls the scripted model makes in turns (add, change the quantity, remove), spread
 * over all three. The per-session lock held in the database must make them one history: every
 * accepted change, replayed in the order the carts it reported chain into, yields exactly the
 * final cart (nothing lost, nothing applied twice, nothing applied that was refused); every
 * refused change got a clear 4xx or a tool error in plain words; no line passes 10, the total
 * never passes the limit, no stock goes negative.
 *
 * The scripted model runs as a process of its own, quickly paced, reached as the Anthropic API.
 */

import { randomBytes } from "node:crypto";
import type { AgentEvent } from "overlap-runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDefaultUser } from "../db/postgres-store.js";
import {
  type Cart,
  type CartResult,
  DEFAULT_CART_RULES,
  EMPTY_CART,
  removeLine,
  updateQuantity,
} from "../domain/cart.js";
import { generateCatalog, type Product } from "../domain/catalog.js";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import {
  type ScriptedModelProcess,
  spawnScriptedModel,
  stopScriptedModel,
} from "../model/spawn-scripted-model.js";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.testkit.js";
import { readEvents } from "./test-shop.testkit.js";

const DATABASE_URL = withDefaultUser(process.env.DATABASE_URL || "postgres://127.0.0.1:5432/test");

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const available = await reachable();
if (!available && process.env.CI !== "true") {
  console.warn(
    "\n!!! Three-process PostgreSQL test SKIPPED: PostgreSQL is not reachable (CI=true makes this a failure).\n",
  );
}

/** The products changed: two pricey ones (the total limit is reached) and two cheap ones. */
const WATCH = "p-0079"; // Vertex GPS Watch, $465.00
const TENT = "p-0019"; // Meadow 2-Person Tent, $560.50
const SOCKS = "p-0002"; // Merino Wool Socks, $14.50
const RUNNER = "p-0001"; // Aero Trail Runner, $89.00
const CATALOG = new Map(generateCatalog().map((p): [string, Product] => [p.id, p]));
const nameOf = (id: string) => CATALOG.get(id)!.name;

/** One change as it was asked for. */
type Op =
  | { op: "add"; productId: string; quantity: number }
  | { op: "set"; productId: string; quantity: number }
  | { op: "remove"; productId: string };

/** A change and how it ended. */
type Outcome = Op & {
  via: string;
  /** Accepted: the cart after it, as its answer showed it (productId → quantity, in line order). */
  after?: Array<[string, number]>;
  /** Refused: what the caller was told. */
  refusal?: { status?: number; code?: string; message: string };
};

/** A cart's lines as `[productId, quantity]` pairs, in line order. */
function pairs(lines: ReadonlyArray<{ productId: string; quantity: number }>) {
  return lines.map((l): [string, number] => [l.productId, l.quantity]);
}

/** Applies an accepted change with the shop's own rules. */
function apply(cart: Cart, change: Op): CartResult {
  const product = CATALOG.get(change.productId);
  if (change.op === "add")
    return addInFirstVariant(cart, product, change.quantity, DEFAULT_CART_RULES);
  if (change.op === "set")
    return updateQuantity(cart, product, change.quantity, DEFAULT_CART_RULES);
  return removeLine(cart, change.productId);
}

/**
 * An order of the accepted changes in which each, applied by the rules to the cart before it,
 * yields exactly the cart its answer showed, and the last yields `final`; undefined when none
 * exists (a lost update, a double application, or a change applied that was refused).
 */
function linearize(accepted: readonly Outcome[], final: Array<[string, number]>) {
  const order: Outcome[] = [];
  const used = new Set<number>();
  const dead = new Set<string>();
  const key = (cart: Cart) => JSON.stringify(pairs(cart.lines));
  const search = (cart: Cart): boolean => {
    if (order.length === accepted.length) return key(cart) === JSON.stringify(final);
    const memo = `${[...used].sort((a, b) => a - b).join(",")}|${key(cart)}`;
    if (dead.has(memo)) return false;
    for (const [i, change] of accepted.entries()) {
      if (used.has(i)) continue;
      const next = apply(cart, change);
      if (!next.ok || key(next.cart) !== JSON.stringify(change.after)) continue;
      used.add(i);
      order.push(change);
      if (search(next.cart)) return true;
      used.delete(i);
      order.pop();
    }
    dead.add(memo);
    return false;
  };
  return search(EMPTY_CART) ? order : undefined;
}

/** What a shopper types for a change, read by the scripted model. */
function sentence(change: Op): string {
  const name = nameOf(change.productId);
  if (change.op === "add") {
    // In the product's first size and colour, as the REST adds and `apply` use.
    const { sizes, colors } = CATALOG.get(change.productId)!;
    const size = sizes[0] ? ` in size ${sizes[0]}` : "";
    return `add ${change.quantity} ${name}${size}${colors[0] ? ` in ${colors[0].toLowerCase()}` : ""} to my cart`;
  }
  if (change.op === "set") return `change the ${name} to ${change.quantity}`;
  return `remove the ${name}`;
}

describe.skipIf(!available && process.env.CI !== "true")(
  "three server processes on one PostgreSQL",
  () => {
    const schema = `shop_3p_${randomBytes(4).toString("hex")}`;
    const servers: ShopProcess[] = [];
    let model: ScriptedModelProcess | undefined;

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      model = await spawnScriptedModel({
        args: ["--port", "0", "--tps", "2000", "--first-token-ms", "5"],
      });
      const url = new URL(DATABASE_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const env = {
        DATABASE_URL: url.toString(),
        MERCHANT_TOKEN: "three-process-test",
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "any-key",
        MODEL: "scripted-shop",
        RATE_LIMIT_TURNS_PER_MINUTE: "1000",
      };
      // One after the other: the first migrates the fresh schema, the others find it ready.
      for (let i = 0; i < 3; i++) servers.push(await spawnShop(env));
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => stopShop(server)));
      if (model) await stopScriptedModel(model);
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    });

    it("60 concurrent REST and tool changes of one cart are one history that ends in the final cart", async () => {
      const session = (await (
        await fetch(`${servers[0]!.url}/api/sessions`, { method: "POST" })
      ).json()) as { id: string; token: string };
      const headers = {
        authorization: `Bearer ${session.token}`,
        "content-type": "application/json",
      };
      const cartUrl = (server: ShopProcess) => `${server.url}/api/sessions/${session.id}/cart`;

      // 36 REST changes, fired at once, round-robin over the servers.
      const restOps: Op[] = Array.from({ length: 36 }, (_, i): Op => {
        const productId = [WATCH, TENT, SOCKS, RUNNER][i % 4]!;
        if (i % 6 === 5) return { op: "remove", productId };
        if (i % 6 === 4) return { op: "set", productId, quantity: 1 + ((i * 7) % 10) };
        return { op: "add", productId, quantity: 1 + (i % 4) };
      });
      const rest = restOps.map(async (change, i): Promise<Outcome> => {
        const server = servers[i % 3]!;
        const item = `${cartUrl(server)}/items/${change.productId}`;
        const response =
          change.op === "add"
            ? await fetch(`${cartUrl(server)}/items`, {
                method: "POST",
                headers,
                body: JSON.stringify({
                  productId: change.productId,
                  quantity: change.quantity,
                  size: CATALOG.get(change.productId)!.sizes[0],
                  color: CATALOG.get(change.productId)!.colors[0],
                }),
              })
            : change.op === "set"
              ? await fetch(item, {
                  method: "PATCH",
                  headers,
                  body: JSON.stringify({ quantity: change.quantity }),
                })
              : await fetch(item, { method: "DELETE", headers });
        const body = (await response.json()) as {
          cart?: { lines: Array<{ productId: string; quantity: number }> };
          error?: { code: string; message: string };
        };
        const via = `REST ${change.op} on server ${i % 3}`;
        if (response.status === 200) return { ...change, via, after: pairs(body.cart!.lines) };
        return {
          ...change,
          via,
          refusal: {
            status: response.status,
            code: body.error?.code ?? "",
            message: body.error?.message ?? "",
          },
        };
      });

      // 24 turns, 8 per server one after the other (a session runs one turn at a time in a
      // process), the three servers' turns at the same time as each other and the REST changes.
      const turnOps: Op[] = Array.from({ length: 24 }, (_, i): Op => {
        const productId = [SOCKS, WATCH, RUNNER, TENT][i % 4]!;
        if (i % 6 === 5) return { op: "remove", productId };
        if (i % 6 === 2) return { op: "set", productId, quantity: 2 + (i % 5) };
        return { op: "add", productId, quantity: 1 + (i % 3) };
      });
      const toolOutcomes: Outcome[] = [];
      const turnErrors: string[] = [];
      const turns = servers.map(async (server, s) => {
        for (const [n, change] of turnOps.entries()) {
          if (n % 3 !== s) continue;
          let events: AgentEvent[] = [];
          // One turn per chat on all three: a message while another server runs a turn of the
          // chat is refused (409, nothing done) and the shopper sends it again after a moment.
          for (let attempt = 0; ; attempt++) {
            const response = await fetch(`${server.url}/api/sessions/${session.id}/messages`, {
              method: "POST",
              headers,
              body: JSON.stringify({ text: sentence(change) }),
            });
            if (response.status === 409 && attempt < 400) {
              expect((await response.json()) as unknown).toMatchObject({
                error: { code: "turn_running" },
              });
              await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
              continue;
            }
            expect(response.status, `turn "${sentence(change)}"`).toBe(200);
            events = (await readEvents(response)).map((e) => e.event);
            const error = events.find((e) => e.type === "error");
            if (error?.type === "error") turnErrors.push(error.code);
            break;
          }
          for (const event of events) {
            if (event.type !== "tool-call") continue;
            const input = event.input as { productId?: string; quantity?: number };
            const asked: Op | undefined =
              event.name === "add_to_cart"
                ? { op: "add", productId: input.productId!, quantity: input.quantity ?? 1 }
                : event.name === "update_cart_item"
                  ? { op: "set", productId: input.productId!, quantity: input.quantity! }
                  : event.name === "remove_from_cart"
                    ? { op: "remove", productId: input.productId! }
                    : undefined;
            if (!asked) continue;
            const via = `tool ${event.name} in turn "${sentence(change)}" on server ${s}`;
            const result = events.find(
              (e) => e.type === "tool-result" && e.callId === event.callId,
            );
            expect(result, via).toBeDefined();
            if (result?.type !== "tool-result") continue;
            if (result.isError) {
              toolOutcomes.push({ ...asked, via, refusal: { message: result.resultText } });
              continue;
            }
            const ui = events.find(
              (e) => e.type === "ui" && e.callId === event.callId && e.ui.type === "cart-updated",
            );
            const cart = (ui?.type === "ui" ? ui.ui : {}) as {
              cart?: { lines: Array<{ productId: string; quantity: number }> };
            };
            expect(cart.cart, `${via}: the cart it made`).toBeDefined();
            toolOutcomes.push({ ...asked, via, after: pairs(cart.cart!.lines) });
          }
        }
      });
      const [restOutcomes] = await Promise.all([Promise.all(rest), Promise.all(turns)]);
      const outcomes = [...restOutcomes, ...toolOutcomes];

      const view = (await (await fetch(cartUrl(servers[2]!), { headers })).json()) as {
        cart: {
          lines: Array<{ productId: string; quantity: number; unitPriceCents: number }>;
          totalCents: number;
          limitCents: number;
          maxQuantityPerLine: number;
        };
      };
      const final = view.cart;

      // The rules hold, in the final cart and in every cart an accepted change showed.
      expect(final.maxQuantityPerLine).toBe(10);
      expect(final.totalCents).toBeLessThanOrEqual(final.limitCents);
      for (const outcome of outcomes) {
        if (!outcome.after) continue;
        for (const [id, quantity] of outcome.after) {
          expect(quantity, outcome.via).toBeGreaterThanOrEqual(1);
          expect(quantity, outcome.via).toBeLessThanOrEqual(10);
          expect(quantity, outcome.via).toBeLessThanOrEqual(CATALOG.get(id)!.stock);
        }
        const total = outcome.after.reduce(
          (sum, [id, quantity]) => sum + CATALOG.get(id)!.priceCents * quantity,
          0,
        );
        expect(total, outcome.via).toBeLessThanOrEqual(final.limitCents);
      }
      const db = new pg.Client({ connectionString: DATABASE_URL });
      await db.connect();
      try {
        const { rows } = await db.query<{ negative: string }>(
          `select count(*) as negative from ${schema}.products where stock < 0`,
        );
        expect(Number(rows[0]!.negative)).toBe(0);
      } finally {
        await db.end();
      }

      // One history: the accepted changes, in the order their carts chain into, replayed by the
      // rules from an empty cart, give exactly the final cart.
      const accepted = outcomes.filter((o) => o.after);
      const order = linearize(accepted, pairs(final.lines));
      expect(
        order,
        `no order of the ${accepted.length} accepted changes yields the final cart ${JSON.stringify(pairs(final.lines))}`,
      ).toBeDefined();
      let replayed: Cart = EMPTY_CART;
      for (const change of order!) {
        const next = apply(replayed, change);
        expect(next.ok, change.via).toBe(true);
        if (next.ok) replayed = next.cart;
      }
      expect(
        replayed.lines.map((l) => ({
          productId: l.productId,
          quantity: l.quantity,
          unitPriceCents: l.unitPriceCents,
        })),
      ).toEqual(
        final.lines.map((l) => ({
          productId: l.productId,
          quantity: l.quantity,
          unitPriceCents: l.unitPriceCents,
        })),
      );

      // Refused changes were told why, in words: a 4xx with a rule's code, or a tool error
      // that is a sentence (no validation dump).
      const refused = outcomes.filter((o) => o.refusal);
      for (const { via, refusal } of refused) {
        if (refusal!.status !== undefined) {
          expect(refusal!.status, via).toBeGreaterThanOrEqual(400);
          expect(refusal!.status, via).toBeLessThan(500);
          expect(["quantity_out_of_range", "over_limit", "not_in_cart"], via).toContain(
            refusal!.code,
          );
        }
        expect(refusal!.message, via).toMatch(/^[A-Z].{10,}[.!]$/s);
        expect(refusal!.message, via).not.toMatch(/✖|expected|→|invalid_type|too_big/i);
      }

      // Really contended: both paths and all three servers accepted changes and refused some,
      // and every kind of change was accepted somewhere.
      expect(restOutcomes).toHaveLength(36);
      expect(toolOutcomes.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      expect(accepted.some((o) => o.via.startsWith("tool"))).toBe(true);
      expect(accepted.some((o) => o.via.startsWith("REST"))).toBe(true);
      for (const s of [0, 1, 2]) {
        expect(accepted.some((o) => o.via.endsWith(`server ${s}`))).toBe(true);
      }
      expect(new Set(accepted.map((o) => o.op))).toEqual(new Set(["add", "set", "remove"]));
      // No turn ran beside another one of the chat: none lost a race on the conversation.
      expect(turnErrors).toEqual([]);
      const byTools = accepted.filter((o) => o.via.startsWith("tool"));
      console.info(
        `three processes: ${outcomes.length} changes (${toolOutcomes.length} by tools), ${accepted.length} accepted (${byTools.length} by tools: ${byTools.map((o) => o.op).join(" ")}), ` +
          `${refused.length} refused, ${turnErrors.length} turns lost a conversation race; final ${JSON.stringify(pairs(final.lines))}`,
      );
    }, 180_000);
  },
);
