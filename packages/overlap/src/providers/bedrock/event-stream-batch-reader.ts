/**
 * The synchronous core of overlap's read of a Bedrock ConverseStream body: the AWS event stream's
 * binary messages (prelude with lengths and its CRC32, headers, a JSON payload, the message's
 * CRC32) decoded from each network chunk in one pass, each event handed to the
 * {@link BedrockStreamTranslator} as the SDK would have given it, the chunk's neutral events out.
 * No I/O and no await per event: the AWS SDK's own reader goes through several async iterators
 * and a schema walk per event, about 2.3 times the CPU of the whole read here.
 *
 * What the SDK's reader would have given is kept: an event is `{ [":event-type"]: payload }`
 * (`redactedContent`, a blob, as bytes), the modeled stream exceptions become the translator's
 * neutral `error` event, any other exception or error message fails the stream
 * (`stream_interrupted`), as does a checksum that does not match or a body that ends inside a
 * message or before `messageStop`. Fields of a payload the SDK does not know are kept (the SDK
 * drops them): the translator reads the fields it knows, and what it keeps "as received"
 * (citations, provider tool results) keeps them.
 */

import { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { ChunkReader } from "../incoming-batches.js";
import { streamCut } from "../provider-errors.js";
import {
  BEDROCK_STREAM_EXCEPTIONS,
  type BedrockStreamEvent,
  type BedrockStreamTranslator,
} from "./bedrock-stream-translator.js";

/** CRC-32 (IEEE) of bytes, as `node:zlib`'s `crc32` computes it. */
export type Crc32 = (data: Uint8Array) => number;

/** The largest event stream message accepted (the SDK's own limit): 16 MiB. */
export const MAX_EVENT_STREAM_MESSAGE_BYTES = 16 * 1024 * 1024;

const PRELUDE_BYTES = 12;
/** Prelude and the message's trailing CRC. */
const FRAMING_BYTES = 16;

/** Reads the event stream of one ConverseStream response, chunk by chunk. */
export class EventStreamBatchReader implements ChunkReader {
  readonly #translator: BedrockStreamTranslator;
  readonly #crc32: Crc32;
  readonly #text = new TextDecoder("utf-8", { fatal: true });
  /** Bytes of a message not complete yet. */
  #pending: Uint8Array = new Uint8Array(0);
  #over = false;

  constructor(translator: BedrockStreamTranslator, crc32: Crc32) {
    this.#translator = translator;
    this.#crc32 = crc32;
  }

  get over(): boolean {
    return this.#over;
  }

  read(bytes: Uint8Array | undefined): { events: StreamEvent[]; failure?: OverlapError } {
    const events: StreamEvent[] = [];
    try {
      if (bytes === undefined) {
        if (!this.#over) this.#end(events);
      } else {
        this.#messages(bytes, events);
      }
    } catch (err) {
      this.#over = true;
      return { events, failure: err instanceof OverlapError ? err : streamCut(err) };
    }
    return { events };
  }

  #messages(bytes: Uint8Array, out: StreamEvent[]): void {
    let data = bytes;
    if (this.#pending.length > 0) {
      data = new Uint8Array(this.#pending.length + bytes.length);
      data.set(this.#pending);
      data.set(bytes, this.#pending.length);
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let at = 0;
    while (!this.#over && data.length - at >= PRELUDE_BYTES) {
      const total = view.getUint32(at);
      const headersLength = view.getUint32(at + 4);
      // The SDK's own words for each failure, so that both reads fail alike.
      const preludeCrc = this.#crc32(data.subarray(at, at + 8));
      if (preludeCrc !== view.getUint32(at + 8)) {
        throw new Error(
          `The prelude checksum specified in the message (${view.getUint32(at + 8)}) does not match the calculated CRC32 checksum (${preludeCrc})`,
        );
      }
      if (total < FRAMING_BYTES + headersLength || total > MAX_EVENT_STREAM_MESSAGE_BYTES) {
        throw new Error(`An event stream message has an invalid length (${total} bytes).`);
      }
      if (data.length - at < total) break;
      const crcAt = at + total - 4;
      const messageCrc = this.#crc32(data.subarray(at, crcAt));
      if (messageCrc !== view.getUint32(crcAt)) {
        throw new Error(
          `The message checksum (${messageCrc}) did not match the expected value of ${view.getUint32(crcAt)}`,
        );
      }
      const headers = readHeaders(data, view, at + PRELUDE_BYTES, headersLength, this.#text);
      const payload = data.subarray(at + PRELUDE_BYTES + headersLength, crcAt);
      this.#message(headers, payload, out);
      at += total;
    }
    this.#pending = this.#over ? new Uint8Array(0) : data.slice(at);
  }

  #message(headers: Map<string, string>, payload: Uint8Array, out: StreamEvent[]): void {
    const kind = headers.get(":message-type");
    if (kind === "event") {
      const type = headers.get(":event-type") ?? "";
      const event = {
        [type]: sdkShape(type, this.#json(payload)),
      } as unknown as BedrockStreamEvent;
      for (const e of this.#translator.push(event)) out.push(e);
      if (this.#translator.failed) this.#over = true;
      return;
    }
    if (kind === "exception") {
      const type = headers.get(":exception-type") ?? "";
      if (Object.hasOwn(BEDROCK_STREAM_EXCEPTIONS, type)) {
        // The translator turns a modeled exception into the neutral `error` event.
        const event = { [type]: this.#json(payload) } as unknown as BedrockStreamEvent;
        for (const e of this.#translator.push(event)) out.push(e);
        this.#over = true;
        return;
      }
      throw named(type, new TextDecoder().decode(payload));
    }
    if (kind === "error") {
      throw named(
        headers.get(":error-code") ?? "Error",
        headers.get(":error-message") || "UnknownError",
      );
    }
    throw new Error(`An event stream message of unknown type ${String(kind)}.`);
  }

  /** The body ended: after `messageStop` the translator's last events, else a cut stream. */
  #end(out: StreamEvent[]): void {
    this.#over = true;
    if (this.#pending.length > 0) throw new Error("Truncated event message received.");
    if (!this.#translator.finished) throw streamCut(undefined, "ended before messageStop");
    for (const e of this.#translator.end()) out.push(e);
  }

  #json(payload: Uint8Array): unknown {
    return payload.length === 0 ? {} : JSON.parse(this.#text.decode(payload));
  }
}

/** The string headers of a message (the only kind the protocol's own headers use). */
function readHeaders(
  data: Uint8Array,
  view: DataView,
  start: number,
  length: number,
  text: InstanceType<typeof TextDecoder>,
): Map<string, string> {
  const headers = new Map<string, string>();
  const end = start + length;
  let at = start;
  while (at < end) {
    const nameLength = data[at] as number;
    const name = text.decode(data.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = data[at] as number;
    at += 1;
    switch (type) {
      case 0: // true
      case 1: // false
        break;
      case 2: // byte
        at += 1;
        break;
      case 3: // short
        at += 2;
        break;
      case 4: // integer
        at += 4;
        break;
      case 5: // long
      case 8: // timestamp
        at += 8;
        break;
      case 6: // bytes
      case 7: {
        // string
        const size = view.getUint16(at);
        if (type === 7) headers.set(name, text.decode(data.subarray(at + 2, at + 2 + size)));
        at += 2 + size;
        break;
      }
      case 9: // uuid
        at += 16;
        break;
      default:
        throw new Error(`An event stream header of unknown type ${type}.`);
    }
  }
  if (at !== end) throw new Error("An event stream message's headers overrun their length.");
  return headers;
}

/** The SDK's blobs of an event's payload as bytes (they travel as base64 in the JSON). */
function sdkShape(type: string, payload: unknown): unknown {
  if (type !== "contentBlockDelta") return payload;
  const reasoning = (payload as { delta?: { reasoningContent?: { redactedContent?: unknown } } })
    .delta?.reasoningContent;
  if (reasoning && typeof reasoning.redactedContent === "string") {
    reasoning.redactedContent = base64Bytes(reasoning.redactedContent);
  }
  return payload;
}

function base64Bytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function named(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}
