/**
 * One call that runs a chat's turn durably, on any number of instances sharing one database:
 * claim the chat (a second message anywhere gets a {@link TurnRunningError} with a retry-after),
 * restore the round a dead instance left (calls that ran keep their real results; the others are
 * answered honestly, per the tool's declared effects), append the user's message, run the turn
 * (`runAgentTurn`) with the durable journal and ledger, write every round under the conversation's
 * version and the turn's lease, and end the turn's event log and its lease in one transaction.
 * While the turn runs its lease is renewed, and each renewal says whether an instance asked it to
 * stop (`cancel`): a cancel or a revocation asked anywhere reaches the turn within
 * `controlIntervalMs`, aborts its tools and ends its streams.
 */

import { randomUUID } from "node:crypto";
import type { ModelClient } from "../agent/model-client.js";
import { type AgentTurnResult, runAgentTurn } from "../agent/run-agent-turn.js";
import { OverlapError } from "../errors.js";
import type { AgentEvent, AgentEventSink } from "../protocol/agent-event.js";
import type { RoundSettings } from "../round/round-settings.js";
import type { LoggedEvent } from "../sse/turn-event-log.js";
import type { ToolUseBlock, UserMessage } from "../stream/message.js";
import type { ToolCall } from "../stream/tool-call.js";
import type { AnyTool, ToolEffects } from "../tools/define-tool.js";
import {
  ToolExecutor,
  type ToolExecutorOptions,
  type ToolExecutorOptionsArg,
} from "../tools/tool-executor.js";
import { durableHolderId, holderIsGone, idempotencyKeyOf } from "./durable-identity.js";
import type { DurableEffects, DurableStore } from "./durable-store.js";
import { type TurnLease, TurnLeaseLostError } from "./durable-turn-leases.js";
import { journaledBeforeExternal } from "./journaled-before-external.js";
import { type PreparedTurn, prepareDurableTurn } from "./prepare-durable-turn.js";

/** A second message for a chat whose turn runs (on any instance): ask again after `retryAfterMs`. */
export class TurnRunningError extends Error {
  override readonly name = "TurnRunningError";
  readonly code = "turn_running";
  readonly chatId: string;
  /** When asking again makes sense, in ms (a live lease is renewed: a short wait). */
  readonly retryAfterMs: number;

  constructor(chatId: string, retryAfterMs: number) {
    super(`A turn of chat ${chatId} is running; retry after ${retryAfterMs} ms.`);
    this.chatId = chatId;
    this.retryAfterMs = retryAfterMs;
  }
}

/** What the host's context factory learns of the turn its tools run in. */
export interface DurableTurnInfo {
  chatId: string;
  turnId: string;
  /** Runs a tool's effect in its ledger record's transaction (tools with `effects: "ledger"`). */
  effects: DurableEffects;
}

/** Options of {@link DurableAgentHost}. */
export interface DurableAgentHostOptions<C = unknown>
  extends Omit<RoundSettings, "journal" | "ledger"> {
  store: DurableStore;
  model: ModelClient;
  tools: readonly AnyTool<C>[];
  /** The host context of a turn's tools (`ctx.context`). */
  context?: (turn: DurableTurnInfo) => C;
  /** Executor options (timeouts, error reporting); the host sets the context and the keys. */
  executor?: Omit<ToolExecutorOptions<C>, "context" | "idempotencyKey">;
  system?: string;
  maxRounds?: number;
  maxTokens?: number;
  /** This instance as lease rows name it. Default `<hostname>/<pid>/<random>`. */
  holder?: string;
  /** How long a lease lasts without renewal, in ms. Default 15 000. */
  leaseTtlMs?: number;
  /**
   * How often a running turn renews its lease and looks for a cancel asked elsewhere, in ms: the
   * bound on how late a remote cancel reaches it. Default the lesser of 1000 and a third of the
   * lease.
   */
  controlIntervalMs?: number;
  /** The longest retry-after a refused message is given. Default 2000. */
  maxRetryAfterMs?: number;
  /** Told of failures the turn survives (a renewal that failed, a journal write...). */
  onError?: (error: unknown, chatId: string) => void;
}

/** A new message for a chat. */
export interface DurableTurnRequest {
  chatId: string;
  /** The user's message (a string is one text message). */
  message: string | UserMessage;
  /** Also receives every event as it happens (besides the durable log). */
  sink?: AgentEventSink;
  /** Cancels the turn from this process (other instances use {@link DurableAgentHost.cancel}). */
  signal?: AbortSignal;
}

