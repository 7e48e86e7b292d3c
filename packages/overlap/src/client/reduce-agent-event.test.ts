import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { mulberry32 } from "../testing/replay.js";
import {
  buildTurnEvents,
  EXAMPLE_SCRIPT,
  turnScriptArb,
  withIds,
} from "./__fixtures__/turn-script.js";
import {
  type AgentState,
  type AssistantTurn,
  addUserMessage,
  callCard,
  cartOf,
  initialAgentState,
  isTurnSettled,
} from "./agent-state.js";
import type { ReceivedEvent } from "./read-agent-events.js";
import { reduceAgentEvent } from "./reduce-agent-event.js";

function applyAll(state: AgentState, events: readonly ReceivedEvent[]): AgentState {
  return events.reduce(reduceAgentEvent, state);
}

function sent(): AgentState {
  return addUserMessage(initialAgentState(), "找红茶");
}

function assistant(state: AgentState, at = -1): AssistantTurn {
  const turn = state.turns.at(at);
  if (turn?.role !== "assistant") throw new Error("expected an assistant turn");
  return turn;
}

function outerText(state: AgentState): Map<string, string> {
  const texts = new Map<string, string>();
  for (const turn of state.turns) {
    if (turn.role !== "assistant") continue;
    for (const item of turn.items) {
      if (item.kind === "text") texts.set(`${item.round}:${item.index}`, item.text);
    }
  }
  return texts;
}

const noId = (event: AgentEvent): ReceivedEvent => ({ id: undefined, event });

