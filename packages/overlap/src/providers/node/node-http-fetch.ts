/**
 * A `fetch` for the official SDKs built on `node:http` / `node:https`, so that overlap can read a
 * streamed response straight from Node's socket instead of through undici and a web stream, and
 * so that a fast stream is read in fewer, larger pieces.
 *
 * Why: with fine-grained tool streaming a response is thousands of small SSE frames. Whoever reads
 * them pays per network read (an event-loop wake-up, a socket read, the body stream's machinery)
 * far more than per byte: reading one 64 KiB tool argument as 9,000 frames costs several times
 * the CPU of the whole turn on a wire that buffers it into one frame. Two things cut that cost:
 * - **the direct read**: each `Response` it makes is marked (`readBodyWith`) so that overlap's
 *   adapters read the Node response itself (`incomingBatches`), splitting and parsing its chunks
 *   synchronously as they come, with one await per socket read;
 * - **paced reads**: while frames arrive faster than one per `minReadIntervalMs` (default 4 ms),
 *   the socket is read at most once per interval, so the kernel gathers what came in between
 *   into one read. A stream slower than that (a model writing at human-visible speed) is read as
 *   each piece arrives, with no delay at all; on a faster one a frame waits at most the interval.
 *
 * Everything else is an ordinary fetch: status, headers, a body readable as a web stream (the
 * SDKs read error bodies that way), keep-alive connections per origin (an idle one closed after
 * `idleConnectionMs`, or a second before the server's announced `Keep-Alive: timeout`, so that no
 * request is sent on a connection the server is closing), an `AbortSignal` that
 * cancels the request or the body. A request it does not handle (a body that is neither text nor
 * bytes, a scheme other than http/https) goes to the global `fetch`. Redirects are not followed
 * (the model APIs answer their endpoints directly): a 3xx is returned as it came. It asks for an
 * uncompressed body (`accept-encoding: identity` unless the caller asks otherwise); a body that
 * comes compressed anyway is decompressed and read through its web stream. `node:http` is
 * loaded at the first request; where it is missing every request goes to the global `fetch`.
 */

import type http from "node:http";
import type https from "node:https";
import type { Socket } from "node:net";
import type { Duplex, Readable } from "node:stream";
import type zlib from "node:zlib";
import { readBodyWith } from "../body-batches.js";
import { incomingBatches } from "./incoming-batches.js";

/** Options of {@link createNodeHttpFetch}. */
export interface NodeHttpFetchOptions {
  /**
   * The shortest time between two reads of a response's socket, in milliseconds, while data
   * arrives faster than that (default 4; 0 reads every piece as it arrives). Frames that arrive
   * within the interval are read together at its end.
   */
  minReadIntervalMs?: number;
  /**
   * How long this fetch's own agents keep an idle connection for the next request, in
   * milliseconds, when the server does not say (`Keep-Alive: timeout=N`; then a second less than
   * it says). Default 4,000, as undici's fetch: a server closing idle connections after 5 s
   * (Node's default) must never receive a request on a connection it is closing. 0 keeps none.
   */
  idleConnectionMs?: number;
  /** The agent for `http:` requests (default: one keep-alive agent shared by this fetch). */
  httpAgent?: http.Agent;
  /** The agent for `https:` requests (default: one keep-alive agent shared by this fetch). */
  httpsAgent?: https.Agent;
}

/** The default interval between two reads of a fast stream's socket. */
export const DEFAULT_MIN_READ_INTERVAL_MS = 4;

/** How long an idle connection is kept when its server does not say, by default. */
const DEFAULT_IDLE_CONNECTION_MS = 4_000;

/**
 * A read at least this large is a bulk transfer, not a trickle of frames: the socket is read again
 * at once (pacing it would cap the throughput at one receive buffer per interval).
 */
const BULK_READ_BYTES = 16 * 1024;

/** Statuses whose response has no body (a `Response` may not be given one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const incomingOfResponse = new WeakMap<Response, http.IncomingMessage>();

/**
 * The Node response behind a `Response` made by a {@link createNodeHttpFetch} fetch, for a reader
 * that takes its chunks directly; undefined for any other `Response` (read its `body`). A reader
 * that takes it must not read the `Response`'s body too.
 */
export function incomingBodyOf(response: Response): http.IncomingMessage | undefined {
  return incomingOfResponse.get(response);
}

/** A `fetch` over `node:http` with paced reads (see the module's description). */
export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): typeof fetch {
  const interval = Math.max(0, options.minReadIntervalMs ?? DEFAULT_MIN_READ_INTERVAL_MS);
  let transports: Promise<Transports | undefined> | undefined;
  const nodeFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = plainRequest(input, init);
    transports ??= loadTransports(options);
    const loaded = request && (await transports);
    if (!request || !loaded) return globalThis.fetch(input, init);
    const https = request.url.protocol === "https:";
    return send(
      request,
      https ? loaded.https : loaded.http,
      https ? loaded.httpsAgent : loaded.httpAgent,
      loaded.zlib,
      interval,
    );
  };
  return nodeFetch as typeof fetch;
}

