import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../agent/model-client.js";
import type { ModelOutputFormat } from "../agent/structured-output.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { AnswerToolText, outputThroughTool } from "./output-through-tool.js";

const output: ModelOutputFormat = {
  name: "final_answer",
  description: "The answer.",
  schema: { type: "object", properties: { a: { type: "string" } } },
};
const search = { name: "search", description: "s", input_schema: { type: "object" } };
const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: "hi" }],
  tools: [search],
  output,
  ...extra,
});

async function collect(source: AsyncIterable<readonly StreamEvent[]>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const batch of source) out.push(...batch);
  return out;
}
const signal = new AbortController().signal;

describe("outputThroughTool", () => {
  it("offers the answer tool after the request's tools and picks the tool choice", async () => {
    const cases: Array<[Partial<ModelRequest>, unknown]> = [
      [{}, "required"],
      [{ toolChoice: "auto" }, "required"],
      [{ toolChoice: "none" }, { type: "tool", toolName: "final_answer" }],
      [{ tools: [] }, { type: "tool", toolName: "final_answer" }],
      [{ toolChoice: { type: "tool", toolName: "search" } }, { type: "tool", toolName: "search" }],
    ];
    for (const [extra, expected] of cases) {
      const inner = fakeModel([buildStreamEvents([{ type: "text", text: "x" }])]);
      await collect(outputThroughTool(inner).stream(request(extra), { signal }));
      const sent = inner.requests[0];
      expect(sent?.toolChoice, JSON.stringify(extra)).toEqual(expected);
      expect(sent?.tools.at(-1)).toEqual({
        name: "final_answer",
        description: "The answer.",
        input_schema: output.schema,
      });
      expect(sent).not.toHaveProperty("output");
    }
  });

  it("leaves the choice to the model where forcing is not allowed, and passes requests without output", async () => {
    const inner = fakeModel([
      buildStreamEvents([{ type: "text", text: "x" }]),
      buildStreamEvents([{ type: "text", text: "y" }]),
    ]);
    const client = outputThroughTool(inner, { mayForce: () => false });
    await collect(client.stream(request(), { signal }));
    expect(inner.requests[0]).not.toHaveProperty("toolChoice");
    const plain = { messages: request().messages, tools: [search] };
    await collect(client.stream(plain, { signal }));
    expect(inner.requests[1]).toEqual(plain);
  });

  it("streams the answer tool's input as a text block and ends the turn", async () => {
    const inner = fakeModel([
      buildStreamEvents([{ type: "tool_use", id: "t1", name: "final_answer", input: { a: "b" } }]),
    ]);
    const events = await collect(outputThroughTool(inner).stream(request(), { signal }));
    expect(
      events.some((e) => e.type === "content_block_start" && e.content_block.type === "tool_use"),
    ).toBe(false);
    const text = events
      .flatMap((e) =>
        e.type === "content_block_delta" && e.delta.type === "text_delta" ? [e.delta.text] : [],
      )
      .join("");
    expect(JSON.parse(text)).toEqual({ a: "b" });
    const stop = events.find((e) => e.type === "message_delta");
    expect(stop).toMatchObject({ delta: { stop_reason: "end_turn" } });
  });

  it("keeps a round that also called another tool a tool round", () => {
    const translator = new AnswerToolText("final_answer");
    const out = buildStreamEvents([
      { type: "tool_use", id: "t1", name: "search", input: {} },
      { type: "tool_use", id: "t2", name: "final_answer", input: { a: "b" } },
    ]).map((e) => translator.push(e));
    const starts = out.flatMap((e) =>
      e.type === "content_block_start" ? [e.content_block.type] : [],
    );
    expect(starts).toEqual(["tool_use", "text"]);
    expect(out.find((e) => e.type === "message_delta")).toMatchObject({
      delta: { stop_reason: "tool_use" },
    });
  });
});
