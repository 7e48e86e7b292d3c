/**
 * The calls the CLI asks for, each run once its response has ended: through the shop's
 * `ToolExecutor` (the session's context, the cart lock, every rule), the same ledger as the
 * streamed path (a call id recorded is replayed, never run twice) and the same approval gate
 * (checkout runs only once the user said so). Each call's status goes out as `tool-status`.
 */

import {
  type AgentEvent,
  type ApprovalSource,
  type RoundTimings,
  type ToolExecutor,
  type ToolLedger,
  type ToolOutcome,
  toolCallOf,
} from "overlap-runtime";
import { failedOutcome, runApproved } from "overlap-runtime/core";
import type { CallGates } from "./call-gates.js";
import { toolUseIdOf } from "./shop-mcp-server.js";
import type { Round, RoundCall, WholeRounds } from "./whole-rounds.js";

/** How {@link WholeCalls} is built. */
export interface WholeCallsOptions {
  // biome-ignore lint/suspicious/noExplicitAny: the path is agnostic of the host context.
  executor: ToolExecutor<any>;
  ledger?: ToolLedger | undefined;
  approvals?: ApprovalSource | undefined;
  approvalTimeoutMs?: number | undefined;
  onLedgerError?: ((error: unknown, callId: string) => void) | undefined;
  onCallHeld?: ((callId: string, name: string) => void) | undefined;
  rounds: WholeRounds;
  gates: CallGates;
  /** The turn's signal: once aborted, no call starts and running ones are aborted. */
  signal: AbortSignal;
  emit: (event: AgentEvent) => void;
}

/** Runs the calls of one turn. */
export class WholeCalls {
  readonly #options: WholeCallsOptions;
  /** Calls the CLI asked for that have not answered yet. */
  readonly #inflight = new Set<Promise<ToolOutcome>>();

  constructor(options: WholeCallsOptions) {
    this.#options = options;
  }

  /** One call from the CLI (`extra`: its MCP extra), answered with the call's outcome. */
  handle(name: string, extra: unknown): Promise<ToolOutcome> {
    const call = this.#call(name, extra);
    this.#inflight.add(call);
    return call.finally(() => this.#inflight.delete(call));
  }

  /** Waits for every call that is still running, so its real outcome is kept. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inflight]);
  }

  /** Waits for the end of the call's response, then runs it once. */
  async #call(name: string, extra: unknown): Promise<ToolOutcome> {
    const callId = toolUseIdOf(extra);
    const signal = (extra as { signal?: AbortSignal } | undefined)?.signal;
    if (!callId) {
      return failedOutcome("unknown", name, "not_executed", `${name} was not run: no call id.`);
    }
    const g = this.#options.gates.of(callId);
    if (!g.opened) this.#options.onCallHeld?.(callId, name);
    const onAbort = () => g.open(false);
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = await g.promise;
    signal?.removeEventListener("abort", onAbort);
    const round = this.#options.rounds.withCall(callId);
    const call = round?.calls.get(callId);
    if (!round || !call) {
      return failedOutcome(callId, name, "not_executed", `${name} was not run.`);
    }
    const recorded = (outcome: ToolOutcome) => {
      round.outcomes.set(callId, outcome);
      return outcome;
    };
    if (!run || this.#options.signal.aborted) {
      return recorded(
        failedOutcome(
          callId,
          call.name,
          "not_executed",
          `${call.name} was not run: the response was cancelled before it started.`,
        ),
      );
    }
    const tool = this.#options.executor.tool(call.name);
    if (tool?.dispatch === "deferred" && round.stopReason !== "tool_use") {
      return recorded(
        failedOutcome(
          callId,
          call.name,
          "not_executed",
          `${call.name} was not run: the response did not end asking for tools.`,
        ),
      );
    }
    return recorded(await this.#execute(round, call, signal));
  }

  async #execute(
    round: Round,
    call: RoundCall,
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    const { ledger, executor, rounds } = this.#options;
    const id = call.block.id;
    const timing: RoundTimings["tools"][number] = {
      callId: id,
      name: call.name,
      readyMs: round.streamEndMs ?? rounds.ms(round),
    };
    round.tools.set(id, timing);
    const replay = await ledger?.lookup(id).catch(() => undefined);
    if (replay) {
      timing.status = replay.status;
      return { ...replay, callId: id, name: call.name, replayed: true };
    }
    const record = toolCallOf(call.block, { round: round.n, index: call.index });
    const combined = signal
      ? AbortSignal.any([signal, this.#options.signal])
      : this.#options.signal;
    // The same approval gate as the streamed path: nothing irreversible runs before the user says so.
    // The same approval gate as the streamed path: nothing irreversible runs before the user
    // says so, and what runs is what they approved (asked again when it changed meanwhile).
    let ran = false;
    const outcome = await runApproved(
      {
        executor,
        call: record,
        approvals: this.#options.approvals,
        ...(this.#options.approvalTimeoutMs === undefined
          ? {}
          : { timeoutMs: this.#options.approvalTimeoutMs }),
        signal: combined,
        onRequest: (request) =>
          this.#options.emit({ type: "approval-request", round: round.n, ...request }),
        onResolved: (resolved) =>
          this.#options.emit({ type: "approval-resolved", round: round.n, ...resolved }),
      },
      async (approved) => {
        const result = await executor.execute(record, {
          signal: combined,
          onStart: () => {
            timing.startMs = rounds.ms(round);
            round.firstToolStartMs ??= timing.startMs;
            this.#status(round, call.name, id, "running");
          },
          ...(approved ? { approved } : {}),
        });
        if (!result.effectChanged) ran = true;
        return result;
      },
    );
    if (!ran) {
      timing.status = outcome.status;
      this.#status(round, call.name, id, stateOf(outcome));
      return outcome;
    }
    timing.endMs = rounds.ms(round);
    timing.status = outcome.status;
    this.#status(round, call.name, id, stateOf(outcome));
    try {
      await ledger?.record(outcome);
    } catch (err) {
      this.#options.onLedgerError?.(err, id);
    }
    return outcome;
  }

  #status(
    round: Round,
    name: string,
    callId: string,
    status: Extract<AgentEvent, { type: "tool-status" }>["status"],
  ): void {
    this.#options.emit({
      type: "tool-status",
      round: round.n,
      callId,
      name,
      status,
      atMs: this.#options.rounds.ms(round),
    });
  }
}

function stateOf(outcome: ToolOutcome): "done" | "failed" | "cancelled" {
  if (outcome.status === "ok") return "done";
  return outcome.status === "interrupted" ||
    outcome.status === "not_executed" ||
    outcome.status === "declined"
    ? "cancelled"
    : "failed";
}