interface Transports {
  http: typeof http;
  https: typeof https;
  zlib: typeof zlib;
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
}

/** `node:http`, `node:https` (with their agents) and `node:zlib`, or undefined where missing. */
async function loadTransports(options: NodeHttpFetchOptions): Promise<Transports | undefined> {
  const idleMs = Math.max(0, options.idleConnectionMs ?? DEFAULT_IDLE_CONNECTION_MS);
  try {
    const [httpModule, httpsModule, zlibModule] = await Promise.all([
      import("node:http"),
      import("node:https"),
      import("node:zlib"),
    ]);
    return {
      http: httpModule.default,
      https: httpsModule.default,
      zlib: zlibModule.default,
      httpAgent:
        options.httpAgent ?? closingBeforeServer(new httpModule.default.Agent(KEEP_ALIVE), idleMs),
      httpsAgent:
        options.httpsAgent ??
        closingBeforeServer(new httpsModule.default.Agent(KEEP_ALIVE), idleMs),
    };
  } catch {
    return undefined;
  }
}

const KEEP_ALIVE: http.AgentOptions = { keepAlive: true };

/** The server's announced idle timeout of each socket (`Keep-Alive: timeout=N`), in ms. */
const serverIdleMs = new WeakMap<object, number>();

/** Notes the idle timeout a response's server announced for its connection. */
function noteServerIdle(incoming: http.IncomingMessage): void {
  const hint = /^\s*timeout=(\d+)/i.exec(String(incoming.headers["keep-alive"] ?? ""))?.[1];
  if (hint !== undefined) serverIdleMs.set(incoming.socket, Number(hint) * 1000);
}

/**
 * `agent`, closing an idle connection after `idleMs`, or a second before the server's announced
 * `Keep-Alive: timeout`. A connection the server closes while a request is being sent on it fails
 * that request ("socket hang up"); the agent of `node:http` keeps idle connections until the
 * server closes them, and heeds the server's timeout only when given a `timeout` of its own,
 * which would also time the sockets in use.
 */
function closingBeforeServer<A extends http.Agent>(agent: A, idleMs: number): A {
  // Node's agent answers whether it keeps the socket (its types say void).
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean | undefined;
  agent.keepSocketAlive = (socket) => {
    const kept = keep(socket);
    const announced = serverIdleMs.get(socket);
    const ms = announced === undefined ? idleMs : announced - 1_000;
    // The agent destroys a free socket that times out.
    if (kept !== false && ms > 0) (socket as Partial<Socket>).setTimeout?.(ms);
    return kept !== false && ms > 0;
  };
  const reuse = agent.reuseSocket.bind(agent);
  agent.reuseSocket = (socket, request) => {
    (socket as Partial<Socket>).setTimeout?.(0);
    reuse(socket, request);
  };
  return agent;
}

/** The default {@link createNodeHttpFetch} fetch (paced reads every 4 ms at most). */
export const nodeHttpFetch: typeof fetch = createNodeHttpFetch();

interface PlainRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: string | Uint8Array | undefined;
  signal: AbortSignal | undefined;
}

/** The request as text or bytes, or undefined when this fetch leaves it to the global one. */
function plainRequest(input: string | URL | Request, init?: RequestInit): PlainRequest | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const body = init?.body;
  let bytes: string | Uint8Array | undefined;
  if (body === undefined || body === null) bytes = undefined;
  else if (typeof body === "string" || body instanceof Uint8Array) bytes = body;
  else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else return undefined;
  return {
    url,
    method: (init?.method ?? "GET").toUpperCase(),
    headers: new Headers(init?.headers),
    body: bytes,
    signal: init?.signal ?? undefined,
  };
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function send(
  request: PlainRequest,
  transport: typeof http | typeof https,
  agent: http.Agent,
  zlibModule: typeof zlib,
  interval: number,
): Promise<Response> {
  const { url, signal, method } = request;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The body is read as it arrives, frame by frame: compression would only add work on both ends.
  headers["accept-encoding"] ??= "identity";
  // Held here only until it is written: the closures below live as long as the response (seconds
  // of a paced stream), and must not keep the request's body (a model request's whole
  // conversation and tools) alive with them.
  let body = request.body;
  if (body !== undefined && headers["content-length"] === undefined) {
    headers["content-length"] = String(
      typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    );
  }
  return new Promise<Response>((resolve, reject) => {
    const req = transport.request(url, { method, headers, agent });
    const onAbort = (): void => {
      const reason = abortError(signal as AbortSignal);
      req.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      reject(reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err) => {
      signal?.removeEventListener("abort", onAbort);
      // What undici's fetch rejects with for a failed connection, so callers treat it alike.
      reject(signal?.aborted ? abortError(signal) : new TypeError("fetch failed", { cause: err }));
    });
    req.on("response", (incoming) => {
      noteServerIdle(incoming);
      if (signal) {
        // An abort once the body flows ends the body (its readers see the signal aborted).
        signal.removeEventListener("abort", onAbort);
        const onBodyAbort = (): void => {
          incoming.destroy(new DOMException("This operation was aborted", "AbortError"));
        };
        signal.addEventListener("abort", onBodyAbort, { once: true });
        incoming.once("close", () => signal.removeEventListener("abort", onBodyAbort));
      }
      let response: Response;
      try {
        response = toResponse(incoming, zlibModule);
      } catch (err) {
        // Headers a `Headers` cannot hold: as undici's fetch, a failed fetch.
        incoming.destroy();
        reject(new TypeError("fetch failed", { cause: err }));
        return;
      }
      if (interval > 0) paceReads(incoming, interval);
      resolve(response);
    });
    req.end(body);
    body = undefined;
  });
}

