import { describe, expect, it } from "vitest";
import { WriteBatcher } from "./write-batcher.js";

/** A write that stays in flight until released, recording each group it was given. */
function gatedWrite() {
  const groups: number[][] = [];
  const gates: Array<() => void> = [];
  const fail = new Set<number>();
  return {
    groups,
    fail,
    release: () => gates.shift()?.(),
    write: (items: number[]) => {
      groups.push(items);
      return new Promise<void>((resolve, reject) => {
        gates.push(() => (items.some((i) => fail.has(i)) ? reject(new Error("down")) : resolve()));
      });
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("WriteBatcher", () => {
  it("sends a lone write at once, and groups, in order, the writes that arrive meanwhile", async () => {
    const w = gatedWrite();
    const batcher = new WriteBatcher(w.write);
    const settled: number[] = [];
    const adds = [1, 2, 3, 4].map((i) => batcher.add(i).then(() => settled.push(i)));
    await tick();
    expect(w.groups).toEqual([[1]]);
    w.release();
    await tick();
    expect(settled).toEqual([1]);
    expect(w.groups).toEqual([[1], [2, 3, 4]]);
    w.release();
    await Promise.all(adds);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  it("settles no write before its group is stored, and caps a group's size", async () => {
    const w = gatedWrite();
    const batcher = new WriteBatcher(w.write, 2);
    let done = 0;
    const adds = [1, 2, 3, 4, 5].map((i) => batcher.add(i).then(() => done++));
    await tick();
    expect(done).toBe(0);
    for (let i = 0; i < 3; i++) {
      w.release();
      await tick();
    }
    await Promise.all(adds);
    expect(w.groups).toEqual([[1], [2, 3], [4, 5]]);
    expect(done).toBe(5);
  });

  it("rejects the writes of a failed group only, and goes on with the next", async () => {
    const w = gatedWrite();
    w.fail.add(2);
    const batcher = new WriteBatcher(w.write);
    const outcome = (p: Promise<void>) =>
      p.then(
        () => "stored",
        (error: Error) => error.message,
      );
    const first = [1, 2, 3].map((i) => outcome(batcher.add(i)));
    w.release();
    await tick();
    const fourth = outcome(batcher.add(4));
    w.release();
    await tick();
    w.release();
    expect(await Promise.all([...first, fourth])).toEqual(["stored", "down", "down", "stored"]);
    expect(w.groups).toEqual([[1], [2, 3], [4]]);
  });
});
