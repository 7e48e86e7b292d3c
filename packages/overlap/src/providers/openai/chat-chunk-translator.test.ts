import { describe, expect, it } from "vitest";
import { BlockAssembler } from "../../stream/block-assembler.js";
import type { AssistantMessage } from "../../stream/message.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { replayChatChunks, splitSeeded } from "../../testing/replay.js";
import { type ChatChunk, ChatChunkTranslator } from "./chat-chunk-translator.js";

/** A chunk as OpenAI-compatible servers send it; `d` is choices[0].delta. */
const chunk = (
  d: NonNullable<NonNullable<ChatChunk["choices"]>[number]["delta"]>,
  finish: string | null = null,
): ChatChunk => ({
  id: "chatcmpl-1",
  model: "gpt-test",
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const usage: ChatChunk = {
  id: "chatcmpl-1",
  model: "gpt-test",
  choices: [],
  usage: { prompt_tokens: 50, completion_tokens: 20 },
};
const call = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
  tool_calls: [
    {
      index,
      ...(id ? { id, type: "function" } : {}),
      function: { ...(name ? { name } : {}), arguments: args },
    },
  ],
});

/** The SSE text a server sends for these chunks. */
const sse = (chunks: ChatChunk[]) =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;

interface Quirk {
  name: string;
  chunks: ChatChunk[];
  message: AssistantMessage;
  stopReason: string;
  calls: string[]; // call ids in the order they were reported complete
  ok: boolean[]; // whether each call's arguments parsed
}

const addA = { sku: "A-1", qty: 2 };
const addB = { sku: "B-2", qty: 1 };

const quirks: Quirk[] = [
  {
    name: "OpenAI: text, then two calls at indexes 0 and 1, argument fragments split anywhere",
    chunks: [
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Adding " }),
      chunk({ content: "both." }),
      chunk(call(0, "call_a", "add_to_cart", "")),
      chunk(call(0, undefined, undefined, '{"sku":"A')),
      chunk(call(0, undefined, undefined, '-1","qty":2}')),
      chunk(call(1, "call_b", "add_to_cart", "")),
      chunk(call(1, undefined, undefined, '{"sku":"B-2","q')),
      chunk(call(1, undefined, undefined, 'ty":1}')),
      chunk({}, "tool_calls"),
      usage,
    ],
    message: {
      role: "assistant",
      content: [
        { type: "text", text: "Adding both." },
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: addA },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: addB },
      ],
    },
    stopReason: "tool_use",
    calls: ["call_a", "call_b"],
    ok: [true, true],
  },
  {
    name: "every parallel call at index 0 (split on the new id; the name is never appended)",
    chunks: [
      chunk({ role: "assistant" }),
      chunk(call(0, "call_a", "add_to_cart", '{"sku":"A-1",')),
      chunk(call(0, undefined, "add_to_cart", '"qty":2}')), // a server repeating the name
      chunk(call(0, "call_b", "add_to_cart", '{"sku":"B-2","qty":1}')),
      chunk({}, "tool_calls"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: addA },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: addB },
      ],
    },
    stopReason: "tool_use",
    calls: ["call_a", "call_b"],
    ok: [true, true],
  },
  {
    name: "several calls in one chunk, a whole call in one chunk",
    chunks: [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_a",
            type: "function",
            function: { name: "add_to_cart", arguments: JSON.stringify(addA) },
          },
          {
            index: 1,
            id: "call_b",
            type: "function",
            function: { name: "add_to_cart", arguments: '{"sku":"B-2",' },
          },
        ],
      }),
      chunk(call(1, undefined, undefined, '"qty":1}')),
      chunk({}, "tool_calls"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: addA },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: addB },
      ],
    },
    stopReason: "tool_use",
    calls: ["call_a", "call_b"],
    ok: [true, true],
  },
  {
    name: "interleaved fragments: all calls start in one chunk, arguments side by side",
    chunks: [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_a",
            type: "function",
            function: { name: "add_to_cart", arguments: "" },
          },
          {
            index: 1,
            id: "call_b",
            type: "function",
            function: { name: "add_to_cart", arguments: "" },
          },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 0, function: { arguments: '{"sku":"A-1",' } },
          { index: 1, function: { arguments: JSON.stringify(addB) } },
        ],
      }),
      chunk(call(0, undefined, undefined, '"qty":2}')),
      chunk({}, "tool_calls"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: addA },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: addB },
      ],
    },
    stopReason: "tool_use",
    // call_a keeps receiving fragments and nothing starts after call_b: both end at finish_reason
    calls: ["call_a", "call_b"],
    ok: [true, true],
  },
  {
    name: "a tool without parameters: empty and missing arguments",
    chunks: [
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_v",
            type: "function",
            function: { name: "view_cart", arguments: "" },
          },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_t", type: "function", function: { name: "cart_total" } },
        ],
      }),
      chunk({}, "tool_calls"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_v", name: "view_cart", input: {} },
        { type: "tool_use", id: "call_t", name: "cart_total", input: {} },
      ],
    },
    stopReason: "tool_use",
    calls: ["call_v", "call_t"],
    ok: [true, true],
  },
  {
    name: "finish_reason length cuts a call's JSON",
    chunks: [
      chunk(call(0, "call_a", "add_to_cart", JSON.stringify(addA))),
      chunk(call(1, "call_b", "add_to_cart", '{"sku":"B')),
      chunk({}, "length"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "tool_use", id: "call_a", name: "add_to_cart", input: addA },
        { type: "tool_use", id: "call_b", name: "add_to_cart", input: {} },
      ],
    },
    stopReason: "max_tokens",
    calls: ["call_a", "call_b"],
    ok: [true, false],
  },
  {
    name: "reasoning then an answer (vLLM reasoning_content)",
    chunks: [
      chunk({ reasoning_content: "The user wants " }),
      chunk({ reasoning_content: "a greeting." }),
      chunk({ content: "Hello!" }),
      chunk({}, "stop"),
    ],
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user wants a greeting.", signature: "" },
        { type: "text", text: "Hello!" },
      ],
    },
    stopReason: "end_turn",
    calls: [],
    ok: [],
  },
];

