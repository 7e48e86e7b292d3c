/**
 * The I/O adapter around the pure reducer: sends a message, reads the turn's SSE stream into
 * the state, and when the connection drops before the turn's own `done`, reconnects with the last
 * applied event id, with backoff, until the turn ends or the attempts run out. Duplicates from an
 * overlapping replay are dropped by the reducer, so the final state is the one an uninterrupted
 * read would have produced. Transport-agnostic: the application supplies functions that return a
 * `Response` (fetch in a browser, fakes in tests), and is itself the store a UI subscribes to.
 */

import { isOverlapError, type OverlapError } from "../errors.js";
import {
  type AgentError,
  type AgentState,
  addUserMessage,
  failAgentTurn,
  initialAgentState,
  isTurnSettled,
  stopAgentTurn,
} from "./agent-state.js";
import { errorFromResponse } from "./error-from-response.js";
import { readAgentEvents } from "./read-agent-events.js";
import { reduceAgentEvent } from "./reduce-agent-event.js";

/** How to reconnect after a dropped connection. */
export interface RetryPolicy {
  /** Reconnection attempts in a row without receiving a new event before giving up. */
  attempts: number;
  /** Delay before the first attempt; doubled each further attempt (with jitter). */
  baseDelayMs: number;
  /** Longest delay between attempts. */
  maxDelayMs: number;
}

/** The retry policy used for fields not given. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

/** Shown when reconnecting failed `attempts` times in a row. */
export const CONNECTION_LOST: Readonly<AgentError> = {
  code: "connection_lost",
  message:
    "The connection to the server was lost and could not be restored. Reload the page to see the latest reply.",
};

/** Shown when the first request could not reach the server at all. */
export const NETWORK_ERROR: Readonly<AgentError> = {
  code: "network_error",
  message: "Could not reach the server. Check your connection and try again.",
};

/** Shown when, while reconnecting, the server no longer knows the turn (it restarted). */
export const TURN_LOST: Readonly<AgentError> = {
  code: "turn_lost",
  message: "The reply was interrupted on the server and cannot be resumed. Please send it again.",
};

/** What {@link AgentStreamClient} needs. */
export interface AgentStreamClientOptions {
  /** Sends the user's message and answers with the turn's SSE stream (the POST). */
  send(text: string, signal: AbortSignal): Promise<Response>;
  /**
   * Answers with the SSE stream of the session's latest turn after `lastEventId` (sent as the
   * `Last-Event-ID` header), from its start when `undefined`; status 204 when there is no turn.
   */
  resume(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** Called with every new state. Must not throw. */
  onState?: ((state: AgentState) => void) | undefined;
  /** Reconnection policy; missing fields from {@link DEFAULT_RETRY}. */
  retry?: Partial<RetryPolicy> | undefined;
  /** The state to start from (e.g. restored after a page load); empty by default. */
  initialState?: AgentState | undefined;
  /** Waits between attempts; resolves early when `signal` aborts. Tests pass an instant one. */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** Jitter source in [0, 1); `Math.random` by default. */
  random?: (() => number) | undefined;
}

/** How one connection ended. */
type Outcome =
  | { kind: "settled" }
  | { kind: "stopped" }
  /** Ended before the turn's own `done`; `progressed` when it applied at least one new event. */
  | { kind: "dropped"; progressed: boolean };

const SETTLED: Outcome = { kind: "settled" };
const STOPPED: Outcome = { kind: "stopped" };

/** Follows an agent's turns over SSE and keeps the {@link AgentState}. */
export class AgentStreamClient {
  readonly #options: AgentStreamClientOptions;
  readonly #retry: RetryPolicy;
  readonly #listeners = new Set<() => void>();
  #state: AgentState;
  #controller: AbortController | undefined;
  #skipped = 0;

  constructor(options: AgentStreamClientOptions) {
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...definedFields(options.retry ?? {}) };
    this.#state = options.initialState ?? initialAgentState();
  }

  /** The current state. */
  get state(): AgentState {
    return this.#state;
  }

  /** The current state; bound, for `useSyncExternalStore`. */
  readonly getState = (): AgentState => this.#state;

  /** Calls `listener` after every state change; returns the unsubscribe function. Bound. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** True while a turn's stream is being read (or reconnected). */
  get reading(): boolean {
    return this.#controller !== undefined;
  }

  /** Frames skipped so far because they were not valid events of a known type. */
  get skippedFrames(): number {
    return this.#skipped;
  }

