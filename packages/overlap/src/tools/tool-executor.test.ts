import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import { type ToolCall, toolCallOf } from "../stream/tool-call.js";
import { defineTool } from "./define-tool.js";
import { ToolError } from "./tool-error.js";
import { ToolExecutor } from "./tool-executor.js";

const call = (name: string, value: Record<string, unknown>, id = "call_1"): ToolCall =>
  toolCallOf({ type: "tool_use", id, name, input: value });

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number(), b: z.number().max(100) }),
  run: ({ a, b }) => ({ data: { sum: a + b }, events: [{ type: "sum", value: a + b }] }),
});

describe("defineTool", () => {
  it("derives the JSON Schema the model sees from the zod schema", () => {
    expect(add.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number", maximum: 100 } },
      required: ["a", "b"],
    });
    expect(add.inputSchema).not.toHaveProperty("$schema");
    expect(add.kind).toBe("handler");
    expect(add.dispatch).toBe("eager");
  });

  it("rejects names the APIs would refuse, non-object inputs and deferred display tools", () => {
    const base = { description: "x", input: z.object({}), run: () => "" };
    expect(() => defineTool({ ...base, name: "has space" })).toThrow(/Tool "has space": its name/);
    expect(() => defineTool({ ...base, name: "ok", input: z.string() as never })).toThrow(/object/);
    expect(() =>
      defineTool({ ...base, name: "card", kind: "display", dispatch: "deferred" }),
    ).toThrow(/deferred/);
  });
});

