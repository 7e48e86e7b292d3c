/**
 * A server killed while checkout waits for the shopper's approval: the turn, and the
 * wait, die with the process; the checkout call was journaled at its block stop and has no ledger
 * record, so the restarted server's recovery (`restoreRound`) answers it as not run. No order
 * exists, the old approval is unknown (404), and the next "check out" asks again and can place
 * exactly one order. Real processes (`npm start`'s entry point) on one SQLite file.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  type AgentEvent,
  type Message,
  notRunAfterRestartText,
  validateConversation,
} from "overlap-runtime";
import { decodeSseStream } from "overlap-runtime/core";
import { afterAll, describe, expect, it } from "vitest";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.testkit.js";

const running: ShopProcess[] = [];
let dir: string | undefined;

afterAll(async () => {
  for (const shop of running) await stopShop(shop, "SIGKILL");
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function start(): Promise<ShopProcess> {
  const shop = await spawnShop({ DATA_DIR: dir! });
  running.push(shop);
  return shop;
}

/** Reads a turn's events until `stop` says so (then leaves the stream) or the turn ends. */
async function readUntil(
  response: Response,
  stop: (event: AgentEvent) => boolean = () => false,
  onEvent: (event: AgentEvent) => Promise<void> | void = () => {},
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const frame of decodeSseStream(response.body!)) {
    if (frame.event === undefined) continue;
    const event = JSON.parse(frame.data) as AgentEvent;
    events.push(event);
    await onEvent(event);
    if (stop(event)) break;
  }
  return events;
}

function ordersOf(sessionId: string): number {
  const db = new Database(join(dir!, "shop.sqlite"), { readonly: true, timeout: 5_000 });
  try {
    const row = db
      .prepare("SELECT count(*) AS n FROM orders WHERE session_id = ?")
      .get(sessionId) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

describe("a restart while checkout waits for approval", { timeout: 90_000 }, () => {
  it("answers the call as not run, places nothing, and the next check out asks again", async () => {
    dir = await mkdtemp(join(tmpdir(), "shop-approval-restart-"));
    const first = await start();
    const session = (await (
      await fetch(`${first.url}/api/sessions`, { method: "POST" })
    ).json()) as { id: string; token: string };
    const headers = {
      authorization: `Bearer ${session.token}`,
      "content-type": "application/json",
    };
    const send = (url: string, text: string) =>
      fetch(`${url}/api/sessions/${session.id}/messages`, {
        method: "POST",
        headers,
        body: JSON.stringify({ text }),
      });
    await readUntil(await send(first.url, "add the charcoal wool socks in size M to my cart"));

    const asking = await readUntil(
      await send(first.url, "check out"),
      (e) => e.type === "approval-request",
    );
    const request = asking.at(-1);
    expect(request?.type).toBe("approval-request");
    const callId = (request as Extract<AgentEvent, { type: "approval-request" }>).callId;
    await stopShop(first, "SIGKILL");

    const second = await start();
    const loaded = (await (
      await fetch(`${second.url}/api/sessions/${session.id}`, { headers })
    ).json()) as { messages: Message[]; turn: { running: boolean } };
    expect(loaded.turn.running).toBe(false);
    expect(validateConversation(loaded.messages)).toEqual([]);
    const calls = loaded.messages.at(-2);
    const results = loaded.messages.at(-1);
    expect(calls?.role).toBe("assistant");
    expect(Array.isArray(calls?.content) && calls.content.map((b) => b.type)).toContain("tool_use");
    expect(results?.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: callId,
        content: notRunAfterRestartText("checkout"),
        is_error: true,
      },
    ]);
    expect(ordersOf(session.id)).toBe(0);
    const cart = (await (
      await fetch(`${second.url}/api/sessions/${session.id}/cart`, { headers })
    ).json()) as { cart: { itemCount: number } };
    expect(cart.cart.itemCount).toBe(1);

    // The old request died with its turn.
    const stale = await fetch(`${second.url}/api/sessions/${session.id}/approvals/${callId}`, {
      method: "POST",
      headers,
      body: JSON.stringify({ approve: true }),
    });
    expect(stale.status).toBe(404);

    // Asked again, under a new call, and confirmed: exactly one order.
    const again = await readUntil(
      await send(second.url, "check out"),
      () => false,
      async (event) => {
        if (event.type !== "approval-request") return;
        expect(event.callId).not.toBe(callId);
        const answer = await fetch(
          `${second.url}/api/sessions/${session.id}/approvals/${event.callId}`,
          { method: "POST", headers, body: JSON.stringify({ approve: true }) },
        );
        expect(answer.status).toBe(200);
      },
    );
    expect(again.some((e) => e.type === "ui" && e.ui.type === "order-placed")).toBe(true);
    expect(ordersOf(session.id)).toBe(1);
    await stopShop(second);
  });
});
