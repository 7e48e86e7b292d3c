/**
 * aiSdkModel over the real AI SDK provider packages (`@ai-sdk/anthropic`, `@ai-sdk/openai` chat
 * and responses models) against overlap-sim, through real HTTP:
 *
 * 1. When each provider package ends a call, measured from the events as they reach the round
 *    (paced sim, three calls): `@ai-sdk/anthropic` and the OpenAI Responses model end each call
 *    as it is written (the first tool runs before the last call's arguments begin);
 *    `@ai-sdk/openai`'s Chat Completions model ends every call only when the stream ends (its
 *    tool-call tracker emits tool-input-end in its flush), so no tool can start earlier.
 * 2. Faults (drop-after, error-after at points spread over the whole response; an abort) end the
 *    turn with a typed error and a conversation the strict sim accepts on the next turn.
 * 3. The AI SDK's own accumulation of the same stream (`streamText` over the recorded parts:
 *    `toolCalls`, `text`, `reasoningText`, `response.messages`) equals what overlap assembled, and
 *    the prompt overlap would send back equals the AI SDK's own response messages.
 *
 * Set OVERLAP_TIMINGS=1 to print the measured timings.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { jsonSchema, streamText, type Tool, tool } from "ai";
import { type SimScript, type SimServer, startSim } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../../agent/model-client.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { Message } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import {
  answerAfterResults,
  callTimes,
  eventAt,
  isArgumentsDelta,
  nextTurnSucceeds,
  runningRecorder,
  TIMED_CALLS,
  TIMED_PACING,
  type TimedEvent,
  type ToolRun,
  toolCallBlocks,
} from "../provider-sim.testkit.js";
import { aiSdkModel } from "./ai-sdk-model.js";
import { toLanguageModelV3Prompt } from "./ai-sdk-prompt.js";

const MODEL = "scripted-ai-sdk";

// The AI SDK logs every call warning (the sim's model is unknown to it) to the console.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** The provider models under test, each as the AI SDK makes it for a base URL. */
const PROVIDERS = {
  anthropic: (sim: SimServer, headers: Record<string, string>, fetch?: typeof globalThis.fetch) =>
    createAnthropic({ baseURL: `${sim.url}/v1`, apiKey: "x", headers, fetch })(MODEL),
  "openai-chat": (
    sim: SimServer,
    headers: Record<string, string>,
    fetch?: typeof globalThis.fetch,
  ) => createOpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", headers, fetch }).chat(MODEL),
  "openai-responses": (
    sim: SimServer,
    headers: Record<string, string>,
    fetch?: typeof globalThis.fetch,
  ) => createOpenAI({ baseURL: `${sim.url}/v1`, apiKey: "x", headers, fetch }).responses(MODEL),
} as const;
type ProviderName = keyof typeof PROVIDERS;

function modelFor(
  provider: ProviderName,
  sim: SimServer,
  fault?: string,
  fetch?: typeof globalThis.fetch,
): ModelClient {
  const headers: Record<string, string> = fault ? { "x-sim-fault": fault } : {};
  return aiSdkModel(PROVIDERS[provider](sim, headers, fetch), {
    maxRetries: 0,
    maxTokens: 1024,
    // The sim stores nothing: the Responses model must send every item whole.
    ...(provider === "openai-responses"
      ? { callOptions: { providerOptions: { openai: { store: false } } } }
      : {}),
  });
}

/**
 * The three test tools with strict schemas (the Responses API requires them), each taking
 * `delayMs` (aborted with its signal) and recording its run.
 */
function recordingTools(delayMs: number) {
  const runs: ToolRun[] = [];
  const schemas = {
    add_to_cart: z.strictObject({
      sku: z.string(),
      qty: z.number(),
      note: z.string(),
      giftCard: z.boolean(),
    }),
    cart_total: z.strictObject({
      currency: z.string(),
      includeTax: z.boolean(),
      coupon: z.string(),
      round: z.number(),
    }),
    search: z.strictObject({
      query: z.string(),
      size: z.number(),
      inStock: z.boolean(),
      sort: z.string(),
    }),
  };
  const tools = Object.entries(schemas).map(([name, input]) =>
    defineTool({
      name,
      description: `The ${name} test tool.`,
      input,
      run: async (value, ctx) => {
        const startedAt = performance.now();
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
        runs.push({
          callId: ctx.callId,
          name,
          input: value,
          startedAt,
          endedAt: performance.now(),
        });
        return `${name} ok`;
      },
    }),
  );
  return { executor: new ToolExecutor(tools, { abortGraceMs: 5 }), runs };
}

