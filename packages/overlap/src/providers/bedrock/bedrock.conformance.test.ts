/**
 * `bedrockModel` against overlap-sim's Bedrock Converse endpoint, through real HTTP and the AWS
 * SDK (`@aws-sdk/client-bedrock-runtime`): the shared adapter conformance suite, and what only
 * Converse has.
 *
 * The reference is the SDK's own decoding of the same bytes, accumulated here independently into
 * Converse content blocks (text joined per `contentBlockIndex`, reasoning text plus its signature,
 * a call's id and name from its `contentBlockStart` and its input fragments joined and parsed),
 * with the stop reason of `messageStop` and the usage of `metadata`. Our side is the assembled
 * message mapped back to Converse by `toConverseMessages`: what overlap would send back must be
 * what the model produced.
 *
 * Same bytes: the sim derives one seed per request from its own seed and the body, and the SDK
 * serialises the same input to the same body (checked), so the reference request gets
 * byte-identical answers (an event stream, binary: the bodies are compared, not the bytes).
 *
 * The SDK's default handler speaks HTTP/2, which the sim's HTTP/1.1 server does not: the clients
 * here use the SDK's HTTP/1.1 handler (`NodeHttpHandler`), as Bedrock accepts both.
 */

import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { SimServer } from "overlap-sim";
import { describe, expect, it, vi } from "vitest";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { Message } from "../../stream/message.js";
import {
  type AdapterHarness,
  type AdapterSetup,
  ASK,
  registerAdapterConformance,
  TEXT_ONLY,
  THINKING,
  THREE_CALLS,
} from "../adapter-conformance.testkit.js";
import {
  answerAfterResults,
  neverAborted,
  recordingTools,
  simRunner,
} from "../provider-sim.testkit.js";
import { bedrockModel, converseStreamInput, toConverseMessages } from "./bedrock.js";

const SEED = 20_251_203;
const MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });
/** Claude's extended thinking on Bedrock, which the service requires back in a tool loop. */
const CLAUDE_THINKING = {
  additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
};

// ---------------------------------------------------------------------------------------------
// The SDK client and the reference

/** An SDK client of the sim: HTTP/1.1, no retries, the sim's headers, bodies captured. */
function sdkClient(sim: SimServer, setup: AdapterSetup = {}): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: sim.url,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  client.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers: Record<string, string>; body?: unknown };
      if (setup.fault) request.headers["x-sim-fault"] = setup.fault;
      // The SDK's JSON body is an adapter object whose string form is the JSON text.
      setup.capture?.requests.push(String(request.body ?? ""));
      return next(args);
    },
    { step: "finalizeRequest", name: "simTestHeaders" },
  );
  return client;
}

function modelFor(sim: SimServer, setup: AdapterSetup = {}): ModelClient {
  return bedrockModel({
    client: sdkClient(sim, setup),
    modelId: MODEL,
    ...(setup.params ? { params: setup.params } : {}),
  });
}

/** Every event the SDK decoded, and the error that ended the stream if one did. */
async function sdkEvents(client: BedrockRuntimeClient, request: ModelRequest, params = {}) {
  const events: ConverseStreamOutput[] = [];
  try {
    const command = new ConverseStreamCommand(
      converseStreamInput(request, { modelId: MODEL, params }),
    );
    const response = await client.send(command);
    for await (const event of response.stream ?? []) events.push(event);
  } catch (err) {
    return { events, error: err as Error };
  }
  return { events, error: undefined };
}

interface Accumulated {
  content: ContentBlock[];
  calls: Array<{ id: string; name: string; input: unknown; raw: string; complete: boolean }>;
  stopReason: string | undefined;
  usage: { inputTokens?: number; outputTokens?: number } | undefined;
}

