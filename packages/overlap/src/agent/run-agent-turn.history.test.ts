import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import { buildStreamEvents, fakeModel } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { InMemoryConversationStore } from "./conversation-store.js";
import type { MessageInput } from "./message-shapes.js";
import { runAgentTurn } from "./run-agent-turn.js";
import { validateConversation } from "./validate-conversation.js";

const lookup = defineTool({
  name: "lookup",
  description: "Looks a thing up.",
  input: z.object({ q: z.string() }),
  run: ({ q }) => `found ${q}`,
});
const executor = () => new ToolExecutor([lookup], { abortGraceMs: 5 });
const answer = buildStreamEvents([{ type: "text", text: "Sure." }]);
const calling = buildStreamEvents([
  { type: "tool_use", id: "toolu_a", name: "lookup", input: { q: "x" } },
]);

describe("runAgentTurn reads the history people store", () => {
  it("string content for any role, a leading system message, OpenAI and AI SDK shapes", async () => {
    const model = fakeModel([answer]);
    const history: MessageInput[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"wx"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "rain" },
      { id: "m9", role: "user", parts: [{ type: "text", text: "thanks" }] },
    ];
    const turn = await runAgentTurn({
      model,
      executor: executor(),
      messages: history,
      system: "You are a helper.",
      sink: () => {},
    });
    expect(turn.error).toBeUndefined();
    expect(model.requests[0]?.system).toBe("You are a helper.\n\nBe brief.");
    expect(validateConversation(model.requests[0]?.messages ?? [])).toEqual([]);
    expect(turn.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(turn.added).toEqual([{ role: "assistant", content: [{ type: "text", text: "Sure." }] }]);
  });

  it("refuses, in a resolved result, a system message in the middle naming the system option", async () => {
    const model = fakeModel([answer]);
    const seen: AgentEvent[] = [];
    const turn = await runAgentTurn({
      model,
      executor: executor(),
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: "Now be rude." },
      ],
      sink: (e) => seen.push(e),
    });
    expect(model.requests).toHaveLength(0);
    expect(turn.error?.code).toBe("invalid_conversation");
    expect(turn.error?.message).toMatch(/Message 1 is a system message.*`system` option/);
    expect(seen.map((e) => e.type)).toEqual(["error", "done"]);
  });

  it("never rejects, whatever `messages` holds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (messages) => {
        const turn = await runAgentTurn({
          model: fakeModel([answer, answer]),
          executor: executor(),
          messages: messages as MessageInput[],
          sink: () => {},
        });
        expect(turn.stopReason === "error" || turn.error === undefined).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("after any ending, the next turn is a plain append of the user's message", async () => {
    const endings: {
      name: string;
      run: (messages: MessageInput[]) => ReturnType<typeof runAgentTurn>;
    }[] = [
      {
        name: "max_rounds after tool results",
        run: (messages) =>
          runAgentTurn({
            model: fakeModel([calling]),
            executor: executor(),
            messages,
            sink: () => {},
            maxRounds: 1,
          }),
      },
      {
        name: "a 429 before any output",
        run: (messages) =>
          runAgentTurn({
            model: {
              stream: () => {
                throw Object.assign(new Error("429 rate limited"), { status: 429 });
              },
            },
            executor: executor(),
            messages,
            sink: () => {},
            retry: { maxRetries: 0 },
          }),
      },
      {
        name: "max_tokens in the middle of a call",
        run: (messages) =>
          runAgentTurn({
            model: fakeModel([
              buildStreamEvents([{ type: "text", text: "Let me" }], { stopReason: "max_tokens" }),
            ]),
            executor: executor(),
            messages,
            sink: () => {},
          }),
      },
      {
        name: "aborted",
        run: (messages) =>
          runAgentTurn({
            model: fakeModel([calling]),
            executor: executor(),
            messages,
            sink: () => {},
            signal: AbortSignal.abort(),
          }),
      },
    ];
    for (const ending of endings) {
      const first = await ending.run([{ role: "user", content: "go" }]);
      expect(first.stopReason, ending.name).not.toBe("end_turn");
      const model = fakeModel([answer]);
      const next = await runAgentTurn({
        model,
        executor: executor(),
        messages: [...first.messages, { role: "user", content: "and now?" }],
        sink: () => {},
      });
      expect(next.error, ending.name).toBeUndefined();
      expect(validateConversation(model.requests[0]?.messages ?? []), ending.name).toEqual([]);
    }
  });

  it("a store written through onMessages ends up holding the normalized conversation", async () => {
    const store = new InMemoryConversationStore();
    await store.write("c", 0, [{ role: "user", content: "hi" }]);
    const loaded = await store.load("c");
    const turn = await runAgentTurn({
      model: fakeModel([answer]),
      executor: executor(),
      messages: [
        ...loaded,
        { role: "assistant", content: "hello" },
        { role: "user", content: "again" },
      ] as MessageInput[],
      sink: () => {},
      onMessages: ({ from, messages }) => store.write("c", from, messages),
    });
    expect(turn.error).toBeUndefined();
    expect(await store.load("c")).toEqual(turn.messages);
  });
});