/** What a durable turn did. */
export interface DurableTurnResult {
  turnId: string;
  /** What `runAgentTurn` returned (absent when the turn failed before it ran). */
  result?: AgentTurnResult;
  /** The ids of the calls a dead turn left, restored into the conversation first. */
  restored: string[];
  /** The lease of a dead instance's turn this one took over. */
  tookOver?: TurnLease;
  /** Why the turn stopped early: a cancel's reason, or the lease lost to another instance. */
  stoppedBy?: string;
  /** The error that ended the turn, if one did. */
  error?: unknown;
}

/** A started durable turn. */
export interface DurableTurn {
  readonly chatId: string;
  readonly turnId: string;
  /** Settles when the turn ended and its lease is released. Never rejects. */
  readonly done: Promise<DurableTurnResult>;
}

/** The text a restored call without a record gets, by what its tool declares of its effects. */
export function unknownOutcomeText(
  block: ToolUseBlock,
  idempotencyKey: string | undefined,
): string {
  const key = idempotencyKey ? ` (idempotency key ${idempotencyKey})` : "";
  return `${block.name}'s outcome is unknown${key}: the server stopped while it may have been running, so it may have taken effect. Check before calling it again.`;
}

/** The text a restored call gets when a crash cut it off and it is known not to have run. */
export function notRunText(block: ToolUseBlock): string {
  return `${block.name} was not run: the server stopped before it ran. Call it again if it is still wanted.`;
}

interface Running {
  controller: AbortController;
  done: Promise<DurableTurnResult>;
  /** Renews now and looks for a cancel (woken by a notification). */
  check?: () => void;
}

/** Runs chats' turns durably over a {@link DurableStore}. */
export class DurableAgentHost<C = unknown> {
  readonly holder: string;
  readonly #options: DurableAgentHostOptions<C>;
  readonly #store: DurableStore;
  readonly #ttlMs: number;
  readonly #intervalMs: number;
  readonly #running = new Map<string, Running>();
  /** With PostgreSQL: this host's watch of cancels asked on other instances (from its first turn). */
  #cancels: Promise<() => void> | undefined;

