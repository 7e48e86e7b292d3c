/**
 * One running turn per session: a turn runs on its own, independent of any HTTP
 * connection, writing every AgentEvent to its TurnEventLog. A browser that disconnects only stops
 * reading (it can resume with Last-Event-ID); `cancel` is the one thing that stops a turn. The last
 * turn's log is kept per session so a reload after the end still replays it. A turn's calls that
 * wait for the user's approval wait here too: each turn has its own approval source,
 * answered by {@link TurnRegistry.decide} (the approval route).
 *
 * With {@link TurnRegistryOptions.leases} (the app always gives them: the database's turn leases)
 * a turn first claims its chat in the database ({@link TurnRegistry.claim}), so of two messages
 * for one chat on two instances exactly one starts a turn; the lease is renewed while the turn
 * runs and released before its `done` event is logged, so a reader who saw `done` can send the
 * next message at once. A turn whose lease was taken over (its instance was presumed dead) is
 * aborted, and its writes are refused by the database.
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
  type DecideResult,
  InMemoryApprovals,
  type LoggedEvent,
  TurnEventLog,
} from "overlap-runtime";
import type { TurnLease, TurnLeases } from "../db/sql-turn-leases.js";
import { holderIsGone, TurnLeaseLost } from "../db/sql-turn-leases.js";
import type { TurnContext } from "../turns/turn-context.js";
import { crashedTurnView } from "./crashed-turn.js";

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

/** Leases of the chats in the database, and who this instance is. */
export interface RegistryLeases {
  store: TurnLeases;
  /** This instance, as the lease rows name it. */
  holder: string;
  /** How long a lease lasts without renewal (`TURN_LEASE_MS`); renewed every third of it. */
  ttlMs: number;
}

/** A chat claimed for one turn, to pass to {@link TurnRegistry.start} (or release unused). */
export interface TurnClaim {
  readonly sessionId: string;
  readonly turnId: string;
  /** The lease of a turn whose instance died, taken over by this claim. */
  readonly tookOver?: TurnLease;
  /** True while the claim holds a database lease (renewed by the started turn). */
  readonly leased: boolean;
  /** Gives the chat back without starting a turn (a refusal after the claim). Idempotent. */
  release(): Promise<void>;
}

/** The answer of {@link TurnRegistry.claim}. */
export type ClaimOutcome =
  | { readonly ok: true; readonly claim: TurnClaim }
  | {
      readonly ok: false;
      /** When asking again makes sense, in ms (a live lease is renewed: a short wait). */
      readonly retryAfterMs: number;
    };

/** Options of {@link TurnRegistry}. */
export interface TurnRegistryOptions {
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
  /** The chats' turn leases; default none (one process only: the registry alone decides). */
  leases?: RegistryLeases;
  /** Told when a lease could not be renewed or released (the database is unreachable). */
  onLeaseError?: (error: unknown, sessionId: string) => void;
}

/** The longest Retry-After a refused claim suggests (a live turn renews its lease). */
const CLAIM_RETRY_MAX_MS = 2_000;

interface Turn {
  log: TurnEventLog;
  /**
   * While the turn runs: what cancels it, its end, its approvals. Dropped once it ended: the
   * finished log is kept for 15 minutes, and these would keep with it everything that listened
   * to the turn's abort signal (the model client's requests, the round's state).
   */
  running?: { controller: AbortController; done: Promise<void>; approvals: InMemoryApprovals };
}

/** Running and last turns, per session. */
export class TurnRegistry {
  readonly #turns = new Map<string, Turn>();
  readonly #onError: (error: unknown, sessionId: string) => void;
  readonly #retainMs: number;
  readonly #approvalTimeoutMs: number | undefined;
  readonly #shared: SharedTurnLogs | undefined;
  readonly #leases: RegistryLeases | undefined;
  readonly #onLeaseError: (error: unknown, sessionId: string) => void;
  /** Sessions claimed here whose turn has not started yet (a second claim here is refused). */
  readonly #claiming = new Set<string>();

