/**
 * A small model of an agent turn for the client's tests: rounds of text, thinking and tool-call
 * blocks, calls finishing in a shuffled order, final cards, and a delegate call whose inner agent
 * streams its own events. {@link buildTurnEvents} turns a script into the event sequence a server
 * would send, following docs/protocol.md (display channel while streaming, with terminal statuses
 * interleaved in completion order; then results in call order; `done` last), and says what a
 * correct client must conclude from it.
 */

import fc from "fast-check";
import type { AgentEvent } from "../../protocol/agent-event.js";
import type { UiEvent } from "../../protocol/ui-event.js";
import { mulberry32 } from "../../testing/replay.js";

/** One tool call of a script. */
export interface ScriptCall {
  /** How the server handles it: `started` runs; `invalid` and `deferred` never run. */
  dispatch: "started" | "invalid" | "deferred";
  /** Number of argument previews before the call completes. */
  previews: number;
  /** Final cards it produces (only if it ran and succeeded). */
  cards: number;
  /** Whether it fails when it runs. */
  fails: boolean;
  /** A delegate call: its inner agent's events are forwarded with `parentCallId`. */
  delegate: boolean;
}

/** One content block of a round. */
export type ScriptBlock =
  | { kind: "text"; chunks: string[] }
  | { kind: "thinking"; chunks: string[] }
  | { kind: "call"; call: ScriptCall };

/** One round: its blocks and a seed for the completion order and the interleaving. */
export interface ScriptRound {
  blocks: ScriptBlock[];
  seed: number;
}

/** A whole turn. */
export interface TurnScript {
  rounds: ScriptRound[];
}

/** The events of a script and what a client must conclude from them. */
export interface BuiltTurn {
  events: AgentEvent[];
  /** Call ids of the outer agent in call order (every call gets a result). */
  callOrder: string[];
  /** Call ids of the outer agent in the order their terminal status was sent. */
  completionOrder: string[];
  /** Final text per `"<round>:<index>"` of the outer agent's text blocks. */
  texts: Map<string, string>;
  /** Final cards per outer call id (calls with at least one). */
  cards: Map<string, UiEvent[]>;
  /** Outer call ids that are delegates. */
  delegates: string[];
}

const CHUNKS = ["Hello", " world", "，为您", "找到", " 3 件", "🛒", "\n", "“quoted”", ""];

const chunkArb = fc.oneof(
  fc.constantFrom(...CHUNKS),
  fc.string({ unit: "grapheme", maxLength: 5 }),
);

const callArb: fc.Arbitrary<ScriptCall> = fc.record({
  dispatch: fc.constantFrom("started", "started", "started", "invalid", "deferred"),
  previews: fc.nat({ max: 3 }),
  cards: fc.nat({ max: 2 }),
  fails: fc.boolean(),
  delegate: fc.boolean(),
});

const blockArb: fc.Arbitrary<ScriptBlock> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), chunks: fc.array(chunkArb, { maxLength: 4 }) }),
  fc.record({
    kind: fc.constant("thinking" as const),
    chunks: fc.array(chunkArb, { maxLength: 2 }),
  }),
  fc.record({ kind: fc.constant("call" as const), call: callArb }),
);

/** Random realistic turn scripts. */
export const turnScriptArb: fc.Arbitrary<TurnScript> = fc.record({
  rounds: fc.array(
    fc.record({ blocks: fc.array(blockArb, { maxLength: 5 }), seed: fc.integer() }),
    { minLength: 1, maxLength: 3 },
  ),
});

/** A fixed script with a bit of everything, for tests that need one turn. */
export const EXAMPLE_SCRIPT: TurnScript = {
  rounds: [
    {
      seed: 7,
      blocks: [
        { kind: "thinking", chunks: ["The user wants tea", " and a cart update."] },
        { kind: "text", chunks: ["好的，", "我来帮您", "找红茶 🍵"] },
        {
          kind: "call",
          call: { dispatch: "started", previews: 2, cards: 1, fails: false, delegate: false },
        },
        {
          kind: "call",
          call: { dispatch: "started", previews: 1, cards: 2, fails: false, delegate: true },
        },
        {
          kind: "call",
          call: { dispatch: "invalid", previews: 1, cards: 0, fails: false, delegate: false },
        },
        {
          kind: "call",
          call: { dispatch: "started", previews: 0, cards: 0, fails: true, delegate: false },
        },
      ],
    },
    {
      seed: 11,
      blocks: [
        { kind: "text", chunks: ["已加入购物车。", " Anything else?"] },
        {
          kind: "call",
          call: { dispatch: "deferred", previews: 0, cards: 0, fails: false, delegate: false },
        },
      ],
    },
  ],
};

/** Builds the event sequence of `script`. */
export function buildTurnEvents(script: TurnScript): BuiltTurn {
  const built: BuiltTurn = {
    events: [],
    callOrder: [],
    completionOrder: [],
    texts: new Map(),
    cards: new Map(),
    delegates: [],
  };
  script.rounds.forEach((round, r) => {
    buildRound(built, round, r + 1, r === script.rounds.length - 1);
  });
  built.events.push({ type: "done", roundCount: script.rounds.length, stopReason: "end_turn" });
  return built;
}

