import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool } from "./define-tool.js";
import type { AgentEventOf } from "./tool-events.js";
import { ToolExecutor } from "./tool-executor.js";

const weather = defineTool({
  name: "weather",
  description: "Today's weather.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, celsius: 21 }),
});
const search = defineTool({
  name: "search",
  description: "Searches.",
  input: z.object({ query: z.string(), limit: z.number().optional() }),
  run: ({ query }) => [query],
});

describe("a turn's events typed per tool", () => {
  it("tool-call and tool-result are discriminated by name, with each tool's input and output", async () => {
    const inputs: unknown[] = [];
    const outputs: unknown[] = [];
    await runAgentTurn({
      model: fakeModel([
        buildStreamEvents([
          { type: "tool_use", id: "c1", name: "weather", input: { city: "Oslo" } },
        ]),
        buildStreamEvents([{ type: "text", text: "Rain." }]),
      ]),
      executor: new ToolExecutor([weather, search]),
      messages: [{ role: "user", content: "weather?" }],
      sink: (event) => {
        if (event.type === "tool-call" && event.name === "weather") {
          expectTypeOf(event.input).toEqualTypeOf<{ city: string }>();
          inputs.push(event.input.city);
        }
        if (event.type === "tool-call" && event.name === "search") {
          expectTypeOf(event.input).toEqualTypeOf<{ query: string; limit?: number | undefined }>();
        }
        if (event.type === "tool-result" && event.name === "weather") {
          expectTypeOf(event.output).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
          outputs.push(event.output?.celsius);
        }
        if (event.type === "tool-result" && event.name === "search") {
          expectTypeOf(event.output).toEqualTypeOf<string[] | undefined>();
        }
      },
    });
    expect(inputs).toEqual(["Oslo"]);
    expect(outputs).toEqual([21]);
  });

  it("tools without literal names, and sinks typed AgentEvent, keep the plain events", () => {
    expectTypeOf<AgentEventOf<typeof weather | typeof search>>().toMatchTypeOf<AgentEvent>();
    // biome-ignore lint/suspicious/noExplicitAny: an executor typed by its context only.
    const plain = new ToolExecutor<any>([weather]);
    const sink = (event: AgentEvent): void => void event;
    void runAgentTurn({ model: fakeModel([]), executor: plain, messages: [], sink });
    void runAgentTurn({
      model: fakeModel([]),
      executor: new ToolExecutor([weather]),
      messages: [],
      sink,
    });
  });
});
