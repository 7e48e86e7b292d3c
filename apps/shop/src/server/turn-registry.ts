/**
 * One running turn per session (B9, S17): a turn runs on its own, independent of any HTTP
 * connection, writing every AgentEvent to its TurnEventLog. A browser that disconnects only stops
 * reading (it can resume with Last-Event-ID); `cancel` is the one thing that stops a turn. The last
 * turn's log is kept per session so a reload after the end still replays it. A turn's calls that
 * wait for the user's approval (issue 12) wait here too: each turn has its own approval source,
 * answered by {@link TurnRegistry.decide} (the approval route).
 *
 * The registry keeps the logs of the turns that run in this process. With `REDIS_URL` it is also
 * given {@link SharedTurnLogs} (`redis-turn-logs.ts`): each turn started here is published there
 * and its events copied as they are logged, and {@link TurnRegistry.find} looks there first, so
 * any instance serves a turn that runs on another. Without it, a process sees its own turns only.
 */

import { randomUUID } from "node:crypto";
import {
  type AgentEvent,
  type ApprovalDecision,
  type ApprovalSource,
  type DecideResult,
  InMemoryApprovals,
  type LoggedEvent,
  TurnEventLog,
} from "overlap-runtime";

/** A turn as its readers see it, wherever it runs. */
export interface TurnView {
  readonly turnId: string;
  /** True while the turn runs (on this instance or a live other one). */
  readonly running: boolean;
  /**
   * The events after `lastEventId` (all of them when it names another turn or nothing), then the
   * live rest until the turn ends or `signal` aborts; ids `<turnId>:<seq>` as {@link TurnEventLog}.
   */
  read(lastEventId?: string | null, signal?: AbortSignal): AsyncIterable<LoggedEvent>;
}

/**
 * The turns of every instance, shared (in Redis): where this process publishes the turns it runs
 * and finds those of the others. Failures are the implementation's to log and absorb: a turn
 * never fails because sharing it did.
 */
export interface SharedTurnLogs {
  /**
   * A turn starts here: resolves once other instances can find it (its body waits for that), then
   * copies its events as they are logged, until the log is closed.
   */
  publish(sessionId: string, log: TurnEventLog): Promise<void>;
  /** The session's running or last turn as the instances published it; rejects when unreachable. */
  find(sessionId: string): Promise<TurnView | undefined>;
  /** Answers the other instances' approvals and cancels for the turns that run here. */
  serve(control: TurnControl): void;
  /**
   * Passes an approval to the instance that runs the session's turn, when that is another one;
   * `undefined` when no other instance runs it (or none answered).
   */
  decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
  ): Promise<DecideResult | undefined>;
  /** Cancels the session's turn on the instance that runs it, as {@link decide} finds it. */
  cancel(sessionId: string): Promise<boolean | undefined>;
}

/** What another instance may ask of the one that runs a turn. */
export interface TurnControl {
  decide(sessionId: string, callId: string, decision: ApprovalDecision): DecideResult;
  cancel(sessionId: string): Promise<boolean>;
}

/** What a turn's body receives. */
export interface TurnContext {
  turnId: string;
  /** Logs an event (and wakes every reader). */
  emit(event: AgentEvent): void;
  /** Aborted by {@link TurnRegistry.cancel} or {@link TurnRegistry.close}. */
  signal: AbortSignal;
  /** Where the turn's calls that need approval wait for {@link TurnRegistry.decide}. */
  approvals: ApprovalSource;
  /** How long such a call waits (`undefined`: the runtime's default, 5 minutes). */
  approvalTimeoutMs: number | undefined;
}

interface Turn {
  log: TurnEventLog;
  controller: AbortController;
  done: Promise<void>;
  approvals: InMemoryApprovals;
}

/** Running and last turns, per session. */
export class TurnRegistry {
  readonly #turns = new Map<string, Turn>();
  readonly #onError: (error: unknown, sessionId: string) => void;
  readonly #retainMs: number;
  readonly #approvalTimeoutMs: number | undefined;
  readonly #shared: SharedTurnLogs | undefined;

