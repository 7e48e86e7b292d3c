/**
 * The whole-response path: one turn run by the Claude Agent SDK instead of overlap's
 * streamed rounds. The host's tools are registered with the SDK through its in-process MCP server
 * (`createSdkMcpServer` + `tool()`); the SDK's CLI talks to the model and calls them. Responses are
 * collected whole and mapped to the same AgentEvents the streamed path emits, so a UI reading them
 * works unchanged:
 *
 * - no previews, no `tool-call-start`: a response's text, thinking and calls are emitted only once
 *   it has ended (one `text-delta` per text block);
 * - no tool starts before the response ends. The CLI itself would start a call as soon as its
 *   block is complete (it executes tools while the model streams); every handler here waits for
 *   the end of the response that holds its call (`message_stop`: only the message-level stream
 *   events are read, never a content delta) before running anything;
 * - the same tools, through the same `ToolExecutor` and ledger (exactly once by call id), so the
 *   cart lock and every shop rule apply; `ui` and `tool-result` in call order after the round's
 *   tools are done, then `round-end`, and `done` last;
 * - every round's messages are handed to `onMessages` before the next request is sent, in the
 *   shape the streamed path stores, so either path continues the conversation.
 *
 * Not done here: mid-stream repair (a response cut off is kept up to its last complete block,
 * every call in it answered `not_executed` or with the outcome of a call that ran), previews,
 * eager dispatch, delegate tools' live inner events (a delegate runs, its inner agent's events
 * are not forwarded).
 *
 * This file runs the turn and stores its rounds; the parts have a file each: the CLI's setup
 * (`agent-sdk-options.ts`, with the transcript of `claude-transcript.ts`), the MCP bridge of the
 * shop's tools (`shop-mcp-server.ts`), the SDK's messages read into rounds (`sdk-messages.ts`),
 * the rounds and their events (`whole-rounds.ts`), and the calls held until their response ends
 * (`call-gates.ts`) and then run (`whole-calls.ts`).
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Options, query } from "@anthropic-ai/claude-agent-sdk";
import {
  type AgentEvent,
  type AgentEventSink,
  type ApprovalSource,
  type AssistantMessage,
  type Message,
  OverlapError,
  type StopReason,
  type ToolExecutor,
  type ToolLedger,
  type ToolOutcome,
} from "overlap-runtime";
import { toolResultMessage } from "overlap-runtime/core";
import type { MessagesApiEndpoint } from "../../model/model-from-env.js";
import { agentSdkOptions, agentSdkPrompt } from "./agent-sdk-options.js";
import { CallGates } from "./call-gates.js";
import { SdkMessages } from "./sdk-messages.js";
import { shopMcpServer } from "./shop-mcp-server.js";
import { TurnStatus } from "./turn-status.js";
import { WholeCalls } from "./whole-calls.js";
import { type Round, WholeRounds } from "./whole-rounds.js";

/** Options of {@link runAgentSdkTurn}. */
export interface AgentSdkTurnOptions {
  endpoint: MessagesApiEndpoint;
  // biome-ignore lint/suspicious/noExplicitAny: the path is agnostic of the host context.
  executor: ToolExecutor<any>;
  /** The conversation so far, ending with the user's new message. */
  messages: readonly Message[];
  sink: AgentEventSink;
  system?: string;
  agent?: string;
  signal?: AbortSignal;
  ledger?: ToolLedger;
  /** Most model requests in the turn (the SDK's `maxTurns`). Default 10. */
  maxRounds?: number;
  /** Persists each round's messages (appended at `from`) before the next request. */
  onMessages?: (update: { from: number; messages: readonly Message[] }) => Promise<void> | void;
  onLedgerError?: (error: unknown, callId: string) => void;
  /** Told when the CLI asks for a call before its response ended (the call waits for it). */
  onCallHeld?: (callId: string, name: string) => void;
  /** The CLI's stderr lines (debug output, warnings). */
  onStderr?: (line: string) => void;
  now?: () => number;
  /**
   * Where the user's decisions come from, for calls whose tool needs approval (checkout): as on
   * the streamed path, such a call emits `approval-request` and runs only once approved.
   */
  approvals?: ApprovalSource;
  /** How long such a call waits for the user. Default 5 minutes. */
  approvalTimeoutMs?: number;
}

/** What the turn produced. */
export interface AgentSdkTurnResult {
  /** The whole conversation after the turn. */
  messages: Message[];
  /** How many rounds (model responses) the turn ran. */
  roundCount: number;
  stopReason: StopReason;
  error?: OverlapError;
}

