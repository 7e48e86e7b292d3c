import { afterEach, describe, expect, it } from "vitest";
import type { ModelClient } from "../agent/model-client.js";
import { OverlapError } from "../errors.js";
import { DurableAgentHost } from "./durable-agent-host.js";
import type { DurableHarness } from "./durable-store-suite.testkit.js";
import { sqliteHarness } from "./sqlite-harness.testkit.js";

/** A model that answers nothing until the turn is stopped. */
const silentModel: ModelClient = {
  label: "silent-test-model",
  async *stream(_request, { signal }) {
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    throw new OverlapError("aborted", "The response was cancelled.");
  },
};

let harness: DurableHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

describe("DurableAgentHost.start", () => {
  it("resolves once the user's message is stored: an accepted message survives a crash", async () => {
    harness = await sqliteHarness();
    const store = await harness.open();
    const other = await harness.open(); // another instance's connection
    const host = new DurableAgentHost({ store, model: silentModel, tools: [] });
    for (const [chatId, text] of [
      ["c1", "first"],
      ["c2", "second"],
      ["c3", "third"],
    ] as const) {
      const turn = await host.start({ chatId, message: text });
      // Read at once, from elsewhere, while the turn still waits for its model.
      expect(host.running(chatId)).toBe(true);
      expect(await other.conversations.load(chatId)).toEqual([{ role: "user", content: text }]);
      await host.cancel(chatId, "test over");
      await turn.done;
    }
  });

  it("still resolves when storing the message fails; the turn ends with the error", async () => {
    harness = await sqliteHarness();
    const store = await harness.open();
    const host = new DurableAgentHost({ store, model: silentModel, tools: [] });
    // A write under another version than the one read: the conversation moved meanwhile.
    const write = store.conversations.writeVersioned.bind(store.conversations);
    store.conversations.writeVersioned = async (...args) => {
      await write("c1", 0, [{ role: "user", content: "elsewhere" }]);
      return write(...args);
    };
    const turn = await host.start({ chatId: "c1", message: "mine" });
    const { error } = await turn.done;
    expect((error as OverlapError).code).toBe("conversation_conflict");
    const events = [];
    for await (const { event } of host.read("c1")) events.push(event);
    expect(events.map((event) => event.type)).toEqual(["error", "done"]);
  });
});
