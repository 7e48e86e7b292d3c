import { readUIMessageStream, type UIMessageChunk } from "ai";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { toUIMessages } from "../agent/ai-sdk-messages.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import { toUIMessageStream } from "../sse/ui-message-stream.js";
import { toolCallOf } from "../stream/tool-call.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool, type ToolOutput } from "./define-tool.js";
import { ToolExecutor } from "./tool-executor.js";

const weather = defineTool({
  name: "weather",
  description: "Today's weather.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, sky: "sunny", celsius: 21 }),
});
const cities = defineTool({
  name: "cities",
  description: "Known cities.",
  input: z.object({}),
  run: async () => ["Paris", "Oslo"],
});
const note = defineTool({
  name: "note",
  description: "A note.",
  input: z.object({}),
  run: () => "noted",
});
const full = defineTool({
  name: "full",
  description: "A full result.",
  input: z.object({}),
  run: () => ({ text: "2 left", data: { left: 2 }, events: [{ type: "stock", left: 2 }] }),
});
const call = (name: string, id = "c1") =>
  toolCallOf({ type: "tool_use", id, name, input: name === "weather" ? { city: "Paris" } : {} });

describe("a tool's result as data", () => {
  it("an object or array goes to the model as JSON text and stays data on the outcome", async () => {
    const executor = new ToolExecutor([weather, cities, note, full]);
    const w = await executor.execute(call("weather"));
    expect(w).toMatchObject({ status: "ok", output: { city: "Paris", sky: "sunny", celsius: 21 } });
    expect(JSON.parse(w.resultText)).toEqual(w.output);
    const c = await executor.execute(call("cities"));
    expect(c).toMatchObject({ resultText: '["Paris","Oslo"]', output: ["Paris", "Oslo"] });
    expect(await executor.execute(call("note"))).toMatchObject({
      resultText: "noted",
      output: "noted",
    });
    expect(await executor.execute(call("full"))).toMatchObject({
      resultText: "2 left",
      output: { left: 2 },
      events: [{ type: "stock", left: 2 }],
    });
  });

  it("the type of output follows from the tool", () => {
    expectTypeOf<ToolOutput<typeof weather>>().toEqualTypeOf<{
      city: string;
      sky: string;
      celsius: number;
    }>();
    expectTypeOf<ToolOutput<typeof cities>>().toEqualTypeOf<string[]>();
    expectTypeOf<ToolOutput<typeof note>>().toEqualTypeOf<string>();
    expectTypeOf<ToolOutput<typeof full>>().toEqualTypeOf<{ left: number }>();
  });

  it("an object that only looks like a result is data; data JSON cannot hold is an internal error", async () => {
    const looks = defineTool({
      name: "looks",
      description: "",
      input: z.object({}),
      run: () => ({ text: 42, events: "none" }),
    });
    const cyclic = defineTool({
      name: "cyclic",
      description: "",
      input: z.object({}),
      run: () => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      },
    });
    const executor = new ToolExecutor([looks, cyclic], { logger: false });
    expect(await executor.execute(call("looks"))).toMatchObject({
      resultText: '{"text":42,"events":"none"}',
      output: { text: 42, events: "none" },
    });
    const bad = await executor.execute(call("cyclic"));
    expect(bad.status).toBe("error");
    expect(bad.error).toBeInstanceOf(TypeError);
  });

  it("reaches the tool-result event, the AI SDK's UI stream as the object, and toUIMessages", async () => {
    const events: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model: fakeModel([
        buildStreamEvents([
          { type: "tool_use", id: "c1", name: "weather", input: { city: "Paris" } },
          { type: "tool_use", id: "c2", name: "note", input: {} },
        ]),
        buildStreamEvents([{ type: "text", text: "Sunny." }]),
      ]),
      executor: new ToolExecutor([weather, note]),
      messages: [{ role: "user", content: "weather?" }],
      sink: (e) => events.push(e),
    });
    const results = events.filter((e) => e.type === "tool-result");
    expect(results[0]).toMatchObject({ output: { city: "Paris", sky: "sunny", celsius: 21 } });
    expect(results[1]).not.toHaveProperty("output");
    expect(turn.rounds[0]?.outcomes[0]?.output).toEqual({
      city: "Paris",
      sky: "sunny",
      celsius: 21,
    });

    async function* source() {
      yield* events;
    }
    let last: unknown;
    for await (const message of readUIMessageStream({
      stream: toUIMessageStream(source()) as ReadableStream<UIMessageChunk>,
    })) {
      last = message;
    }
    const parts = (last as { parts: { type: string; output?: unknown }[] }).parts;
    expect(parts.find((p) => p.type === "tool-weather")?.output).toEqual({
      city: "Paris",
      sky: "sunny",
      celsius: 21,
    });
    expect(parts.find((p) => p.type === "tool-note")?.output).toBe("noted");
    const restored = toUIMessages(turn.messages)[1]?.parts.find((p) => p.type === "tool-weather");
    expect(restored).toMatchObject({ output: { city: "Paris", sky: "sunny", celsius: 21 } });
  });
});
