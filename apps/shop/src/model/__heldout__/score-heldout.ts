/**
 * Scores the scripted model on the held-out conversations (conversations.json): each one driven
 * end to end through the real agents, a fresh in-memory store and the embedded model over HTTP,
 * and its last turn scored as correct, a clarification (asked instead of doing what was wanted),
 * a wrong action (a change or a display that is not the one wanted) or no action.
 *
 * These conversations are never used to tune the model: run it to measure, not to fix sentences.
 *
 *   node --conditions=overlap-source --import tsx apps/shop/src/model/__heldout__/score-heldout.ts [--verbose]
 */

import { readFileSync } from "node:fs";
import { type AgentEvent, type Message, runAgentTurn } from "overlap-runtime";
import { createShopAgents } from "../../agents/shop-agents.js";
import { openStore } from "../../db/open-store.js";
import type { ShopStore } from "../../db/shop-store.js";
import type { Product } from "../../domain/catalog.js";
import { modelFromEnv } from "../model-from-env.js";
import { shopPolicy } from "../shop-policy.js";

type Who = "shopper" | "merchant";
type Json = unknown;
interface Filter {
  category?: string;
  tag?: string;
  maxPrice?: number;
}
interface Expect {
  calls?: Array<[string, Record<string, Json>?]>;
  cart?: Array<Record<string, Json>>;
  asks?: string;
  reply?: string | { cheapest?: Filter; bestRated?: Filter };
  once?: boolean;
  anyOf?: Expect[];
}
interface Conversation {
  id: string;
  lang: string;
  turns: Array<string | { who: Who; say: string }>;
  expect: Expect;
}
interface Call {
  name: string;
  input: Record<string, Json>;
}
interface Outcome {
  calls: Call[];
  reply: string;
  bubble: string;
}
type Score = "correct" | "clarification" | "wrong action" | "no action";

/** Tools whose call changes something: a wrong one is a wrong action, never a clarification. */
const CHANGES = new Set([
  "add_to_cart",
  "update_cart_item",
  "remove_from_cart",
  "clear_cart",
  "checkout",
  "set_price",
  "edit_product",
  "restock",
  "restock_products",
  "set_discount",
  "end_discount",
]);

const set = process.argv.find((a) => a.startsWith("--set="))?.slice(6) ?? "heldout";
const file =
  set === "dev"
    ? new URL("../reading/__dev__/conversations.json", import.meta.url)
    : new URL("./conversations.json", import.meta.url);
const { conversations } = JSON.parse(readFileSync(file, "utf8")) as {
  conversations: Conversation[];
};
const verbose = process.argv.includes("--verbose");
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7);

const shop = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: { fast: true } });
const tally: Record<Score, number> = {
  correct: 0,
  clarification: 0,
  "wrong action": 0,
  "no action": 0,
};
try {
  for (const c of conversations) {
    if (only && !c.id.includes(only)) continue;
    const store = await openStore({ sqliteFile: ":memory:" });
    try {
      const score = await runConversation(store, c);
      tally[score.score]++;
      if (verbose || score.score !== "correct")
        console.log(`${score.score.padEnd(13)} ${c.id}: ${score.why}`);
    } finally {
      await store.close();
    }
  }
} finally {
  await shop.close();
}
const total = Object.values(tally).reduce((a, b) => a + b, 0);
console.log(
  `\n${total} conversations: ${tally.correct} correct, ${tally.clarification} clarifications, ${tally["wrong action"]} wrong actions, ${tally["no action"]} no action`,
);

async function runConversation(
  store: ShopStore,
  c: Conversation,
): Promise<{ score: Score; why: string }> {
  const agents = createShopAgents({ store, model: shop.model });
  const sessions: Partial<Record<Who, string>> = {};
  const session = async (who: Who) => {
    sessions[who] ??= (await store.createSession(who)).id;
    return sessions[who];
  };
  let shownBefore: string[] = [];
  let shown: string[] = [];
  let last: Outcome = { calls: [], reply: "", bubble: "" };
  let lastWho: Who = "shopper";
  for (const t of c.turns) {
    const { who, say } = typeof t === "string" ? { who: "shopper" as Who, say: t } : t;
    shownBefore = shown;
    last = await turn(store, agents, who, await session(who), say);
    lastWho = who;
    for (const call of last.calls)
      if (call.name === "show_products" && Array.isArray(call.input.productIds))
        shown = call.input.productIds as string[];
  }
  const cart = sessions.shopper ? (await store.getCart(sessions.shopper)).lines : [];
  const catalog = await store.listProducts();
  const ctx: Ctx = { shown: shownBefore, catalog };
  const summary = `calls ${JSON.stringify(last.calls.map((x) => [x.name, x.input]))}; cart ${JSON.stringify(cart.map((l) => [l.productId, l.quantity, l.size, l.color]))}; ${lastWho} reply "${last.reply.replace(/\s+/g, " ").slice(0, 220)}"`;
  const alternatives = c.expect.anyOf ?? [c.expect];
  const failures = alternatives.map((e) => check(e, last, cart, ctx));
  if (failures.some((f) => f === undefined)) return { score: "correct", why: summary };
  const why = `${failures.join(" | ")} -- ${summary}`;
  const expectedNames = new Set(alternatives.flatMap((e) => (e.calls ?? []).map(([n]) => n)));
  if (last.calls.some((x) => CHANGES.has(x.name) || expectedNames.has(x.name)))
    return { score: "wrong action", why };
  if (/[?？]|吗|哪|which|what size|what colou?r/i.test(last.reply))
    return { score: "clarification", why };
  return { score: "no action", why };
}

