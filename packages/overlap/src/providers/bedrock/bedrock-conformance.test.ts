/**
 * `bedrockModel` against overlap-sim's Bedrock Converse endpoint, through real HTTP and the AWS
 * SDK (`@aws-sdk/client-bedrock-runtime`).
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
 * byte-identical answers.
 *
 * The SDK's default handler speaks HTTP/2, which the sim's HTTP/1.1 server does not: the clients
 * here use the SDK's HTTP/1.1 handler (`NodeHttpHandler`), as Bedrock accepts both.
 *
 * Also here: every fault kind; eager timing over a paced stream (the first of three calls runs
 * before the last call's arguments begin); an interruption at every event index leaves a
 * conversation the strict scripted model accepts; runAgentTurn end to end (with Claude's
 * thinking, which the service requires back in a tool loop); aborts.
 */

import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { SimScript, SimServer } from "overlap-sim";
import { describe, expect, it, vi } from "vitest";
import type { ModelClient, ModelRequest } from "../../agent/model-client.js";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import type { AgentEvent } from "../../protocol/agent-event.js";
import { StreamedRound } from "../../round/streamed-round.js";
import type { Message, UserMessage } from "../../stream/message.js";
import {
  abortAt,
  answerAfterResults,
  expectEveryInterruptionRecovers,
  expectValidContinuation,
  neverAborted,
  nextTurnSucceeds,
  recordingTools,
  simRunner,
  TIMED_CALLS,
  TIMED_PACING,
  timedRound,
  toolUses,
} from "../provider-sim.testkit.js";
import {
  type BedrockModelOptions,
  bedrockModel,
  converseStreamInput,
  toConverseMessages,
} from "./bedrock.js";

const SEED = 20_251_203;
const MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const ASK: UserMessage = { role: "user", content: "Please do the scripted thing." };
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });
const THINKING = {
  additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
};

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

const THOUGHTFUL: SimScript = {
  blocks: [
    { type: "thinking", thinking: "The user wants shoes. I will add them, then answer briefly." },
    { type: "text", text: "Adding them now." },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SHOE-42", qty: 1 } },
  ],
};

// ---------------------------------------------------------------------------------------------
// Helpers

interface ClientSetup {
  fault?: string;
  /** Receives each request body the client sends. */
  bodies?: string[];
}

/** An SDK client of the sim: HTTP/1.1, no retries, the sim's headers, bodies captured. */
function sdkClient(sim: SimServer, setup: ClientSetup = {}): BedrockRuntimeClient {
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
      setup.bodies?.push(String(request.body ?? ""));
      return next(args);
    },
    { step: "finalizeRequest", name: "simTestHeaders" },
  );
  return client;
}

function modelFor(
  sim: SimServer,
  setup: ClientSetup & { params?: BedrockModelOptions["params"] } = {},
): ModelClient {
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
  /** Calls whose contentBlockStop arrived. */
  stopped: Set<string>;
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
  const stopped = new Set<string>();
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
      if (block.stopped) stopped.add(block.call.id);
    }
  }
  return { content, stopped, stopReason, usage };
}

const NEUTRAL_STOP: Readonly<Record<string, string>> = {
  content_filtered: "refusal",
  guardrail_intervened: "refusal",
};

/** Our round and the SDK's own decoding of the same request, against one sim. */
async function bothSides(script: SimScript, setup: { fault?: string; params?: object } = {}) {
  return withSim({ policy: () => script }, async (sim) => {
    const ourBodies: string[] = [];
    const referenceBodies: string[] = [];
    const { executor, runs } = recordingTools();
    const request: ModelRequest = { messages: [ASK], tools: executor.specs() };
    const round = new StreamedRound({ executor, sink: () => {} });
    const ours = await round.relay(
      modelFor(sim, { ...setup, bodies: ourBodies }).stream(request, {
        signal: neverAborted(),
      }),
    );
    const reference = await sdkEvents(
      sdkClient(sim, { ...setup, bodies: referenceBodies }),
      request,
      setup.params,
    );
    // The premise: the same body (so the same bytes).
    expect(ourBodies).toHaveLength(1);
    expect(referenceBodies).toEqual(ourBodies);
    return { ours, runs, reference, body: JSON.parse(ourBodies[0]!) as Record<string, unknown> };
  });
}

