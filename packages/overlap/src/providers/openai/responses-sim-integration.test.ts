/**
 * `openaiResponsesModel` against overlap-sim's `POST /v1/responses` through the official SDK and
 * real HTTP:
 *
 * 1. Eager timing: with a paced response (three calls over about a second) the first tool runs
 *    while the model is still writing the last call, each call starts as its
 *    `function_call_arguments.done` arrives, and the round ends within a few ms of the lower bound
 *    max(stream end, max over calls of call end + tool duration).
 * 2. runAgentTurn end to end with tools: two rounds, every tool once, results in call order; the
 *    second request carries the first response's items as they came (reasoning item with its
 *    encrypted content, message and function calls with their ids) and one output per call, and
 *    the strict sim accepts it.
 *    With the provider's web search beside the client tools (`providerTools`): both are sent,
 *    the `web_search_call` item is a server-tool (shown, never run), the cited text keeps its
 *    annotations, and the next request carries the item and the annotations back in place.
 * 3. The sim as a strict peer: a dangling call is its 400 ("No tool output found for function
 *    call …"), through the SDK and through overlap; the repaired conversation is accepted; an
 *    abort mid-round leaves a conversation the next turn completes.
 */

import OpenAI from "openai";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelClient } from "../../agent/model-client.js";
import { repairConversation } from "../../agent/repair-conversation.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import type { AgentEvent } from "../../protocol/agent-event.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { Message } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
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
} from "../provider-sim.testkit.js";
import { type OpenAIResponsesModelOptions, openaiResponsesModel } from "./openai-responses.js";
import { toResponsesInput } from "./responses-input.js";

const MODEL = "scripted-responses-integration";
const withSim = simRunner({ seed: 4242 });

