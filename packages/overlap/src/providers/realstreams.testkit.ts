/**
 * What the tests that replay real recorded streams share: where the recordings are, and how a
 * recorded body is delivered (whole, byte by byte, or in seeded random chunks) through a `fetch`
 * that answers each request with the next recorded response.
 */

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { splitSeeded } from "../testing/replay.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/**
 * The recordings' directory (the one holding `fixtures/` and `formats/`): `OVERLAP_REALSTREAMS_DIR`
 * when set (a relative path from the working directory), else `../shared/realstreams` beside the
 * repository, where CI has them.
 */
export const REALSTREAMS_DIR = process.env.OVERLAP_REALSTREAMS_DIR?.trim()
  ? resolve(process.env.OVERLAP_REALSTREAMS_DIR.trim())
  : resolve(REPO_ROOT, "../shared/realstreams");

/** How a body is cut for delivery. */
export interface Chunking {
  label: string;
  /** Most bytes per read; 1: byte by byte; undefined: the whole body at once. */
  maxChunk: number | undefined;
}

/** FNV-1a: a stable seed per fixture, response and chunking (a failure names it). */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Cuts bytes into chunks of 1..maxChunk bytes with the library's seeded splitter (on a latin1
 * string, one character per byte), so cuts fall anywhere, inside UTF-8 sequences included.
 */
export function splitBytes(
  bytes: Uint8Array,
  seed: number,
  maxChunk: number | undefined,
): Uint8Array[] {
  if (maxChunk === undefined) return [bytes];
  if (maxChunk === 1) return Array.from(bytes, (b) => Uint8Array.of(b));
  const chunks = splitSeeded(Buffer.from(bytes).toString("latin1"), seed, maxChunk).map(
    (piece) => new Uint8Array(Buffer.from(piece, "latin1")),
  );
  expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  return chunks;
}

/** Each recorded response of a fixture, cut as `chunking` says (seeded by fixture and response). */
export function deliveries(
  fixture: { name: string; bodies: readonly Uint8Array[] },
  chunking: Chunking,
): Uint8Array[][] {
  return fixture.bodies.map((body, k) =>
    splitBytes(body, seedOf(`${fixture.name}/r${k + 1}/${chunking.label}`), chunking.maxChunk),
  );
}

/** A body that hands out one chunk per read, as a network would. */
export function bodyOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

/**
 * A `fetch` for the SDK clients: the K-th request gets the K-th recorded body; a request beyond
 * the recording fails (the test then fails on the request count). Request bodies are kept.
 */
export function recordedFetch(responses: readonly (readonly Uint8Array[])[], requests: string[]) {
  return async (_input: unknown, init?: { body?: unknown }): Promise<Response> => {
    requests.push(typeof init?.body === "string" ? init.body : "");
    const chunks = responses[requests.length - 1];
    if (!chunks) {
      throw new Error(`request ${requests.length}: only ${responses.length} responses recorded`);
    }
    return new Response(bodyOf(chunks), {
      status: 200,
      headers: { "content-type": "text/event-stream" },
    });
  };
}
