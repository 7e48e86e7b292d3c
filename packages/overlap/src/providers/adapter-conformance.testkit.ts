/**
 * One conformance suite for every model adapter, through real HTTP against overlap-sim.
 *
 * For each scenario the adapter's round (StreamedRound over its `ModelClient`) is compared with a
 * reference reading of the very same bytes: the official SDK's own accumulation where there is
 * one, otherwise an independent accumulation written from the API's documented shape. Same
 * bytes: the sim derives one seed per request from its own seed and the request body, so the
 * reference's request, checked to carry the body the adapter sent, gets a byte-identical answer
 * (checked where the format is text).
 *
 * What is checked here holds for every wire format: complete answers (text, calls, thinking) give
 * the same content, stop reason and usage, each call run once with its input; a stream cut or
 * failed after any frame keeps exactly what had arrived and runs only complete calls; invalid
 * arguments and a truncated call are answered with an error and never run; errors before the
 * stream are typed; calls run while the model still writes; and what overlap leaves behind
 * (after a turn, an interruption at every frame or an abort) is accepted by the strict sim.
 * An adapter's test file states its format in an {@link AdapterHarness} and keeps beside it only
 * what is its format's own.
 */

import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { type RoundResult, StreamedRound } from "../round/streamed-round.js";
import type { AssistantMessage, UserMessage } from "../stream/message.js";
import {
  abortAt,
  answerAfterResults,
  type Capture,
  expectEveryInterruptionRecovers,
  expectValidContinuation,
  neverAborted,
  nextTurnSucceeds,
  recordingTools,
  simRunner,
  TIMED_CALLS,
  TIMED_PACING,
  type ToolRun,
  timedRound,
  toolUses,
} from "./provider-sim.testkit.js";

// ---------------------------------------------------------------------------------------------
// The scripts every adapter answers

/** The user's message of every conformance round. */
export const ASK: UserMessage = { role: "user", content: "Please do the scripted thing." };

/** A text answer with multi-byte characters, long enough to arrive in many pieces. */
export const TEXT_ONLY: SimScript = {
  blocks: [
    {
      type: "text",
      text: "Here is a plain answer, long enough to arrive in many deltas: café, naïve, 你好, 🎉 and done.",
    },
  ],
};

/** Text, then three calls: one with nested input, one without parameters. */
export const THREE_CALLS: SimScript = {
  blocks: [
    { type: "text", text: "Adding the shoes, totalling the cart, then searching." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 2, note: "gift" } },
    { type: "tool_use", name: "cart_total", input: {} },
    {
      type: "tool_use",
      name: "search",
      input: { query: "red shoes", filters: { size: [41, 42], inStock: true } },
    },
  ],
};

/** Thinking (each format's own form of it, or none), text and a call. */
export const THINKING: SimScript = {
  blocks: [
    { type: "thinking", thinking: "The user wants shoes. I will add them, then answer briefly." },
    { type: "text", text: "Adding them now." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 1 } },
  ],
};

/**
 * The provider's own web search (a server tool: shown, never run here) and its results, then text
 * and a call of ours. Each format carries it in its own form, or leaves it out.
 */
export const WEB_SEARCH: SimScript = {
  blocks: [
    { type: "server_tool_use", name: "web_search", input: { query: "red running shoes 2025" } },
    {
      type: "web_search_tool_result",
      results: [
        { title: "Best red shoes", url: "https://example.com/red", pageAge: "May 1, 2025" },
        { title: "Running shoe guide", url: "https://example.com/guide" },
      ],
    },
    { type: "text", text: "I found two pages; searching our catalogue too." },
    { type: "tool_use", name: "search", input: { query: "red running shoes" } },
  ],
};

/** A refused request. */
export const REFUSAL: SimScript = {
  blocks: [{ type: "text", text: "I cannot help with that." }],
  stopReason: "refusal",
};

// ---------------------------------------------------------------------------------------------
// What an adapter's test file states

/** How one case sets up the adapter (or the reference) against the sim. */
export interface AdapterSetup {
  /** Sent as `x-sim-fault`: the fault the sim injects (`error-after=3`, `invalid-json`...). */
  fault?: string;
  /** Sent as `x-sim-quirk`: a server's known deviation the sim imitates. */
  quirk?: string;
  /** Extra request fields (the adapter's `params`). */
  params?: Record<string, unknown>;
  /** Receives the request bodies the adapter sends and, where the format is text, what it read. */
  capture?: Capture;
}

