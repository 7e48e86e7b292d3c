/**
 * Two server processes (here: two apps with their own turn registries over one store) running
 * turns of the same session at the same time: the in-process 409 cannot see the other process, so
 * the conversation's writes say what length they saw. A turn that lost the race fails loudly with
 * `conversation_conflict`; no finished turn's messages are ever erased.
 */

import { validateConversation } from "overlap-runtime";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import { createTestShop, readEvents, type TestShop } from "./test-shop.js";

describe("turns of one session in two processes", () => {
  const shops: TestShop[] = [];
  afterAll(async () => {
    for (const shop of shops) await shop.close();
  });

  it("never lose a finished turn; the loser reports conversation_conflict", async () => {
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
    for (let attempt = 0; attempt < 5; attempt++) {
      const { id, token } = await a.session();
      const post = (shop: TestShop, text: string) =>
        shop.call("POST", `/api/sessions/${id}/messages`, { token, json: { text } });
      const [ra, rb] = await Promise.all([
        post(a, "add the wool socks to my cart"),
        post(b, "add the Aero trail runner to my cart"),
      ]);
      const runs = await Promise.all([readEvents(ra), readEvents(rb)]);
      const stored = await store.conversations.load(id);
      expect(validateConversation(stored)).toEqual([]);
      for (const events of runs) {
        const done = events.at(-1)?.event;
        expect(done?.type).toBe("done");
        const error = events.find((e) => e.event.type === "error")?.event;
        if (error) {
          expect(error).toMatchObject({ code: "conversation_conflict" });
          continue;
        }
        // A turn that finished has its final answer in the stored conversation.
        const finalText = events
          .filter(
            (e) =>
              e.event.type === "text-delta" &&
              e.event.round === (done as { rounds: number }).rounds,
          )
          .map((e) => (e.event as { text: string }).text)
          .join("");
        expect(JSON.stringify(stored)).toContain(JSON.stringify(finalText).slice(1, -1));
      }
      expect(runs.some((events) => !events.some((e) => e.event.type === "error"))).toBe(true);
    }
    await store.close();
  });
});