  constructor(options: TurnRegistryOptions = {}) {
    this.#onError = options.onError ?? (() => {});
    this.#leases = options.leases;
    this.#onLeaseError = options.onLeaseError ?? (() => {});
    this.#retainMs = options.retainMs ?? 15 * 60_000;
    this.#approvalTimeoutMs = options.approvalTimeoutMs;
    this.#shared = options.shared;
    this.#shared?.serve({
      decide: (sessionId, callId, decision) => this.#decideHere(sessionId, callId, decision),
      cancel: (sessionId) => this.#cancelHere(sessionId),
    });
  }

  /**
   * Claims the session for one turn: refused while a turn of it runs here or holds its lease on
   * any instance. Nothing of the session is read or written before. A claim that took over the
   * lease of a dead instance says so (`tookOver`); the turn then repairs the conversation first.
   */
  async claim(sessionId: string): Promise<ClaimOutcome> {
    if (this.running(sessionId) || this.#claiming.has(sessionId)) {
      return { ok: false, retryAfterMs: CLAIM_RETRY_MAX_MS };
    }
    const turnId = randomUUID();
    const leases = this.#leases;
    this.#claiming.add(sessionId);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      this.#claiming.delete(sessionId);
      if (leases) await leases.store.release(sessionId, turnId);
    };
    if (!leases) return { ok: true, claim: { sessionId, turnId, leased: false, release } };
    try {
      const ask = { turnId, holder: leases.holder, ttlMs: leases.ttlMs };
      let result = await leases.store.claim(sessionId, ask);
      // A lease of a process of this machine that is gone (a restart after a crash) need not be
      // waited out.
      if (!result.ok && holderIsGone(result.heldBy.holder)) {
        result = await leases.store.claim(sessionId, {
          ...ask,
          presumedDead: result.heldBy.turnId,
        });
      }
      if (!result.ok) {
        this.#claiming.delete(sessionId);
        const left = result.heldBy.expiresAt - Date.now();
        return { ok: false, retryAfterMs: Math.max(1, Math.min(left, CLAIM_RETRY_MAX_MS)) };
      }
      const claim: TurnClaim = result.tookOver
        ? { sessionId, turnId, leased: true, release, tookOver: result.tookOver }
        : { sessionId, turnId, leased: true, release };
      return { ok: true, claim };
    } catch (error) {
      this.#claiming.delete(sessionId);
      throw error;
    }
  }

  /**
   * Starts a turn unless one is running for the session (then `undefined`: the caller answers
   * 409). With leases, `claim` ({@link TurnRegistry.claim}) is required: the turn runs under it,
   * renews it and releases it. The body must emit the turn's `done`; the log is closed when the
   * body settles anyway.
   */
  start(
    sessionId: string,
    body: (turn: TurnContext) => Promise<void>,
    claim?: TurnClaim,
  ): TurnEventLog | undefined {
    if (this.running(sessionId)) return undefined;
    if (this.#leases && !claim?.leased) {
      throw new Error(`A turn of ${sessionId} must claim its chat before it starts.`);
    }
    if (claim) this.#claiming.delete(sessionId);
    const turnId = claim?.turnId ?? randomUUID();
    const log = new TurnEventLog(turnId);
    const controller = new AbortController();
    const approvals = new InMemoryApprovals();
    const shared = this.#shared;
    const stopRenewing = claim?.leased ? this.#renew(claim, controller) : () => {};
    // The `done` waits until the lease is released: whoever reads it may send the next message.
    let heldDone: AgentEvent | undefined;
    const emit = (event: AgentEvent) => {
      if (event.type === "done" && claim?.leased) heldDone = event;
      else log.append(event);
    };
    const done = (async () => {
      try {
        // Findable by the other instances before its first event can reach a browser.
        if (shared) await shared.publish(sessionId, log);
        await body({
          turnId,
          emit,
          signal: controller.signal,
          approvals,
          approvalTimeoutMs: this.#approvalTimeoutMs,
          lease: claim?.leased ? turnId : undefined,
          tookOver: claim?.tookOver,
        });
      } catch (error) {
        this.#onError(error, sessionId);
        emit({
          type: "error",
          code: "internal",
          message: "Something went wrong. Please try again.",
        });
        emit({ type: "done", roundCount: 0, stopReason: "error" });
      } finally {
        approvals.close();
        stopRenewing();
        if (claim) await claim.release().catch((err) => this.#onLeaseError(err, sessionId));
        if (heldDone) log.append(heldDone);
        log.close();
        const kept = this.#turns.get(sessionId);
        if (kept?.log === log) kept.running = undefined;
        this.#forgetLater(sessionId, log);
      }
    })();
    this.#turns.set(sessionId, { log, running: { controller, done, approvals } });
    return log;
  }

  /**
   * Renews the claim's lease every third of its time while the turn runs; a lease found taken
   * over aborts the turn (its writes would be refused anyway). Returns the stop function.
   */
  #renew(claim: TurnClaim, controller: AbortController): () => void {
    const leases = this.#leases;
    if (!leases) return () => {};
    let renewing = false;
    const timer = setInterval(
      () => {
        if (renewing) return; // a slow database: one renewal at a time
        renewing = true;
        leases.store
          .renew(claim.sessionId, claim.turnId, leases.ttlMs)
          .then(
            (held) => {
              if (!held) controller.abort(new TurnLeaseLost(claim.sessionId, claim.turnId));
            },
            (err: unknown) => this.#onLeaseError(err, claim.sessionId),
          )
          .finally(() => {
            renewing = false;
          });
      },
      Math.max(50, Math.floor(leases.ttlMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * True while a turn of the session runs anywhere: here, or under a live lease (any instance;
   * not a lease of a process of this machine that is gone); without leases, as the shared turns
   * say.
   */
  async busy(sessionId: string): Promise<boolean> {
    if (this.running(sessionId)) return true;
    if (this.#leases) {
      const lease = await this.#leases.store.current(sessionId);
      return lease !== undefined && lease.expiresAt > Date.now() && !holderIsGone(lease.holder);
    }
    return (await this.find(sessionId))?.running === true;
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
    if (local) return viewOf(local);
    // A turn whose instance died left its lease and nothing else (a restart, no Redis): its
    // readers learn that it ended by a crash.
    const lease = await this.#leases?.store.current(sessionId).catch(() => undefined);
    if (lease && (lease.expiresAt <= Date.now() || holderIsGone(lease.holder))) {
      return crashedTurnView(lease.turnId);
    }
    return undefined;
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
    const running = turn?.running;
    if (!turn || turn.log.closed || !running) return { status: "unknown" };
    return running.approvals.decide(callId, decision);
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
    const running = turn?.running;
    if (!turn || turn.log.closed || !running) return false;
    running.controller.abort();
    await running.done;
    return true;
  }

  /** Cancels every running turn and waits for them (server shutdown). */
  async close(): Promise<void> {
    const running = [...this.#turns.values()].flatMap((t) => (t.running ? [t.running] : []));
    for (const turn of running) turn.controller.abort();
    await Promise.all(running.map((t) => t.done));
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
