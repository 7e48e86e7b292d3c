/**
 * The simulator's HTTP server: `POST /v1/messages` (Anthropic Messages API) and
 * `POST /v1/chat/completions` (OpenAI Chat Completions), streaming or not, answered from a policy,
 * paced like a model, with fault injection. Any API key is accepted and none is needed; keys are
 * never logged nor shown to the policy.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseFaults } from "./faults.js";
import { handleRequest, type SimConfig } from "./handle-request.js";
import { type Pacing, resolvePacing } from "./pacing.js";
import { genericPolicy, type SimPolicy } from "./policy.js";
import { parseQuirks } from "./quirks.js";

/** Options of {@link startSim}. */
export interface SimServerOptions {
  /** The port; 0 (the default) picks a free one. */
  port?: number;
  /** The interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Decides each response; default {@link genericPolicy}. */
  policy?: SimPolicy;
  /** Pacing overrides (`{ fast: true }` for tests). */
  pacing?: Partial<Pacing>;
  /** Faults for every request, in the `x-sim-fault` syntax (see `faults.ts`). */
  faults?: string;
  /** OpenAI quirks for every request, in the `x-sim-quirk` syntax (see `quirks.ts`). */
  quirks?: string;
  /** Seeds ids and pacing (default 1): the same seed and request give the same response. */
  seed?: number;
  /** Receives one line per request (method, path, status, outcome); never credentials. */
  log?: (line: string) => void;
}

/** A running simulator. */
export interface SimServer {
  /** `http://host:port`, the Anthropic base URL; OpenAI's is `url + "/v1"`. */
  url: string;
  port: number;
  /** Stops listening, ends streams in progress and closes every connection. */
  close(): Promise<void>;
}

/**
 * Starts a simulator.
 * @throws SimSpecError when `faults` or `quirks` is malformed; RangeError for bad pacing.
 */
export async function startSim(options: SimServerOptions = {}): Promise<SimServer> {
  const seed = options.seed ?? options.pacing?.seed ?? 1;
  const config: SimConfig = {
    policy: options.policy ?? genericPolicy,
    pacing: resolvePacing({ ...options.pacing, seed }),
    faults: parseFaults(options.faults),
    quirks: parseQuirks(options.quirks),
    seed,
    log: options.log ?? (() => {}),
  };
  const inFlight = new Set<AbortController>();
  const server = createServer((req, res) => {
    const controller = new AbortController();
    inFlight.add(controller);
    // "close" also follows a normal end; aborting then is harmless.
    res.on("close", () => {
      controller.abort();
      inFlight.delete(controller);
    });
    res.on("error", () => {});
    req.on("error", () => {});
    handleRequest(req, res, config, controller.signal).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end('{"type":"error","error":{"type":"api_error","message":"Internal server error"}}');
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const controller of inFlight) controller.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
