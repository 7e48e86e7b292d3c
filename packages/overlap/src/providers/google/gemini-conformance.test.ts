/**
 * `geminiModel` against overlap-sim's Gemini endpoint, through real HTTP.
 *
 * The official SDK (`@google/genai`) needs Node 22 and this repository runs on Node 20, so there
 * is no SDK accumulation to compare with: the reference is an independent accumulation of the
 * very bytes the scripted model sent, written here from the API's documented shape (each SSE
 * `data:` line one `GenerateContentResponse`; the response's parts are the concatenation of every
 * chunk's `candidates[0].content.parts`; consecutive text parts of the same kind are one text).
 * Our side is the assembled message sent back through `toGeminiContents`: the parts overlap would
 * return must be the parts the API produced (signatures on the same parts), and the stop reason
 * and usage must follow the last chunk.
 *
 * Same bytes: the sim derives one seed per request from its own seed and the body, so a raw fetch
 * with the body our adapter sent (captured) gets byte-identical answers (checked).
 *
 * Also here: every fault kind; eager timing over a paced stream (the first of three calls runs
 * before the last call's chunk arrives); an interruption after every chunk leaves a conversation
 * the strict scripted model accepts; runAgentTurn end to end.
 */

import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../agent/model-client.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import type { AgentEvent } from "../../protocol/agent-event.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { Message, UserMessage } from "../../stream/message.js";
import {
  abortAt,
  answerAfterResults,
  type Capture,
  capturingFetch,
  expectEveryInterruptionRecovers,
  expectValidContinuation,
  neverAborted,
  nextTurnSucceeds,
  readAll,
  recordingTools,
  simRunner,
  TIMED_CALLS,
  TIMED_PACING,
  timedRound,
  toolUses,
} from "../provider-sim.testkit.js";
import { geminiModel, geminiRequestBody, geminiStreamUrl, toGeminiContents } from "./google.js";

const SEED = 20_250_917;
const MODEL = "scripted-gemini";
const ASK: UserMessage = { role: "user", content: "Please do the scripted thing." };
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });

const TEXT_ONLY: SimScript = {
  blocks: [
    {
      type: "text",
      text: "Here is a plain answer, long enough to arrive in many chunks: café, naïve, 你好, 🎉 and done.",
    },
  ],
};

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

const THINKING: SimScript = {
  blocks: [
    { type: "thinking", thinking: "The user wants shoes. I will add them, then answer briefly." },
    { type: "text", text: "Adding them now." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 1 } },
  ],
};

// ---------------------------------------------------------------------------------------------
// Helpers

function modelFor(
  sim: SimServer,
  setup: { fault?: string; quirk?: string; capture?: Capture } = {},
) {
  return geminiModel({
    model: MODEL,
    apiKey: "test",
    baseUrl: sim.url,
    maxRetries: 0,
    headers: {
      ...(setup.fault ? { "x-sim-fault": setup.fault } : {}),
      ...(setup.quirk ? { "x-sim-quirk": setup.quirk } : {}),
    },
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

type Json = Record<string, unknown>;

/**
 * The independent accumulation: the SSE text's `data:` payloads (written by the sim one per
 * frame, no `event:` field, no multi-line data) parsed as JSON.
 */
function sseChunks(text: string): Json[] {
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      expect(frame.startsWith("data: ")).toBe(true);
      return JSON.parse(frame.slice("data: ".length)) as Json;
    });
}

interface Accumulated {
  parts: Json[];
  finishReason: unknown;
  usage: Json | undefined;
}

function accumulate(chunks: readonly Json[]): Accumulated {
  const parts: Json[] = [];
  let finishReason: unknown;
  let usage: Json | undefined;
  for (const chunk of chunks) {
    const candidate = (chunk.candidates as Json[] | undefined)?.[0];
    const content = candidate?.content as Json | undefined;
    parts.push(...(((content?.parts as Json[] | undefined) ?? []) as Json[]));
    if (candidate?.finishReason !== undefined) finishReason = candidate.finishReason;
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata as Json;
  }
  return { parts: mergeParts(parts), finishReason, usage };
}

/**
 * The documented equivalence of parts: consecutive text parts of the same kind (thought or not)
 * are one text; a signature belongs to the text it came with (never two in one text); an empty
 * text part without a signature says nothing.
 */
function mergeParts(parts: readonly Json[]): Json[] {
  const out: Json[] = [];
  for (const part of parts) {
    if (part.text === "" && part.thoughtSignature === undefined) continue;
    const last = out.at(-1);
    const mergeable =
      last !== undefined &&
      typeof last.text === "string" &&
      typeof part.text === "string" &&
      (last.thought === true) === (part.thought === true) &&
      !(last.thoughtSignature !== undefined && part.thoughtSignature !== undefined);
    if (mergeable) {
      last.text = `${String(last.text)}${String(part.text)}`;
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
    } else {
      out.push({ ...part });
    }
  }
  return out;
}

const STOP_OF_FINISH = (finish: unknown, calls: number) =>
  finish === "MAX_TOKENS"
    ? "max_tokens"
    : finish === "SAFETY"
      ? "refusal"
      : calls > 0
        ? "tool_use"
        : "end_turn";

/** Our round and a raw fetch of the same body, against one sim. */
async function bothSides(script: SimScript, setup: { fault?: string; quirk?: string } = {}) {
  return withSim({ policy: () => script }, async (sim) => {
    const capture: Capture = { requests: [], responses: [] };
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      modelFor(sim, { ...setup, capture }).stream(request, { signal: neverAborted() }),
    );
    const [ourBytes = ""] = await Promise.all(capture.responses);
    // The premise: the adapter sent exactly the mapped request; the same body gets the same bytes.
    expect(capture.requests).toEqual([JSON.stringify(geminiRequestBody(request))]);
    const raw = await fetch(geminiStreamUrl({ model: MODEL, baseUrl: sim.url }), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(setup.fault ? { "x-sim-fault": setup.fault } : {}),
        ...(setup.quirk ? { "x-sim-quirk": setup.quirk } : {}),
      },
      body: capture.requests[0],
    });
    const bytes = raw.body ? await readAll(raw.body) : "";
    expect(ourBytes).toBe(bytes);
    return { ours, runs, bytes };
  });
}

