import { describe, expect, it } from "vitest";
import { RoundClock } from "../round/round-clock.js";
import { savedMsOf, type ToolTiming } from "./round-timings.js";

const tool = (startMs: number, endMs: number, readyMs = startMs): ToolTiming => ({
  callId: `toolu_${startMs}_${endMs}`,
  name: "t",
  readyMs,
  startMs,
  endMs,
  status: "done",
});

describe("savedMsOf", () => {
  it("a tool that ran during the stream saves the part of it the stream covered", () => {
    // Stream ends at 100; the tool ran 40..70: waiting would have ended at 130, it ended at 100.
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(40, 70)] })).toBe(30);
    // Still running after the stream: 40..150, waiting would end at 210.
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(40, 150)] })).toBe(60);
  });

  it("parallel tools: the latest end of the shifted schedule against the latest real end", () => {
    // Shifted: 100+30=130 and 100+80=180; real: max(100, 70, 140) = 140.
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(40, 70), tool(60, 140)] })).toBe(40);
  });

  it("is 0 when every tool started after the stream (deferred, approval, whole path)", () => {
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(101, 160)] })).toBe(0);
    // A call that waited 5 s for approval keeps its own start; the eager one still saved.
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(5_100, 5_110), tool(50, 90)] })).toBe(0);
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(5_100, 5_110), tool(50, 5_200)] })).toBe(50);
  });

  it("a call that failed or was cancelled saves nothing, even when it started early", () => {
    const cancelled = { ...tool(40, 100), status: "cancelled" };
    const failed = { ...tool(30, 90), status: "failed" };
    // The stream broke at 100 and cancelled the running call: nothing was early.
    expect(savedMsOf({ streamEndMs: 100, tools: [cancelled] })).toBe(0);
    expect(savedMsOf({ streamEndMs: 100, tools: [failed, cancelled] })).toBe(0);
    // Beside a call that succeeded early, only that call's head start counts.
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(40, 70), cancelled] })).toBe(30);
    // A failed call that ends last still bounds the real end: the success's saving is covered.
    expect(
      savedMsOf({
        streamEndMs: 100,
        tools: [tool(40, 70), { ...tool(50, 140), status: "failed" }],
      }),
    ).toBe(0);
  });

  it("calls of one sequence would have run one after another: the saving counts the chain", () => {
    const cart = (startMs: number, endMs: number, readyMs = startMs): ToolTiming => ({
      ...tool(startMs, endMs, readyMs),
      sequence: "cart",
    });
    // Two 300 ms changes and a quick total; the first ran while the model still wrote, the second
    // started at its own block stop, the total waited its turn (queued) until 1_960.
    const ran = [cart(1_240, 1_540), cart(1_660, 1_960), cart(1_960, 1_962, 1_677)];
    // Had they waited for the stream (1_677): 1_677-1_977, 1_977-2_277, 2_277-2_279.
    expect(savedMsOf({ streamEndMs: 1_677, tools: ran })).toBe(2_279 - 1_962);
    // Without the sequence the same figures would claim they could all run at once.
    const free = ran.map(({ sequence: _, ...t }) => t);
    expect(savedMsOf({ streamEndMs: 1_677, tools: free })).toBe(1_977 - 1_962);
    // A call outside the sequence runs beside it as before.
    expect(savedMsOf({ streamEndMs: 100, tools: [cart(40, 70), cart(70, 90), tool(50, 60)] })).toBe(
      150 - 100,
    );
  });

  it("is never negative, and undefined without a stream end or a tool that ran", () => {
    expect(savedMsOf({ streamEndMs: 100, tools: [tool(100.004, 100.01)] })).toBe(0);
    expect(savedMsOf({ streamEndMs: 100, tools: [] })).toBeUndefined();
    expect(savedMsOf({ tools: [tool(1, 2)] })).toBeUndefined();
    expect(
      savedMsOf({ streamEndMs: 100, tools: [{ callId: "a", name: "t", readyMs: 50 }] }),
    ).toBeUndefined();
  });
});

describe("RoundClock", () => {
  it("firstTokenMs is the first block's start, after the first event; end() sets savedMs", () => {
    let now = 0;
    const clock = new RoundClock(() => now);
    now = 10;
    clock.event();
    now = 25;
    clock.blockStart(0, "text");
    now = 30;
    clock.blockStart(1, "tool_use", "toolu_1", "search");
    clock.toolStatus("toolu_1", "search", "running");
    now = 60;
    clock.toolStatus("toolu_1", "search", "done");
    now = 80;
    clock.streamEnd();
    now = 81;
    const t = clock.end();
    expect(t).toMatchObject({
      firstEventMs: 10,
      firstTokenMs: 25,
      firstToolStartMs: 30,
      streamEndMs: 80,
      endMs: 81,
      savedMs: 30,
    });
  });

  it("no block: no firstTokenMs", () => {
    const clock = new RoundClock(() => 0);
    clock.event();
    clock.streamEnd();
    expect(clock.end().firstTokenMs).toBeUndefined();
  });
});