function assemble(events: readonly StreamEvent[]) {
  const assembler = new BlockAssembler();
  const reports = events.flatMap((e) => [...assembler.push(e)]);
  const end = reports.find((r) => r.type === "message-end");
  const calls = reports.flatMap((r) => (r.type === "tool-call" ? [r] : []));
  return { end, calls, reports };
}

describe("ChatChunkTranslator", () => {
  for (const quirk of quirks) {
    it(`${quirk.name}: the same message and call order in every chunking`, () => {
      const text = sse(quirk.chunks);
      for (let seed = 0; seed <= 40; seed++) {
        const pieces = seed === 0 ? [text] : splitSeeded(text, seed, 1 + (seed % 7) * 9);
        const { end, calls } = assemble(replayChatChunks(pieces));
        if (end?.type !== "message-end") throw new Error(`seed ${seed}: no message end`);
        expect(end.message, `seed ${seed}`).toEqual(quirk.message);
        expect(end.stopReason).toBe(quirk.stopReason);
        expect(calls.map((c) => c.callId)).toEqual(quirk.calls);
        expect(calls.map((c) => c.input.ok)).toEqual(quirk.ok);
      }
    });
  }

  it("completes a call when the next one starts, not when its arguments parse", () => {
    const translator = new ChatChunkTranslator();
    const events = [
      ...translator.push(chunk(call(0, "call_a", "add_to_cart", JSON.stringify(addA)))),
    ];
    expect(events.some((e) => e.type === "content_block_stop")).toBe(false);
    const next = translator.push(chunk(call(1, "call_b", "add_to_cart", "")));
    expect(next[0]).toEqual({ type: "content_block_stop", index: 0 });
  });

  it("reports usage and the normalised stop reason at the end", () => {
    const { reports } = assemble(replayChatChunks([sse(quirks[0]!.chunks)]));
    const end = reports.find((r) => r.type === "message-end");
    expect(end?.type === "message-end" && end.usage).toEqual({
      input_tokens: 50,
      output_tokens: 20,
    });
  });

  it("keeps a refusal (delta.refusal) as the message's text and ends with stop reason refusal", () => {
    const chunks = [
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I'm sorry," }),
      chunk({ refusal: " I can't help with that." }),
      chunk({}, "stop"),
    ];
    const { end, calls } = assemble(replayChatChunks([sse(chunks)]));
    if (end?.type !== "message-end") throw new Error("no message end");
    expect(end.message.content).toEqual([
      { type: "text", text: "I'm sorry, I can't help with that." },
    ]);
    expect(end.stopReason).toBe("refusal");
    expect(calls).toEqual([]);
  });

  it("a stream cut before finish_reason never ends the message (the round sees a cut)", () => {
    const chunks = quirks[0]!.chunks.slice(0, 6);
    const text = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
    const { end, calls } = assemble(replayChatChunks([text]));
    expect(end).toBeUndefined();
    expect(calls).toEqual([]); // call_a never completed: no later call, no finish_reason
  });
});
