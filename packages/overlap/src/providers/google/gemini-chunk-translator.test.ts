import { describe, expect, it } from "vitest";
import { type AssemblerReport, BlockAssembler } from "../../stream/block-assembler.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import {
  type GeminiChunk,
  GeminiChunkTranslator,
  type GeminiPart,
} from "./gemini-chunk-translator.js";
import { toGeminiContents } from "./gemini-request.js";

const RESPONSE_ID = "resp_AbC123";

/** A streamed chunk holding `parts` (and a finish reason when given). */
function chunk(
  parts: GeminiPart[],
  finishReason?: string,
  extra: Partial<GeminiChunk> = {},
): GeminiChunk {
  return {
    candidates: [
      {
        index: 0,
        content: { role: "model", parts },
        ...(finishReason ? { finishReason } : {}),
      },
    ],
    modelVersion: "gemini-test",
    responseId: RESPONSE_ID,
    ...extra,
  };
}

/** Translates and assembles a stream; the reports of each chunk are kept apart. */
function run(chunks: GeminiChunk[], options = {}) {
  const translator = new GeminiChunkTranslator(options);
  const assembler = new BlockAssembler();
  const perChunk: AssemblerReport[][] = [];
  const events: StreamEvent[] = [];
  for (const c of chunks) {
    const out = translator.push(c);
    events.push(...out);
    perChunk.push(out.flatMap((e) => [...assembler.push(e)]));
  }
  const tail = translator.end();
  events.push(...tail);
  const last = tail.flatMap((e) => [...assembler.push(e)]);
  const all = [...perChunk.flat(), ...last];
  const end = all.find((r) => r.type === "message-end");
  return { events, perChunk, all, end: end?.type === "message-end" ? end : undefined, assembler };
}

const calls = (reports: readonly AssemblerReport[]) =>
  reports.flatMap((r) =>
    r.type === "tool-call" ? [{ id: r.callId, name: r.name, input: r.input }] : [],
  );

describe("GeminiChunkTranslator: text, thoughts, usage", () => {
  it("joins text parts across chunks into one text block, whatever the chunking", () => {
    const text = "Hello there, café 你好 🎉 done.";
    for (const size of [1, 3, 7, text.length]) {
      const pieces: GeminiChunk[] = [];
      for (let i = 0; i < text.length; i += size)
        pieces.push(chunk([{ text: text.slice(i, i + size) }]));
      pieces.push(
        chunk([{ text: "" }], "STOP", {
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 9, thoughtsTokenCount: 4 },
        }),
      );
      const { end } = run(pieces);
      expect(end?.message.content, `size ${size}`).toEqual([{ type: "text", text }]);
      expect(end?.stopReason).toBe("end_turn");
      expect(end?.usage).toEqual({ input_tokens: 12, output_tokens: 13 });
    }
  });

  it("thought parts become a thinking block (no Anthropic signature), then the text", () => {
    const { end } = run([
      chunk([{ text: "Let me think", thought: true }]),
      chunk([{ text: " about it.", thought: true }, { text: "Answer." }]),
      chunk([], "STOP"),
    ]);
    expect(end?.message.content).toEqual([
      { type: "thinking", thinking: "Let me think about it.", signature: "" },
      { type: "text", text: "Answer." },
    ]);
  });

  it("keeps each thoughtSignature on the block of its part; a signature without text gets a thinking block of its own; all go back on the same parts", () => {
    const { end } = run([
      chunk([{ text: "Thinking", thought: true, thoughtSignature: "sig-thought" }]),
      chunk([{ text: "First" }]),
      chunk([{ text: " answer", thoughtSignature: "sig-late" }]),
      chunk([{ text: "", thoughtSignature: "sig-last" }], "STOP"),
    ]);
    const content = end!.message.content;
    expect(content).toEqual([
      { type: "thinking", thinking: "Thinking", signature: "", thoughtSignature: "sig-thought" },
      { type: "text", text: "First" },
      { type: "text", text: " answer", thoughtSignature: "sig-late" },
      { type: "thinking", thinking: "", signature: "", thoughtSignature: "sig-last" },
    ]);
    expect(
      toGeminiContents([
        { role: "user", content: "hi" },
        { role: "assistant", content },
      ])[1],
    ).toEqual({
      role: "model",
      parts: [
        { text: "Thinking", thought: true, thoughtSignature: "sig-thought" },
        { text: "First" },
        { text: " answer", thoughtSignature: "sig-late" },
        { text: "", thoughtSignature: "sig-last" },
      ],
    });
  });
});

