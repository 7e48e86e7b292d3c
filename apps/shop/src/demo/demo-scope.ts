/**
 * The demo settings of the turn being run, carried with the turn's async work
 * (AsyncLocalStorage): the embedded model's client reads them when it sends a request
 * ({@link demoSimFetch}) and the shop's tools when they run (`simulated-latency.ts`), without
 * threading a session through the runtime. Outside a demo scope (merchant turns, tests, another
 * app) nothing changes.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { nodeHttpFetch } from "overlap-runtime/node";
import type { DemoBook, SimulatedCall } from "./demo-book.js";
import { type DemoService, simRequestHeaders } from "./demo-settings.js";

/** What a turn's work may ask of its session's demo settings. */
export interface DemoScope {
  /** Headers for the embedded model's next request; takes (disarms) the armed fault. */
  takeSimHeaders(): Record<string, string>;
  /** The simulated latency of each service, in ms (0: none). */
  serviceLatencyMs(): Readonly<Record<DemoService, number>>;
  /** Notes that a call was delayed, for the page. */
  noteSimulated(callId: string, call: SimulatedCall): void;
  /**
   * The end of the simulated waits of the turn's cart calls so far: a cart call waits for it
   * too, so the cart lock still sees the calls in call order.
   */
  cartQueue: Promise<void>;
}

const storage = new AsyncLocalStorage<DemoScope>();

/** The scope of the turn being run, if any. */
export function currentDemoScope(): DemoScope | undefined {
  return storage.getStore();
}

/** Runs `work` (a turn) with the session's demo settings in scope. */
export function runInDemoScope<T>(scope: DemoScope, work: () => T): T {
  return storage.run(scope, work);
}

/**
 * The scope of a session from the book. `modelControls`: the model is the embedded scripted one
 * reached through {@link demoSimFetch}; otherwise its headers are never produced (a fault stays
 * armed, and a real provider never sees a demo header).
 */
export function bookScope(book: DemoBook, sessionId: string, modelControls: boolean): DemoScope {
  return {
    takeSimHeaders: () => {
      if (!modelControls) return {};
      const fault = book.takeBreak(sessionId);
      return simRequestHeaders(book.settings(sessionId).tokensPerSecond, fault);
    },
    serviceLatencyMs: () => book.settings(sessionId).serviceLatencyMs,
    noteSimulated: (callId, call) => book.noteSimulated(sessionId, callId, call),
    cartQueue: Promise.resolve(),
  };
}

/**
 * A `fetch` for the embedded scripted model's clients: adds the current scope's `x-sim-pacing` /
 * `x-sim-fault` headers to each request (none outside a scope). Given only to the scripted
 * model's SDK clients, never to a real provider's. The requests go out through `nodeHttpFetch`,
 * as a real provider's do (overlap reads the stream straight from the socket).
 */
export const demoSimFetch: typeof fetch = (input, init) => {
  const extra = currentDemoScope()?.takeSimHeaders() ?? {};
  const fetch = nodeHttpFetch;
  if (Object.keys(extra).length === 0) return fetch(input, init);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : {}));
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return fetch(input, { ...init, headers });
};
