import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  parseSse,
  rawPost,
  SHOP_TOOLS,
  startTestSim,
  THREE_CALL_INPUTS,
  THREE_CALLS,
} from "./test-support.js";

const sim = await startTestSim();
const client = new Anthropic({ baseURL: sim.url, apiKey: "test", maxRetries: 0 });
const base = { model: "claude-sonnet-4-5", max_tokens: 1024, tools: SHOP_TOOLS };
const ask = (text: string) => ({ ...base, messages: [{ role: "user" as const, content: text }] });
const withFault = (fault: string) => ({ headers: { "x-sim-fault": fault } });
const TOOL_ID = /^toolu_01[0-9A-Za-z]{22}$/;

/** The raw events of a streamed request, with their JSON data. */
async function rawEvents(body: unknown, headers: Record<string, string> = {}) {
  const answer = await rawPost(
    `${sim.url}/v1/messages`,
    { ...(body as object), stream: true },
    headers,
  );
  return {
    ...answer,
    events: parseSse(answer.text).map((f) => ({ ...f, json: JSON.parse(f.data) })),
  };
}

describe("Messages API through the official SDK", () => {
  it("answers text, streamed and not, as a scripted- model", async () => {
    const streamed = await client.messages.stream(ask("Hello there")).finalMessage();
    const created = await client.messages.create({ ...ask("Hello there"), stream: false });
    for (const message of [streamed, created]) {
      expect(message.model).toBe("scripted-sim");
      expect(message.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
      expect(message.stop_reason).toBe("end_turn");
      expect(message.content).toHaveLength(1);
      expect(message.content[0]).toMatchObject({
        type: "text",
        text: expect.stringContaining("scripted model"),
      });
    }
    expect(streamed.content).toEqual(created.content);
    expect(streamed.usage.output_tokens).toBe(created.usage.output_tokens);
    expect((await client.messages.create({ ...ask("hi"), model: "scripted-shop" })).model).toBe(
      "scripted-shop",
    );
  });

  it("streams several tool calls whose inputs equal the scripted ones", async () => {
    for (const message of [
      await client.messages.stream(ask(THREE_CALLS)).finalMessage(),
      await client.messages.create(ask(THREE_CALLS)),
    ]) {
      expect(message.stop_reason).toBe("tool_use");
      const calls = message.content.filter((b) => b.type === "tool_use");
      expect(calls.map((c) => c.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
      expect(calls.map((c) => c.input)).toEqual(THREE_CALL_INPUTS);
      for (const call of calls) expect(call.id).toMatch(TOOL_ID);
      expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    }
  });

  it("carries a conversation through a tool round", async () => {
    const first = await client.messages.stream(ask(THREE_CALLS)).finalMessage();
    const results = first.content.flatMap((b) =>
      b.type === "tool_use"
        ? [{ type: "tool_result" as const, tool_use_id: b.id, content: `done ${b.name}` }]
        : [],
    );
    const second = await client.messages
      .stream({
        ...base,
        messages: [
          { role: "user", content: THREE_CALLS },
          { role: "assistant", content: first.content },
          { role: "user", content: results },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([
      {
        type: "text",
        text: "Results: add_to_cart: done add_to_cart; add_to_cart: done add_to_cart; cart_total: done cart_total",
      },
    ]);
  });

  it("thinks when the request enables thinking or the fault asks", async () => {
    const byRequest = await client.messages
      .stream({
        ...ask(THREE_CALLS),
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
      })
      .finalMessage();
    const byFault = await client.messages.create(ask("hi"), withFault("thinking"));
    for (const message of [byRequest, byFault]) {
      const thinking = message.content[0];
      expect(thinking?.type).toBe("thinking");
      if (thinking?.type !== "thinking") continue;
      expect(thinking.thinking).toMatch(/scripted model/);
      expect(thinking.signature).toMatch(/^Eq[\w+/]{290}$/);
    }
    expect(
      byRequest.content
        .slice(1)
        .filter((b) => b.type === "tool_use")
        .map((b) => b.input),
    ).toEqual(THREE_CALL_INPUTS);
  });

  it("searches the web server-side before answering", async () => {
    for (const message of [
      await client.messages.stream(ask("Find red shoes"), withFault("web-search")).finalMessage(),
      await client.messages.create(ask("Find red shoes"), withFault("web-search")),
    ]) {
      expect(message.content.map((b) => b.type)).toEqual([
        "server_tool_use",
        "web_search_tool_result",
        "text",
      ]);
      const [call, result] = message.content;
      expect(call).toMatchObject({ name: "web_search", input: { query: "Find red shoes" } });
      expect(result).toMatchObject({
        tool_use_id: call?.type === "server_tool_use" ? call.id : "",
        content: [
          { type: "web_search_result", url: expect.stringContaining("https://") },
          { type: "web_search_result" },
        ],
      });
      expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    }
  });

  it("sends an overloaded error event mid-stream (error-after)", async () => {
    const error = await client.messages
      .stream(ask(THREE_CALLS), withFault("error-after=6"))
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
    const { events } = await rawEvents(ask(THREE_CALLS), { "x-sim-fault": "error-after=6" });
    expect(events).toHaveLength(7);
    expect(events.at(-1)?.event).toBe("error");
  });

  it("drops the connection mid-stream (drop-after)", async () => {
    const stream = client.messages.stream(ask(THREE_CALLS), withFault("drop-after=8"));
    const seen: string[] = [];
    stream.on("streamEvent", (event) => seen.push(event.type));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(seen).toHaveLength(7); // the ping is not a stream event for the SDK
    expect(seen).not.toContain("message_stop");
  });

  it("streams invalid JSON arguments for the last call (invalid-json)", async () => {
    const { events } = await rawEvents(ask(THREE_CALLS), { "x-sim-fault": "invalid-json" });
    const args = new Map<number, string>();
    for (const { json } of events) {
      if (json.delta?.type === "input_json_delta") {
        args.set(json.index, (args.get(json.index) ?? "") + json.delta.partial_json);
      }
    }
    expect([...args.values()].slice(0, 2).map((a) => JSON.parse(a))).toEqual(
      THREE_CALL_INPUTS.slice(0, 2),
    );
    expect(args.get(3)).toBe("{, }");
    expect(() => JSON.parse(args.get(3) ?? "")).toThrow();
    expect(events.at(-2)?.json.delta.stop_reason).toBe("tool_use");
  });

  it("cuts the last call's JSON and stops with max_tokens (max-tokens)", async () => {
    const message = await client.messages
      .stream(ask(THREE_CALLS.replace(" call cart_total", "")), withFault("max-tokens"))
      .finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
    const { events } = await rawEvents(ask(THREE_CALLS.replace(" call cart_total", "")), {
      "x-sim-fault": "max-tokens",
    });
    const last = events.filter((e) => e.json.index === 2);
    const args = last.map((e) => e.json.delta?.partial_json ?? "").join("");
    const full = '{"sku": "B-2002", "quantity": 1, "note": "gift \\"wrap\\" ✓"}';
    expect(full.startsWith(args) && args.length === Math.floor(Array.from(full).length / 2)).toBe(
      true,
    );
    expect(() => JSON.parse(args)).toThrow();
    expect(last.at(-1)?.event).toBe("content_block_stop");
    expect(events.at(-2)?.json.delta.stop_reason).toBe("max_tokens");
  });

  it("answers 429, 529 and 500 before the stream with the SDK's typed errors", async () => {
    const rate = await client.messages
      .create(ask("hi"), withFault("status=429"))
      .catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(Anthropic.RateLimitError);
    const rateError = rate as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateError.status).toBe(429);
    expect(rateError.type).toBe("rate_limit_error");
    expect(rateError.requestID).toMatch(/^req_011C[0-9A-Za-z]{20}$/);
    expect(rateError.headers?.get("retry-after")).toBe("1");
    const overloaded = await client.messages
      .stream(ask("hi"), withFault("status=529"))
      .finalMessage()
      .catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
    expect(overloaded).toBeInstanceOf(Anthropic.OverloadedError);
    expect((overloaded as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    const internal = await client.messages
      .create(ask("hi"), withFault("status=500"))
      .catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(Anthropic.InternalServerError);
    const raw = await rawPost(`${sim.url}/v1/messages`, ask("hi"), { "x-sim-fault": "status=529" });
    expect(JSON.parse(raw.text)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
      request_id: raw.headers.get("request-id"),
    });
  });

  it("waits before the first byte (slow-first-byte)", async () => {
    const started = performance.now();
    await client.messages.create(ask("hi"), withFault("slow-first-byte=300"));
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe("Messages API raw stream bytes", () => {
  it("frames every event as `event:` + `data:` in the API's order", async () => {
    const { status, headers, text, events } = await rawEvents(ask(THREE_CALLS));
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(headers.get("cache-control")).toBe("no-cache");
    expect(headers.get("request-id")).toMatch(/^req_011C/);
    expect(text).toBe(events.map((e) => `event: ${e.event}\ndata: ${e.data}\n\n`).join(""));
    for (const e of events) expect(e.json.type).toBe(e.event);
    const order = events.map((e) => e.event).filter((name, i, all) => name !== all[i - 1]);
    expect(order).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_stop",
      ...Array(3).fill(["content_block_start", "content_block_delta", "content_block_stop"]).flat(),
      "message_delta",
      "message_stop",
    ]);
    expect(events.filter((e) => e.event === "ping").map((e) => e.data)).toEqual([
      '{"type": "ping"}',
    ]);
  });

  it("starts tool_use blocks with input {} and an empty first input_json_delta", async () => {
    const { events } = await rawEvents(ask(THREE_CALLS));
    const start = events.findIndex(
      (e) => e.event === "content_block_start" && e.json.content_block.type === "tool_use",
    );
    expect(events[start]?.data).toMatch(
      /^\{"type":"content_block_start","index":1,"content_block":\{"type":"tool_use","id":"toolu_01[0-9A-Za-z]{22}","name":"add_to_cart","input":\{\}\}\}$/,
    );
    expect(events[start + 1]?.data).toBe(
      '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}',
    );
    // A call without arguments: the empty delta, then the stop.
    const last = events.filter((e) => e.json.index === 3).map((e) => e.data);
    expect(last.slice(1)).toEqual([
      '{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}',
      '{"type":"content_block_stop","index":3}',
    ]);
  });

  it("buffers a tool's input without eager_input_streaming: whole, in one delta right before the stop", async () => {
    const { events } = await rawEvents(ask(THREE_CALLS));
    for (const [i, input] of THREE_CALL_INPUTS.entries()) {
      const block = events.filter((e) => e.json.index === i + 1);
      const deltas = block.filter((e) => e.event === "content_block_delta");
      const args = deltas.map((e) => e.json.delta.partial_json as string);
      expect(block[0]?.event).toBe("content_block_start");
      expect(block.at(-1)?.event).toBe("content_block_stop");
      // The empty delta at the start, then (when there is any input) all of it at once.
      expect(args).toEqual(i < 2 ? ["", args[1]] : [""]);
      expect(JSON.parse(args.join("") || "{}")).toEqual(input);
    }
  });

  it("streams a tool's input in many paced deltas with eager_input_streaming: true", async () => {
    const eager = SHOP_TOOLS.map((t) => ({ ...t, eager_input_streaming: true }));
    const { events } = await rawEvents({ ...ask(THREE_CALLS), tools: eager });
    const block = events.filter((e) => e.json.index === 2);
    const args = block
      .filter((e) => e.event === "content_block_delta")
      .map((e) => e.json.delta.partial_json as string);
    expect(args.length).toBeGreaterThan(4);
    expect(args.slice(1).every((a) => a.length <= 12)).toBe(true); // argDeltaChars [2, 12]
    expect(JSON.parse(args.join(""))).toEqual(THREE_CALL_INPUTS[1]);
    // Per tool: another tool without the field in the same request stays buffered.
    const mixed = [eager[0], SHOP_TOOLS[1]];
    const { events: again } = await rawEvents({
      ...ask(
        'call add_to_cart {"sku": "A-1001", "quantity": 2} call cart_total {"currency": "EUR"}',
      ),
      tools: mixed,
    });
    const count = (index: number) =>
      again.filter((e) => e.json.index === index && e.event === "content_block_delta").length;
    expect(count(1)).toBeGreaterThan(2);
    expect(count(2)).toBe(2);
  });

  it("reports usage: output_tokens 1 at the start, the cumulative total in message_delta", async () => {
    const { events } = await rawEvents(ask(THREE_CALLS));
    const start = events[0]?.json.message;
    expect(start).toMatchObject({
      content: [],
      stop_reason: null,
      stop_sequence: null,
      model: "scripted-sim",
    });
    expect(start.usage).toMatchObject({ output_tokens: 1, input_tokens: expect.any(Number) });
    const delta = events.at(-2)?.json;
    expect(delta).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: start.usage.input_tokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: expect.any(Number),
      },
    });
    const whole = await client.messages.create(ask(THREE_CALLS));
    expect(delta.usage.output_tokens).toBe(whole.usage.output_tokens);
    expect(events.at(-1)?.data).toBe('{"type":"message_stop"}');
  });

  it("streams thinking deltas, then one signature_delta, then the stop", async () => {
    const { events } = await rawEvents(ask("hi"), { "x-sim-fault": "thinking" });
    const thinking = events.filter((e) => e.json.index === 0).map((e) => e.json);
    expect(thinking[0]).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    const kinds = thinking.slice(1).map((e) => e.delta?.type ?? e.type);
    expect(kinds.at(-2)).toBe("signature_delta");
    expect(kinds.at(-1)).toBe("content_block_stop");
    expect(new Set(kinds.slice(0, -2))).toEqual(new Set(["thinking_delta"]));
  });

  it("sends web search results whole: a start carrying the block, then its stop", async () => {
    const { events } = await rawEvents(ask("shoes"), { "x-sim-fault": "web-search" });
    const result = events.filter((e) => e.json.index === 1);
    expect(result.map((e) => e.event)).toEqual(["content_block_start", "content_block_stop"]);
    expect(Object.keys(result[0]?.json.content_block.content[0])).toEqual([
      "type",
      "title",
      "url",
      "encrypted_content",
      "page_age",
    ]);
  });
});

describe("Messages API validation", () => {
  const user = (content: unknown) => ({ role: "user", content });
  const assistantCalls = (...ids: string[]) => ({
    role: "assistant",
    content: ids.map((id) => ({ type: "tool_use", id, name: "cart_total", input: {} })),
  });
  const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
  const cases: [string, Record<string, unknown>, string][] = [
    ["missing model", { max_tokens: 10, messages: [user("hi")] }, "model: Field required"],
    [
      "max_tokens not above the thinking budget",
      {
        ...base,
        max_tokens: 1024,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [user("hi")],
      },
      "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at " +
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
    ],
    ["missing max_tokens", { model: "m", messages: [user("hi")] }, "max_tokens: Field required"],
    ["empty messages", { ...base, messages: [] }, "messages: at least one message is required"],
    [
      "a tool_use without its tool_result in the next message",
      {
        ...base,
        messages: [user("go"), assistantCalls("toolu_a", "toolu_b"), user([result("toolu_a")])],
      },
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. " +
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ],
    [
      "a tool_use left at the end",
      { ...base, messages: [user("go"), assistantCalls("toolu_a")] },
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. " +
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ],
    [
      "a tool_result without its tool_use",
      {
        ...base,
        messages: [
          user("go"),
          assistantCalls("toolu_a"),
          user([result("toolu_a"), result("toolu_x")]),
        ],
      },
      "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. " +
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    ],
    [
      "tool_results not first",
      {
        ...base,
        messages: [
          user("go"),
          assistantCalls("toolu_a"),
          user([{ type: "text", text: "also" }, result("toolu_a")]),
        ],
      },
      "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. " +
        "Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
    ],
    [
      "duplicate tool_use ids",
      {
        ...base,
        messages: [
          user("go"),
          assistantCalls("toolu_a"),
          user([result("toolu_a")]),
          assistantCalls("toolu_a"),
        ],
      },
      "messages.3.content.0: `tool_use` ids must be unique",
    ],
    [
      "a non-boolean eager_input_streaming on a tool",
      {
        ...base,
        tools: [SHOP_TOOLS[0], { ...SHOP_TOOLS[1], eager_input_streaming: "yes" }],
        messages: [user("hi")],
      },
      "tools.1.custom.eager_input_streaming: Input should be a valid boolean",
    ],
    [
      "an empty text block",
      { ...base, messages: [user([{ type: "text", text: "" }])] },
      "messages: text content blocks must be non-empty",
    ],
    [
      "a whitespace text block",
      { ...base, messages: [user([{ type: "text", text: " \n" }])] },
      "messages: text content blocks must contain non-whitespace text",
    ],
    [
      "an empty message",
      { ...base, messages: [user([]), { role: "assistant", content: "ok" }] },
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
    ],
  ];

  it.each(cases)("rejects %s with the API's wording (SDK)", async (_, body, message) => {
    const error = await client.messages.create(body as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const bad = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.type).toBe("invalid_request_error");
    expect(bad.apiMessage).toBe(message);
  });

  it.each(cases)("rejects %s with the API's error body (raw)", async (_, body, message) => {
    const raw = await rawPost(`${sim.url}/v1/messages`, { ...body, stream: true });
    expect(raw.status).toBe(400);
    expect(raw.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(raw.text)).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message },
      request_id: raw.headers.get("request-id"),
    });
  });

  it("rejects a malformed JSON body", async () => {
    const raw = await rawPost(`${sim.url}/v1/messages`, '{"model": "m",\n "max_tokens": }');
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text).error).toEqual({
      type: "invalid_request_error",
      message: expect.stringMatching(
        /^The request body is not valid JSON: .+: line 2 column \d+ \(char \d+\)$/,
      ),
    });
  });

  it("accepts eager_input_streaming true, false or null on a tool", async () => {
    const tools = [true, false, null].map((eager, i) => ({
      ...SHOP_TOOLS[0]!,
      name: `tool_${i}`,
      eager_input_streaming: eager,
    }));
    const message = await client.messages.create({ ...ask("hi"), tools });
    expect(message.stop_reason).toBe("end_turn");
  });

  it("accepts a conversation starting with an assistant message", async () => {
    const message = await client.messages.create({
      ...base,
      messages: [
        { role: "assistant", content: "Welcome!" },
        { role: "user", content: "hi" },
      ],
    });
    expect(message.stop_reason).toBe("end_turn");
  });
});