function responsesFor(
  sim: SimServer,
  options: {
    fault?: string;
    bodies?: ResponseCreateParamsStreaming[];
    params?: Record<string, unknown>;
    providerTools?: OpenAIResponsesModelOptions["providerTools"];
  } = {},
): ModelClient {
  const { fault, bodies, params, providerTools } = options;
  return openaiResponsesModel({
    client: new OpenAI({
      baseURL: `${sim.url}/v1`,
      apiKey: "test",
      maxRetries: 0,
      defaultHeaders: fault ? { "x-sim-fault": fault } : {},
      fetch: async (input, init) => {
        if (bodies && typeof init?.body === "string") bodies.push(JSON.parse(init.body));
        return fetch(input, init);
      },
    }),
    model: MODEL,
    ...(params ? { params } : {}),
    ...(providerTools ? { providerTools } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Eager timing

const TOOL_MS = 150;
const SLACK_MS = 25;

describe("eager dispatch through real HTTP (paced sim, Responses API)", () => {
  it("the first tool runs before the last call's arguments begin; each call starts at its end-of-call event; the round ends at the lower bound", async () => {
    await withSim({ policy: () => TIMED_CALLS, pacing: TIMED_PACING }, async (sim) => {
      const { runs, log, running, start, roundEnd } = await timedRound(responsesFor(sim), TOOL_MS);
      const at = (predicate: (e: StreamEvent) => boolean) => eventAt(log, predicate);
      const callBlocks = toolCallBlocks(log);
      expect(callBlocks).toHaveLength(3);
      const lastCall = callBlocks.at(-1)!;
      const lastFirstDelta = at((e) => isArgumentsDelta(e, lastCall.index));
      const streamEnd = at((e) => e.type === "message_stop");
      const firstRunning = Math.min(...running.map((r) => r.at));
      const calls = callTimes(log, callBlocks, runs);
      const lowerBound = Math.max(streamEnd, ...calls.map((c) => c.stop + c.duration));
      if (process.env.OVERLAP_TIMINGS) {
        const r = (ms: number) => Math.round(ms - start);
        console.info(
          `openaiResponsesModel: stream end ${r(streamEnd)} ms; first tool running ${r(firstRunning)} ms; ` +
            `last call first delta ${r(lastFirstDelta)} ms; call ends ${calls.map((c) => r(c.stop)).join("/")} ms; ` +
            `lower bound ${r(lowerBound)} ms; round end ${r(roundEnd)} ms`,
        );
      }
      expect(streamEnd - start).toBeGreaterThan(600);
      expect(firstRunning).toBeLessThan(lastFirstDelta);
      for (const call of calls) expect(call.started - call.stop).toBeLessThan(SLACK_MS);
      expect(roundEnd).toBeGreaterThanOrEqual(lowerBound);
      expect(roundEnd - lowerBound).toBeLessThanOrEqual(SLACK_MS);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 2. runAgentTurn end to end

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

describe("runAgentTurn over HTTP against the sim, with tools", () => {
  it("two rounds; every tool once, results in call order; the second request sends the first response's items back as they came", async () => {
    const log: string[] = [];
    await withSim(
      { policy: shopPolicy, pacing: { fast: true }, log: (l) => log.push(l) },
      async (sim) => {
        const bodies: ResponseCreateParamsStreaming[] = [];
        const { executor, runs } = recordingTools(5);
        const events: AgentEvent[] = [];
        const turn = await runAgentTurn({
          model: responsesFor(sim, {
            bodies,
            params: { reasoning: { effort: "low", summary: "auto" } },
          }),
          executor,
          system: "You are a shop assistant.",
          messages: [{ role: "user", content: "Add the red shoes, total, and search." }],
          sink: (e) => events.push(e),
        });
        expect(turn.error).toBeUndefined();
        expect(turn.stopReason).toBe("end_turn");
        expect(turn.rounds).toHaveLength(2);
        expect(validateConversation(turn.messages)).toEqual([]);
        // Every tool once, in call order in the results.
        const assistant = turn.messages[1];
        if (assistant?.role !== "assistant") throw new Error("no assistant message");
        expect(assistant.content.map((b) => b.type)).toEqual([
          "openai_reasoning",
          "text",
          "tool_use",
          "tool_use",
          "tool_use",
        ]);
        const calls = assistant.content.flatMap((b) => (b.type === "tool_use" ? [b] : []));
        expect(runs.map((r) => r.callId).sort()).toEqual(calls.map((c) => c.id).sort());
        expect(runs.map((r) => r.input)).toEqual(calls.map((c) => c.input));
        const results = events.flatMap((e) => (e.type === "tool-result" ? [e.callId] : []));
        expect(results).toEqual(calls.map((c) => c.id));
        expect(turn.messages.at(-1)).toMatchObject({
          role: "assistant",
          // A reasoning effort: each answer starts with its reasoning item.
          content: [{ type: "openai_reasoning" }, { type: "text", text: "All done." }],
        });
        // The requests: instructions, store false, encrypted reasoning included, strict false.
        expect(bodies).toHaveLength(2);
        for (const body of bodies) {
          expect(body).toMatchObject({
            model: MODEL,
            instructions: "You are a shop assistant.",
            store: false,
            include: ["reasoning.encrypted_content"],
            stream: true,
          });
          expect(body.tools?.every((t) => t.type === "function" && t.strict === false)).toBe(true);
        }
        // The second request: the first response's items (reasoning whole, ids kept), then the
        // outputs by call_id.
        const second = bodies[1]!.input as unknown as Array<Record<string, unknown>>;
        expect(second.map((i) => i.type ?? i.role)).toEqual([
          "user",
          "reasoning",
          "message",
          "function_call",
          "function_call",
          "function_call",
          "function_call_output",
          "function_call_output",
          "function_call_output",
        ]);
        expect(second.slice(1, 6)).toEqual(toResponsesInput([assistant]));
        expect(second[1]).toEqual((assistant.content[0] as { item: unknown }).item);
        expect(second[3]).toMatchObject({
          id: expect.stringMatching(/^fc_/),
          call_id: calls[0]!.id,
        });
        expect(second.slice(6).map((i) => i.call_id)).toEqual(calls.map((c) => c.id));
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      },
    );
  });

  it("client tools and the provider's web search in one request: both sent; the search is a server-tool, never run; its item and the text's annotations go back in place", async () => {
    const log: string[] = [];
    await withSim(
      { policy: shopPolicy, pacing: { fast: true }, log: (l) => log.push(l) },
      async (sim) => {
        const bodies: ResponseCreateParamsStreaming[] = [];
        const { executor, runs } = recordingTools(5);
        const events: AgentEvent[] = [];
        const turn = await runAgentTurn({
          model: responsesFor(sim, {
            bodies,
            fault: "web-search",
            params: { reasoning: { effort: "low" } },
            providerTools: [{ type: "web_search" }],
          }),
          executor,
          messages: [{ role: "user", content: "Add the red shoes, total, and search." }],
          sink: (e) => events.push(e),
        });
        expect(turn.error).toBeUndefined();
        expect(turn.stopReason).toBe("end_turn");
        expect(validateConversation(turn.messages)).toEqual([]);
        for (const body of bodies) {
          expect(body.tools?.map((t) => t.type)).toEqual([
            ...executor.specs().map(() => "function"),
            "web_search",
          ]);
        }
        const assistant = turn.messages[1];
        if (assistant?.role !== "assistant") throw new Error("no assistant message");
        expect(assistant.content.map((b) => b.type)).toEqual([
          "openai_reasoning",
          "server_tool_use",
          "openai_tool_result",
          "text",
          "tool_use",
          "tool_use",
          "tool_use",
        ]);
        const [, call, result, text] = assistant.content;
        expect(call).toMatchObject({
          type: "server_tool_use",
          id: expect.stringMatching(/^ws_/),
          name: "web_search",
          input: { action: { type: "search", query: "Add the red shoes, total, and search." } },
        });
        expect(result).toMatchObject({
          type: "openai_tool_result",
          content: { type: "web_search_call", status: "completed" },
        });
        const citations = text?.type === "text" ? text.citations : undefined;
        expect(citations?.map((c) => c.type)).toEqual(["url_citation", "url_citation"]);
        // Shown, never run: the executor ran the three client calls only.
        expect(runs).toHaveLength(3);
        const server = events.flatMap((e) => (e.type === "server-tool" ? [e] : []));
        expect(server.map((e) => [e.round, e.phase, e.name])).toEqual([
          [1, "call", "web_search"],
          [1, "result", "openai_tool_result"],
          [2, "call", "web_search"],
          [2, "result", "openai_tool_result"],
        ]);
        // The second request: the reasoning, the search item as received, the cited message.
        const second = bodies[1]!.input as unknown as Array<Record<string, unknown>>;
        expect(second.slice(1, 4)).toEqual([
          (assistant.content[0] as { item: unknown }).item,
          result?.type === "openai_tool_result" ? result.content : undefined,
          expect.objectContaining({
            type: "message",
            content: [expect.objectContaining({ annotations: citations })],
          }),
        ]);
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// 3. The sim as a strict peer

const DANGLING: Message[] = [
  { role: "user", content: "Add the red shoes." },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Adding them." },
      { type: "tool_use", id: "call_dangling_01", name: "add_to_cart", input: { sku: "SHOE-42" } },
    ],
  },
  { role: "user", content: "Actually, never mind." },
];

describe("the sim is a strict peer for the Responses API", () => {
  it("a dangling call is a 400 (through the SDK and through overlap); the repaired conversation is accepted", async () => {
    await withSim({ policy: shopPolicy, pacing: { fast: true } }, async (sim) => {
      const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "test", maxRetries: 0 });
      const error = await client.responses
        .create({ model: MODEL, input: toResponsesInput(DANGLING) })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
        "No tool output found for function call call_dangling_01.",
      );
      const { executor } = recordingTools(5);
      const round = new StreamedRound({ executor, sink: () => {} });
      const signal = new AbortController().signal;
      const result = await round.relay(
        responsesFor(sim).stream({ messages: DANGLING, tools: executor.specs() }, { signal }),
      );
      expect(result.error?.code).toBe("provider_error");
      expect(result.error?.details).toMatchObject({ status: 400, type: "invalid_request_error" });
      const repaired = await client.responses.create({
        model: MODEL,
        input: toResponsesInput(repairConversation(DANGLING)),
      });
      expect(repaired.status).toBe("completed");
    });
  });

  it("after an abort mid-round (several points) the repaired conversation is accepted", async () => {
    const points: Array<{ name: string; when: (e: AgentEvent) => boolean; delayMs?: number }> = [
      { name: "before any content", when: (e) => e.type === "round-start" },
      { name: "mid-text", when: (e) => e.type === "text-delta" },
      {
        name: "first tool running",
        when: (e) => e.type === "tool-status" && e.status === "running",
        delayMs: 1,
      },
      {
        name: "mid last call's arguments",
        when: (e) => e.type === "tool-input-preview" && e.name === "search",
      },
      {
        name: "during the join",
        when: (e) => e.type === "tool-call" && e.name === "search",
        delayMs: 20,
      },
    ];
    const log: string[] = [];
    await withSim(
      { policy: shopPolicy, pacing: { fast: true }, log: (l) => log.push(l) },
      async (sim) => {
        const params = { reasoning: { effort: "low" } };
        for (const point of points) {
          const { executor } = recordingTools(60);
          const { sink, signal, fired } = abortAt(point);
          const first = await runAgentTurn({
            model: responsesFor(sim, { params }),
            executor,
            messages: [{ role: "user", content: `Aborted turn: ${point.name}.` }],
            sink,
            signal,
          });
          expect(fired(), point.name).toBe(true);
          expect(first.error?.code, point.name).toBe("aborted");
          expect(validateConversation(first.messages), point.name).toEqual([]);
          await nextTurnSucceeds(
            responsesFor(sim, { params }),
            first.messages,
            point.name,
            recordingTools(5).executor,
          );
        }
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      },
    );
  });
});
