/**
 * Graceful stop of `npm start`: SIGTERM sent to the npm process alone (what a process
 * manager does) reaches the server; new turns are refused with 503 while a running turn finishes
 * within `SHUTDOWN_GRACE_MS`, or is cancelled and repaired once the grace is over; the process
 * exits 0; a restarted server continues the session with a valid conversation. Ctrl-C in a
 * terminal (SIGINT to the whole process group, which npm forwards once more) stops it the same way.
 * Real OS processes, real HTTP, SQLite in a temporary directory.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LoggedEvent, type Message, validateConversation } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShopProcess, spawnShop, stopShop } from "./spawn-shop.testkit.js";
import { readEvents } from "./test-shop.testkit.js";
import { ensureWebBuild } from "./web-build.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";
const MERCHANT_TOKEN = "graceful-stop-test-merchant-token";

interface Session {
  id: string;
  token: string;
}

const processes: ShopProcess[] = [];
const dirs: string[] = [];

async function start(
  dir: string,
  graceMs: number,
  options: Parameters<typeof spawnShop>[1] = {},
): Promise<ShopProcess> {
  const shop = await spawnShop(
    { DATA_DIR: dir, MERCHANT_TOKEN, SHUTDOWN_GRACE_MS: String(graceMs) },
    options,
  );
  processes.push(shop);
  return shop;
}

/** Resolves with the exit code and signal once the process is gone. */
function exitOf(shop: ShopProcess): Promise<{ code: number | null; signal: string | null }> {
  if (shop.child.exitCode !== null || shop.child.signalCode !== null) {
    return Promise.resolve({ code: shop.child.exitCode, signal: shop.child.signalCode });
  }
  return new Promise((resolve) =>
    shop.child.once("exit", (code, signal) => resolve({ code, signal })),
  );
}

async function newSession(url: string): Promise<Session> {
  const response = await fetch(`${url}/api/sessions`, { method: "POST" });
  expect(response.status).toBe(201);
  return (await response.json()) as Session;
}

function sendTurn(url: string, session: Session, text: string): Promise<Response> {
  return fetch(`${url}/api/sessions/${session.id}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
}

/** Reconnects to the session's turn after `lastEventId` (as a reload does); read it with readEvents. */
async function resume(url: string, session: Session, lastEventId: string): Promise<Response> {
  const response = await fetch(`${url}/api/sessions/${session.id}/stream`, {
    headers: { authorization: `Bearer ${session.token}`, "last-event-id": lastEventId },
  });
  expect(response.status).toBe(200);
  return response;
}

/** Starts a turn and reads it until its first tool runs (mid-round), then leaves the stream. */
async function turnUntilToolsRun(url: string, session: Session): Promise<LoggedEvent[]> {
  const response = await sendTurn(url, session, DEMO);
  expect(response.status).toBe(200);
  return readEvents(response, {
    until: (events) => events.some((e) => e.event.type === "tool-status"),
  });
}

/** Polls until `/healthz` says the server is shutting down (the signal has arrived). */
async function untilDraining(url: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/healthz`);
    const body = (await response.json()) as { shuttingDown?: boolean };
    if (response.status === 503 && body.shuttingDown) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the server never started shutting down");
}

/** A restarted server shows the session's conversation valid and takes a next turn. */
async function continuesAfterRestart(shop: ShopProcess, session: Session): Promise<Message[]> {
  const read = await fetch(`${shop.url}/api/sessions/${session.id}`, {
    headers: { authorization: `Bearer ${session.token}` },
  });
  expect(read.status).toBe(200);
  const { messages } = (await read.json()) as { messages: Message[] };
  expect(validateConversation(messages)).toEqual([]);
  const next = await sendTurn(shop.url, session, "what's in my cart?");
  expect(next.status).toBe(200);
  const events = await readEvents(next);
  expect(events.filter((e) => e.event.type === "error")).toEqual([]);
  expect(events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  return messages;
}

beforeAll(async () => {
  // Build the browser app once here, so that no spawned server spends its start doing it.
  await ensureWebBuild();
}, 180_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => stopShop(p, "SIGKILL")));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("graceful stop of npm start", () => {
  it("SIGTERM to npm: new turns get 503, the running turn finishes, exit 0; a restart continues", async () => {
    const dir = await mkdtemp(join(tmpdir(), "shop-stop-"));
    dirs.push(dir);
    const shop = await start(dir, 60_000, { via: "npm" });
    const alice = await newSession(shop.url);
    const bob = await newSession(shop.url);
    const before = await turnUntilToolsRun(shop.url, alice);
    const following = await resume(shop.url, alice, before.at(-1)!.id);

    const exited = exitOf(shop);
    const signalledAt = Date.now();
    shop.child.kill("SIGTERM"); // the npm process only, as systemd or a container runtime does
    await untilDraining(shop.url);

    const refused = await sendTurn(shop.url, bob, "hello");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.json()).toEqual({
      error: {
        code: "shutting_down",
        message: "The server is shutting down. Try again shortly.",
      },
    });

    // The running turn goes on to its end, and its reader with it.
    const rest = await readEvents(following);
    expect(rest.filter((e) => e.event.type === "error")).toEqual([]);
    expect(rest.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
    expect(rest.some((e) => e.event.type === "tool-result")).toBe(true);

    expect(await exited).toEqual({ code: 0, signal: null });
    // It left as soon as the turn was done, not at the end of the grace period.
    expect(Date.now() - signalledAt).toBeLessThan(30_000);

    const restarted = await start(dir, 1_000);
    const messages = await continuesAfterRestart(restarted, alice);
    expect(messages.at(-1)).toMatchObject({ role: "assistant" });
    await stopShop(restarted);
  }, 120_000);

  it("past the grace period the running turn is cancelled and repaired; Ctrl-C (SIGINT to the group) exits 0 too", async () => {
    const dir = await mkdtemp(join(tmpdir(), "shop-stop-"));
    dirs.push(dir);
    const shop = await start(dir, 200, { via: "npm" });
    const alice = await newSession(shop.url);
    const before = await turnUntilToolsRun(shop.url, alice);
    const following = await resume(shop.url, alice, before.at(-1)!.id);

    const exited = exitOf(shop);
    shop.child.kill("SIGTERM");
    const rest = await readEvents(following);
    expect(rest.at(-2)?.event).toMatchObject({ type: "error", code: "aborted" });
    expect(rest.at(-1)?.event).toMatchObject({ type: "done", stopReason: "error" });
    expect(await exited).toEqual({ code: 0, signal: null });

    // Restarted through npm in a process group of its own; the cut-off turn was repaired.
    const restarted = await start(dir, 10_000, { via: "npm", detached: true });
    const messages = await continuesAfterRestart(restarted, alice);
    expect(messages.length).toBeGreaterThanOrEqual(3);

    // Ctrl-C: the terminal signals every process of the group, and npm forwards its copy to node.
    const gone = exitOf(restarted);
    process.kill(-restarted.child.pid!, "SIGINT");
    expect(await gone).toEqual({ code: 0, signal: null });
  }, 120_000);
});
