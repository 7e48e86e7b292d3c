import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { decodeSseStream } from "./decode-sse-stream.js";
import { sseResponseBody } from "./sse-response-body.js";
import { type LoggedEvent, TurnEventLog } from "./turn-event-log.js";

const text = (t: string): AgentEvent => ({ type: "text-delta", round: 1, index: 0, text: t });
const done: AgentEvent = { type: "done", roundCount: 1, stopReason: "end_turn" };

async function collect(it: AsyncIterable<LoggedEvent>): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe("TurnEventLog", () => {
  it("numbers events and replays exactly what follows any Last-Event-ID (nothing lost, nothing twice)", async () => {
    const log = new TurnEventLog("t1");
    const ids = ["a", "b", "c", "d"].map((t) => log.append(text(t)));
    log.append(done);
    log.close();
    expect(ids).toEqual(["t1:1", "t1:2", "t1:3", "t1:4"]);
    const all = await collect(log.read());
    expect(all).toHaveLength(5);
    for (let k = 0; k <= all.length; k++) {
      const after = k === 0 ? undefined : all[k - 1]?.id;
      expect(await collect(log.read(after))).toEqual(all.slice(k));
    }
  });

  it("treats an id of another turn, or garbage, as 'from the start'", async () => {
    const log = new TurnEventLog("t2");
    log.append(text("x"));
    log.close();
    for (const id of ["t1:1", "t2:abc", "nonsense", "", null]) {
      expect((await collect(log.read(id))).map((e) => e.id)).toEqual(["t2:1"]);
    }
    expect(await collect(log.read("t2:99"))).toEqual([]);
  });

  it("follows live appends until the turn closes; a reconnecting reader joins seamlessly", async () => {
    const log = new TurnEventLog("t3");
    log.append(text("1"));
    const first = new AbortController();
    const seenFirst: string[] = [];
    const reader = (async () => {
      for await (const e of log.read(undefined, first.signal)) seenFirst.push(e.id);
    })();
    await new Promise((r) => setTimeout(r, 5));
    log.append(text("2"));
    await new Promise((r) => setTimeout(r, 5));
    first.abort(); // the browser dropped; the turn goes on
    await reader;
    log.append(text("3"));
    const resumed = collect(log.read(seenFirst.at(-1)));
    log.append(done);
    log.close();
    const rest = (await resumed).map((e) => e.id);
    expect([...seenFirst, ...rest]).toEqual(["t3:1", "t3:2", "t3:3", "t3:4"]);
    expect(log.append(text("late"))).toBeUndefined();
  });

  it("serves concurrent readers the same sequence", async () => {
    const log = new TurnEventLog("t4");
    const readers = [collect(log.read()), collect(log.read()), collect(log.read())];
    for (let i = 0; i < 20; i++) {
      log.append(text(String(i)));
      if (i % 5 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    log.close();
    const [a, b, c] = await Promise.all(readers);
    expect(a).toHaveLength(20);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it("listens to a reader's signal once while it follows the log, and not after it stopped", async () => {
    /** A signal whose abort listeners are counted. */
    const counted = () => {
      const controller = new AbortController();
      const { signal } = controller;
      const listening = { adds: 0, now: 0 };
      const add = signal.addEventListener.bind(signal);
      const remove = signal.removeEventListener.bind(signal);
      signal.addEventListener = (...args: Parameters<AbortSignal["addEventListener"]>) => {
        listening.adds++;
        listening.now++;
        add(...args);
      };
      signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
        listening.now--;
        remove(...args);
      };
      return { controller, signal, listening };
    };
    const tick = () => new Promise((r) => setTimeout(r, 0));

    // Closed: the reader ends after the last event.
    const log = new TurnEventLog("t9");
    const first = counted();
    const read = collect(log.read(null, first.signal));
    for (let i = 0; i < 5; i++) {
      log.append(text(String(i)));
      await tick();
    }
    log.close();
    expect(await read).toHaveLength(5);
    expect(first.listening).toEqual({ adds: 1, now: 0 });

    // Aborted while waiting for the next event.
    const live = new TurnEventLog("t10");
    const second = counted();
    const aborted = collect(live.read(null, second.signal));
    live.append(text("a"));
    await tick();
    second.controller.abort();
    expect(await aborted).toHaveLength(1);
    expect(second.listening).toEqual({ adds: 1, now: 0 });

    // Left early by its consumer.
    const third = counted();
    for await (const _ of live.read(null, third.signal)) break;
    expect(third.listening).toEqual({ adds: 1, now: 0 });
    // The log still serves readers after they left.
    live.append(text("b"));
    live.close();
    expect((await collect(live.read())).map((e) => e.id)).toEqual(["t10:1", "t10:2"]);
  });

  it("rejects a turn id that would break the id format", () => {
    expect(() => new TurnEventLog("a:b")).toThrow(TypeError);
    expect(() => new TurnEventLog("a\nb")).toThrow(TypeError);
  });
});

describe("sseResponseBody", () => {
  it("writes each event as a frame with its id, and heartbeats when quiet", async () => {
    const log = new TurnEventLog("t5");
    log.append(text("hello"));
    const body = sseResponseBody((signal) => log.read(undefined, signal), {
      heartbeatMs: 20,
      retryMs: 1000,
    });
    setTimeout(() => {
      log.append(done);
      log.close();
    }, 80);
    const raw: string[] = [];
    const frames = [];
    const [forFrames, forRaw] = body.tee();
    const rawDone = (async () => {
      const reader = forRaw.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        raw.push(decoder.decode(value));
      }
    })();
    for await (const frame of decodeSseStream(forFrames)) frames.push(frame);
    await rawDone;
    expect(frames.map((f) => [f.event, f.id])).toEqual([
      ["text-delta", "t5:1"],
      ["done", "t5:2"],
    ]);
    expect(JSON.parse(frames[0]!.data)).toEqual(text("hello"));
    expect(raw.join("")).toContain(": heartbeat\n");
    expect(raw.join("").startsWith("retry: 1000\n\n")).toBe(true);
  });

  it("cancelling the body stops reading without ending the turn", async () => {
    const log = new TurnEventLog("t6");
    const body = sseResponseBody((signal) => log.read(undefined, signal));
    const reader = body.getReader();
    log.append(text("a"));
    await reader.read();
    await reader.cancel();
    expect(log.closed).toBe(false);
    expect(log.append(text("b"))).toBe("t6:2");
  });

  it("sends the events of one turn of the event loop as one chunk, and tells onClose once", async () => {
    const log = new TurnEventLog("t7");
    let closes = 0;
    const body = sseResponseBody((signal) => log.read(undefined, signal), {
      onClose: () => closes++,
    });
    log.append(text("a"));
    log.append(text("b"));
    log.append(text("c"));
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    expect([...first.matchAll(/^id: (.*)$/gm)].map((m) => m[1])).toEqual(["t7:1", "t7:2", "t7:3"]);
    log.append(done);
    log.close();
    const rest: string[] = [];
    for (;;) {
      const { done: over, value } = await reader.read();
      if (over) break;
      rest.push(decoder.decode(value));
    }
    expect(rest.join("")).toContain("id: t7:4");
    expect(closes).toBe(1);
    const cancelled = sseResponseBody((signal) => new TurnEventLog("t8").read(undefined, signal), {
      onClose: () => closes++,
    });
    await cancelled.cancel();
    await cancelled.cancel();
    expect(closes).toBe(2);
  });
});
