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
 */

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSdkMcpServer,
  type Options,
  query,
  type SDKMessage,
  type SDKUserMessage,
  type SdkMcpToolDefinition,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import {
  type AgentEvent,
  type AgentEventSink,
  type ApprovalSource,
  type AssistantContentBlock,
  type AssistantMessage,
  type Message,
  OverlapError,
  type RoundTimings,
  type StopReason,
  type ToolExecutor,
  type ToolLedger,
  type ToolOutcome,
  type ToolUseBlock,
  toolCallOf,
  type Usage,
} from "overlap-runtime";
import { anthropicParams } from "overlap-runtime/anthropic";
import {
  awaitApproval,
  failedOutcome,
  normalizeStopReason,
  savedMsOf,
  toolResultMessage,
} from "overlap-runtime/core";
import type { MessagesApiEndpoint } from "../model/model-from-env.js";
import { transcriptEntries, transcriptStore } from "./claude-transcript.js";

/** The MCP server name the tools are registered under: the CLI calls them `mcp__shop__<name>`. */
const SERVER = "shop";
const PREFIX = `mcp__${SERVER}__`;

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
  rounds: number;
  stopReason: StopReason;
  error?: OverlapError;
}

/** One model response and its calls. */
interface Round {
  n: number;
  t0: number;
  startedAt: number;
  messageId?: string;
  blocks: Array<{ block: AssistantContentBlock; atMs: number }>;
  ended: boolean;
  /** Its `ui`/`tool-result`/`round-end` events have been emitted and its messages stored. */
  closed: boolean;
  stopReason?: StopReason;
  usage: Usage;
  firstEventMs?: number;
  streamEndMs?: number;
  firstToolStartMs?: number;
  calls: Map<string, { block: ToolUseBlock; index: number; name: string }>;
  outcomes: Map<string, ToolOutcome>;
  /** The results the CLI handed the model, by call id (a call it answered without us). */
  answered: Map<string, { text: string; isError: boolean }>;
  tools: Map<string, RoundTimings["tools"][number]>;
}

/** A message-level stream event: a response's start (id, usage), delta (stop reason) or end. */
interface StreamEventLike {
  type: string;
  [key: string]: unknown;
}

/** Holds a call until the end of its response: `true` runs it, `false` never does. */
interface Gate {
  promise: Promise<boolean>;
  opened: boolean;
  open(run: boolean): void;
}

