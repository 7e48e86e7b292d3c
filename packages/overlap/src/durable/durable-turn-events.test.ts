import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { durableHolderId } from "./durable-identity.js";
import type { DurableHarness } from "./durable-store-suite.testkit.js";
import { sqliteHarness } from "./sqlite-harness.testkit.js";

/** The id of no process of this machine (as a process that ran and is gone leaves). */
function deadPid(): number {
  for (let pid = 4_194_000; pid > 1; pid--) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return pid;
    }
  }
  throw new Error("no free process id");
}

let harness: DurableHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

describe("DurableTurnEvents.read, a turn whose process is gone", () => {
  it("is ended for its readers at once, though its lease has not expired", async () => {
    harness = await sqliteHarness();
    const store = await harness.open();
    const holder = `${hostname()}/${deadPid()}/dead`;
    const turnId = "turn-of-a-dead-process";
    expect((await store.leases.claim("c1", { turnId, holder, ttlMs: 3_600_000 })).ok).toBe(true);
    const writer = await store.events.start("c1", turnId, holder);
    writer.append({ type: "round-start", round: 1 });
    await writer.flush();

    const events: AgentEvent[] = [];
    for await (const { event } of store.events.read("c1", null, AbortSignal.timeout(15_000))) {
      events.push(event);
    }
    expect(events.map((event) => event.type)).toEqual(["round-start", "error", "done"]);
    expect(events[1]).toMatchObject({ type: "error", code: "turn_crashed" });
    // The lease is gone with the turn: the chat's next message is accepted.
    expect(await store.leases.current("c1")).toBeUndefined();
    expect(await store.events.endCrashed("c1", turnId)).toBe(false);
  });

  it("is followed, not ended, while its process lives", async () => {
    harness = await sqliteHarness();
    const store = await harness.open();
    const holder = durableHolderId(); // this process: alive
    const turnId = "turn-of-a-live-process";
    await store.leases.claim("c1", { turnId, holder, ttlMs: 3_600_000 });
    const writer = await store.events.start("c1", turnId, holder);
    writer.append({ type: "round-start", round: 1 });
    await writer.flush();

    const events: AgentEvent[] = [];
    for await (const { event } of store.events.read("c1", null, AbortSignal.timeout(600))) {
      events.push(event);
    }
    expect(events.map((event) => event.type)).toEqual(["round-start"]);
    expect(await store.events.endCrashed("c1", turnId)).toBe(false);
    expect(await store.leases.current("c1")).toMatchObject({ turnId });
  });
});