/** Runs one turn through the Claude Agent SDK. Never rejects. */
export async function runAgentSdkTurn(options: AgentSdkTurnOptions): Promise<AgentSdkTurnResult> {
  const now = options.now ?? (() => performance.now());
  const conversation = [...options.messages];
  const last = conversation.at(-1);
  if (last?.role !== "user") {
    const error = new OverlapError(
      "invalid_conversation",
      "The conversation must end with the user's message.",
    );
    emitTo(options, { type: "error", code: error.code, message: error.publicMessage });
    emitTo(options, { type: "done", roundCount: 0, stopReason: "error" });
    return { messages: conversation, roundCount: 0, stopReason: "error", error };
  }
  let dir: string;
  try {
    dir = await mkdtemp(join(tmpdir(), "overlap-whole-"));
  } catch (err) {
    const error = new OverlapError("provider_error", "No temporary directory for the agent SDK.", {
      cause: err,
    });
    emitTo(options, { type: "error", code: error.code, message: error.publicMessage });
    emitTo(options, { type: "done", roundCount: 0, stopReason: "error" });
    return { messages: conversation, roundCount: 0, stopReason: "error", error };
  }
  try {
    return await new AgentSdkTurn(options, conversation, dir, now).run();
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/** One turn: the SDK's run, read into rounds whose calls run after their response ended. */
class AgentSdkTurn {
  readonly #options: AgentSdkTurnOptions;
  readonly #conversation: Message[];
  readonly #dir: string;
  readonly #controller = new AbortController();
  readonly #status = new TurnStatus();
  readonly #gates = new CallGates();
  readonly #rounds: WholeRounds;
  readonly #calls: WholeCalls;
  readonly #messages: SdkMessages;

  constructor(
    options: AgentSdkTurnOptions,
    conversation: Message[],
    dir: string,
    now: () => number,
  ) {
    this.#options = options;
    this.#conversation = conversation;
    this.#dir = dir;
    const emit = (event: AgentEvent) => emitTo(options, event);
    this.#rounds = new WholeRounds({
      executor: options.executor,
      gates: this.#gates,
      status: this.#status,
      now,
      emit,
      store: (round, outcomes) => this.#store(round, outcomes),
    });
    this.#calls = new WholeCalls({
      executor: options.executor,
      ledger: options.ledger,
      approvals: options.approvals,
      approvalTimeoutMs: options.approvalTimeoutMs,
      onLedgerError: options.onLedgerError,
      onCallHeld: options.onCallHeld,
      rounds: this.#rounds,
      gates: this.#gates,
      signal: this.#controller.signal,
      emit,
    });
    this.#messages = new SdkMessages(this.#rounds, this.#gates, this.#status);
  }

  async run(): Promise<AgentSdkTurnResult> {
    const outer = this.#options.signal;
    const status = this.#status;
    const onAbort = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    try {
      const prompt = agentSdkPrompt(this.#conversation, this.#options.endpoint.model);
      for await (const message of query({ prompt, options: this.#sdkOptions() })) {
        await this.#messages.read(message);
        if (status.error && this.#controller.signal.aborted) break;
      }
    } catch (err) {
      status.fail(
        outer?.aborted
          ? new OverlapError("aborted", "The turn was cancelled.", { cause: err })
          : new OverlapError("provider_error", errorText(err), { cause: err }),
      );
    } finally {
      outer?.removeEventListener("abort", onAbort);
    }
    if (outer?.aborted && !status.error) {
      status.error = new OverlapError("aborted", "The turn was cancelled.");
    }
    // Nothing runs any more: calls still waiting for their response's end never start, and a
    // call already running (aborted with the turn) is waited for, so its real outcome is kept.
    this.#gates.closeAll();
    await this.#calls.settled();
    const open = this.#rounds.last();
    if (open && !open.closed) {
      if (!open.ended) this.#rounds.endResponse(open, "error");
      await this.#rounds.close(open, "error");
    }
    const error = status.error;
    const stopReason: StopReason = error
      ? error.code === "max_rounds"
        ? status.stopReason
        : "error"
      : status.stopReason;
    if (error) {
      emitTo(this.#options, { type: "error", code: error.code, message: error.publicMessage });
    }
    emitTo(this.#options, { type: "done", roundCount: this.#rounds.count, stopReason });
    const result: AgentSdkTurnResult = {
      messages: this.#conversation,
      roundCount: this.#rounds.count,
      stopReason,
    };
    if (error) result.error = error;
    return result;
  }

  #sdkOptions(): Options {
    const { endpoint, executor } = this.#options;
    const toolNames = executor.specs().map((s) => s.name);
    return agentSdkOptions({
      endpoint,
      toolNames,
      // Each call runs only after its response ended.
      mcpServer: shopMcpServer(executor, (name, extra) => this.#calls.handle(name, extra)),
      history: this.#conversation.slice(0, -1),
      dir: this.#dir,
      controller: this.#controller,
      ...(this.#options.system === undefined ? {} : { system: this.#options.system }),
      ...(this.#options.maxRounds === undefined ? {} : { maxRounds: this.#options.maxRounds }),
      onStderr: this.#options.onStderr,
    });
  }

  /** A closed round's messages, in the shape the streamed path stores, handed to `onMessages`. */
  async #store(round: Round, outcomes: ToolOutcome[]): Promise<void> {
    const content = round.blocks
      .map((b) => b.block)
      .filter((b) => !(b.type === "text" && b.text.trim() === ""));
    const from = this.#conversation.length;
    const added: Message[] = [];
    if (content.length > 0) added.push({ role: "assistant", content } as AssistantMessage);
    else if (outcomes.length > 0) return; // unreachable: calls are content
    if (outcomes.length > 0) added.push(toolResultMessage(outcomes));
    if (added.length === 0) return;
    this.#conversation.push(...added);
    try {
      await this.#options.onMessages?.({ from, messages: added });
    } catch (err) {
      this.#status.fail(
        err instanceof OverlapError
          ? err
          : new OverlapError("storage_error", "The conversation could not be saved.", {
              cause: err,
            }),
      );
      // The round is not stored: nothing more may happen in this turn.
      this.#controller.abort();
    }
  }
}

function emitTo(options: AgentSdkTurnOptions, event: AgentEvent): void {
  try {
    options.sink(options.agent && !event.agent ? { ...event, agent: options.agent } : event);
  } catch {
    // A failing sink (a closed connection) must not stop the turn.
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
