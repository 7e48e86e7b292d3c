/**
 * `openaiResponsesModel` against overlap-sim's `POST /v1/responses`, through real HTTP and the
 * official `openai` SDK: the shared adapter conformance suite, and what only the Responses API has.
 *
 * The reference is the SDK's own accumulation (`responses.stream().finalResponse()`) of the same
 * bytes: the sim derives one seed per request from its own seed and the request body; both
 * requests send an identical body (checked) to a sim with a fixed seed, so the responses are
 * byte-identical (checked; `created_at` aside).
 *
 * Normalisation, where the shapes differ: the SDK's output items become overlap's blocks (a
 * reasoning item → `openai_reasoning` with the item; each message part → a text block with the
 * item's `id` and other fields in `openai_item`, its annotations as citations; a function call →
 * tool_use with `call_id` as id, `JSON.parse` of its arguments as input, its `id` in
 * `openai_item`; a web search item → a server_tool_use with its action as input and an
 * `openai_tool_result` holding the item), after dropping the `parsed` / `parsed_arguments` fields
 * the SDK's parser adds. The response's status gives the stop reason (incomplete → max_tokens;
 * completed → tool_use when it called a function, refusal when it refused, else end_turn). The SDK
 * keeps argument text it cannot parse; overlap keeps `{}` and answers the call with an
 * `invalid_input` error. At a cut, the SDK's events tell which calls' arguments were done.
 */

import OpenAI from "openai";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { type SimServer, sealedItemId } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../agent/model-client.js";
import { StreamedRound } from "../../round/streamed-round.js";
import {
  type AdapterHarness,
  type AdapterSetup,
  ASK,
  type ReferenceCall,
  registerAdapterConformance,
  TEXT_ONLY,
  THINKING,
  THREE_CALLS,
} from "../adapter-conformance.testkit.js";
import {
  type Capture,
  capturingFetch,
  neverAborted,
  recordingTools,
  simRunner,
} from "../provider-sim.testkit.js";
import { openaiResponsesModel, responsesParams } from "./openai-responses.js";

const SEED = 20_260_101;
const MODEL = "scripted-responses";
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });
/** Reasoning with a summary, its encrypted content included (the adapter asks for it). */
const REASONING = { reasoning: { effort: "low", summary: "auto" } };

