import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseDecoder } from "../../sse/sse-decoder.js";
import { type AssemblerReport, BlockAssembler } from "../../stream/block-assembler.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { splitSeeded } from "../../testing/replay.js";
import {
  ResponsesEventTranslator,
  type ResponsesItem,
  type ResponsesStreamEvent,
} from "./responses-event-translator.js";

// ---------------------------------------------------------------------------------------------
// A small builder of Responses streams, in the API's event order (see the module comment).

type Spec =
  | { kind: "text"; id: string; chunks: string[]; phase?: string }
  | { kind: "refusal"; id: string; chunks: string[] }
  | { kind: "call"; id: string; callId: string; name: string; chunks: string[] }
  | { kind: "reasoning"; id: string; summary: string[]; encrypted: string };

const RESPONSE = { id: "resp_0abc", object: "response", model: "gpt-test", status: "in_progress" };

function doneItem(spec: Spec): ResponsesItem {
  switch (spec.kind) {
    case "text":
      return {
        id: spec.id,
        type: "message",
        status: "completed",
        content: [
          { type: "output_text", annotations: [], logprobs: [], text: spec.chunks.join("") },
        ],
        role: "assistant",
        ...(spec.phase ? { phase: spec.phase } : {}),
      };
    case "refusal":
      return {
        id: spec.id,
        type: "message",
        status: "completed",
        content: [{ type: "refusal", refusal: spec.chunks.join("") }],
        role: "assistant",
      };
    case "call":
      return {
        id: spec.id,
        type: "function_call",
        status: "completed",
        arguments: spec.chunks.join(""),
        call_id: spec.callId,
        name: spec.name,
      };
    case "reasoning":
      return {
        id: spec.id,
        type: "reasoning",
        encrypted_content: spec.encrypted,
        summary: [{ type: "summary_text", text: spec.summary.join("") }],
      };
  }
}

function addedItem(spec: Spec): ResponsesItem {
  switch (spec.kind) {
    case "text":
      return {
        id: spec.id,
        type: "message",
        status: "in_progress",
        content: [],
        role: "assistant",
        ...(spec.phase ? { phase: spec.phase } : {}),
      };
    case "refusal":
      return {
        id: spec.id,
        type: "message",
        status: "in_progress",
        content: [],
        role: "assistant",
      };
    case "call":
      return { ...doneItem(spec), status: "in_progress", arguments: "" };
    case "reasoning":
      return { id: spec.id, type: "reasoning", encrypted_content: "gAAAA-early", summary: [] };
  }
}

