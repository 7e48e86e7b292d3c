import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import { InMemoryConversationStore } from "./conversation-store.js";

describe("InMemoryConversationStore", () => {
  it("appends, rewrites from a position, and copies on the way in and out", async () => {
    const store = new InMemoryConversationStore();
    const first = { role: "user" as const, content: "hi" };
    await store.write("c", 0, [first]);
    await store.write("c", 1, [{ role: "assistant", content: [{ type: "text", text: "hello" }] }]);
    await store.write("c", 1, [{ role: "assistant", content: [{ type: "text", text: "hey" }] }]);
    const loaded = await store.load("c");
    expect(loaded).toEqual([
      first,
      { role: "assistant", content: [{ type: "text", text: "hey" }] },
    ]);
    loaded.pop();
    expect(await store.load("c")).toHaveLength(2);
    await expect(store.write("c", 5, [])).rejects.toThrow(RangeError);
  });

  it("refuses a write whose writer saw another length: conversation_conflict", async () => {
    const store = new InMemoryConversationStore();
    await store.write("c", 0, [{ role: "user", content: "a" }], { expectedLength: 0 });
    const error = await store
      .write("c", 0, [{ role: "user", content: "b" }], { expectedLength: 0 })
      .catch((e) => e);
    expect(isOverlapError(error, "conversation_conflict")).toBe(true);
    expect(await store.load("c")).toEqual([{ role: "user", content: "a" }]);
  });
});