describe("reduceAgentEvent", () => {
  it("folds a turn into the conversation: text, thinking and calls in start order", () => {
    const built = buildTurnEvents(EXAMPLE_SCRIPT);
    const state = applyAll(sent(), withIds(built.events));
    expect(state.turns[0]).toEqual({ role: "user", text: "找红茶" });
    const turn = assistant(state);
    expect(turn.items.map((i) => (i.kind === "call" ? `call ${i.callId}` : i.kind))).toEqual([
      "thinking",
      "text",
      "call toolu_1_2",
      "call toolu_1_3",
      "call toolu_1_4",
      "call toolu_1_5",
      "text",
      "call toolu_2_1",
    ]);
    expect(outerText(state)).toEqual(built.texts);
    expect(turn.items[0]).toEqual({
      kind: "thinking",
      round: 1,
      index: 0,
      thinking: "The user wants tea and a cart update.",
    });
    expect(turn.done).toEqual({ roundCount: 2, stopReason: "end_turn" });
    expect(state.running).toBe(false);
    expect(isTurnSettled(state)).toBe(true);
    expect(state.lastEventId).toBe(`t1:${built.events.length}`);
    expect(state.seenIds.size).toBe(built.events.length);
  });

  it("tracks each call from preview to final card under one id", () => {
    const state = applyAll(sent(), withIds(buildTurnEvents(EXAMPLE_SCRIPT).events));
    const search = state.calls.toolu_1_2!;
    expect(search).toMatchObject({
      name: "search_products",
      round: 1,
      index: 2,
      phase: "done",
      dispatch: "started",
      preview: undefined,
      input: { query: "红茶" },
      result: { isError: false, status: "ok", text: "result of toolu_1_2" },
    });
    expect(search.startedAt).toBeTypeOf("number");
    expect(search.endedAt).toBeGreaterThan(search.startedAt!);
    expect(callCard(search)).toEqual({ kind: "final", ui: search.ui });
    expect(state.calls.toolu_1_4).toMatchObject({
      phase: "invalid",
      inputError: "Unexpected end of JSON input",
      result: { isError: true, status: "invalid_input" },
    });
    expect(state.calls.toolu_1_5).toMatchObject({ phase: "failed", result: { isError: true } });
    // A deferred call that never ran settles with its result.
    expect(state.calls.toolu_2_1).toMatchObject({ dispatch: "deferred", phase: "cancelled" });
    expect(state.rounds[1]).toMatchObject({ round: 1, stopReason: "tool_use" });
    expect(state.rounds[2]?.usage).toEqual({ input_tokens: 200, output_tokens: 20 });
    expect(state.rounds).toBe(assistant(state).rounds);
  });

  it("shows the latest preview until the arguments are complete, then ignores late ones", () => {
    const start: AgentEvent = {
      type: "tool-call-start",
      round: 1,
      index: 0,
      callId: "c1",
      name: "search",
    };
    const preview = (q: string): AgentEvent => ({
      type: "tool-input-preview",
      round: 1,
      index: 0,
      callId: "c1",
      name: "search",
      preview: { q },
      bytes: q.length + 8,
    });
    let state = applyAll(sent(), [start, preview("红"), preview("红茶")].map(noId));
    expect(state.calls.c1).toMatchObject({ phase: "streaming-args", preview: { q: "红茶" } });
    expect(callCard(state.calls.c1!)).toEqual({ kind: "pending", args: { q: "红茶" } });
    state = reduceAgentEvent(
      state,
      noId({
        type: "tool-call",
        round: 1,
        index: 0,
        callId: "c1",
        name: "search",
        input: { q: "红茶" },
        dispatch: "started",
      }),
    );
    expect(state.calls.c1?.phase).toBe("queued");
    expect(reduceAgentEvent(state, noId(preview("late")))).toBe(state);
  });

  it("returns the same state for an event that changes nothing", () => {
    const state = applyAll(sent(), withIds(buildTurnEvents(EXAMPLE_SCRIPT).events));
    const first = withIds(buildTurnEvents(EXAMPLE_SCRIPT).events)[0]!;
    expect(reduceAgentEvent(state, first)).toBe(state);
    const open = applyAll(sent(), [
      noId({ type: "round-start", round: 1 }),
      noId({ type: "text-delta", round: 1, index: 0, text: "a" }),
    ]);
    expect(reduceAgentEvent(open, noId({ type: "text-delta", round: 1, index: 0, text: "" }))).toBe(
      open,
    );
    expect(reduceAgentEvent(open, noId({ type: "round-start", round: 1 }))).toBe(open);
  });

  it("keeps the cart from the latest cart-updated card, a delegate's included", () => {
    const state = applyAll(sent(), withIds(buildTurnEvents(EXAMPLE_SCRIPT).events));
    // The inner agent's cart came during the stream; toolu_1_3's came last, in the result channel.
    expect(cartOf(state)).toEqual({ lines: ["toolu_1_3"], version: 1 });
    expect(cartOf(initialAgentState())).toBeUndefined();
  });

  it("keeps a delegate's inner agent apart: its own turn, rounds, calls and done", () => {
    const state = applyAll(sent(), withIds(buildTurnEvents(EXAMPLE_SCRIPT).events));
    const inner = state.delegated.toolu_1_3!;
    expect(inner.turns).toHaveLength(1);
    expect(assistant(inner)).toMatchObject({
      agent: "merchant",
      done: { roundCount: 1, stopReason: "end_turn" },
    });
    expect(inner.calls.toolu_1_3_inner).toMatchObject({
      parentCallId: "toolu_1_3",
      agent: "merchant",
      phase: "done",
    });
    expect(state.calls.toolu_1_3_inner).toBeUndefined();
    expect(inner.running).toBe(false);
  });

  it("records an error of the turn and shows it until the user sends again", () => {
    let state = applyAll(sent(), [
      noId({ type: "round-start", round: 1 }),
      noId({ type: "error", code: "provider_error", message: "The model is unavailable." }),
    ]);
    expect(state.error).toEqual({ code: "provider_error", message: "The model is unavailable." });
    expect(assistant(state).error).toEqual(state.error);
    expect(state.running).toBe(true);
    state = reduceAgentEvent(state, noId({ type: "done", roundCount: 1, stopReason: "error" }));
    expect(state.running).toBe(false);
    state = addUserMessage(state, "again");
    expect(state.error).toBeUndefined();
    expect(state.running).toBe(true);
    expect(state.rounds).toEqual({});
  });

  it("starts a new assistant turn for events after a finished turn (a resumed page)", () => {
    const first = applyAll(initialAgentState(), withIds(buildTurnEvents(EXAMPLE_SCRIPT).events));
    expect(first.turns.map((t) => t.role)).toEqual(["assistant"]);
    const second = applyAll(first, [
      { id: "t2:1", event: { type: "round-start", round: 1 } },
      { id: "t2:2", event: { type: "text-delta", round: 1, index: 0, text: "next" } },
    ]);
    expect(second.turns.map((t) => t.role)).toEqual(["assistant", "assistant"]);
    expect(second.running).toBe(true);
    expect(Object.keys(second.rounds)).toEqual(["1"]);
    expect(assistant(second, 0).rounds[2]).toBeDefined();
  });

  it("records server tools in the turn", () => {
    const state = applyAll(sent(), [
      noId({
        type: "server-tool",
        round: 1,
        index: 0,
        callId: "srv_1",
        name: "web_search",
        phase: "call",
        input: { query: "tea" },
      }),
      noId({
        type: "server-tool",
        round: 1,
        index: 0,
        callId: "srv_1",
        name: "web_search",
        phase: "result",
        result: ["a"],
      }),
    ]);
    expect(assistant(state).items).toEqual([
      {
        kind: "server-tool",
        round: 1,
        index: 0,
        callId: "srv_1",
        name: "web_search",
        input: { query: "tea" },
        result: ["a"],
        hasResult: true,
      },
    ]);
  });

  it("never moves a call's status backwards", () => {
    const status = (s: "running" | "done", atMs: number): AgentEvent => ({
      type: "tool-status",
      round: 1,
      callId: "c",
      name: "n",
      status: s,
      atMs,
    });
    const state = applyAll(sent(), [status("running", 1), status("done", 5)].map(noId));
    const late = reduceAgentEvent(state, noId(status("running", 9)));
    expect(late.calls.c).toEqual(state.calls.c);
    expect(state.statusOrder).toEqual(["c"]);
  });
});

