/**
 * `anthropicModel` against overlap-sim's Messages API, through real HTTP and the official
 * `@anthropic-ai/sdk`: the shared adapter conformance suite, and what only the Messages API has.
 *
 * The reference is the SDK's own accumulation (`messages.stream().finalMessage()`, or its
 * `currentMessage` where it rejects the stream) of the same bytes: the sim derives one seed per
 * request from its own seed and the request body, so both requests send an identical body
 * (checked) and get byte-identical responses (checked).
 *
 * Normalisation: the SDK's final message is compared by `content` (after a JSON round trip, which
 * drops the SDK's non-enumerable `__json_buf` bookkeeping) and `stop_reason`; its envelope (id,
 * model, usage...) has no place in an assistant message (token counts are compared apart). A call
 * is complete where its `content_block_stop` is in the bytes.
 *
 * Where the SDK cannot give the message, it says so: its finalMessage() rejects `invalid-json`
 * (its partial-JSON parser throws on `, }`) and reads a call cut by `max_tokens` tolerantly.
 */

import Anthropic from "@anthropic-ai/sdk";
import type { SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { SseDecoder } from "../../sse/sse-decoder.js";
import {
  type AdapterHarness,
  type AdapterSetup,
  bothSides,
  registerAdapterConformance,
  THREE_CALLS,
} from "../adapter-conformance.testkit.js";
import { type Capture, capturingFetch } from "../provider-sim.testkit.js";
import { anthropicModel, anthropicParams } from "./anthropic.js";

const MODEL = "scripted-conformance";

function anthropicClient(sim: SimServer, setup: AdapterSetup = {}) {
  return new Anthropic({
    baseURL: sim.url,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: {
      ...(setup.fault ? { "x-sim-fault": setup.fault } : {}),
      ...(setup.quirk ? { "x-sim-quirk": setup.quirk } : {}),
    },
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

/** Normalises the SDK's blocks: a JSON round trip (drops `__json_buf`, nothing else). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A block of the SDK's message as plain data. The SDK parses a call's input when it is read: input
 * it cannot parse (invalid-json) throws there, and the block is kept without it.
 */
function plainBlock(block: Anthropic.ContentBlock): Record<string, unknown> {
  try {
    return plain(block) as unknown as Record<string, unknown>;
  } catch {
    return block.type === "tool_use" ? { type: block.type, id: block.id, name: block.name } : {};
  }
}

/** The block indexes whose content_block_stop is in an SSE text. */
function stoppedIndexes(sse: string): Set<number> {
  const stopped = new Set<number>();
  const decoder = new SseDecoder((frame) => {
    const event = JSON.parse(frame.data) as { type: string; index?: number };
    if (event.type === "content_block_stop" && event.index !== undefined) stopped.add(event.index);
  });
  decoder.push(sse);
  decoder.end();
  return stopped;
}

/**
 * Where the faults cut THREE_CALLS' 36 frames (the fault fires after N frames): after
 * message_start; mid-text; mid add_to_cart arguments; after add_to_cart's stop; cart_total started
 * but not stopped; mid search arguments; every block stopped but no message_delta; no message_stop.
 */
const CUTS = [1, 5, 13, 18, 20, 27, 34, 35];

const harness: AdapterHarness = {
  seed: 20_240_611,
  model: (sim, setup = {}) =>
    anthropicModel({
      client: anthropicClient(sim, setup),
      model: MODEL,
      ...(setup.params ? { params: setup.params } : {}),
    }),
  async reference(sim, request, setup = {}) {
    const capture: Capture = { requests: [], responses: [] };
    const client = anthropicClient(sim, { ...setup, capture });
    const stream = client.messages.stream(
      anthropicParams(request, { model: MODEL, ...(setup.params ? { params: setup.params } : {}) }),
    );
    let error: unknown;
    const message = await stream.finalMessage().catch((err: unknown) => {
      error = err;
      return stream.currentMessage;
    });
    const bytes = (await capture.responses[0]) ?? "";
    const stopped = stoppedIndexes(bytes);
    const content = (message?.content ?? []).map(plainBlock);
    return {
      request: capture.requests[0] ?? "",
      response: bytes,
      error,
      content,
      stopReason: message?.stop_reason ?? undefined,
      usage: message && {
        input: message.usage.input_tokens,
        output: message.usage.output_tokens,
      },
      calls: content.flatMap((b, index) =>
        b.type === "tool_use"
          ? [
              {
                id: String(b.id),
                name: String(b.name),
                input: b.input,
                complete: stopped.has(index),
              },
            ]
          : [],
      ),
      text: content.flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join(""),
      frames: bytes.split("\n\n").filter((f) => f !== "").length,
    };
  },
  comparable: (message) => message.content,
  cuts: () => CUTS,
  expectCutReference(fault, _n, reference, label) {
    if (fault === "error-after") {
      expect(reference.error, label).toBeInstanceOf(Anthropic.APIError);
      expect(String(reference.error), label).toContain("overloaded_error");
    } else {
      expect(reference.error, label).toBeInstanceOf(Anthropic.AnthropicError);
    }
  },
  blockCount: (script) => script.blocks.length,
  invalidJson: { raw: '{"query": "red shoes", "filters": {"size": [41, 42], "inStock": true}, }' },
  maxTokens: { raw: '{"query": "red shoes", "filters": {' },
  statusErrors: [
    { fault: "429", status: 429, type: "rate_limit_error" },
    { fault: "529", status: 529, type: "overloaded_error" },
    { fault: "500", status: 500, type: "api_error" },
  ],
  refusal: true,
};

registerAdapterConformance("anthropicModel (Messages API)", harness);

// ---------------------------------------------------------------------------------------------
// The SDK's own reading where it differs from overlap's

describe("anthropicModel: where the Anthropic SDK reads the Messages API differently", () => {
  it("invalid-json: the SDK's partial-JSON parser rejects the message; ours keeps it (the shared case)", async () => {
    const { ours, reference } = await bothSides(harness, THREE_CALLS, { fault: "invalid-json" });
    // `{"query": …, "filters": {…}, }`: the SDK's finalMessage() fails on the trailing comma.
    expect(String(reference.error)).toMatch(/JSON/);
    expect(ours.error).toBeUndefined();
    expect(reference.content).toHaveLength(4);
  });

  it("max-tokens: the SDK keeps a tolerant partial input; ours keeps {} (the shared case)", async () => {
    const { ours, reference } = await bothSides(harness, THREE_CALLS, { fault: "max-tokens" });
    if (reference.error !== undefined) throw reference.error;
    // The cut arguments `{"query": "red shoes", "filters": {` read tolerantly by the SDK…
    const theirs = reference.calls.at(-1)!;
    expect(theirs.input).toEqual({ query: "red shoes", filters: {} });
    // …and strictly by overlap: exactly that one difference.
    const last = reference.content.at(-1) as Record<string, unknown>;
    expect(ours.assistant.content).toEqual(reference.content.with(-1, { ...last, input: {} }));
  });
});
