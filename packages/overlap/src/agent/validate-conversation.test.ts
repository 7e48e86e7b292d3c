import { describe, expect, it } from "vitest";
import { isOverlapError } from "../errors.js";
import type {
  AssistantContentBlock,
  AssistantMessage,
  Message,
  UserContentBlock,
  UserMessage,
} from "../stream/message.js";
import {
  assertValidConversation,
  type ConversationViolationCode,
  validateConversation,
} from "./validate-conversation.js";

const user = (content: string | UserContentBlock[]): UserMessage => ({ role: "user", content });
const assistant = (...content: AssistantContentBlock[]): AssistantMessage => ({
  role: "assistant",
  content,
});
const text = (value: string) => ({ type: "text", text: value }) as const;
const call = (id: string, name = "add_to_cart"): AssistantContentBlock => ({
  type: "tool_use",
  id,
  name,
  input: { sku: "A-1" },
});
const result = (id: string, content = "ok"): UserContentBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content,
});

/** A valid shopping conversation: two tool rounds, server tools, then a final answer. */
const valid: Message[] = [
  user("Put A and B in my cart and tell me the total."),
  assistant(text("Adding both."), call("toolu_a"), call("toolu_b"), call("toolu_t", "cart_total")),
  user([result("toolu_a"), result("toolu_b"), result("toolu_t", "Total: 42.00 EUR")]),
  assistant(
    { type: "thinking", thinking: "Check reviews.", signature: "sig" },
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "A" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
    text("A is well reviewed."),
    call("toolu_c", "check_stock"),
  ),
  user([result("toolu_c", "In stock: 12"), text("Also, is there a discount?")]),
  assistant(text("Your total is 42.00 EUR and there is no discount today.")),
];

function codes(
  messages: readonly Message[],
  allowTrailingToolUse?: boolean,
): ConversationViolationCode[] {
  return validateConversation(messages, { allowTrailingToolUse }).map((v) => v.code);
}