/** The events of one item at output_index `i` (without sequence numbers). */
function itemEvents(spec: Spec, i: number): ResponsesStreamEvent[] {
  const at = { output_index: i, item_id: spec.id };
  const events: ResponsesStreamEvent[] = [
    { type: "response.output_item.added", output_index: i, item: addedItem(spec) },
  ];
  switch (spec.kind) {
    case "text": {
      const text = spec.chunks.join("");
      const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
      events.push({ type: "response.content_part.added", ...at, content_index: 0, part });
      for (const delta of spec.chunks) {
        events.push({ type: "response.output_text.delta", ...at, content_index: 0, delta });
      }
      events.push({ type: "response.output_text.done", ...at, content_index: 0, text });
      events.push({
        type: "response.content_part.done",
        ...at,
        content_index: 0,
        part: { ...part, text },
      });
      break;
    }
    case "refusal": {
      const refusal = spec.chunks.join("");
      events.push({
        type: "response.content_part.added",
        ...at,
        content_index: 0,
        part: { type: "refusal", refusal: "" },
      });
      for (const delta of spec.chunks) {
        events.push({ type: "response.refusal.delta", ...at, content_index: 0, delta });
      }
      events.push({ type: "response.refusal.done", ...at, content_index: 0, refusal });
      events.push({
        type: "response.content_part.done",
        ...at,
        content_index: 0,
        part: { type: "refusal", refusal },
      });
      break;
    }
    case "call":
      for (const delta of spec.chunks) {
        events.push({ type: "response.function_call_arguments.delta", ...at, delta });
      }
      events.push({
        type: "response.function_call_arguments.done",
        ...at,
        arguments: spec.chunks.join(""),
      });
      break;
    case "reasoning": {
      const text = spec.summary.join("");
      events.push({
        type: "response.reasoning_summary_part.added",
        ...at,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of spec.summary) {
        events.push({ type: "response.reasoning_summary_text.delta", ...at, delta });
      }
      events.push({ type: "response.reasoning_summary_text.done", ...at, text });
      break;
    }
  }
  events.push({ type: "response.output_item.done", output_index: i, item: doneItem(spec) });
  return events;
}

interface Ending {
  type?: "response.completed" | "response.incomplete";
  reason?: string;
}

/** A whole stream: created, in_progress, the items one after another, the terminal event. */
function stream(specs: readonly Spec[], ending: Ending = {}): ResponsesStreamEvent[] {
  const type = ending.type ?? "response.completed";
  const events: ResponsesStreamEvent[] = [
    { type: "response.created", response: { ...RESPONSE, output: [], usage: null } },
    { type: "response.in_progress", response: { ...RESPONSE, output: [], usage: null } },
    ...specs.flatMap((spec, i) => itemEvents(spec, i)),
    {
      type,
      response: {
        ...RESPONSE,
        status: type === "response.completed" ? "completed" : "incomplete",
        output: specs.map(doneItem),
        usage: { input_tokens: 120, output_tokens: 45 },
        incomplete_details: ending.reason ? { reason: ending.reason } : null,
      },
    },
  ];
  return numbered(events);
}

function numbered(events: readonly ResponsesStreamEvent[]): ResponsesStreamEvent[] {
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

/** Neutral events of a Responses stream. */
function translate(events: readonly ResponsesStreamEvent[]): StreamEvent[] {
  const translator = new ResponsesEventTranslator();
  return [...events.flatMap((e) => translator.push(e)), ...translator.end()];
}

/** Translated and assembled: the message, and when each call was reported complete. */
function run(events: readonly ResponsesStreamEvent[]) {
  const translator = new ResponsesEventTranslator();
  const assembler = new BlockAssembler();
  const reports: Array<{ at: number; report: AssemblerReport }> = [];
  events.forEach((event, at) => {
    for (const neutral of translator.push(event)) {
      for (const report of assembler.push(neutral)) reports.push({ at, report });
    }
  });
  for (const neutral of translator.end()) {
    for (const report of assembler.push(neutral)) reports.push({ at: events.length, report });
  }
  const end = reports.find((r) => r.report.type === "message-end")?.report;
  const calls = reports.flatMap(({ at, report }) =>
    report.type === "tool-call" ? [{ at, callId: report.callId, input: report.input }] : [],
  );
  const errors = reports.flatMap(({ report }) => (report.type === "stream-error" ? [report] : []));
  return {
    end: end?.type === "message-end" ? end : undefined,
    calls,
    errors,
    assembler,
    translator,
  };
}

const ADD: Spec = {
  kind: "call",
  id: "fc_0abc01",
  callId: "call_A1",
  name: "add_to_cart",
  chunks: ['{"sku":"SH', 'OE-42","qty"', ":2}"],
};
const TOTAL: Spec = {
  kind: "call",
  id: "fc_0abc02",
  callId: "call_B2",
  name: "cart_total",
  chunks: ["{}"],
};
const SEARCH: Spec = {
  kind: "call",
  id: "fc_0abc03",
  callId: "call_C3",
  name: "search",
  chunks: ['{"query":"red', ' shoes","size":', "[41,42]}"],
};
const TEXT: Spec = {
  kind: "text",
  id: "msg_0abc00",
  chunks: ["Adding the shoes, ", "then totalling ", "and searching. café 🎉"],
};
const REASONING: Spec = {
  kind: "reasoning",
  id: "rs_0abc00",
  summary: ["**Planning**\n\nThe user ", "wants shoes."],
  encrypted: "gAAAAABsealed==",
};

// ---------------------------------------------------------------------------------------------

describe("ResponsesEventTranslator", () => {
  it("text, then three calls: blocks in item order, ids kept, stop tool_use, usage from the final response", () => {
    const { end, calls } = run(stream([TEXT, ADD, TOTAL, SEARCH]));
    expect(end?.stopReason).toBe("tool_use");
    expect(end?.usage).toEqual({ input_tokens: 120, output_tokens: 45 });
    expect(end?.message.content).toEqual([
      {
        type: "text",
        text: "Adding the shoes, then totalling and searching. café 🎉",
        openai_item: { id: "msg_0abc00" },
      },
      {
        type: "tool_use",
        id: "call_A1",
        name: "add_to_cart",
        input: { sku: "SHOE-42", qty: 2 },
        openai_item: { id: "fc_0abc01" },
      },
      {
        type: "tool_use",
        id: "call_B2",
        name: "cart_total",
        input: {},
        openai_item: { id: "fc_0abc02" },
      },
      {
        type: "tool_use",
        id: "call_C3",
        name: "search",
        input: { query: "red shoes", size: [41, 42] },
        openai_item: { id: "fc_0abc03" },
      },
    ]);
    expect(calls.map((c) => c.callId)).toEqual(["call_A1", "call_B2", "call_C3"]);
  });

  it("a call is complete at function_call_arguments.done: before the next item starts, never when a prefix parses", () => {
    const events = stream([ADD, TOTAL, SEARCH]);
    const { calls } = run(events);
    for (const call of calls) {
      expect(events[call.at]?.type).toBe("response.function_call_arguments.done");
    }
    // `{"sku":"SHOE-42","qty":2}` parses only once complete, but `{}` of cart_total parses at its
    // first delta: it is still reported at its done event, not earlier.
    const totalDelta = events.findIndex(
      (e) => e.type === "response.function_call_arguments.delta" && e.item_id === "fc_0abc02",
    );
    expect(calls[1]!.at).toBeGreaterThan(totalDelta);
    // The first call is complete before the last call's arguments begin.
    const searchFirstDelta = events.findIndex(
      (e) => e.type === "response.function_call_arguments.delta" && e.item_id === "fc_0abc03",
    );
    expect(calls[0]!.at).toBeLessThan(searchFirstDelta);
  });

  it("without function_call_arguments.done, output_item.done ends the call; when both come, the first does and the second is a no-op", () => {
    const without = stream([ADD]).filter((e) => e.type !== "response.function_call_arguments.done");
    const a = run(without);
    expect(a.calls).toHaveLength(1);
    expect(without[a.calls[0]!.at]?.type).toBe("response.output_item.done");
    expect(a.end?.message.content[0]).toMatchObject({ input: { sku: "SHOE-42", qty: 2 } });
    const both = run(stream([ADD]));
    expect(both.calls).toHaveLength(1);
    const stops = translate(stream([ADD])).filter((e) => e.type === "content_block_stop");
    expect(stops).toHaveLength(1);
  });

  it("the done arguments are the truth: what they add to the streamed text is emitted", () => {
    const events = stream([ADD]).filter(
      (e) =>
        !(e.type === "response.function_call_arguments.delta" && e.delta === ":2}") &&
        !(e.type === "response.function_call_arguments.delta" && e.delta === 'OE-42","qty"'),
    );
    const { end } = run(events);
    expect(end?.message.content[0]).toMatchObject({ input: { sku: "SHOE-42", qty: 2 } });
    // Arguments given only in the done item (no delta, no arguments.done).
    const whole = stream([ADD]).filter(
      (e) =>
        e.type !== "response.function_call_arguments.delta" &&
        e.type !== "response.function_call_arguments.done",
    );
    expect(run(whole).end?.message.content[0]).toMatchObject({
      input: { sku: "SHOE-42", qty: 2 },
    });
  });

  it("a call announced only by its done item (no added event) is started and completed there", () => {
    const events = stream([TEXT, ADD]).filter(
      (e) =>
        !(e.type === "response.output_item.added" && e.item?.type === "function_call") &&
        e.type !== "response.function_call_arguments.delta" &&
        e.type !== "response.function_call_arguments.done",
    );
    const { end, calls } = run(events);
    expect(calls.map((c) => c.callId)).toEqual(["call_A1"]);
    expect(end?.message.content[1]).toEqual({
      type: "tool_use",
      id: "call_A1",
      name: "add_to_cart",
      input: { sku: "SHOE-42", qty: 2 },
      openai_item: { id: "fc_0abc01" },
    });
  });

  it("arguments keyed by output_index only (no item_id) reach their call", () => {
    const events = stream([TEXT, ADD, SEARCH]).map((e) => {
      if (!e.type.startsWith("response.function_call_arguments")) return e;
      const { item_id: _id, ...rest } = e;
      return rest;
    });
    const { end } = run(events);
    expect(end?.message.content.slice(1).map((b) => (b.type === "tool_use" ? b.input : b))).toEqual(
      [
        { sku: "SHOE-42", qty: 2 },
        { query: "red shoes", size: [41, 42] },
      ],
    );
  });

  it("parallel calls with interleaved arguments: each completes at its own done, in completion order; the message keeps item order", () => {
    const items = [ADD, SEARCH] as const;
    const events: ResponsesStreamEvent[] = [
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      ...items.map((spec, i) => ({
        type: "response.output_item.added",
        output_index: i,
        item: addedItem(spec),
      })),
    ];
    const longest = Math.max(...items.map((s) => (s.kind === "call" ? s.chunks.length : 0)));
    for (let j = 0; j < longest; j++) {
      items.forEach((spec, i) => {
        if (spec.kind !== "call" || spec.chunks[j] === undefined) return;
        events.push({
          type: "response.function_call_arguments.delta",
          output_index: i,
          item_id: spec.id,
          delta: spec.chunks[j],
        });
      });
    }
    // search finishes first.
    for (const i of [1, 0]) {
      const spec = items[i]!;
      events.push({
        type: "response.function_call_arguments.done",
        output_index: i,
        item_id: spec.id,
        arguments: spec.kind === "call" ? spec.chunks.join("") : "",
      });
      events.push({ type: "response.output_item.done", output_index: i, item: doneItem(spec) });
    }
    events.push({
      type: "response.completed",
      response: { ...RESPONSE, status: "completed", output: items.map(doneItem) },
    });
    const { end, calls } = run(numbered(events));
    expect(calls.map((c) => c.callId)).toEqual(["call_C3", "call_A1"]);
    expect(calls.map((c) => c.input)).toEqual([
      { ok: true, value: { query: "red shoes", size: [41, 42] } },
      { ok: true, value: { sku: "SHOE-42", qty: 2 } },
    ]);
    expect(end?.toolUses.map((u) => u.id)).toEqual(["call_A1", "call_C3"]);
    expect(end?.stopReason).toBe("tool_use");
  });

  it("the same message, calls and stop reason however the text and arguments are cut into deltas", () => {
    const expected = run(stream([REASONING, TEXT, ADD, TOTAL, SEARCH]));
    const rechunk = (text: string, cuts: number[]) => {
      const points = Array.from(text);
      const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
      const pieces: string[] = [];
      let from = 0;
      for (const cut of [...at, points.length]) {
        if (cut > from) pieces.push(points.slice(from, cut).join(""));
        from = Math.max(from, cut);
      }
      return pieces;
    };
    fc.assert(
      fc.property(fc.array(fc.nat(200), { maxLength: 12 }), (cuts) => {
        const specs = [REASONING, TEXT, ADD, TOTAL, SEARCH].map((spec): Spec => {
          if (spec.kind === "reasoning") return spec;
          return { ...spec, chunks: rechunk(spec.chunks.join(""), cuts) };
        });
        const got = run(stream(specs));
        expect(got.end?.message).toEqual(expected.end?.message);
        expect(got.end?.stopReason).toBe("tool_use");
        expect(got.calls.map((c) => [c.callId, c.input])).toEqual(
          expected.calls.map((c) => [c.callId, c.input]),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("the same message in 40 seeded byte chunkings of the SSE text (event: lines, data: JSON)", () => {
    const events = stream([REASONING, TEXT, ADD, TOTAL, SEARCH]);
    const text = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    const replay = (pieces: readonly string[]) => {
      const decoded: ResponsesStreamEvent[] = [];
      const decoder = new SseDecoder((frame) => {
        const event = JSON.parse(frame.data) as ResponsesStreamEvent;
        expect(frame.event).toBe(event.type);
        decoded.push(event);
      });
      for (const piece of pieces) decoder.push(piece);
      decoder.end();
      return run(decoded);
    };
    const whole = replay([text]);
    expect(whole.end?.message.content).toHaveLength(5);
    for (let seed = 1; seed <= 40; seed++) {
      const pieces = splitSeeded(text, seed, 1 + (seed % 8) * 17);
      const got = replay(pieces);
      expect(got.end?.message, `seed ${seed}`).toEqual(whole.end?.message);
      expect(
        got.calls.map((c) => c.callId),
        `seed ${seed}`,
      ).toEqual(whole.calls.map((c) => c.callId));
    }
  });

  it("a reasoning item is kept whole as an openai_reasoning block, in its place, its summary deltas not shown", () => {
    const events = stream([REASONING, TEXT, ADD]);
    const neutral = translate(events);
    expect(
      neutral.some((e) => e.type === "content_block_delta" && e.delta.type === "thinking_delta"),
    ).toBe(false);
    const { end } = run(events);
    expect(end?.message.content[0]).toEqual({
      type: "openai_reasoning",
      item: doneItem(REASONING),
    });
    expect(end?.message.content.map((b) => b.type)).toEqual([
      "openai_reasoning",
      "text",
      "tool_use",
    ]);
    // Its position is reserved at output_item.added: it stays first even when the next item's
    // block starts before the reasoning item is done.
    const early = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      { type: "response.output_item.added", output_index: 0, item: addedItem(REASONING) },
      { type: "response.output_item.added", output_index: 1, item: addedItem(ADD) },
      ...itemEvents(ADD, 1).slice(1),
      { type: "response.output_item.done", output_index: 0, item: doneItem(REASONING) },
      { type: "response.completed", response: { ...RESPONSE, status: "completed", output: [] } },
    ]);
    expect(run(early).end?.message.content.map((b) => b.type)).toEqual([
      "openai_reasoning",
      "tool_use",
    ]);
  });

  it("a reasoning item cut before its done is left out of the partial message", () => {
    const events = stream([REASONING, TEXT]);
    const cut = events.findIndex((e) => e.type === "response.reasoning_summary_text.done");
    const { assembler, end } = run(events.slice(0, cut + 1));
    expect(end).toBeUndefined();
    expect(assembler.partial().message.content).toEqual([]);
  });

  it("provider-side items become a server_tool_use and an openai_tool_result holding the item as received, in item order; never a local call", () => {
    const search = {
      id: "ws_0abc01",
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "red shoes", sources: [{ type: "url", url: "https://a" }] },
    };
    const mcp = {
      id: "mcp_0abc02",
      type: "mcp_call",
      status: "completed",
      approval_request_id: null,
      arguments: '{"q":"shoes"}',
      error: null,
      name: "find",
      output: "found",
      server_label: "shop",
    };
    const custom = {
      call_id: "xs_1",
      input: '{"query":"from:xai"}',
      name: "x_keyword_search",
      type: "custom_tool_call",
      id: "ctc_0abc03",
      status: "completed",
    };
    const events = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      ...itemEvents(REASONING, 0),
      {
        type: "response.output_item.added",
        output_index: 1,
        item: {
          id: search.id,
          type: search.type,
          status: "in_progress",
          action: { type: "search" },
        },
      },
      { type: "response.web_search_call.in_progress", output_index: 1, item_id: search.id },
      { type: "response.web_search_call.searching", output_index: 1, item_id: search.id },
      { type: "response.web_search_call.completed", output_index: 1, item_id: search.id },
      { type: "response.output_item.done", output_index: 1, item: search },
      ...itemEvents(TEXT, 2),
      {
        type: "response.output_item.added",
        output_index: 3,
        item: { ...custom, input: "", status: "in_progress" },
      },
      {
        type: "response.custom_tool_call_input.delta",
        output_index: 3,
        item_id: custom.id,
        delta: custom.input,
      },
      { type: "response.output_item.done", output_index: 3, item: custom },
      {
        type: "response.output_item.added",
        output_index: 4,
        item: { ...mcp, arguments: "", output: null, status: "in_progress" },
      },
      {
        type: "response.mcp_call_arguments.delta",
        output_index: 4,
        item_id: mcp.id,
        delta: mcp.arguments,
      },
      { type: "response.output_item.done", output_index: 4, item: mcp },
      {
        type: "response.completed",
        response: {
          ...RESPONSE,
          status: "completed",
          output: [doneItem(REASONING), search, doneItem(TEXT), custom, mcp],
        },
      },
    ]);
    const { end, calls } = run(events);
    expect(end?.message.content.map((b) => b.type)).toEqual([
      "openai_reasoning",
      "server_tool_use",
      "openai_tool_result",
      "text",
      "server_tool_use",
      "openai_tool_result",
      "server_tool_use",
      "openai_tool_result",
    ]);
    const content = end?.message.content ?? [];
    expect(content[1]).toEqual({
      type: "server_tool_use",
      id: search.id,
      name: "web_search",
      input: { action: search.action },
    });
    expect(content[2]).toEqual({
      type: "openai_tool_result",
      tool_use_id: search.id,
      content: search,
    });
    expect(content[4]).toEqual({
      type: "server_tool_use",
      id: custom.id,
      name: "x_keyword_search",
      input: { input: custom.input },
    });
    expect(content[5]).toMatchObject({ tool_use_id: custom.id, content: custom });
    expect(content[6]).toEqual({
      type: "server_tool_use",
      id: mcp.id,
      name: "find",
      input: { server_label: "shop", arguments: { q: "shoes" } },
    });
    expect(content[7]).toMatchObject({ tool_use_id: mcp.id, content: mcp });
    // Recorded and shown, never run: no local call, and the response ends its turn.
    expect(calls.map((c) => c.callId)).toEqual([search.id, custom.id, mcp.id]);
    expect(end?.toolUses).toEqual([]);
    expect(end?.stopReason).toBe("end_turn");
  });

  it("a provider-side item cut before its done is left out of the partial message; an item only in the final output is added there", () => {
    const item = { id: "fs_0abc01", type: "file_search_call", status: "completed", queries: ["q"] };
    const started = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, status: "in_progress" },
      },
      { type: "response.file_search_call.searching", output_index: 0, item_id: item.id },
      ...itemEvents(TEXT, 1).slice(0, 4),
    ]);
    const { assembler } = run(started);
    expect(assembler.partial().message.content.map((b) => b.type)).toEqual(["text"]);
    const { end } = run(
      numbered([
        { type: "response.created", response: { ...RESPONSE, output: [] } },
        {
          type: "response.completed",
          response: { ...RESPONSE, status: "completed", output: [item, doneItem(TEXT)] },
        },
      ]),
    );
    expect(end?.message.content.map((b) => b.type)).toEqual([
      "server_tool_use",
      "openai_tool_result",
      "text",
    ]);
    expect(end?.message.content[0]).toMatchObject({
      name: "file_search",
      input: { queries: ["q"] },
    });
  });

  it("output_text annotations are the text block's citations: as announced, then what the done part adds; one announced twice counts once", () => {
    const first = {
      type: "url_citation",
      start_index: 0,
      end_index: 6,
      title: "A",
      url: "https://a",
    };
    const second = { type: "file_citation", file_id: "file-1", filename: "f.pdf", index: 9 };
    const at = { output_index: 0, item_id: TEXT.id, content_index: 0 };
    const text = TEXT.chunks.join("");
    const events = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      ...itemEvents(TEXT, 0).slice(0, 3),
      {
        type: "response.output_text.annotation.added",
        ...at,
        annotation_index: 0,
        annotation: first,
      },
      {
        type: "response.output_text.annotation.added",
        ...at,
        annotation_index: 0,
        annotation: first,
      },
      { type: "response.output_text.done", ...at, text },
      {
        type: "response.content_part.done",
        ...at,
        part: { type: "output_text", annotations: [first, second], logprobs: [], text },
      },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: {
          ...doneItem(TEXT),
          content: [{ type: "output_text", annotations: [first, second], text }],
        },
      },
      { type: "response.completed", response: { ...RESPONSE, status: "completed", output: [] } },
    ]);
    const neutral = translate(events);
    const cited = neutral.flatMap((e) =>
      e.type === "content_block_delta" && e.delta.type === "citations_delta"
        ? [e.delta.citation]
        : [],
    );
    expect(cited).toEqual([first, second]);
    const { end } = run(events);
    expect(end?.message.content).toEqual([
      { type: "text", text, openai_item: { id: TEXT.id }, citations: [first, second] },
    ]);
    // Annotations only in the done item (never announced) are kept too.
    const late = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: {
          ...doneItem(TEXT),
          content: [{ type: "output_text", annotations: [second], text }],
        },
      },
      { type: "response.completed", response: { ...RESPONSE, status: "completed", output: [] } },
    ]);
    expect(run(late).end?.message.content[0]).toMatchObject({ citations: [second] });
  });

  it("a message's other fields (phase) are kept on its text, not its status", () => {
    const { end } = run(stream([{ ...TEXT, phase: "final_answer" } as Spec]));
    expect(end?.message.content).toEqual([
      {
        type: "text",
        text: "Adding the shoes, then totalling and searching. café 🎉",
        openai_item: { id: "msg_0abc00", phase: "final_answer" },
      },
    ]);
    expect(end?.stopReason).toBe("end_turn");
  });

  it("a refusal is text, with stop reason refusal", () => {
    const refusal: Spec = {
      kind: "refusal",
      id: "msg_0ref",
      chunks: ["I can't ", "help with that."],
    };
    const { end } = run(stream([refusal]));
    expect(end?.message.content).toEqual([
      { type: "text", text: "I can't help with that.", openai_item: { id: "msg_0ref" } },
    ]);
    expect(end?.stopReason).toBe("refusal");
  });

  it("response.incomplete: max_output_tokens is max_tokens (a cut call still ends at its done item), content_filter is refusal", () => {
    const cutCall: Spec = { ...ADD, chunks: ['{"sku":"SH'] } as Spec;
    const events = stream([TEXT, cutCall], {
      type: "response.incomplete",
      reason: "max_output_tokens",
    }).filter((e) => e.type !== "response.function_call_arguments.done");
    const { end, calls } = run(events);
    expect(end?.stopReason).toBe("max_tokens");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.input.ok).toBe(false);
    expect(end?.message.content[1]).toMatchObject({ type: "tool_use", input: {} });
    const filtered = run(stream([TEXT], { type: "response.incomplete", reason: "content_filter" }));
    expect(filtered.end?.stopReason).toBe("refusal");
  });

  it("items only in the final response's output are added at the end; open blocks are closed in order", () => {
    const events = numbered([
      { type: "response.created", response: { ...RESPONSE, output: [] } },
      ...itemEvents(TEXT, 0).slice(0, 4), // text started, not done
      {
        type: "response.completed",
        response: { ...RESPONSE, status: "completed", output: [doneItem(TEXT), doneItem(ADD)] },
      },
    ]);
    const { end, calls } = run(events);
    expect(end?.message.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(end?.message.content[0]).toMatchObject({
      text: "Adding the shoes, then totalling and searching. café 🎉",
    });
    expect(calls.map((c) => c.callId)).toEqual(["call_A1"]);
    expect(end?.stopReason).toBe("tool_use");
  });

  it("response.failed and error events become a neutral error event; nothing follows", () => {
    const failed = translate(
      numbered([
        { type: "response.created", response: RESPONSE },
        {
          type: "response.failed",
          response: {
            ...RESPONSE,
            status: "failed",
            error: { code: "server_error", message: "Boom." },
          },
        },
        { type: "response.completed", response: RESPONSE },
      ]),
    );
    expect(failed.at(-1)).toEqual({
      type: "error",
      error: { type: "server_error", message: "Boom." },
    });
    expect(failed.filter((e) => e.type === "message_stop")).toEqual([]);
    const shapes: Array<[ResponsesStreamEvent, string]> = [
      // The documented shape…
      [
        { type: "error", code: "rate_limit_exceeded", message: "Slow down." },
        "rate_limit_exceeded",
      ],
      // …and the nested one the API has been recorded sending.
      [
        {
          type: "error",
          error: { type: "insufficient_quota", code: "insufficient_quota", message: "Quota." },
        },
        "insufficient_quota",
      ],
    ];
    for (const [error, type] of shapes) {
      const { errors, end } = run(
        numbered([{ type: "response.created", response: RESPONSE }, error]),
      );
      expect(end).toBeUndefined();
      expect(errors.map((e) => e.errorType)).toEqual([type]);
    }
  });

  it("a stream cut before its terminal event ends nothing: the round sees a cut", () => {
    const events = stream([REASONING, TEXT, ADD, SEARCH]);
    for (let n = 0; n < events.length - 1; n++) {
      const { end, translator, assembler } = run(events.slice(0, n));
      expect(end, `cut after ${n}`).toBeUndefined();
      expect(translator.finished).toBe(false);
      expect(translator.end()).toEqual([]);
      // The partial message is what streamed so far (never a thrown error); a call has its
      // input record exactly when its arguments were done.
      const itemOf: Record<string, string> = { call_A1: "fc_0abc01", call_C3: "fc_0abc03" };
      for (const use of assembler.partial().toolUses) {
        const done = events
          .slice(0, n)
          .some(
            (e) =>
              e.type === "response.function_call_arguments.done" && e.item_id === itemOf[use.id],
          );
        expect(use.input === null, `${use.id} after ${n}`).toBe(!done);
      }
    }
  });
});
