import { crc32 } from "node:zlib";
import fc from "fast-check";
import { awsEvent, encodeEventStreamMessage } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { BedrockStreamTranslator } from "./bedrock-stream-translator.js";
import {
  EventStreamBatchReader,
  firstMessageType,
  MAX_EVENT_STREAM_MESSAGE_BYTES,
} from "./event-stream-batch-reader.js";

const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const BODY = concat(
  awsEvent("messageStart", { role: "assistant" }),
  awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "你好 " } }),
  awsEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "x".repeat(3_000) } }),
  awsEvent("contentBlockStop", { contentBlockIndex: 0 }),
  awsEvent("messageStop", { stopReason: "end_turn" }),
  awsEvent("metadata", { usage: { inputTokens: 1, outputTokens: 2 } }),
);

/** Every chunk read, then the end: the events' types and the failure's message. */
function readAll(chunks: readonly Uint8Array[]) {
  const reader = new EventStreamBatchReader(
    new BedrockStreamTranslator({ id: "r", model: "m" }),
    crc32,
  );
  const events: unknown[] = [];
  for (const chunk of [...chunks, undefined]) {
    const read = reader.read(chunk);
    events.push(...read.events);
    if (read.failure) return { events, failure: read.failure.message };
    if (reader.over && chunk !== undefined) break;
  }
  return { events, failure: undefined };
}

describe("EventStreamBatchReader", () => {
  it("gives the same events for any split of the bytes", () => {
    const whole = readAll([BODY]);
    expect(whole.failure).toBeUndefined();
    expect(whole.events.length).toBeGreaterThan(4);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: BODY.length - 1 })), (cuts) => {
        const at = [0, ...[...cuts].sort((a, b) => a - b), BODY.length];
        expect(readAll(at.slice(1).map((end, i) => BODY.subarray(at[i], end)))).toEqual(whole);
      }),
    );
  });

  it("refuses a message announcing a length past the limit at once, not after buffering it", () => {
    const huge = new Uint8Array(12);
    const view = new DataView(huge.buffer);
    view.setUint32(0, MAX_EVENT_STREAM_MESSAGE_BYTES + 1);
    view.setUint32(4, 0);
    view.setUint32(8, crc32(huge.subarray(0, 8)));
    // The prelude in two reads, then more bytes: the second read is refused.
    const result = readAll([huge.subarray(0, 5), huge.subarray(5), new Uint8Array(100)]);
    expect(result.failure).toMatch(/invalid length/);
  });

  it("fails on a checksum that does not match, after the events before it", () => {
    const bad = concat(BODY);
    bad[bad.length - 20] = (bad[bad.length - 20] as number) ^ 1;
    const result = readAll([bad]);
    expect(result.failure).toMatch(/checksum/);
    expect(result.events.length).toBeGreaterThan(0);
  });

  it("a body that ends inside a message or before messageStop is cut", () => {
    expect(readAll([BODY.subarray(0, BODY.length - 3)]).failure).toMatch(/Truncated/);
    const first = awsEvent("messageStart", { role: "assistant" });
    expect(readAll([first]).failure).toMatch(/ended before messageStop/);
  });

  it("firstMessageType names the first whole message's kind", () => {
    expect(firstMessageType(BODY)).toBe("event");
    expect(firstMessageType(BODY.subarray(0, 10))).toBeUndefined();
    const error = encodeEventStreamMessage({ ":message-type": "error", ":error-code": "X" }, "");
    expect(firstMessageType(error)).toBe("error");
    // A header in UTF-8 before it (the names and values are ASCII in practice, not always).
    const accented = encodeEventStreamMessage(
      { "x-note": "héllo ✓", ":message-type": "exception" },
      "{}",
    );
    expect(firstMessageType(accented)).toBe("exception");
  });
});
