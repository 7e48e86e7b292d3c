/**
 * Serves a fetch handler on Node (the only Node-specific piece of the server) and stops it
 * gracefully: stop accepting, let running responses finish, close idle keep-alive connections at
 * once and, after a grace period, whatever is still open.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";

/** A listening server. */
export interface HttpServer {
  /** `http://localhost:<port>`. */
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
  /** The interface; default all of them. */
  hostname?: string;
}

/** Starts listening. */
export async function startHttpServer(
  fetch: (request: Request) => Response | Promise<Response>,
  options: StartHttpServerOptions,
): Promise<HttpServer> {
  const server = createAdaptorServer({ fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
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
