import type { ConverseStreamOutput } from "@aws-sdk/client-bedrock-runtime";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OverlapError } from "../../errors.js";
import { type AssemblerReport, BlockAssembler } from "../../stream/block-assembler.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { toConverseMessages } from "./bedrock-request.js";
import { BedrockStreamTranslator } from "./bedrock-stream-translator.js";

type Event = ConverseStreamOutput;

const start = (): Event => ({ messageStart: { role: "assistant" } });
const text = (index: number, value: string): Event => ({
  contentBlockDelta: { contentBlockIndex: index, delta: { text: value } },
});
const reasoning = (index: number, value: string): Event => ({
  contentBlockDelta: { contentBlockIndex: index, delta: { reasoningContent: { text: value } } },
});
const signature = (index: number, value: string): Event => ({
  contentBlockDelta: {
    contentBlockIndex: index,
    delta: { reasoningContent: { signature: value } },
  },
});
const redacted = (index: number, bytes: Uint8Array): Event => ({
  contentBlockDelta: {
    contentBlockIndex: index,
    delta: { reasoningContent: { redactedContent: bytes } },
  },
});
const callStart = (index: number, toolUseId: string, name: string): Event => ({
  contentBlockStart: { contentBlockIndex: index, start: { toolUse: { toolUseId, name } } },
});
const input = (index: number, value: string): Event => ({
  contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input: value } } },
});
const stop = (index: number): Event => ({ contentBlockStop: { contentBlockIndex: index } });
const messageStop = (stopReason: string): Event =>
  ({ messageStop: { stopReason } }) as unknown as Event;
const metadata = (inputTokens: number, outputTokens: number): Event => ({
  metadata: {
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    metrics: { latencyMs: 12 },
  },
});

/** Translates and assembles a stream; the reports of each event are kept apart. */
function run(events: Event[]) {
  const translator = new BedrockStreamTranslator({ id: "req-1", model: "anthropic.claude" });
  const assembler = new BlockAssembler();
  const perEvent: AssemblerReport[][] = [];
  const neutral: StreamEvent[] = [];
  for (const event of events) {
    const out = translator.push(event);
    neutral.push(...out);
    perEvent.push(out.flatMap((e) => [...assembler.push(e)]));
  }
  const tail = translator.end();
  neutral.push(...tail);
  const last = tail.flatMap((e) => [...assembler.push(e)]);
  const all = [...perEvent.flat(), ...last];
  const end = all.find((r) => r.type === "message-end");
  return {
    translator,
    neutral,
    perEvent,
    all,
    end: end?.type === "message-end" ? end : undefined,
    assembler,
  };
}

const THREE_CALLS: Event[] = [
  start(),
  text(0, "Adding "),
  text(0, "the shoes."),
  stop(0),
  callStart(1, "tooluse_a", "add_to_cart"),
  input(1, '{"sku":'),
  input(1, '"SHOE-42"}'),
  stop(1),
  callStart(2, "tooluse_b", "cart_total"),
  stop(2),
  callStart(3, "tooluse_c", "search"),
  input(3, '{"query":"red"}'),
  stop(3),
  messageStop("tool_use"),
  metadata(30, 45),
];

