import type { AgentEvent, Message } from "overlap-runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { capturedLog } from "../server/captured-log.testkit.js";
import { versionedWriter } from "./versioned-writer.js";

const text = (role: "user" | "assistant", content: string): Message =>
  ({ role, content }) as Message;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("versionedWriter: the one way both turn bodies store their conversation", () => {
  let store: ShopStore;
  beforeEach(async () => {
    store = await openStore({ sqliteFile: ":memory:" });
  });
  afterEach(async () => {
    await store.close();
  });

  /** A turn as the body sees it: its events kept, its lease as given. */
  const turnOf = (lease?: string) => {
    const events: AgentEvent[] = [];
    return { events, turn: { emit: (e: AgentEvent) => events.push(e), lease } };
  };

  it("stores the first change, then every round at the version the last write left", async () => {
    const chat = await store.createSession("shopper");
    const { turn, events } = turnOf();
    const { logger } = capturedLog();
    const read = await store.conversations.loadVersioned(chat.id);
    const write = await versionedWriter(
      { store, sessionId: chat.id, turn, log: logger },
      read.version,
      {
        from: 0,
        messages: [text("user", "hi")],
      },
    );
    expect(write).toBeTypeOf("function");
    await write?.(1, [text("assistant", "hello")]);
    await write?.(2, [text("user", "and?"), text("assistant", "done")]);
    expect(await store.conversations.loadVersioned(chat.id)).toEqual({
      messages: [
        text("user", "hi"),
        text("assistant", "hello"),
        text("user", "and?"),
        text("assistant", "done"),
      ],
      version: 3,
    });
    expect(events).toEqual([]);
  });

  it("a chat changed since it was read: the turn is refused (one error, then done), nothing stored", async () => {
    const chat = await store.createSession("shopper");
    const read = await store.conversations.loadVersioned(chat.id);
    // Another turn wrote after this one read.
    await store.conversations.writeVersioned(chat.id, 0, [text("user", "other")], {
      expectedVersion: read.version,
    });
    const { turn, events } = turnOf();
    const { logger, records } = capturedLog();
    const write = await versionedWriter(
      { store, sessionId: chat.id, turn, log: logger },
      read.version,
      {
        from: 0,
        messages: [text("user", "mine")],
      },
    );
    expect(write).toBeUndefined();
    expect(events).toEqual([
      { type: "error", code: "conversation_conflict", message: expect.any(String) },
      { type: "done", roundCount: 0, stopReason: "error" },
    ]);
    expect(records.filter((r) => r.level === 40)).toHaveLength(1);
    expect((await store.conversations.load(chat.id)).map((m) => m.content)).toEqual(["other"]);
  });

  it("a later write that lost the race fails loudly: the turn's runtime ends it", async () => {
    const chat = await store.createSession("shopper");
    const { turn, events } = turnOf();
    const { logger } = capturedLog();
    const write = await versionedWriter({ store, sessionId: chat.id, turn, log: logger }, 0, {
      from: 0,
      messages: [text("user", "hi")],
    });
    await store.conversations.writeVersioned(chat.id, 1, [text("assistant", "intruder")], {
      expectedVersion: 1,
    });
    await expect(write?.(1, [text("assistant", "late")])).rejects.toMatchObject({
      code: "conversation_conflict",
    });
    expect(events).toEqual([]);
  });

  it("a chat another instance took over: the turn holding the old lease is refused", async () => {
    const chat = await store.createSession("shopper");
    await store.durable.leases.claim(chat.id, { turnId: "old", holder: "holder-old", ttlMs: 30 });
    await sleep(60);
    await store.durable.leases.claim(chat.id, {
      turnId: "new",
      holder: "holder-new",
      ttlMs: 60_000,
    });
    const { turn, events } = turnOf("old");
    const { logger } = capturedLog();
    const write = await versionedWriter({ store, sessionId: chat.id, turn, log: logger }, 0, {
      from: 0,
      messages: [text("user", "zombie")],
    });
    expect(write).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["error", "done"]);
    expect(await store.conversations.load(chat.id)).toEqual([]);
  });

  it("any other failure is not a refusal: it reaches the turn (the registry answers it)", async () => {
    const chat = await store.createSession("shopper");
    const { turn, events } = turnOf();
    const { logger } = capturedLog();
    await store.close();
    await expect(
      versionedWriter({ store, sessionId: chat.id, turn, log: logger }, 0, {
        from: 0,
        messages: [text("user", "hi")],
      }),
    ).rejects.toThrow();
    expect(events).toEqual([]);
    store = await openStore({ sqliteFile: ":memory:" });
  });
});
