/**
 * overlap against overlap-sim through the official SDKs and real HTTP:
 *
 * 1. Eager timing: with a paced response (three calls over about a second) the first tool starts
 *    while the model is still writing the last call, and the round ends within a few ms of the
 *    lower bound max(stream end, max over calls of block stop + tool duration), every time measured
 *    from what was observed (neutral events timestamped as they reach the round).
 * 2. The sim as a strict peer: it rejects a dangling tool_use with the APIs' own 400, and accepts
 *    the conversation overlap leaves behind after a dropped connection or an abort mid-round
 *    (runAgentTurn's messages, then `appendUserText(messages, "go on")`): the next turn completes.
 *
 * Set OVERLAP_TIMINGS=1 to print the measured timings.
 */

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelClient } from "../agent/model-client.js";
import { repairConversation } from "../agent/repair-conversation.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { StreamedRound } from "../round/streamed-round.js";
import type { Message } from "../stream/message.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { toChatMessages } from "./openai/chat-messages.js";
import { openaiChatModel } from "./openai/openai.js";
import {
  abortAt,
  answerAfterResults,
  callTimes,
  eventAt,
  isArgumentsDelta,
  nextTurnSucceeds,
  recordingTools,
  simRunner,
  TIMED_CALLS,
  TIMED_PACING,
  timedRound,
  toolCallBlocks,
} from "./provider-sim.testkit.js";

const MODEL = "scripted-integration";
const withSim = simRunner({ seed: 4242 });

const anthropicFor = (sim: SimServer, fault?: string): ModelClient =>
  anthropicModel({
    client: new Anthropic({
      baseURL: sim.url,
      apiKey: "test",
      maxRetries: 0,
      defaultHeaders: fault ? { "x-sim-fault": fault } : {},
    }),
    model: MODEL,
  });

const openaiFor = (sim: SimServer, fault?: string): ModelClient =>
  openaiChatModel({
    client: new OpenAI({
      baseURL: `${sim.url}/v1`,
      apiKey: "test",
      maxRetries: 0,
      defaultHeaders: fault ? { "x-sim-fault": fault } : {},
    }),
    model: MODEL,
  });

const PROVIDERS = [
  { name: "anthropicModel", model: anthropicFor },
  { name: "openaiChatModel", model: openaiFor },
] as const;

// ---------------------------------------------------------------------------------------------
// 1. Eager timing

const TOOL_MS = 150;
const SLACK_MS = 25;