describe("GeminiChunkTranslator: function calls arrive whole", () => {
  it("a call is complete on arrival: its tool-call is reported in the chunk that brought it, before the next chunk", () => {
    const { perChunk, end } = run([
      chunk([{ text: "Adding it." }]),
      chunk([
        {
          functionCall: { name: "add_to_cart", args: { sku: "A-1", qty: 2 } },
          thoughtSignature: "sig-1",
        },
      ]),
      chunk([{ text: "And more text after the call." }]),
      chunk([], "STOP"),
    ]);
    expect(calls(perChunk[1]!)).toEqual([
      {
        id: `gemini-${RESPONSE_ID}-1`,
        name: "add_to_cart",
        input: { ok: true, value: { sku: "A-1", qty: 2 } },
      },
    ]);
    expect(end?.stopReason).toBe("tool_use");
    expect(end?.message.content).toEqual([
      { type: "text", text: "Adding it." },
      {
        type: "tool_use",
        id: `gemini-${RESPONSE_ID}-1`,
        name: "add_to_cart",
        input: { sku: "A-1", qty: 2 },
        thoughtSignature: "sig-1",
      },
      { type: "text", text: "And more text after the call." },
    ]);
  });

  it("several calls in one chunk: each starts and stops in call order, ids unique, the first keeps its signature", () => {
    const { perChunk, end, events } = run([
      chunk([
        { functionCall: { name: "a", args: { n: 1 } }, thoughtSignature: "sig" },
        { functionCall: { name: "b", args: {} } },
        { functionCall: { name: "a" } },
      ]),
      chunk([{ text: "" }], "STOP"),
    ]);
    expect(calls(perChunk[0]!).map((c) => [c.id, c.name, c.input])).toEqual([
      [`gemini-${RESPONSE_ID}-1`, "a", { ok: true, value: { n: 1 } }],
      [`gemini-${RESPONSE_ID}-2`, "b", { ok: true, value: {} }],
      [`gemini-${RESPONSE_ID}-3`, "a", { ok: true, value: {} }],
    ]);
    // Start and stop of each call are adjacent: moment 1 and moment 2 together.
    const kinds = events
      .filter((e) => e.type === "content_block_start" || e.type === "content_block_stop")
      .map((e) => `${e.type === "content_block_start" ? "start" : "stop"}:${e.index}`);
    expect(kinds).toEqual(["start:0", "stop:0", "start:1", "stop:1", "start:2", "stop:2"]);
    expect(end?.message.content.map((b) => b.type === "tool_use" && b.thoughtSignature)).toEqual([
      "sig",
      undefined,
      undefined,
    ]);
  });

  it("uses the API's functionCall.id when it sends one, and keeps ids unique within the response", () => {
    const { end } = run([
      chunk([
        { functionCall: { id: "fc_1", name: "a", args: {} } },
        { functionCall: { id: "fc_1", name: "b", args: {} } },
        { functionCall: { name: "c", args: {} } },
      ]),
      chunk([], "STOP"),
    ]);
    expect(end?.message.content.map((b) => (b.type === "tool_use" ? b.id : ""))).toEqual([
      "fc_1",
      `gemini-${RESPONSE_ID}-2`,
      `gemini-${RESPONSE_ID}-3`,
    ]);
  });

  it("without a responseId the prefix is random: two responses never share an id", () => {
    const ids = [1, 2].map(() => {
      const translator = new GeminiChunkTranslator();
      const events = translator.push({
        candidates: [{ content: { parts: [{ functionCall: { name: "x" } }] } }],
      });
      const start = events.find((e) => e.type === "content_block_start");
      return start?.type === "content_block_start" && start.content_block.type === "tool_use"
        ? start.content_block.id
        : "";
    });
    expect(ids[0]).toMatch(/^gemini-[0-9a-f]{18}-1$/);
    expect(ids[1]).not.toBe(ids[0]);
  });
});