describe("ToolExecutor.execute", () => {
  it("runs a handler and returns its result text and UI events", async () => {
    const outcome = await new ToolExecutor([add]).execute(call("add", { a: 2, b: 3 }));
    expect(outcome).toEqual({
      callId: "call_1",
      name: "add",
      status: "ok",
      resultText: '{"sum":5}',
      output: { sum: 5 },
      events: [{ type: "sum", value: 5 }],
      isError: false,
    });
  });

  it("reports an unknown tool without throwing, naming the tools that exist", async () => {
    const outcome = await new ToolExecutor([add]).execute(call("multiply", {}));
    expect(outcome.status).toBe("unknown_tool");
    expect(outcome.isError).toBe(true);
    expect(outcome.resultText).toContain("add");
  });

  it("validates input with the schema and never runs the tool on invalid input", async () => {
    const run = vi.fn(() => "ran");
    const tool = defineTool({
      name: "t",
      description: "",
      input: z.object({ qty: z.number().int().min(1) }),
      run,
    });
    const outcome = await new ToolExecutor([tool]).execute(call("t", { qty: 0 }));
    expect(outcome.status).toBe("invalid_input");
    expect(outcome.resultText).toMatch(/qty/);
    expect(run).not.toHaveBeenCalled();
  });

  it("says what failed the schema as data: codes, paths and bounds, no prose", async () => {
    const tool = defineTool({
      name: "order",
      description: "",
      input: z.object({
        qty: z.number().int().min(1).max(10),
        size: z.string(),
        colour: z.enum(["navy", "black"]).optional(),
        lines: z.array(z.object({ id: z.string() })),
        tags: z.array(z.string()).max(2),
      }),
      run: () => "ran",
    });
    const outcome = await new ToolExecutor([tool]).execute(
      call("order", { qty: 11, colour: "red", lines: [{ id: 1 }], tags: ["a", "b", "c"] }),
    );
    expect(outcome.status).toBe("invalid_input");
    expect(outcome.problem?.code).toBe("invalid_input");
    const issues = outcome.problem?.params?.issues as Record<string, unknown>[];
    expect(issues).toEqual(
      expect.arrayContaining([
        { code: "too_big", path: ["qty"], origin: "number", maximum: 10, inclusive: true },
        { code: "invalid_type", path: ["size"], expected: "string", missing: true },
        { code: "invalid_value", path: ["colour"], values: ["navy", "black"] },
        { code: "invalid_type", path: ["lines", 0, "id"], expected: "string" },
        { code: "too_big", path: ["tags"], origin: "array", maximum: 2, inclusive: true },
      ]),
    );
    expect(issues).toHaveLength(5);
    // Every issue is plain data: it survives JSON (the SSE wire, the ledger) unchanged.
    expect(JSON.parse(JSON.stringify(outcome.problem))).toEqual(outcome.problem);
  });

  it("a tool's problem travels with its result, and implies an error result", async () => {
    const problem = { code: "insufficient_stock", params: { productId: "p-1", available: 2 } };
    const tools = [
      defineTool({
        name: "returned",
        description: "",
        input: z.object({}),
        run: () => ({ text: "Only 2 left.", problem }),
      }),
      defineTool({
        name: "thrown",
        description: "",
        input: z.object({}),
        run: () => {
          throw new ToolError("Only 2 left.", problem);
        },
      }),
      defineTool({
        name: "soft",
        description: "",
        input: z.object({}),
        run: () => ({ text: "Added, but only 2 left.", problem, isError: false }),
      }),
    ];
    const executor = new ToolExecutor(tools);
    for (const name of ["returned", "thrown"]) {
      const outcome = await executor.execute(call(name, {}));
      expect(outcome).toMatchObject({ status: "error", isError: true, problem });
    }
    expect(await executor.execute(call("soft", {}))).toMatchObject({ status: "ok", problem });
    const unknown = await executor.execute(call("nope", {}));
    expect(unknown.problem).toEqual({ code: "unknown_tool", params: { name: "nope" } });
  });

  it("shows a ToolError's message but masks unexpected exceptions", async () => {
    const onUnexpectedError = vi.fn();
    const tools = [
      defineTool({
        name: "expected",
        description: "",
        input: z.object({}),
        run: () => {
          throw new ToolError("Only 2 left in stock.");
        },
      }),
      defineTool({
        name: "bug",
        description: "",
        input: z.object({}),
        run: async () => {
          throw new Error("connection to 10.0.0.5 refused: password=hunter2");
        },
      }),
    ];
    const executor = new ToolExecutor(tools, { onUnexpectedError });
    const expected = await executor.execute(call("expected", {}));
    expect(expected).toMatchObject({
      status: "error",
      isError: true,
      resultText: "Only 2 left in stock.",
    });
    const bug = await executor.execute(call("bug", {}));
    expect(bug.status).toBe("error");
    expect(bug.resultText).not.toContain("hunter2");
    expect(bug.resultText).toContain("internal error");
    expect(onUnexpectedError).toHaveBeenCalledOnce();
  });

  it("times out a slow tool, aborting its signal", async () => {
    let seen: AbortSignal | undefined;
    const slow = defineTool({
      name: "slow",
      description: "",
      input: z.object({}),
      timeoutMs: 20,
      run: (_input, ctx) => {
        seen = ctx.signal;
        return new Promise<string>(() => {}); // never settles and ignores the signal
      },
    });
    const outcome = await new ToolExecutor([slow], { abortGraceMs: 5 }).execute(call("slow", {}));
    expect(outcome.status).toBe("timeout");
    expect(outcome.resultText).toContain("20 ms");
    expect(seen?.aborted).toBe(true);
  });

  it("reports interrupted when the caller aborts a running tool", async () => {
    const controller = new AbortController();
    const stoppable = defineTool({
      name: "stoppable",
      description: "",
      input: z.object({}),
      run: (_input, ctx) =>
        new Promise<string>((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    });
    const pending = new ToolExecutor([stoppable]).execute(call("stoppable", {}), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 5);
    const outcome = await pending;
    expect(outcome.status).toBe("interrupted");
    expect(outcome.isError).toBe(true);
  });

  it("keeps the real result of a tool that finishes within the abort grace (its effect happened)", async () => {
    const controller = new AbortController();
    const finishing = defineTool({
      name: "finishing",
      description: "",
      input: z.object({}),
      run: (_input, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => setTimeout(() => resolve("committed"), 1));
        }),
    });
    const pending = new ToolExecutor([finishing], { abortGraceMs: 50 }).execute(
      call("finishing", {}),
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 5);
    expect(await pending).toMatchObject({ status: "ok", resultText: "committed" });
  });

  it("does not start a tool whose signal is already aborted", async () => {
    const run = vi.fn(() => "ran");
    const tool = defineTool({ name: "t", description: "", input: z.object({}), run });
    const outcome = await new ToolExecutor([tool]).execute(call("t", {}), {
      signal: AbortSignal.abort(),
    });
    expect(outcome.status).toBe("not_executed");
    expect(run).not.toHaveBeenCalled();
  });

  it("gives display tools a short default result and passes the host context", async () => {
    const card = defineTool<z.ZodObject<{ sku: z.ZodString }>, { currency: string }>({
      name: "show_card",
      description: "",
      kind: "display",
      input: z.object({ sku: z.string() }),
      run: ({ sku }, ctx) => ({ events: [{ type: "card", sku, currency: ctx.context.currency }] }),
    });
    const outcome = await new ToolExecutor([card], { context: { currency: "EUR" } }).execute(
      call("show_card", { sku: "A" }),
    );
    expect(outcome.resultText).toBe("Shown to the user.");
    expect(outcome.events).toEqual([{ type: "card", sku: "A", currency: "EUR" }]);
  });

  it("tags events a delegate forwards with the parent call id", async () => {
    const delegate = defineTool({
      name: "ask_merchant",
      description: "",
      kind: "delegate",
      input: z.object({ q: z.string() }),
      run: ({ q }, ctx) => {
        ctx.emit({ type: "text-delta", round: 1, index: 0, text: `merchant thinks about ${q}` });
        return "Restock on Friday.";
      },
    });
    const seen: AgentEvent[] = [];
    const outcome = await new ToolExecutor([delegate]).execute(
      call("ask_merchant", { q: "socks" }, "call_9"),
      {
        emit: (e) => seen.push(e),
      },
    );
    expect(outcome.resultText).toBe("Restock on Friday.");
    expect(seen).toEqual([
      {
        type: "text-delta",
        round: 1,
        index: 0,
        text: "merchant thinks about socks",
        parentCallId: "call_9",
      },
    ]);
  });

  it("lists tool specs for the model", () => {
    expect(new ToolExecutor([add]).specs()).toEqual([
      { name: "add", description: "Adds two numbers.", input_schema: add.inputSchema },
    ]);
  });

  it("drops events a tool emits after its outcome was returned (nothing after done)", async () => {
    let late: (() => void) | undefined;
    const leaky = defineTool({
      name: "leaky",
      description: "",
      kind: "delegate",
      input: z.object({}),
      run: (_input, ctx) => {
        late = () => ctx.emit({ type: "text-delta", round: 1, index: 0, text: "late" });
        return "ok";
      },
    });
    const seen: AgentEvent[] = [];
    await new ToolExecutor([leaky]).execute(call("leaky", {}), { emit: (e) => seen.push(e) });
    late?.();
    expect(seen).toEqual([]);
  });

  it("an unbounded timeout sets no timer (setTimeout would fire at once past 2^31-1 ms)", async () => {
    const tool = defineTool({
      name: "patient",
      description: "",
      input: z.object({}),
      timeoutMs: Number.POSITIVE_INFINITY,
      run: async () => {
        await new Promise((r) => setTimeout(r, 20));
        return "finished";
      },
    });
    expect(await new ToolExecutor([tool]).execute(call("patient", {}))).toMatchObject({
      status: "ok",
    });
  });

  it("does not run a tool when the start notification cancels the call", async () => {
    const run = vi.fn(() => "ran");
    const tool = defineTool({ name: "t", description: "", input: z.object({}), run });
    const controller = new AbortController();
    const outcome = await new ToolExecutor([tool]).execute(call("t", {}), {
      signal: controller.signal,
      onStart: () => controller.abort(),
    });
    expect(outcome.status).toBe("not_executed");
    expect(run).not.toHaveBeenCalled();
  });
});

