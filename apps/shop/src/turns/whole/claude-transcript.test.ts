import type { Message } from "overlap-runtime";
import { describe, expect, it } from "vitest";
import { transcriptEntries, transcriptStore } from "./claude-transcript.js";

const conversation: Message[] = [
  { role: "user", content: "add the wool socks" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Adding." },
      { type: "tool_use", id: "toolu_1", name: "add_to_cart", input: { productId: "p-0002" } },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Added." }] },
  { role: "assistant", content: [{ type: "text", text: "Done." }] },
];

describe("transcriptEntries", () => {
  const target = { sessionId: "6f1c2d3e-0000-4000-8000-000000000000", cwd: "/tmp/x", model: "m" };
  const at = new Date("2026-01-02T03:04:05.000Z");
  const entries = transcriptEntries(conversation, target, () => at);

  it("one line per message, chained by parentUuid, each message whole", () => {
    expect(entries.map((e) => e.type)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(entries[0]!.parentUuid).toBeNull();
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i]!.parentUuid).toBe(entries[i - 1]!.uuid);
    }
    expect(new Set(entries.map((e) => e.uuid)).size).toBe(4);
    for (const e of entries) {
      expect(e).toMatchObject({
        sessionId: target.sessionId,
        cwd: "/tmp/x",
        isSidechain: false,
        timestamp: at.toISOString(),
      });
    }
    expect(entries[0]!.message).toEqual({ role: "user", content: "add the wool socks" });
    expect(entries[1]!.message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "m",
      content: conversation[1]!.content,
      stop_reason: "tool_use",
    });
    expect(entries[3]!.message).toMatchObject({ stop_reason: "end_turn" });
  });

  it("survives a JSON round trip (what a session store must keep)", () => {
    expect(JSON.parse(JSON.stringify(entries))).toEqual(entries);
  });

  it("the store loads it for its session only and keeps nothing appended", async () => {
    const store = transcriptStore(target.sessionId, entries);
    expect(await store.load({ projectKey: "p", sessionId: target.sessionId })).toBe(entries);
    expect(await store.load({ projectKey: "p", sessionId: "other" })).toBeNull();
    expect(
      await store.load({ projectKey: "p", sessionId: target.sessionId, subpath: "subagents/a" }),
    ).toBeNull();
    await store.append({ projectKey: "p", sessionId: target.sessionId }, [{ type: "x" }]);
    expect(await store.load({ projectKey: "p", sessionId: target.sessionId })).toHaveLength(4);
  });
});