  constructor(options: DurableAgentHostOptions<C>) {
    this.#options = options;
    this.#store = options.store;
    this.holder = options.holder ?? durableHolderId();
    this.#ttlMs = options.leaseTtlMs ?? 15_000;
    this.#intervalMs =
      options.controlIntervalMs ?? Math.max(20, Math.min(1000, Math.floor(this.#ttlMs / 3)));
  }

  /**
   * Claims the chat and starts its turn; resolves once the turn's event log exists (readers on
   * any instance find it) and the user's message is stored (a crash from then on keeps it: the
   * next turn finds it). Rejects with {@link TurnRunningError} while a turn of the chat runs
   * anywhere.
   */
  async start(request: DurableTurnRequest): Promise<DurableTurn> {
    const { chatId } = request;
    const store = this.#store;
    if (this.#running.has(chatId)) throw new TurnRunningError(chatId, this.#maxRetry());
    await this.#listenForCancels();
    const turnId = randomUUID();
    const ask = { turnId, holder: this.holder, ttlMs: this.#ttlMs };
    let claim = await store.leases.claim(chatId, ask);
    if (!claim.ok && holderIsGone(claim.heldBy.holder)) {
      claim = await store.leases.claim(chatId, { ...ask, presumedDead: claim.heldBy.turnId });
    }
    if (!claim.ok) {
      const left = claim.heldBy.expiresAt - Date.now();
      throw new TurnRunningError(chatId, Math.max(1, Math.min(left, this.#maxRetry())));
    }
    const tookOver = claim.tookOver;
    const controller = new AbortController();
    let writer: Awaited<ReturnType<DurableStore["events"]["start"]>>;
    try {
      // The dead turn's readers learn how it ended before anything of the new one.
      if (tookOver) await store.events.endCrashed(chatId, tookOver.turnId);
      writer = await store.events.start(chatId, turnId, this.holder);
    } catch (error) {
      await store.leases.release(chatId, turnId).catch(() => undefined);
      throw error;
    }
    const running: Running = { controller, done: Promise.resolve({ turnId, restored: [] }) };
    this.#running.set(chatId, running);
    const prepared = prepareDurableTurn(
      this.#store,
      chatId,
      turnId,
      request.message,
      (block, key) =>
        this.#effectsOf(block.name) === "external"
          ? unknownOutcomeText(block, key)
          : notRunText(block),
    );
    const done = this.#run(request, turnId, tookOver, running, writer, prepared);
    running.done = done;
    void done.finally(() => {
      if (this.#running.get(chatId)?.done === done) this.#running.delete(chatId);
    });
    // Accepted means stored: once this resolves the message survives a crash (the next turn
    // finds it). Had storing it failed, the turn ends with that error on its stream.
    await prepared.catch(() => undefined);
    return { chatId, turnId, done };
  }

  /** Starts the chat's turn and waits for its end (see {@link start}). */
  async run(request: DurableTurnRequest): Promise<DurableTurnResult> {
    return (await this.start(request)).done;
  }

  /**
   * Asks the chat's running turn to stop, wherever it runs: at once when here, else through its
   * lease row, which its instance reads within `controlIntervalMs`. With `waitMs`, resolves once
   * the turn ended (its lease is gone) or the time passed. True when a running turn was asked.
   */
  async cancel(
    chatId: string,
    reason = "cancelled",
    options: { waitMs?: number } = {},
  ): Promise<boolean> {
    const local = this.#running.get(chatId);
    const asked = await this.#store.leases.requestCancel(chatId, reason);
    if (asked && !local) {
      await this.#store.announceCancel(chatId).catch(() => undefined);
    }
    if (local) {
      local.controller.abort(new CancelRequested(reason));
      if (options.waitMs !== undefined) await local.done;
      return true;
    }
    if (asked && options.waitMs !== undefined) {
      const until = Date.now() + options.waitMs;
      while (Date.now() < until) {
        const lease = await this.#store.leases.current(chatId);
        if (!lease || lease.expiresAt <= Date.now()) break;
        await sleep(Math.min(50, this.#intervalMs));
      }
    }
    return asked;
  }

  /**
   * The chat's turn events after `lastEventId` (the latest turn from its start when it names no
   * turn of the chat), then the live rest, from any instance (see `DurableTurnEvents.read`).
   */
  read(
    chatId: string,
    lastEventId?: string | null,
    signal?: AbortSignal,
  ): AsyncGenerator<LoggedEvent> {
    return this.#store.events.read(chatId, lastEventId, signal);
  }

  /** True while a turn of the chat runs in this process. */
  running(chatId: string): boolean {
    return this.#running.has(chatId);
  }

  /** Cancels the turns running here and waits for their ends (shutdown). */
  async close(): Promise<void> {
    const running = [...this.#running.values()];
    for (const turn of running) turn.controller.abort(new CancelRequested("shutdown"));
    await Promise.all(running.map((turn) => turn.done));
    const unwatch = await this.#cancels;
    this.#cancels = undefined;
    unwatch?.();
  }

  #maxRetry(): number {
    return this.#options.maxRetryAfterMs ?? 2_000;
  }

  async #run(
    request: DurableTurnRequest,
    turnId: string,
    tookOver: TurnLease | undefined,
    running: Running,
    writer: Awaited<ReturnType<DurableStore["events"]["start"]>>,
    prepared: Promise<PreparedTurn>,
  ): Promise<DurableTurnResult> {
    const { chatId } = request;
    const { controller } = running;
    const store = this.#store;
    const options = this.#options;
    const out: DurableTurnResult = { turnId, restored: [] };
    if (tookOver) out.tookOver = tookOver;
    const report = (error: unknown) => {
      try {
        options.onError?.(error, chatId);
      } catch {
        // A failing reporter must not break the turn.
      }
    };
    const outer = request.signal;
    const onOuter = () => controller.abort(new CancelRequested("cancelled"));
    if (outer?.aborted) onOuter();
    else outer?.addEventListener("abort", onOuter, { once: true });
    const stopControl = this.#control(chatId, turnId, running, report);
    // The `done` is logged with the lease's release, in one transaction: whoever reads it may
    // send the next message at once.
    const held: AgentEvent[] = [];
    const sink = (event: AgentEvent) => {
      if (event.type === "done") held.push(event);
      else writer.append(event);
      try {
        request.sink?.(event);
      } catch {
        // The caller's sink must not stop the turn.
      }
    };
    try {
      const keyOf = (call: ToolCall) => idempotencyKeyOf(chatId, turnId, call);
      const stored = await prepared;
      let { version } = stored;
      const { messages } = stored;
      out.restored = stored.restored;
      const context = options.context?.({
        chatId,
        turnId,
        effects: store.effects(chatId, turnId),
      });
      const journal = journaledBeforeExternal(store.journal(chatId, turnId, keyOf));
      const tools = options.tools.map((tool) =>
        this.#effectsOf(tool.name) === "external" ? journal.gate(tool) : tool,
      );
      // The host's context factory is optional for tools of any context: the options are
      // checked here as the executor's, not as a list of known tools.
      const executorOptions: ToolExecutorOptions<C> = {
        ...options.executor,
        ...(context !== undefined ? { context } : {}),
        idempotencyKey: keyOf,
      };
      const executor = new ToolExecutor<C>(
        tools,
        ...([executorOptions] as ToolExecutorOptionsArg<C, AnyTool<C>>),
      );
      const {
        store: _store,
        model,
        tools: _tools,
        context: _context,
        executor: _executor,
        holder: _holder,
        leaseTtlMs: _ttl,
        controlIntervalMs: _interval,
        maxRetryAfterMs: _retry,
        onError: _onError,
        ...settings
      } = options;
      const result = await runAgentTurn({
        ...settings,
        model,
        executor,
        messages,
        sink,
        signal: controller.signal,
        journal,
        ledger: store.ledger(chatId, keyOf),
        onJournalError: (error) => report(error),
        onLedgerError: (error) => report(error),
        onMessages: async (update) => {
          version = await store.conversations.writeVersioned(chatId, update.from, update.messages, {
            expectedVersion: version,
            lease: turnId,
            clearJournal: true,
          });
        },
      });
      out.result = result;
      if (result.error) out.error = result.error;
    } catch (error) {
      out.error = error;
      report(error);
      const lost = error instanceof TurnLeaseLostError;
      writer.append({
        type: "error",
        code: lost ? "turn_taken_over" : error instanceof OverlapError ? error.code : "internal",
        message:
          error instanceof OverlapError
            ? error.publicMessage
            : "Something went wrong. Please try again.",
      });
      held.length = 0;
      held.push({ type: "done", roundCount: 0, stopReason: "error" });
    } finally {
      stopControl();
      outer?.removeEventListener("abort", onOuter);
      const reason = controller.signal.reason;
      if (controller.signal.aborted) {
        out.stoppedBy =
          reason instanceof CancelRequested
            ? reason.reason
            : reason instanceof TurnLeaseLostError
              ? "lease_lost"
              : "aborted";
      }
      if (held.length === 0) held.push({ type: "done", roundCount: 0, stopReason: "error" });
      try {
        await store.events.finish(chatId, turnId, writer, held);
      } catch (error) {
        report(error);
        // The lease then expires and the log is ended by its next reader.
        await store.leases.release(chatId, turnId).catch(report);
      }
    }
    return out;
  }

  /** Renews the lease on a timer; a cancel asked elsewhere or a lost lease aborts the turn. */
  #control(
    chatId: string,
    turnId: string,
    running: Running,
    report: (error: unknown) => void,
  ): () => void {
    const { controller } = running;
    let busy = false;
    const check = () => {
      if (busy || controller.signal.aborted) return;
      busy = true;
      this.#store.leases
        .renew(chatId, turnId, this.#ttlMs)
        .then((renewal) => {
          if (!renewal.held) controller.abort(new TurnLeaseLostError(chatId, turnId));
          else if (renewal.cancelReason !== undefined) {
            controller.abort(new CancelRequested(renewal.cancelReason));
          }
        }, report)
        .finally(() => {
          busy = false;
        });
    };
    running.check = check;
    const timer = setInterval(check, this.#intervalMs);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      running.check = undefined;
    };
  }

  /**
   * With a driver that can listen: a cancel asked on another instance is announced, and the turn
   * it names, when it runs here, looks at its lease at once instead of at its next renewal.
   */
  async #listenForCancels(): Promise<void> {
    this.#cancels ??= this.#store.watchCancels((chatId) => this.#running.get(chatId)?.check?.());
    await this.#cancels;
  }

  #effectsOf(name: string): ToolEffects {
    return this.#options.tools.find((tool) => tool.name === name)?.effects ?? "external";
  }
}

/** The abort reason of a cancel: what `DurableTurnResult.stoppedBy` reports. */
class CancelRequested extends Error {
  override readonly name = "CancelRequested";
  readonly reason: string;
  constructor(reason: string) {
    super(`The turn was asked to stop: ${reason}.`);
    this.reason = reason;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
