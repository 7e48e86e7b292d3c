/**
 * overlap-sim's Bedrock Converse endpoint: the bytes (AWS event stream framing, checked against
 * the Smithy codec the AWS SDK uses), the events as the AWS SDK decodes them, faults, and the
 * request validation in the service's wording.
 *
 * The SDK's default handler speaks HTTP/2 (h2c on an `http:` endpoint), which the sim's HTTP/1.1
 * server does not: the tests give the client the SDK's HTTP/1.1 handler, as Bedrock accepts both.
 */

import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
  type Message,
  type ToolConfiguration,
} from "@aws-sdk/client-bedrock-runtime";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/core/serde";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { describe, expect, it } from "vitest";
import {
  awsEvent,
  decodeEventStreamMessages,
  encodeEventStreamMessage,
} from "./aws-event-stream.js";
import { BEDROCK_STREAM_ERROR_FRAME } from "./bedrock-wire.js";
import { genericPolicy } from "./policy.js";
import type { SimRequest } from "./sim-request.js";
import { SHOP_TOOLS, startTestSim, THREE_CALL_INPUTS, THREE_CALLS } from "./test-support.js";

const seen: SimRequest[] = [];
const sim = await startTestSim({
  policy: (request) => {
    seen.push(request);
    return genericPolicy(request);
  },
});
const MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const STREAM = `/model/${encodeURIComponent(MODEL)}/converse-stream`;

const TOOL_CONFIG: ToolConfiguration = {
  tools: SHOP_TOOLS.map((t) => ({
    toolSpec: {
      name: t.name,
      description: t.description,
      inputSchema: { json: t.input_schema as never },
    },
  })),
};

type Json = Record<string, unknown>;

function client(headers: Record<string, string> = {}): BedrockRuntimeClient {
  const bedrock = new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: sim.url,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  bedrock.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers: Record<string, string> };
      Object.assign(request.headers, headers);
      return next(args);
    },
    { step: "build", name: "simHeaders" },
  );
  return bedrock;
}

const ask = (text: string, extra: Partial<ConverseStreamCommandInput> = {}) => ({
  modelId: MODEL,
  messages: [{ role: "user" as const, content: [{ text }] }],
  toolConfig: TOOL_CONFIG,
  ...extra,
});

/** Every event the SDK yields, and the error that ended the stream if one did. */
async function sdkEvents(
  input: ConverseStreamCommandInput,
  headers: Record<string, string> = {},
): Promise<{ events: ConverseStreamOutput[]; error?: Error }> {
  const events: ConverseStreamOutput[] = [];
  try {
    const response = await client(headers).send(new ConverseStreamCommand(input));
    for await (const event of response.stream ?? []) events.push(event);
  } catch (err) {
    return { events, error: err as Error };
  }
  return { events };
}

/** The SDK's exception for a request the sim rejects. */
async function rejection(input: ConverseStreamCommandInput, headers: Record<string, string> = {}) {
  const { events, error } = await sdkEvents(input, headers);
  expect(events).toEqual([]);
  const err = error as Error & { $metadata?: { httpStatusCode?: number } };
  return { name: err?.name, message: err?.message, status: err?.$metadata?.httpStatusCode };
}

async function rawStream(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${sim.url}${STREAM}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { response, bytes, ...decodeEventStreamMessages(bytes) };
}

