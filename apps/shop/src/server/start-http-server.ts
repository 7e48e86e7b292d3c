/**
 * Serves a fetch handler on Node (the only Node-specific piece of the server) and stops it
 * gracefully: stop accepting, let running responses finish, close idle keep-alive connections at
 * once and, after a grace period, whatever is still open.
 */

import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener, RequestError } from "@hono/node-server";
import { GENERIC_ERROR_MESSAGE } from "./handle-error.js";
import { errorBody } from "./http-error.js";

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
}

/** Starts listening. */
export async function startHttpServer(
  fetch: (request: Request) => Response | Promise<Response>,
  options: StartHttpServerOptions,
): Promise<HttpServer> {
  // No Host header is the adapter's to refuse (in JSON, below), not Node's (an empty 400).
  const server = createServer(
    { requireHostHeader: false },
    getRequestListener(fetch, { errorHandler: answerRequestError }),
  );
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
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
}