  constructor(
    options: {
      onError?: (error: unknown, sessionId: string) => void;
      /**
       * How long a finished turn's log stays replayable (a reload long after that renders the
       * stored conversation instead). Default 15 minutes; bounds the memory of idle sessions.
       */
      retainMs?: number;
      /** How long a call waits for the user's approval (`APPROVAL_TIMEOUT_MS`). */
      approvalTimeoutMs?: number;
      /** Where turns are shared with other instances (`REDIS_URL`); default none. */
      shared?: SharedTurnLogs;
    } = {},
  ) {
    this.#onError = options.onError ?? (() => {});
    this.#retainMs = options.retainMs ?? 15 * 60_000;
    this.#approvalTimeoutMs = options.approvalTimeoutMs;
    this.#shared = options.shared;
    this.#shared?.serve({
      decide: (sessionId, callId, decision) => this.#decideHere(sessionId, callId, decision),
      cancel: (sessionId) => this.#cancelHere(sessionId),
    });
  }

  /**
   * Starts a turn unless one is running for the session (then `undefined`: the caller answers
   * 409). The body must emit the turn's `done`; the log is closed when the body settles anyway.
   */
  start(sessionId: string, body: (turn: TurnContext) => Promise<void>): TurnEventLog | undefined {
    if (this.running(sessionId)) return undefined;
    const turnId = randomUUID();
    const log = new TurnEventLog(turnId);
    const controller = new AbortController();
    const approvals = new InMemoryApprovals();
    const shared = this.#shared;
    const done = (async () => {
      try {
        // Findable by the other instances before its first event can reach a browser.
        if (shared) await shared.publish(sessionId, log);
        await body({
          turnId,
          emit: (event) => log.append(event),
          signal: controller.signal,
          approvals,
          approvalTimeoutMs: this.#approvalTimeoutMs,
        });
      } catch (error) {
        this.#onError(error, sessionId);
        log.append({
          type: "error",
          code: "internal",
          message: "Something went wrong. Please try again.",
        });
        log.append({ type: "done", rounds: 0, stopReason: "error" });
      } finally {
        approvals.close();
        log.close();
        this.#forgetLater(sessionId, log);
      }
    })();
    this.#turns.set(sessionId, { log, controller, done, approvals });
    return log;
  }

  /** Drops a finished log after the retention time, unless a newer turn replaced it. */
  #forgetLater(sessionId: string, log: TurnEventLog): void {
    const timer = setTimeout(() => {
      if (this.#turns.get(sessionId)?.log === log) this.#turns.delete(sessionId);
    }, this.#retainMs);
    timer.unref(); // never keeps the process alive
  }

  /** True while a turn of the session runs. */
  running(sessionId: string): boolean {
    const turn = this.#turns.get(sessionId);
    return turn !== undefined && !turn.log.closed;
  }

  /**
   * The session's running or last turn, wherever it runs: this process's own when it is the one
   * the instances know of (or none is shared, or the shared turns cannot be reached).
   */
  async find(sessionId: string): Promise<TurnView | undefined> {
    const local = this.#turns.get(sessionId)?.log;
    if (this.#shared) {
      const shared = await this.#shared.find(sessionId).catch(() => undefined);
      if (shared && shared.turnId !== local?.turnId) return shared;
    }
    return local && viewOf(local);
  }

  /** The running turn's log (of this process), or the last one's. */
  log(sessionId: string): TurnEventLog | undefined {
    return this.#turns.get(sessionId)?.log;
  }

  /**
   * Answers a call of the session's running turn that waits for the user's approval: `resolved`,
   * `unknown` (no such call waits or waited in the running turn; the turn ended), or `ended` (it
   * was decided already, timed out, or was cancelled). With shared turns, a turn running on
   * another instance is answered there.
   */
  async decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
  ): Promise<DecideResult> {
    if (this.running(sessionId) || !this.#shared) {
      return this.#decideHere(sessionId, callId, decision);
    }
    const remote = await this.#shared.decide(sessionId, callId, decision).catch(() => undefined);
    return remote ?? { status: "unknown" };
  }

  #decideHere(sessionId: string, callId: string, decision: ApprovalDecision): DecideResult {
    const turn = this.#turns.get(sessionId);
    if (!turn || turn.log.closed) return { status: "unknown" };
    return turn.approvals.decide(callId, decision);
  }

  /**
   * Cancels the running turn (here, or on the instance that runs it); resolves when it has
   * ended. False when none was running.
   */
  async cancel(sessionId: string): Promise<boolean> {
    if (this.running(sessionId) || !this.#shared) return this.#cancelHere(sessionId);
    return (await this.#shared.cancel(sessionId).catch(() => undefined)) ?? false;
  }

  async #cancelHere(sessionId: string): Promise<boolean> {
    const turn = this.#turns.get(sessionId);
    if (!turn || turn.log.closed) return false;
    turn.controller.abort();
    await turn.done;
    return true;
  }

  /** Cancels every running turn and waits for them (server shutdown). */
  async close(): Promise<void> {
    for (const turn of this.#turns.values()) turn.controller.abort();
    await Promise.all([...this.#turns.values()].map((t) => t.done));
  }
}

/** A log of this process as a {@link TurnView}. */
function viewOf(log: TurnEventLog): TurnView {
  return {
    turnId: log.turnId,
    get running() {
      return !log.closed;
    },
    read: (lastEventId, signal) => log.read(lastEventId, signal),
  };
}