describe("the AWS event stream framing", () => {
  it("encodes messages byte for byte as the Smithy codec of the AWS SDK does", () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const headers = {
      ":event-type": "contentBlockDelta",
      ":content-type": "application/json",
      ":message-type": "event",
    };
    const payload = JSON.stringify({ contentBlockIndex: 0, delta: { text: "café ✓ 🎉" }, p: "ab" });
    const ours = encodeEventStreamMessage(headers, payload);
    const theirs = codec.encode({
      headers: Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, { type: "string" as const, value: v }]),
      ),
      body: fromUtf8(payload),
    });
    expect(Buffer.from(ours).equals(Buffer.from(theirs))).toBe(true);
    const decoded = codec.decode(BEDROCK_STREAM_ERROR_FRAME);
    expect(decoded.headers[":message-type"]?.value).toBe("exception");
    expect(decoded.headers[":exception-type"]?.value).toBe("modelStreamErrorException");
    expect(JSON.parse(toUtf8(decoded.body))).toMatchObject({ originalStatusCode: 529 });
  });

  it("our decoder reads what we encode, keeps a cut message as rest and refuses a bad CRC", () => {
    const a = awsEvent("messageStart", { role: "assistant", p: "a" });
    const b = awsEvent("messageStop", { stopReason: "end_turn", p: "abc" });
    const joined = Buffer.concat([a, b.subarray(0, 10)]);
    const { messages, rest } = decodeEventStreamMessages(joined);
    expect(messages.map((m) => m.headers[":event-type"])).toEqual(["messageStart"]);
    expect(rest.length).toBe(10);
    const bad = Buffer.from(a);
    bad[bad.length - 5] = (bad[bad.length - 5] ?? 0) ^ 1;
    expect(() => decodeEventStreamMessages(bad)).toThrow(/CRC/);
  });
});