describe("BedrockStreamTranslator: blocks", () => {
  it("text opens with its first delta; each call starts at contentBlockStart and is complete at its contentBlockStop", () => {
    const { perEvent, end } = run(THREE_CALLS);
    // Moment 1 at contentBlockStart: the call's name and id are known.
    expect(perEvent[4]).toEqual([
      {
        type: "block-start",
        index: 1,
        block: { type: "tool_use", id: "tooluse_a", name: "add_to_cart", input: {} },
      },
    ]);
    // Moment 2 at contentBlockStop: the strict parse, before anything later arrives.
    expect(perEvent[7]).toMatchObject([
      {
        type: "tool-call",
        index: 1,
        callId: "tooluse_a",
        name: "add_to_cart",
        server: false,
        input: { ok: true, value: { sku: "SHOE-42" } },
      },
    ]);
    // A call with no input fragments is `{}`.
    expect(perEvent[9]).toEqual([
      expect.objectContaining({
        type: "tool-call",
        callId: "tooluse_b",
        input: { ok: true, value: {} },
      }),
    ]);
    expect(end?.stopReason).toBe("tool_use");
    expect(end?.usage).toEqual({ input_tokens: 30, output_tokens: 45 });
    expect(end?.message.content).toEqual([
      { type: "text", text: "Adding the shoes." },
      { type: "tool_use", id: "tooluse_a", name: "add_to_cart", input: { sku: "SHOE-42" } },
      { type: "tool_use", id: "tooluse_b", name: "cart_total", input: {} },
      { type: "tool_use", id: "tooluse_c", name: "search", input: { query: "red" } },
    ]);
  });

  it("message_start carries the request id and model; message_delta and message_stop wait for the metadata (usage)", () => {
    const { neutral, perEvent } = run(THREE_CALLS);
    expect(neutral[0]).toEqual({
      type: "message_start",
      message: {
        id: "req-1",
        model: "anthropic.claude",
        role: "assistant",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
    expect(perEvent[13]).toEqual([]); // messageStop: every block already stopped
    expect(perEvent[14]?.map((r) => r.type)).toEqual(["message-delta", "message-end"]);
  });

  it("without metadata, end() finishes a stopped message (no usage); a stream cut before messageStop gets nothing", () => {
    const noMetadata = run(THREE_CALLS.slice(0, -1));
    expect(noMetadata.end?.stopReason).toBe("tool_use");
    expect(noMetadata.end?.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    const cut = run(THREE_CALLS.slice(0, 6));
    expect(cut.end).toBeUndefined();
    expect(cut.translator.finished).toBe(false);
    expect(cut.neutral.at(-1)).toEqual({
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"sku":' },
    });
    // The partial message keeps the text and the unfinished call (answered by the round).
    expect(cut.assembler.partial().toolUses).toMatchObject([
      { index: 1, id: "tooluse_a", name: "add_to_cart", input: null, raw: '{"sku":' },
    ]);
  });

  it("reasoning: text deltas and the signature make one signed thinking block, sent back as reasoningText", () => {
    const { end } = run([
      start(),
      reasoning(0, "The user wants "),
      reasoning(0, "shoes."),
      signature(0, "EqSig=="),
      stop(0),
      callStart(1, "tooluse_a", "add_to_cart"),
      input(1, "{}"),
      stop(1),
      messageStop("tool_use"),
      metadata(1, 2),
    ]);
    expect(end?.message.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants shoes.",
      signature: "EqSig==",
    });
    expect(toConverseMessages([{ role: "user", content: "hi" }, end!.message])[1]?.content).toEqual(
      [
        {
          reasoningContent: {
            reasoningText: { text: "The user wants shoes.", signature: "EqSig==" },
          },
        },
        { toolUse: { toolUseId: "tooluse_a", name: "add_to_cart", input: {} } },
      ],
    );
  });

  it("redacted reasoning: its bytes (over several deltas) become one redacted_thinking block at its stop, base64, and go back as the same bytes", () => {
    const bytes = Uint8Array.from([0, 1, 2, 250, 255, 128, 64]);
    const { perEvent, end } = run([
      start(),
      redacted(0, bytes.subarray(0, 3)),
      redacted(0, bytes.subarray(3)),
      stop(0),
      text(1, "Done."),
      stop(1),
      messageStop("end_turn"),
      metadata(1, 2),
    ]);
    expect(perEvent[1]).toEqual([]);
    expect(perEvent[3]?.map((r) => r.type)).toEqual(["block-start", "block-stop"]);
    expect(end?.message.content[0]).toEqual({
      type: "redacted_thinking",
      data: Buffer.from(bytes).toString("base64"),
    });
    const sent = toConverseMessages([{ role: "user", content: "hi" }, end!.message])[1]?.content;
    expect(sent?.[0]).toEqual({ reasoningContent: { redactedContent: bytes } });
  });

  it("messageStop ends blocks still open, in order (a stream that never sent their stops)", () => {
    const { end, perEvent } = run([
      start(),
      text(0, "Hi"),
      callStart(1, "tooluse_a", "f"),
      input(1, '{"a":1}'),
      messageStop("tool_use"),
      metadata(1, 1),
    ]);
    expect(perEvent[4]?.map((r) => r.type)).toEqual(["block-stop", "tool-call"]);
    expect(end?.toolUses.map((t) => t.input)).toEqual([{ ok: true, value: { a: 1 } }]);
  });

  it("a server tool call and its streamed result become server_tool_use + bedrock_tool_result; citations stay on the text; both go back to Converse", () => {
    const { end } = run([
      start(),
      {
        contentBlockStart: {
          contentBlockIndex: 0,
          start: {
            toolUse: { toolUseId: "srv_1", name: "nova_code_interpreter", type: "server_tool_use" },
          },
        },
      },
      input(0, '{"snippet":'),
      input(0, '"1+1"}'),
      stop(0),
      {
        contentBlockStart: {
          contentBlockIndex: 1,
          start: {
            toolResult: {
              toolUseId: "srv_1",
              type: "nova_code_interpreter_result",
              status: "success",
            },
          },
        },
      },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolResult: [{ text: "fou" }] } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolResult: [{ text: "nd" }] } } },
      {
        contentBlockDelta: {
          contentBlockIndex: 1,
          delta: { toolResult: [{ json: { stdOut: "2", exitCode: 0 } }] },
        },
      },
      stop(1),
      text(2, "Answer."),
      {
        contentBlockDelta: {
          contentBlockIndex: 2,
          delta: { citation: { title: "t", location: { web: { url: "https://a.example" } } } },
        },
      },
      stop(2),
      messageStop("end_turn"),
    ]);
    const result = {
      toolUseId: "srv_1",
      type: "nova_code_interpreter_result",
      status: "success",
      content: [{ text: "found" }, { json: { stdOut: "2", exitCode: 0 } }],
    };
    const citation = { title: "t", location: { web: { url: "https://a.example" } } };
    expect(end?.message.content).toEqual([
      {
        type: "server_tool_use",
        id: "srv_1",
        name: "nova_code_interpreter",
        input: { snippet: "1+1" },
      },
      { type: "bedrock_tool_result", tool_use_id: "srv_1", content: result },
      { type: "text", text: "Answer.", citations: [{ type: "bedrock_citation", ...citation }] },
    ]);
    // Recorded, never run: no client call.
    expect(end?.toolUses).toEqual([]);
    expect(
      toConverseMessages([{ role: "user", content: "Go." }, end!.message])[1]?.content,
    ).toEqual([
      {
        toolUse: {
          toolUseId: "srv_1",
          name: "nova_code_interpreter",
          input: { snippet: "1+1" },
          type: "server_tool_use",
        },
      },
      { toolResult: result },
      { citationsContent: { content: [{ text: "Answer." }], citations: [citation] } },
    ]);
  });

  it("another provider's server tool blocks and citations are not sent to Converse", () => {
    const content = toConverseMessages([
      { role: "user", content: "Go." },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
          {
            type: "text",
            text: "Cited.",
            citations: [{ type: "web_search_result_location", url: "https://a.example" }],
          },
        ],
      },
    ])[1]?.content;
    expect(content).toEqual([{ text: "Cited." }]);
  });

  it("any split of the input into fragments assembles the same call (property)", () => {
    const json = JSON.stringify({ sku: "SHOE-42", note: 'gift "wrap" ✓ 你好', sizes: [41, 42] });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: json.length }), { maxLength: 8 }), (cuts) => {
        const points = [...new Set([0, ...cuts, json.length])].sort((a, b) => a - b);
        const pieces = points.slice(1).map((p, i) => json.slice(points[i], p));
        const { end } = run([
          start(),
          callStart(0, "tooluse_a", "add_to_cart"),
          ...pieces.map((p) => input(0, p)),
          stop(0),
          messageStop("tool_use"),
        ]);
        expect(end?.toolUses[0]?.input).toEqual({ ok: true, value: JSON.parse(json) });
      }),
    );
  });
});