function openaiClient(sim: SimServer, setup: AdapterSetup = {}): OpenAI {
  return new OpenAI({
    baseURL: `${sim.url}/v1`,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: setup.fault ? { "x-sim-fault": setup.fault } : {},
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

const optionsOf = (setup: AdapterSetup) => ({
  model: MODEL,
  ...(setup.params ? { params: setup.params } : {}),
});

/** `created_at` (Unix seconds) is the one field the sim does not derive from the seed. */
function withoutCreatedAt(sse: string): string {
  return sse.replace(/"created_at":\d+/g, '"created_at":0');
}

/** An item without the fields the SDK's parser adds (`parsed`, `parsed_arguments`). */
function unparsed(item: unknown): Record<string, unknown> {
  const { parsed_arguments: _a, ...rest } = JSON.parse(JSON.stringify(item)) as Record<
    string,
    unknown
  >;
  if (Array.isArray(rest.content)) {
    rest.content = rest.content.map((part: Record<string, unknown>) => {
      const { parsed: _p, ...kept } = part;
      return kept;
    });
  }
  return rest;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The SDK's output items as overlap's blocks (see the module comment). */
function responseBlocks(output: readonly unknown[]): unknown[] {
  return output.flatMap((raw): unknown[] => {
    const item = unparsed(raw);
    if (item.type === "reasoning") return [{ type: "openai_reasoning", item }];
    if (item.type === "message") {
      const { type: _t, status: _s, role: _r, content, ...fields } = item;
      return (
        content as Array<{ type: string; text?: string; refusal?: string; annotations?: [] }>
      ).map((part) => ({
        type: "text",
        text: part.type === "refusal" ? part.refusal : part.text,
        openai_item: fields,
        ...(part.annotations?.length ? { citations: part.annotations } : {}),
      }));
    }
    if (item.type === "function_call") {
      return [
        {
          type: "tool_use",
          id: item.call_id,
          name: item.name,
          input: parseArguments(String(item.arguments)),
          openai_item: { id: item.id },
        },
      ];
    }
    // A provider-side item (the sim's web_search_call): its call, then the item whole.
    return [
      {
        type: "server_tool_use",
        id: item.id,
        name: String(item.type).replace(/_call$/, ""),
        input: { action: item.action },
      },
      { type: "openai_tool_result", tool_use_id: item.id, content: item },
    ];
  });
}

function stopReasonOf(response: Response): string {
  if (response.status === "incomplete") return "max_tokens";
  if (response.output.some((i) => i.type === "function_call")) return "tool_use";
  const refused = response.output.some(
    (i) => i.type === "message" && i.content.some((p) => p.type === "refusal"),
  );
  return refused ? "refusal" : "end_turn";
}

/** The calls as the SDK's events show them: begun at `output_item.added`, complete at `.done`. */
function callsOf(events: readonly ResponseStreamEvent[], response?: Response): ReferenceCall[] {
  const calls = new Map<string, ReferenceCall>();
  for (const event of events) {
    if (event.type === "response.output_item.added" && event.item.type === "function_call") {
      calls.set(event.item.id ?? "", {
        id: event.item.call_id,
        name: event.item.name,
        input: undefined,
        complete: false,
      });
    }
    if (event.type === "response.function_call_arguments.done") {
      const call = calls.get(event.item_id);
      if (call)
        Object.assign(call, {
          raw: event.arguments,
          input: parseArguments(event.arguments),
          complete: true,
        });
    }
  }
  // A call cut by the token limit ends with its done item, without `arguments.done`.
  for (const item of response?.output ?? []) {
    if (item.type !== "function_call") continue;
    const call = calls.get(item.id ?? "");
    if (call && call.raw === undefined) call.raw = item.arguments;
  }
  return [...calls.values()];
}

const harness: AdapterHarness = {
  seed: SEED,
  model: (sim, setup = {}) =>
    openaiResponsesModel({ client: openaiClient(sim, setup), ...optionsOf(setup) }),
  async reference(sim, request: ModelRequest, setup = {}) {
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, { ...setup, capture });
    const events: ResponseStreamEvent[] = [];
    // The adapter's own body; `stream: true` is what the SDK's stream() adds (same place, last).
    const stream = client.responses.stream({
      ...responsesParams(request, optionsOf(setup)),
      stream: true,
    });
    stream.on("event", (event) => events.push(event));
    let response: Response | undefined;
    let error: unknown;
    try {
      response = await stream.finalResponse();
    } catch (err) {
      error = err;
    }
    const bytes = (await capture.responses[0]) ?? "";
    return {
      request: capture.requests[0] ?? "",
      response: bytes,
      error,
      content: response ? responseBlocks(response.output) : [],
      stopReason: response && stopReasonOf(response),
      usage: response?.usage && {
        input: response.usage.input_tokens,
        output: response.usage.output_tokens,
      },
      calls: callsOf(events, response),
      text: events
        .flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []))
        .join(""),
      frames: bytes.split("\n\n").filter((f) => f !== "").length,
    };
  },
  comparable: (message) => message.content,
  sameBytes: withoutCreatedAt,
  cuts: (frames) => [...Array(frames).keys()].slice(1),
  expectCutReference(fault, _n, reference, label) {
    if (fault === "error-after") expect(reference.error, label).toBeInstanceOf(OpenAI.APIError);
    else expect(reference.error, label).toBeInstanceOf(OpenAI.OpenAIError);
  },
  // A reasoning effort adds a reasoning item first.
  blockCount: (script, setup) => script.blocks.length + (setup.params ? 1 : 0),
  extraComplete: [
    {
      name: "reasoning asked for (summary, encrypted content)",
      script: THREE_CALLS,
      setup: { params: REASONING },
    },
    {
      name: "reasoning asked for, without a summary",
      script: TEXT_ONLY,
      setup: { params: { reasoning: { effort: "medium" } } },
    },
  ],
  invalidJson: { raw: '{"query":"red shoes","filters":{"size":[41,42],"inStock":true}, }' },
  maxTokens: { raw: '{"query":"red shoes","filters":' },
  statusErrors: [
    { fault: "429", status: 429 },
    { fault: "529", status: 529 },
    { fault: "500", status: 500 },
  ],
  // A reasoning item first (kept whole), the web_search_call item (a server_tool_use and the
  // item), the cited text.
  thinkingWebSearch: [
    "openai_reasoning",
    "server_tool_use",
    "openai_tool_result",
    "text",
    "tool_use",
    "tool_use",
    "tool_use",
  ],
  refusal: true,
  // Reasoning items go back in place: the strict peer checks them.
  turnParams: REASONING,
};

registerAdapterConformance("openaiResponsesModel", harness);

// ---------------------------------------------------------------------------------------------
// The Responses API's own

describe("openaiResponsesModel: what only the Responses API has", () => {
  it("the streamed message equals the non-streaming response of the same request", async () => {
    await withSim({ policy: () => THINKING }, async (sim) => {
      const client = openaiClient(sim);
      const { executor } = recordingTools();
      const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
      const options = { model: MODEL, params: REASONING };
      const whole = await client.responses.create(responsesParams(request, options));
      const round = new StreamedRound({ executor, sink: () => {} });
      const ours = await round.relay(
        openaiResponsesModel({ client, ...options }).stream(request, { signal: neverAborted() }),
      );
      // Different requests (stream or not) get different ids: compare without them.
      const anonymous = (blocks: unknown) =>
        JSON.parse(
          JSON.stringify(blocks)
            .replace(/"(rs|msg|fc|call)_[0-9A-Za-z]+"/g, '"$1_"')
            .replace(/"encrypted_content":"[^"]+"/g, '"encrypted_content":"sealed"'),
        );
      expect(anonymous(ours.assistant.content)).toEqual(anonymous(responseBlocks(whole.output)));
      // Each reasoning item's encrypted content is sealed with its own id.
      for (const block of ours.assistant.content) {
        if (block.type !== "openai_reasoning") continue;
        expect(sealedItemId(String(block.item.encrypted_content))).toBe(block.item.id);
      }
    });
  });
});