describe("POST /model/{modelId}/converse-stream", () => {
  it("answers application/vnd.amazon.eventstream: event messages with JSON payloads padded by `p`", async () => {
    const { response, messages, rest } = await rawStream(ask(THREE_CALLS));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.amazon.eventstream");
    expect(response.headers.get("x-amzn-requestid")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(rest.length).toBe(0);
    for (const message of messages) {
      expect(Object.keys(message.headers)).toEqual([
        ":event-type",
        ":content-type",
        ":message-type",
      ]);
      expect(message.headers[":message-type"]).toBe("event");
      const payload = JSON.parse(Buffer.from(message.payload).toString("utf8")) as Json;
      expect(payload.p).toMatch(/^[a-zA-Z0-9]+$/);
    }
    const types = messages.map((m) => m.headers[":event-type"]);
    expect(types[0]).toBe("messageStart");
    expect(types.slice(-2)).toEqual(["messageStop", "metadata"]);
  });

  it("through the AWS SDK: text without a start event, each call with contentBlockStart (tooluse_ id), string input fragments, contentBlockStop; messageStop tool_use; metadata usage", async () => {
    const { events, error } = await sdkEvents(ask(THREE_CALLS));
    expect(error).toBeUndefined();
    expect(events[0]).toEqual({ messageStart: { role: "assistant" } });
    const starts = events.flatMap((e) => (e.contentBlockStart ? [e.contentBlockStart] : []));
    expect(starts.map((s) => s.contentBlockIndex)).toEqual([1, 2, 3]);
    for (const start of starts) {
      expect(start.start?.toolUse?.toolUseId).toMatch(/^tooluse_[A-Za-z0-9]{22}$/);
    }
    expect(starts.map((s) => s.start?.toolUse?.name)).toEqual([
      "add_to_cart",
      "add_to_cart",
      "cart_total",
    ]);
    const textOf = (index: number) =>
      events
        .flatMap((e) =>
          e.contentBlockDelta?.contentBlockIndex === index ? [e.contentBlockDelta.delta] : [],
        )
        .map((d) => d?.text ?? d?.toolUse?.input ?? "")
        .join("");
    expect(textOf(0)).toMatch(/^Calling add_to_cart/);
    expect([1, 2, 3].map((i) => JSON.parse(textOf(i) || "{}"))).toEqual(THREE_CALL_INPUTS);
    // Text opens with its first delta: no start event for block 0.
    const first0 = events.findIndex((e) => e.contentBlockDelta?.contentBlockIndex === 0);
    expect(events.slice(0, first0).some((e) => e.contentBlockStart)).toBe(false);
    const stops = events.flatMap((e) =>
      e.contentBlockStop ? [e.contentBlockStop.contentBlockIndex] : [],
    );
    expect(stops).toEqual([0, 1, 2, 3]);
    expect(events.at(-2)).toEqual({ messageStop: { stopReason: "tool_use" } });
    const metadata = events.at(-1)?.metadata;
    expect(metadata?.usage?.outputTokens).toBeGreaterThan(0);
    expect(metadata?.usage?.totalTokens).toBe(
      (metadata?.usage?.inputTokens ?? 0) + (metadata?.usage?.outputTokens ?? 0),
    );
  });

  it("thinking (additionalModelRequestFields.thinking): reasoningContent text deltas then one signature, first", async () => {
    const { events } = await sdkEvents(
      ask("hello", {
        additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
      }),
    );
    const block0 = events.flatMap((e) =>
      e.contentBlockDelta?.contentBlockIndex === 0 ? [e.contentBlockDelta.delta] : [],
    );
    expect(block0.length).toBeGreaterThan(1);
    expect(block0.slice(0, -1).every((d) => typeof d?.reasoningContent?.text === "string")).toBe(
      true,
    );
    expect(block0.at(-1)?.reasoningContent?.signature).toMatch(/^Eq/);
    expect(events.at(-2)).toEqual({ messageStop: { stopReason: "end_turn" } });
  });

  it("the policy sees the conversation in the Messages API's shape", async () => {
    seen.length = 0;
    const messages: Message[] = [
      { role: "user", content: [{ text: "first" }] },
      {
        role: "assistant",
        content: [
          { text: "Calling." },
          { toolUse: { toolUseId: "tooluse_a", name: "cart_total", input: {} } },
          { toolUse: { toolUseId: "tooluse_b", name: "add_to_cart", input: { sku: "A" } } },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "tooluse_a", content: [{ text: "12 EUR" }] } },
          {
            toolResult: {
              toolUseId: "tooluse_b",
              content: [{ json: { ok: false } }],
              status: "error",
            },
          },
        ],
      },
    ];
    await sdkEvents({
      modelId: MODEL,
      messages,
      system: [{ text: "Be brief." }],
      toolConfig: TOOL_CONFIG,
      inferenceConfig: { maxTokens: 500 },
    });
    const request = seen.at(-1);
    expect(request).toMatchObject({
      api: "bedrock",
      model: MODEL,
      system: "Be brief.",
      maxTokens: 500,
      stream: true,
      tools: SHOP_TOOLS,
    });
    expect(request?.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "tooluse_a", content: "12 EUR" },
      { type: "tool_result", tool_use_id: "tooluse_b", content: '{"ok":false}', is_error: true },
    ]);
  });

  it("POST /model/{modelId}/converse answers the whole message", async () => {
    const response = await client().send(new ConverseCommand(ask(THREE_CALLS)));
    expect(response.stopReason).toBe("tool_use");
    const content = response.output?.message?.content ?? [];
    expect(content[0]?.text).toMatch(/^Calling/);
    expect(content.slice(1).map((b) => b.toolUse?.input)).toEqual(THREE_CALL_INPUTS);
    expect(response.usage?.outputTokens).toBeGreaterThan(0);
  });
});

