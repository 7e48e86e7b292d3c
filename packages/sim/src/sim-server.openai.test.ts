import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  parseSse,
  rawPost,
  SHOP_FUNCTIONS,
  startTestSim,
  THREE_CALL_INPUTS,
  THREE_CALLS,
} from "./test-support.js";

const sim = await startTestSim();
/** A simulator whose answer starts with a call, no text before it. */
const bare = await startTestSim({
  policy: () => ({ blocks: [{ type: "tool_use", name: "x", input: { a: 1 } }] }),
});
const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "test", maxRetries: 0 });
const ask = (text: string) => ({
  model: "gpt-4o",
  tools: SHOP_FUNCTIONS,
  messages: [{ role: "user" as const, content: text }],
});
const withFault = (fault: string) => ({ headers: { "x-sim-fault": fault } });
const CALL_ID = /^call_[0-9A-Za-z]{24}$/;

/** The raw chunks of a streamed request: their JSON, `[DONE]` kept as a string. */
async function rawChunks(body: object, headers: Record<string, string> = {}) {
  const answer = await rawPost(
    `${sim.url}/v1/chat/completions`,
    { ...body, stream: true },
    headers,
  );
  const frames = parseSse(answer.text);
  return {
    ...answer,
    frames,
    chunks: frames.map((f) => (f.data === "[DONE]" ? f.data : JSON.parse(f.data))),
  };
}

/** The tool_calls deltas of a chunk list. */
function toolCallDeltas(chunks: unknown[]): unknown[][] {
  return chunks.flatMap((c) => {
    const delta = (c as { choices?: { delta?: { tool_calls?: unknown[] } }[] }).choices?.[0]?.delta;
    return delta?.tool_calls ? [delta.tool_calls] : [];
  });
}

