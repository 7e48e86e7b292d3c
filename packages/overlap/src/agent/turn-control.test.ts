import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { runAgentTurn } from "./run-agent-turn.js";
import { hasToolCall, roundCountIs, type StopCondition } from "./turn-control.js";
import { validateConversation } from "./validate-conversation.js";

const ran: string[] = [];
const tool = (name: string) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    input: z.object({}),
    run: () => {
      ran.push(name);
      return `${name} done`;
    },
  });
const executor = new ToolExecutor([tool("search"), tool("answer")]);
const calls = (name: string, id: string) =>
  buildStreamEvents([{ type: "tool_use", id, name, input: {} }]);
const text = buildStreamEvents([{ type: "text", text: "Done." }]);
const user = [{ role: "user" as const, content: "go" }];

describe("loop control", () => {
  it("stopWhen: a round count, a tool that was called, any predicate; the turn ends valid, without error", async () => {
    for (const [stopWhen, requests] of [
      [roundCountIs(2), 2],
      [hasToolCall("answer"), 2],
      [[({ rounds }) => rounds.length >= 1, roundCountIs(5)], 1],
    ] as [StopCondition | StopCondition[], number][]) {
      const model = fakeModel([
        calls("search", "c1"),
        calls("answer", "c2"),
        calls("search", "c3"),
        text,
      ]);
      const turn = await runAgentTurn({
        model,
        executor,
        messages: user,
        sink: () => {},
        stopWhen,
      });
      expect(model.requests).toHaveLength(requests);
      expect(turn.error).toBeUndefined();
      expect(turn.stopReason).toBe("tool_use");
      expect(validateConversation(turn.messages)).toEqual([]);
    }
  });

  it("prepareRound: another model, system prompt and offered tools per round", async () => {
    const first = fakeModel([calls("search", "c1")]);
    const second = fakeModel([text]);
    const turn = await runAgentTurn({
      model: first,
      executor,
      messages: user,
      system: "Base.",
      sink: () => {},
      prepareRound: ({ round, rounds }) =>
        round === 1
          ? { activeTools: ["search"] }
          : { model: second, system: `After ${rounds.length} round.`, activeTools: [] },
    });
    expect(turn.error).toBeUndefined();
    expect(first.requests[0]?.tools.map((t) => t.name)).toEqual(["search"]);
    expect(first.requests[0]?.system).toBe("Base.");
    expect(second.requests[0]?.tools).toEqual([]);
    expect(second.requests[0]?.system).toBe("After 1 round.");
  });

  it("a prepareRound that throws ends the turn with an error, never a rejection", async () => {
    const turn = await runAgentTurn({
      model: fakeModel([text]),
      executor,
      messages: user,
      sink: () => {},
      prepareRound: () => {
        throw new Error("no");
      },
    });
    expect(turn.error?.code).toBe("callback_error");
  });

  it("turn.usage sums the rounds' usage", async () => {
    const turn = await runAgentTurn({
      model: fakeModel([calls("search", "c1"), text]),
      executor,
      messages: user,
      sink: () => {},
    });
    const each = turn.rounds.map((r) => r.usage);
    expect(turn.usage.input_tokens).toBe(each.reduce((n, u) => n + (u.input_tokens ?? 0), 0));
    expect(turn.usage.output_tokens).toBe(each.reduce((n, u) => n + (u.output_tokens ?? 0), 0));
    expect(turn.usage.input_tokens).toBeGreaterThan(each[0]?.input_tokens ?? 0);
  });
});