/** A call as the reference read it. */
export interface ReferenceCall {
  /** Its id, when the wire format gives one. */
  id?: string | undefined;
  name: string;
  /** Its arguments as the reference has them (parsed, or the text when they do not parse). */
  input: unknown;
  /** The arguments text as sent, when the reference keeps it. */
  raw?: string | undefined;
  /** The format's end-of-call signal arrived: the call was complete when the stream ended. */
  complete: boolean;
}

/** The reference's reading of one response: the SDK's accumulation or an independent one. */
export interface ReferenceReading {
  /** The request body the reference sent (the premise: the adapter sent the same). */
  request: string;
  /** The response text it received, when the format is text (the premise: the same bytes). */
  response?: string | undefined;
  /** Why the reference could not read the stream to its end (an SDK that rejected it). */
  error?: unknown;
  /** The message as far as it was read, in the form of {@link AdapterHarness.comparable}. */
  content: unknown[];
  /** The neutral stop reason the response ended with, if it ended. */
  stopReason?: string | undefined;
  /** The token counts the response reported. */
  usage?: { input?: number | undefined; output?: number | undefined } | undefined;
  /** The calls that began, in call order. */
  calls: ReferenceCall[];
  /** The answer's text so far, when the reference reads it apart from the content. */
  text?: string | undefined;
  /** How many frames (events, chunks) arrived: the unit of the sim's `error-after=N`. */
  frames: number;
}

/** A cut the sim makes after N frames. */
export type CutFault = "error-after" | "drop-after";

/** An error answered before the stream, and how the adapter must report it. */
export interface StatusCase {
  /** The sim's `status=` fault value. */
  fault: string;
  /** The HTTP status the adapter reports. */
  status: number;
  /** The provider's error type it reports, when the format names one. */
  type?: string;
  /** The error's message names the type too. */
  typeInMessage?: boolean;
}

/** One more complete scenario of a format (a quirk, a request option, a block only it has). */
export interface CompleteCase {
  name: string;
  script: SimScript;
  setup?: AdapterSetup;
}

/** What {@link registerAdapterConformance} needs to know of a wire format and its adapter. */
export interface AdapterHarness {
  /** The sim's seed: with the script, it fixes the bytes (and where the cuts fall). */
  seed: number;
  /** The adapter under test, talking to `sim` with the setup's headers, params and capture. */
  model(sim: SimServer, setup?: AdapterSetup): ModelClient;
  /** Sends `request` again on the reference's side and reads the answer. */
  reference(sim: SimServer, request: ModelRequest, setup?: AdapterSetup): Promise<ReferenceReading>;
  /** An assistant message of overlap in the reference's form of content. */
  comparable(message: AssistantMessage): unknown[];
  /** Response text with the fields the sim does not derive from its seed (timestamps) blanked. */
  sameBytes?(text: string): string;
  /** The N of the cut cases, given the frame count of THREE_CALLS; default every N before it. */
  cuts?(frames: number): readonly number[];
  /** How the reference itself saw a cut (an SDK rejects with its own error types). */
  expectCutReference?(fault: CutFault, n: number, reference: ReferenceReading, label: string): void;
  /** How many blocks a complete answer to `script` has, where the format fixes it. */
  blockCount?(script: SimScript, setup: AdapterSetup): number;
  /** The form of the call ids the API gives. */
  callId?: RegExp;
  /** Complete scenarios only this format has. */
  extraComplete?: readonly CompleteCase[];
  /**
   * Invalid call arguments (`invalid-json`): the arguments text as sent, answered with an
   * `invalid_input` error; or the API refuses them itself and the stream fails with this message.
   */
  invalidJson: { raw: string } | { streamError: string };
  /**
   * A response cut by its token limit (`max-tokens`) mid-call: the cut arguments text, answered
   * with `invalid_input`; or the cut call never arrives at all.
   */
  maxTokens: { raw: string } | "call-never-arrives";
  /** Errors before the stream (`status=` faults). */
  statusErrors: readonly StatusCase[];
  /** Block types of THREE_CALLS under the `thinking,web-search` faults, where the format has them. */
  thinkingWebSearch?: readonly string[];
  /** The format has a refusal stop reason the reference reads. */
  refusal?: boolean;
  /** The most milliseconds between a call's end-of-call event and its run; default 50. */
  eagerWithinMs?: number;
  /** Params of the turns of the strict-peer cases (e.g. reasoning, which the peer checks back). */
  turnParams?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Running both sides

/** One round of the adapter and the reference's reading of the same bytes. */
export interface BothSides {
  ours: RoundResult;
  runs: ToolRun[];
  reference: ReferenceReading;
}

/**
 * Answers `script` from a fresh sim: one round through the adapter (recording tools), then the
 * reference's request; checks the premise (same request body, same response text).
 */
export function bothSides(
  harness: AdapterHarness,
  script: SimScript,
  setup: AdapterSetup = {},
): Promise<BothSides> {
  const withSim = simRunner({ pacing: { fast: true }, seed: harness.seed });
  return withSim({ policy: () => script }, async (sim) => {
    const capture: Capture = { requests: [], responses: [] };
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      harness.model(sim, { ...setup, capture }).stream(request, { signal: neverAborted() }),
    );
    const reference = await harness.reference(sim, request, setup);
    expect(capture.requests).toEqual([reference.request]);
    if (reference.response !== undefined) {
      const same = harness.sameBytes ?? ((text: string) => text);
      const [ourBytes = ""] = await Promise.all(capture.responses);
      expect(same(ourBytes)).toBe(same(reference.response));
    }
    return { ours, runs, reference };
  });
}

