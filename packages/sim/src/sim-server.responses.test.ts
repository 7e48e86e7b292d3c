import OpenAI from "openai";
import type {
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { sealedItemId, sealReasoning } from "./responses-wire.js";
import {
  parseSse,
  rawPost,
  SHOP_TOOLS,
  startTestSim,
  THREE_CALL_INPUTS,
  THREE_CALLS,
} from "./test-support.js";

const sim = await startTestSim();
const log: string[] = [];
const logged = await startTestSim({ log: (line) => log.push(line) });
const refusing = await startTestSim({
  policy: () => ({
    blocks: [{ type: "text", text: "I can't help with that." }],
    stopReason: "refusal",
  }),
});
const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "test", maxRetries: 0 });

/** The shop tools as Responses function tools (non-strict: their schemas are not strict ones). */
const TOOLS = SHOP_TOOLS.map((t) => ({
  type: "function" as const,
  name: t.name,
  description: t.description,
  parameters: t.input_schema as Record<string, unknown>,
  strict: false,
}));

const ask = (text: string, extra: Omit<Partial<ResponseCreateParamsNonStreaming>, "stream"> = {}) =>
  ({
    model: "gpt-5",
    input: [{ role: "user" as const, content: text }],
    tools: TOOLS,
    store: false,
    include: ["reasoning.encrypted_content" as const],
    ...extra,
  }) satisfies ResponseCreateParamsNonStreaming;
const withFault = (fault: string) => ({ headers: { "x-sim-fault": fault } });
const HEX50 = /^[0-9a-f]{50}$/;

/** The events of a streamed request, as sent: `event:` name and parsed data. */
async function rawEvents(body: object, headers: Record<string, string> = {}) {
  const answer = await rawPost(`${sim.url}/v1/responses`, { ...body, stream: true }, headers);
  const frames = parseSse(answer.text);
  return {
    ...answer,
    frames,
    events: frames.map((f) => JSON.parse(f.data) as Record<string, unknown> & { type: string }),
  };
}

/** The function calls of a response's output. */
function calls(output: readonly { type: string }[]) {
  return output.flatMap((item) =>
    item.type === "function_call"
      ? [
          item as {
            type: "function_call";
            id?: string;
            call_id: string;
            name: string;
            arguments: string;
            status?: string;
          },
        ]
      : [],
  );
}

/** What a client sends back after a round: the output items, then one output per call. */
function nextInput(
  first: string | ResponseInputItem[],
  output: readonly unknown[],
): ResponseInputItem[] {
  const items = output.map((item) => {
    const { parsed_arguments: _p, ...rest } = item as Record<string, unknown>;
    if (rest.type === "message") {
      rest.content = (rest.content as Record<string, unknown>[]).map(
        ({ parsed: _x, ...part }) => part,
      );
    }
    return rest as unknown as ResponseInputItem;
  });
  const outputs = calls(output as { type: string }[]).map(
    (c): ResponseInputItem => ({ type: "function_call_output", call_id: c.call_id, output: "ok" }),
  );
  const before: ResponseInputItem[] =
    typeof first === "string" ? [{ role: "user", content: first }] : first;
  return [...before, ...items, ...outputs];
}