function gate(): Gate {
  let resolve!: (run: boolean) => void;
  const promise = new Promise<boolean>((r) => {
    resolve = r;
  });
  const g: Gate = {
    promise,
    opened: false,
    open: (run) => {
      g.opened = true;
      resolve(run);
    },
  };
  return g;
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
    emitTo(options, { type: "done", rounds: 0, stopReason: "error" });
    return { messages: conversation, rounds: 0, stopReason: "error", error };
  }
  let dir: string;
  try {
    dir = await mkdtemp(join(tmpdir(), "overlap-whole-"));
  } catch (err) {
    const error = new OverlapError("provider_error", "No temporary directory for the agent SDK.", {
      cause: err,
    });
    emitTo(options, { type: "error", code: error.code, message: error.publicMessage });
    emitTo(options, { type: "done", rounds: 0, stopReason: "error" });
    return { messages: conversation, rounds: 0, stopReason: "error", error };
  }
  try {
    return await new AgentSdkTurn(options, conversation, dir, now).run();
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

class AgentSdkTurn {
  readonly #options: AgentSdkTurnOptions;
  readonly #conversation: Message[];
  readonly #dir: string;
  readonly #now: () => number;
  readonly #controller = new AbortController();
  readonly #gates = new Map<string, Gate>();
  readonly #rounds: Round[] = [];
  /** Calls the CLI asked for that have not answered yet. */
  readonly #inflight = new Set<Promise<ToolOutcome>>();
  #error: OverlapError | undefined;
  #stopReason: StopReason = "end_turn";

  constructor(
    options: AgentSdkTurnOptions,
    conversation: Message[],
    dir: string,
    now: () => number,
  ) {
    this.#options = options;
    this.#conversation = conversation;
    this.#dir = dir;
    this.#now = now;
  }

  async run(): Promise<AgentSdkTurnResult> {
    const outer = this.#options.signal;
    const onAbort = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const message of query({ prompt: this.#prompt(), options: this.#sdkOptions() })) {
        await this.#onMessage(message);
        if (this.#error && this.#controller.signal.aborted) break;
      }
    } catch (err) {
      this.#error ??= outer?.aborted
        ? new OverlapError("aborted", "The turn was cancelled.", { cause: err })
        : new OverlapError("provider_error", errorText(err), { cause: err });
    } finally {
      outer?.removeEventListener("abort", onAbort);
    }
    if (outer?.aborted && !this.#error) {
      this.#error = new OverlapError("aborted", "The turn was cancelled.");
    }
    // Nothing runs any more: calls still waiting for their response's end never start, and a
    // call already running (aborted with the turn) is waited for, so its real outcome is kept.
    for (const g of this.#gates.values()) g.open(false);
    await Promise.allSettled([...this.#inflight]);
    const open = this.#rounds.at(-1);
    if (open && !open.closed) {
      if (!open.ended) this.#endResponse(open, "error");
      await this.#closeRound(open, "error");
    }
    const stopReason: StopReason = this.#error
      ? this.#error.code === "max_rounds"
        ? this.#stopReason
        : "error"
      : this.#stopReason;
    if (this.#error) {
      this.#emit({ type: "error", code: this.#error.code, message: this.#error.publicMessage });
    }
    this.#emit({ type: "done", rounds: this.#rounds.length, stopReason });
    const result: AgentSdkTurnResult = {
      messages: this.#conversation,
      rounds: this.#rounds.length,
      stopReason,
    };
    if (this.#error) result.error = this.#error;
    return result;
  }

  /** The user's new message, as the CLI's prompt. */
  async *#prompt(): AsyncGenerator<SDKUserMessage> {
    const last = this.#conversation.at(-1) as Message & { role: "user" };
    const [message] = claudeMessages([last], this.#options.endpoint.model);
    yield {
      type: "user",
      message: message as SDKUserMessage["message"],
      parent_tool_use_id: null,
    };
  }

  #sdkOptions(): Options {
    const { endpoint, executor } = this.#options;
    const names = executor.specs().map((s) => s.name);
    const history = this.#conversation.slice(0, -1);
    const env: Record<string, string | undefined> = {
      // The CLI gets only what it needs: never the server's own secrets or database address.
      PATH: process.env.PATH,
      HOME: this.#dir,
      CLAUDE_CONFIG_DIR: join(this.#dir, "config"),
      ANTHROPIC_API_KEY: endpoint.apiKey,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // A failed stream is an error of the turn, not a second, non-streamed request.
      CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK: "1",
      CLAUDE_AGENT_SDK_CLIENT_APP: "overlap-shop/0.1.0",
    };
    if (endpoint.baseUrl) env.ANTHROPIC_BASE_URL = endpoint.baseUrl;
    const options: Options = {
      abortController: this.#controller,
      cwd: this.#dir,
      env,
      model: endpoint.model,
      mcpServers: { [SERVER]: createSdkMcpServer({ name: SERVER, tools: this.#tools() }) },
      strictMcpConfig: true,
      // No built-in tool, no settings file, no prompt of Claude Code's: only the host's tools.
      tools: [],
      allowedTools: names.map((n) => PREFIX + n),
      // A model that names a tool without the MCP prefix (the scripted one) reaches it too.
      toolAliases: Object.fromEntries(names.map((n) => [n, PREFIX + n])),
      permissionMode: "dontAsk",
      settingSources: [],
      systemPrompt: this.#options.system ?? "",
      thinking: { type: "disabled" },
      maxTurns: this.#options.maxRounds ?? 10,
      // Read for the message-level events only: when each response starts and ends.
      includePartialMessages: true,
      stderr: (data) => {
        for (const line of data.split("\n")) if (line.trim()) this.#options.onStderr?.(line);
      },
    };
    if (history.length === 0) return { ...options, persistSession: false };
    // Earlier messages come from the shop's store, as a transcript the CLI resumes; the CLI's
    // own copy lives in the turn's temporary directory and goes with it.
    const sessionId = randomUUID();
    const entries = transcriptEntries(claudeMessages(history, endpoint.model) as Message[], {
      sessionId,
      cwd: this.#dir,
      model: endpoint.model,
    });
    return { ...options, resume: sessionId, sessionStore: transcriptStore(sessionId, entries) };
  }

  /** The host's tools as the SDK's MCP tools; each runs only after its response ended. */
  #tools(): SdkMcpToolDefinition[] {
    const { executor } = this.#options;
    return executor.specs().map((spec) => {
      const shape = (executor.tool(spec.name)?.input as { shape?: unknown } | undefined)?.shape;
      if (!shape || typeof shape !== "object") {
        throw new TypeError(`Tool "${spec.name}" needs an object schema for the whole path.`);
      }
      return tool(
        spec.name,
        spec.description ?? "",
        shape as SdkMcpToolDefinition["inputSchema"],
        async (_args, extra) => {
          const call = this.#call(spec.name, extra);
          this.#inflight.add(call);
          const outcome = await call.finally(() => this.#inflight.delete(call));
          return {
            content: [{ type: "text" as const, text: outcome.resultText }],
            ...(outcome.isError ? { isError: true } : {}),
          };
        },
      );
    });
  }

  #gate(callId: string): Gate {
    let g = this.#gates.get(callId);
    if (!g) {
      g = gate();
      this.#gates.set(callId, g);
    }
    return g;
  }

  /** One call from the CLI: wait for the end of its response, then run it once. */
  async #call(name: string, extra: unknown): Promise<ToolOutcome> {
    const callId = toolUseIdOf(extra);
    const signal = (extra as { signal?: AbortSignal } | undefined)?.signal;
    if (!callId) {
      return failedOutcome("unknown", name, "not_executed", `${name} was not run: no call id.`);
    }
    const g = this.#gate(callId);
    if (!g.opened) this.#options.onCallHeld?.(callId, name);
    const onAbort = () => g.open(false);
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = await g.promise;
    signal?.removeEventListener("abort", onAbort);
    const round = this.#rounds.find((r) => r.calls.has(callId));
    const call = round?.calls.get(callId);
    if (!round || !call) {
      return failedOutcome(callId, name, "not_executed", `${name} was not run.`);
    }
    const recorded = (outcome: ToolOutcome) => {
      round.outcomes.set(callId, outcome);
      return outcome;
    };
    if (!run || this.#controller.signal.aborted) {
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
    call: { block: ToolUseBlock; index: number; name: string },
    signal: AbortSignal | undefined,
  ): Promise<ToolOutcome> {
    const { ledger, executor } = this.#options;
    const id = call.block.id;
    const timing: RoundTimings["tools"][number] = {
      callId: id,
      name: call.name,
      readyMs: round.streamEndMs ?? this.#ms(round),
    };
    round.tools.set(id, timing);
    const replay = await ledger?.lookup(id).catch(() => undefined);
    if (replay) {
      timing.status = replay.status;
      return { ...replay, callId: id, name: call.name, replayed: true };
    }
    const record = toolCallOf(call.block, { round: round.n, index: call.index });
    const combined = signal
      ? AbortSignal.any([signal, this.#controller.signal])
      : this.#controller.signal;
    // The same approval gate as the streamed path: nothing irreversible runs before the user says so.
    const refusal = await awaitApproval({
      executor,
      call: record,
      approvals: this.#options.approvals,
      ...(this.#options.approvalTimeoutMs === undefined
        ? {}
        : { timeoutMs: this.#options.approvalTimeoutMs }),
      signal: combined,
      onRequest: (request) => this.#emit({ type: "approval-request", round: round.n, ...request }),
      onResolved: (resolved) =>
        this.#emit({ type: "approval-resolved", round: round.n, ...resolved }),
    });
    if (refusal) {
      timing.status = refusal.status;
      this.#status(round, call.name, id, stateOf(refusal));
      return refusal;
    }
    const outcome = await executor.execute(record, {
      signal: combined,
      onStart: () => {
        timing.startMs = this.#ms(round);
        round.firstToolStartMs ??= timing.startMs;
        this.#status(round, call.name, id, "running");
      },
    });
    timing.endMs = this.#ms(round);
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
    this.#emit({
      type: "tool-status",
      round: round.n,
      callId,
      name,
      status,
      atMs: this.#ms(round),
    });
  }

  async #onMessage(message: SDKMessage): Promise<void> {
    if ("parent_tool_use_id" in message && message.parent_tool_use_id) return;
    switch (message.type) {
      case "stream_event":
        return this.#onStreamEvent(message.event as unknown as StreamEventLike);
      case "assistant":
        return this.#onAssistant(message);
      case "user":
        return this.#onUser(message);
      case "result":
        return this.#onResult(message);
      default:
        return;
    }
  }

  async #onStreamEvent(event: StreamEventLike): Promise<void> {
    if (event.type === "message_start") {
      const previous = this.#rounds.at(-1);
      if (previous && !previous.closed) await this.#closeRound(previous, "tool_use");
      if (this.#error) return;
      const round = this.#newRound();
      const start = event.message as { id?: string; usage?: Usage } | undefined;
      if (start?.id) round.messageId = start.id;
      if (start?.usage) round.usage = { ...start.usage };
      round.firstEventMs = this.#ms(round);
      return;
    }
    const round = this.#rounds.at(-1);
    if (!round || round.ended) return;
    if (event.type === "message_delta") {
      const delta = event.delta as { stop_reason?: string | null } | undefined;
      const reason = normalizeStopReason(delta?.stop_reason);
      if (reason) round.stopReason = reason;
      const usage = event.usage as Partial<Usage> | undefined;
      if (usage) round.usage = { ...round.usage, ...withoutNulls(usage) };
    } else if (event.type === "message_stop") {
      this.#endResponse(round, round.stopReason ?? "end_turn");
      if (round.calls.size === 0) await this.#closeRound(round, round.stopReason ?? "end_turn");
    }
  }

  #newRound(): Round {
    const round: Round = {
      n: this.#rounds.length + 1,
      t0: this.#now(),
      startedAt: Date.now(),
      blocks: [],
      ended: false,
      closed: false,
      usage: { input_tokens: 0, output_tokens: 0 },
      calls: new Map(),
      outcomes: new Map(),
      answered: new Map(),
      tools: new Map(),
    };
    this.#rounds.push(round);
    this.#emit({ type: "round-start", round: round.n });
    return round;
  }

  #onAssistant(message: Extract<SDKMessage, { type: "assistant" }>): void {
    const model = (message.message as { model?: string }).model;
    if (message.error || model === "<synthetic>") {
      // The CLI's own message about a failed request, not the model's words.
      const text = textOf(message.message.content as unknown[]);
      this.#error ??= new OverlapError("provider_error", text || String(message.error), {
        details: { error: message.error },
      });
      return;
    }
    let round = this.#rounds.at(-1);
    if (!round || round.closed || (round.ended && round.messageId !== message.message.id)) {
      round = this.#newRound();
      round.messageId = message.message.id;
    }
    for (const raw of message.message.content as unknown as AssistantContentBlock[]) {
      const block = localBlock(raw);
      round.blocks.push({ block, atMs: this.#ms(round) });
      const index = round.blocks.length - 1;
      if (block.type === "tool_use") {
        round.calls.set(block.id, { block, index, name: block.name });
        // A block after the end (not expected): emitted and released at once.
        if (round.ended) {
          this.#emitBlock(round, block, index);
          this.#gate(block.id).open(true);
        }
      } else if (round.ended) {
        this.#emitBlock(round, block, index);
      }
    }
  }

  /** The response is over: its content goes out whole, then its calls may run. */
  #endResponse(round: Round, stopReason: StopReason): void {
    round.ended = true;
    round.stopReason = stopReason;
    round.streamEndMs = this.#ms(round);
    for (const [index, { block }] of round.blocks.entries()) this.#emitBlock(round, block, index);
    if (stopReason === "error") return;
    for (const id of round.calls.keys()) this.#gate(id).open(true);
  }

  #emitBlock(round: Round, block: AssistantContentBlock, index: number): void {
    const base = { round: round.n, index };
    if (block.type === "text" && block.text !== "") {
      this.#emit({ type: "text-delta", ...base, text: block.text });
    } else if (block.type === "thinking" && block.thinking !== "") {
      this.#emit({ type: "thinking-delta", ...base, thinking: block.thinking });
    } else if (block.type === "tool_use") {
      const deferred = this.#options.executor.tool(block.name)?.dispatch === "deferred";
      const dispatch =
        round.stopReason === "error"
          ? "cancelled"
          : deferred && round.stopReason !== "tool_use"
            ? "deferred"
            : "started";
      this.#emit({
        type: "tool-call",
        ...base,
        callId: block.id,
        name: block.name,
        input: block.input,
        dispatch,
      });
    }
  }

  #onUser(message: Extract<SDKMessage, { type: "user" }>): Promise<void> | undefined {
    const content = message.message.content;
    if (!Array.isArray(content)) return;
    const round = this.#rounds.at(-1);
    if (!round || round.closed) return;
    for (const block of content as unknown as Array<Record<string, unknown>>) {
      if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
      round.answered.set(block.tool_use_id, {
        text: textOf(block.content),
        isError: block.is_error === true,
      });
    }
    if ([...round.calls.keys()].every((id) => round.answered.has(id))) {
      return this.#closeRound(round, round.stopReason ?? "tool_use");
    }
    return;
  }

  #onResult(message: Extract<SDKMessage, { type: "result" }>): void {
    if (message.subtype === "success" && !message.is_error) {
      const last = this.#rounds.at(-1);
      if (last?.stopReason) this.#stopReason = last.stopReason;
      return;
    }
    if (message.subtype === "error_max_turns") {
      this.#error ??= new OverlapError("max_rounds", "The turn stopped after too many rounds.");
      return;
    }
    const text = "result" in message ? message.result : (message.errors ?? []).join("; ");
    this.#error ??= new OverlapError("provider_error", text || message.subtype, {
      details: { subtype: message.subtype },
    });
  }

  /** The join: results in call order, `round-end`, and the round's messages stored. */
  async #closeRound(round: Round, stopReason: StopReason): Promise<void> {
    if (round.closed) return;
    round.closed = true;
    if (!round.ended) this.#endResponse(round, stopReason);
    const outcomes = [...round.calls.values()].map(
      ({ block, name }) =>
        round.outcomes.get(block.id) ?? this.#answeredOutcome(round, block, name),
    );
    for (const outcome of outcomes) {
      const { callId, name } = outcome;
      for (const ui of outcome.events) this.#emit({ type: "ui", round: round.n, callId, name, ui });
      this.#emit({
        type: "tool-result",
        round: round.n,
        callId,
        name,
        isError: outcome.isError,
        status: outcome.status,
        resultText: outcome.resultText,
      });
    }
    const endMs = this.#ms(round);
    const tools = [...round.tools.values()];
    const timings: RoundTimings = {
      startedAt: round.startedAt,
      blocks: round.blocks.map(({ block, atMs }, index) => ({
        index,
        kind: block.type,
        ...(block.type === "tool_use" ? { callId: block.id, name: block.name } : {}),
        startMs: index === 0 ? (round.firstEventMs ?? 0) : round.blocks[index - 1]!.atMs,
        stopMs: atMs,
      })),
      tools,
      endMs,
    };
    if (round.firstEventMs !== undefined) timings.firstEventMs = round.firstEventMs;
    if (round.firstToolStartMs !== undefined) timings.firstToolStartMs = round.firstToolStartMs;
    if (round.streamEndMs !== undefined) {
      timings.streamEndMs = round.streamEndMs;
      // The same figure as the streamed path: 0 here, as no tool starts before the response ends.
      const saved = savedMsOf(timings);
      if (saved !== undefined) timings.savedMs = saved;
    }
    const final = round.stopReason ?? stopReason;
    this.#stopReason = final;
    this.#emit({
      type: "round-end",
      round: round.n,
      stopReason: final,
      usage: round.usage,
      timings,
    });
    await this.#store(round, outcomes);
  }

  /** The outcome of a call the CLI answered without running it here (e.g. invalid arguments). */
  #answeredOutcome(round: Round, block: ToolUseBlock, name: string): ToolOutcome {
    const answer = round.answered.get(block.id);
    if (!answer || round.stopReason === "error") {
      return failedOutcome(
        block.id,
        name,
        "not_executed",
        `${name} was not run: the response was cut off before it ended.`,
      );
    }
    if (!answer.isError) {
      return {
        callId: block.id,
        name,
        status: "ok",
        resultText: answer.text,
        events: [],
        isError: false,
      };
    }
    const status = /invalid|validation/i.test(answer.text) ? "invalid_input" : "error";
    return failedOutcome(block.id, name, status, answer.text);
  }

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
      this.#error ??=
        err instanceof OverlapError
          ? err
          : new OverlapError("storage_error", "The conversation could not be saved.", {
              cause: err,
            });
      // The round is not stored: nothing more may happen in this turn.
      this.#controller.abort();
    }
  }

  #ms(round: Round): number {
    return Math.round(this.#now() - round.t0);
  }

  #emit(event: AgentEvent): void {
    emitTo(this.#options, event);
  }
}

