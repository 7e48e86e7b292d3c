import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalRequest } from "../protocol/approval.js";
import { defineTool } from "../tools/define-tool.js";
import { InMemoryApprovals } from "./in-memory-approvals.js";

const request = (callId: string): ApprovalRequest => ({
  callId,
  name: "checkout",
  input: {},
  summary: "Order 2 items.",
});

describe("InMemoryApprovals", () => {
  it("resolves the waiting call once; a second answer finds it ended, an unknown id is unknown", async () => {
    const approvals = new InMemoryApprovals();
    const waiting = approvals.wait("a", new AbortController().signal, request("a"));
    expect(approvals.pending()).toEqual([request("a")]);
    expect(approvals.isWaiting("a")).toBe(true);
    expect(approvals.decide("a", { approve: false, reason: "later" })).toEqual({
      status: "resolved",
    });
    await expect(waiting).resolves.toEqual({ approve: false, reason: "later" });
    expect(approvals.decide("a", { approve: true })).toEqual({
      status: "ended",
      decision: "declined",
    });
    expect(approvals.decide("b", { approve: true })).toEqual({ status: "unknown" });
    expect(approvals.pending()).toEqual([]);
  });

  it("an abort ends the wait: a timeout is told apart from a cancel", async () => {
    const approvals = new InMemoryApprovals();
    const timedOut = new AbortController();
    const cancelled = new AbortController();
    const a = approvals.wait("a", timedOut.signal, request("a"));
    const b = approvals.wait("b", cancelled.signal, request("b"));
    timedOut.abort(new DOMException("late", "TimeoutError"));
    cancelled.abort();
    await expect(a).rejects.toMatchObject({ name: "TimeoutError" });
    await expect(b).rejects.toBeDefined();
    expect(approvals.decide("a", { approve: true })).toEqual({
      status: "ended",
      decision: "timeout",
    });
    expect(approvals.decide("b", { approve: true })).toEqual({
      status: "ended",
      decision: "cancelled",
    });
  });

  it("refuses a second wait for the same call, and closes by declining what waits", async () => {
    const approvals = new InMemoryApprovals();
    const signal = new AbortController().signal;
    const first = approvals.wait("a", signal, request("a"));
    await expect(approvals.wait("a", signal, request("a"))).rejects.toThrow(/already requested/);
    approvals.close();
    await expect(first).resolves.toEqual({ approve: false });
    await expect(approvals.wait("c", signal, request("c"))).rejects.toThrow(/closed/);
  });
});

describe("defineTool approval", () => {
  it("accepts required or a predicate, and refuses anything else", () => {
    const base = { name: "t", description: "", input: z.object({}), run: () => "ok" };
    expect(defineTool({ ...base, approval: "required" }).requiresApproval?.({}, undefined)).toBe(
      true,
    );
    expect(defineTool(base).requiresApproval).toBeUndefined();
    expect(() => defineTool({ ...base, approval: "always" as "required" })).toThrow(TypeError);
  });
});
