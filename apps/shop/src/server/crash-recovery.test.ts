/**
 * A crash mid-round (the server process killed with SIGKILL while tools run and the model is still
 * writing): a new process on the same database continues the session. What the crash cut off is
 * repaired, the next turn is accepted by the strict scripted model, and the effects that happened
 * before the crash stay.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentEvent, validateConversation } from "overlap-runtime";
import { readAgentEvents } from "overlap-runtime/client";
import { afterAll, describe, expect, it } from "vitest";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.js";

describe("a server crash mid-round", () => {
  let dataDir = "";
  const processes: ShopProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopShop(p, "SIGKILL")));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("leaves a session a restarted server continues: repaired, accepted, effects kept", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "shop-crash-"));
    const env = { DATA_DIR: dataDir, MERCHANT_TOKEN: "crash-recovery-test-token" };
    const first = await spawnShop(env);
    processes.push(first);
    const session = (await (
      await fetch(`${first.url}/api/sessions`, { method: "POST" })
    ).json()) as { id: string; token: string };
    const headers = {
      authorization: `Bearer ${session.token}`,
      "content-type": "application/json",
    };

    // The default pacing is a real model's: the first add runs while later calls still stream.
    const response = await fetch(`${first.url}/api/sessions/${session.id}/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        text: "add the Aero trail runner and the wool socks to my cart and tell me the total",
      }),
    });
    const seen: AgentEvent[] = [];
    for await (const { event } of readAgentEvents(response.body!)) {
      seen.push(event);
      if (event.type === "tool-status" && event.status === "done") break; // the first add is done
    }
    await stopShop(first, "SIGKILL");
    expect(seen.some((e) => e.type === "done")).toBe(false); // the crash really came mid-round

    const second = await spawnShop(env);
    processes.push(second);
    const read = async () =>
      (await (await fetch(`${second.url}/api/sessions/${session.id}`, { headers })).json()) as {
        messages: unknown[];
      };
    // The effect that happened before the crash is kept.
    const cart = (await (
      await fetch(`${second.url}/api/sessions/${session.id}/cart`, { headers })
    ).json()) as {
      cart: { lines: Array<{ productId: string }> };
    };
    expect(cart.cart.lines.map((l) => l.productId)).toContain("p-0001");

    const next = await fetch(`${second.url}/api/sessions/${session.id}/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ text: "what's in my cart?" }),
    });
    expect(next.status).toBe(200);
    const events: AgentEvent[] = [];
    for await (const { event } of readAgentEvents(next.body!)) events.push(event);
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect(events.some((e) => e.type === "tool-call" && e.name === "view_cart")).toBe(true);
    const { messages } = await read();
    expect(validateConversation(messages as never)).toEqual([]);
  }, 90_000);
});