describe("validateConversation", () => {
  it("accepts a valid multi-round conversation", () => {
    expect(validateConversation(valid)).toEqual([]);
    expect(() => assertValidConversation(valid)).not.toThrow();
  });

  it("accepts user messages with string content, and a single user message", () => {
    expect(validateConversation([user("hi")])).toEqual([]);
    expect(validateConversation([user("hi"), assistant(text("hello")), user("thanks")])).toEqual(
      [],
    );
  });

  it("accepts results followed by other user content (images and documents pass through)", () => {
    const image = { type: "image", source: { type: "url", url: "https://x" } };
    const conversation = [
      user("look"),
      assistant(call("toolu_1")),
      user([result("toolu_1"), image as unknown as UserContentBlock, text("and this")]),
    ];
    expect(validateConversation(conversation)).toEqual([]);
  });

  it("reports an empty conversation", () => {
    expect(codes([])).toEqual(["empty_conversation"]);
  });

  it("reports a first message that is not from the user", () => {
    expect(codes([assistant(text("Hello!")), user("hi")])).toEqual(["first_not_user"]);
  });

  it("reports consecutive messages of one role", () => {
    expect(codes([user("a"), user("b")])).toEqual(["roles_not_alternating"]);
    expect(codes([user("a"), assistant(text("b")), assistant(text("c"))])).toEqual([
      "roles_not_alternating",
    ]);
    const [violation] = validateConversation([user("a"), user("b")]);
    expect(violation).toMatchObject({ messageIndex: 1 });
    expect(violation?.message).toContain("Messages 0 and 1 are both user messages");
  });

  it("reports a tool_use without a result in the next user message", () => {
    const conversation = [
      user("add A and B"),
      assistant(call("toolu_a"), call("toolu_b")),
      user([result("toolu_a")]),
    ];
    expect(codes(conversation)).toEqual(["tool_use_unanswered"]);
    const [violation] = validateConversation(conversation);
    expect(violation).toMatchObject({ messageIndex: 1, toolUseId: "toolu_b" });
    expect(violation?.message).toContain("toolu_b");
    expect(violation?.message).toContain("message 2 has no tool_result");
  });

  it("reports a trailing tool_use unless the caller allows it", () => {
    const conversation = [user("add A"), assistant(text("Adding."), call("toolu_a"))];
    expect(codes(conversation)).toEqual(["tool_use_unanswered"]);
    expect(validateConversation(conversation)[0]?.message).toContain("no user message follows");
    expect(codes(conversation, true)).toEqual([]);
    // Allowing a trailing tool_use does not excuse an unanswered one earlier.
    const earlier = [
      user("x"),
      assistant(call("toolu_a")),
      user("no results"),
      assistant(call("toolu_b")),
    ];
    expect(codes(earlier, true)).toEqual(["tool_use_unanswered"]);
  });

  it("reports tool_results placed after other content", () => {
    const conversation = [
      user("add A and B"),
      assistant(call("toolu_a"), call("toolu_b")),
      user([result("toolu_a"), text("thanks"), result("toolu_b")]),
    ];
    expect(codes(conversation)).toEqual(["results_not_first"]);
    expect(validateConversation(conversation)[0]).toMatchObject({
      messageIndex: 2,
      toolUseId: "toolu_b",
    });
  });

  it("reports a tool_result that answers no tool_use of the preceding assistant message", () => {
    const conversation = [
      user("add A"),
      assistant(call("toolu_a")),
      user([result("toolu_a"), result("toolu_ghost")]),
    ];
    expect(codes(conversation)).toEqual(["orphan_tool_result"]);
    expect(validateConversation(conversation)[0]?.message).toContain("toolu_ghost");
    // A result in the first message has no assistant message before it.
    expect(codes([user([result("toolu_x")])])).toEqual(["orphan_tool_result"]);
    // A result for a call of an earlier round (not the immediately preceding message).
    const late = [
      user("a"),
      assistant(call("toolu_a")),
      user([result("toolu_a")]),
      assistant(text("done")),
      user([result("toolu_a")]),
    ];
    expect(codes(late)).toEqual(["orphan_tool_result"]);
  });

  it("reports a tool_result for a server_tool_use as an orphan", () => {
    const conversation = [
      user("search"),
      assistant(
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
        text("found it"),
      ),
      user([result("srvtoolu_1")]),
    ];
    expect(codes(conversation)).toEqual(["orphan_tool_result"]);
  });

  it("reports a tool_use id used twice in the conversation", () => {
    const conversation = [
      user("a"),
      assistant(call("toolu_same")),
      user([result("toolu_same")]),
      assistant(call("toolu_same")),
      user([result("toolu_same")]),
    ];
    expect(codes(conversation)).toEqual(["duplicate_tool_use_id"]);
    const [violation] = validateConversation(conversation);
    expect(violation).toMatchObject({ messageIndex: 3, toolUseId: "toolu_same" });
    expect(violation?.message).toContain("already used in message 1");
  });

  it("reports two results for one id", () => {
    const conversation = [
      user("a"),
      assistant(call("toolu_a")),
      user([result("toolu_a"), result("toolu_a", "again")]),
    ];
    expect(codes(conversation)).toEqual(["duplicate_tool_result"]);
  });

  it("reports empty and whitespace-only text", () => {
    expect(
      codes([user("a"), assistant(text(""), call("toolu_a")), user([result("toolu_a")])]),
    ).toEqual(["empty_text"]);
    expect(codes([user("a"), assistant(text("\n\n"))])).toEqual(["empty_text"]);
    expect(codes([user([text("")])])).toEqual(["empty_text"]);
    expect(codes([user("  ")])).toEqual(["empty_text"]);
    const inResult: Message[] = [
      user("a"),
      assistant(call("toolu_a")),
      user([{ type: "tool_result", tool_use_id: "toolu_a", content: [text("")] }]),
    ];
    expect(codes(inResult)).toEqual(["empty_text"]);
  });

  it("reports a message without content", () => {
    expect(codes([user("a"), assistant()])).toEqual(["empty_message"]);
    expect(codes([user("a"), assistant(), user("b")])).toEqual(["empty_message"]);
    expect(codes([user("")])).toEqual(["empty_message"]);
    expect(codes([user([])])).toEqual(["empty_message"]);
  });

  it("does not require a result block for a server_tool_use (pause_turn is allowed)", () => {
    const paused = [
      user("search"),
      assistant({ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }),
    ];
    expect(codes(paused)).toEqual([]);
  });

  it("reports every violation in message order", () => {
    const conversation = [
      assistant(text("hi")),
      assistant(call("toolu_a")),
      user([text("x"), result("toolu_b")]),
    ];
    expect(validateConversation(conversation).map((v) => [v.messageIndex, v.code])).toEqual([
      [0, "first_not_user"],
      [1, "roles_not_alternating"],
      [1, "tool_use_unanswered"],
      [2, "results_not_first"],
      [2, "orphan_tool_result"],
    ]);
  });
});

describe("assertValidConversation", () => {
  it("throws invalid_conversation naming the first violation, with all in details", () => {
    const conversation = [user("a"), assistant(call("toolu_a")), user("no result"), user("again")];
    let caught: unknown;
    try {
      assertValidConversation(conversation);
    } catch (err) {
      caught = err;
    }
    expect(isOverlapError(caught, "invalid_conversation")).toBe(true);
    const err = caught as Error & { details: unknown };
    expect(err.message).toContain("toolu_a");
    expect(err.message).toContain("(and 1 more)");
    expect(err.details).toHaveLength(2);
  });

  it("passes the trailing tool_use option through", () => {
    const conversation = [user("a"), assistant(call("toolu_a"))];
    expect(() => assertValidConversation(conversation)).toThrow(/toolu_a/);
    expect(() =>
      assertValidConversation(conversation, { allowTrailingToolUse: true }),
    ).not.toThrow();
  });
});
