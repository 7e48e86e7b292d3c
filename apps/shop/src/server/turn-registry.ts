/**
 * One running turn per session: a turn runs on its own, independent of any HTTP
 * connection, writing every AgentEvent to its TurnEventLog. A browser that disconnects only stops
 * reading (it can resume with Last-Event-ID); `cancel` is the one thing that stops a turn. The last
 * turn's log is kept per session so a reload after the end still replays it. A turn's calls that
 * wait for the user's approval wait here too: each turn has its own approval source,
 * answered by {@link TurnRegistry.decide} (the approval route).
 *
 * With {@link TurnRegistryOptions.durable} (the app always gives it: overlap's durable stores in
 * the shop's database) every instance sharing the database sees every turn:
 * - A turn first claims its chat's lease ({@link TurnRegistry.claim}), so of two messages for one
 *   chat on two instances exactly one starts a turn. The lease is renewed while the turn runs; a
 *   turn whose lease was taken over (its instance was presumed dead) is aborted, and its writes
 *   are refused by the database.
 * - Its events are also written to the turn's durable log (the database's table, or Redis Streams
 *   with `REDIS_URL`), so {@link TurnRegistry.find} on any instance serves a turn that runs on
 *   another, live, and ends a dead instance's turn for its readers (`turn_crashed`).
 * - A cancel asked on any instance (the Stop button, "Forget me") marks the lease row and, on
 *   PostgreSQL, is announced by NOTIFY: the instance running the turn stops it at once, or at its
 *   next renewal at the latest; the asker waits for the turn's end.
 * - An approval answered on another instance is passed on by NOTIFY ({@link RemoteApprovals}).
 * The turn ends with its `done` logged and its lease released in one transaction, so a reader who
 * saw `done` can send the next message at once.
 */

import { randomUUID } from "node:crypto";
import {
  type AgentEvent,
  type ApprovalDecision,
  type DecideResult,
  InMemoryApprovals,
  TurnEventLog,
} from "overlap-runtime";
import {
  type DurableStore,
  holderIsGone,
  type TurnEventWriter,
  type TurnLease,
  TurnLeaseLostError,
} from "overlap-runtime/durable";
import type { TurnContext } from "../turns/turn-context.js";
import { RemoteApprovals } from "./remote-approvals.js";
import { type TurnView, viewOf } from "./turn-view.js";

export type { TurnView } from "./turn-view.js";

/** The chats' leases and turn logs in the database, and who this instance is. */
export interface RegistryDurable {
  store: DurableStore;
  /** This instance, as the lease rows name it. */
  holder: string;
  /** How long a lease lasts without renewal (`TURN_LEASE_MS`). */
  ttlMs: number;
  /**
   * How often a running turn renews its lease and looks for a cancel asked on another instance:
   * the bound on how late such a cancel reaches it without NOTIFY. Default the lesser of 1 s and
   * a third of the lease.
   */
  controlIntervalMs?: number;
  /** How long a cancel of a turn running elsewhere waits for its end. Default 15 s. */
  cancelWaitMs?: number;
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
   * How long a finished turn's log stays in this process's memory (its own readers read it
   * there; the durable log serves the others). Default 15 minutes.
   */
  retainMs?: number;
  /** How long a call waits for the user's approval (`APPROVAL_TIMEOUT_MS`). */
  approvalTimeoutMs?: number;
  /** The chats' leases and turn logs in the database; default none (this process alone). */
  durable?: RegistryDurable;
  /** Told when a lease could not be renewed or released (the database is unreachable). */
  onLeaseError?: (error: unknown, sessionId: string) => void;
}

/** The longest Retry-After a refused claim suggests (a live turn renews its lease). */
const CLAIM_RETRY_MAX_MS = 2_000;

interface Running {
  controller: AbortController;
  done: Promise<void>;
  approvals: InMemoryApprovals;
  /** Renews the lease now and looks for a cancel (a NOTIFY of another instance wakes it). */
  check?: () => void;
}

