/**
 * Conformance of `openaiResponsesModel` with the official `openai` SDK, through real HTTP against
 * overlap-sim's `POST /v1/responses`: for every scenario the SDK's own accumulation
 * (`responses.stream().finalResponse()`) and the message overlap assembles (StreamedRound over
 * `openaiResponsesModel`) are built from the very same bytes, and must agree.
 *
 * Same bytes: the sim derives one seed per request from its own seed and the request body; both
 * requests send an identical body (checked) to a sim with a fixed seed, a policy answering the
 * same script every time and no pacing, so the responses are byte-identical (checked;
 * `created_at` aside).
 *
 * Normalisation, where the shapes differ: the SDK's output items become overlap's blocks (a
 * reasoning item → `openai_reasoning` with the item; each message part → a text block with the
 * item's `id` and other fields in `openai_item`, its annotations as citations; a function call →
 * tool_use with `call_id` as id, `JSON.parse` of its arguments as input, its `id` in
 * `openai_item`; a web search item → a server_tool_use with its action as input and an
 * `openai_tool_result` holding the item), after dropping the
 * `parsed` / `parsed_arguments` fields the SDK's parser adds. The response's status gives the
 * stop reason (incomplete → max_tokens; completed → tool_use when it called a function, refusal
 * when it refused, else end_turn). The SDK keeps argument text it cannot parse; overlap keeps
 * `{}` and answers the call with an `invalid_input` error (compared as such).
 *
 * Also here: every fault kind; and an interruption (drop-after and error-after) at every event
 * index of a response with reasoning, text and three calls: the conversation runAgentTurn leaves
 * is accepted by the strict sim on the next turn.
 */

import OpenAI from "openai";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { type SimScript, type SimServer, sealedItemId } from "overlap-sim";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../agent/model-client.js";
import { appendUserText } from "../../agent/repair-conversation.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { UserMessage } from "../../stream/message.js";
import {
  answerAfterResults,
  type Capture,
  capturingFetch,
  expectValidContinuation,
  neverAborted,
  recordingTools,
  simRunner,
  toolUses,
} from "../provider-sim.testkit.js";
import { openaiResponsesModel, responsesParams } from "./openai-responses.js";

// ---------------------------------------------------------------------------------------------
// Scripts

const SEED = 20_260_101;
const MODEL = "scripted-responses";
const ASK: UserMessage = { role: "user", content: "Please do the scripted thing." };
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });
/** Reasoning with a summary, its encrypted content included (the adapter asks for it). */
const REASONING = { reasoning: { effort: "low", summary: "auto" } };

