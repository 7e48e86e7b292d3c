/**
 * Helpers shared by the provider tests that run an adapter against overlap-sim over real HTTP
 * (the conformance, sim-integration and AI SDK tests). Test-only: not part of the build
 * (tsconfig.build.json) nor of the package (`files` in package.json).
 *
 * Each test file keeps its own scenarios (scripts, faults, expectations); what is here is the
 * scaffolding they had in common: starting a sim, the recording test tools, capturing the bytes of
 * a fetch, the eager-timing measurement and "the next turn is accepted by the strict sim".
 */

import type { SimPolicy, SimScript, SimServer, SimServerOptions } from "overlap-sim";
import { startSim } from "overlap-sim";
import { expect } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../agent/model-client.js";
import { appendUserText } from "../agent/repair-conversation.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { type RoundResult, StreamedRound } from "../round/streamed-round.js";
import type { Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";

// ---------------------------------------------------------------------------------------------
// The sim and the tools

/**
 * A `withSim(options, fn)` for a test file: starts a sim with `defaults` overridden by `options`,
 * runs `fn` and closes the sim whatever happens.
 */
export function simRunner(defaults: SimServerOptions) {
  return async function withSim<T>(
    options: SimServerOptions,
    fn: (sim: SimServer) => Promise<T>,
  ): Promise<T> {
    const sim = await startSim({ ...defaults, ...options });
    try {
      return await fn(sim);
    } finally {
      await sim.close();
    }
  };
}

/** One run of a test tool, as {@link recordingTools} records it (when it ends). */
export interface ToolRun {
  callId: string;
  name: string;
  input: unknown;
  startedAt: number;
  endedAt: number;
}

/**
 * The three test tools (`add_to_cart`, `cart_total`, `search`, any object input); every run is
 * recorded. With `delayMs` > 0 each run takes that long, and is aborted with its signal.
 */
export function recordingTools(delayMs = 0) {
  const runs: ToolRun[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: `The ${name} test tool.`,
      input: z.looseObject({}),
      run: async (input, ctx) => {
        const startedAt = performance.now();
        if (delayMs > 0) {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, delayMs);
            ctx.signal.addEventListener(
              "abort",
              () => {
                clearTimeout(timer);
                reject(ctx.signal.reason);
              },
              { once: true },
            );
          });
        }
        runs.push({ callId: ctx.callId, name, input, startedAt, endedAt: performance.now() });
        return `${name} ok`;
      },
    });
  const executor = new ToolExecutor([tool("add_to_cart"), tool("cart_total"), tool("search")], {
    abortGraceMs: 5,
  });
  return { executor, runs };
}

/** A signal that is never aborted. */
export const neverAborted = (): AbortSignal => new AbortController().signal;

// ---------------------------------------------------------------------------------------------
// Eager timing

/**
 * Three calls of about 70 argument characters each (about 18 tokens, 250 ms at 70 tokens/s):
 * the script of the eager-timing tests, with {@link TIMED_PACING}.
 */
export const TIMED_CALLS: SimScript = {
  blocks: [
    { type: "text", text: "Three calls coming." },
    {
      type: "tool_use",
      name: "add_to_cart",
      input: { sku: "SHOE-42", qty: 2, note: "gift wrap, please", giftCard: true },
    },
    {
      type: "tool_use",
      name: "cart_total",
      input: { currency: "EUR", includeTax: true, coupon: "SPRING-25", round: 2 },
    },
    {
      type: "tool_use",
      name: "search",
      input: { query: "red running shoes", size: 42, inStock: true, sort: "price" },
    },
  ],
};

/** The sim's pacing for {@link TIMED_CALLS}: the response takes about a second. */
export const TIMED_PACING = { tokensPerSecond: 70, firstTokenMs: 40, jitter: 0.2 } as const;

/** A neutral event and when it reached the round. */
export interface TimedEvent {
  at: number;
  event: StreamEvent;
}

/** Passes the events through, timestamping each as it reaches the round; `return()` is passed on. */
export async function* timed(events: AsyncIterable<readonly StreamEvent[]>, log: TimedEvent[]) {
  for await (const batch of events) {
    const at = performance.now();
    for (const event of batch) log.push({ at, event });
    yield batch;
  }
}

