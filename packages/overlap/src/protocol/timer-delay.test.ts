import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_TIMER_MS, timerDelay } from "./timer-delay.js";

describe("timerDelay", () => {
  it("passes a delay a timer can hold unchanged, and clamps a negative one to 0", () => {
    expect(timerDelay(0)).toBe(0);
    expect(timerDelay(1_500)).toBe(1_500);
    expect(timerDelay(MAX_TIMER_MS - 1)).toBe(MAX_TIMER_MS - 1);
    expect(timerDelay(-5)).toBe(0);
  });

  it("sets no timer for a wait no timer can hold (it would fire at once)", () => {
    expect(timerDelay(MAX_TIMER_MS)).toBeUndefined();
    expect(timerDelay(2 ** 40)).toBeUndefined();
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(timerDelay(Number.NaN)).toBeUndefined();
  });

  it("never returns a delay setTimeout would cut short", () => {
    fc.assert(
      fc.property(fc.double(), (ms) => {
        const delay = timerDelay(ms);
        if (delay === undefined) return !(ms < MAX_TIMER_MS);
        return delay >= 0 && delay < MAX_TIMER_MS && (ms < 0 || delay === ms);
      }),
    );
  });
});
