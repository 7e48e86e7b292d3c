/**
 * Serves a fetch handler on Node (the only Node-specific piece of the server) and stops it
 * gracefully: stop accepting, let running responses finish, close idle keep-alive connections at
 * once and, after a grace period, whatever is still open.
 *
 * Bounds at the socket level: at most `maxConnections` connections at once (the next ones are
 * answered 503 with `Retry-After` and closed, instead of Node's `server.maxConnections`, which
 * drops them without a word), at most `maxConnectionsPerAddress` of them from one client address
 * (429 with `Retry-After`), with the last slots kept for addresses holding none
 * (`connection-gate.ts`); a request's headers must arrive within `headersTimeoutMs` and the
 * whole request, body included, within `requestTimeoutMs` (Node's `headersTimeout` and
 * `requestTimeout`, answered 408). Node stops timing a request once it has been received in full,
 * so a response may stream for as long as it likes (an SSE turn stream is not cut).
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener, RequestError } from "@hono/node-server";
import { ConnectionGate, type ConnectionTicket, type Refusal } from "./connection-gate.js";
import { GENERIC_ERROR_MESSAGE } from "./handle-error.js";
import { errorBody } from "./http-error.js";
import { markRequestTimedOut } from "./read-json.js";
import { forwardedClient, type TrustProxy, trustsPeer } from "./trust-proxy.js";

/** The default of {@link StartHttpServerOptions.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 900;
/** The default of {@link StartHttpServerOptions.maxConnectionsPerAddress}. */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
/** The default of {@link StartHttpServerOptions.headersTimeoutMs}. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** The default of {@link StartHttpServerOptions.requestTimeoutMs}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** What a connection refused at the cap is told to wait, in seconds. */
const BUSY_RETRY_AFTER_S = 2;
/** Refused connections answered at once at most; past that, more are closed without a word. */
const MAX_REFUSING = 64;
/** How long a refused connection may linger (its client reading the 503) before it is cut. */
const REFUSAL_LINGER_MS = 2_000;

/** A listening server. */
export interface HttpServer {
  /**
   * Where it listens: `http://<address>:<port>` (IPv6 in brackets); `http://localhost:<port>`
   * when it listens on every interface.
   */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections; resolves once every connection is closed. Connections still
   * open after `graceMs` (default 5 s) are cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Options of {@link startHttpServer}. */
export interface StartHttpServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** The interface (an address or a host name); default all of them. */
  hostname?: string;
  /**
   * Connections open at once at most (default {@link DEFAULT_MAX_CONNECTIONS}); the next ones
   * are answered 503 `server_busy` with `Retry-After` and closed.
   */
  maxConnections?: number;
  /**
   * Connections one client address may hold at once (default
   * {@link DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}); the next ones from it are answered 429
   * `too_many_connections` with `Retry-After` and closed.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Of `maxConnections`, how many only an address holding no connection may take (default a
   * sixteenth, at most 32), so a health probe finds a place while a few addresses hold the rest.
   */
  reservedConnections?: number;
  /**
   * The trusted proxies (`TRUST_PROXY`): a connection from one is counted against the client each
   * request was forwarded for, as the rate limits read it.
   */
  trustProxy?: TrustProxy | undefined;
  /** How long a request's headers may take to arrive (default 10 s); then 408. */
  headersTimeoutMs?: number;
  /**
   * How long a whole request, headers and body, may take to arrive (default 30 s); then 408.
   * Not the response: a response streams as long as it likes. At least `headersTimeoutMs`.
   */
  requestTimeoutMs?: number;
  /** Told about sockets the server could not accept (no file descriptor left, e.g.). */
  onAcceptError?: (error: Error) => void;
}

/** Starts listening. */
export async function startHttpServer(
  fetch: (request: Request) => Response | Promise<Response>,
  options: StartHttpServerOptions,
): Promise<HttpServer> {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(
    options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeout,
  );
  const gate = new ConnectionGate({
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    perAddress: options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    ...(options.reservedConnections === undefined ? {} : { reserve: options.reservedConnections }),
  });
  const tickets = new WeakMap<Socket, ConnectionTicket>();
  const listener = getRequestListener(fetch, { errorHandler: answerRequestError });
  const trust = options.trustProxy;
  // No Host header is the adapter's to refuse (in JSON, below), not Node's (an empty 400).
  const server = createServer(
    {
      requireHostHeader: false,
      headersTimeout,
      requestTimeout,
      // How often Node looks for requests past their timeout (its default is 30 s, which would
      // let a 10 s bound run to 40 s).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    (request, response) => {
      // A trusted proxy's connection counts against the client of each request on it.
      const ticket = trust && tickets.get(request.socket);
      if (trust && ticket) {
        const peer = request.socket.remoteAddress;
        const header = request.headers["x-forwarded-for"];
        const forwarded = Array.isArray(header) ? header.join(",") : header;
        const client = forwardedClient(peer, forwarded, trust);
        if (client !== undefined && client !== canonicalAddress(peer) && !ticket.moveTo(client)) {
          response.shouldKeepAlive = false;
          response.writeHead(429, refusalHeaders("address_full"));
          response.end(REFUSAL_BODIES.address_full);
          return;
        }
      }
      listener(request, response);
    },
  );
  server.on("clientError", answerClientError);
  capConnections(server, gate, (socket, ticket) => tickets.set(socket, ticket), trust);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Once listening, the only errors are failed accepts (EMFILE...): the server goes on (libuv
  // keeps accepting), and without a listener the error would end the process.
  server.on("error", (error) => options.onAcceptError?.(error));
  const { port, address } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: urlOf(address, port),
    port,
    close(closeOptions = {}) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), closeOptions.graceMs ?? 5_000);
        // A keep-alive connection becomes idle when its response (a stream) ends: close it then.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        force.unref();
        sweep.unref();
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/** The answers of refused connections, in the API's error shape. */
const REFUSAL_BODIES: Readonly<Record<Refusal, string>> = {
  server_full: JSON.stringify(
    errorBody("server_busy", "The server has too many connections open. Try again shortly."),
  ),
  address_full: JSON.stringify(
    errorBody(
      "too_many_connections",
      "Too many connections are open from your address. Close some, or try again shortly.",
    ),
  ),
};

