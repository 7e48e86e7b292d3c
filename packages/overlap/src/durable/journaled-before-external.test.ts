import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OverlapError } from "../errors.js";
import type { ToolCall } from "../stream/tool-call.js";
import { defineTool, type ToolContext } from "../tools/define-tool.js";
import { journaledBeforeExternal } from "./journaled-before-external.js";

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const call = (id: string): ToolCall =>
  ({ id, name: "notify", round: 1, index: 0, raw: "{}", input: null, block: {} }) as ToolCall;
const ctx = (callId: string) => ({ callId }) as ToolContext<unknown>;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

function notifyTool(runs: string[]) {
  return defineTool({
    name: "notify",
    description: "Sends a notification.",
    input: z.object({}),
    effects: "external",
    run: (_input, context) => {
      runs.push(context.callId);
      return "sent";
    },
  });
}

describe("journaledBeforeExternal", () => {
  it("runs an external call only once its journal row is written", async () => {
    const write = deferred();
    const journal = journaledBeforeExternal({ callComplete: () => write.promise });
    const runs: string[] = [];
    const tool = journal.gate(notifyTool(runs));
    void journal.callComplete(call("a"));
    const result = tool.run({}, ctx("a"));
    await tick();
    expect(runs).toEqual([]);
    write.resolve();
    expect(await result).toBe("sent");
    expect(runs).toEqual(["a"]);
  });

  it("does not run a call whose journal row could not be written", async () => {
    const journal = journaledBeforeExternal({
      callComplete: () => Promise.reject(new Error("database down")),
    });
    const runs: string[] = [];
    const tool = journal.gate(notifyTool(runs));
    void Promise.resolve(journal.callComplete(call("a"))).catch(() => undefined);
    const error = await Promise.resolve(tool.run({}, ctx("a"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OverlapError);
    expect((error as OverlapError).code).toBe("storage_error");
    expect(runs).toEqual([]);
  });

  it("waits for each call's own write, and keeps the tool's declaration", async () => {
    const writes = new Map([
      ["a", deferred()],
      ["b", deferred()],
    ]);
    const ended: string[] = [];
    const journal = journaledBeforeExternal({
      callComplete: (c) => writes.get(c.id)?.promise,
      roundEnd: (_round, calls) => void ended.push(...calls.map((c) => c.id)),
    });
    const runs: string[] = [];
    const original = notifyTool(runs);
    const tool = journal.gate(original);
    expect({ ...tool, run: undefined }).toEqual({ ...original, run: undefined });
    void journal.callComplete(call("a"));
    void journal.callComplete(call("b"));
    const a = tool.run({}, ctx("a"));
    const b = tool.run({}, ctx("b"));
    writes.get("b")?.resolve();
    await b;
    expect(runs).toEqual(["b"]);
    writes.get("a")?.resolve();
    await a;
    expect(runs).toEqual(["b", "a"]);
    await journal.roundEnd?.(1, [call("a")]);
    expect(ended).toEqual(["a"]);
  });
});