/** Three calls for a new request; a short answer once the last user message holds results. */
const shopPolicy = answerAfterResults(TIMED_CALLS);

/** A model whose first request's neutral events are timestamped as they reach the round. */
function timedModel(model: ModelClient, log: TimedEvent[]): ModelClient {
  let requests = 0;
  return {
    stream(request, options) {
      const first = ++requests === 1;
      const events = model.stream(request, options);
      return (async function* () {
        for await (const batch of events) {
          const at = performance.now();
          if (first) for (const event of batch) log.push({ at, event });
          yield batch;
        }
      })();
    },
  };
}

const TOOL_MS = 150;
const SLACK_MS = 25;

// ---------------------------------------------------------------------------------------------
// 1. When each provider package ends a call

describe("aiSdkModel through real HTTP: when each AI SDK provider ends a call (paced sim)", () => {
  const cases: Array<{ provider: ProviderName; perCall: boolean }> = [
    { provider: "anthropic", perCall: true },
    { provider: "openai-responses", perCall: true },
    { provider: "openai-chat", perCall: false },
  ];
  for (const { provider, perCall } of cases) {
    const claim = perCall
      ? "each call ends as it is written: the first tool runs before the last call's arguments begin"
      : "every call ends only with the stream: no tool starts before the last call's arguments are all in";
    it(`${provider}: ${claim}`, async () => {
      const sim = await startSim({
        seed: 4242,
        policy: shopPolicy,
        pacing: TIMED_PACING,
      });
      try {
        const { executor, runs } = recordingTools(TOOL_MS);
        const log: TimedEvent[] = [];
        const { running, sink } = runningRecorder(1);
        const start = performance.now();
        const turn = await runAgentTurn({
          model: timedModel(modelFor(provider, sim), log),
          executor,
          messages: [{ role: "user", content: "three calls" }],
          sink,
        });
        expect(turn.error).toBeUndefined();
        expect(turn.stopReason).toBe("end_turn");
        expect(turn.rounds).toHaveLength(2);
        expect(validateConversation(turn.messages)).toEqual([]);
        expect(runs.map((r) => [r.name, r.input])).toEqual(
          TIMED_CALLS.blocks.flatMap((b) => (b.type === "tool_use" ? [[b.name, b.input]] : [])),
        );

        const at = (predicate: (e: StreamEvent) => boolean, last = false) =>
          eventAt(log, predicate, last);
        const callBlocks = toolCallBlocks(log);
        expect(callBlocks).toHaveLength(3);
        const lastCall = callBlocks.at(-1)!;
        const lastFirstDelta = at((e) => isArgumentsDelta(e, lastCall.index));
        const lastLastDelta = at((e) => isArgumentsDelta(e, lastCall.index), true);
        const streamEnd = at((e) => e.type === "message_stop");
        const firstRunning = Math.min(...running.map((r) => r.at));
        const calls = callTimes(log, callBlocks, runs);

        if (process.env.OVERLAP_TIMINGS) {
          const r = (ms: number) => Math.round(ms - start);
          console.info(
            `${provider}: stream end ${r(streamEnd)} ms; block stops ${calls.map((c) => r(c.stop)).join("/")} ms; ` +
              `tools running from ${r(firstRunning)} ms; last call's arguments ${r(lastFirstDelta)}..${r(lastLastDelta)} ms`,
          );
        }

        expect(streamEnd - start).toBeGreaterThan(600); // really paced
        // Each call starts as soon as its block stops, whatever the provider.
        for (const call of calls) expect(call.started - call.stop).toBeLessThan(SLACK_MS);
        if (perCall) {
          expect(firstRunning).toBeLessThan(lastFirstDelta);
          expect(calls[0]!.stop).toBeLessThan(lastFirstDelta);
        } else {
          // All three calls end in one burst when the stream ends.
          for (const call of calls) {
            expect(call.stop).toBeGreaterThanOrEqual(lastLastDelta);
            expect(streamEnd - call.stop).toBeLessThan(SLACK_MS);
          }
          expect(firstRunning).toBeGreaterThanOrEqual(lastLastDelta);
        }
      } finally {
        await sim.close();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Faults leave a conversation the strict sim accepts

/** The same request every time, so the sim (seeded by the request) sends the same frames. */
const INTERRUPTED = "An interrupted turn.";

/** Counts the response's SSE frames (one request, fast pacing) so cuts can span all of it. */
async function frameCount(provider: ProviderName, sim: SimServer): Promise<number> {
  let text = "";
  const capture: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    text = await response.clone().text();
    return response;
  };
  const { executor } = recordingTools(1);
  const turn = await runAgentTurn({
    model: modelFor(provider, sim, undefined, capture),
    executor,
    messages: [{ role: "user", content: INTERRUPTED }],
    sink: () => {},
    maxRounds: 1,
  });
  expect(turn.rounds[0]?.error).toBeUndefined();
  return text.split("\n\n").filter((frame) => frame.includes("data:")).length;
}

describe("aiSdkModel through real HTTP: faults leave a conversation the strict sim accepts", () => {
  for (const provider of Object.keys(PROVIDERS) as ProviderName[]) {
    it(`${provider}: drop-after and error-after at points across the response, then the next turn`, async () => {
      const log: string[] = [];
      const sim = await startSim({
        seed: 77,
        policy: shopPolicy,
        pacing: { fast: true },
        log: (line) => log.push(line),
      });
      try {
        const frames = await frameCount(provider, sim);
        expect(frames).toBeGreaterThan(10);
        const cuts = [
          ...new Set(
            [1, 2, 3, 5, 8, 0.3, 0.5, 0.7, 0.9, -2, -1].map((p) =>
              p < 0 ? frames + p : p < 1 ? Math.round(frames * p) : p,
            ),
          ),
        ].filter((n) => n >= 1 && n < frames);
        for (const [fault, codes] of [
          ["drop-after", ["stream_interrupted"]],
          ["error-after", ["stream_error", "provider_error"]],
        ] as const) {
          for (const n of cuts) {
            const label = `${provider} ${fault}=${n} of ${frames}`;
            const { executor, runs } = recordingTools(1);
            const first = await runAgentTurn({
              model: modelFor(provider, sim, `${fault}=${n}`),
              executor,
              messages: [{ role: "user", content: INTERRUPTED }],
              sink: () => {},
            });
            expect(codes as readonly string[], label).toContain(first.error?.code);
            expect(first.stopReason, label).toBe("error");
            expect(validateConversation(first.messages), label).toEqual([]);
            // Only calls whose arguments were complete ran, each once, with its full input.
            const calls = first.messages.flatMap((m) =>
              m.role === "assistant"
                ? m.content.flatMap((b) => (b.type === "tool_use" ? [b] : []))
                : [],
            );
            for (const run of runs) {
              expect(calls.find((c) => c.id === run.callId)?.input, label).toEqual(run.input);
            }
            expect(new Set(runs.map((r) => r.callId)).size, label).toBe(runs.length);
            await nextTurnSucceeds(
              modelFor(provider, sim),
              first.messages,
              label,
              recordingTools(1).executor,
            );
          }
        }
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      } finally {
        await sim.close();
      }
    });
  }

  it("anthropic: an abort while the tools run leaves interrupted results; the next turn is accepted", async () => {
    const sim = await startSim({ seed: 5, policy: shopPolicy, pacing: { fast: true } });
    try {
      const { executor } = recordingTools(200);
      const controller = new AbortController();
      const first = await runAgentTurn({
        model: modelFor("anthropic", sim),
        executor,
        messages: [{ role: "user", content: "Abort me." }],
        sink: (event) => {
          if (event.type === "tool-call" && event.name === "search") controller.abort();
        },
        signal: controller.signal,
      });
      expect(first.error?.code).toBe("aborted");
      expect(validateConversation(first.messages)).toEqual([]);
      const statuses = first.rounds.flatMap((r) => r.outcomes.map((o) => o.status));
      expect(statuses).toContain("interrupted");
      await nextTurnSucceeds(
        modelFor("anthropic", sim),
        first.messages,
        "abort",
        recordingTools(1).executor,
      );
    } finally {
      await sim.close();
    }
  });

  it("anthropic: a 529 before the stream is retried (maxRetries), then a provider_error with its status", async () => {
    const log: string[] = [];
    const sim = await startSim({
      seed: 5,
      policy: shopPolicy,
      pacing: { fast: true },
      log: (line) => log.push(line),
    });
    try {
      const { executor } = recordingTools(1);
      const model = aiSdkModel(
        createAnthropic({
          baseURL: `${sim.url}/v1`,
          apiKey: "x",
          headers: { "x-sim-fault": "status=529" },
        })(MODEL),
        { maxRetries: 1 },
      );
      const turn = await runAgentTurn({
        model,
        executor,
        messages: [{ role: "user", content: "Overloaded." }],
        sink: () => {},
      });
      expect(turn.error?.code).toBe("provider_error");
      expect(turn.error?.details).toMatchObject({ status: 529, type: "overloaded_error" });
      expect(log.filter((line) => / 529 /.test(line))).toHaveLength(2);
    } finally {
      await sim.close();
    }
  });

  it("anthropic: aborting mid-stream ends the HTTP request at once (abortSignal forwarded); the next turn is accepted", async () => {
    const sim = await startSim({
      seed: 5,
      policy: shopPolicy,
      pacing: { tokensPerSecond: 70, firstTokenMs: 40 },
    });
    try {
      const { executor, runs } = recordingTools(1);
      const controller = new AbortController();
      let abortedAt = 0;
      const first = await runAgentTurn({
        model: modelFor("anthropic", sim),
        executor,
        messages: [{ role: "user", content: "Abort me early." }],
        sink: (event) => {
          if (event.type === "text-delta" && !controller.signal.aborted) {
            abortedAt = performance.now();
            controller.abort();
          }
        },
        signal: controller.signal,
      });
      // The paced response takes about a second; the turn ends right after the abort.
      expect(performance.now() - abortedAt).toBeLessThan(150);
      expect(first.error?.code).toBe("aborted");
      expect(runs).toEqual([]);
      expect(validateConversation(first.messages)).toEqual([]);
      await nextTurnSucceeds(
        modelFor("anthropic", sim),
        first.messages,
        "abort mid-stream",
        recordingTools(1).executor,
      );
    } finally {
      await sim.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 3. The AI SDK's own accumulation of the same stream

/** The parts of one real doStream call, recorded. */
async function recordParts(
  model: LanguageModelV3,
  request: Parameters<LanguageModelV3["doStream"]>[0],
) {
  const { stream } = await model.doStream(request);
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return parts;
}

/**
 * A model that replays recorded parts (for both overlap and streamText: the same stream), and
 * records the call options of every request.
 */
function replayModel(real: LanguageModelV3, parts: readonly LanguageModelV3StreamPart[]) {
  const calls: Array<Parameters<LanguageModelV3["doStream"]>[0]> = [];
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: real.provider,
    modelId: real.modelId,
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async (options) => {
      calls.push(options);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(structuredClone(part));
            controller.close();
          },
        }),
      };
    },
  };
  return { model, calls };
}

const LOOSE_TOOLS = ["add_to_cart", "cart_total", "search"];

function looseExecutor() {
  const runs: Array<{ callId: string; name: string; input: unknown }> = [];
  const executor = new ToolExecutor(
    LOOSE_TOOLS.map((name) =>
      defineTool({
        name,
        description: `The ${name} test tool.`,
        input: z.looseObject({}),
        run: (input, ctx) => {
          runs.push({ callId: ctx.callId, name, input });
          return `${name} ok`;
        },
      }),
    ),
  );
  return { executor, runs };
}

const THREE_CALLS: SimScript = {
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

describe("the AI SDK's own accumulation of the same stream equals overlap's", () => {
  const cases: Array<[string, ProviderName, string | undefined]> = [
    ["anthropic: text and three calls", "anthropic", undefined],
    ["anthropic: thinking (signed) and three calls", "anthropic", "thinking"],
    ["anthropic: a provider-executed web search, then calls", "anthropic", "web-search"],
    ["openai-chat: text and three calls", "openai-chat", undefined],
    ["openai-responses: text and three calls", "openai-responses", undefined],
  ];
  for (const [name, provider, fault] of cases) {
    it(name, async () => {
      const sim = await startSim({ seed: 9, policy: () => THREE_CALLS, pacing: { fast: true } });
      try {
        const headers: Record<string, string> = fault ? { "x-sim-fault": fault } : {};
        const real = PROVIDERS[provider](sim, headers);
        const { executor, runs } = looseExecutor();
        const messages: Message[] = [{ role: "user", content: "Do the scripted thing." }];
        const client = aiSdkModel(real);
        // Record what the provider package made of one real response…
        const specs = executor.specs();
        const parts = await recordParts(real, {
          prompt: toLanguageModelV3Prompt(undefined, messages),
          tools: specs.map((s) => ({
            type: "function",
            name: s.name,
            description: s.description,
            inputSchema: s.input_schema,
            ...(provider === "openai-responses" ? { strict: false } : {}),
          })),
        });
        const { model: replay, calls: requests } = replayModel(real, parts);

        // …and have overlap and the AI SDK each accumulate that same stream.
        const ourModel = aiSdkModel(replay);
        const signal = new AbortController().signal;
        const round = new StreamedRound({ executor, sink: () => {} });
        const ours = await round.relay(ourModel.stream({ messages, tools: specs }, { signal }));
        const sdkTools: Record<string, Tool> = Object.fromEntries(
          specs.map((s) => [
            s.name,
            tool({ description: s.description, inputSchema: jsonSchema(s.input_schema) }),
          ]),
        );
        const theirs = streamText({
          model: replay,
          prompt: "Do the scripted thing.",
          tools: sdkTools,
        });
        const [toolCalls, text, reasoningText, response, finishReason] = await Promise.all([
          theirs.toolCalls,
          theirs.text,
          theirs.reasoningText,
          theirs.response,
          theirs.finishReason,
        ]);
        expect(client.label).toBe(MODEL);

        expect(ours.error).toBeUndefined();
        expect(finishReason).toBe("tool-calls");
        expect(ours.stopReason).toBe("tool_use");
        const blocks = ours.assistant.content;
        // The same local calls: ids, names and inputs; each ran once with that input.
        const calls = blocks.flatMap((b) => (b.type === "tool_use" ? [b] : []));
        const local = toolCalls.filter((c) => !c.providerExecuted);
        expect(calls.map((c) => ({ toolCallId: c.id, toolName: c.name, input: c.input }))).toEqual(
          local.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
        );
        expect(calls).toHaveLength(3);
        expect(runs).toEqual(calls.map((c) => ({ callId: c.id, name: c.name, input: c.input })));
        // The same text and reasoning.
        const textOf = (type: "text" | "thinking") =>
          blocks
            .map((b) =>
              b.type === "text" && type === "text"
                ? b.text
                : b.type === "thinking" && type === "thinking"
                  ? b.thinking
                  : "",
            )
            .join("");
        expect(textOf("text")).toBe(text);
        expect(textOf("thinking")).toBe(reasoningText ?? "");
        if (fault === "thinking") expect(reasoningText).not.toBe("");
        // What overlap sends back next round is the AI SDK's own response message.
        const next = [...messages, ours.assistant, ...(ours.toolResults ? [ours.toolResults] : [])];
        for await (const _ of ourModel.stream({ messages: next, tools: specs }, { signal })) {
          // drained: only the request matters
        }
        const sent = requests.at(-1)?.prompt[1];
        expect(sent?.role).toBe("assistant");
        expect(response.messages[0]?.role).toBe("assistant");
        expect(sent?.content).toEqual(plainParts(response.messages[0]?.content));
        if (fault === "web-search") {
          expect(blocks.map((b) => b.type).slice(0, 2)).toEqual([
            "server_tool_use",
            "ai_sdk_tool_result",
          ]);
        }
      } finally {
        await sim.close();
      }
    });
  }
});

/** The AI SDK's message parts without fields it leaves undefined. */
function plainParts(content: unknown): unknown {
  return JSON.parse(JSON.stringify(content ?? []));
}
