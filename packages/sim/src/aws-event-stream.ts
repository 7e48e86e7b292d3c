/**
 * The AWS event stream binary framing (`application/vnd.amazon.eventstream`), the body of a
 * Bedrock `ConverseStream` answer. Pure; written from the format's description, with no AWS
 * package: overlap-sim has no runtime dependencies. The AWS SDK's own decoder reads every frame
 * in the tests (it checks both CRCs).
 *
 * One message:
 *
 * | bytes | field |
 * | --- | --- |
 * | 4 | total length (big-endian), this field and the CRCs included |
 * | 4 | headers length |
 * | 4 | CRC-32 of the 8 bytes before it (the prelude) |
 * | n | headers: each a name length (1 byte), the name, a value type (7: string), the value length (2 bytes), the value |
 * | m | payload |
 * | 4 | CRC-32 of everything before it |
 *
 * Only string headers are written (`:event-type`, `:content-type`, `:message-type`,
 * `:exception-type`), which is all Bedrock sends.
 */

import { crc32 } from "node:zlib";

const STRING_HEADER = 7;
const PRELUDE_BYTES = 12;
const CRC_BYTES = 4;

/** One event stream message with string headers (in the given order) and a payload. */
export function encodeEventStreamMessage(
  headers: Readonly<Record<string, string>>,
  payload: Uint8Array | string,
): Uint8Array {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name, "utf8");
    const valueBytes = Buffer.from(value, "utf8");
    if (nameBytes.length > 255) throw new RangeError(`Header name too long: ${name}`);
    if (valueBytes.length > 32_767) throw new RangeError(`Header value too long: ${name}`);
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    header.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(header, 1);
    header.writeUInt8(STRING_HEADER, 1 + nameBytes.length);
    header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    valueBytes.copy(header, 4 + nameBytes.length);
    return header;
  });
  const headerBytes = Buffer.concat(encoded);
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload);
  const total = PRELUDE_BYTES + headerBytes.length + body.length + CRC_BYTES;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, PRELUDE_BYTES);
  body.copy(message, PRELUDE_BYTES + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - CRC_BYTES)), total - CRC_BYTES);
  return new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
}

/** An `event` message: `:event-type`, `:content-type: application/json`, `:message-type: event`. */
export function awsEvent(eventType: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(
    {
      ":event-type": eventType,
      ":content-type": "application/json",
      ":message-type": "event",
    },
    JSON.stringify(payload),
  );
}

/** An `exception` message: `:exception-type` (the stream member's name) and a JSON payload. */
export function awsException(exceptionType: string, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(
    {
      ":exception-type": exceptionType,
      ":content-type": "application/json",
      ":message-type": "exception",
    },
    JSON.stringify(payload),
  );
}

/** One decoded message (for tests and tools reading the sim's bytes). */
export interface DecodedEventStreamMessage {
  headers: Record<string, string>;
  payload: Uint8Array;
}

/**
 * Splits bytes into messages, checking lengths and both CRCs; a trailing incomplete message (a
 * cut connection) is returned in `rest`. Only string headers are read.
 * @throws Error on a CRC mismatch or a header type other than string.
 */
export function decodeEventStreamMessages(bytes: Uint8Array): {
  messages: DecodedEventStreamMessage[];
  rest: Uint8Array;
} {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages: DecodedEventStreamMessage[] = [];
  let offset = 0;
  while (data.length - offset >= PRELUDE_BYTES) {
    const total = data.readUInt32BE(offset);
    if (data.length - offset < total) break;
    const message = data.subarray(offset, offset + total);
    if (message.readUInt32BE(8) !== crc32(message.subarray(0, 8))) {
      throw new Error(`Prelude CRC mismatch at byte ${offset}.`);
    }
    if (message.readUInt32BE(total - CRC_BYTES) !== crc32(message.subarray(0, total - CRC_BYTES))) {
      throw new Error(`Message CRC mismatch at byte ${offset}.`);
    }
    const headersEnd = PRELUDE_BYTES + message.readUInt32BE(4);
    const headers: Record<string, string> = {};
    for (let at = PRELUDE_BYTES; at < headersEnd; ) {
      const nameLength = message.readUInt8(at);
      const name = message.toString("utf8", at + 1, at + 1 + nameLength);
      const type = message.readUInt8(at + 1 + nameLength);
      if (type !== STRING_HEADER) throw new Error(`Header ${name} is not a string (type ${type}).`);
      const valueLength = message.readUInt16BE(at + 2 + nameLength);
      const valueStart = at + 4 + nameLength;
      headers[name] = message.toString("utf8", valueStart, valueStart + valueLength);
      at = valueStart + valueLength;
    }
    messages.push({
      headers,
      payload: new Uint8Array(message.subarray(headersEnd, total - CRC_BYTES)),
    });
    offset += total;
  }
  return { messages, rest: new Uint8Array(data.subarray(offset)) };
}
