import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import { toolCallOf } from "../stream/tool-call.js";
import { defineJsonSchemaTool } from "./define-json-schema-tool.js";
import { type ContextOfTools, defineTool, type ToolContext } from "./define-tool.js";
import { ToolExecutor } from "./tool-executor.js";

interface Shop {
  orders: Map<string, string>;
}
interface Session {
  userId: string;
}

const plain = defineTool({
  name: "get_weather",
  description: "Weather.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => `sunny in ${city}`,
});
const lookup = defineTool({
  name: "lookup_order",
  description: "An order.",
  input: z.object({ id: z.string() }),
  run: ({ id }, ctx: ToolContext<Shop>) => ctx.context.orders.get(id) ?? "unknown",
});
const whoAmI = defineTool({
  name: "who_am_i",
  description: "The user.",
  input: z.object({}),
  run: (_input, ctx: ToolContext<Session>) => ctx.context.userId,
});
const jsonTool = defineJsonSchemaTool({
  name: "json_lookup",
  description: "An order.",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
  run: (input, ctx: ToolContext<Shop>) => ctx.context.orders.get(String(input.id)) ?? "unknown",
});
const shop: Shop = { orders: new Map([["o-1", "shipped"]]) };

describe("ToolExecutor requires the context its tools declare, at compile time", () => {
  it("needs no options when no tool declares a context", () => {
    expectTypeOf<ContextOfTools<typeof plain>>().toEqualTypeOf<unknown>();
    expect(new ToolExecutor([plain]).specs()).toHaveLength(1);
    expect(new ToolExecutor([plain], { defaultTimeoutMs: 5 }).specs()).toHaveLength(1);
  });

  it("requires `context` of the declared type when a tool declares one", () => {
    expectTypeOf<ContextOfTools<typeof plain | typeof lookup>>().toEqualTypeOf<Shop>();
    // @ts-expect-error the tool reads ctx.context: the executor needs one
    void (() => new ToolExecutor([plain, lookup]));
    // @ts-expect-error options without `context`
    void (() => new ToolExecutor([plain, lookup], { defaultTimeoutMs: 5 }));
    // @ts-expect-error a context of another type
    void (() => new ToolExecutor([lookup], { context: { userId: "u" } }));
    // @ts-expect-error JSON Schema tools declare theirs the same way
    void (() => new ToolExecutor([jsonTool]));
    expect(new ToolExecutor([plain, lookup, jsonTool], { context: shop }).specs()).toHaveLength(3);
  });

  it("requires what every tool declares when tools declare different contexts", () => {
    expectTypeOf<ContextOfTools<typeof lookup | typeof whoAmI>>().toEqualTypeOf<Shop & Session>();
    // @ts-expect-error the session is missing
    void (() => new ToolExecutor([lookup, whoAmI], { context: shop }));
    const both = new ToolExecutor([lookup, whoAmI], { context: { ...shop, userId: "u" } });
    expect(both.specs().map((s) => s.name)).toEqual(["lookup_order", "who_am_i"]);
  });

  it("an executor typed by its context alone still takes the context", () => {
    // @ts-expect-error `ToolExecutor<Shop>` holds tools of that context: it needs one
    void (() => new ToolExecutor<Shop>([lookup]));
    expect(new ToolExecutor<Shop>([lookup], { context: shop }).specs()).toHaveLength(1);
  });
});

describe("a context a tool reads but the executor lacks is named at run time", () => {
  // What plain JavaScript (or a cast) can still do: no context given.
  const untyped = (tools: readonly unknown[]) =>
    new (
      ToolExecutor as unknown as new (
        tools: readonly unknown[],
        options?: object,
      ) => ToolExecutor
    )(tools);
  const call = toolCallOf({
    type: "tool_use",
    id: "call_1",
    name: "lookup_order",
    input: { id: "o-1" },
  });

  it("logs the tool's exception with a sentence naming the `context` option", async () => {
    const logger = { error: vi.fn(), warn: vi.fn() };
    const outcome = await untyped([lookup]).withLogger(logger).execute(call);
    expect(outcome.status).toBe("error");
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(logger.error).toHaveBeenCalledOnce();
    const [message, thrown] = logger.error.mock.calls[0] ?? [];
    expect(message).toContain("lookup_order");
    expect(message).toContain("ctx.context");
    expect(message).toContain("new ToolExecutor(tools, { context })");
    expect(thrown).toBe(outcome.error);
  });

  it("says nothing of the context when the tool did not read it, or had one", async () => {
    const logger = { error: vi.fn(), warn: vi.fn() };
    const broken = defineTool({
      name: "lookup_order",
      description: "Fails.",
      input: z.object({ id: z.string() }),
      run: () => {
        throw new TypeError("a bug of its own");
      },
    });
    await untyped([broken]).withLogger(logger).execute(call);
    const failing = defineTool({
      name: "lookup_order",
      description: "Fails after reading its context.",
      input: z.object({ id: z.string() }),
      run: (_input, ctx: ToolContext<Shop>) => {
        void ctx.context.orders;
        throw new TypeError("another bug");
      },
    });
    await new ToolExecutor([failing], { context: shop, logger }).execute(call);
    expect(logger.error).toHaveBeenCalledTimes(2);
    for (const [message] of logger.error.mock.calls) expect(message).not.toContain("ctx.context");
  });

  it("a tool that reads a context given works as before", async () => {
    const outcome = await new ToolExecutor([lookup], { context: shop }).execute(call);
    expect(outcome.resultText).toBe("shipped");
  });
});