// ---------------------------------------------------------------------------------------------
// Conformance

describe("geminiModel against the scripted Gemini API: our message equals an independent accumulation of the same bytes", () => {
  const complete: Array<[string, SimScript, string | undefined]> = [
    ["text only", TEXT_ONLY, undefined],
    ["several tool calls", THREE_CALLS, undefined],
    ["thought parts", THINKING, undefined],
    ["several calls in one chunk (multi-call-chunk)", THREE_CALLS, "multi-call-chunk"],
  ];
  for (const [name, script, quirk] of complete) {
    it(`${name}: the same parts (signatures on the same parts), stop reason and usage`, async () => {
      const { ours, runs, bytes } = await bothSides(script, quirk ? { quirk } : {});
      const reference = accumulate(sseChunks(bytes));
      expect(reference.parts.length).toBeGreaterThan(0);
      expect(ours.error).toBeUndefined();
      const sentBack = toGeminiContents([ASK, ours.assistant])[1]?.parts ?? [];
      expect(mergeParts(sentBack)).toEqual(reference.parts);
      const calls = toolUses(ours.assistant.content);
      expect(calls.length).toBe(script.blocks.filter((b) => b.type === "tool_use").length);
      expect(ours.stopReason).toBe(STOP_OF_FINISH(reference.finishReason, calls.length));
      expect(ours.usage.input_tokens).toBe(reference.usage?.promptTokenCount);
      expect(ours.usage.output_tokens).toBe(
        Number(reference.usage?.candidatesTokenCount ?? 0) +
          Number(reference.usage?.thoughtsTokenCount ?? 0),
      );
      // Every call ran once, with its input, under a unique id.
      expect(runs.map((r) => ({ callId: r.callId, name: r.name, input: r.input }))).toEqual(
        calls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
      );
      expect(new Set(calls.map((b) => b.id)).size).toBe(calls.length);
      expectValidContinuation(ASK, ours, name);
    });
  }
});

