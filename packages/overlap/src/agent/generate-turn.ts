/**
 * The one-call form of a turn, for scripts and jobs that need no live events: the AI SDK's
 * `generateText`, in overlap's words. Everything streams and runs as in `runAgentTurn` (tools
 * still start as soon as their arguments are complete); the caller reads the result at the end.
 */

import type { OverlapError } from "../errors.js";
import type { StopReason } from "../protocol/stop-reason.js";
import type { Usage } from "../protocol/usage.js";
import type { RoundResult } from "../round/streamed-round.js";
import type { Message } from "../stream/message.js";
import type { AnyTool, ContextOfTools } from "../tools/define-tool.js";
import type { AgentEventSinkOf } from "../tools/tool-events.js";
import { ToolExecutor, type ToolExecutorOptionsArg } from "../tools/tool-executor.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { type AgentTurnOptions, runAgentTurn } from "./run-agent-turn.js";
import type { OutputOf, OutputSchema } from "./structured-output.js";

/**
 * Options of {@link generateTurn}: those of `runAgentTurn`, with the sink optional and the tools
 * given either as an executor or as a plain list (`tools`, run by a default executor).
 */
export type GenerateTurnOptions<
  T extends AnyTool = AnyTool,
  S extends OutputSchema = OutputSchema,
> = Omit<AgentTurnOptions<T, S>, "sink" | "executor"> & {
  /** Receives the turn's events, if wanted (default: none). */
  sink?: AgentEventSinkOf<T>;
} & (
    | {
        // biome-ignore lint/suspicious/noExplicitAny: the loop is agnostic of the host context.
        executor: ToolExecutor<any, T>;
        tools?: never;
      }
    | ({
        executor?: never;
        /** The tools, run by a `ToolExecutor` with default options; none when absent. */
        tools?: readonly T[];
      } & (unknown extends ContextOfTools<T>
        ? { context?: undefined }
        : {
            /** The host context the tools declare (`ToolContext<C>`), given to the executor. */
            context: ContextOfTools<T>;
          }))
  );

/** What {@link generateTurn} gives back. */
export interface GeneratedTurn<O = unknown> {
  /** The text of the turn's last assistant message (its text blocks joined). */
  text: string;
  /** The `output` schema's object, when one was asked for and the answer validated. */
  output?: O;
  /** The whole conversation after the turn, to continue with a plain append. */
  messages: Message[];
  /** The messages this turn added. */
  added: Message[];
  /** Every tool call's outcome, over all rounds, in call order. */
  toolResults: ToolOutcome[];
  /** Token usage summed over the rounds. */
  usage: Usage;
  stopReason: StopReason;
  rounds: RoundResult[];
  /** Why the turn ended early or has no valid output (never thrown). */
  error?: OverlapError;
}

/**
 * Runs a turn to its end and returns its text, structured output, messages, tool results and
 * usage in one value. Never rejects: failures are in `error`.
 *
 * ```ts
 * const { text, output } = await generateTurn({ model, tools: [weather], messages, output: Plan });
 * ```
 */
export async function generateTurn<T extends AnyTool = AnyTool, S extends OutputSchema = never>(
  options: GenerateTurnOptions<T, S>,
): Promise<GeneratedTurn<OutputOf<S>>> {
  const { tools, sink, executor, context, ...rest } = options as GenerateTurnOptions<T, S> & {
    context?: unknown;
  };
  const turn = await runAgentTurn<T, S>({
    ...(rest as Omit<AgentTurnOptions<T, S>, "sink" | "executor">),
    executor:
      executor ??
      new ToolExecutor<unknown, T>(
        tools ?? [],
        ...([context !== undefined ? { context } : {}] as ToolExecutorOptionsArg<unknown, T>),
      ),
    sink: sink ?? (() => {}),
  });
  const last = turn.added.findLast((message) => message.role === "assistant");
  const text =
    last?.role === "assistant"
      ? last.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")
      : "";
  const result: GeneratedTurn<OutputOf<S>> = {
    text,
    messages: turn.messages,
    added: turn.added,
    toolResults: turn.rounds.flatMap((round) => round.outcomes),
    usage: turn.usage,
    stopReason: turn.stopReason,
    rounds: turn.rounds,
  };
  if (turn.output !== undefined) result.output = turn.output;
  if (turn.error) result.error = turn.error;
  return result;
}