describe("Chat Completions through the official SDK", () => {
  it("answers text, streamed and not, as a scripted- model", async () => {
    const streamed = await client.chat.completions.stream(ask("Hello there")).finalChatCompletion();
    const created = await client.chat.completions.create(ask("Hello there"));
    for (const completion of [streamed, created]) {
      expect(completion.model).toBe("scripted-sim");
      expect(completion.id).toMatch(/^chatcmpl-[0-9A-Za-z]{29}$/);
      expect(completion.system_fingerprint).toMatch(/^fp_[0-9a-f]{10}$/);
      expect(completion.choices[0]?.finish_reason).toBe("stop");
      expect(completion.choices[0]?.message.content).toMatch(/^I am a scripted model/);
      expect(completion.choices[0]?.message.tool_calls ?? []).toEqual([]);
    }
    expect(streamed.choices[0]?.message.content).toBe(created.choices[0]?.message.content);
    expect(created.usage?.completion_tokens).toBeGreaterThan(1);
  });

  it("streams several tool calls whose arguments parse to the scripted inputs", async () => {
    for (const completion of [
      await client.chat.completions.stream(ask(THREE_CALLS)).finalChatCompletion(),
      await client.chat.completions.create(ask(THREE_CALLS)),
    ]) {
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe("tool_calls");
      expect(choice?.message.content).toBe("Calling add_to_cart, add_to_cart and cart_total.");
      const calls = (choice?.message.tool_calls ?? []).flatMap((c) =>
        c.type === "function" ? [c] : [],
      );
      expect(calls.map((c) => c.function.name)).toEqual([
        "add_to_cart",
        "add_to_cart",
        "cart_total",
      ]);
      expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual(THREE_CALL_INPUTS);
      for (const call of calls) expect(call.id).toMatch(CALL_ID);
    }
  });

  it("carries a conversation through a tool round", async () => {
    const first = await client.chat.completions.stream(ask(THREE_CALLS)).finalChatCompletion();
    const message = first.choices[0]!.message;
    const second = await client.chat.completions.create({
      ...ask(THREE_CALLS),
      messages: [
        { role: "system", content: "You are a shop assistant." },
        { role: "user", content: THREE_CALLS },
        { role: "assistant", content: message.content, tool_calls: message.tool_calls ?? [] },
        ...(message.tool_calls ?? []).map((c) => ({
          role: "tool" as const,
          tool_call_id: c.id,
          content: "ok",
        })),
      ],
    });
    expect(second.choices[0]?.message.content).toBe(
      "Results: add_to_cart: ok; add_to_cart: ok; cart_total: ok",
    );
  });

  it("leaves thinking and web search out: Chat Completions has no equivalent", async () => {
    const plain = await client.chat.completions.create(ask(THREE_CALLS));
    const faulted = await client.chat.completions.create(
      ask(THREE_CALLS),
      withFault("thinking,web-search"),
    );
    expect(faulted.choices[0]?.message.content).toBe(plain.choices[0]?.message.content);
    expect(faulted.choices[0]?.message.tool_calls?.length).toBe(3);
  });

  it("reports usage in a last chunk when stream_options.include_usage is set", async () => {
    const completion = await client.chat.completions
      .stream({ ...ask("hi"), stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(completion.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
    });
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  it("ends the stream after an error frame (error-after)", async () => {
    const error = await client.chat.completions
      .stream(ask(THREE_CALLS), withFault("error-after=4"))
      .finalChatCompletion()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("server_error");
    const { chunks } = await rawChunks(ask(THREE_CALLS), { "x-sim-fault": "error-after=4" });
    expect(chunks).toHaveLength(5);
    expect(chunks.at(-1)).toEqual({
      error: {
        message: "The server had an error while processing your request. Sorry about that!",
        type: "server_error",
        param: null,
        code: null,
      },
    });
  });

  it("drops the connection mid-stream (drop-after)", async () => {
    const stream = client.chat.completions.stream(ask(THREE_CALLS), withFault("drop-after=5"));
    let chunks = 0;
    stream.on("chunk", () => chunks++);
    await expect(stream.finalChatCompletion()).rejects.toThrow();
    expect(chunks).toBe(5);
  });

  it("streams invalid JSON arguments for the last call (invalid-json)", async () => {
    const completion = await client.chat.completions
      .stream(ask(THREE_CALLS), withFault("invalid-json"))
      .finalChatCompletion();
    const calls = (completion.choices[0]?.message.tool_calls ?? []).flatMap((c) =>
      c.type === "function" ? [c] : [],
    );
    expect(calls.slice(0, 2).map((c) => JSON.parse(c.function.arguments))).toEqual(
      THREE_CALL_INPUTS.slice(0, 2),
    );
    expect(calls[2]?.function.arguments).toBe("{, }");
  });

  it("cuts the last call's JSON with finish_reason length (max-tokens)", async () => {
    const completion = await client.chat.completions
      .stream(ask(THREE_CALLS.replace(" call cart_total", "")), withFault("max-tokens"))
      .finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("length");
    const last = choice?.message.tool_calls?.at(-1);
    const args = last?.type === "function" ? last.function.arguments : "";
    expect('{"sku":"B-2002","quantity":1,"note":"gift \\"wrap\\" ✓"}'.startsWith(args)).toBe(true);
    expect(() => JSON.parse(args)).toThrow();
  });

  it("answers 429, 529 and 500 before the stream with the SDK's typed errors", async () => {
    const rate = await client.chat.completions
      .create(ask("hi"), withFault("status=429"))
      .catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(OpenAI.RateLimitError);
    const rateError = rate as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateError.code).toBe("rate_limit_exceeded");
    expect(rateError.requestID).toMatch(/^req_[0-9a-f]{32}$/);
    const overloaded = await client.chat.completions
      .stream(ask("hi"), withFault("status=529"))
      .finalChatCompletion()
      .catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
    expect((overloaded as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    const internal = await client.chat.completions
      .create(ask("hi"), withFault("status=500"))
      .catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(OpenAI.InternalServerError);
  });
});

describe("Chat Completions raw chunks", () => {
  it("sends role first, content deltas, tool call starts then fragments, finish_reason, [DONE]", async () => {
    const { headers, text, frames, chunks } = await rawChunks(ask(THREE_CALLS));
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(text).toBe(frames.map((f) => `data: ${f.data}\n\n`).join(""));
    expect(chunks.at(-1)).toBe("[DONE]");
    const body = chunks.slice(0, -1) as Record<string, unknown>[];
    for (const chunk of body) {
      expect(Object.keys(chunk)).toEqual([
        "id",
        "object",
        "created",
        "model",
        "service_tier",
        "system_fingerprint",
        "choices",
      ]);
      expect(chunk).toMatchObject({
        object: "chat.completion.chunk",
        id: body[0]?.id,
        created: body[0]?.created,
      });
    }
    expect((body[0] as { choices: unknown[] }).choices[0]).toEqual({
      index: 0,
      delta: { role: "assistant", content: "", refusal: null },
      logprobs: null,
      finish_reason: null,
    });
    const calls = toolCallDeltas(body);
    expect(calls[0]).toEqual([
      {
        index: 0,
        id: expect.stringMatching(CALL_ID),
        type: "function",
        function: { name: "add_to_cart", arguments: "" },
      },
    ]);
    expect(calls[1]).toEqual([{ index: 0, function: { arguments: expect.any(String) } }]);
    const byIndex = new Map<number, string>();
    for (const [call] of calls as { index: number; function: { arguments?: string } }[][]) {
      byIndex.set(call!.index, (byIndex.get(call!.index) ?? "") + (call!.function.arguments ?? ""));
    }
    expect([...byIndex.values()].map((a) => JSON.parse(a))).toEqual(THREE_CALL_INPUTS);
    expect((body.at(-1) as { choices: unknown[] }).choices[0]).toEqual({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "tool_calls",
    });
  });

  it("merges the role into the first call when the answer starts with a call", async () => {
    const raw = await rawPost(`${bare.url}/v1/chat/completions`, { ...ask("hi"), stream: true });
    const chunks = parseSse(raw.text).map((f) =>
      f.data === "[DONE]" ? f.data : JSON.parse(f.data),
    );
    expect((chunks[0] as { choices: { delta: unknown }[] }).choices[0]?.delta).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(CALL_ID),
          type: "function",
          function: { name: "x", arguments: "" },
        },
      ],
      refusal: null,
    });
  });

  it("adds usage: null to every chunk and a usage chunk with choices: [] when asked", async () => {
    const { chunks } = await rawChunks({ ...ask("hi"), stream_options: { include_usage: true } });
    const body = chunks.slice(0, -1) as Record<string, unknown>[];
    for (const chunk of body.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(body.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: expect.any(Number) },
    });
    expect(chunks.at(-1)).toBe("[DONE]");
  });

  describe("quirk modes", () => {
    const twoCalls = {
      model: "m",
      messages: [{ role: "user", content: 'call a {"x": 1} call b {"y": 2}' }],
    };

    it("index-zero: every call at index 0, told apart by a new id", async () => {
      const { chunks } = await rawChunks(twoCalls, { "x-sim-quirk": "index-zero" });
      const calls = toolCallDeltas(chunks).flat() as { index: number; id?: string }[];
      expect(new Set(calls.map((c) => c.index))).toEqual(new Set([0]));
      const ids = calls.flatMap((c) => (c.id ? [c.id] : []));
      expect(ids).toHaveLength(2);
      expect(ids[0]).not.toBe(ids[1]);
    });

    it("whole-call: each call complete in one chunk", async () => {
      const { chunks } = await rawChunks(twoCalls, { "x-sim-quirk": "whole-call" });
      expect(toolCallDeltas(chunks)).toEqual([
        [
          {
            index: 0,
            id: expect.stringMatching(CALL_ID),
            type: "function",
            function: { name: "a", arguments: '{"x":1}' },
          },
        ],
        [
          {
            index: 1,
            id: expect.stringMatching(CALL_ID),
            type: "function",
            function: { name: "b", arguments: '{"y":2}' },
          },
        ],
      ]);
    });

    it("multi-call-chunk: several calls' fragments in one chunk", async () => {
      const { chunks } = await rawChunks(twoCalls, { "x-sim-quirk": "multi-call-chunk" });
      const deltas = toolCallDeltas(chunks) as {
        index: number;
        id?: string;
        function: { arguments: string };
      }[][];
      expect(deltas[0]?.map((c) => [c.index, c.id !== undefined])).toEqual([
        [0, true],
        [1, true],
      ]);
      const joined = new Map<number, string>();
      for (const c of deltas.flat())
        joined.set(c.index, (joined.get(c.index) ?? "") + c.function.arguments);
      expect([...joined.values()]).toEqual(['{"x":1}', '{"y":2}']);
    });

    it("no-args: arguments omitted entirely, or empty", async () => {
      const noArgs = { model: "m", messages: [{ role: "user", content: "call cart_total {}" }] };
      const omitted = await rawChunks(noArgs, { "x-sim-quirk": "no-args" });
      expect(toolCallDeltas(omitted.chunks)).toEqual([
        [
          {
            index: 0,
            id: expect.stringMatching(CALL_ID),
            type: "function",
            function: { name: "cart_total" },
          },
        ],
      ]);
      const empty = await rawChunks(noArgs, { "x-sim-quirk": "no-args=empty" });
      expect(toolCallDeltas(empty.chunks)).toEqual([
        [
          {
            index: 0,
            id: expect.stringMatching(CALL_ID),
            type: "function",
            function: { name: "cart_total", arguments: "" },
          },
        ],
      ]);
      const plain = await rawChunks(noArgs);
      expect(toolCallDeltas(plain.chunks).at(-1)).toEqual([
        { index: 0, function: { arguments: "{}" } },
      ]);
    });

    it("no-usage: no usage chunk even when asked, none in the body", async () => {
      const { chunks } = await rawChunks(
        { ...ask("hi"), stream_options: { include_usage: true } },
        { "x-sim-quirk": "no-usage" },
      );
      expect(chunks.slice(0, -1).every((c) => !("usage" in (c as object)))).toBe(true);
      const whole = await client.chat.completions.create(ask("hi"), {
        headers: { "x-sim-quirk": "no-usage" },
      });
      expect(whole.usage).toBeUndefined();
    });

    it("refuses an unknown quirk with a 400", async () => {
      const raw = await rawPost(`${sim.url}/v1/chat/completions`, ask("hi"), {
        "x-sim-quirk": "sloppy",
      });
      expect(raw.status).toBe(400);
      expect(JSON.parse(raw.text).error.message).toMatch(/Unknown quirk "sloppy"/);
    });
  });
});

