import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SequenceQueue } from "./sequence-queue.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Entry {
  sequence: "a" | "b";
  ms: number;
  /** Holds its place first and enters (or gives it up) only after every entry was noted. */
  held: boolean;
  /** A held entry that gives its place up instead of entering. */
  freed: boolean;
  /** Leaves as soon as it entered, without waiting for its turn (refused while it waited). */
  quits: boolean;
}

/**
 * Notes the entries in order (entering or holding a place), then settles the held ones in the
 * order given, while every entered one waits for its turn, runs `ms` and leaves.
 */
async function runAll(entries: readonly Entry[], settleOrder: readonly number[]) {
  const queue = new SequenceQueue();
  const started: number[] = [];
  const running = new Map<string, number>();
  let overlap = false;
  const run = async (i: number, entry: Entry) => {
    const place = queue.enter(`k${i}`, entry.sequence);
    if (entry.quits) {
      place.leave();
      return;
    }
    await place.turn;
    if (running.has(entry.sequence)) overlap = true;
    running.set(entry.sequence, i);
    started.push(i);
    await sleep(entry.ms);
    running.delete(entry.sequence);
    place.leave();
  };
  const runs: Promise<void>[] = [];
  entries.forEach((entry, i) => {
    if (entry.held) queue.hold(`k${i}`, entry.sequence);
    else runs.push(run(i, entry));
  });
  await sleep(1);
  const held = entries.map((_e, i) => i).filter((i) => entries[i]?.held);
  for (const pick of settleOrder) {
    const i = held.splice(pick % Math.max(1, held.length), 1)[0];
    if (i === undefined) continue;
    const entry = entries[i] as Entry;
    if (entry.freed) queue.free(`k${i}`);
    else runs.push(run(i, entry));
    await sleep(entry.ms % 3);
  }
  queue.freeAll();
  await Promise.all(runs);
  return { started, overlap, queue };
}

const entryArb = fc.record({
  sequence: fc.constantFrom("a" as const, "b" as const),
  ms: fc.integer({ min: 0, max: 5 }),
  held: fc.boolean(),
  freed: fc.boolean(),
  quits: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

/** The entries that ran, by sequence, in the order they were noted. */
const expectedOrder = (entries: readonly Entry[], sequence: string) =>
  entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.sequence === sequence && !(e.held && e.freed) && !e.quits)
    .map(({ i }) => i);

describe("SequenceQueue", () => {
  it("property: random delays, held places settled in random order: one at a time per sequence, in the order noted", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (entries, settleOrder) => {
          const { started, overlap } = await runAll(entries, settleOrder);
          expect(overlap).toBe(false);
          for (const sequence of ["a", "b"]) {
            const ran = started.filter((i) => entries[i]?.sequence === sequence);
            // Held places not settled by `settleOrder` were given up by freeAll.
            expect(ran).toEqual(expectedOrder(entries, sequence).filter((i) => ran.includes(i)));
          }
          // Every entry that entered ran: nothing waits forever behind a freed place.
          const entered = entries
            .map((e, i) => ({ e, i }))
            .filter(({ e }) => !e.held && !e.quits)
            .map(({ i }) => i);
          expect(entered.every((i) => started.includes(i))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("property: reversed delays (the first slowest): entries of one sequence still run in entry order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 7 }), async (n) => {
        const entries: Entry[] = Array.from({ length: n }, (_, i) => ({
          sequence: "a",
          ms: (n - i) * 2,
          held: false,
          freed: false,
          quits: false,
        }));
        const { started, overlap } = await runAll(entries, []);
        expect(overlap).toBe(false);
        expect(started).toEqual(entries.map((_, i) => i));
      }),
      { numRuns: 6 },
    );
  });

  it("a held place makes later entries wait until its holder entered and left", async () => {
    const queue = new SequenceQueue();
    queue.hold("pay", "cart");
    const after = queue.enter("after", "cart");
    let afterWent = false;
    void after.turn?.then(() => {
      afterWent = true;
    });
    await sleep(5);
    expect(afterWent).toBe(false);
    const pay = queue.enter("pay", "cart");
    expect(pay.turn).toBeUndefined();
    expect(queue.holds("pay")).toBe(false);
    await sleep(5);
    expect(afterWent).toBe(false);
    pay.leave();
    await after.turn;
    expect(afterWent).toBe(true);
  });

  it("an entry that leaves or gives its place up early lets no later one past those still ahead", async () => {
    const queue = new SequenceQueue();
    const first = queue.enter("first", "cart");
    const declined = queue.enter("declined", "cart");
    queue.hold("refused", "cart");
    const last = queue.enter("last", "cart");
    let lastWent = false;
    void last.turn?.then(() => {
      lastWent = true;
    });
    // Declined while waiting for its turn, refused at the join: "first" still runs.
    declined.leave();
    queue.free("refused");
    await sleep(5);
    expect(lastWent).toBe(false);
    first.leave();
    await last.turn;
    expect(lastWent).toBe(true);
  });

  it("sequences are independent, and an empty one has nothing ahead", async () => {
    const queue = new SequenceQueue();
    const a = queue.enter("x", "a");
    expect(a.turn).toBeUndefined();
    expect(queue.enter("y", "b").turn).toBeUndefined();
    a.leave();
    await sleep(0);
    expect(queue.enter("z", "a").turn).toBeUndefined();
  });
});
