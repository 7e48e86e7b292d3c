import Anthropic from "@anthropic-ai/sdk";
import {
  type AgentEvent,
  type LoggedEvent,
  type ModelClient,
  validateConversation,
} from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import type { StreamEvent } from "overlap-runtime/core";
import { type SimServer, startSim } from "overlap-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

// The simulator's generic policy turns these directives into two add_to_cart calls in one response
// (two products that need no size or colour choice: the water bottle, the beanie).
const TEXT =
  'call add_to_cart {"productId":"p-0153","quantity":1} ' +
  'call add_to_cart {"productId":"p-0067","quantity":2}';

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

let sim: SimServer;
let t: TestShop;
/** The `x-sim-fault` of the next requests (none when undefined). */
let fault: string | undefined;
/** The neutral events of every model request, as the adapter produced them. */
const streams: StreamEvent[][] = [];

beforeAll(async () => {
  sim = await startSim({ pacing: { fast: true } });
  const client = (headers: Record<string, string>) =>
    anthropicModel({
      client: new Anthropic({
        apiKey: "test",
        baseURL: sim.url,
        maxRetries: 0,
        defaultHeaders: headers,
      }),
      model: "scripted-faults",
    });
  const switching: ModelClient = {
    label: "scripted-faults",
    stream(request, options) {
      const inner = client(fault ? { "x-sim-fault": fault } : {});
      const events: StreamEvent[] = [];
      streams.push(events);
      return (async function* () {
        for await (const batch of inner.stream(request, options)) {
          events.push(...batch);
          yield batch;
        }
      })();
    },
  };
  t = await createTestShop({
    model: { model: switching, label: "scripted-faults", scripted: true },
  });
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

async function send(id: string, token: string, text: string): Promise<LoggedEvent[]> {
  const response = await t.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } });
  expect(response.status).toBe(200);
  return readEvents(response);
}

const of = <T extends AgentEvent["type"]>(events: readonly LoggedEvent[], type: T) =>
  events.map((e) => e.event).filter((e): e is Of<T> => e.type === type);

/**
 * A `drop-after` count (wire frames, as the simulator counts them) that cuts the connection inside
 * the second call's arguments, after the first call's block stopped (so it ran). Found by replaying
 * the identical request once without fault: the simulator answers an identical request with
 * identical frames. The SDK hides the one `ping` frame the API sends after the first block starts.
 */
async function dropInsideSecondCall(): Promise<number> {
  const probe = await t.session();
  fault = undefined;
  const before = streams.length;
  await send(probe.id, probe.token, TEXT);
  const events = streams[before]!; // the turn's first request: the one to cut
  const starts = events.flatMap((e, i) =>
    e.type === "content_block_start" && e.content_block.type === "tool_use" ? [i] : [],
  );
  expect(starts).toHaveLength(2);
  const firstIndex = (events[starts[0]!] as Extract<StreamEvent, { type: "content_block_start" }>)
    .index;
  const firstStop = events.findIndex(
    (e) => e.type === "content_block_stop" && e.index === firstIndex,
  );
  expect(firstStop).toBeLessThan(starts[1]!);
  // Frames 0..(second start + 2 deltas) are sent, plus the ping; the cut comes before the next.
  return starts[1]! + 3 + 1;
}

describe("a round interrupted by a dropped connection (sim fault drop-after)", () => {
  it("keeps the finished call, answers the other, and the next turn is accepted by the sim", async () => {
    const dropAfter = await dropInsideSecondCall();
    const { id, token } = await t.session();
    fault = `drop-after=${dropAfter}`;
    const events = await send(id, token, TEXT);
    fault = undefined;

    // Both calls are answered: the finished one with its real result, the cut one with an error.
    const results = of(events, "tool-result");
    expect(results).toHaveLength(2);
    expect(results[0]!.status).toBe("ok");
    expect(results[1]!.isError).toBe(true);
    expect(of(events, "error")[0]).toMatchObject({ code: "stream_interrupted" });
    expect(events.at(-1)!.event).toMatchObject({ type: "done", stopReason: "error" });
    // The first add happened (its effect is real and recorded); the second never ran.
    const cart = await t.store.getCart(id);
    expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([["p-0153", 1]]);

    const stored = await t.store.conversations.load(id);
    expect(validateConversation(stored)).toEqual([]);

    // The simulator rejects (400) any request the real API would reject.
    const next = await send(id, token, "hello again");
    expect(of(next, "error")).toEqual([]);
    expect(next.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  });

  it("an identical retried request with the same call ids does not run a finished call twice (ledger)", async () => {
    const dropAfter = await dropInsideSecondCall();
    const { id, token } = await t.session();
    fault = `drop-after=${dropAfter}`;
    const dropped = await send(id, token, TEXT);
    fault = undefined;
    const firstResult = of(dropped, "tool-result")[0]!;
    expect(firstResult.status).toBe("ok");

    // A crash lost the conversation's round but not the ledger: the same request is sent again,
    // and the simulator answers an identical request with the identical call ids.
    await t.store.conversations.write(id, 0, []);
    const retried = await send(id, token, TEXT);
    const calls = of(retried, "tool-call").filter((c) => c.round === 1);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.callId).toBe(firstResult.callId);
    const results = of(retried, "tool-result").filter((r) => r.round === 1);
    expect(results[0]).toMatchObject({ callId: firstResult.callId, status: "ok" });
    expect(results[0]!.resultText).toBe(firstResult.resultText); // the recorded outcome
    expect(results[1]).toMatchObject({ status: "ok" });
    expect(retried.at(-1)!.event).toMatchObject({ type: "done", stopReason: "end_turn" });

    const cart = await t.store.getCart(id);
    expect(cart.lines.map((l) => [l.productId, l.quantity])).toEqual([
      ["p-0153", 1], // once, not twice
      ["p-0067", 2],
    ]);
  });
});