describe("Chat Completions validation", () => {
  const calling = {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_a", type: "function", function: { name: "x", arguments: "{}" } },
      { id: "call_b", type: "function", function: { name: "y", arguments: "{}" } },
    ],
  };
  const cases: [
    string,
    Record<string, unknown>,
    { message: string; param: string | null; code: string | null },
  ][] = [
    [
      "a tool message without a preceding tool_calls id",
      {
        model: "m",
        messages: [
          { role: "user", content: "hi" },
          { role: "tool", tool_call_id: "call_z", content: "ok" },
        ],
      },
      {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        param: "messages.[1].role",
        code: null,
      },
    ],
    [
      "tool_calls not answered",
      {
        model: "m",
        messages: [
          { role: "user", content: "hi" },
          calling,
          { role: "tool", tool_call_id: "call_a", content: "ok" },
          { role: "user", content: "and?" },
        ],
      },
      {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          "The following tool_call_ids did not have response messages: call_b",
        param: "messages.[3].role",
        code: null,
      },
    ],
    [
      "empty messages",
      { model: "m", messages: [] },
      {
        message:
          "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        param: "messages",
        code: "empty_array",
      },
    ],
    [
      "missing messages",
      { model: "m" },
      {
        message: "Missing required parameter: 'messages'.",
        param: "messages",
        code: "missing_required_parameter",
      },
    ],
  ];

  it.each(cases)("rejects %s (SDK and raw)", async (_, body, expected) => {
    const error = await client.chat.completions.create(body as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.message).toBe(`400 ${expected.message}`);
    expect(bad.param).toBe(expected.param);
    const raw = await rawPost(`${sim.url}/v1/chat/completions`, body);
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text)).toEqual({ error: { ...expected, type: "invalid_request_error" } });
  });

  it("rejects a malformed JSON body with OpenAI's wording", async () => {
    const raw = await rawPost(`${sim.url}/v1/chat/completions`, "{nope");
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text).error).toMatchObject({
      message: expect.stringMatching(/^We could not parse the JSON body of your request\. \(HINT/),
      type: "invalid_request_error",
      param: null,
      code: null,
    });
  });
});