/**
 * A sink that records when each tool starts running (its `tool-status` running event), in the
 * given round only when `round` is given.
 */
export function runningRecorder(round?: number) {
  const running: Array<{ at: number; callId: string }> = [];
  const sink = (event: AgentEvent) => {
    if (
      event.type === "tool-status" &&
      event.status === "running" &&
      (round === undefined || event.round === round)
    ) {
      running.push({ at: performance.now(), callId: event.callId });
    }
  };
  return { running, sink };
}

/** When the first (or the last) event matching `predicate` reached the round; throws if none did. */
export function eventAt(
  log: readonly TimedEvent[],
  predicate: (e: StreamEvent) => boolean,
  last = false,
): number {
  const found = last
    ? log.findLast((t) => predicate(t.event))
    : log.find((t) => predicate(t.event));
  if (!found) throw new Error("an expected event never arrived");
  return found.at;
}

/** The tool_use blocks of a timed log, in order: their index and call id. */
export function toolCallBlocks(log: readonly TimedEvent[]): Array<{ index: number; id: string }> {
  return log.flatMap(({ event }) =>
    event.type === "content_block_start" && event.content_block.type === "tool_use"
      ? [{ index: event.index, id: event.content_block.id }]
      : [],
  );
}

/** A non-empty `input_json_delta` of block `index`: arguments being written. */
export function isArgumentsDelta(e: StreamEvent, index: number): boolean {
  return (
    e.type === "content_block_delta" &&
    e.index === index &&
    e.delta.type === "input_json_delta" &&
    e.delta.partial_json !== ""
  );
}

/**
 * Each call's block stop (as it reached the round), and when its run started and how long it
 * took; throws when a call never ran.
 */
export function callTimes(
  log: readonly TimedEvent[],
  callBlocks: ReadonlyArray<{ index: number; id: string }>,
  runs: readonly ToolRun[],
) {
  return callBlocks.map(({ index, id }) => {
    const stop = eventAt(log, (e) => e.type === "content_block_stop" && e.index === index);
    const run = runs.find((r) => r.callId === id);
    if (!run) throw new Error(`call ${id} never ran`);
    return { id, stop, started: run.startedAt, duration: run.endedAt - run.startedAt };
  });
}

/**
 * One round of `model` asked for "three calls" with {@link recordingTools}(`toolMs`): each neutral
 * event timestamped as it reaches the round, each tool's start recorded. Checks that the round
 * ended with tool_use, no error and three runs; `start` is taken just before the request,
 * `roundEnd` when the round ended.
 */
export async function timedRound(model: ModelClient, toolMs: number) {
  const { executor, runs } = recordingTools(toolMs);
  const log: TimedEvent[] = [];
  const { running, sink } = runningRecorder();
  const signal = neverAborted();
  const round = new StreamedRound({ executor, sink, signal });
  const start = performance.now();
  const events = model.stream(
    { messages: [{ role: "user", content: "three calls" }], tools: executor.specs() },
    { signal },
  );
  const result = await round.relay(timed(events, log));
  const roundEnd = performance.now();
  expect(result.error).toBeUndefined();
  expect(result.stopReason).toBe("tool_use");
  expect(runs).toHaveLength(3);
  return { runs, log, running, start, roundEnd };
}

// ---------------------------------------------------------------------------------------------
// The strict sim accepts what overlap leaves behind

/** `calls` for a new request; a short answer once the last user message holds results. */
export function answerAfterResults(calls: SimScript): SimPolicy {
  return (request) => {
    const last = request.messages.at(-1);
    const answered = last?.role === "user" && last.content.some((b) => b.type === "tool_result");
    return answered ? { blocks: [{ type: "text", text: "All done." }] } : calls;
  };
}

/**
 * Runs "go on" after an (interrupted) turn with `executor`'s tools: the repaired conversation is
 * valid, and the strict sim accepts it and answers to the end.
 */
