import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AssistantContentBlock, Message, UserContentBlock } from "../stream/message.js";
import { appendUserText, MISSING_RESULT_TEXT, repairConversation } from "./repair-conversation.js";
import { validateConversation } from "./validate-conversation.js";

const use = (id: string): AssistantContentBlock => ({ type: "tool_use", id, name: "t", input: {} });
const result = (id: string, content = "ok"): UserContentBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content,
});
const text = (t: string) => ({ type: "text" as const, text: t });

describe("repairConversation", () => {
  it("answers the calls of a round that crashed before its results were stored", () => {
    const messages: Message[] = [
      { role: "user", content: "add socks" },
      { role: "assistant", content: [text("Adding."), use("a"), use("b")] },
    ];
    const repaired = repairConversation(messages);
    expect(validateConversation(repaired)).toEqual([]);
    expect(repaired[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: MISSING_RESULT_TEXT, is_error: true },
        { type: "tool_result", tool_use_id: "b", content: MISSING_RESULT_TEXT, is_error: true },
      ],
    });
  });

  it("puts results first in call order, fills missing ones, drops orphans and duplicates", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("a"), use("b")] },
      {
        role: "user",
        content: [text("also this"), result("b", "B"), result("zzz"), result("b", "again")],
      },
    ];
    const repaired = repairConversation(messages);
    expect(validateConversation(repaired)).toEqual([]);
    expect(repaired[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: MISSING_RESULT_TEXT, is_error: true },
      result("b", "B"),
      text("also this"),
    ]);
  });

  it("renames a repeated call id, and its result, so every id is unique", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [use("call_0")] },
      { role: "user", content: [result("call_0", "first")] },
      { role: "assistant", content: [use("call_0"), use("call_0")] },
      { role: "user", content: [result("call_0", "second"), result("call_0", "third")] },
    ];
    const repaired = repairConversation(messages);
    expect(validateConversation(repaired)).toEqual([]);
    expect(repaired[3]?.content).toEqual([use("call_0_dup2"), use("call_0_dup3")]);
    expect(repaired[4]?.content).toEqual([
      result("call_0_dup2", "second"),
      result("call_0_dup3", "third"),
    ]);
    expect(repaired[1]).toBe(messages[1]);
  });

  it("merges same-role neighbours and drops empty blocks and messages", () => {
    const messages: Message[] = [
      { role: "user", content: "one" },
      { role: "user", content: [text("two")] },
      { role: "assistant", content: [text("  ")] },
      { role: "assistant", content: [text("answer")] },
    ];
    const repaired = repairConversation(messages);
    expect(validateConversation(repaired)).toEqual([]);
    expect(repaired).toEqual([
      { role: "user", content: [text("one"), text("two")] },
      { role: "assistant", content: [text("answer")] },
    ]);
  });

  it("returns untouched messages by identity, and a valid conversation unchanged", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a")] },
      { role: "assistant", content: [text("done")] },
    ];
    const repaired = repairConversation(messages);
    expect(repaired).toHaveLength(4);
    for (const [i, m] of repaired.entries()) expect(m).toBe(messages[i]);
  });

  it("property: any jumble of messages repairs into a valid conversation, idempotently", () => {
    let next = 0;
    const id = fc.integer({ min: 0, max: 6 }).map((n) => `id${n}`);
    const assistantBlock = fc.oneof(
      fc.constantFrom("", " ", "words").map(text),
      fc.constant(null).map(() => use(`u${next++}`)),
      id.map((i) => use(i)), // ids repeated across and within messages, like some servers send
    );
    const userBlock = fc.oneof(
      fc.constantFrom("", "question").map(text),
      id.map((i) => result(i)),
      fc.constant(null).map(() => result(`u${Math.max(0, next - 1)}`)),
    );
    const message = fc.oneof(
      fc
        .array(assistantBlock, { maxLength: 4 })
        .map((content): Message => ({ role: "assistant", content })),
      fc.array(userBlock, { maxLength: 4 }).map((content): Message => ({ role: "user", content })),
      fc.constantFrom("", "plain").map((content): Message => ({ role: "user", content })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), (messages) => {
        const repaired = repairConversation(messages);
        if (repaired.length > 0) expect(validateConversation(repaired)).toEqual([]);
        expect(repairConversation(repaired)).toEqual(repaired);
      }),
      { numRuns: 500 },
    );
  });
});

describe("appendUserText", () => {
  it("appends a new user message after an assistant answer", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [text("hello")] },
    ];
    const { messages: out, from } = appendUserText(messages, "next");
    expect(from).toBe(2);
    expect(out[2]).toEqual({ role: "user", content: "next" });
  });

  it("merges into the tool results an interrupted turn left last, so roles alternate", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("a")] },
      { role: "user", content: [result("a", "interrupted")] },
    ];
    const { messages: out, from } = appendUserText(messages, "try again");
    expect(from).toBe(2);
    expect(out).toHaveLength(3);
    expect(out[2]?.content).toEqual([result("a", "interrupted"), text("try again")]);
    expect(validateConversation(out)).toEqual([]);
  });

  it("rewrites from the first repaired message when an earlier round crashed", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [use("a")] },
    ];
    const { messages: out, from } = appendUserText(messages, "hello?");
    expect(from).toBe(2);
    expect(validateConversation(out)).toEqual([]);
    expect(out[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "a", content: MISSING_RESULT_TEXT, is_error: true },
      text("hello?"),
    ]);
  });
});