interface Turn {
  log: TurnEventLog;
  /**
   * While the turn runs: what cancels it, its end, its approvals. Dropped once it ended: the
   * finished log is kept for 15 minutes, and these would keep with it everything that listened
   * to the turn's abort signal (the model client's requests, the round's state).
   */
  running?: Running;
}

/** Running and last turns, per session. */
export class TurnRegistry {
  readonly #turns = new Map<string, Turn>();
  readonly #onError: (error: unknown, sessionId: string) => void;
  readonly #retainMs: number;
  readonly #approvalTimeoutMs: number | undefined;
  readonly #durable: RegistryDurable | undefined;
  readonly #approvals: RemoteApprovals | undefined;
  readonly #onLeaseError: (error: unknown, sessionId: string) => void;
  /** Sessions claimed here whose turn has not started yet (a second claim here is refused). */
  readonly #claiming = new Set<string>();
  /** The watch of cancels announced by other instances, and of their approvals (PostgreSQL). */
  #watching: Promise<(() => void) | undefined> | undefined;

  constructor(options: TurnRegistryOptions = {}) {
    this.#onError = options.onError ?? (() => {});
    this.#durable = options.durable;
    this.#onLeaseError = options.onLeaseError ?? (() => {});
    this.#retainMs = options.retainMs ?? 15 * 60_000;
    this.#approvalTimeoutMs = options.approvalTimeoutMs;
    const store = this.#durable?.store;
    this.#approvals = store
      ? new RemoteApprovals(store.driver, `${store.prefix}turn_approvals`)
      : undefined;
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
    const durable = this.#durable;
    this.#claiming.add(sessionId);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      this.#claiming.delete(sessionId);
      if (durable) await durable.store.leases.release(sessionId, turnId);
    };
    if (!durable) return { ok: true, claim: { sessionId, turnId, leased: false, release } };
    try {
      // Before the turn can run: a cancel or an approval sent by another instance reaches it.
      await this.#watch();
      const leases = durable.store.leases;
      const ask = { turnId, holder: durable.holder, ttlMs: durable.ttlMs };
      let result = await leases.claim(sessionId, ask);
      // A lease of a process of this machine that is gone (a restart after a crash) need not be
      // waited out.
      if (!result.ok && holderIsGone(result.heldBy.holder)) {
        result = await leases.claim(sessionId, { ...ask, presumedDead: result.heldBy.turnId });
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
   * 409). With the durable stores, `claim` ({@link TurnRegistry.claim}) is required: the turn
   * runs under it, renews it, and ends its durable log and its lease together. The body must emit
   * the turn's `done`; the log is closed when the body settles anyway.
   */
  start(
    sessionId: string,
    body: (turn: TurnContext) => Promise<void>,
    claim?: TurnClaim,
  ): TurnEventLog | undefined {
    if (this.running(sessionId)) return undefined;
    const durable = this.#durable;
    if (durable && !claim?.leased) {
      throw new Error(`A turn of ${sessionId} must claim its chat before it starts.`);
    }
    if (claim) this.#claiming.delete(sessionId);
    const leased = durable !== undefined && claim?.leased === true;
    const turnId = claim?.turnId ?? randomUUID();
    const log = new TurnEventLog(turnId);
    const running: Running = {
      controller: new AbortController(),
      done: Promise.resolve(),
      approvals: new InMemoryApprovals(),
    };
    const { controller, approvals } = running;
    // The durable log numbers its events as the in-memory one: both get every event, in order,
    // the in-memory one (this process's readers) once the durable one has it. So no reader, here
    // or elsewhere, ever saw an event a crash could lose: a dead turn's end is numbered after
    // everything any reader saw.
    let writer: TurnEventWriter | undefined;
    let written: Promise<void> = Promise.resolve();
    // The `done` waits until the lease is released: whoever reads it may send the next message.
    let heldDone: AgentEvent | undefined;
    const emit = (event: AgentEvent) => {
      if (event.type === "done" && leased) {
        heldDone = event;
        return;
      }
      const durableLog = writer;
      if (!durableLog) {
        log.append(event);
        return;
      }
      durableLog.append(event);
      written = written.then(async () => {
        await durableLog.flush().catch((error: unknown) => this.#onLeaseError(error, sessionId));
        log.append(event);
      });
    };
    const done = (async () => {
      const stopControl = leased ? this.#control(sessionId, turnId, running) : () => {};
      try {
        // Findable by the other instances before its first event can reach a browser.
        if (durable && leased) {
          writer = await durable.store.events.start(sessionId, turnId, durable.holder);
        }
        await body({
          turnId,
          emit,
          signal: controller.signal,
          approvals,
          approvalTimeoutMs: this.#approvalTimeoutMs,
          lease: leased ? turnId : undefined,
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
        stopControl();
        // Nothing to wait for without a durable log or a claim: the log closes with the body.
        if (writer) await written;
        if (writer || claim) await this.#end(sessionId, turnId, writer, heldDone, claim);
        if (heldDone) log.append(heldDone);
        log.close();
        const kept = this.#turns.get(sessionId);
        if (kept?.log === log) kept.running = undefined;
        this.#forgetLater(sessionId, log);
      }
    })();
    running.done = done;
    this.#turns.set(sessionId, { log, running });
    return log;
  }

  /** Ends the turn's durable log with its held `done` and releases its lease, in one transaction. */
  async #end(
    sessionId: string,
    turnId: string,
    writer: TurnEventWriter | undefined,
    heldDone: AgentEvent | undefined,
    claim: TurnClaim | undefined,
  ): Promise<void> {
    const durable = this.#durable;
    try {
      if (durable && writer) {
        await durable.store.events.finish(sessionId, turnId, writer, heldDone ? [heldDone] : []);
      }
    } catch (error) {
      // The lease then goes below; the log is ended by its next reader elsewhere.
      this.#onLeaseError(error, sessionId);
    }
    await claim?.release().catch((error: unknown) => this.#onLeaseError(error, sessionId));
  }

  /**
   * Renews the turn's lease on a timer while it runs; a renewal that finds a cancel asked on
   * another instance, or the lease taken over, aborts the turn (its writes would be refused
   * anyway). Returns the stop function.
   */
  #control(sessionId: string, turnId: string, running: Running): () => void {
    const durable = this.#durable;
    if (!durable) return () => {};
    const { controller } = running;
    let busy = false;
    const check = () => {
      if (busy || controller.signal.aborted) return; // a slow database: one renewal at a time
      busy = true;
      durable.store.leases
        .renew(sessionId, turnId, durable.ttlMs)
        .then(
          (renewal) => {
            if (!renewal.held) controller.abort(new TurnLeaseLostError(sessionId, turnId));
            else if (renewal.cancelReason !== undefined) controller.abort();
          },
          (err: unknown) => this.#onLeaseError(err, sessionId),
        )
        .finally(() => {
          busy = false;
        });
    };
    running.check = check;
    const every =
      durable.controlIntervalMs ?? Math.max(50, Math.min(1_000, Math.floor(durable.ttlMs / 3)));
    const timer = setInterval(check, every);
    timer.unref();
    return () => {
      clearInterval(timer);
      running.check = undefined;
    };
  }

  /**
   * With PostgreSQL: the cancels other instances announce reach the turns running here at once
   * (their next renewal would find them anyway), and their approvals are answered here.
   */
  async #watch(): Promise<void> {
    const store = this.#durable?.store;
    if (!store) return;
    this.#watching ??= (async () => {
      await this.#approvals?.serve((sessionId, callId, decision) =>
        this.running(sessionId) ? this.#decideHere(sessionId, callId, decision) : undefined,
      );
      return store
        .watchCancels((sessionId) => this.#turns.get(sessionId)?.running?.check?.())
        .catch(() => undefined);
    })();
    await this.#watching;
  }

