import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PreviewCoalescer } from "./preview-coalescer.js";

describe("PreviewCoalescer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A coalescer on the fake clock, and the previews it sent (the update's label, at what time). */
  function setup(intervalMs = 50) {
    const coalescer = new PreviewCoalescer(intervalMs, () => Date.now());
    const sent: Array<[string, number]> = [];
    const start = Date.now();
    const update = (label: string, call = "a") =>
      coalescer.update(call, () => sent.push([label, Date.now() - start]));
    return { coalescer, sent, update };
  }

  it("sends at most one preview per interval, each delta past it carrying the latest state, no timer firing while deltas flow", () => {
    const { sent, update } = setup();
    for (let t = 0; t <= 200; t += 10) {
      update(`d${t}`);
      // Every timer due by now runs: a preview sent by a timer would show at an odd time.
      vi.advanceTimersByTime(t === 200 ? 0 : 10);
    }
    expect(sent).toEqual([
      ["d0", 0],
      ["d50", 50],
      ["d100", 100],
      ["d150", 150],
      ["d200", 200],
    ]);
  });

  it("shows the last state after a pause in the deltas, within two intervals of the last preview", () => {
    const { sent, update } = setup();
    update("first");
    vi.advanceTimersByTime(10);
    update("second");
    vi.advanceTimersByTime(10);
    update("third");
    vi.advanceTimersByTime(200);
    expect(sent).toEqual([
      ["first", 0],
      ["third", 100],
    ]);
  });

  it("finish drops what is pending: nothing is sent after the call completed", () => {
    const { coalescer, sent, update } = setup();
    update("first");
    update("second");
    coalescer.finish("a");
    vi.advanceTimersByTime(500);
    expect(sent).toEqual([["first", 0]]);
  });

  it("throttles each call on its own; an interval of 0 sends every delta", () => {
    const { sent, update } = setup();
    update("a1", "a");
    update("b1", "b");
    update("a2", "a");
    expect(sent.map(([label]) => label)).toEqual(["a1", "b1"]);
    const every = setup(0);
    for (const label of ["x", "y", "z"]) every.update(label);
    expect(every.sent.map(([label]) => label)).toEqual(["x", "y", "z"]);
  });

  it("dispose drops every pending preview", () => {
    const { coalescer, sent, update } = setup();
    update("a1", "a");
    update("a2", "a");
    update("b1", "b");
    update("b2", "b");
    coalescer.dispose();
    vi.advanceTimersByTime(500);
    expect(sent.map(([label]) => label)).toEqual(["a1", "b1"]);
  });
});