describe("faults", () => {
  it("error-after=N: the SDK throws the modelStreamErrorException after N events", async () => {
    const { events, error } = await sdkEvents(ask(THREE_CALLS), { "x-sim-fault": "error-after=5" });
    expect(events).toHaveLength(5);
    expect(error?.name).toBe("ModelStreamErrorException");
    expect(error?.message).toBe("The model is overloaded. Please try again later.");
  });

  it("drop-after=N: the connection is cut after N events", async () => {
    const { events, error } = await sdkEvents(ask(THREE_CALLS), { "x-sim-fault": "drop-after=4" });
    expect(events).toHaveLength(4);
    expect(error).toBeDefined();
    expect(error?.name).not.toBe("ModelStreamErrorException");
  });

  it("max-tokens: the last call cut, its block still stopped; stopReason max_tokens", async () => {
    const { events } = await sdkEvents(ask(THREE_CALLS), { "x-sim-fault": "max-tokens" });
    expect(events.at(-2)).toEqual({ messageStop: { stopReason: "max_tokens" } });
    const input = events
      .flatMap((e) => (e.contentBlockDelta?.contentBlockIndex === 3 ? [e.contentBlockDelta] : []))
      .map((d) => d.delta?.toolUse?.input)
      .join("");
    expect(input).toBe("{");
    expect(events.some((e) => e.contentBlockStop?.contentBlockIndex === 3)).toBe(true);
  });

  it("invalid-json: the last call's input arrives as the model wrote it (a trailing comma)", async () => {
    const { events } = await sdkEvents(ask('call add_to_cart {"sku": "A"}'), {
      "x-sim-fault": "invalid-json",
    });
    const input = events
      .flatMap((e) =>
        e.contentBlockDelta?.delta?.toolUse ? [e.contentBlockDelta.delta.toolUse] : [],
      )
      .map((d) => d.input)
      .join("");
    expect(input).toBe('{"sku":"A", }');
  });

  it("status=429|529|500: ThrottlingException 429, ServiceUnavailableException 503, InternalServerException 500", async () => {
    for (const [fault, name, status] of [
      ["429", "ThrottlingException", 429],
      ["529", "ServiceUnavailableException", 503],
      ["500", "InternalServerException", 500],
    ] as const) {
      const answer = await rejection(ask("hi"), { "x-sim-fault": `status=${fault}` });
      expect(answer, fault).toMatchObject({ name, status });
      expect(answer.message, fault).not.toBe("");
    }
  });

  it("a refusal ends with content_filtered", async () => {
    const refusing = await startTestSim({
      policy: () => ({ blocks: [{ type: "text", text: "No." }], stopReason: "refusal" }),
    });
    const bedrock = new BedrockRuntimeClient({
      region: "us-east-1",
      endpoint: refusing.url,
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      requestHandler: new NodeHttpHandler(),
    });
    const response = await bedrock.send(new ConverseStreamCommand(ask("hi")));
    const events: ConverseStreamOutput[] = [];
    for await (const event of response.stream ?? []) events.push(event);
    expect(events.at(-2)).toEqual({ messageStop: { stopReason: "content_filtered" } });
  });
});

