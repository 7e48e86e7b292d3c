/**
 * The rounds of a whole-path turn: one per model response. A response's content goes out only
 * once it has ended (one `text-delta` per text block, its `tool-call`s), then its calls may run;
 * when they are done the round closes: `ui` and `tool-result` in call order, `round-end` with the
 * timings, and its messages handed on to be stored before the next request.
 */

import type {
  AgentEvent,
  AssistantContentBlock,
  RoundTimings,
  StopReason,
  ToolExecutor,
  ToolOutcome,
  ToolUseBlock,
  Usage,
} from "overlap-runtime";
import { failedOutcome, savedMsOf } from "overlap-runtime/core";
import type { CallGates } from "./call-gates.js";
import type { TurnStatus } from "./turn-status.js";

/** A call of a response, with its block's place in it. */
export interface RoundCall {
  block: ToolUseBlock;
  index: number;
  name: string;
}

/** One model response and its calls. */
export interface Round {
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
  calls: Map<string, RoundCall>;
  outcomes: Map<string, ToolOutcome>;
  /** The results the CLI handed the model, by call id (a call it answered without us). */
  answered: Map<string, { text: string; isError: boolean }>;
  tools: Map<string, RoundTimings["tools"][number]>;
}

/** How {@link WholeRounds} is built. */
export interface WholeRoundsOptions {
  // biome-ignore lint/suspicious/noExplicitAny: the path is agnostic of the host context.
  executor: ToolExecutor<any>;
  /** Opened for a response's calls when it ends. */
  gates: CallGates;
  status: TurnStatus;
  now: () => number;
  emit: (event: AgentEvent) => void;
  /** Stores a closed round: its response and, when it had calls, the results in call order. */
  store: (round: Round, outcomes: ToolOutcome[]) => Promise<void>;
}

/** The turn's rounds, oldest first. */
export class WholeRounds {
  readonly #options: WholeRoundsOptions;
  readonly #rounds: Round[] = [];

  constructor(options: WholeRoundsOptions) {
    this.#options = options;
  }

  get count(): number {
    return this.#rounds.length;
  }

  /** The round of the latest response. */
  last(): Round | undefined {
    return this.#rounds.at(-1);
  }

  /** The round whose response holds `callId`. */
  withCall(callId: string): Round | undefined {
    return this.#rounds.find((r) => r.calls.has(callId));
  }

  /** Milliseconds since `round` started, as its timings count them. */
  ms(round: Round): number {
    return Math.round(this.#options.now() - round.t0);
  }

  /** A new response began. */
  open(): Round {
    const round: Round = {
      n: this.#rounds.length + 1,
      t0: this.#options.now(),
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
    this.#options.emit({ type: "round-start", round: round.n });
    return round;
  }

  /** The response is over: its content goes out whole, then its calls may run. */
  endResponse(round: Round, stopReason: StopReason): void {
    round.ended = true;
    round.stopReason = stopReason;
    round.streamEndMs = this.ms(round);
    for (const [index, { block }] of round.blocks.entries()) this.emitBlock(round, block, index);
    if (stopReason === "error") return;
    for (const id of round.calls.keys()) this.#options.gates.of(id).open(true);
  }

  /** One block of an ended response as the UI reads it. */
  emitBlock(round: Round, block: AssistantContentBlock, index: number): void {
    const base = { round: round.n, index };
    const { emit } = this.#options;
    if (block.type === "text" && block.text !== "") {
      emit({ type: "text-delta", ...base, text: block.text });
    } else if (block.type === "thinking" && block.thinking !== "") {
      emit({ type: "thinking-delta", ...base, thinking: block.thinking });
    } else if (block.type === "tool_use") {
      const deferred = this.#options.executor.tool(block.name)?.dispatch === "deferred";
      const dispatch =
        round.stopReason === "error"
          ? "cancelled"
          : deferred && round.stopReason !== "tool_use"
            ? "deferred"
            : "started";
      emit({
        type: "tool-call",
        ...base,
        callId: block.id,
        name: block.name,
        input: block.input,
        dispatch,
      });
    }
  }

  /** The join: results in call order, `round-end`, and the round's messages stored. */
  async close(round: Round, stopReason: StopReason): Promise<void> {
    if (round.closed) return;
    round.closed = true;
    if (!round.ended) this.endResponse(round, stopReason);
    const { emit, status } = this.#options;
    const outcomes = [...round.calls.values()].map(
      ({ block, name }) => round.outcomes.get(block.id) ?? answeredOutcome(round, block, name),
    );
    for (const outcome of outcomes) {
      const { callId, name } = outcome;
      for (const ui of outcome.events) emit({ type: "ui", round: round.n, callId, name, ui });
      emit({
        type: "tool-result",
        round: round.n,
        callId,
        name,
        isError: outcome.isError,
        status: outcome.status,
        resultText: outcome.resultText,
      });
    }
    const timings = roundTimings(round, this.ms(round));
    const final = round.stopReason ?? stopReason;
    status.stopReason = final;
    emit({
      type: "round-end",
      round: round.n,
      stopReason: final,
      usage: round.usage,
      timings,
    });
    await this.#options.store(round, outcomes);
  }
}

/** The round's timings: the blocks as their whole messages arrived, the tools as they ran. */
function roundTimings(round: Round, endMs: number): RoundTimings {
  const timings: RoundTimings = {
    startedAt: round.startedAt,
    blocks: round.blocks.map(({ block, atMs }, index) => ({
      index,
      kind: block.type,
      ...(block.type === "tool_use" ? { callId: block.id, name: block.name } : {}),
      startMs: index === 0 ? (round.firstEventMs ?? 0) : round.blocks[index - 1]!.atMs,
      stopMs: atMs,
    })),
    tools: [...round.tools.values()],
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
  return timings;
}

/** The outcome of a call the CLI answered without running it here (e.g. invalid arguments). */
function answeredOutcome(round: Round, block: ToolUseBlock, name: string): ToolOutcome {
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
