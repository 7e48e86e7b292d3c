/**
 * Two server processes (here: two apps with their own turn registries over one store) given a
 * message for the same chat at the same moment: the chat's turn lease in the database lets exactly
 * one start a turn; the other is answered 409 before it read or wrote anything. The turn that ran
 * is stored whole, and the other message left no trace.
 */

import { validateConversation } from "overlap-runtime";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.testkit.js";

describe("turns of one session in two processes", () => {
  const shops: TestShop[] = [];
  afterAll(async () => {
    for (const shop of shops) await shop.close();
  });

  it("exactly one of two simultaneous messages starts a turn; the other gets 409", async () => {
    const store = await openStore({ sqliteFile: ":memory:" });
    const a = await createTestShop({
      store,
      pacing: { tokensPerSecond: 400, firstTokenMs: 5, jitter: 0 },
    });
    const b = await createTestShop({
      store,
      pacing: { tokensPerSecond: 400, firstTokenMs: 5, jitter: 0 },
    });
    shops.push(a, b);
    for (let attempt = 0; attempt < 8; attempt++) {
      const { id, token } = await a.session();
      const post = (shop: TestShop, text: string) =>
        shop.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } });
      const texts = [
        "add the charcoal wool socks in size M to my cart",
        "add the Volt Aero trail runner in size 10 to my cart",
      ];
      const responses = await Promise.all([post(a, texts[0] ?? ""), post(b, texts[1] ?? "")]);
      const accepted = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 409);
      expect(accepted).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(await refused[0]?.json()).toMatchObject({ error: { code: "turn_running" } });
      expect(refused[0]?.headers.get("retry-after")).toMatch(/^\d+$/);
      const events = await readEvents(accepted[0] as Response);
      expect(events.at(-1)?.event.type).toBe("done");
      expect(events.some((e) => e.event.type === "error")).toBe(false);
      const stored = await store.conversations.load(id);
      expect(validateConversation(stored)).toEqual([]);
      // Only the accepted message is in the conversation, once; the refused one nowhere.
      const users = stored.filter((m) => m.role === "user" && typeof m.content === "string");
      expect(users).toHaveLength(1);
      const winner = responses.indexOf(accepted[0] as Response);
      expect(users[0]?.content).toContain(texts[winner]);
      expect(JSON.stringify(stored)).not.toContain(texts[1 - winner]);
      // The chat is free again once the turn ended: the next message is accepted on either.
      const next = await post(attempt % 2 === 0 ? b : a, "what is in my cart?");
      expect(next.status).toBe(200);
      await readEvents(next);
    }
    await store.close();
  });
});
