import type { AgentEvent } from "overlap-runtime";
import { describe, expect, it } from "vitest";
import { TurnRegistry } from "./turn-registry.js";

const done: AgentEvent = { type: "done", rounds: 1, stopReason: "end_turn" };

describe("TurnRegistry", () => {
  it("runs one turn per session: a second start while running is refused", async () => {
    const turns = new TurnRegistry();
    let finish: () => void = () => {};
    const log = turns.start(
      "s1",
      (t) =>
        new Promise<void>((resolve) => {
          finish = () => {
            t.emit(done);
            resolve();
          };
        }),
    );
    expect(log).toBeDefined();
    expect(turns.start("s1", async () => {})).toBeUndefined();
    expect(turns.start("s2", async (t) => t.emit(done))).toBeDefined();
    finish();
    const events = [];
    for await (const e of log!.read()) events.push(e.event.type);
    expect(events).toEqual(["done"]);
    expect(turns.running("s1")).toBe(false);
    expect(turns.start("s1", async (t) => t.emit(done))).toBeDefined();
  });

  it("cancel aborts the turn's signal and waits for it to end; the log keeps the last turn", async () => {
    const turns = new TurnRegistry();
    turns.start("s", async (t) => {
      await new Promise<void>((resolve) => t.signal.addEventListener("abort", () => resolve()));
      t.emit({ type: "error", code: "aborted", message: "The request was cancelled." });
      t.emit({ type: "done", rounds: 0, stopReason: "error" });
    });
    expect(await turns.cancel("s")).toBe(true);
    expect(turns.running("s")).toBe(false);
    expect(turns.log("s")?.size).toBe(2);
    expect(await turns.cancel("s")).toBe(false);
  });

  it("a turn body that throws still ends its log with a masked error and done", async () => {
    const errors: unknown[] = [];
    const turns = new TurnRegistry({ onError: (e) => errors.push(e) });
    const log = turns.start("s", async () => {
      throw new Error("database password wrong: hunter2");
    });
    const events = [];
    for await (const e of log!.read()) events.push(e.event);
    expect(events.map((e) => e.type)).toEqual(["error", "done"]);
    expect(JSON.stringify(events)).not.toContain("hunter2");
    expect(errors).toHaveLength(1);
  });

  it("forgets a finished turn's log after the retention time, never a running or newer one", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const turns = new TurnRegistry({ retainMs: 100 });
    turns.start("s", async (t) => t.emit(done));
    await sleep(10);
    expect(turns.log("s")).toBeDefined();
    await sleep(150);
    expect(turns.log("s")).toBeUndefined();

    let release: () => void = () => {};
    const running = turns.start(
      "s",
      (t) =>
        new Promise<void>((resolve) => {
          release = () => {
            t.emit(done);
            resolve();
          };
        }),
    );
    await sleep(150);
    expect(turns.log("s")).toBe(running); // still running: kept
    release(); // its timer fires 100 ms from now
    await sleep(50);
    const newer = turns.start("s", async (t) => t.emit(done)); // its timer: 100 ms from now
    await sleep(75);
    expect(turns.log("s")).toBe(newer); // the older turn's timer fired and left the newer log
  });
});