/** The independent accumulation of the SDK's events (see the module comment). */
function accumulate(events: readonly ConverseStreamOutput[]): Accumulated {
  type Block = {
    text?: string;
    reasoning?: string;
    signature?: string;
    call?: { id: string; name: string; input: string };
    citations?: unknown[];
    stopped?: boolean;
  };
  const blocks = new Map<number, Block>();
  const at = (index: number | undefined) => {
    const key = index ?? -1;
    let block = blocks.get(key);
    if (!block) {
      block = {};
      blocks.set(key, block);
    }
    return block;
  };
  let stopReason: string | undefined;
  let usage: Accumulated["usage"];
  for (const event of events) {
    if (event.contentBlockStart?.start?.toolUse) {
      const use = event.contentBlockStart.start.toolUse;
      at(event.contentBlockStart.contentBlockIndex).call = {
        id: String(use.toolUseId),
        name: String(use.name),
        input: "",
      };
    }
    const delta = event.contentBlockDelta?.delta;
    if (delta) {
      const block = at(event.contentBlockDelta?.contentBlockIndex);
      if (delta.text !== undefined) block.text = (block.text ?? "") + delta.text;
      if (delta.citation) block.citations = [...(block.citations ?? []), delta.citation];
      if (delta.toolUse && block.call) block.call.input += delta.toolUse.input ?? "";
      if (delta.reasoningContent?.text !== undefined) {
        block.reasoning = (block.reasoning ?? "") + delta.reasoningContent.text;
      }
      if (delta.reasoningContent?.signature !== undefined) {
        block.signature = delta.reasoningContent.signature;
      }
    }
    if (event.contentBlockStop) at(event.contentBlockStop.contentBlockIndex).stopped = true;
    if (event.messageStop) stopReason = event.messageStop.stopReason;
    if (event.metadata) usage = event.metadata.usage;
  }
  const content: ContentBlock[] = [];
  const calls: Accumulated["calls"] = [];
  for (const [, block] of [...blocks].sort((a, b) => a[0] - b[0])) {
    if (block.reasoning !== undefined || block.signature !== undefined) {
      content.push({
        reasoningContent: {
          reasoningText: { text: block.reasoning ?? "", signature: block.signature ?? "" },
        },
      });
    } else if (block.text !== undefined && block.citations) {
      // A cited text goes back as the Converse response holds it.
      content.push({
        citationsContent: { content: [{ text: block.text }], citations: block.citations as never },
      });
    } else if (block.text !== undefined) {
      content.push({ text: block.text });
    } else if (block.call) {
      let input: unknown;
      try {
        input = JSON.parse(block.call.input || "{}");
      } catch {
        input = {};
      }
      content.push({
        toolUse: { toolUseId: block.call.id, name: block.call.name, input: input as never },
      });
      calls.push({
        id: block.call.id,
        name: block.call.name,
        input,
        raw: block.call.input,
        complete: block.stopped === true,
      });
    }
  }
  return { content, calls, stopReason, usage };
}

const NEUTRAL_STOP: Readonly<Record<string, string>> = {
  content_filtered: "refusal",
  guardrail_intervened: "refusal",
};

const harness: AdapterHarness = {
  seed: SEED,
  model: modelFor,
  async reference(sim, request, setup = {}) {
    const requests: string[] = [];
    const { events, error } = await sdkEvents(
      sdkClient(sim, { ...setup, capture: { requests, responses: [] } }),
      request,
      setup.params,
    );
    const accumulated = accumulate(events);
    const stop = accumulated.stopReason;
    return {
      request: requests[0] ?? "",
      error,
      content: accumulated.content,
      stopReason: stop === undefined ? undefined : (NEUTRAL_STOP[stop] ?? stop),
      usage: accumulated.usage && {
        input: accumulated.usage.inputTokens,
        output: accumulated.usage.outputTokens,
      },
      calls: accumulated.calls,
      frames: events.length,
    };
  },
  comparable: (message) => toConverseMessages([ASK, message])[1]?.content ?? [],
  expectCutReference(fault, n, reference, label) {
    expect(reference.frames, label).toBe(n);
    expect(reference.error, label).toBeDefined();
    if (fault === "error-after") {
      expect((reference.error as Error).name, label).toBe("ModelStreamErrorException");
    }
  },
  callId: /^tooluse_[A-Za-z0-9]{22}$/,
  extraComplete: [
    {
      name: "reasoning (Claude's thinking) before text and a call",
      script: THINKING,
      setup: { params: CLAUDE_THINKING },
    },
  ],
  invalidJson: { raw: '{"query":"red shoes","filters":{"size":[41,42],"inStock":true}, }' },
  maxTokens: { raw: '{"query":"red shoes","filters":' },
  statusErrors: [
    { fault: "429", status: 429, type: "ThrottlingException", typeInMessage: true },
    { fault: "529", status: 503, type: "ServiceUnavailableException", typeInMessage: true },
    { fault: "500", status: 500, type: "InternalServerException", typeInMessage: true },
  ],
  // Web grounding streams no block: the search shows only as the text's citations.
  thinkingWebSearch: ["thinking", "text", "tool_use", "tool_use", "tool_use"],
  refusal: true,
};

registerAdapterConformance("bedrockModel (Converse)", harness);

// ---------------------------------------------------------------------------------------------
// Converse's own