function refusalHeaders(refusal: Refusal): Record<string, string> {
  return {
    "content-type": "application/json",
    "retry-after": String(BUSY_RETRY_AFTER_S),
    "content-length": String(Buffer.byteLength(REFUSAL_BODIES[refusal])),
    connection: "close",
  };
}

/** An address in one spelling (`::ffff:127.0.0.1` is `127.0.0.1`), so one client is one key. */
function canonicalAddress(address: string | undefined): string {
  return forwardedClient(address, undefined, { hops: 0 }) ?? address ?? "unknown";
}

/**
 * Admits connections through `gate`. Node's own `server.maxConnections` closes the connections
 * past it without a word (the client sees a reset); here they are answered in the API's error
 * shape with `Retry-After` (503 when the process is full, 429 when the address is), then closed.
 * The HTTP server's own connection listener is taken out and called only for the connections
 * admitted, so a refused one never reaches the HTTP parser or the app.
 */
function capConnections(
  server: Server,
  gate: ConnectionGate,
  admitted: (socket: Socket, ticket: ConnectionTicket) => void,
  trust: TrustProxy | undefined,
): void {
  const listeners = server.listeners("connection");
  const accept = listeners[0] as ((socket: Socket) => void) | undefined;
  if (listeners.length !== 1 || accept === undefined) {
    throw new Error("node:http's server has no single connection listener to wrap.");
  }
  server.removeAllListeners("connection");
  let refusing = 0;
  const answer = (refusal: Refusal, status: string) =>
    `HTTP/1.1 ${status}\r\n${Object.entries(refusalHeaders(refusal))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n${REFUSAL_BODIES[refusal]}`;
  const answers: Readonly<Record<Refusal, string>> = {
    server_full: answer("server_full", "503 Service Unavailable"),
    address_full: answer("address_full", "429 Too Many Requests"),
  };
  server.on("connection", (socket: Socket) => {
    const address = canonicalAddress(socket.remoteAddress);
    // A trusted proxy's peer: its requests say whom the connection is for.
    const proxy = trust !== undefined && trustsPeer(address, trust);
    const ticket = gate.admit(address, { proxy });
    if (typeof ticket !== "string") {
      socket.once("close", () => ticket.release());
      admitted(socket, ticket);
      accept.call(server, socket);
      return;
    }
    socket.on("error", () => {});
    if (refusing >= MAX_REFUSING) {
      socket.destroy();
      return;
    }
    refusing++;
    const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
    linger.unref();
    socket.once("close", () => {
      refusing--;
      clearTimeout(linger);
    });
    // Read and drop what the client sends: closing a socket with unread data would reset it,
    // and the client might lose the answer.
    socket.resume();
    // The server's sockets are half-open: once the client has ended too, close.
    socket.once("end", () => socket.destroy());
    socket.end(answers[ticket]);
  });
}

/** The URL of a listening address; the unspecified one (every interface) as `localhost`. */
function urlOf(address: string, port: number): string {
  if (address === "0.0.0.0" || address === "::") return `http://localhost:${port}`;
  return address.includes(":") ? `http://[${address}]:${port}` : `http://${address}:${port}`;
}

/**
 * Requests the adapter cannot turn into a web Request (no or an invalid Host header, a target
 * that is no path, a backslash in the path) answer in the API's error shape too.
 */
function answerRequestError(error: unknown): Response {
  const [status, body] =
    error instanceof RequestError
      ? [400, errorBody("bad_request", "The request's target or Host header is not valid.")]
      : [500, errorBody("internal", GENERIC_ERROR_MESSAGE)];
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Status, reason phrase, error code and message of a request Node's parser refused. */
type ParserRefusal = readonly [status: number, reason: string, code: string, message: string];

const REFUSALS: ReadonlyMap<string, ParserRefusal> = new Map([
  [
    "HPE_HEADER_OVERFLOW",
    [
      431,
      "Request Header Fields Too Large",
      "headers_too_large",
      "The request's headers are too large.",
    ],
  ],
  [
    "ERR_HTTP_REQUEST_TIMEOUT",
    [408, "Request Timeout", "request_timeout", "The request took too long to arrive."],
  ],
]);

const MALFORMED: ParserRefusal = [
  400,
  "Bad Request",
  "bad_request",
  "The request is not valid HTTP (its request line or a header is malformed).",
];

/**
 * Requests Node's HTTP parser refuses before any route sees them (a malformed request line or
 * header, an unknown method, headers too large, a request too slow) answer in the API's error
 * shape, like every other error, instead of Node's empty 400; the connection is then closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A request cut while the app reads its body: the app's read fails next and says so (408).
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") markRequestTimedOut(socket);
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = REFUSALS.get(error.code ?? "") ?? MALFORMED;
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // The answer ends our side only: a client that ignores it and keeps its side open (trickling
  // on) would hold the connection, and its place under the caps, for as long as it likes. It gets
  // as long as a refused connection to read the answer, then the socket is cut.
  const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
}