function toResponse(incoming: http.IncomingMessage, zlibModule: typeof zlib): Response {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i] as string, raw[i + 1] as string);
  const status = incoming.statusCode ?? 200;
  const statusText = incoming.statusMessage ?? "";
  if (NULL_BODY_STATUSES.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText, headers });
  }
  const decoder = decompressor(incoming.headers["content-encoding"], zlibModule);
  if (decoder) {
    // A compressed body: decoded, then read through its web stream (not the direct read).
    const decoded = pipelineInto(incoming, decoder);
    return new Response(lazyWebBody(decoded), { status, statusText, headers });
  }
  const response = new Response(lazyWebBody(incoming), { status, statusText, headers });
  incomingOfResponse.set(response, incoming);
  readBodyWith(response, (reader, signal) => incomingBatches(incoming, reader, signal));
  return response;
}

/** The stream that decodes `encoding`, or undefined for an uncompressed body. */
function decompressor(encoding: string | undefined, zlibModule: typeof zlib) {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlibModule.createGunzip();
    case "deflate":
      return zlibModule.createInflate();
    case "br":
      return zlibModule.createBrotliDecompress();
    default:
      return undefined;
  }
}

/** `source` piped into `decoder`; a failure of either ends the decoder with it. */
function pipelineInto(
  source: Readable,
  decoder: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress,
) {
  source.on("error", (err) => decoder.destroy(err));
  source.pipe(decoder);
  return decoder;
}

/**
 * The body as a web stream that takes the Node response's chunks only once somebody reads it
 * (high-water mark 0), so that a reader taking the Node response directly finds every chunk.
 */
function lazyWebBody(incoming: Readable): ReadableStream<Uint8Array> {
  let attached = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) {
          incoming.resume();
          return;
        }
        attached = true;
        incoming.on("data", (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
        });
        incoming.once("end", () => controller.close());
        incoming.once("error", (err) => controller.error(err));
      },
      cancel() {
        incoming.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reads the response's socket at most once per `interval` while data arrives faster than that:
 * after a read that came sooner than `interval` after the previous one, the socket is paused
 * until the interval is over, and what arrives meanwhile waits for one read. The response's own
 * flow control may not resume the socket while it is held. A paused socket keeps reading into
 * its own buffer, one chunk per read: when it is released, every chunk it gathered is handed on
 * at once (pausing again at the first of them would hand on one chunk per interval, and a stream
 * trickling in small writes would fall ever further behind).
 */
function paceReads(incoming: http.IncomingMessage, interval: number): void {
  const socket = incoming.socket;
  let lastRead = -Infinity;
  let held: ReturnType<typeof setTimeout> | undefined;
  /** Bytes the socket buffered while held, handed on at the release. */
  let backlog = 0;
  const hold = (now: number): void => {
    socket.pause();
    held = setTimeout(release, interval - (now - lastRead));
  };
  // At the interval's end, after this turn's socket reads (the check phase follows the poll), so
  // that what they brought goes on with the rest, as one piece of body.
  const release = (): void => {
    setImmediate(() => {
      held = undefined;
      lastRead = performance.now();
      backlog = socket.readableLength;
      socket.resume();
    });
  };
  const onRead = (bytes: Buffer): void => {
    if (held !== undefined) return;
    if (backlog > 0) {
      // The stream came faster than the interval: once what waited is handed on, the next
      // interval's wait starts (the read that ends it is this one).
      backlog -= bytes.length;
      if (backlog <= 0) hold(performance.now());
      return;
    }
    const now = performance.now();
    if (now - lastRead >= interval || bytes.length >= BULK_READ_BYTES) {
      lastRead = now;
      return;
    }
    hold(now);
  };
  // The response's `_read` resumes the socket when its buffer runs low; not while we hold it.
  const ownRead = incoming._read.bind(incoming);
  incoming._read = (size: number) => {
    if (held === undefined) ownRead(size);
  };
  socket.on("data", onRead);
  const stop = (): void => {
    socket.off("data", onRead);
    if (held !== undefined) {
      clearTimeout(held);
      held = undefined;
      // The connection goes back to the agent's pool as it came: reading.
      if (!socket.destroyed) socket.resume();
    }
  };
  incoming.once("end", stop);
  incoming.once("close", stop);
}
