import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { Message } from "../stream/message.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool, type ToolContext } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { generateTurn } from "./generate-turn.js";
import { runAgentTurn } from "./run-agent-turn.js";
import { OUTPUT_TOOL_NAME, outputFormatOf, readOutput } from "./structured-output.js";
import { hasToolCall } from "./turn-control.js";

const Plan = z.object({ city: z.string(), days: z.number().int().positive() });
const user = (text: string): Message => ({ role: "user", content: text });
const textRound = (text: string) => buildStreamEvents([{ type: "text", text }]);
const search = defineTool({
  name: "search",
  description: "Searches.",
  input: z.object({ q: z.string() }),
  run: ({ q }) => `found ${q}`,
});
const searchRound = buildStreamEvents([
  { type: "tool_use", id: "toolu_1", name: "search", input: { q: "oslo" } },
]);

describe("structured output", () => {
  it("sends the schema with every round and validates the final answer into turn.output", async () => {
    const model = fakeModel([searchRound, textRound('{"city":"Oslo","days":3}')]);
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([search]),
      messages: [user("plan")],
      sink: (e) => events.push(e),
      output: Plan,
    });
    expect(turn.error).toBeUndefined();
    expect(turn.output).toEqual({ city: "Oslo", days: 3 });
    expectTypeOf(turn.output).toEqualTypeOf<{ city: string; days: number } | undefined>();
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      expect(request.output).toEqual(outputFormatOf(Plan));
      expect(request.output?.schema).toMatchObject({ type: "object", required: ["city", "days"] });
    }
    // The JSON streamed as text, like any answer.
    expect(events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(0);
  });

  it("reports an answer that does not validate as output_invalid with the raw text, never a rejection", async () => {
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model: fakeModel([textRound('{"city":"Oslo","days":-1}')]),
      executor: new ToolExecutor([]),
      messages: [user("plan")],
      sink: (e) => events.push(e),
      output: Plan,
    });
    expect(turn.output).toBeUndefined();
    expect(turn.error?.code).toBe("output_invalid");
    expect(turn.error?.details).toMatchObject({ text: '{"city":"Oslo","days":-1}' });
    expect(turn.stopReason).toBe("error");
    expect(events.at(-2)).toMatchObject({ type: "error", code: "output_invalid" });
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "error" });
    // The conversation stays whole: the answer is kept as text.
    expect(turn.messages.at(-1)).toMatchObject({ role: "assistant" });
  });

  it("reads no output when the turn stopped before the model ended it", async () => {
    const turn = await runAgentTurn({
      model: fakeModel([searchRound]),
      executor: new ToolExecutor([search]),
      messages: [user("plan")],
      sink: () => {},
      output: Plan,
      stopWhen: hasToolCall("search"),
    });
    expect(turn.error).toBeUndefined();
    expect(turn.output).toBeUndefined();
    expect(turn.stopReason).toBe("tool_use");
  });

  it("refuses an executor tool named like the answer tool, in the result", async () => {
    const clash = defineTool({
      name: OUTPUT_TOOL_NAME,
      description: "x",
      input: z.object({}),
      run: () => "x",
    });
    const model = fakeModel([]);
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([clash]),
      messages: [user("plan")],
      sink: () => {},
      output: Plan,
    });
    expect(turn.error?.code).toBe("invalid_tool_definition");
    expect(model.requests).toHaveLength(0);
  });

  it("reads the last text block, a fenced block, and rejects text that is not JSON", () => {
    const answer = (...texts: string[]): Message[] => [
      { role: "assistant", content: texts.map((text) => ({ type: "text" as const, text })) },
    ];
    expect(readOutput(answer("Here it is:", '{"city":"A","days":1}'), Plan)).toEqual({
      output: { city: "A", days: 1 },
    });
    expect(readOutput(answer('```json\n{"city":"B","days":2}\n```'), Plan)).toEqual({
      output: { city: "B", days: 2 },
    });
    const bad = readOutput(answer("no json here"), Plan);
    expect("error" in bad && bad.error.code).toBe("output_invalid");
    const none = readOutput([user("x")], Plan);
    expect("error" in none && none.error.details).toMatchObject({ text: "" });
  });
});

describe("structured output with a JSON Schema", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
    required: ["city", "days"],
    additionalProperties: false,
  } as const;

  it("sends the schema as given and validates the answer with it", async () => {
    const model = fakeModel([textRound('{"city":"Oslo","days":3}')]);
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([]),
      messages: [user("plan")],
      sink: () => {},
      output: schema,
    });
    expect(turn.error).toBeUndefined();
    expect(turn.output).toEqual({ city: "Oslo", days: 3 });
    expectTypeOf(turn.output).toEqualTypeOf<Record<string, unknown> | undefined>();
    expect(model.requests[0]?.output?.schema).toEqual(schema);
  });

  it("reports an answer the JSON Schema refuses as output_invalid, with ajv's issues", async () => {
    const turn = await runAgentTurn({
      model: fakeModel([textRound('{"city":"Oslo","days":0,"extra":1}')]),
      executor: new ToolExecutor([]),
      messages: [user("plan")],
      sink: () => {},
      output: schema,
    });
    expect(turn.error?.code).toBe("output_invalid");
    const details = turn.error?.details as { issues: Array<{ message: string }> } | undefined;
    const said = (details?.issues ?? []).map((i) => i.message).join("; ");
    expect(said).toMatch(/>= 1/);
    expect(said).toMatch(/extra/);
  });

  it("refuses a schema that is not of an object, before any request", async () => {
    const model = fakeModel([]);
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([]),
      messages: [user("plan")],
      sink: () => {},
      output: { type: "array" } as unknown as typeof schema,
    });
    expect(turn.error?.code).toBe("invalid_tool_definition");
    expect(model.requests).toHaveLength(0);
  });
});