function buildRound(built: BuiltTurn, round: ScriptRound, r: number, last: boolean): void {
  const random = mulberry32(round.seed);
  const display: AgentEvent[] = [{ type: "round-start", round: r }];
  const started: { callId: string; name: string; call: ScriptCall }[] = [];
  const calls: { callId: string; name: string; call: ScriptCall }[] = [];
  let clock = 0;
  round.blocks.forEach((block, index) => {
    if (block.kind === "text") {
      for (const text of block.chunks) display.push({ type: "text-delta", round: r, index, text });
      const key = `${r}:${index}`;
      // A block shows once it has a delta, even an empty one; a block without deltas never shows.
      if (block.chunks.length > 0) built.texts.set(key, block.chunks.join(""));
      return;
    }
    if (block.kind === "thinking") {
      for (const thinking of block.chunks)
        display.push({ type: "thinking-delta", round: r, index, thinking });
      return;
    }
    const { call } = block;
    const callId = `toolu_${r}_${index}`;
    const name = call.delegate ? "ask_merchant" : call.fails ? "check_stock" : "search_products";
    calls.push({ callId, name, call });
    display.push({ type: "tool-call-start", round: r, index, callId, name });
    for (let p = 1; p <= call.previews; p++) {
      const preview = { query: "红茶".repeat(p) };
      display.push({
        type: "tool-input-preview",
        round: r,
        index,
        callId,
        name,
        preview,
        bytes: JSON.stringify(preview).length,
      });
    }
    const input = call.dispatch === "invalid" ? {} : { query: "红茶" };
    display.push({
      type: "tool-call",
      round: r,
      index,
      callId,
      name,
      input,
      dispatch: call.dispatch,
      ...(call.dispatch === "invalid" ? { error: "Unexpected end of JSON input" } : {}),
    });
    if (call.dispatch !== "started") return;
    started.push({ callId, name, call });
    display.push({ type: "tool-status", round: r, callId, name, status: "running", atMs: ++clock });
    if (call.delegate) {
      built.delegates.push(callId);
      display.push(...innerEvents(callId));
    }
  });
  // Terminal statuses in a shuffled completion order, interleaved with the rest of the stream;
  // a status never precedes its own call's `running`.
  const completion = shuffle(started, random);
  const merged: AgentEvent[] = [];
  const running = new Set<string>();
  let d = 0;
  let s = 0;
  while (d < display.length || s < completion.length) {
    const next = completion[s];
    const canFinish = next !== undefined && running.has(next.callId);
    if (d >= display.length || (canFinish && random() < 0.4)) {
      if (!next) break;
      if (!canFinish) throw new Error("unreachable: every started call is running by now");
      merged.push({
        type: "tool-status",
        round: r,
        callId: next.callId,
        name: next.name,
        status: next.call.fails ? "failed" : "done",
        atMs: ++clock,
      });
      built.completionOrder.push(next.callId);
      s++;
    } else {
      const event = display[d++]!;
      if (event.type === "tool-status" && event.parentCallId === undefined)
        running.add(event.callId);
      merged.push(event);
    }
  }
  // The result channel: per call, in call order, its cards and then its result.
  for (const { callId, name, call } of calls) {
    built.callOrder.push(callId);
    const ran = call.dispatch === "started";
    if (ran && !call.fails && call.cards > 0) {
      const cards: UiEvent[] = [];
      for (let c = 0; c < call.cards; c++) {
        const ui: UiEvent =
          c === call.cards - 1
            ? { type: "cart-updated", cart: { lines: [callId], version: c } }
            : { type: "product-card", title: `商品 ${callId}` };
        cards.push(ui);
        merged.push({ type: "ui", round: r, callId, name, ui });
      }
      built.cards.set(callId, cards);
    }
    merged.push({
      type: "tool-result",
      round: r,
      callId,
      name,
      isError: !ran || call.fails,
      status: ran
        ? call.fails
          ? "error"
          : "ok"
        : call.dispatch === "invalid"
          ? "invalid_input"
          : "not_executed",
      resultText: ran ? (call.fails ? "Out of stock." : `result of ${callId}`) : "not run",
    });
  }
  merged.push({
    type: "round-end",
    round: r,
    stopReason: last ? "end_turn" : "tool_use",
    usage: { input_tokens: 100 * r, output_tokens: 10 * r },
    timings: { startedAt: 1_700_000_000_000 + r, blocks: [], tools: [], endMs: clock },
  });
  built.events.push(...merged);
}

/** A delegate's inner turn, forwarded live: one round with text, a call, a cart card and `done`. */
function innerEvents(parentCallId: string): AgentEvent[] {
  const tag = { parentCallId, agent: "merchant" };
  const callId = `${parentCallId}_inner`;
  const name = "update_cart";
  return [
    { type: "round-start", round: 1, ...tag },
    { type: "text-delta", round: 1, index: 0, text: "Merchant here: ", ...tag },
    { type: "tool-call-start", round: 1, index: 1, callId, name, ...tag },
    { type: "tool-call", round: 1, index: 1, callId, name, input: {}, dispatch: "started", ...tag },
    { type: "tool-status", round: 1, callId, name, status: "running", atMs: 1, ...tag },
    { type: "tool-status", round: 1, callId, name, status: "done", atMs: 2, ...tag },
    {
      type: "ui",
      round: 1,
      callId,
      name,
      ui: { type: "cart-updated", cart: { by: callId } },
      ...tag,
    },
    {
      type: "tool-result",
      round: 1,
      callId,
      name,
      isError: false,
      status: "ok",
      resultText: "ok",
      ...tag,
    },
    {
      type: "round-end",
      round: 1,
      stopReason: "end_turn",
      usage: {},
      timings: { startedAt: 1, blocks: [], tools: [] },
      ...tag,
    },
    { type: "done", roundCount: 1, stopReason: "end_turn", ...tag },
  ];
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Numbers events as a server's TurnEventLog would: `<turnId>:<seq>`. */
export function withIds(
  events: readonly AgentEvent[],
  turnId = "t1",
): { id: string; event: AgentEvent }[] {
  return events.map((event, i) => ({ id: `${turnId}:${i + 1}`, event }));
}
