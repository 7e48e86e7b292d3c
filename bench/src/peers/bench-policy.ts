/**
 * The scripted model's policy for `bench/peers`: the first request of a turn names its scenario
 * (`[peers:<id>]` in the user's text) and gets the scenario's response; a request ending with
 * tool results (or results then a trailing assistant text) gets the fixed final answer; "go on" (after a faulty turn) gets a short text.
 */

import type { SimBlock, SimPolicy, SimRequestMessage } from "overlap-sim";
import {
  allScenarios,
  callInput,
  finalAnswer,
  GO_ON,
  prose,
  SCENARIO_TAG,
  type Scenario,
} from "./scenarios.js";

/** The blocks of a scenario's first response, in stream order. */
export function scenarioBlocks(scenario: Scenario): SimBlock[] {
  let offset = 0;
  return scenario.plan.map((piece): SimBlock => {
    if ("text" in piece) {
      const text = prose(piece.text, offset);
      offset += piece.text;
      return { type: "text", text };
    }
    const c = scenario.calls[piece.call]!;
    return { type: "tool_use", name: c.name, input: callInput(c) };
  });
}

/** Tool results since the last user message with text: the calls of this turn. */
function resultsSinceUserText(messages: readonly SimRequestMessage[]): number {
  let results = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    results += m.content.filter((b) => b.type === "tool_result").length;
    if (m.content.some((b) => b.type === "text" && b.text.trim() !== "")) break;
  }
  return results;
}

function textOf(message: SimRequestMessage | undefined): string {
  if (!message) return "";
  return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

export function benchPolicy(): SimPolicy {
  const scenarios = new Map(allScenarios().map((s) => [s.id, s]));
  return (request) => {
    const last = request.messages.at(-1);
    const said = last?.role === "user" ? textOf(last) : "";
    // "go on" ends the user's text (some systems merge it into the previous user message).
    if (said.trim().endsWith(GO_ON)) {
      return { blocks: [{ type: "text", text: "Continuing from here." }], stopReason: "end_turn" };
    }
    // Tool results end the request, or come right before a trailing assistant message (a
    // prefill: Mastra's eager mode sends the reply's last text after the results).
    const answered = last?.role === "assistant" ? request.messages.at(-2) : last;
    if (answered?.role === "user" && answered.content.some((b) => b.type === "tool_result")) {
      const results = resultsSinceUserText(request.messages);
      return { blocks: [{ type: "text", text: finalAnswer(results) }], stopReason: "end_turn" };
    }
    const id = SCENARIO_TAG.exec(said)?.[1];
    const scenario = id === undefined ? undefined : scenarios.get(id);
    if (!scenario) {
      return {
        blocks: [{ type: "text", text: "The bench's scripted model knows no such scenario." }],
        stopReason: "end_turn",
      };
    }
    return { blocks: scenarioBlocks(scenario), stopReason: "tool_use" };
  };
}
