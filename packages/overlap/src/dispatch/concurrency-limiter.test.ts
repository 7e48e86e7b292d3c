import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter } from "./concurrency-limiter.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs one task per delay through the limiter, all asked for at once, as p-limit's tests do: what
 * started when, how many ran at most, and in which order they ended.
 */
async function runAll(limit: number, delays: readonly number[]) {
  const limiter = new ConcurrencyLimiter(limit);
  const started: number[] = [];
  const ended: number[] = [];
  const queued: boolean[] = [];
  let active = 0;
  let most = 0;
  await Promise.all(
    delays.map(async (ms, i) => {
      const slot = limiter.acquire();
      queued.push(slot.queued);
      await slot.granted;
      started.push(i);
      active++;
      most = Math.max(most, active);
      expect(limiter.active).toBeLessThanOrEqual(limit);
      await sleep(ms);
      active--;
      ended.push(i);
      limiter.release();
    }),
  );
  return { started, ended, queued, most, limiter };
}

const limits = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(Number.POSITIVE_INFINITY));

describe("ConcurrencyLimiter", () => {
  it("property: random delays: tasks start in call order, never more than the limit at once, the limit used in full", async () => {
    await fc.assert(
      fc.asyncProperty(
        limits,
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 12 }),
        async (limit, delays) => {
          const { started, queued, most, limiter } = await runAll(limit, delays);
          const order = delays.map((_, i) => i);
          expect(started).toEqual(order);
          expect(most).toBeLessThanOrEqual(limit);
          // All were asked for at once: the first `limit` ran at once, together.
          expect(most).toBe(Math.min(limit, delays.length));
          expect(queued).toEqual(order.map((i) => i >= limit));
          expect(limiter.active).toBe(0);
          expect(limiter.pending).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("property: reversed delays (the first slowest): starts keep call order, ends follow the delays", async () => {
    await fc.assert(
      fc.asyncProperty(limits, fc.integer({ min: 2, max: 8 }), async (limit, n) => {
        const delays = Array.from({ length: n }, (_, i) => (n - i) * 3);
        const { started, ended, most } = await runAll(limit, delays);
        expect(started).toEqual(delays.map((_, i) => i));
        expect(most).toBeLessThanOrEqual(limit);
        // One at a time ends in call order; all at once in reverse.
        if (limit === 1) expect(ended).toEqual(started);
        if (limit >= n) expect(ended).toEqual([...started].reverse());
      }),
      { numRuns: 20 },
    );
  });

  it("hands a freed slot to the longest waiter, never letting a newcomer past", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const order: string[] = [];
    expect(limiter.acquire().queued).toBe(false);
    const waiting = ["b", "c"].map((tag) => limiter.acquire().granted.then(() => order.push(tag)));
    limiter.release();
    // Asked for after the release: the slot went to "b", so this one queues behind "c".
    const late = limiter.acquire();
    expect(late.queued).toBe(true);
    void late.granted.then(() => order.push("late"));
    await waiting[0];
    limiter.release();
    await waiting[1];
    limiter.release();
    await late.granted;
    expect(order).toEqual(["b", "c", "late"]);
  });

  it("admitAll grants every waiter at once, in order, and each release gives its slot back", async () => {
    const limiter = new ConcurrencyLimiter(2);
    limiter.acquire();
    limiter.acquire();
    const order: number[] = [];
    const waiters = [0, 1, 2].map((i) => limiter.acquire().granted.then(() => order.push(i)));
    limiter.admitAll();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2]);
    expect(limiter.active).toBe(5);
    expect(limiter.pending).toBe(0);
    for (let i = 0; i < 5; i++) limiter.release();
    expect(limiter.active).toBe(0);
    expect(limiter.acquire().queued).toBe(false);
  });

  it("refuses a limit that would queue every call forever", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ConcurrencyLimiter(bad)).toThrow(RangeError);
    }
    expect(() => new ConcurrencyLimiter()).not.toThrow();
  });
});