describe("ToolExecutor: idempotency keys and declared effects", () => {
  const keyed = defineTool({
    name: "pay",
    description: "Pays.",
    input: z.object({}),
    effects: "external",
    run: (_input, ctx) => ctx.idempotencyKey,
  });

  it("gives each call the key the host derives, whatever the provider's call id", async () => {
    const executor = new ToolExecutor([keyed], {
      idempotencyKey: (c) => `chat-7/${c.round}/${c.index}`,
    });
    const first = toolCallOf(
      { type: "tool_use", id: "call_0", name: "pay", input: {} },
      { round: 1, index: 0 },
    );
    const second = toolCallOf(
      { type: "tool_use", id: "call_0", name: "pay", input: {} },
      { round: 2, index: 0 },
    );
    expect((await executor.execute(first)).resultText).toBe("chat-7/1/0");
    expect((await executor.execute(second)).resultText).toBe("chat-7/2/0");
    // The same call asked again (a retry) gets the same key.
    expect((await executor.execute(first)).resultText).toBe("chat-7/1/0");
  });

  it("falls back to the call id without a key function, and keeps the declared effects", async () => {
    const executor = new ToolExecutor([keyed]);
    expect((await executor.execute(call("pay", {}, "toolu_9"))).resultText).toBe("toolu_9");
    expect(keyed.effects).toBe("external");
    expect(add.effects).toBeUndefined();
  });
});