describe("every fault kind", () => {
  /** How many chunks THREE_CALLS is on the wire. */
  async function chunkCount(): Promise<number> {
    const { bytes } = await bothSides(THREE_CALLS);
    return sseChunks(bytes).length;
  }

  for (const [fault, code] of [
    ["error-after", "stream_error"],
    ["drop-after", "stream_interrupted"],
  ] as const) {
    it(`${fault}=N for every N: the round reports ${code}, keeps exactly the calls that arrived, and leaves a valid continuation`, async () => {
      const total = await chunkCount();
      expect(total).toBeGreaterThan(5);
      for (let n = 0; n < total; n++) {
        const label = `${fault}=${n}`;
        const { ours, runs, bytes } = await bothSides(THREE_CALLS, { fault: `${fault}=${n}` });
        const arrived = sseChunks(bytes).filter((c) => c.error === undefined);
        expect(arrived, label).toHaveLength(n);
        expect(ours.error?.code, label).toBe(code);
        expect(ours.stopReason, label).toBe("error");
        const reference = accumulate(arrived);
        const referenceCalls = reference.parts.filter((p) => p.functionCall !== undefined);
        const calls = toolUses(ours.assistant.content);
        // A call is complete on arrival: every call that arrived is there with its input…
        expect(
          calls.map((b) => ({ name: b.name, args: b.input })),
          label,
        ).toEqual(referenceCalls.map((p) => p.functionCall));
        // …and only those ran, each with its own input (a call whose chunk came with the error
        // may be cancelled before it began: answered, never run).
        for (const run of runs) {
          expect(run.input, label).toEqual(calls.find((b) => b.id === run.callId)?.input);
        }
        expectValidContinuation(ASK, ours, label);
      }
    });
  }

  it("invalid-json: the API answers MALFORMED_FUNCTION_CALL; a stream error, the calls before it kept and run", async () => {
    const { ours, runs } = await bothSides(THREE_CALLS, { fault: "invalid-json" });
    expect(ours.error?.code).toBe("stream_error");
    expect(ours.error?.message).toContain("MALFORMED_FUNCTION_CALL");
    expect(toolUses(ours.assistant.content).map((b) => b.name)).toEqual([
      "add_to_cart",
      "cart_total",
    ]);
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectValidContinuation(ASK, ours, "invalid-json");
  });

  it("max-tokens: MAX_TOKENS, the cut call never arrives, the others ran", async () => {
    const { ours, runs } = await bothSides(THREE_CALLS, { fault: "max-tokens" });
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("max_tokens");
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectValidContinuation(ASK, ours, "max-tokens");
  });

  it("status=429|529|500: provider_error before the stream, with the HTTP status and Google's error status", async () => {
    for (const [status, http, type] of [
      ["429", 429, "RESOURCE_EXHAUSTED"],
      ["529", 503, "UNAVAILABLE"],
      ["500", 500, "INTERNAL"],
    ] as const) {
      await withSim({ policy: () => THREE_CALLS }, async (sim) => {
        const { executor, runs } = recordingTools();
        const round = new StreamedRound({ executor, sink: () => {} });
        const result = await round.relay(
          modelFor(sim, { fault: `status=${status}` }).stream(
            { messages: [ASK], tools: executor.specs() },
            { signal: neverAborted() },
          ),
        );
        expect(result.error?.code, status).toBe("provider_error");
        expect(result.error?.details, status).toMatchObject({ status: http, type });
        expect(result.assistant.content).toEqual([]);
        expect(runs).toEqual([]);
      });
    }
  });

  it("slow-first-byte, thinking and web-search: the answer arrives; thoughts kept; the search is grounding metadata (never sent back)", async () => {
    const slow = await bothSides(THREE_CALLS, { fault: "slow-first-byte=30" });
    expect(slow.ours.stopReason).toBe("tool_use");
    const thinking = await bothSides(THREE_CALLS, { fault: "thinking,web-search" });
    expect(thinking.ours.assistant.content.map((b) => b.type)).toEqual([
      "thinking",
      "text",
      "tool_use",
      "tool_use",
      "tool_use",
      "gemini_grounding_metadata",
    ]);
    expect(mergeParts(toGeminiContents([ASK, thinking.ours.assistant])[1]!.parts)).toEqual(
      accumulate(sseChunks(thinking.bytes)).parts,
    );
  });

  it("a refusal: SAFETY is stop reason refusal", async () => {
    const { ours } = await bothSides({
      blocks: [{ type: "text", text: "I cannot help with that." }],
      stopReason: "refusal",
    });
    expect(ours.stopReason).toBe("refusal");
  });
});

// ---------------------------------------------------------------------------------------------
// Eager timing over real HTTP

