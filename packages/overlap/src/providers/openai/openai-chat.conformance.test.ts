/**
 * `openaiChatModel` against overlap-sim's Chat Completions API, through real HTTP and the official
 * `openai` SDK: the shared adapter conformance suite, the servers' quirks, and the sim's raw bytes
 * of each quirk replayed through ChatChunkTranslator in many chunkings.
 *
 * The reference is the SDK's own accumulation (`chat.completions.stream().finalChatCompletion()`,
 * or its snapshot where it rejects the stream) of the same bytes: both requests send an identical
 * body (checked) and get byte-identical responses (checked; the `created` timestamp aside).
 *
 * Normalisation: the SDK's `choices[0].message` becomes blocks: the text, then one tool_use per
 * call with `arguments` JSON-parsed (`""`, a call without parameters, means `{}`); `finish_reason`
 * is mapped to the Messages API stop reason (stop → end_turn, tool_calls → tool_use, length →
 * max_tokens). A call's end is synthesised (a later call starts, or `finish_reason`), so at a cut
 * the last call is complete only once `finish_reason` arrived.
 *
 * Where the SDK cannot give the message, the test says so and compares with the script instead:
 * the SDK keeps unparsed argument text (non-strict tools) and merges the `index-zero` quirk's
 * calls into one (it keys calls by index). Thinking and server tools have no Chat Completions
 * form: the sim leaves them out, and both sides must agree on what remains.
 */

import OpenAI from "openai";
import type { SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { BlockAssembler } from "../../stream/block-assembler.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { replayChatChunks, splitSeeded } from "../../testing/replay.js";
import {
  type AdapterHarness,
  type AdapterSetup,
  ASK,
  bothSides,
  registerAdapterConformance,
  THREE_CALLS,
} from "../adapter-conformance.testkit.js";
import {
  type Capture,
  capturingFetch,
  recordingTools,
  simRunner,
  toolUses,
} from "../provider-sim.testkit.js";
import { chatParams, openaiChatModel } from "./openai.js";

const SEED = 20_240_611;
const MODEL = "scripted-conformance";
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });

function openaiClient(sim: SimServer, setup: AdapterSetup = {}) {
  return new OpenAI({
    baseURL: `${sim.url}/v1`,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: {
      ...(setup.fault ? { "x-sim-fault": setup.fault } : {}),
      ...(setup.quirk ? { "x-sim-quirk": setup.quirk } : {}),
    },
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

/** `""` (no parameters) is `{}`; arguments that do not parse stay the raw string. */
function parseArguments(args: string): unknown {
  if (args === "") return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

interface ChatCallLike {
  id?: string | undefined;
  type?: string | undefined;
  function?: { name?: string | undefined; arguments?: string | undefined } | undefined;
}

/** The SDK's message as overlap's blocks (see the module comment). */
function chatBlocks(message: {
  content?: string | null | undefined;
  tool_calls?: ChatCallLike[] | undefined;
}): unknown[] {
  const blocks: unknown[] = [];
  if (message.content) blocks.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.function?.name,
      input: parseArguments(call.function?.arguments ?? ""),
    });
  }
  return blocks;
}

const FINISH_TO_STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

/** `created` (Unix seconds) is the one field the sim does not derive from the seed. */
function withoutCreated(sse: string): string {
  return sse.replace(/"created":\d+/g, '"created":0');
}

/**
 * Where the faults cut THREE_CALLS' 30 frames: after the role chunk; mid-text; mid add_to_cart
 * arguments; add_to_cart's arguments complete (and parseable) but no later call yet; cart_total's
 * `{}` complete, search not started; mid search arguments; all arguments sent but no
 * finish_reason; after finish_reason; after the usage chunk (no `[DONE]`).
 */
const CUTS = [1, 4, 10, 15, 17, 22, 27, 28, 29];

const harness: AdapterHarness = {
  seed: SEED,
  model: (sim, setup = {}) =>
    openaiChatModel({
      client: openaiClient(sim, setup),
      model: MODEL,
      ...(setup.params ? { params: setup.params } : {}),
    }),
  async reference(sim, request, setup = {}) {
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, { ...setup, capture });
    const stream = client.chat.completions.stream(
      chatParams(request, { model: MODEL, ...(setup.params ? { params: setup.params } : {}) }),
    );
    let error: unknown;
    const final = await stream.finalChatCompletion().catch((err: unknown) => {
      error = err;
      return undefined;
    });
    const completion = final ?? stream.currentChatCompletionSnapshot;
    const bytes = (await capture.responses[0]) ?? "";
    const choice = completion?.choices[0];
    const message = choice?.message ?? {};
    const finish = choice?.finish_reason ?? undefined;
    const toolCalls = (message.tool_calls ?? []) as ChatCallLike[];
    return {
      request: capture.requests[0] ?? "",
      response: bytes,
      error,
      content: chatBlocks(message),
      stopReason: finish === undefined ? undefined : FINISH_TO_STOP[finish],
      usage: final?.usage && {
        input: final.usage.prompt_tokens,
        output: final.usage.completion_tokens,
      },
      calls: toolCalls.map((call, i) => ({
        id: call.id,
        name: String(call.function?.name),
        raw: call.function?.arguments,
        input: parseArguments(call.function?.arguments ?? ""),
        // The last call ends only with finish_reason (never because its arguments parse).
        complete: finish !== undefined || i < toolCalls.length - 1,
      })),
      text: message.content ?? "",
      frames: bytes.split("\n\n").filter((f) => f !== "").length,
    };
  },
  comparable: (message) => message.content,
  sameBytes: withoutCreated,
  cuts: () => CUTS,
  expectCutReference(fault, _n, reference, label) {
    if (fault === "error-after") expect(reference.error, label).toBeInstanceOf(OpenAI.APIError);
    else expect(reference.error, label).toBeInstanceOf(OpenAI.OpenAIError);
  },
  extraComplete: [
    { name: "quirk whole-call", script: THREE_CALLS, setup: { quirk: "whole-call" } },
    { name: "quirk no-args (arguments omitted)", script: THREE_CALLS, setup: { quirk: "no-args" } },
    { name: "quirk no-args=empty", script: THREE_CALLS, setup: { quirk: "no-args=empty" } },
  ],
  // The SDK keeps the arguments of non-strict tools as received.
  invalidJson: { raw: '{"query":"red shoes","filters":{"size":[41,42],"inStock":true}, }' },
  maxTokens: { raw: '{"query":"red shoes","filters":' },
  statusErrors: [
    { fault: "429", status: 429 },
    { fault: "529", status: 529 },
    { fault: "500", status: 500 },
  ],
  refusal: true,
};

registerAdapterConformance("openaiChatModel (Chat Completions)", harness);

// ---------------------------------------------------------------------------------------------
// The servers' quirks