interface Ctx {
  shown: string[];
  catalog: Product[];
}

/** Why the outcome misses the expectation, or undefined when it meets it. */
function check(
  e: Expect,
  out: Outcome,
  cart: ReadonlyArray<{ productId: string; quantity: number; size?: string; color?: string }>,
  ctx: Ctx,
): string | undefined {
  if (e.calls) {
    let from = 0;
    for (const [name, input] of e.calls) {
      const at = out.calls.findIndex(
        (x, i) => i >= from && x.name === name && matches(input ?? {}, x.input, ctx),
      );
      if (at < 0) return `no ${name} ${JSON.stringify(input ?? {})}`;
      from = at + 1;
    }
    const wanted = new Set(e.calls.map(([n]) => n));
    const stray = out.calls.find((x) => CHANGES.has(x.name) && !wanted.has(x.name));
    if (stray) return `unexpected ${stray.name}`;
  }
  if (e.asks !== undefined) {
    const change = out.calls.find((x) => CHANGES.has(x.name));
    if (change) return `changed (${change.name}) instead of asking`;
    if (!new RegExp(e.asks, "i").test(out.reply)) return `reply does not ask /${e.asks}/`;
  }
  if (e.cart) {
    if (cart.length !== e.cart.length) return `cart has ${cart.length} lines, not ${e.cart.length}`;
    for (const line of e.cart)
      if (!cart.some((l) => matches(line, l as unknown as Record<string, Json>, ctx)))
        return `cart lacks ${JSON.stringify(line)}`;
  }
  if (e.reply !== undefined) {
    if (typeof e.reply === "string") {
      if (!new RegExp(e.reply, "i").test(out.reply)) return `reply not /${e.reply}/`;
    } else {
      const filter = (e.reply.cheapest ?? e.reply.bestRated) as Filter;
      const pool = ctx.catalog.filter((p) => inFilter(p, filter));
      const best = [...pool].sort((a, b) =>
        e.reply && typeof e.reply !== "string" && e.reply.cheapest
          ? a.priceCents - b.priceCents
          : b.rating - a.rating,
      )[0];
      if (best && !out.reply.includes(best.name)) return `reply does not name ${best.name}`;
    }
  }
  if (e.once) {
    const sentences = out.bubble
      .split(/(?<=[.!?。！？])\s*/)
      .map((s) => s.trim())
      .filter((s) => s.length > 12);
    if (new Set(sentences).size !== sentences.length) return "reply repeats itself";
  }
  return undefined;
}

function inFilter(p: Product, f: Filter): boolean {
  return (
    (f.category === undefined || p.category === f.category) &&
    (f.tag === undefined || p.tags.includes(f.tag)) &&
    (f.maxPrice === undefined || p.priceCents <= f.maxPrice * 100)
  );
}

function norm(v: Json): Json {
  return typeof v === "string" ? v.toLowerCase().replace(/^us /, "") : v;
}

function matches(expected: Record<string, Json>, actual: Record<string, Json>, ctx: Ctx): boolean {
  return Object.entries(expected).every(([key, want]) => matchValue(want, actual[key], ctx));
}

function matchValue(want: Json, got: Json, ctx: Ctx): boolean {
  if (want !== null && typeof want === "object" && !Array.isArray(want)) {
    const w = want as Record<string, Json>;
    if ("re" in w) return typeof got === "string" && new RegExp(w.re as string, "i").test(got);
    if ("shown" in w) return got !== undefined && got === ctx.shown[w.shown as number];
    if ("has" in w)
      return (
        Array.isArray(got) &&
        (w.has as Json[]).every((h) => got.some((g) => matchValue(h, g, ctx))) &&
        (w.has as Json[]).every(
          (h) => !(typeof h === "object" && h !== null) || ctx.shown.length > 0,
        )
      );
    if ("allIn" in w)
      return (
        Array.isArray(got) &&
        got.length > 0 &&
        got.every((id) => {
          const p = ctx.catalog.find((x) => x.id === id);
          return p !== undefined && inFilter(p, w.allIn as Filter);
        })
      );
    return false;
  }
  if (Array.isArray(want))
    return Array.isArray(got) && want.length === got.length && want.every((x, i) => x === got[i]);
  return norm(want) === norm(got);
}

async function turn(
  store: ShopStore,
  agents: ReturnType<typeof createShopAgents>,
  who: Who,
  sessionId: string,
  text: string,
): Promise<Outcome> {
  const agent = agents[who];
  const history = await store.conversations.load(sessionId);
  const messages: Message[] = [...history, { role: "user", content: text }];
  const events: AgentEvent[] = [];
  const result = await runAgentTurn({
    model: shop.model,
    executor: agent.executor(sessionId),
    system: agent.system,
    agent: agent.name,
    messages,
    sink: (e) => events.push(e),
    ledger: store.ledger(sessionId),
    approvals: { wait: async () => ({ approve: true }) },
  });
  await store.conversations.write(sessionId, 0, result.messages);
  const texts = (m: Message) =>
    typeof m.content === "string"
      ? m.content
      : m.content.map((b) => (b.type === "text" ? b.text : "")).join(" ");
  const said = result.messages.slice(messages.length).filter((m) => m.role === "assistant");
  return {
    calls: events.flatMap((e) =>
      e.type === "tool-call" && e.parentCallId === undefined
        ? [{ name: e.name, input: e.input as Record<string, Json> }]
        : [],
    ),
    reply: said.map(texts).join(" "),
    bubble: said.map(texts).join(" "),
  };
}
