/**
 * A delegate tool: hands a task to another agent running on the same runtime and
 * returns that agent's final answer. The inner agent's events stream to the display channel live,
 * tagged with the parent call id, and its tools obey the parent's AbortSignal.
 */

import type { z } from "zod";
import type { Message } from "../stream/message.js";
import {
  defineTool,
  type Tool,
  type ToolContext,
  type ToolInputSchema,
} from "../tools/define-tool.js";
import { ToolError } from "../tools/tool-error.js";
import type { AgentTurnOptions } from "./run-agent-turn.js";
import { runAgentTurn } from "./run-agent-turn.js";

/** What the inner agent runs with; the sink, signal and messages are supplied by the delegate. */
export type DelegateAgent = Omit<AgentTurnOptions, "sink" | "signal" | "messages"> & {
  /** The inner conversation's first user message, built from the call's input. */
  prompt: string;
};

/** The definition passed to {@link defineDelegateTool}. */
export interface DelegateToolConfig<S extends ToolInputSchema, C> {
  name: string;
  description: string;
  input: S;
  timeoutMs?: number;
  /** Builds the inner agent's turn from the call's input and context. */
  agent(input: z.output<S>, ctx: ToolContext<C>): DelegateAgent | Promise<DelegateAgent>;
}

/** Defines a tool of kind `delegate` that runs another agent and returns its final text. */
export function defineDelegateTool<S extends ToolInputSchema, C = unknown>(
  config: DelegateToolConfig<S, C>,
): Tool<S, C> {
  return defineTool<S, C>({
    name: config.name,
    description: config.description,
    input: config.input,
    kind: "delegate",
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    run: async (input, ctx) => {
      const { prompt, ...agent } = await config.agent(input, ctx);
      const turn = await runAgentTurn({
        ...agent,
        messages: [{ role: "user", content: prompt }],
        sink: ctx.emit,
        signal: ctx.signal,
      });
      if (turn.error)
        throw new ToolError(
          `The ${agent.agent ?? "delegated"} agent could not answer: ${turn.error.publicMessage}`,
        );
      const answer = finalText(turn.messages);
      return answer === "" ? "The delegated agent gave no answer." : answer;
    },
  });
}

function finalText(messages: readonly Message[]): string {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return "";
  return last.content
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n")
    .trim();
}