const TEXT_ONLY: SimScript = {
  blocks: [
    {
      type: "text",
      text: "Here is a plain answer, long enough to arrive in many deltas: café, naïve, 你好, 🎉 and done.",
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

const REFUSAL: SimScript = {
  blocks: [{ type: "text", text: "I can't help with that request." }],
  stopReason: "refusal",
};

// ---------------------------------------------------------------------------------------------
// Helpers

function openaiClient(sim: SimServer, fault?: string, capture?: Capture): OpenAI {
  return new OpenAI({
    baseURL: `${sim.url}/v1`,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: fault ? { "x-sim-fault": fault } : {},
    ...(capture ? { fetch: capturingFetch(capture) } : {}),
  });
}

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

/** Both sides of one response: the SDK's accumulation and overlap's round, same bytes. */
async function responsesBoth(
  script: SimScript,
  setup: { fault?: string; params?: Record<string, unknown> } = {},
) {
  return withSim({ policy: () => script }, async (sim) => {
    const capture: Capture = { requests: [], responses: [] };
    const client = openaiClient(sim, setup.fault, capture);
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const options = { model: MODEL, ...(setup.params ? { params: setup.params } : {}) };
    const events: ResponseStreamEvent[] = [];
    // The adapter's own body; `stream: true` is what the SDK's stream() adds (same place, last).
    const stream = client.responses.stream({ ...responsesParams(request, options), stream: true });
    stream.on("event", (event) => events.push(event));
    const sdk = await stream.finalResponse().then(
      (response) => ({ ok: true as const, response }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      openaiResponsesModel({ client, ...options }).stream(request, { signal: neverAborted() }),
    );
    const [sdkBytes = "", ourBytes = ""] = await Promise.all(capture.responses);
    expect(capture.requests).toHaveLength(2);
    expect(capture.requests[1]).toBe(capture.requests[0]);
    expect(withoutCreatedAt(ourBytes)).toBe(withoutCreatedAt(sdkBytes));
    return { sdk, ours, runs, events, bytes: sdkBytes };
  });
}

// ---------------------------------------------------------------------------------------------

describe("conformance with the OpenAI SDK (responses.stream().finalResponse())", () => {
  const complete: Array<[string, SimScript, Record<string, unknown> | undefined]> = [
    ["text only", TEXT_ONLY, undefined],
    ["several tool calls", THREE_CALLS, undefined],
    ["the script's reasoning", THINKING, undefined],
    ["reasoning asked for (summary, encrypted content)", THREE_CALLS, REASONING],
    ["reasoning asked for, without a summary", TEXT_ONLY, { reasoning: { effort: "medium" } }],
    ["refusal", REFUSAL, undefined],
  ];
  for (const [name, script, params] of complete) {
    it(`${name}: the same content, stop reason and token counts`, async () => {
      const { sdk, ours, runs } = await responsesBoth(script, params ? { params } : {});
      if (!sdk.ok) throw sdk.error;
      expect(ours.error).toBeUndefined();
      expect(ours.assistant.content).toEqual(responseBlocks(sdk.response.output));
      // A reasoning effort adds a reasoning item first.
      expect(ours.assistant.content).toHaveLength(script.blocks.length + (params ? 1 : 0));
      expect(ours.stopReason).toBe(stopReasonOf(sdk.response));
      expect(ours.usage.input_tokens).toBe(sdk.response.usage?.input_tokens);
      expect(ours.usage.output_tokens).toBe(sdk.response.usage?.output_tokens);
      const calls = toolUses(ours.assistant.content);
      expect(runs.map(({ callId, name, input }) => ({ callId, name, input }))).toEqual(
        calls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
      );
      expectValidContinuation(ASK, ours, name);
    });
  }

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

  for (const [fault, code] of [
    ["error-after", "stream_error"],
    ["drop-after", "stream_interrupted"],
  ] as const) {
    it(`${fault}=N at every frame: the SDK rejects, the round reports ${code} and keeps exactly the items the SDK saw completed`, async () => {
      const { bytes } = await responsesBoth(THREE_CALLS);
      const frames = bytes.split("\n\n").filter((f) => f !== "").length;
      expect(frames).toBeGreaterThan(20);
      for (let n = 1; n < frames; n++) {
        const label = `${fault}=${n}`;
        const { sdk, ours, runs, events } = await responsesBoth(THREE_CALLS, {
          fault: `${fault}=${n}`,
        });
        if (sdk.ok) throw new Error(`${label}: the SDK accepted a failed stream`);
        if (fault === "error-after") expect(sdk.error, label).toBeInstanceOf(OpenAI.APIError);
        else expect(sdk.error, label).toBeInstanceOf(OpenAI.OpenAIError);
        expect(ours.error?.code, label).toBe(code);
        expect(ours.stopReason, label).toBe("error");
        expectValidContinuation(ASK, ours, label);
        // The SDK's view at the failure: calls whose arguments were done, and the text so far.
        const done = new Map<string, string>();
        let text = "";
        const callIds = new Map<string, string>();
        for (const event of events) {
          if (event.type === "response.output_item.added" && event.item.type === "function_call") {
            callIds.set(event.item.id ?? "", event.item.call_id);
          }
          if (event.type === "response.function_call_arguments.done") {
            done.set(callIds.get(event.item_id) ?? "", event.arguments);
          }
          if (event.type === "response.output_text.delta") text += event.delta;
        }
        const mine = ours.assistant.content;
        const texts = mine.flatMap((b) => (b.type === "text" ? [b.text] : []));
        expect(texts.join(""), label).toBe(text.trim() === "" ? "" : text);
        expect(
          toolUses(mine).map((b) => b.id),
          label,
        ).toEqual([...callIds.values()]);
        for (const call of toolUses(mine)) {
          const args = done.get(call.id);
          if (args !== undefined) {
            expect(call.input, label).toEqual(JSON.parse(args));
          } else {
            // Arguments never completed: `{}`, an error result, never run.
            expect(call.input, label).toEqual({});
            expect(
              runs.map((r) => r.callId),
              label,
            ).not.toContain(call.id);
            expect(ours.outcomes.find((o) => o.callId === call.id)?.isError, label).toBe(true);
          }
        }
        for (const run of runs) {
          expect(run.input, label).toEqual(toolUses(mine).find((b) => b.id === run.callId)?.input);
        }
      }
    });
  }

  it("invalid-json: the SDK keeps the raw arguments; ours keeps {} plus an invalid_input result and never runs the call", async () => {
    const { sdk, ours, runs } = await responsesBoth(THREE_CALLS, { fault: "invalid-json" });
    if (!sdk.ok) throw sdk.error;
    expect(ours.stopReason).toBe("tool_use");
    const theirs = responseBlocks(sdk.response.output) as Array<{ input?: unknown }>;
    const last = theirs.at(-1)!;
    expect(last.input).toBe('{"query":"red shoes","filters":{"size":[41,42],"inStock":true}, }');
    expect(ours.assistant.content).toEqual(theirs.with(-1, { ...last, input: {} }));
    const outcome = ours.outcomes.at(-1)!;
    expect(outcome).toMatchObject({ isError: true, status: "invalid_input" });
    expect(outcome.resultText).toContain(JSON.stringify(last.input));
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectValidContinuation(ASK, ours, "invalid-json");
  });

  it("max-tokens: response.incomplete; the cut call (ended by its done item) keeps {} and an invalid_input result", async () => {
    const { sdk, ours, runs } = await responsesBoth(THREE_CALLS, { fault: "max-tokens" });
    if (!sdk.ok) throw sdk.error;
    expect(sdk.response.status).toBe("incomplete");
    expect(ours.stopReason).toBe("max_tokens");
    const theirs = responseBlocks(sdk.response.output) as Array<{ input?: unknown }>;
    const last = theirs.at(-1)!;
    expect(last.input).toBe('{"query":"red shoes","filters":');
    expect(ours.assistant.content).toEqual(theirs.with(-1, { ...last, input: {} }));
    expect(ours.outcomes.at(-1)).toMatchObject({ isError: true, status: "invalid_input" });
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectValidContinuation(ASK, ours, "max-tokens");
  });

  it("thinking and web-search faults: a reasoning item first (kept whole), the web_search_call item (a server_tool_use and the item), the cited text", async () => {
    const { sdk, ours } = await responsesBoth(THREE_CALLS, { fault: "thinking,web-search" });
    if (!sdk.ok) throw sdk.error;
    expect(ours.assistant.content.map((b) => b.type)).toEqual([
      "openai_reasoning",
      "server_tool_use",
      "openai_tool_result",
      "text",
      "tool_use",
      "tool_use",
      "tool_use",
    ]);
    expect(ours.assistant.content).toEqual(responseBlocks(sdk.response.output));
  });

  it("status=429|529|500 and slow-first-byte: a typed provider_error before the stream; a late first byte is only late", async () => {
    for (const status of [429, 529, 500]) {
      const { sdk, ours } = await responsesBoth(TEXT_ONLY, { fault: `status=${status}` });
      expect(sdk.ok).toBe(false);
      expect(ours.error?.code).toBe("provider_error");
      expect(ours.error?.details).toMatchObject({ status });
      expect(ours.assistant.content).toEqual([]);
    }
    const slow = await responsesBoth(TEXT_ONLY, { fault: "slow-first-byte=30" });
    if (!slow.sdk.ok) throw slow.sdk.error;
    expect(slow.ours.assistant.content).toEqual(responseBlocks(slow.sdk.response.output));
  });
});

// ---------------------------------------------------------------------------------------------
// Interrupted at every event: the next turn is accepted by the strict peer

/** A script with reasoning, text and three calls; a short answer once results come back. */
const TURN_POLICY = answerAfterResults(THREE_CALLS);

describe("an interruption at every event index leaves a conversation the strict sim accepts", () => {
  for (const fault of ["drop-after", "error-after"] as const) {
    it(`${fault}=N for every N: runAgentTurn's messages, then "go on", complete without a 4xx`, async () => {
      const log: string[] = [];
      await withSim({ policy: TURN_POLICY, log: (line) => log.push(line) }, async (sim) => {
        const model = (header?: string) =>
          openaiResponsesModel({
            client: openaiClient(sim, header),
            model: MODEL,
            params: REASONING,
          });
        // The first response's frame count (the request is the same for every N).
        const probe = await fetch(`${sim.url}/v1/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            ...responsesParams(
              {
                messages: [{ role: "user", content: "Interrupted turn." }],
                tools: recordingTools().executor.specs(),
              },
              { model: MODEL, params: REASONING },
            ),
            stream: true,
          }),
        });
        const frames = (await probe.text()).split("\n\n").filter((f) => f !== "").length;
        expect(frames).toBeGreaterThan(30);
        let interrupted = 0;
        for (let n = 0; n < frames; n++) {
          const label = `${fault}=${n}`;
          const { executor } = recordingTools();
          const first = await runAgentTurn({
            model: model(`${fault}=${n}`),
            executor,
            messages: [{ role: "user", content: "Interrupted turn." }],
            sink: () => {},
          });
          if (first.error) interrupted++;
          expect(
            validateConversation(first.messages, { allowTrailingToolUse: false }),
            label,
          ).toEqual([]);
          const next = appendUserText(first.messages, "go on").messages;
          const turn = await runAgentTurn({
            model: model(),
            executor,
            messages: next,
            sink: () => {},
          });
          expect(turn.error, label).toBeUndefined();
          expect(validateConversation(turn.messages), label).toEqual([]);
        }
        expect(interrupted).toBe(frames);
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      });
    });
  }
});