describe("Responses API through the official SDK", () => {
  it("answers text, streamed and not, as a scripted- model with the API's ids", async () => {
    const streamed = await client.responses.stream(ask("Hello there")).finalResponse();
    const created = await client.responses.create(ask("Hello there"));
    for (const response of [streamed, created]) {
      expect(response.model).toBe("scripted-sim");
      expect(response.id).toMatch(/^resp_[0-9a-f]{50}$/);
      expect(response.status).toBe("completed");
      expect((response as { store?: unknown }).store).toBe(false);
      expect(response.output_text).toMatch(/^I am a scripted model/);
      expect(response.output).toHaveLength(1);
      const message = response.output[0]!;
      expect(message).toMatchObject({ type: "message", role: "assistant", status: "completed" });
      const id = message.id ?? "";
      expect(id).toMatch(/^msg_[0-9a-f]{50}$/);
      // Items share the response id's first characters, as the API's do.
      expect(id.slice(4, 28)).toBe(response.id.slice(5, 29));
    }
    expect(streamed.output_text).toBe(created.output_text);
    expect(created.usage?.output_tokens).toBeGreaterThan(1);
    expect(created.usage?.total_tokens).toBe(
      (created.usage?.input_tokens ?? 0) + (created.usage?.output_tokens ?? 0),
    );
  });

  it("streams several function calls whose arguments parse to the scripted inputs", async () => {
    for (const response of [
      await client.responses.stream(ask(THREE_CALLS)).finalResponse(),
      await client.responses.create(ask(THREE_CALLS)),
    ]) {
      expect(response.output_text).toBe("Calling add_to_cart, add_to_cart and cart_total.");
      const fns = calls(response.output);
      expect(fns.map((c) => c.name)).toEqual(["add_to_cart", "add_to_cart", "cart_total"]);
      expect(fns.map((c) => JSON.parse(c.arguments))).toEqual(THREE_CALL_INPUTS);
      for (const call of fns) {
        expect(call.call_id).toMatch(/^call_[0-9A-Za-z]{24}$/);
        expect(call.id?.slice(3)).toMatch(HEX50);
        expect(call.status).toBe("completed");
      }
    }
  });

  it("carries a conversation through a tool round (items sent back whole, outputs by call_id)", async () => {
    const input = ask(THREE_CALLS).input;
    const first = await client.responses.create(ask(THREE_CALLS));
    const second = await client.responses.create({
      ...ask(THREE_CALLS),
      instructions: "You are a shop assistant.",
      input: nextInput(input, first.output),
    });
    expect(second.output_text).toBe("Results: add_to_cart: ok; add_to_cart: ok; cart_total: ok");
  });

  it("reasons when asked (reasoning.effort, or the thinking fault): a reasoning item first, sealed when included, summarised when asked", async () => {
    const summarised = await client.responses
      .stream(ask(THREE_CALLS, { reasoning: { effort: "low", summary: "auto" } }))
      .finalResponse();
    const reasoning = summarised.output[0]!;
    if (reasoning.type !== "reasoning") throw new Error("no reasoning item first");
    expect(reasoning.id).toMatch(/^rs_[0-9a-f]{50}$/);
    expect(sealedItemId(reasoning.encrypted_content ?? "")).toBe(reasoning.id);
    expect(reasoning.summary[0]?.text).toMatch(/scripted model/);
    expect(summarised.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    // Silent reasoning, not sealed: neither summary nor encrypted content.
    const silent = await client.responses.create(
      { ...ask(THREE_CALLS), include: [] },
      withFault("thinking"),
    );
    expect(silent.output[0]).toEqual({ id: expect.any(String), type: "reasoning", summary: [] });
    expect(calls(silent.output)).toHaveLength(3);
    // The whole output sent back is accepted: the reasoning item verifies and is followed.
    const next = await client.responses.create({
      ...ask(THREE_CALLS),
      input: nextInput(ask(THREE_CALLS).input, summarised.output),
    });
    expect(next.output_text).toMatch(/^Results:/);
  });

  it("web search (the web-search fault): a web_search_call item before the answer, whose text cites the results as url_citation annotations; all sent back, the conversation goes on", async () => {
    const body = ask("Find red shoes", { tools: [{ type: "web_search" }, ...TOOLS] });
    const streamed = await client.responses.stream(body, withFault("web-search")).finalResponse();
    const created = await client.responses.create(body, withFault("web-search"));
    for (const response of [streamed, created]) {
      expect(response.output.map((i) => i.type)).toEqual(["web_search_call", "message"]);
      const search = response.output[0]!;
      expect(search).toEqual({
        id: expect.stringMatching(/^ws_[0-9a-f]{50}$/),
        type: "web_search_call",
        status: "completed",
        action: { type: "search", queries: ["Find red shoes"], query: "Find red shoes" },
      });
      const message = response.output[1]!;
      const part = message.type === "message" ? message.content[0] : undefined;
      const text = part?.type === "output_text" ? part.text : "";
      expect(part?.type === "output_text" && part.annotations).toEqual(
        [1, 2].map((n) => ({
          type: "url_citation",
          start_index: 0,
          end_index: text.length,
          title: `Scripted result ${n} for "Find red shoes"`,
          url: `https://example.com/overlap-sim/${n}?q=Find%20red%20shoes`,
        })),
      );
    }
    // Sent back as received (the item, the annotated message), the next round is accepted.
    const next = await client.responses.create({
      ...body,
      input: nextInput(body.input, created.output),
    });
    expect(next.status).toBe("completed");
    // Without the fault there is no search, and function calls are left alone by it.
    const plain = await client.responses.create(ask(THREE_CALLS));
    const faulted = await client.responses.create(ask(THREE_CALLS), withFault("web-search"));
    expect(faulted.output.map((i) => i.type)).toEqual([
      "web_search_call",
      ...plain.output.map((i) => i.type),
    ]);
  });

  it("a refusal script is sent as refusal parts", async () => {
    const refusalClient = new OpenAI({ baseURL: `${refusing.url}/v1`, apiKey: "t", maxRetries: 0 });
    const response = await refusalClient.responses.stream(ask("Do it.")).finalResponse();
    expect(response.status).toBe("completed");
    expect(response.output[0]).toMatchObject({
      type: "message",
      content: [{ type: "refusal", refusal: "I can't help with that." }],
    });
  });

  it("ends the stream after an error event (error-after): the SDK raises an APIError", async () => {
    const error = await client.responses
      .stream(ask(THREE_CALLS), withFault("error-after=4"))
      .finalResponse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("server_error");
    const { frames, events } = await rawEvents(ask(THREE_CALLS), {
      "x-sim-fault": "error-after=4",
    });
    expect(events).toHaveLength(5);
    expect(frames.at(-1)?.event).toBe("error");
    expect(events.at(-1)).toEqual({
      type: "error",
      error: {
        type: "server_error",
        code: "server_error",
        message: "The server had an error while processing your request. Sorry about that!",
        param: null,
      },
    });
  });

  it("drops the connection mid-stream (drop-after)", async () => {
    const stream = client.responses.stream(ask(THREE_CALLS), withFault("drop-after=6"));
    let events = 0;
    stream.on("event", () => events++);
    await expect(stream.finalResponse()).rejects.toThrow();
    expect(events).toBe(6);
  });

  it("streams invalid JSON arguments for the last call (invalid-json)", async () => {
    const response = await client.responses
      .stream(ask(THREE_CALLS), withFault("invalid-json"))
      .finalResponse();
    const fns = calls(response.output);
    expect(fns.slice(0, 2).map((c) => JSON.parse(c.arguments))).toEqual(
      THREE_CALL_INPUTS.slice(0, 2),
    );
    expect(fns[2]?.arguments).toBe("{, }");
  });

  it("cuts the last call with response.incomplete, max_output_tokens (max-tokens): no arguments.done for it", async () => {
    const body = ask(THREE_CALLS.replace(" call cart_total", ""));
    const response = await client.responses.stream(body, withFault("max-tokens")).finalResponse();
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    const last = calls(response.output).at(-1)!;
    expect(last.status).toBe("incomplete");
    expect(
      '{"sku":"B-2002","quantity":1,"note":"gift \\"wrap\\" ✓"}'.startsWith(last.arguments),
    ).toBe(true);
    expect(() => JSON.parse(last.arguments)).toThrow();
    const { events } = await rawEvents(body, { "x-sim-fault": "max-tokens" });
    const done = events.filter((e) => e.type === "response.function_call_arguments.done");
    expect(done).toHaveLength(1); // the first call only
    expect(events.at(-1)?.type).toBe("response.incomplete");
  });

  it("cuts the answer at the request's max_output_tokens", async () => {
    const response = await client.responses.create(ask(THREE_CALLS, { max_output_tokens: 16 }));
    expect(response.status).toBe("incomplete");
    expect(response.max_output_tokens).toBe(16);
  });

  it("answers 429, 529 and 500 before the stream with the SDK's typed errors", async () => {
    const rate = await client.responses
      .create(ask("hi"), withFault("status=429"))
      .catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(OpenAI.RateLimitError);
    expect((rate as InstanceType<typeof OpenAI.RateLimitError>).requestID).toMatch(
      /^req_[0-9a-f]{32}$/,
    );
    const overloaded = await client.responses
      .stream(ask("hi"), withFault("status=529"))
      .finalResponse()
      .catch((e: unknown) => e);
    expect((overloaded as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    const internal = await client.responses
      .create(ask("hi"), withFault("status=500"))
      .catch((e: unknown) => e);
    expect(internal).toBeInstanceOf(OpenAI.InternalServerError);
  });
});

describe("Responses API raw events", () => {
  it("every frame is `event: <type>` + `data:` JSON with that type and the next sequence_number; items added, streamed, done in order", async () => {
    const { headers, frames, events } = await rawEvents(
      ask(THREE_CALLS, { reasoning: { effort: "low", summary: "auto" } }),
    );
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    frames.forEach((frame, i) => {
      expect(frame.event).toBe(events[i]!.type);
      expect(events[i]!.sequence_number).toBe(i);
    });
    expect(events.slice(0, 2).map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
    ]);
    expect(events.at(-1)?.type).toBe("response.completed");
    const added = events.filter((e) => e.type === "response.output_item.added");
    expect(added.map((e) => (e.item as { type: string }).type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
      "function_call",
    ]);
    expect(added.map((e) => e.output_index)).toEqual([0, 1, 2, 3, 4]);
    // A call: added with empty arguments, deltas keyed by item id, arguments.done, item done.
    const callId = (added[2]!.item as { id: string }).id;
    const own = events.filter(
      (e) => e.item_id === callId || (e.item as { id?: string })?.id === callId,
    );
    expect(own.map((e) => e.type)).toEqual([
      "response.output_item.added",
      ...own.slice(1, -2).map(() => "response.function_call_arguments.delta"),
      "response.function_call_arguments.done",
      "response.output_item.done",
    ]);
    expect(own.length).toBeGreaterThan(4);
    // A web search item: added, in progress, searching, completed, done; the annotations of the
    // cited text announced after its deltas, before its output_text.done.
    const searched = await rawEvents(ask("Find red shoes"), { "x-sim-fault": "web-search" });
    const searchId = (
      searched.events.find((e) => e.type === "response.output_item.added")!.item as { id: string }
    ).id;
    expect(
      searched.events
        .filter((e) => e.item_id === searchId || (e.item as { id?: string })?.id === searchId)
        .map((e) => e.type),
    ).toEqual([
      "response.output_item.added",
      "response.web_search_call.in_progress",
      "response.web_search_call.searching",
      "response.web_search_call.completed",
      "response.output_item.done",
    ]);
    const textEvents = searched.events
      .map((e) => e.type)
      .filter((t) => t.startsWith("response.output_text") || t === "response.content_part.done");
    expect(textEvents.slice(-4)).toEqual([
      "response.output_text.annotation.added",
      "response.output_text.annotation.added",
      "response.output_text.done",
      "response.content_part.done",
    ]);
    const text = events.filter((e) => e.type === "response.output_text.delta");
    expect(text.map((e) => e.delta).join("")).toBe(
      "Calling add_to_cart, add_to_cart and cart_total.",
    );
    // The completed response lists the done items.
    const completed = events.at(-1)!.response as { output: unknown[]; status: string };
    expect(completed.status).toBe("completed");
    expect(completed.output).toEqual(
      events.filter((e) => e.type === "response.output_item.done").map((e) => e.item),
    );
  });

  it("the same request gives the same bytes (created_at aside), a new round new ids", async () => {
    const a = await rawEvents(ask(THREE_CALLS));
    const b = await rawEvents(ask(THREE_CALLS));
    const same = (text: string) => text.replace(/"created_at":\d+/g, '"created_at":0');
    expect(same(a.text)).toBe(same(b.text));
    const c = await rawEvents(ask(`${THREE_CALLS} `));
    expect(same(c.text)).not.toBe(same(a.text));
  });
});

describe("Responses API request validation (400 invalid_request_error, the API's wording)", () => {
  const post = (body: unknown) => rawPost(`${sim.url}/v1/responses`, body);
  const error = async (body: unknown) => {
    const answer = await post(body);
    return {
      status: answer.status,
      ...(JSON.parse(answer.text) as { error: Record<string, unknown> }),
    };
  };
  const call = (id: string): ResponseInputItem => ({
    type: "function_call",
    call_id: id,
    name: "cart_total",
    arguments: "{}",
  });
  const output = (id: string): ResponseInputItem => ({
    type: "function_call_output",
    call_id: id,
    output: "ok",
  });
  const user = { role: "user", content: "Hi." };

  it("an unanswered function call", async () => {
    expect(await error({ model: "m", input: [user, call("call_1"), user] })).toEqual({
      status: 400,
      error: {
        message: "No tool output found for function call call_1.",
        type: "invalid_request_error",
        param: "input",
        code: null,
      },
    });
  });

  it("an output without its call", async () => {
    expect(await error({ model: "m", input: [user, output("call_9")] })).toMatchObject({
      status: 400,
      error: {
        message: "No tool call found for function call output with call_id call_9.",
        param: "input",
      },
    });
  });

  it("a reasoning item without its following item, without its encrypted content, or altered", async () => {
    const id = "rs_0123";
    const sealed = {
      type: "reasoning",
      id,
      summary: [],
      encrypted_content: sealReasoning(id, "ab12"),
    };
    expect(await error({ model: "m", input: [user, sealed, user] })).toMatchObject({
      status: 400,
      error: {
        message:
          "Item 'rs_0123' of type 'reasoning' was provided without its required following item.",
      },
    });
    const bare = { type: "reasoning", id, summary: [] };
    expect(
      await error({ model: "m", store: false, input: [user, bare, call("c"), output("c")] }),
    ).toMatchObject({
      status: 404,
      error: {
        message:
          "Item with id 'rs_0123' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
      },
    });
    const moved = { ...sealed, id: "rs_9999" };
    expect(await error({ model: "m", input: [user, moved, call("c"), output("c")] })).toMatchObject(
      {
        status: 400,
        error: { message: "The encrypted content for item rs_9999 could not be verified." },
      },
    );
    // Followed by a web search call whose action is missing: the call is incomplete.
    const search = { type: "web_search_call", id: "ws_1", status: "completed" };
    expect(await error({ model: "m", input: [user, sealed, search, user] })).toMatchObject({
      status: 400,
      error: { message: "Missing required parameter: 'input[2].action'." },
    });
    // Followed by its call, an assistant message or a provider-side item, it is accepted.
    expect(
      (
        await post({
          model: "m",
          input: [user, sealed, { ...search, action: { type: "search", query: "q" } }, user],
        })
      ).status,
    ).toBe(200);
    expect((await post({ model: "m", input: [user, sealed, call("c"), output("c")] })).status).toBe(
      200,
    );
    expect(
      (
        await post({
          model: "m",
          input: [user, sealed, { role: "assistant", content: "Done." }, user],
        })
      ).status,
    ).toBe(200);
  });

  it("a strict function tool (the default) with a non-strict schema", async () => {
    const tool = { type: "function", name: "add_to_cart", parameters: SHOP_TOOLS[0]!.input_schema };
    expect(await error({ model: "m", input: "Hi.", tools: [tool] })).toMatchObject({
      error: {
        message:
          "Invalid schema for function 'add_to_cart': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        param: "tools[0].parameters",
        code: "invalid_function_parameters",
      },
    });
    const closed = { ...tool, parameters: { ...tool.parameters, additionalProperties: false } };
    expect(await error({ model: "m", input: "Hi.", tools: [closed] })).toMatchObject({
      error: {
        message:
          "Invalid schema for function 'add_to_cart': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'quantity'.",
      },
    });
    expect(
      (await post({ model: "m", input: "Hi.", tools: [{ ...tool, strict: false }] })).status,
    ).toBe(200);
  });

  it("missing model or input, max_output_tokens below 16, a bad role, malformed JSON", async () => {
    expect(await error({ input: "Hi." })).toMatchObject({
      error: {
        message: "Missing required parameter: 'model'.",
        param: "model",
        code: "missing_required_parameter",
      },
    });
    expect(await error({ model: "m" })).toMatchObject({
      error: { message: "Missing required parameter: 'input'.", param: "input" },
    });
    expect(await error({ model: "m", input: "Hi.", max_output_tokens: 5 })).toMatchObject({
      error: {
        message:
          "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.",
        param: "max_output_tokens",
        code: "integer_below_min_value",
      },
    });
    expect(await error({ model: "m", input: [{ role: "robot", content: "x" }] })).toMatchObject({
      error: { param: "input[0].role", code: "invalid_value" },
    });
    const bad = await rawPost(`${sim.url}/v1/responses`, '{"model": "m",');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.message).toMatch(/^We could not parse the JSON body/);
  });

  it("the SDK raises BadRequestError; the log names the route", async () => {
    const loggedClient = new OpenAI({ baseURL: `${logged.url}/v1`, apiKey: "t", maxRetries: 0 });
    const failure = await loggedClient.responses
      .create({ model: "m", input: [user as ResponseInputItem, call("call_1")] })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(log.at(-1)).toBe("POST /v1/responses 400 invalid_request_error");
    await loggedClient.responses.create({ model: "m", input: "Hi." });
    expect(log.at(-1)).toBe("POST /v1/responses 200 json end_turn");
  });
});
