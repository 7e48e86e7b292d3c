import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { Message } from "../stream/message.js";
import { streamFixtures } from "../testing/fixtures.js";
import { replayChunked, splitFrames, splitSeeded } from "../testing/replay.js";
import { buildStreamEvents, replayEvents } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { StreamedRound } from "./streamed-round.js";

/** Tools named like the fixtures' calls; each records its runs. */
function fixtureTools() {
  const runs: string[] = [];
  const tool = (name: string) =>
    defineTool({
      name,
      description: "",
      input: z.looseObject({}),
      run: async (_input, ctx) => {
        runs.push(ctx.callId);
        await new Promise((r) => setTimeout(r, 1));
        return `${name} ok`;
      },
    });
  const executor = new ToolExecutor(["add_to_cart", "cart_total", "search_catalog"].map(tool));
  return { runs, executor };
}

async function relayChunks(chunks: readonly string[], sse: string) {
  const tools = fixtureTools();
  const seen: AgentEvent[] = [];
  const round = new StreamedRound({
    executor: tools.executor,
    sink: (e) => seen.push(e),
    previewIntervalMs: 0,
  });
  const result = await round.relay(replayEvents(replayChunked(sse, chunks)));
  const dispatched = seen
    .filter((e) => e.type === "tool-call")
    .map((e) => (e as { callId: string }).callId);
  return { result, seen, dispatched, runs: tools.runs };
}

describe("recorded streams through StreamedRound, in many chunkings", () => {
  for (const fixture of streamFixtures) {
    it(`${fixture.name}: same message, same dispatch order, every call run once and answered`, async () => {
      const whole = await relayChunks([fixture.sse], fixture.sse);
      const expectedIds = fixture.expected.toolCalls.filter((c) => !c.server).map((c) => c.callId);
      expect(whole.dispatched).toEqual(expectedIds);
      for (let seed = 1; seed <= 25; seed++) {
        const run = await relayChunks(
          splitSeeded(fixture.sse, seed, 1 + (seed % 5) * 13),
          fixture.sse,
        );
        expect(run.result.assistant, `seed ${seed}`).toEqual(whole.result.assistant);
        expect(run.dispatched, `seed ${seed}`).toEqual(whole.dispatched);
        expect(run.result.outcomes.map((o) => [o.callId, o.status])).toEqual(
          whole.result.outcomes.map((o) => [o.callId, o.status]),
        );
        // exactly once: a call runs at most once, and only calls of the message run
        expect(new Set(run.runs).size).toBe(run.runs.length);
        for (const id of run.runs) expect(expectedIds).toContain(id);
        // every local call is answered, in call order, and the continuation is valid
        const calls = run.result.assistant.content
          .filter((b) => b.type === "tool_use")
          .map((b) => b.id);
        expect(run.result.outcomes.map((o) => o.callId)).toEqual(calls);
        const conversation: Message[] = [{ role: "user", content: "go" }];
        if (run.result.assistant.content.length > 0) conversation.push(run.result.assistant);
        if (run.result.toolResults) conversation.push(run.result.toolResults);
        expect(validateConversation(conversation)).toEqual([]);
      }
    });
  }

  it("invalid JSON, schema failure and an unknown tool: the model is told what happened, nothing ran", async () => {
    const { runs, executor } = fixtureTools();
    const strict = defineTool({
      name: "set_quantity",
      description: "",
      input: z.object({ quantity: z.number().int().min(1).max(10) }),
      run: () => {
        runs.push("set_quantity");
        return "set";
      },
    });
    const tools = new ToolExecutor([strict, ...["add_to_cart"].map((n) => executor.tool(n)!)]);
    const events = buildStreamEvents([
      {
        type: "tool_use",
        id: "t_json",
        name: "add_to_cart",
        input: '{"sku": "A", "quantity": 2,}',
      },
      { type: "tool_use", id: "t_schema", name: "set_quantity", input: { quantity: 99 } },
      { type: "tool_use", id: "t_unknown", name: "teleport", input: { to: "moon" } },
    ]);
    const round = new StreamedRound({ executor: tools, sink: () => {} });
    const result = await round.relay(replayEvents(events));
    expect(runs).toEqual([]);
    const content = result.toolResults?.content;
    if (!Array.isArray(content)) throw new Error("no tool results");
    const texts = content.map((b) =>
      b.type === "tool_result" ? [b.tool_use_id, b.is_error, b.content] : [],
    );
    expect(texts[0]).toEqual(["t_json", true, expect.stringContaining("not valid JSON")]);
    expect(texts[0]?.[2]).toContain('\\"quantity\\": 2,}'); // the raw text, JSON-quoted
    expect(texts[1]).toEqual(["t_schema", true, expect.stringMatching(/quantity/)]);
    expect(texts[2]).toEqual([
      "t_unknown",
      true,
      expect.stringContaining('no tool named "teleport"'),
    ]);
  });

  it("the display events of a whole stream and of one frame per chunk are identical", async () => {
    for (const fixture of streamFixtures) {
      const a = await relayChunks([fixture.sse], fixture.sse);
      const b = await relayChunks(splitFrames(fixture.sse), fixture.sse);
      // tool-status and round-end carry times; everything else must match exactly
      const strip = (seen: AgentEvent[]) =>
        seen.filter((e) => e.type !== "tool-status" && e.type !== "round-end");
      expect(strip(b.seen), fixture.name).toEqual(strip(a.seen));
    }
  });
});