describe("reduceAgentEvent properties", () => {
  const runs = { numRuns: 200 };

  it("results follow call order; statuses follow completion order", () => {
    fc.assert(
      fc.property(turnScriptArb, (script) => {
        const built = buildTurnEvents(script);
        const state = applyAll(sent(), withIds(built.events));
        expect(state.resultOrder).toEqual(built.callOrder);
        expect(state.statusOrder).toEqual(built.completionOrder);
        expect(outerText(state)).toEqual(built.texts);
        expect(state.running).toBe(false);
      }),
      runs,
    );
  });

  it("a call with final cards supersedes its preview in the same entry", () => {
    fc.assert(
      fc.property(turnScriptArb, (script) => {
        const built = buildTurnEvents(script);
        const state = applyAll(sent(), withIds(built.events));
        const callItems = assistant(state).items.filter((i) => i.kind === "call");
        // One entry and one place in the turn per call id: the card replaces the preview in place.
        expect(callItems.map((i) => i.callId)).toEqual(built.callOrder);
        for (const [callId, cards] of built.cards) {
          const entry = state.calls[callId]!;
          expect(entry.ui).toEqual(cards);
          expect(entry.preview).toBeUndefined();
          expect(callCard(entry)).toEqual({ kind: "final", ui: cards });
        }
      }),
      runs,
    );
  });

  it("applying the same events again (any overlapping replay) changes nothing", () => {
    fc.assert(
      fc.property(turnScriptArb, fc.nat(), fc.nat(), (script, a, b) => {
        const events = withIds(buildTurnEvents(script).events);
        const once = applyAll(sent(), events);
        expect(applyAll(once, events)).toBe(once);
        // A reconnect that replays from an earlier point than needed.
        const cut = a % (events.length + 1);
        const from = b % (cut + 1);
        const replayed = applyAll(applyAll(sent(), events.slice(0, cut)), events.slice(from));
        expect(replayed).toEqual(once);
        // Every event delivered twice in a row.
        expect(
          applyAll(
            sent(),
            events.flatMap((e) => [e, e]),
          ),
        ).toEqual(once);
      }),
      runs,
    );
  });

  it("never throws on any prefix, or on events in any order", () => {
    fc.assert(
      fc.property(turnScriptArb, fc.integer(), (script, seed) => {
        const events = withIds(buildTurnEvents(script).events);
        let state = initialAgentState();
        for (const received of events) state = reduceAgentEvent(state, received);
        const random = mulberry32(seed);
        const shuffled = [...events].sort(() => random() - 0.5);
        expect(() => applyAll(sent(), shuffled)).not.toThrow();
      }),
      runs,
    );
  });

  it("delegated events never change the outer turn's text, rounds or calls, nor end it", () => {
    fc.assert(
      fc.property(turnScriptArb, (script) => {
        const built = buildTurnEvents(script);
        const events = withIds(built.events);
        const outerOnly = events.filter((e) => e.event.parentCallId === undefined);
        const withInner = applyAll(sent(), events);
        const without = applyAll(sent(), outerOnly);
        expect(withInner.turns).toEqual(without.turns);
        expect(withInner.rounds).toEqual(without.rounds);
        expect(withInner.calls).toEqual(without.calls);
        expect(withInner.statusOrder).toEqual(without.statusOrder);
        expect(withInner.resultOrder).toEqual(without.resultOrder);
        expect(Object.keys(withInner.delegated).sort()).toEqual([...built.delegates].sort());
        // The turn runs until its own done, whatever the inner agents do.
        let state = sent();
        for (const received of events) {
          state = reduceAgentEvent(state, received);
          const ownDone = received.event.type === "done" && !received.event.parentCallId;
          expect(state.running).toBe(!ownDone);
        }
      }),
      runs,
    );
  });
});
