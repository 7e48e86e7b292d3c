/**
 * The preview cost of one 64 KiB display-tool argument (the `display-64k` scenario's, ASCII
 * JSON) streamed in 8-byte deltas, with a preview after every delta as a UI would show it:
 *
 * - overlap: `PartialJsonParser.push(delta)` then `snapshot()` (incremental);
 * - the Anthropic SDK: a `MessageStream` fed the Messages API events of that one tool_use block,
 *   with an `inputJson` listener (the SDK re-parses the accumulated input on every delta; this
 *   includes its parsing of the events themselves, a small part);
 * - the AI SDK: `parsePartialJson(accumulated)` from `ai` (v6) on every delta, as its UI
 *   helpers do for a streaming tool input.
 *
 * Each is checked to end with the same value as `JSON.parse`. Prints `@@preview {...}`. Run by
 * `run-peers.ts` in its own process.
 */

import { performance } from "node:perf_hooks";
import { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import { parsePartialJson } from "ai";
import { PartialJsonParser } from "../../../packages/overlap/src/json/partial-json-parser.js";
import { emit } from "./child-kit.js";
import { buildScenarios, callInput } from "./scenarios.js";

const DELTA = 8;
/** Runs of the incremental parser (median); the two re-parsing ones are quadratic (seconds), once. */
const RUNS = 5;

const display = buildScenarios()
  .find((s) => s.id === "display-64k")!
  .calls.find((c) => c.name === "display")!;
const text = JSON.stringify(callInput(display));
const expected = JSON.parse(text) as unknown;
const deltas: string[] = [];
for (let i = 0; i < text.length; i += DELTA) deltas.push(text.slice(i, i + DELTA));

function overlap(): unknown {
  const parser = new PartialJsonParser();
  let last: unknown;
  for (const delta of deltas) {
    parser.push(delta);
    last = parser.snapshot();
  }
  return last;
}

async function anthropicSdk(): Promise<unknown> {
  const events: unknown[] = [
    {
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "scripted-peers",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_bench", name: "display", input: {} },
    },
    ...deltas.map((partial_json) => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json },
    })),
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: deltas.length },
    },
    { type: "message_stop" },
  ];
  const lines = new TextEncoder().encode(events.map((e) => JSON.stringify(e)).join("\n"));
  const stream = MessageStream.fromReadableStream(
    new ReadableStream({
      start(controller) {
        controller.enqueue(lines);
        controller.close();
      },
    }),
  );
  let last: unknown;
  stream.on("inputJson", (_delta, snapshot) => {
    last = snapshot;
  });
  const message = await stream.finalMessage();
  const block = message.content[0];
  return block?.type === "tool_use" ? block.input : last;
}

async function aiSdk(): Promise<unknown> {
  let accumulated = "";
  let last: unknown;
  for (const delta of deltas) {
    accumulated += delta;
    last = (await parsePartialJson(accumulated)).value;
  }
  return last;
}

async function time(name: string, fn: () => unknown, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const value = await fn();
    samples.push(performance.now() - t0);
    if (JSON.stringify(value) !== JSON.stringify(expected)) {
      throw new Error(`${name}: the last preview differs from JSON.parse`);
    }
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

await overlap();
const oursMs = await time("overlap", overlap, RUNS);
const anthropicMs = await time("anthropic-sdk", anthropicSdk, 1);
const aiSdkMs = await time("ai-sdk", aiSdk, 1);
emit("preview", {
  bytes: text.length,
  deltaBytes: DELTA,
  deltas: deltas.length,
  runs: { overlap: RUNS, anthropicSdk: 1, aiSdk: 1 },
  overlapMs: Math.round(oursMs * 100) / 100,
  anthropicSdkMs: Math.round(anthropicMs * 100) / 100,
  aiSdkParsePartialJsonMs: Math.round(aiSdkMs * 100) / 100,
});
