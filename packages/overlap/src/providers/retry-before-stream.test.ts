import { describe, expect, it } from "vitest";
import { retryDelayMs, sleepUnlessAborted } from "./retry-before-stream.js";

describe("retryDelayMs", () => {
  it("honours retry-after-ms first, then retry-after in seconds, at most a minute", () => {
    expect(retryDelayMs(0, { retryAfterMs: "250", retryAfter: "3" })).toBe(250);
    expect(retryDelayMs(0, { retryAfter: "3" })).toBe(3000);
    expect(retryDelayMs(0, { retryAfterMs: "x", retryAfter: "2" })).toBe(2000);
    expect(retryDelayMs(0, { retryAfter: "600" })).toBe(60_000);
    expect(retryDelayMs(0, { retryAfterMs: "90000" })).toBe(60_000);
  });

  it("backs off exponentially from 500 ms, at most 8 s, without a usable hint", () => {
    expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, {}))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryDelayMs(1, { retryAfter: "-1" })).toBe(1000);
    expect(retryDelayMs(1, { retryAfter: "soon" })).toBe(1000);
  });

  it("takes an absent (null from Headers.get) or empty header as no hint: backs off", () => {
    expect(retryDelayMs(3, { retryAfter: null })).toBe(4000);
    expect(retryDelayMs(0, { retryAfterMs: "", retryAfter: " " })).toBe(500);
    expect(retryDelayMs(0, { retryAfter: "0" })).toBe(0);
  });
});

describe("sleepUnlessAborted", () => {
  it("is true when the wait runs out", async () => {
    await expect(sleepUnlessAborted(1, new AbortController().signal)).resolves.toBe(true);
  });

  it("is false at once when aborted before or during the wait", async () => {
    await expect(sleepUnlessAborted(60_000, AbortSignal.abort())).resolves.toBe(false);
    const controller = new AbortController();
    const slept = sleepUnlessAborted(60_000, controller.signal);
    controller.abort();
    await expect(slept).resolves.toBe(false);
  });
});