describe("GeminiChunkTranslator: Vertex AI streamed arguments (partialArgs)", () => {
  it("assembles partialArgs across chunks into the call's JSON, streamed as input deltas; the call completes when willContinue ends", () => {
    const { perChunk, end, events } = run([
      chunk([{ functionCall: { name: "set_light", willContinue: true }, thoughtSignature: "sig" }]),
      chunk([
        {
          functionCall: {
            partialArgs: [{ jsonPath: "$.location", stringValue: "Bost", willContinue: true }],
            willContinue: true,
          },
        },
      ]),
      chunk([
        {
          functionCall: {
            partialArgs: [
              { jsonPath: "$.location", stringValue: "on, MA" },
              { jsonPath: "$.brightness", numberValue: 50 },
              { jsonPath: "$.on", boolValue: true },
              { jsonPath: "$.rooms[0].name", stringValue: "hall" },
              { jsonPath: "$.rooms[1].name", stringValue: "kitchen" },
              { jsonPath: "$.note", nullValue: "NULL_VALUE" },
            ],
            willContinue: true,
          },
        },
      ]),
      chunk([{ functionCall: {} }]),
      chunk([{ functionCall: { name: "next_call", args: { a: 1 } } }]),
      chunk([], "STOP"),
    ]);
    const expected = {
      location: "Boston, MA",
      brightness: 50,
      on: true,
      rooms: [{ name: "hall" }, { name: "kitchen" }],
      note: null,
    };
    // Not complete until the piece without willContinue.
    expect(perChunk.slice(0, 3).flatMap(calls)).toEqual([]);
    expect(calls(perChunk[3]!)).toEqual([
      { id: `gemini-${RESPONSE_ID}-1`, name: "set_light", input: { ok: true, value: expected } },
    ]);
    const deltas = events.flatMap((e) =>
      e.type === "content_block_delta" && e.index === 0 && e.delta.type === "input_json_delta"
        ? [e.delta.partial_json]
        : [],
    );
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe(JSON.stringify(expected));
    expect(end?.message.content).toEqual([
      {
        type: "tool_use",
        id: `gemini-${RESPONSE_ID}-1`,
        name: "set_light",
        input: expected,
        thoughtSignature: "sig",
      },
      { type: "tool_use", id: `gemini-${RESPONSE_ID}-2`, name: "next_call", input: { a: 1 } },
    ]);
  });

  it("partial args in one part without willContinue complete the call at once", () => {
    const { end } = run([
      chunk([
        { functionCall: { name: "f", partialArgs: [{ jsonPath: "$.q", stringValue: "x" }] } },
      ]),
      chunk([], "STOP"),
    ]);
    expect(end?.message.content).toEqual([
      { type: "tool_use", id: `gemini-${RESPONSE_ID}-1`, name: "f", input: { q: "x" } },
    ]);
  });

  it("a streamed call cut by the token limit stops with incomplete JSON: invalid input, never valid-looking", () => {
    const { all, end } = run([
      chunk([{ functionCall: { name: "f", willContinue: true } }]),
      chunk([
        {
          functionCall: {
            partialArgs: [{ jsonPath: "$.q", stringValue: "par", willContinue: true }],
            willContinue: true,
          },
        },
      ]),
      chunk([], "MAX_TOKENS"),
    ]);
    const call = all.find((r) => r.type === "tool-call");
    expect(call?.type === "tool-call" && call.input.ok).toBe(false);
    expect(end?.stopReason).toBe("max_tokens");
  });

  it("arguments out of document order are a stream error, not a guess", () => {
    const { events } = run([
      chunk([{ functionCall: { name: "f", willContinue: true } }]),
      chunk([
        {
          functionCall: {
            partialArgs: [
              { jsonPath: "$.a.x", numberValue: 1 },
              { jsonPath: "$.b", numberValue: 2 },
              { jsonPath: "$.a.y", numberValue: 3 },
            ],
            willContinue: true,
          },
        },
      ]),
      chunk([], "STOP"),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { type: "invalid_partial_args" } });
    expect(events.some((e) => e.type === "message_stop")).toBe(false);
  });
});

describe("GeminiChunkTranslator: endings", () => {
  const ending = (reason: string) => run([chunk([{ text: "Some text." }]), chunk([], reason)]);

  it("maps finish reasons to the neutral stop reasons", () => {
    expect(ending("STOP").end?.stopReason).toBe("end_turn");
    expect(ending("MAX_TOKENS").end?.stopReason).toBe("max_tokens");
    for (const reason of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]) {
      expect(ending(reason).end?.stopReason, reason).toBe("refusal");
    }
    expect(ending("OTHER").end?.stopReason).toBe("end_turn");
    expect(ending("LANGUAGE").end?.stopReason).toBe("end_turn");
  });

  it("a prompt blocked by promptFeedback is a refusal with no content", () => {
    const { end } = run([{ promptFeedback: { blockReason: "SAFETY" }, responseId: RESPONSE_ID }]);
    expect(end?.stopReason).toBe("refusal");
    expect(end?.message.content).toEqual([]);
  });

  it("MALFORMED_FUNCTION_CALL is a neutral error event; nothing ends the message", () => {
    const translator = new GeminiChunkTranslator();
    translator.push(chunk([{ text: "Calling." }]));
    const events = translator.push({
      candidates: [
        { finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "Malformed function call: x(" },
      ],
    });
    expect(events).toEqual([
      {
        type: "error",
        error: {
          type: "malformed_function_call",
          message:
            "The model's output was unusable (MALFORMED_FUNCTION_CALL): Malformed function call: x(",
        },
      },
    ]);
    expect(translator.end()).toEqual([]);
  });

  it("a stream cut before its finishReason ends with nothing: the round sees the cut", () => {
    const translator = new GeminiChunkTranslator();
    translator.push(chunk([{ text: "Half" }]));
    expect(translator.finished).toBe(false);
    expect(translator.end()).toEqual([]);
  });
});