// ---------------------------------------------------------------------------------------------
// Conformance

describe("bedrockModel against the scripted Converse API: our message equals the SDK's own events accumulated independently", () => {
  const complete: Array<[string, SimScript, { params?: object }]> = [
    ["text only", TEXT_ONLY, {}],
    ["several tool calls", THREE_CALLS, {}],
    ["reasoning (Claude's thinking) before text and a call", THOUGHTFUL, { params: THINKING }],
    [
      "a refusal (content_filtered)",
      { blocks: [{ type: "text", text: "I cannot help with that." }], stopReason: "refusal" },
      {},
    ],
  ];
  for (const [name, script, setup] of complete) {
    it(`${name}: the same blocks, stop reason and usage`, async () => {
      const { ours, runs, reference } = await bothSides(script, setup);
      expect(reference.error).toBeUndefined();
      const expected = accumulate(reference.events);
      expect(expected.content.length).toBeGreaterThan(0);
      expect(ours.error).toBeUndefined();
      expect(toConverseMessages([ASK, ours.assistant])[1]?.content).toEqual(expected.content);
      const stop = String(expected.stopReason);
      expect(ours.stopReason).toBe(NEUTRAL_STOP[stop] ?? stop);
      expect(ours.usage.input_tokens).toBe(expected.usage?.inputTokens);
      expect(ours.usage.output_tokens).toBe(expected.usage?.outputTokens);
      // Every call ran once, with its input, under the id Bedrock gave it.
      const calls = toolUses(ours.assistant.content);
      expect(calls.length).toBe(script.blocks.filter((b) => b.type === "tool_use").length);
      expect(calls.every((c) => /^tooluse_[A-Za-z0-9]{22}$/.test(c.id))).toBe(true);
      expect(runs.map((r) => ({ callId: r.callId, name: r.name, input: r.input }))).toEqual(
        calls.map((b) => ({ callId: b.id, name: b.name, input: b.input })),
      );
      expectValidContinuation(ASK, ours, name);
    });
  }

  it("the request: system, tools as toolSpec, messages as Converse content, the limit and params", async () => {
    await withSim({ policy: () => TEXT_ONLY }, async (sim) => {
      const bodies: string[] = [];
      const { executor } = recordingTools();
      const model = modelFor(sim, { bodies, params: { inferenceConfig: { temperature: 0.5 } } });
      const result = await new StreamedRound({ executor, sink: () => {} }).relay(
        model.stream(
          { system: "Be brief.", messages: [ASK], tools: executor.specs(), maxTokens: 777 },
          { signal: neverAborted() },
        ),
      );
      expect(result.error).toBeUndefined();
      const body = JSON.parse(bodies[0]!) as Record<string, unknown>;
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
});

describe("every fault kind", () => {
  /** How many events THREE_CALLS is on the wire. */
  async function eventCount(): Promise<number> {
    const { reference } = await bothSides(THREE_CALLS);
    return reference.events.length;
  }

  for (const [fault, code] of [
    ["error-after", "stream_error"],
    ["drop-after", "stream_interrupted"],
  ] as const) {
    it(`${fault}=N for every N: the round reports ${code}, keeps exactly the calls that started, runs only complete ones, and leaves a valid continuation`, async () => {
      const total = await eventCount();
      expect(total).toBeGreaterThan(10);
      for (let n = 0; n < total; n++) {
        const label = `${fault}=${n}`;
        const { ours, runs, reference } = await bothSides(THREE_CALLS, { fault: `${fault}=${n}` });
        expect(reference.events, label).toHaveLength(n);
        expect(reference.error, label).toBeDefined();
        if (fault === "error-after")
          expect(reference.error?.name).toBe("ModelStreamErrorException");
        expect(ours.error?.code, label).toBe(code);
        expect(ours.stopReason, label).toBe("error");
        const expected = accumulate(reference.events);
        const started = expected.content.flatMap((b) => (b.toolUse ? [b.toolUse] : []));
        const calls = toolUses(ours.assistant.content);
        // Every call that started is in the message (a cut one with `{}`), none other…
        expect(
          calls.map((b) => ({ id: b.id, name: b.name })),
          label,
        ).toEqual(started.map((u) => ({ id: u.toolUseId, name: u.name })));
        // …and only complete calls ran, each with its own input (a call completed by the very
        // last event may be cancelled before it began: answered, never run).
        for (const run of runs) {
          expect(expected.stopped.has(run.callId), label).toBe(true);
          expect(run.input, label).toEqual(started.find((u) => u.toolUseId === run.callId)?.input);
        }
        expectValidContinuation(ASK, ours, label);
      }
    });
  }

  it("invalid-json: the call with invalid input is answered invalid_input and never runs; the others ran", async () => {
    const { ours, runs } = await bothSides(THREE_CALLS, { fault: "invalid-json" });
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("tool_use");
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expect(ours.outcomes.map((o) => o.status)).toEqual(["ok", "ok", "invalid_input"]);
    expectValidContinuation(ASK, ours, "invalid-json");
  });

  it("max-tokens: stop max_tokens; the cut call is answered invalid_input and never runs", async () => {
    const { ours, runs } = await bothSides(THREE_CALLS, { fault: "max-tokens" });
    expect(ours.error).toBeUndefined();
    expect(ours.stopReason).toBe("max_tokens");
    expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total"]);
    expectValidContinuation(ASK, ours, "max-tokens");
  });

  it("status=429|529|500: provider_error before the stream, with the HTTP status and the exception's name", async () => {
    for (const [status, http, type] of [
      ["429", 429, "ThrottlingException"],
      ["529", 503, "ServiceUnavailableException"],
      ["500", 500, "InternalServerException"],
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
        expect(result.error?.message, status).toContain(type);
        expect(result.assistant.content).toEqual([]);
        expect(runs).toEqual([]);
      });
    }
  });

  it("slow-first-byte, thinking and web-search: the answer arrives; reasoning kept; the search shows only as the text's citations (web grounding streams no block)", async () => {
    const slow = await bothSides(THREE_CALLS, { fault: "slow-first-byte=30" });
    expect(slow.ours.stopReason).toBe("tool_use");
    const thinking = await bothSides(THREE_CALLS, { fault: "thinking,web-search" });
    expect(thinking.ours.assistant.content.map((b) => b.type)).toEqual([
      "thinking",
      "text",
      "tool_use",
      "tool_use",
      "tool_use",
    ]);
    expect(toConverseMessages([ASK, thinking.ours.assistant])[1]?.content).toEqual(
      accumulate(thinking.reference.events).content,
    );
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
});

// ---------------------------------------------------------------------------------------------
// Eager timing over real HTTP

describe("eager dispatch through real HTTP (paced sim)", () => {
  it("each call runs at its contentBlockStop: the first of three runs before the last call's arguments begin", async () => {
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
        const lastArgs = log.find(
          ({ event }) =>
            event.type === "content_block_delta" &&
            event.index === callStarts[2]!.index &&
            event.delta.type === "input_json_delta",
        )!.at;
        const streamEnd = log.find((l) => l.event.type === "message_stop")!.at;
        expect(streamEnd - start).toBeGreaterThan(500);
        const firstRunning = Math.min(...running.map((r) => r.at));
        // Eager: the first tool runs before the last call's arguments even begin.
        expect(firstRunning).toBeLessThan(callStarts[2]!.at);
        expect(firstRunning).toBeLessThan(lastArgs);
        // Each call runs at its own stop, long before the stream ends.
        for (const call of callStarts) {
          const stop = log.find(
            ({ event }) => event.type === "content_block_stop" && event.index === call.index,
          )!.at;
          const ran = runs.find((r) => r.callId === call.id)!;
          expect(ran.startedAt).toBeGreaterThanOrEqual(stop - 1);
          expect(ran.startedAt - stop).toBeLessThan(50);
        }
        expect(runs[0]!.startedAt).toBeLessThan(streamEnd - 100);
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The strict peer accepts what overlap leaves behind

describe("runAgentTurn over HTTP against the strict scripted Converse API", () => {
  it("runs the tool round and the answer, sending the calls and results back as Converse blocks", async () => {
    const log: string[] = [];
    await withSim(
      { policy: answerAfterResults(THREE_CALLS), log: (l) => log.push(l) },
      async (sim) => {
        const { executor, runs } = recordingTools();
        const bodies: string[] = [];
        const turn = await runAgentTurn({
          model: modelFor(sim, { bodies }),
          executor,
          messages: [{ role: "user", content: "Add the shoes, total, search." }],
          sink: () => {},
        });
        expect(turn.error).toBeUndefined();
        expect(turn.stopReason).toBe("end_turn");
        expect(runs.map((r) => r.name)).toEqual(["add_to_cart", "cart_total", "search"]);
        const last = turn.messages.at(-1);
        expect(last?.role === "assistant" && last.content[0]).toMatchObject({
          type: "text",
          text: "All done.",
        });
        const second = JSON.parse(bodies[1]!) as { messages: Array<{ content: ContentBlock[] }> };
        expect(second.messages[2]?.content.map((b) => b.toolResult?.content)).toEqual([
          [{ text: "add_to_cart ok" }],
          [{ text: "cart_total ok" }],
          [{ text: "search ok" }],
        ]);
        expect(log.filter((l) => / 4\d\d /.test(l))).toEqual([]);
      },
    );
  });

  it("with Claude's thinking on, the reasoning block is kept and sent back first; without it the service refuses the tool loop", async () => {
    await withSim({ policy: answerAfterResults(THOUGHTFUL) }, async (sim) => {
      const { executor, runs } = recordingTools();
      const model = modelFor(sim, { params: THINKING });
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

  it("an interruption after every event (drop and error) leaves a conversation the strict peer accepts", async () => {
    const log: string[] = [];
    await withSim(
      { policy: answerAfterResults(THREE_CALLS), log: (l) => log.push(l) },
      async (sim) => {
        const request: ModelRequest = {
          messages: [{ role: "user", content: "Interrupted turn." }],
          tools: recordingTools().executor.specs(),
        };
        const total = (await sdkEvents(sdkClient(sim), request)).events.length;
        expect(total).toBeGreaterThan(10);
        await expectEveryInterruptionRecovers(
          total,
          (fault) => modelFor(sim, fault ? { fault } : {}),
          "Interrupted turn.",
        );
        expect(log.filter((line) => / 4\d\d /.test(line))).toEqual([]);
      },
    );
  });

  it("an abort mid-round (before content, mid-text, as the first tool starts, during the join) leaves a conversation the strict peer accepts", async () => {
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
      {
        policy: answerAfterResults(THREE_CALLS),
        pacing: { fast: false, tokensPerSecond: 400, firstTokenMs: 5 },
      },
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

  it("a consumer that stops reading closes the HTTP stream", async () => {
    const log: string[] = [];
    await withSim(
      {
        policy: () => TIMED_CALLS,
        pacing: { fast: false, tokensPerSecond: 50, firstTokenMs: 20 },
        log: (l) => log.push(l),
      },
      async (sim) => {
        const events = modelFor(sim).stream(
          { messages: [ASK], tools: recordingTools().executor.specs() },
          { signal: neverAborted() },
        );
        for await (const event of events) {
          if (event.type === "content_block_delta") break;
        }
        await expect.poll(() => log.join("\n"), { timeout: 2_000 }).toMatch(/stream aborted/);
      },
    );
  });
});