/** A valid continuation whose tool results answer the calls in call order. */
function expectAnsweredContinuation(result: RoundResult, label: string): void {
  expectValidContinuation(ASK, result, label);
  const ids = toolUses(result.assistant.content).map((b) => b.id);
  const answered = result.toolResults?.content;
  expect(
    Array.isArray(answered) ? answered.map((b) => b.type === "tool_result" && b.tool_use_id) : [],
    label,
  ).toEqual(ids);
}

/** Text of a message's text blocks; only whitespace counts as none (formats differ there). */
function textOf(text: string): string {
  return text.trim() === "" ? "" : text;
}

const scriptCalls = (script: SimScript) =>
  script.blocks.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));

// ---------------------------------------------------------------------------------------------
// The suite

/**
 * Registers the conformance suite of one adapter (a `describe` named `name`): call it at the top
 * level of the adapter's `*.conformance.test.ts`.
 */
export function registerAdapterConformance(name: string, harness: AdapterHarness): void {
  const withSim = simRunner({ pacing: { fast: true }, seed: harness.seed });
  const both = (script: SimScript, setup: AdapterSetup = {}) => bothSides(harness, script, setup);

  describe(`${name}: conformance`, () => {
    describe("complete answers: the reference's content, stop reason and usage", () => {
      const cases: CompleteCase[] = [
        { name: "text only", script: TEXT_ONLY },
        { name: "several tool calls", script: THREE_CALLS },
        { name: "thinking", script: THINKING },
        { name: "server tool (web search)", script: WEB_SEARCH },
        ...(harness.refusal ? [{ name: "a refusal", script: REFUSAL }] : []),
        ...(harness.extraComplete ?? []),
      ];
      for (const { name: caseName, script, setup = {} } of cases) {
        it(`${caseName}: the same content, stop reason and token counts; each call run once`, async () => {
          const { ours, runs, reference } = await both(script, setup);
          if (reference.error !== undefined) throw reference.error;
          expect(reference.content.length).toBeGreaterThan(0);
          expect(ours.error).toBeUndefined();
          expect(harness.comparable(ours.assistant)).toEqual(reference.content);
          if (harness.blockCount) {
            expect(ours.assistant.content).toHaveLength(harness.blockCount(script, setup));
          }
          expect(ours.stopReason).toBe(reference.stopReason);
          if (script.stopReason === "refusal") expect(ours.stopReason).toBe("refusal");
          expect(ours.usage.input_tokens).toBe(reference.usage?.input);
          expect(ours.usage.output_tokens).toBe(reference.usage?.output);
          const calls = toolUses(ours.assistant.content);
          expect(calls.map((b) => b.name)).toEqual(scriptCalls(script));
          expect(new Set(calls.map((b) => b.id)).size).toBe(calls.length);
          if (harness.callId) for (const call of calls) expect(call.id).toMatch(harness.callId);
          // Each call ran once, with exactly its input.
          expect(runs.map(({ callId, name, input }) => ({ callId, name, input }))).toEqual(
            calls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
          );
          expectAnsweredContinuation(ours, caseName);
        });
      }
    });

    describe("faults", () => {
      for (const [fault, code] of [
        ["error-after", "stream_error"],
        ["drop-after", "stream_interrupted"],
      ] as const) {
        it(`${fault}=N: ${code}; exactly the text and calls that arrived, only complete calls run, a valid continuation`, async () => {
          const { reference: whole } = await both(THREE_CALLS);
          expect(whole.frames).toBeGreaterThan(5);
          const cuts = harness.cuts?.(whole.frames) ?? [...Array(whole.frames).keys()];
          for (const n of cuts) {
            const label = `${fault}=${n}`;
            const { ours, runs, reference } = await both(THREE_CALLS, { fault: label });
            harness.expectCutReference?.(fault, n, reference, label);
            expect(ours.error?.code, label).toBe(code);
            expect(ours.stopReason, label).toBe("error");
            expectAnsweredContinuation(ours, label);
            if (reference.text !== undefined) {
              const texts = ours.assistant.content.flatMap((b) =>
                b.type === "text" ? [b.text] : [],
              );
              expect(textOf(texts.join("")), label).toBe(textOf(reference.text));
            }
            const calls = toolUses(ours.assistant.content);
            expect(
              calls.map((b) => b.name),
              label,
            ).toEqual(reference.calls.map((c) => c.name));
            reference.calls.forEach((call, i) => {
              const mine = calls[i]!;
              if (call.id !== undefined) expect(mine.id, label).toBe(call.id);
              if (call.complete) {
                expect(mine.input, label).toEqual(call.input);
              } else {
                // Arguments never completed: `{}`, an error result, never run.
                expect(mine.input, label).toEqual({});
                expect(
                  runs.map((r) => r.callId),
                  label,
                ).not.toContain(mine.id);
                expect(ours.outcomes.find((o) => o.callId === mine.id)?.isError, label).toBe(true);
              }
            });
            // Only complete calls ran, each with its own input (one completed by the very last
            // frame may be cancelled before it began: answered, never run).
            for (const run of runs) {
              const i = calls.findIndex((b) => b.id === run.callId);
              expect(reference.calls[i]?.complete, label).toBe(true);
              expect(run.input, label).toEqual(calls[i]?.input);
            }
          }
        });
      }

      it("invalid-json: the call with invalid arguments never runs; the calls before it ran", async () => {
        const { ours, runs, reference } = await both(THREE_CALLS, { fault: "invalid-json" });
        expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
        expectAnsweredContinuation(ours, "invalid-json");
        const calls = toolUses(ours.assistant.content);
        if ("streamError" in harness.invalidJson) {
          // The API refuses the arguments itself: a stream error after the calls before.
          expect(ours.error?.code).toBe("stream_error");
          expect(ours.error?.message).toContain(harness.invalidJson.streamError);
          expect(calls.map((b) => b.name)).toEqual(["add_to_cart", "cart_total"]);
          return;
        }
        const { raw } = harness.invalidJson;
        expect(ours.error).toBeUndefined();
        expect(ours.stopReason).toBe("tool_use");
        expect(ours.outcomes.map((o) => o.status)).toEqual(["ok", "ok", "invalid_input"]);
        const bad = calls.at(-1)!;
        expect(bad).toMatchObject({ name: "search", input: {} });
        expect(ours.outcomes.at(-1)).toMatchObject({ callId: bad.id, isError: true });
        // The model is told exactly what it sent.
        expect(ours.outcomes.at(-1)?.resultText).toContain(JSON.stringify(raw));
        // Everything before the broken call is the reference's.
        const mine = harness.comparable(ours.assistant);
        expect(reference.content).toHaveLength(mine.length);
        expect(mine.slice(0, -1)).toEqual(reference.content.slice(0, -1));
        const theirs = reference.calls.at(-1);
        if (theirs?.id !== undefined) expect(theirs.id).toBe(bad.id);
        if (theirs?.raw !== undefined) expect(theirs.raw).toBe(raw);
      });

      it("max-tokens: stop reason max_tokens; the cut call never runs; the calls before it ran", async () => {
        const { ours, runs, reference } = await both(THREE_CALLS, { fault: "max-tokens" });
        expect(ours.error).toBeUndefined();
        expect(ours.stopReason).toBe("max_tokens");
        expect(reference.stopReason).toBe("max_tokens");
        expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
        expectAnsweredContinuation(ours, "max-tokens");
        const calls = toolUses(ours.assistant.content);
        if (harness.maxTokens === "call-never-arrives") {
          expect(calls.map((b) => b.name)).toEqual(["add_to_cart", "cart_total"]);
          return;
        }
        const { raw } = harness.maxTokens;
        const cut = calls.at(-1)!;
        expect(cut).toMatchObject({ name: "search", input: {} });
        expect(ours.outcomes.at(-1)).toMatchObject({
          callId: cut.id,
          isError: true,
          status: "invalid_input",
        });
        expect(ours.outcomes.at(-1)?.resultText).toContain(JSON.stringify(raw));
        const mine = harness.comparable(ours.assistant);
        expect(reference.content).toHaveLength(mine.length);
        expect(mine.slice(0, -1)).toEqual(reference.content.slice(0, -1));
        const theirs = reference.calls.at(-1);
        if (theirs?.raw !== undefined) expect(theirs.raw).toBe(raw);
      });

      it("status=N: a typed provider_error before the stream, nothing kept, nothing run", async () => {
        expect(harness.statusErrors.length).toBeGreaterThan(0);
        for (const { fault, status, type, typeInMessage } of harness.statusErrors) {
          await withSim({ policy: () => THREE_CALLS }, async (sim) => {
            const { executor, runs } = recordingTools();
            const result = await new StreamedRound({ executor, sink: () => {} }).relay(
              harness
                .model(sim, { fault: `status=${fault}` })
                .stream({ messages: [ASK], tools: executor.specs() }, { signal: neverAborted() }),
            );
            expect(result.error?.code, fault).toBe("provider_error");
            expect(result.error?.details, fault).toMatchObject(
              type ? { status, type } : { status },
            );
            if (type && typeInMessage) expect(result.error?.message, fault).toContain(type);
            expect(result.assistant.content, fault).toEqual([]);
            expect(runs, fault).toEqual([]);
          });
        }
      });

      it("slow-first-byte: a late first byte is only late", async () => {
        const { ours, reference } = await both(THREE_CALLS, { fault: "slow-first-byte=30" });
        if (reference.error !== undefined) throw reference.error;
        expect(ours.error).toBeUndefined();
        expect(ours.stopReason).toBe("tool_use");
        expect(harness.comparable(ours.assistant)).toEqual(reference.content);
      });

      const thinkingWebSearch = harness.thinkingWebSearch;
      if (thinkingWebSearch) {
        it("thinking and web-search faults: the format's blocks for both, as the reference reads them", async () => {
          const { ours, reference } = await both(THREE_CALLS, { fault: "thinking,web-search" });
          if (reference.error !== undefined) throw reference.error;
          expect(ours.assistant.content.map((b) => b.type)).toEqual(thinkingWebSearch);
          expect(harness.comparable(ours.assistant)).toEqual(reference.content);
        });
      }
    });

    it("eager dispatch (paced sim): each call runs at its end-of-call event, the first before the last call begins", async () => {
      await withSim(
        { policy: () => TIMED_CALLS, pacing: { fast: false, ...TIMED_PACING } },
        async (sim) => {
          const { runs, log, running, start } = await timedRound(harness.model(sim), 100);
          const callStarts = log.flatMap(({ at, event }) =>
            event.type === "content_block_start" && event.content_block.type === "tool_use"
              ? [{ at, index: event.index, id: event.content_block.id }]
              : [],
          );
          expect(callStarts).toHaveLength(3);
          const lastCall = callStarts[2]!;
          const lastArgs = log.find(
            ({ event }) =>
              event.type === "content_block_delta" &&
              event.index === lastCall.index &&
              event.delta.type === "input_json_delta",
          );
          const streamEnd = log.find((l) => l.event.type === "message_stop")!.at;
          expect(streamEnd - start).toBeGreaterThan(500);
          const firstRunning = Math.min(...running.map((r) => r.at));
          // Eager: the first tool runs before the last call (and its arguments) even begin.
          expect(firstRunning).toBeLessThan(lastCall.at);
          if (lastArgs) expect(firstRunning).toBeLessThan(lastArgs.at);
          // Each call runs at its own end-of-call event, long before the stream ends.
          for (const call of callStarts) {
            const stop = log.find(
              ({ event }) => event.type === "content_block_stop" && event.index === call.index,
            )!.at;
            const ran = runs.find((r) => r.callId === call.id)!;
            expect(ran.startedAt).toBeGreaterThanOrEqual(stop - 1);
            expect(ran.startedAt - stop).toBeLessThan(harness.eagerWithinMs ?? 50);
            // A call whose end came in an earlier read than the stream's end runs before it (the
            // events of one read share its arrival time).
            if (stop < streamEnd) expect(ran.startedAt).toBeLessThan(streamEnd);
          }
          expect(runs[0]!.startedAt).toBeLessThan(streamEnd - 100);
        },
      );
    });

    describe("the strict sim accepts what overlap leaves behind", () => {
      const policy = answerAfterResults(THREE_CALLS);
      const turnSetup: AdapterSetup = harness.turnParams ? { params: harness.turnParams } : {};

      it("runAgentTurn: the tool round, then the answer; every call once, in order; no request refused", async () => {
        const log: string[] = [];
        await withSim({ policy, log: (l) => log.push(l) }, async (sim) => {
          const { executor, runs } = recordingTools();
          const turn = await runAgentTurn({
            model: harness.model(sim, turnSetup),
            executor,
            messages: [{ role: "user", content: "Add the shoes, total, search." }],
            sink: () => {},
          });
          expect(turn.error).toBeUndefined();
          expect(turn.stopReason).toBe("end_turn");
          expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total", "search"]);
          const last = turn.messages.at(-1);
          const answer = last?.role === "assistant" && last.content.find((b) => b.type === "text");
          expect(answer).toMatchObject({
            type: "text",
            text: "All done.",
          });
          expect(log.filter((l) => / 4\d\d /.test(l))).toEqual([]);
        });
      });

      it("an interruption after every frame (drop and error): the next turn goes on", async () => {
        const log: string[] = [];
        await withSim({ policy, log: (l) => log.push(l) }, async (sim) => {
          const ask = "Interrupted turn.";
          const request: ModelRequest = {
            messages: [{ role: "user", content: ask }],
            tools: recordingTools().executor.specs(),
          };
          const { frames } = await harness.reference(sim, request, turnSetup);
          expect(frames).toBeGreaterThan(5);
          await expectEveryInterruptionRecovers(
            frames,
            (fault) => harness.model(sim, fault ? { ...turnSetup, fault } : turnSetup),
            ask,
          );
          expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
        });
      });

      it("an abort (before content, mid-text, as the first tool starts, during the join): the next turn goes on", async () => {
        const points: Array<{ name: string; when: (e: AgentEvent) => boolean; delayMs?: number }> =
          [
            { name: "before any content", when: (e) => e.type === "round-start" },
            { name: "mid-text", when: (e) => e.type === "text-delta" },
            {
              name: "as the first tool starts",
              when: (e) => e.type === "tool-status" && e.status === "running",
            },
            {
              name: "during the join",
              when: (e) => e.type === "tool-call" && e.name === "search",
              delayMs: 10,
            },
          ];
        await withSim(
          { policy, pacing: { fast: false, tokensPerSecond: 400, firstTokenMs: 5 } },
          async (sim) => {
            for (const point of points) {
              const { executor } = recordingTools(40);
              const { sink, signal, fired } = abortAt(point);
              const first = await runAgentTurn({
                model: harness.model(sim, turnSetup),
                executor,
                messages: [{ role: "user", content: `Aborted turn: ${point.name}.` }],
                sink,
                signal,
              });
              expect(fired(), point.name).toBe(true);
              expect(first.error?.code, point.name).toBe("aborted");
              await nextTurnSucceeds(
                harness.model(sim, turnSetup),
                first.messages,
                point.name,
                recordingTools().executor,
              );
            }
          },
        );
      });
    });

    it("a consumer that stops reading closes the HTTP stream", async () => {
      const log: string[] = [];
      await withSim(
        {
          policy: () => TIMED_CALLS,
          pacing: { fast: false, tokensPerSecond: 50, firstTokenMs: 20 },
          log: (l) => log.push(l),
        },
        async (sim) => {
          const events = harness
            .model(sim)
            .stream(
              { messages: [ASK], tools: recordingTools().executor.specs() },
              { signal: neverAborted() },
            );
          for await (const batch of events) {
            if (batch.some((event) => event.type === "content_block_delta")) break;
          }
          await expect.poll(() => log.join("\n"), { timeout: 2_000 }).toMatch(/stream aborted/);
        },
      );
    });
  });
}