  /**
   * True while a turn of the session runs anywhere: here, or under a live lease (any instance;
   * not a lease of a process of this machine that is gone).
   */
  async busy(sessionId: string): Promise<boolean> {
    if (this.running(sessionId)) return true;
    const lease = await this.#durable?.store.leases.current(sessionId);
    return lease !== undefined && leaseAlive(lease);
  }

  /** Drops a finished log after the retention time, unless a newer turn replaced it. */
  #forgetLater(sessionId: string, log: TurnEventLog): void {
    const timer = setTimeout(() => {
      if (this.#turns.get(sessionId)?.log === log) this.#turns.delete(sessionId);
    }, this.#retainMs);
    timer.unref(); // never keeps the process alive
  }

  /** True while a turn of the session runs here. */
  running(sessionId: string): boolean {
    const turn = this.#turns.get(sessionId);
    return turn !== undefined && !turn.log.closed;
  }

  /**
   * The session's running or last turn, wherever it ran: this process's own log when it is the
   * chat's latest turn, else the durable log of the turn another instance runs or ran (a dead
   * instance's turn is ended there for its readers).
   */
  async find(sessionId: string): Promise<TurnView | undefined> {
    const local = this.#turns.get(sessionId)?.log;
    const store = this.#durable?.store;
    if (store && !this.running(sessionId)) {
      const latest = await store.events.latest(sessionId).catch(() => undefined);
      if (latest && latest.turnId !== local?.turnId) {
        const lease = latest.ended ? undefined : await store.leases.current(sessionId);
        const running = lease !== undefined && lease.turnId === latest.turnId && leaseAlive(lease);
        return {
          turnId: latest.turnId,
          running,
          read: (lastEventId, signal) => store.events.read(sessionId, lastEventId, signal),
        };
      }
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
   * was decided already, timed out, or was cancelled). A turn running on another instance is
   * answered there.
   */
  async decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
  ): Promise<DecideResult> {
    if (this.running(sessionId) || !this.#approvals) {
      return this.#decideHere(sessionId, callId, decision);
    }
    if (!(await this.busy(sessionId))) return { status: "unknown" };
    await this.#watch();
    return (await this.#approvals.ask(sessionId, callId, decision)) ?? { status: "unknown" };
  }

  #decideHere(sessionId: string, callId: string, decision: ApprovalDecision): DecideResult {
    const turn = this.#turns.get(sessionId);
    const running = turn?.running;
    if (!turn || turn.log.closed || !running) return { status: "unknown" };
    return running.approvals.decide(callId, decision);
  }

  /**
   * Cancels the running turn, here or on the instance that runs it; resolves when it has ended
   * (for a turn elsewhere: when its lease is gone, or after `cancelWaitMs`). False when none was
   * running.
   */
  async cancel(sessionId: string): Promise<boolean> {
    if (this.running(sessionId) || !this.#durable) return this.#cancelHere(sessionId);
    const { store, cancelWaitMs } = this.#durable;
    if (!(await store.leases.requestCancel(sessionId, "cancelled"))) return false;
    await store.announceCancel(sessionId).catch(() => {});
    const until = Date.now() + (cancelWaitMs ?? 15_000);
    while (Date.now() < until) {
      const lease = await store.leases.current(sessionId);
      if (!lease || !leaseAlive(lease)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
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
    const unwatch = await this.#watching;
    this.#watching = undefined;
    unwatch?.();
    await this.#approvals?.close();
  }
}

/** True while a lease holds: not expired, and not of a process of this machine that is gone. */
function leaseAlive(lease: TurnLease): boolean {
  return lease.expiresAt > Date.now() && !holderIsGone(lease.holder);
}
