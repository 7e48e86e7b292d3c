/**
 * `npm run scripted-model` end to end: the scripted model in a process of its own, a shop process
 * pointed at it through ANTHROPIC_BASE_URL (any key), one demo turn over real HTTP and SSE.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShopProcess, spawnShop, stopShop } from "../server/spawn-shop.testkit.js";
import { readEvents } from "../server/test-shop.testkit.js";
import {
  type ScriptedModelProcess,
  spawnScriptedModel,
  stopScriptedModel,
} from "./spawn-scripted-model.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

describe("the scripted model as a process of its own", () => {
  let dir: string;
  let model: ScriptedModelProcess;
  let shop: ShopProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "scripted-model-"));
    model = await spawnScriptedModel({
      args: ["--port", "0", "--tps", "2000", "--first-token-ms", "5"],
    });
    shop = await spawnShop({
      DATA_DIR: dir,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "any-key",
      MODEL: "scripted-shop",
    });
  }, 90_000);

  afterAll(async () => {
    if (shop) await stopShop(shop);
    if (model) await stopScriptedModel(model);
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the shop's demo turn: tools run, the answer states the total", async () => {
    const health = (await (await fetch(`${shop.url}/healthz`)).json()) as Record<string, unknown>;
    // The shop believes it talks to Claude: the scripted model is reached as a remote API.
    expect(health).toMatchObject({ ok: true, model: "scripted-shop", scripted: false });
    const { id, token } = (await (
      await fetch(`${shop.url}/api/sessions`, { method: "POST" })
    ).json()) as { id: string; token: string };
    const response = await fetch(`${shop.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ text: DEMO }),
    });
    expect(response.status).toBe(200);
    const events = (await readEvents(response)).map((e) => e.event);
    const done = events.find((e): e is Extract<AgentEvent, { type: "done" }> => e.type === "done");
    expect(done).toMatchObject({ stopReason: "end_turn" });
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    const running = events.filter((e) => e.type === "tool-status" && e.status === "running");
    expect(running.length).toBeGreaterThanOrEqual(2);
    const text = events
      .filter((e): e is Extract<AgentEvent, { type: "text-delta" }> => e.type === "text-delta")
      .map((e) => e.text)
      .join("");
    expect(text).toMatch(/\$\d/);
    const cart = (await (
      await fetch(`${shop.url}/api/sessions/${id}/cart`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cart: { lines: unknown[] } };
    expect(cart.cart.lines).toHaveLength(2);
  });
});
