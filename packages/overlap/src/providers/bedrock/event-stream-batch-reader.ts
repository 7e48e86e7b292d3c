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
 * message or before `messageStop`. What the translator keeps "as received" (citations, provider
 * tool results) is shaped as the SDK's schema would (see `sdkShape`); elsewhere it reads only the
 * fields it knows.
 */

import { OverlapError } from "../../errors.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import type { ChunkReader } from "../body-batches.js";
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
  /**
   * Bytes of a message not complete yet, in the pieces they came in (joined once there are
   * enough: a large message in many small reads is not copied again at every read).
   */
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  /** How many pending bytes let the next message be read: its prelude, then its whole length. */
  #need = PRELUDE_BYTES;
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
    if (this.#pendingLength + bytes.length < this.#need) {
      this.#pending.push(bytes);
      this.#pendingLength += bytes.length;
      return;
    }
    let data = bytes;
    if (this.#pendingLength > 0) {
      data = new Uint8Array(this.#pendingLength + bytes.length);
      let offset = 0;
      for (const piece of this.#pending) {
        data.set(piece, offset);
        offset += piece.length;
      }
      data.set(bytes, offset);
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
    const rest = this.#over ? new Uint8Array(0) : new Uint8Array(data.subarray(at)); // a copy
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingLength = rest.length;
    const total =
      rest.length >= PRELUDE_BYTES
        ? new DataView(rest.buffer, rest.byteOffset, rest.byteLength).getUint32(0)
        : PRELUDE_BYTES;
    // Its length passed the checks above (a prelude is checked as soon as it is whole).
    this.#need = total;
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
    if (this.#pendingLength > 0) throw new Error("Truncated event message received.");
    if (!this.#translator.finished) throw streamCut(undefined, "ended before messageStop");
    for (const e of this.#translator.end()) out.push(e);
  }

  #json(payload: Uint8Array): unknown {
    return payload.length === 0 ? {} : JSON.parse(this.#text.decode(payload));
  }
}

/**
 * The `:message-type` of the first message in `bytes` (`event`, `exception`, `error`), or
 * undefined when they do not hold a whole one. Its checksums are not checked here: the reader
 * checks them.
 */
export function firstMessageType(bytes: Uint8Array): string | undefined {
  if (bytes.length < PRELUDE_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = view.getUint32(0);
  const headersLength = view.getUint32(4);
  if (total > bytes.length || total < FRAMING_BYTES + headersLength) return undefined;
  try {
    const text = new TextDecoder("utf-8", { fatal: true });
    return readHeaders(bytes, view, PRELUDE_BYTES, headersLength, text).get(":message-type");
  } catch {
    return undefined;
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
    const name = headerText(data.subarray(at + 1, at + 1 + nameLength), text);
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
        if (type === 7) headers.set(name, headerText(data.subarray(at + 2, at + 2 + size), text));
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

/**
 * A header's name or value: ASCII in practice (`:event-type`, `contentBlockDelta`), read without
 * a decoder call (three headers a message, on every event); UTF-8 otherwise.
 */
function headerText(bytes: Uint8Array, text: InstanceType<typeof TextDecoder>): string {
  let ascii = "";
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x80) return text.decode(bytes);
    ascii += String.fromCharCode(byte);
  }
  return ascii;
}

/**
 * An event's payload as the SDK's schema gives it, where the translator reads or keeps it whole:
 * blobs as bytes (they travel as base64), the structures kept "as received" (a citation, a
 * provider tool's result) without the fields the SDK does not know, and a union member it does
 * not know as `{ $unknown: [name, value] }`, which the SDK's serializer sends back as it came
 * (a plain unknown member would be dropped from the request). The members are the SDK's own
 * (`@aws-sdk/client-bedrock-runtime` 3.1164).
 */
function sdkShape(type: string, payload: unknown): unknown {
  if (!isRecord(payload)) return payload;
  if (type === "contentBlockDelta" && isRecord(payload.delta)) {
    const delta = payload.delta;
    const reasoning = delta.reasoningContent;
    if (isRecord(reasoning) && typeof reasoning.redactedContent === "string") {
      reasoning.redactedContent = base64Bytes(reasoning.redactedContent);
    }
    if (isRecord(delta.citation)) delta.citation = citationShape(delta.citation);
    if (Array.isArray(delta.toolResult)) {
      delta.toolResult = delta.toolResult.map((item) => union(item, TOOL_RESULT_MEMBERS));
    }
  } else if (type === "contentBlockStart" && isRecord(payload.start)) {
    const result = payload.start.toolResult;
    if (isRecord(result)) payload.start.toolResult = known(result, TOOL_RESULT_START_FIELDS);
  }
  return payload;
}

const CITATION_FIELDS = ["title", "source", "sourceContent", "location"];
const CITATION_LOCATION_MEMBERS = [
  "web",
  "documentChar",
  "documentPage",
  "documentChunk",
  "searchResultLocation",
];
const TOOL_RESULT_MEMBERS = ["text", "json"];
const TOOL_RESULT_START_FIELDS = ["toolUseId", "type", "status"];

function citationShape(citation: Record<string, unknown>): Record<string, unknown> {
  const out = known(citation, CITATION_FIELDS);
  if (Array.isArray(out.sourceContent)) {
    out.sourceContent = out.sourceContent.map((piece) =>
      isRecord(piece) ? known(piece, ["text"]) : piece,
    );
  }
  if (out.location !== undefined) out.location = union(out.location, CITATION_LOCATION_MEMBERS);
  return out;
}

/** Only the fields the SDK knows. */
function known(value: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (value[field] !== undefined) out[field] = value[field];
  return out;
}

/** A union value: its member if the SDK knows it, else the SDK's `$unknown` form. */
function union(value: unknown, members: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  const name = Object.keys(value).find((key) => value[key] !== undefined && value[key] !== null);
  if (name === undefined || members.includes(name)) return value;
  return { $unknown: [name, value[name]] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
