import { describe, expect, it } from "vitest";
import {
  dispatchDelays,
  loadFigures,
  loadGoals,
  percentile,
  type TurnRecord,
} from "./load-figures.js";

describe("dispatchDelays", () => {
  it("is each running event's time minus its call's block stop, on the round's clock", () => {
    const timings = {
      blocks: [
        { stopMs: 10 }, // a text block: no call
        { callId: "a", stopMs: 100 },
        { callId: "b", stopMs: 150 },
        { callId: "c" }, // never stopped: left out
      ],
    };
    expect(
      dispatchDelays(
        [
          { callId: "a", atMs: 101 },
          { callId: "b", atMs: 170 },
          { callId: "c", atMs: 200 },
          { callId: "z", atMs: 5 },
        ],
        timings,
      ),
    ).toEqual([1, 20]);
  });
});

describe("percentile", () => {
  it("takes the nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("loadFigures and loadGoals", () => {
  const ok = (latencyMs: number, delays: number[]): TurnRecord => ({
    ok: true,
    latencyMs,
    events: 40,
    dispatchDelaysMs: delays,
  });

  it("counts failed turns as errors, not in the latencies, and divides usage by completed turns", () => {
    const turns = [
      ok(2000, [1, 2]),
      ok(2100, [3]),
      { ok: false, error: "boom", latencyMs: 5, events: 0, dispatchDelaysMs: [] },
    ];
    const figures = loadFigures({
      turns,
      loneTurnMs: 1950,
      loneShopCpuMsPerTurn: 6,
      usage: {
        shopCpuMs: 10,
        modelCpuMs: 4,
        shopRssBeforeBytes: 1024 * 1024,
        shopRssPeakBytes: 1024 * 1024 + 3 * 1024 * 50,
        wallMs: 2100,
      },
    });
    expect(figures).toMatchObject({
      conversations: 3,
      turnsCompleted: 2,
      errors: 1,
      errorSamples: ["boom"],
      turnP50Ms: 2000,
      turnP99Ms: 2100,
      dispatchP99Ms: 3,
      shopCpuMsPerTurn: 5,
      modelCpuMsPerTurn: 2,
      kibPerConversation: 50,
    });
    const goals = Object.fromEntries(loadGoals(figures).map((g) => [g.name, g.met]));
    expect(goals).toEqual({
      "zero errors at 3 conversations": false,
      "p99 turn latency within 100 ms of a lone turn": false,
      "p99 dispatch delay < 20 ms": true,
      "< 100 KiB per conversation": true,
      "shop CPU <= 5 ms per turn": true,
      "scripted model CPU <= 3 ms per turn": true,
    });
  });
});