  /**
   * Shows the user's message, sends it and follows the turn to its end, reconnecting as needed.
   * Resolves when the turn ended, failed (see `state.error`) or was stopped; never rejects.
   * Ignored while a turn is being read: the server would refuse it (409 `turn_running`).
   */
  async send(text: string): Promise<void> {
    if (this.#controller) return;
    this.#apply(addUserMessage(this.#state, text));
    await this.#follow((signal) => this.#options.send(text, signal), "send");
  }

  /**
   * Follows the session's latest turn from the last applied event id (`state.lastEventId`, or
   * its start when there is none), for a page load or after {@link stop}. A 204 answer means
   * there is no turn to follow. Ignored while a turn is being read.
   */
  async resumeIfRunning(): Promise<void> {
    if (this.#controller) return;
    await this.#follow((signal) => this.#options.resume(this.#state.lastEventId, signal), "resume");
  }

  /**
   * Stops reading locally; the turn goes on on the server (the application calls its own cancel
   * endpoint to stop it). {@link resumeIfRunning} picks it up again without duplicates.
   */
  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
    this.#apply(stopAgentTurn(this.#state));
  }

  async #follow(
    open: (signal: AbortSignal) => Promise<Response>,
    mode: "send" | "resume",
  ): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    const { signal } = controller;
    try {
      let outcome = await this.#connect(open, signal, mode);
      let failures = 0;
      while (outcome.kind === "dropped") {
        // Only attempts in a row that bring nothing count: a flaky but working line never gives up.
        if (outcome.progressed) failures = 0;
        if (failures >= this.#retry.attempts) {
          this.#apply(failAgentTurn(this.#state, CONNECTION_LOST));
          return;
        }
        await (this.#options.sleep ?? sleep)(this.#delay(failures), signal);
        if (signal.aborted) return;
        failures++;
        outcome = await this.#connect(
          (s) => this.#options.resume(this.#state.lastEventId, s),
          signal,
          "reconnect",
        );
      }
    } finally {
      if (this.#controller === controller) this.#controller = undefined;
    }
  }

  /** Opens one connection and reads it to its end. */
  async #connect(
    open: (signal: AbortSignal) => Promise<Response>,
    signal: AbortSignal,
    mode: "send" | "resume" | "reconnect",
  ): Promise<Outcome> {
    let response: Response;
    try {
      response = await open(signal);
    } catch {
      if (signal.aborted) return STOPPED;
      if (mode === "reconnect") return { kind: "dropped", progressed: false };
      // Whether a failed POST reached the server is unknown, and sending it again could start the
      // turn twice: the user decides.
      this.#apply(failAgentTurn(this.#state, NETWORK_ERROR));
      return SETTLED;
    }
    if (signal.aborted) {
      await discard(response);
      return STOPPED;
    }
    if (response.status === 204) {
      await discard(response);
      this.#apply(
        mode === "reconnect" ? failAgentTurn(this.#state, TURN_LOST) : stopAgentTurn(this.#state),
      );
      return SETTLED;
    }
    if (!response.ok) {
      // A proxy or a restarting server answering for a moment: worth another attempt.
      if (mode === "reconnect" && (response.status >= 500 || response.status === 429)) {
        await discard(response);
        return { kind: "dropped", progressed: false };
      }
      const error = await errorFromResponse(response);
      if (signal.aborted) return STOPPED;
      this.#apply(failAgentTurn(this.#state, error));
      return SETTLED;
    }
    if (!response.body) return { kind: "dropped", progressed: false };
    return this.#read(response.body, signal);
  }

  /** Reads events into the state until the turn's own `done`, the stream's end, or an abort. */
  async #read(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<Outcome> {
    // Its own controller, so reading can end at `done` while the summary is still returned.
    const connection = new AbortController();
    const abort = () => connection.abort();
    signal.addEventListener("abort", abort, { once: true });
    let progressed = false;
    let tooLarge: OverlapError | undefined;
    try {
      const events = readAgentEvents(body, connection.signal);
      for (;;) {
        const next = await events.next();
        if (next.done) {
          this.#skipped += next.value.skipped;
          break;
        }
        if (signal.aborted) continue;
        const before = this.#state;
        this.#apply(reduceAgentEvent(before, next.value));
        if (this.#state !== before) progressed = true;
        const { event } = next.value;
        // Nothing of the turn follows its own `done` (a delegate's inner `done` is not it).
        if (event.type === "done" && event.parentCallId === undefined) connection.abort();
      }
    } catch (err) {
      // An event past the size limit would come back with every resume: the turn fails here.
      if (isOverlapError(err, "limit_exceeded")) tooLarge = err;
      // Anything else: the connection broke mid-stream, a drop like a clean early end.
    } finally {
      signal.removeEventListener("abort", abort);
    }
    if (signal.aborted) return STOPPED;
    if (tooLarge) {
      this.#apply(
        failAgentTurn(this.#state, { code: tooLarge.code, message: tooLarge.publicMessage }),
      );
      return SETTLED;
    }
    return isTurnSettled(this.#state) ? SETTLED : { kind: "dropped", progressed };
  }

  #delay(failures: number): number {
    const { baseDelayMs, maxDelayMs } = this.#retry;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** failures);
    // Half fixed, half random: many clients dropped by one server restart do not return in step.
    return ceiling / 2 + ((this.#options.random ?? Math.random)() * ceiling) / 2;
  }

  #apply(next: AgentState): void {
    if (next === this.#state) return;
    this.#state = next;
    notify(() => this.#options.onState?.(next));
    for (const listener of this.#listeners) notify(listener);
  }
}

/** Calls a listener; a listener's bug is reported, not allowed to break the stream being read. */
function notify(listener: () => void): void {
  try {
    listener();
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The fields of `policy` that are set: `{ attempts: undefined }` must not erase a default. */
function definedFields(policy: Partial<RetryPolicy>): Partial<RetryPolicy> {
  return Object.fromEntries(Object.entries(policy).filter(([, v]) => v !== undefined));
}