describe("BedrockStreamTranslator: stop reasons and errors", () => {
  const ended = (reason: string) =>
    run([start(), text(0, "x"), stop(0), messageStop(reason), metadata(1, 1)]);

  it.each([
    ["end_turn", "end_turn"],
    ["tool_use", "tool_use"],
    ["max_tokens", "max_tokens"],
    ["stop_sequence", "stop_sequence"],
    ["guardrail_intervened", "refusal"],
    ["content_filtered", "refusal"],
    ["model_context_window_exceeded", "max_tokens"],
    ["some_future_reason", "end_turn"],
  ])("%s → %s", (reason, expected) => {
    expect(ended(reason).end?.stopReason).toBe(expected);
  });

  it.each(["malformed_model_output", "malformed_tool_use"])(
    "%s is a neutral error event (the output cannot be used); nothing follows",
    (reason) => {
      const { neutral, end, all, translator } = ended(reason);
      expect(end).toBeUndefined();
      expect(translator.failed).toBe(true);
      expect(neutral.at(-1)).toEqual({
        type: "error",
        error: { type: reason, message: `The model's output was unusable (${reason}).` },
      });
      expect(all.at(-1)).toMatchObject({ type: "stream-error", errorType: reason });
    },
  );

  it.each([
    ["internalServerException", "InternalServerException"],
    ["modelStreamErrorException", "ModelStreamErrorException"],
    ["validationException", "ValidationException"],
    ["throttlingException", "ThrottlingException"],
    ["serviceUnavailableException", "ServiceUnavailableException"],
  ])("the stream member %s is a neutral error event", (member, name) => {
    const event = { [member]: { message: "It broke." } } as unknown as Event;
    const { neutral, end } = run([start(), text(0, "x"), event, stop(0), messageStop("end_turn")]);
    expect(end).toBeUndefined();
    expect(neutral.at(-1)).toEqual({ type: "error", error: { type: name, message: "It broke." } });
  });

  it("protocol violations throw stream_protocol: input before its call started, a block started twice, a text delta in a call, a delta after the stop", () => {
    const violations: Event[][] = [
      [start(), input(0, "{}")],
      [start(), callStart(0, "a", "f"), callStart(0, "b", "g")],
      [start(), callStart(0, "a", "f"), text(0, "x")],
      [start(), text(0, "x"), stop(0), text(0, "y")],
      [start(), reasoning(0, "x"), redacted(0, Uint8Array.of(1))],
      [start(), { contentBlockStop: { contentBlockIndex: -1 } }],
    ];
    for (const events of violations) {
      const translator = new BedrockStreamTranslator();
      let thrown: unknown;
      try {
        for (const event of events) translator.push(event);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(OverlapError);
      expect((thrown as OverlapError).code).toBe("stream_protocol");
    }
  });

  it("a stop for a block that sent nothing, unknown members and events after the end are ignored", () => {
    const { end, neutral } = run([
      start(),
      stop(0),
      { $unknown: ["futureEvent", {}] } as Event,
      text(1, "Hi"),
      stop(1),
      messageStop("end_turn"),
      metadata(2, 3),
      text(2, "late"),
    ]);
    expect(end?.message.content).toEqual([{ type: "text", text: "Hi" }]);
    expect(neutral.filter((e) => e.type === "content_block_start")).toHaveLength(1);
  });
});