describe("validation, in the service's wording (ValidationException, 400)", () => {
  const user = (text: string): Message => ({ role: "user", content: [{ text }] });
  const call = (id: string): Message => ({
    role: "assistant",
    content: [{ toolUse: { toolUseId: id, name: "cart_total", input: {} } }],
  });
  const result = (id: string, extra: Json = {}): Message => ({
    role: "user",
    content: [
      { toolResult: { toolUseId: id, content: [{ text: "ok" }], ...extra } } as ContentBlock,
    ],
  });
  const cases: Array<[string, Partial<ConverseStreamCommandInput>, string | RegExp]> = [
    [
      "a first message that is not the user's",
      { messages: [{ role: "assistant", content: [{ text: "hi" }] }] },
      "A conversation must start with a user message. Try again with a conversation that starts with a user message.",
    ],
    [
      "two user messages in a row",
      { messages: [user("a"), user("b")] },
      "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.",
    ],
    [
      "an empty message",
      { messages: [user("a"), { role: "assistant", content: [] }, user("b")] },
      "The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again.",
    ],
    [
      "a blank text",
      { messages: [user("a"), { role: "assistant", content: [{ text: "  " }] }, user("b")] },
      "The text field in the ContentBlock object at messages.1.content.0 is blank. Add text to the text field, and try again.",
    ],
    [
      "a toolUse without its toolResult in the next message",
      { messages: [user("a"), call("tooluse_x"), user("b")] },
      "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_x",
    ],
    [
      "a toolResult answering no toolUse",
      {
        messages: [
          user("a"),
          call("tooluse_x"),
          {
            role: "user",
            content: [...result("tooluse_x").content!, ...result("tooluse_y").content!],
          },
        ],
      },
      "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.",
    ],
    [
      "an error toolResult without content",
      {
        messages: [
          user("a"),
          call("tooluse_x"),
          {
            role: "user",
            content: [{ toolResult: { toolUseId: "tooluse_x", content: [], status: "error" } }],
          },
        ],
      },
      "The content field at messages.2.content.0.toolResult cannot be empty when status value is error.",
    ],
    [
      "an empty toolResult text",
      {
        messages: [
          user("a"),
          call("tooluse_x"),
          {
            role: "user",
            content: [{ toolResult: { toolUseId: "tooluse_x", content: [{ text: "" }] } }],
          },
        ],
      },
      "The model returned the following errors: messages: text content blocks must be non-empty",
    ],
    [
      "reasoning without its signature",
      {
        messages: [
          user("a"),
          {
            role: "assistant",
            content: [{ reasoningContent: { reasoningText: { text: "hmm" } } }, { text: "x" }],
          },
          user("b"),
        ],
      },
      "The model returned the following errors: messages.1.content.0.thinking.signature: Field required",
    ],
    [
      "thinking on, and the tool loop's assistant message does not start with its reasoning",
      {
        messages: [user("a"), call("tooluse_x"), result("tooluse_x")],
        additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
      },
      /^The model returned the following errors: messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    ],
    [
      "duplicate toolUse ids",
      {
        messages: [
          user("a"),
          call("tooluse_x"),
          result("tooluse_x"),
          call("tooluse_x"),
          result("tooluse_x"),
        ],
      },
      "The model returned the following errors: messages.3.content.0: `tool_use` ids must be unique",
    ],
    [
      "maxTokens 0",
      { inferenceConfig: { maxTokens: 0 } },
      "1 validation error detected: Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
    ],
  ];
  for (const [name, fields, message] of cases) {
    it(name, async () => {
      const answer = await rejection({ ...ask("hi"), ...fields });
      expect(answer.name).toBe("ValidationException");
      expect(answer.status).toBe(400);
      if (typeof message === "string") expect(answer.message).toBe(message);
      else expect(answer.message).toMatch(message);
    });
  }

  it("tool blocks without toolConfig", async () => {
    const answer = await rejection({
      modelId: MODEL,
      messages: [user("a"), call("tooluse_x"), result("tooluse_x")],
    });
    expect(answer.message).toBe(
      "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
    );
  });

  it("the thinking requirement is met by the reasoning the model sent, first in its message", async () => {
    const { events, error } = await sdkEvents({
      ...ask("hi"),
      messages: [
        user("a"),
        {
          role: "assistant",
          content: [
            { reasoningContent: { reasoningText: { text: "hmm", signature: "Eqsig" } } },
            { toolUse: { toolUseId: "tooluse_x", name: "cart_total", input: {} } },
          ],
        },
        result("tooluse_x"),
      ],
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
    });
    expect(error).toBeUndefined();
    expect(events.at(-2)?.messageStop?.stopReason).toBe("end_turn");
  });

  it("malformed JSON and unknown routes, raw", async () => {
    const bad = await fetch(`${sim.url}${STREAM}`, { method: "POST", body: "{" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-amzn-errortype")).toMatch(/^ValidationException:/);
    expect(await bad.json()).toEqual({
      message: "Malformed input request, please reformat your input and try again.",
    });
    const unknown = await fetch(`${sim.url}/model/x/invoke-nothing`, {
      method: "POST",
      body: "{}",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-amzn-errortype")).toMatch(/^UnknownOperationException:/);
  });
});