describe("eager dispatch through real HTTP (paced sim)", () => {
  it("each call runs the moment its chunk arrives: the first of three runs before the last call's chunk", async () => {
    await withSim(
      {
        policy: () => TIMED_CALLS,
        pacing: { fast: false, ...TIMED_PACING },
      },
      async (sim) => {
        const { runs, log, running, start } = await timedRound(modelFor(sim), 100);
        const callStarts = log.flatMap(({ at, event }) =>
          event.type === "content_block_start" && event.content_block.type === "tool_use"
            ? [{ at, index: event.index, id: event.content_block.id }]
            : [],
        );
        expect(callStarts).toHaveLength(3);
        const streamEnd = log.find((l) => l.event.type === "message_stop")!.at;
        expect(streamEnd - start).toBeGreaterThan(500);
        const firstRunning = Math.min(...running.map((r) => r.at));
        // Eager: the first tool is running before the last call's chunk even arrived.
        expect(firstRunning).toBeLessThan(callStarts[2]!.at);
        // And each call starts as its chunk arrives (start and stop together), not at the end.
        for (const call of callStarts) {
          const ran = runs.find((r) => r.callId === call.id)!;
          expect(ran.startedAt - call.at).toBeLessThan(25);
          expect(ran.startedAt).toBeLessThan(streamEnd);
        }
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The strict peer accepts what overlap leaves behind

/** Three calls for a new request; a short answer once the last user message holds results. */
const shopPolicy = answerAfterResults(THREE_CALLS);

describe("runAgentTurn over HTTP against the strict scripted Gemini API", () => {
  it("runs the tool round and the answer; the call keeps its thoughtSignature, which the API requires back", async () => {
    const log: string[] = [];
    await withSim({ policy: shopPolicy, log: (l) => log.push(l) }, async (sim) => {
      const { executor, runs } = recordingTools();
      const turn = await runAgentTurn({
        model: modelFor(sim),
        executor,
        messages: [{ role: "user", content: "Add the shoes, total, search." }],
        sink: () => {},
      });
      expect(turn.error).toBeUndefined();
      expect(turn.stopReason).toBe("end_turn");
      expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total", "search"]);
      const assistant = turn.messages[1];
      if (assistant?.role !== "assistant") throw new Error("no assistant message");
      const calls = toolUses(assistant.content);
      expect(calls[0]?.thoughtSignature).toMatch(/^Eq/);
      expect(calls.map((b) => b.id)).toEqual(
        calls.map((_, i) => expect.stringMatching(new RegExp(`^gemini-[\\w-]+-${i + 1}$`))),
      );
      const last = turn.messages.at(-1);
      expect(last?.role === "assistant" && last.content[0]).toMatchObject({
        type: "text",
        text: "All done.",
      });
      expect(log.filter((l) => / 4\d\d /.test(l))).toEqual([]);
      // Without the signature, the API (the sim, strictly) refuses the next request.
      const stripped = turn.messages.map((m) =>
        m.role === "assistant"
          ? {
              ...m,
              content: m.content.map((b) => {
                const { thoughtSignature: _s, ...rest } = b as typeof b & {
                  thoughtSignature?: string;
                };
                return rest;
              }),
            }
          : m,
      ) as Message[];
      const refused = await runAgentTurn({
        model: modelFor(sim),
        executor,
        messages: [...stripped.slice(0, 3)],
        sink: () => {},
      });
      expect(refused.error?.code).toBe("provider_error");
      expect(refused.error?.message).toContain("Function call is missing a thought_signature");
    });
  });

  it("an interruption after every chunk (drop and error) leaves a conversation the strict peer accepts", async () => {
    const log: string[] = [];
    await withSim({ policy: shopPolicy, log: (l) => log.push(l) }, async (sim) => {
      const probe = await fetch(geminiStreamUrl({ model: MODEL, baseUrl: sim.url }), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(
          geminiRequestBody({
            messages: [{ role: "user", content: "Interrupted turn." }],
            tools: recordingTools().executor.specs(),
          }),
        ),
      });
      const total = sseChunks(await probe.text()).length;
      await expectEveryInterruptionRecovers(
        total,
        (fault) => modelFor(sim, fault ? { fault } : {}),
        "Interrupted turn.",
      );
      expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
    });
  });

  it("an abort mid-round (as the first tool starts, mid-stream, during the join) leaves a conversation the strict peer accepts", async () => {
    const points: Array<{ name: string; when: (e: AgentEvent) => boolean; delayMs?: number }> = [
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
      { policy: shopPolicy, pacing: { fast: false, tokensPerSecond: 400, firstTokenMs: 5 } },
      async (sim) => {
        for (const point of points) {
          const { executor } = recordingTools(40);
          const { sink, signal, fired } = abortAt(point);
          const first = await runAgentTurn({
            model: modelFor(sim),
            executor,
            messages: [{ role: "user", content: `Aborted turn: ${point.name}.` }],
            sink,
            signal,
          });
          expect(fired(), point.name).toBe(true);
          expect(first.error?.code, point.name).toBe("aborted");
          await nextTurnSucceeds(
            modelFor(sim),
            first.messages,
            point.name,
            recordingTools().executor,
          );
        }
      },
    );
  });
});