function emitTo(options: AgentSdkTurnOptions, event: AgentEvent): void {
  try {
    options.sink(options.agent && !event.agent ? { ...event, agent: options.agent } : event);
  } catch {
    // A failing sink (a closed connection) must not stop the turn.
  }
}

/** The conversation as the Messages API takes it (other providers' fields left out). */
function claudeMessages(messages: readonly Message[], model: string): unknown[] {
  return anthropicParams({ messages, tools: [] }, { model }).messages;
}

/** A block as the shop stores it: tool names without the MCP prefix the CLI gives them. */
function localBlock(block: AssistantContentBlock): AssistantContentBlock {
  if (block.type === "tool_use" && block.name.startsWith(PREFIX)) {
    return { ...block, name: block.name.slice(PREFIX.length) };
  }
  return block;
}

/** The call id the CLI sends with an MCP tool call. */
function toolUseIdOf(extra: unknown): string | undefined {
  const meta = (extra as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const id = meta?.["claudecode/toolUseId"];
  return typeof id === "string" ? id : undefined;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((b) =>
      b && typeof b === "object" && (b as { type?: unknown }).type === "text"
        ? [String((b as { text?: unknown }).text ?? "")]
        : [],
    )
    .join("\n");
}

function withoutNulls(usage: Partial<Usage>): Partial<Usage> {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null)) as Partial<Usage>;
}

function stateOf(outcome: ToolOutcome): "done" | "failed" | "cancelled" {
  if (outcome.status === "ok") return "done";
  return outcome.status === "interrupted" ||
    outcome.status === "not_executed" ||
    outcome.status === "declined"
    ? "cancelled"
    : "failed";
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