describe("bedrockModel: what only Converse has", () => {
  it("the request: system, tools as toolSpec, messages as Converse content, the limit and params", async () => {
    await withSim({ policy: () => TEXT_ONLY }, async (sim) => {
      const requests: string[] = [];
      const { executor } = recordingTools();
      const model = modelFor(sim, {
        capture: { requests, responses: [] },
        params: { inferenceConfig: { temperature: 0.5 } },
      });
      const result = await new StreamedRound({ executor, sink: () => {} }).relay(
        model.stream(
          { system: "Be brief.", messages: [ASK], tools: executor.specs(), maxTokens: 777 },
          { signal: neverAborted() },
        ),
      );
      expect(result.error).toBeUndefined();
      const body = JSON.parse(requests[0]!) as Record<string, unknown>;
      expect(body).toMatchObject({
        messages: [{ role: "user", content: [{ text: ASK.content }] }],
        system: [{ text: "Be brief." }],
        inferenceConfig: { temperature: 0.5, maxTokens: 777 },
      });
      expect(
        (body.toolConfig as { tools: Array<{ toolSpec: { name: string } }> }).tools.map(
          (t) => t.toolSpec.name,
        ),
      ).toEqual(["add_to_cart", "cart_total", "search"]);
      expect(model.label).toBe(MODEL);
    });
  });

  it("without a client, the SDK's chains: no region anywhere is a provider_error before any request", async () => {
    vi.stubEnv("AWS_REGION", undefined);
    vi.stubEnv("AWS_DEFAULT_REGION", undefined);
    vi.stubEnv("AWS_PROFILE", undefined);
    vi.stubEnv("AWS_CONFIG_FILE", "/nonexistent/overlap-test-aws-config");
    try {
      const model = bedrockModel({ modelId: MODEL });
      expect(model.label).toBe(MODEL);
      const { executor } = recordingTools();
      const result = await new StreamedRound({ executor, sink: () => {} }).relay(
        model.stream({ messages: [ASK], tools: executor.specs() }, { signal: neverAborted() }),
      );
      expect(result.error?.code).toBe("provider_error");
      expect(result.error?.message).toMatch(/Region is missing/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("a request the service rejects: provider_error with the ValidationException's message and 400", async () => {
    await withSim({ policy: () => TEXT_ONLY }, async (sim) => {
      const { executor } = recordingTools();
      const dangling: Message[] = [
        ASK,
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "tooluse_x", name: "search", input: {} }],
        },
        { role: "user", content: "never mind" },
      ];
      const result = await new StreamedRound({ executor, sink: () => {} }).relay(
        modelFor(sim).stream(
          { messages: dangling, tools: executor.specs() },
          { signal: neverAborted() },
        ),
      );
      expect(result.error?.code).toBe("provider_error");
      expect(result.error?.details).toMatchObject({ status: 400, type: "ValidationException" });
      expect(result.error?.message).toBe(
        "The model request failed: ValidationException: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_x",
      );
    });
  });

  it("the calls and results go back as Converse blocks", async () => {
    await withSim({ policy: answerAfterResults(THREE_CALLS) }, async (sim) => {
      const { executor } = recordingTools();
      const requests: string[] = [];
      const turn = await runAgentTurn({
        model: modelFor(sim, { capture: { requests, responses: [] } }),
        executor,
        messages: [{ role: "user", content: "Add the shoes, total, search." }],
        sink: () => {},
      });
      expect(turn.error).toBeUndefined();
      const second = JSON.parse(requests[1]!) as { messages: Array<{ content: ContentBlock[] }> };
      expect(second.messages[2]?.content.map((b) => b.toolResult?.content)).toEqual([
        [{ text: "add_to_cart ok" }],
        [{ text: "cart_total ok" }],
        [{ text: "search ok" }],
      ]);
    });
  });

  it("with Claude's thinking on, the reasoning block is kept and sent back first; without it the service refuses the tool loop", async () => {
    await withSim({ policy: answerAfterResults(THINKING) }, async (sim) => {
      const { executor, runs } = recordingTools();
      const model = modelFor(sim, { params: CLAUDE_THINKING });
      const turn = await runAgentTurn({
        model,
        executor,
        messages: [{ role: "user", content: "Add the shoes." }],
        sink: () => {},
      });
      expect(turn.error).toBeUndefined();
      expect(turn.stopReason).toBe("end_turn");
      expect(runs.map((r) => r.name)).toEqual(["add_to_cart"]);
      const assistant = turn.messages[1];
      if (assistant?.role !== "assistant") throw new Error("no assistant message");
      expect(assistant.content[0]).toMatchObject({ type: "thinking", signature: /^Eq/ });
      // Without the reasoning, the strict peer answers as the service does.
      const stripped = turn.messages
        .slice(0, 3)
        .map((m) =>
          m.role === "assistant"
            ? { ...m, content: m.content.filter((b) => b.type !== "thinking") }
            : m,
        ) as Message[];
      const refused = await runAgentTurn({ model, executor, messages: stripped, sink: () => {} });
      expect(refused.error?.code).toBe("provider_error");
      expect(refused.error?.message).toContain(
        "Expected `thinking` or `redacted_thinking`, but found `text`",
      );
    });
  });
});