describe("toolChoice", () => {
  it("sends the turn's choice, and prepareRound's for its round only", async () => {
    const model = fakeModel([searchRound, textRound("done")]);
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([search]),
      messages: [user("go")],
      sink: () => {},
      toolChoice: "auto",
      prepareRound: ({ round }) =>
        round === 1 ? { toolChoice: { type: "tool", toolName: "search" } } : undefined,
    });
    expect(turn.error).toBeUndefined();
    expect(model.requests.map((r) => r.toolChoice)).toEqual([
      { type: "tool", toolName: "search" },
      "auto",
    ]);
  });

  it("sends no choice when none was given", async () => {
    const model = fakeModel([textRound("hi")]);
    await runAgentTurn({
      model,
      executor: new ToolExecutor([search]),
      messages: [user("go")],
      sink: () => {},
    });
    expect(model.requests[0]).not.toHaveProperty("toolChoice");
  });

  it("ends the turn with invalid_tool_choice for a forced tool the round does not offer", async () => {
    const model = fakeModel([]);
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([search]),
      messages: [user("go")],
      sink: (e) => events.push(e),
      toolChoice: { type: "tool", toolName: "search" },
      prepareRound: () => ({ activeTools: [] }),
    });
    expect(turn.error?.code).toBe("invalid_tool_choice");
    expect(turn.error?.message).toContain('"search"');
    expect(turn.stopReason).toBe("error");
    expect(model.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "error" });
    const required = await runAgentTurn({
      model,
      executor: new ToolExecutor([]),
      messages: [user("go")],
      sink: () => {},
      toolChoice: "required",
    });
    expect(required.error?.code).toBe("invalid_tool_choice");
  });

  it("a forced tool in every round ends only through stopWhen or maxRounds", async () => {
    const model = fakeModel([searchRound, searchRound, searchRound]);
    const turn = await runAgentTurn({
      model,
      executor: new ToolExecutor([search]),
      messages: [user("go")],
      sink: () => {},
      toolChoice: { type: "tool", toolName: "search" },
      maxRounds: 2,
    });
    expect(turn.error?.code).toBe("max_rounds");
    expect(model.requests).toHaveLength(2);
  });
});

describe("generateTurn", () => {
  it("returns text, output, tool results and usage in one value, with a plain tool list", async () => {
    const result = await generateTurn({
      model: fakeModel([searchRound, textRound('{"city":"Oslo","days":3}')]),
      tools: [search],
      messages: [user("plan")],
      output: Plan,
    });
    expect(result.error).toBeUndefined();
    expect(result.text).toBe('{"city":"Oslo","days":3}');
    expect(result.output).toEqual({ city: "Oslo", days: 3 });
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; days: number } | undefined>();
    expect(result.toolResults.map((o) => [o.name, o.resultText])).toEqual([
      ["search", "found oslo"],
    ]);
    expect(result.rounds).toHaveLength(2);
    expect(result.messages).toHaveLength(4);
  });

  it("gives an empty text, not an earlier turn's, when the turn added no answer", async () => {
    const result = await generateTurn({
      model: fakeModel([]),
      messages: [user("a"), { role: "assistant", content: "old answer" }, user("b")],
      toolChoice: "required",
    });
    expect(result.error?.code).toBe("invalid_tool_choice");
    expect(result.text).toBe("");
    expectTypeOf(result.output).toEqualTypeOf<unknown>();
  });

  it("requires the context its tools declare with a plain tool list, and hands it to them", async () => {
    const whoAmI = defineTool({
      name: "who_am_i",
      description: "Names the shopper.",
      input: z.object({}),
      run: (_input, ctx: ToolContext<{ shopper: string }>) => ctx.context.shopper,
    });
    const round = buildStreamEvents([
      { type: "tool_use", id: "toolu_1", name: "who_am_i", input: {} },
    ]);
    // @ts-expect-error the tool declares a context, so a plain tool list needs it
    await generateTurn({ model: fakeModel([]), tools: [whoAmI], messages: [user("who")] });
    const result = await generateTurn({
      model: fakeModel([round, textRound("Ada.")]),
      tools: [whoAmI],
      context: { shopper: "Ada" },
      messages: [user("who")],
    });
    expect(result.toolResults.map((o) => o.resultText)).toEqual(["Ada"]);
    expect(result.text).toBe("Ada.");
  });
});