describe("eager dispatch through real HTTP (paced sim)", () => {
  for (const provider of PROVIDERS) {
    it(`${provider.name}: the first tool runs before the last call is written; the round ends at the lower bound`, async () => {
      await withSim(
        {
          policy: () => TIMED_CALLS,
          pacing: TIMED_PACING,
        },
        async (sim) => {
          const { runs, log, running, start, roundEnd } = await timedRound(
            provider.model(sim),
            TOOL_MS,
          );

          // Observed times, from the neutral events as the round received them.
          const at = (predicate: (e: StreamEvent) => boolean) => eventAt(log, predicate);
          const callBlocks = toolCallBlocks(log);
          expect(callBlocks).toHaveLength(3);
          const lastCall = callBlocks.at(-1)!;
          const lastFirstDelta = at((e) => isArgumentsDelta(e, lastCall.index));
          const lastBlockStart = at(
            (e) => e.type === "content_block_start" && e.index === lastCall.index,
          );
          const streamEnd = at((e) => e.type === "message_stop");
          const firstRunning = Math.min(...running.map((r) => r.at));

          const calls = callTimes(log, callBlocks, runs);
          const lowerBound = Math.max(streamEnd, ...calls.map((c) => c.stop + c.duration));

          if (process.env.OVERLAP_TIMINGS) {
            const r = (ms: number) => Math.round((ms - start) * 10) / 10;
            console.info(
              `${provider.name}: stream end ${r(streamEnd)} ms; first tool running ${r(firstRunning)} ms; ` +
                `last call block start ${r(lastBlockStart)} ms, first delta ${r(lastFirstDelta)} ms; ` +
                `block stops ${calls.map((c) => r(c.stop)).join("/")} ms, tool starts ${calls.map((c) => r(c.started)).join("/")} ms, ` +
                `durations ${calls.map((c) => Math.round(c.duration)).join("/")} ms; ` +
                `lower bound ${r(lowerBound)} ms; round end ${r(roundEnd)} ms (+${Math.round((roundEnd - lowerBound) * 10) / 10} ms)`,
            );
          }

          // The response really was spread out: about a second.
          expect(streamEnd - start).toBeGreaterThan(600);
          // Eager: the first tool is running before the last call's arguments even begin.
          expect(firstRunning).toBeLessThan(lastFirstDelta);
          // Each call starts as soon as its block stops (not at the end of the message).
          for (const call of calls) expect(call.started - call.stop).toBeLessThan(SLACK_MS);
          // The round ends at the lower bound, give or take scheduling.
          expect(roundEnd).toBeGreaterThanOrEqual(lowerBound);
          expect(roundEnd - lowerBound).toBeLessThanOrEqual(SLACK_MS);
        },
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// 2. The sim as a strict peer

const DANGLING: Message[] = [
  { role: "user", content: "Add the red shoes." },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Adding them." },
      { type: "tool_use", id: "toolu_dangling_01", name: "add_to_cart", input: { sku: "SHOE-42" } },
    ],
  },
  { role: "user", content: "Actually, never mind." },
];

const SHOP_CALLS: SimScript = {
  blocks: [
    { type: "text", text: "Adding the shoes, totalling the cart, then searching." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 2, note: "gift" } },
    { type: "tool_use", name: "cart_total", input: {} },
    { type: "tool_use", name: "search", input: { query: "red shoes", size: 42 } },
  ],
};

/** Three calls for a new request; a short answer once the last user message holds results. */
const shopPolicy = answerAfterResults(SHOP_CALLS);

/** Starts a sim that logs each request's outcome (`POST /v1/… <status> …`). */
async function withLoggedSim<T>(fn: (sim: SimServer, log: string[]) => Promise<T>) {
  const log: string[] = [];
  return withSim({ policy: shopPolicy, pacing: { fast: true }, log: (l) => log.push(l) }, (sim) =>
    fn(sim, log),
  );
}

describe("the sim is a strict peer", () => {
  it("Anthropic: a dangling tool_use is a 400 invalid_request_error (through the SDK and through overlap)", async () => {
    await withLoggedSim(async (sim, log) => {
      const client = new Anthropic({ baseURL: sim.url, apiKey: "test", maxRetries: 0 });
      const error = await client.messages
        .create({
          model: MODEL,
          max_tokens: 256,
          messages: DANGLING as Anthropic.MessageParam[],
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      const bad = error as InstanceType<typeof Anthropic.BadRequestError>;
      expect(bad.status).toBe(400);
      expect(bad.message).toContain(
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_dangling_01",
      );
      // overlap's local check names the same call, so runAgentTurn never sends it…
      expect(validateConversation(DANGLING)).toMatchObject([
        { code: "tool_use_unanswered", toolUseId: "toolu_dangling_01" },
      ]);
      const { executor } = recordingTools(5);
      const requestsBefore = log.length;
      const refused = await runAgentTurn({
        model: anthropicFor(sim),
        executor,
        messages: DANGLING,
        sink: () => {},
      });
      expect(refused.error?.code).toBe("invalid_conversation");
      expect(log.length).toBe(requestsBefore);
      // …and a round sent anyway gets the peer's 400 as a provider_error.
      const round = new StreamedRound({ executor, sink: () => {} });
      const signal = new AbortController().signal;
      const result = await round.relay(
        anthropicFor(sim).stream({ messages: DANGLING, tools: executor.specs() }, { signal }),
      );
      expect(result.error?.code).toBe("provider_error");
      expect(result.error?.details).toMatchObject({ status: 400, type: "invalid_request_error" });
      // The repaired conversation is accepted.
      const repaired = await client.messages.create({
        model: MODEL,
        max_tokens: 256,
        messages: repairConversation(DANGLING) as Anthropic.MessageParam[],
      });
      expect(repaired.stop_reason).toBe("end_turn");
    });
  });

  it("OpenAI: a dangling tool call is a 400 invalid_request_error (through the SDK and through overlap)", async () => {
    await withLoggedSim(async (sim) => {
      const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "test", maxRetries: 0 });
      const error = await client.chat.completions
        .create({ model: MODEL, messages: toChatMessages(undefined, DANGLING) })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
      expect(bad.status).toBe(400);
      expect(bad.message).toContain(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: toolu_dangling_01",
      );
      const { executor } = recordingTools(5);
      const round = new StreamedRound({ executor, sink: () => {} });
      const signal = new AbortController().signal;
      const result = await round.relay(
        openaiFor(sim).stream({ messages: DANGLING, tools: executor.specs() }, { signal }),
      );
      expect(result.error?.code).toBe("provider_error");
      expect(result.error?.details).toMatchObject({ status: 400, type: "invalid_request_error" });
      const repaired = await client.chat.completions.create({
        model: MODEL,
        messages: toChatMessages(undefined, repairConversation(DANGLING)),
      });
      expect(repaired.choices[0]?.finish_reason).toBe("stop");
    });
  });

  /**
   * Where drop-after=N cuts the first turn (its request is the same for every N): SHOP_CALLS is 29
   * Anthropic frames (delta sizes follow the request body, tools' `eager_input_streaming`
   * included): after message_start; mid-text; mid add_to_cart arguments; after add_to_cart's
   * stop; cart_total started, not stopped; mid search; every block stopped but no message_delta;
   * no message_stop. It is 26 Chat Completions chunks: after the role chunk; mid-text; mid
   * add_to_cart; add_to_cart's arguments complete, no later call yet; cart_total's complete; mid
   * search; before finish_reason; after it; after the usage chunk (no `[DONE]`).
   */
  const cuts = {
    anthropicModel: [1, 5, 13, 17, 19, 24, 27, 28],
    openaiChatModel: [1, 4, 11, 15, 17, 20, 23, 24, 25],
  };

  for (const provider of PROVIDERS) {
    it(`${provider.name}: after drop-after=N (several N) the repaired conversation is accepted`, async () => {
      await withLoggedSim(async (sim, log) => {
        for (const n of cuts[provider.name]) {
          const label = `drop-after=${n}`;
          const { executor } = recordingTools(5);
          const first = await runAgentTurn({
            model: provider.model(sim, `drop-after=${n}`),
            executor,
            messages: [{ role: "user", content: "Interrupted turn." }],
            sink: () => {},
          });
          expect(first.error?.code, label).toBe("stream_interrupted");
          await nextTurnSucceeds(
            provider.model(sim),
            first.messages,
            label,
            recordingTools(5).executor,
          );
        }
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      });
    });

    it(`${provider.name}: after an abort mid-round (several points) the repaired conversation is accepted`, async () => {
      type Point = {
        name: string;
        when: (e: AgentEvent) => boolean;
        delayMs?: number;
        /** Whether a running tool gets aborted (its result is then `interrupted`). */
        interrupts?: boolean;
      };
      const points: Point[] = [
        { name: "before any content", when: (e) => e.type === "round-start" },
        { name: "mid-text", when: (e) => e.type === "text-delta" },
        {
          // Synchronously in the status event: the tool is cancelled before its run begins.
          name: "as the first tool starts",
          when: (e) => e.type === "tool-status" && e.status === "running",
        },
        {
          name: "first tool running",
          when: (e) => e.type === "tool-status" && e.status === "running",
          delayMs: 1,
          interrupts: true,
        },
        {
          name: "mid last call's arguments",
          when: (e) => e.type === "tool-input-preview" && e.name === "search",
          interrupts: true, // add_to_cart and cart_total are running
        },
        {
          // The stream has ended; the tools (60 ms) are still running during the join.
          name: "during the join",
          when: (e) => e.type === "tool-call" && e.name === "search",
          delayMs: 20,
          interrupts: true,
        },
      ];
      await withLoggedSim(async (sim, log) => {
        for (const point of points) {
          const { executor } = recordingTools(60);
          const { sink, signal, fired } = abortAt(point);
          const first = await runAgentTurn({
            model: provider.model(sim),
            executor,
            messages: [{ role: "user", content: `Aborted turn: ${point.name}.` }],
            sink,
            signal,
          });
          expect(fired(), point.name).toBe(true);
          expect(first.error?.code, point.name).toBe("aborted");
          expect(validateConversation(first.messages), point.name).toEqual([]);
          const statuses = first.rounds.flatMap((r) => r.outcomes.map((o) => o.status));
          expect(statuses.includes("interrupted"), point.name).toBe(point.interrupts === true);
          expect(statuses.includes("ok"), point.name).toBe(false);
          await nextTurnSucceeds(
            provider.model(sim),
            first.messages,
            point.name,
            recordingTools(5).executor,
          );
        }
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      });
    });
  }
});
