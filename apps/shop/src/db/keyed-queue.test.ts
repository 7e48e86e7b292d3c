import { describe, expect, it } from "vitest";
import { KeyedQueue } from "./keyed-queue.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("KeyedQueue", () => {
  it("runs tasks of one key one at a time in call order, whatever their durations", async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    const task = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await sleep(ms);
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      queue.run("s", task("a", 30)),
      queue.run("s", task("b", 10)),
      queue.run("s", task("c", 0)),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(queue.activeKeys).toBe(0);
  });

  it("lets different keys overlap", async () => {
    const queue = new KeyedQueue();
    const events: string[] = [];
    await Promise.all([
      queue.run("x", async () => {
        events.push("x start");
        await sleep(20);
        events.push("x end");
      }),
      queue.run("y", async () => {
        events.push("y start");
        events.push("y end");
      }),
    ]);
    expect(events.indexOf("y end")).toBeLessThan(events.indexOf("x end"));
  });

  it("keeps going after a failed task and reports the failure to its caller only", async () => {
    const queue = new KeyedQueue();
    const failed = queue.run("s", async () => {
      throw new Error("boom");
    });
    const next = queue.run("s", async () => "fine");
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe("fine");
  });
});
