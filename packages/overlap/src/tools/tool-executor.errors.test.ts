import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { OverlapError } from "../errors.js";
import { toolCallOf } from "../stream/tool-call.js";
import { defineTool } from "./define-tool.js";
import { ToolExecutor } from "./tool-executor.js";

const bug = defineTool({
  name: "lookup",
  description: "Looks up.",
  input: z.object({}),
  run: (_input, ctx) => (ctx.context as { db: { find(): string } }).db.find(),
});
const call = toolCallOf({ type: "tool_use", id: "call_7", name: "lookup", input: {} });

describe("ToolExecutor reports unexpected errors where people see them", () => {
  it("logs the tool's name, the call id and the error itself (with its stack) by default", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const outcome = await new ToolExecutor([bug]).execute(call);
      expect(outcome.status).toBe("error");
      expect(error).toHaveBeenCalledOnce();
      const [message, thrown] = error.mock.calls[0] ?? [];
      expect(message).toContain("lookup");
      expect(message).toContain("call_7");
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as Error).stack).toContain("TypeError");
      // Kept on the outcome for the host; the model still reads only the masked text.
      expect(outcome.error).toBe(thrown);
      expect(outcome.resultText).not.toContain("find");
    } finally {
      error.mockRestore();
    }
  });

  it("writes to the logger given, to none with false, and leaves it to onUnexpectedError", async () => {
    const logger = { error: vi.fn(), warn: vi.fn() };
    await new ToolExecutor([bug], { logger }).execute(call);
    expect(logger.error).toHaveBeenCalledOnce();
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const quiet = await new ToolExecutor([bug], { logger: false }).execute(call);
      expect(quiet.error).toBeInstanceOf(TypeError);
      const onUnexpectedError = vi.fn();
      await new ToolExecutor([bug], { onUnexpectedError }).execute(call);
      expect(onUnexpectedError).toHaveBeenCalledOnce();
      expect(error).not.toHaveBeenCalled();
      // runAgentTurn's logger reaches an executor that has none of its own.
      const turnLogger = { error: vi.fn(), warn: vi.fn() };
      await new ToolExecutor([bug]).withLogger(turnLogger).execute(call);
      expect(turnLogger.error).toHaveBeenCalledOnce();
      await new ToolExecutor([bug], { logger }).withLogger(turnLogger).execute(call);
      expect(turnLogger.error).toHaveBeenCalledOnce();
    } finally {
      error.mockRestore();
    }
  });

  it("a failing logger does not break the call", async () => {
    const logger = {
      error: () => {
        throw new Error("log down");
      },
      warn: () => {},
    };
    const outcome = await new ToolExecutor([bug], { logger }).execute(call);
    expect(outcome.status).toBe("error");
  });

  it("two tools of one name are an OverlapError naming it", () => {
    expect(() => new ToolExecutor([bug, bug])).toThrow(OverlapError);
    expect(() => new ToolExecutor([bug, bug])).toThrow(/Two tools are named "lookup"/);
  });
});