export async function nextTurnSucceeds(
  model: ModelClient,
  messages: readonly Message[],
  label: string,
  executor: ToolExecutor,
) {
  const next = appendUserText(messages, "go on").messages;
  expect(validateConversation(next), label).toEqual([]);
  const turn = await runAgentTurn({ model, executor, messages: next, sink: () => {} });
  expect(turn.error, label).toBeUndefined();
  expect(turn.stopReason, label).toBe("end_turn");
  expect(validateConversation(turn.messages), label).toEqual([]);
  return turn;
}

// ---------------------------------------------------------------------------------------------
// Capturing the bytes, checking a round's continuation

/** Request bodies sent and response texts received (a cut response: what arrived). */
export interface Capture {
  requests: string[];
  responses: Promise<string>[];
}

/** A fetch that copies each request body and each response's bytes into `capture`. */
export function capturingFetch(capture: Capture): typeof fetch {
  return async (input, init) => {
    capture.requests.push(typeof init?.body === "string" ? init.body : "");
    const response = await fetch(input, init);
    if (!response.body) {
      capture.responses.push(Promise.resolve(""));
      return response;
    }
    const [theirs, ours] = response.body.tee();
    capture.responses.push(readAll(ours));
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The whole text of a body; after a dropped connection, what arrived. */
export async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A dropped connection: keep what arrived.
  }
  return text + decoder.decode();
}

/** The tool_use blocks of a message's content. */
export function toolUses(content: Message["content"]) {
  return typeof content === "string"
    ? []
    : content.flatMap((b) => (b.type === "tool_use" ? [b] : []));
}

/** What the next request would carry: the ask, the assistant (when not empty), the results. */
export function continuation(ask: Message, result: RoundResult): Message[] {
  const messages: Message[] = [ask];
  if (result.assistant.content.length > 0) messages.push(result.assistant);
  if (result.toolResults) messages.push(result.toolResults);
  return messages;
}

/**
 * The round's messages after `ask` are a valid continuation, and the round has one outcome per
 * call, in call order.
 */
export function expectValidContinuation(ask: Message, result: RoundResult, label: string): void {
  expect(validateConversation(continuation(ask, result)), label).toEqual([]);
  const ids = toolUses(result.assistant.content).map((b) => b.id);
  expect(
    result.outcomes.map((o) => o.callId),
    label,
  ).toEqual(ids);
}

/** Where to abort a turn: at the first agent event `when` matches (after `delayMs`, when given). */
export interface AbortPoint {
  name: string;
  when: (e: AgentEvent) => boolean;
  delayMs?: number;
}

/**
 * A sink and a signal for a turn that abort it at `point`, once; `fired()` tells whether the
 * point was reached.
 */
export function abortAt(point: AbortPoint): {
  sink: (event: AgentEvent) => void;
  signal: AbortSignal;
  fired: () => boolean;
} {
  const controller = new AbortController();
  let armed = true;
  const sink = (event: AgentEvent) => {
    if (!armed || !point.when(event)) return;
    armed = false;
    if (point.delayMs) setTimeout(() => controller.abort(), point.delayMs);
    else controller.abort();
  };
  return { sink, signal: controller.signal, fired: () => !armed };
}

/**
 * drop-after=N and error-after=N for every N from 0 to `total` (the response's event count; at
 * `total` nothing is cut), each on a fresh turn asking `ask` with {@link recordingTools}: the turn
 * ends with `stream_interrupted` / `stream_error` (N < total), leaves a valid conversation, and
 * "go on" from it completes ({@link nextTurnSucceeds}) through `model()` without a fault.
 */
export async function expectEveryInterruptionRecovers(
  total: number,
  model: (fault?: string) => ModelClient,
  ask: string,
): Promise<void> {
  for (const kind of ["drop-after", "error-after"]) {
    for (let n = 0; n <= total; n++) {
      const label = `${kind}=${n}`;
      const { executor } = recordingTools();
      const first = await runAgentTurn({
        model: model(`${kind}=${n}`),
        executor,
        messages: [{ role: "user", content: ask }],
        sink: () => {},
      });
      if (n < total) {
        expect(first.error?.code, label).toBe(
          kind === "drop-after" ? "stream_interrupted" : "stream_error",
        );
      }
      expect(validateConversation(first.messages), label).toEqual([]);
      await nextTurnSucceeds(model(), first.messages, label, recordingTools().executor);
    }
  }
}
