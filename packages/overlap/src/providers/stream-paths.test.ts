/**
 * The two ways `anthropicModel` reads a response give the same events and the same errors:
 * overlap's reader (the default: the SDK sends the request, overlap splits the body, one array of
 * events per network chunk) and the SDK's own stream (`sdkStream: true`, the fallback). Every
 * Anthropic response among the real recordings (../shared/realstreams, or the directory
 * `OVERLAP_REALSTREAMS_DIR` names), delivered whole, byte by byte and in seeded random pieces,
 * plus the faults a server can produce: an error event mid-stream, malformed JSON, a cut body,
 * pings and frames without a name, an HTTP error before the stream, an oversized event.
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../agent/model-client.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { anthropicModel } from "./anthropic.js";
import { REALSTREAMS_DIR } from "./realstreams.testkit.js";

/** Every recorded Anthropic response body, named. */
function anthropicBodies(): Array<{ name: string; body: Uint8Array }> {
  const out: Array<{ name: string; body: Uint8Array }> = [];
  for (const folder of ["fixtures", "formats"]) {
    const manifest = resolve(REALSTREAMS_DIR, folder, "manifest.json");
    if (!existsSync(manifest)) continue;
    const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
      name: string;
      format: string;
      responses: string[];
    }>;
    for (const entry of entries) {
      if (entry.format !== "anthropic") continue;
      for (const response of entry.responses) {
        out.push({
          name: `${folder}/${response}`,
          body: new Uint8Array(readFileSync(resolve(REALSTREAMS_DIR, folder, response))),
        });
      }
    }
  }
  return out;
}

/** Splits bytes into pieces: whole, one byte each, or seeded random sizes of 1 to 97 bytes. */
function pieces(body: Uint8Array, how: "whole" | "bytes" | number): Uint8Array[] {
  if (how === "whole") return [body];
  if (how === "bytes") return Array.from(body, (_, i) => body.subarray(i, i + 1));
  let seed = how;
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.length; ) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const size = 1 + (seed % 97);
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

/** A client whose every request is answered with `status` and these pieces of body. */
function clientAnswering(chunks: readonly Uint8Array[], status = 200): Anthropic {
  const fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      }),
      {
        status,
        headers: { "content-type": status === 200 ? "text/event-stream" : "application/json" },
      },
    );
  return new Anthropic({
    apiKey: "x",
    maxRetries: 0,
    fetch: fetch as unknown as typeof globalThis.fetch,
  });
}

const REQUEST: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };

/** The events one path yields, and how it failed (code and message), if it did. */
async function read(chunks: readonly Uint8Array[], sdkStream: boolean, status = 200) {
  const model = anthropicModel({ client: clientAnswering(chunks, status), model: "m", sdkStream });
  const events: StreamEvent[] = [];
  try {
    for await (const event of model.stream(REQUEST, { signal: new AbortController().signal })) {
      events.push(event);
    }
    return { events, error: undefined };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { events, error: { code: e.code, message: e.message } };
  }
}

const encode = (text: string) => new TextEncoder().encode(text);
const frame = (event: string | undefined, data: unknown) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const START = frame("message_start", {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "m",
    content: [],
    stop_reason: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  },
});
const TEXT = [
  frame("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }),
  frame("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "Hello" },
  }),
  frame("content_block_stop", { type: "content_block_stop", index: 0 }),
].join("");
const END = [
  frame("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: 2 },
  }),
  frame("message_stop", { type: "message_stop" }),
].join("");

describe("anthropicModel reads a response the same way on both paths", () => {
  const bodies = anthropicBodies();
  it.skipIf(bodies.length > 0 || process.env.CI === "true")("has recordings here", () => {
    console.warn(
      `!!! No recorded Anthropic streams at ${REALSTREAMS_DIR}: only the faults are compared.`,
    );
  });
  it.runIf(process.env.CI === "true")("has recordings in CI", () => {
    expect(bodies.length).toBeGreaterThan(0);
  });

  for (const { name, body } of bodies) {
    it(`${name}: the same events whole, byte by byte and in random pieces`, async () => {
      const sdk = await read([body], true);
      expect(sdk.events.length).toBeGreaterThan(0);
      // Byte by byte costs a read per byte: up to 32 KiB (the larger ones in random pieces).
      const ways =
        body.length <= 32_768
          ? (["whole", "bytes", 7, 1_234] as const)
          : (["whole", 7, 1_234] as const);
      for (const how of ways) {
        expect(await read(pieces(body, how), false), `${name} ${how}`).toEqual(sdk);
      }
    }, 60_000);
  }

  const faults: Array<[string, string]> = [
    ["a whole message", START + TEXT + END],
    [
      "pings and a frame without a name are skipped",
      `${frame("ping", { type: "ping" })}${START}${frame(undefined, { type: "ignored" })}${TEXT}${END}`,
    ],
    [
      "an error event mid-stream",
      `${START}${TEXT}${frame("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}${END}`,
    ],
    ["an error event whose data is not JSON", `${START}${frame("error", "upstream went away")}`],
    ["malformed JSON", `${START}${frame("content_block_start", "{not json")}`],
    ["a body cut before message_stop", START + TEXT],
    ["a body cut inside an event", `${START}event: content_block_start\ndata: {"type":"content_`],
    ["an empty body", ""],
  ];
  for (const [what, text] of faults) {
    it(`${what}: the same events and the same failure`, async () => {
      const sdk = await read([encode(text)], true);
      for (const how of ["whole", "bytes", 3] as const) {
        expect(await read(pieces(encode(text), how), false), `${what} ${how}`).toEqual(sdk);
      }
    });
  }

  it("an HTTP error before the stream is provider_error on both", async () => {
    const body = encode(
      JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad" } }),
    );
    const sdk = await read([body], true, 400);
    const ours = await read([body], false, 400);
    expect(sdk.error?.code).toBe("provider_error");
    expect(ours).toEqual(sdk);
  });

  it("overlap's reader yields one array per network chunk, the same events flattened", async () => {
    const text = START + TEXT + END;
    const model = anthropicModel({
      client: clientAnswering([encode(START), encode(TEXT + END)]),
      model: "m",
    });
    const batches: StreamEvent[][] = [];
    for await (const batch of model.streamBatches!(REQUEST, {
      signal: new AbortController().signal,
    })) {
      batches.push([...batch]);
    }
    expect(batches.map((b) => b.length)).toEqual([1, 5]);
    expect(batches.flat()).toEqual((await read([encode(text)], true)).events);
    const fallback = anthropicModel({
      client: clientAnswering([encode(text)]),
      model: "m",
      sdkStream: true,
    });
    expect(fallback.streamBatches).toBeUndefined();
  });
});