describe("openaiChatModel: Chat Completions servers' quirks", () => {
  it("quirk index-zero: the SDK merges every call into one (it keys calls by index); ours keeps the three calls of the script", async () => {
    const { ours, runs, reference } = await bothSides(harness, THREE_CALLS, {
      quirk: "index-zero",
    });
    if (reference.error !== undefined) throw reference.error;
    const ids = [...(reference.response ?? "").matchAll(/"id":"(call_[^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(3);
    // Compared with the script instead of the SDK, which cannot represent this stream.
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("tool_use");
    expect(ours.assistant.content).toEqual([
      THREE_CALLS.blocks[0],
      ...THREE_CALLS.blocks.slice(1).map((b, i) => ({ ...b, id: ids[i] })),
    ]);
    expect(runs.map((r) => [r.callId, r.name])).toEqual([
      [ids[0], "add_to_cart"],
      [ids[1], "cart_total"],
      [ids[2], "search"],
    ]);
    // The SDK's view, for the record: one call with the last id and name, arguments concatenated.
    expect(reference.calls).toHaveLength(1);
    expect(reference.calls[0]).toMatchObject({
      id: ids[2],
      name: "search",
      raw: '{"sku":"SHOE-42","qty":2,"note":"gift"}{}{"query":"red shoes","filters":{"size":[41,42],"inStock":true}}',
    });
    expect(ours.outcomes.map((o) => o.callId)).toEqual(ids);
  });

  // Interleaved fragments (all calls started in one chunk, then their arguments side by side): a
  // call completes only once a chunk brings nothing more for it, so no argument is lost. Calls
  // may then start in another order than the call order (each starts when complete); each runs
  // once with its full input, and results still come back in call order.
  it("quirk multi-call-chunk: the same text, calls and stop reason as the SDK", async () => {
    const { ours, runs, reference } = await bothSides(harness, THREE_CALLS, {
      quirk: "multi-call-chunk",
    });
    if (reference.error !== undefined) throw reference.error;
    expect(ours.error).toBeUndefined();
    expect(ours.assistant.content).toEqual(reference.content);
    expect(ours.stopReason).toBe(reference.stopReason);
    const sorted = (inputs: unknown[]) => inputs.map((i) => JSON.stringify(i)).sort();
    expect(sorted(runs.map((r) => r.input))).toEqual(
      sorted(THREE_CALLS.blocks.flatMap((b) => (b.type === "tool_use" ? [b.input] : []))),
    );
    expect(ours.outcomes.map((o) => o.callId)).toEqual(
      toolUses(ours.assistant.content).map((b) => b.id),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The sim's raw bytes in many chunkings

function assemble(events: readonly StreamEvent[]) {
  const assembler = new BlockAssembler();
  const reports = events.flatMap((e) => [...assembler.push(e)]);
  const end = reports.find((r) => r.type === "message-end");
  if (end?.type !== "message-end") throw new Error("the message never ended");
  const calls = reports.flatMap((r) => (r.type === "tool-call" ? [r.callId] : []));
  return { message: end.message, stopReason: end.stopReason, calls };
}

const CHUNKINGS = 40;

/** Records the sim's raw SSE for a quirk (fetch) and the SDK's accumulation of the same bytes. */
async function recordQuirk(quirk: string) {
  return withSim({ policy: () => THREE_CALLS }, async (sim) => {
    const { executor } = recordingTools();
    const params = chatParams({ messages: [ASK], tools: executor.specs() }, { model: MODEL });
    const headers: Record<string, string> = quirk ? { "x-sim-quirk": quirk } : {};
    const response = await fetch(`${sim.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(params),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, { quirk, capture });
    const completion = await client.chat.completions.stream(params).finalChatCompletion();
    expect(capture.requests[0]).toBe(JSON.stringify(params));
    expect(withoutCreated(await capture.responses[0]!)).toBe(withoutCreated(text));
    return { text, completion };
  });
}

describe("Chat Completions quirks: the sim's raw SSE through ChatChunkTranslator in many chunkings", () => {
  const quirks = ["", "index-zero", "whole-call", "multi-call-chunk", "no-args", "no-args=empty"];

  for (const quirk of quirks) {
    it(`${quirk || "no quirk"}: the same message, stop reason and call order in ${CHUNKINGS} chunkings`, async () => {
      const { text } = await recordQuirk(quirk);
      const whole = assemble(replayChatChunks([text]));
      for (let seed = 1; seed <= CHUNKINGS; seed++) {
        const pieces = splitSeeded(text, seed, 1 + (seed % 8) * 13);
        expect(pieces.length).toBeGreaterThan(1);
        expect(assemble(replayChatChunks(pieces)), `seed ${seed}`).toEqual(whole);
      }
    });
  }

  for (const quirk of ["", "whole-call", "no-args", "no-args=empty", "multi-call-chunk"]) {
    it(`${quirk || "no quirk"}: equals the SDK's finalChatCompletion()`, async () => {
      const { text, completion } = await recordQuirk(quirk);
      const choice = completion.choices[0]!;
      const ours = assemble(replayChatChunks(splitSeeded(text, 7, 29)));
      expect(ours.message.content).toEqual(chatBlocks(choice.message));
      expect(ours.stopReason).toBe(FINISH_TO_STOP[choice.finish_reason]);
    });
  }

  it("index-zero: the SDK cannot represent it; equals the script (ids from the stream)", async () => {
    const { text, completion } = await recordQuirk("index-zero");
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1); // the SDK's merge
    const ids = [...text.matchAll(/"id":"(call_[^"]+)"/g)].map((m) => m[1]);
    const ours = assemble(replayChatChunks(splitSeeded(text, 11, 17)));
    expect(ours.message.content).toEqual([
      THREE_CALLS.blocks[0],
      ...THREE_CALLS.blocks.slice(1).map((b, i) => ({ ...b, id: ids[i] })),
    ]);
    expect(ours.calls).toEqual(ids);
    expect(ours.stopReason).toBe("tool_use");
  });
});
