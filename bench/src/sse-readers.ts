/**
 * The two SSE readers side by side on one fine-grained tool stream (thousands of small
 * input_json_delta events), fed in network-sized chunks: overlap's SseDecoder (the one reader
 * the runtime uses: providers, client and server) against eventsource-parser with SseEventBound in
 * front (the same limit, as a host framing with that parser would add it).
 * Run: npx tsx --conditions=overlap-source bench/src/sse-readers.ts
 */

import { createParser } from "eventsource-parser";
import { SseDecoder } from "../../packages/overlap/src/sse/sse-decoder.js";
import { SseEventBound } from "../../packages/overlap/src/sse/sse-event-bound.js";

const events: string[] = [];
for (let i = 0; i < 8_000; i++) {
  const delta = JSON.stringify({
    type: "content_block_delta",
    index: 1 + (i % 3),
    delta: { type: "input_json_delta", partial_json: `{"q":"${"x".repeat(i % 9)}` },
  });
  events.push(`event: content_block_delta\ndata: ${delta}\n\n`);
}
const text = events.join("");
const chunks: string[] = [];
for (let at = 0; at < text.length; at += 1_400) chunks.push(text.slice(at, at + 1_400));

function viaDecoder(): number {
  let n = 0;
  const decoder = new SseDecoder(() => n++);
  for (const chunk of chunks) decoder.push(chunk);
  return n;
}

function viaEventsourceParser(): number {
  let n = 0;
  const bound = new SseEventBound();
  const parser = createParser({ onEvent: () => n++ });
  for (const chunk of chunks) {
    bound.count(chunk);
    parser.feed(chunk);
  }
  return n;
}

function time(name: string, run: () => number): number {
  for (let i = 0; i < 30; i++) run(); // warm
  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = process.cpuUsage();
    const n = run();
    const used = process.cpuUsage(start);
    if (n !== events.length) throw new Error(`${name} read ${n} events`);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  const median = samples[30] ?? Number.NaN;
  console.log(
    `${name.padEnd(28)} median ${samples[30]?.toFixed(2)} ms CPU, min ${samples[0]?.toFixed(2)} ms (${events.length} events, ${(text.length / 1024).toFixed(0)} KiB)`,
  );
  return median;
}

const ours = time("SseDecoder", viaDecoder);
const theirs = time("eventsource-parser + bound", viaEventsourceParser);
console.log(`SseDecoder / eventsource-parser: ${(ours / theirs).toFixed(2)}x CPU`);
