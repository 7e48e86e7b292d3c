/**
 * agentUIStreamResponse's round trip, over generated turns (rounds of text and calls to tools
 * that return objects, arrays, plain text, text that is JSON, or fail): what the AI SDK's own
 * client reads (`DefaultChatTransport`, `readUIMessageStream`) is, part for part, the assistant
 * message `toUIMessages` restores from the conversation `onFinish` got; each call answered once,
 * in call order; and the chat the browser kept and the restored chat both read back
 * (`fromUIMessages`) as that conversation, so either continues it.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromUIMessages, toUIMessages } from "../../agent/ai-sdk-messages.js";
import { buildStreamEvents, fakeModel, type ScriptBlock } from "../../testing/stream-builder.js";
import { defineTool } from "../../tools/define-tool.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { type AgentUIStreamFinish, agentUIStreamResponse } from "./agent-ui-stream-response.js";
import { chatClient, chatParts, userMessage } from "./use-chat-client.testkit.js";

const input = z.object({ n: z.number() });
const TOOLS = [
  defineTool({
    name: "object",
    description: "Returns an object.",
    input,
    run: ({ n }) => ({ n, label: `#${n}`, nested: { list: [n, n + 1] } }),
  }),
  defineTool({ name: "array", description: "Returns an array.", input, run: ({ n }) => [n, "x"] }),
  defineTool({ name: "text", description: "Returns text.", input, run: ({ n }) => `plain ${n}` }),
  defineTool({
    name: "json_text",
    description: "Returns text that is JSON.",
    input,
    run: ({ n }) => JSON.stringify({ n }),
  }),
  defineTool({
    name: "fails",
    description: "Fails as expected.",
    input,
    run: ({ n }) => ({ text: `no ${n}`, isError: true }),
  }),
];
const NAMES = TOOLS.map((t) => t.name);

/**
 * Text the conversation keeps. Blank text (whitespace only) is not kept (the Messages API refuses
 * a blank text block), so a restored chat does not show it: the one part the stream has that a
 * restored chat lacks.
 */
const text = (maxLength: number) =>
  fc.string({ minLength: 1, maxLength }).filter((s) => s.trim() !== "");

/** One tool round: optional text, then 1 to 3 calls. */
const toolRound = fc.record({
  text: fc.option(text(12), { nil: undefined }),
  calls: fc.array(
    fc.record({ tool: fc.constantFrom(...NAMES), n: fc.integer({ min: 0, max: 99 }) }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
});
const turnScript = fc.record({
  rounds: fc.array(toolRound, { minLength: 0, maxLength: 3 }),
  answer: text(20),
});

describe("agentUIStreamResponse's round trip (generated turns)", () => {
  it("streams what toUIMessages restores; both chats read back as the conversation", async () => {
    await fc.assert(
      fc.asyncProperty(turnScript, async ({ rounds, answer }) => {
        let id = 0;
        const responses = [
          ...rounds.map((round) =>
            buildStreamEvents([
              ...(round.text === undefined ? [] : [{ type: "text", text: round.text } as const]),
              ...round.calls.map(
                (call): ScriptBlock => ({
                  type: "tool_use",
                  id: `call_${++id}`,
                  name: call.tool,
                  input: { n: call.n },
                }),
              ),
            ]),
          ),
          buildStreamEvents([{ type: "text", text: answer }]),
        ];
        const finishes: AgentUIStreamFinish[] = [];
        const handler = (request: Request) =>
          agentUIStreamResponse(request, {
            model: fakeModel(responses),
            executor: new ToolExecutor(TOOLS),
            logger: false,
            onFinish: (finish) => {
              finishes.push(finish);
            },
          });
        const question = userMessage("go");
        const reply = await chatClient({ handler }).send([question]);
        expect(reply.errors).toEqual([]);
        expect(finishes).toHaveLength(1);
        const { messages, result } = finishes[0]!;
        expect(result.error).toBeUndefined();

        const restored = toUIMessages(messages);
        expect(restored).toHaveLength(2);
        expect(chatParts(reply.message)).toEqual(chatParts(restored[1]!));

        // Each call once, in call order, with the output its tool gave.
        const calls = rounds.flatMap((r) => r.calls);
        const toolParts = reply.message.parts.filter((p) => p.type.startsWith("tool-"));
        expect(toolParts.map((p) => p.type)).toEqual(calls.map((c) => `tool-${c.tool}`));
        expect(toolParts.map((p) => (p as { toolCallId: string }).toolCallId)).toEqual(
          calls.map((_, i) => `call_${i + 1}`),
        );
        toolParts.forEach((part, i) => {
          const { n, tool } = calls[i]!;
          const p = part as { state: string; output?: unknown; errorText?: string };
          if (tool === "fails")
            expect(p).toMatchObject({ state: "output-error", errorText: `no ${n}` });
          else expect(p.state).toBe("output-available");
          if (tool === "object")
            expect(p.output).toEqual({ n, label: `#${n}`, nested: { list: [n, n + 1] } });
          if (tool === "array") expect(p.output).toEqual([n, "x"]);
          if (tool === "text") expect(p.output).toBe(`plain ${n}`);
          if (tool === "json_text") expect(p.output).toEqual({ n });
        });

        // The browser's chat and the restored one are the same conversation.
        expect(fromUIMessages([question, reply.message]).messages).toEqual(messages);
        expect(fromUIMessages(restored).messages).toEqual(messages);
      }),
      { numRuns: 60 },
    );
  });
});

describe("agentUIStreamResponse's answer to any body", () => {
  /** Chat-shaped JSON with arbitrary holes: the bodies a broken or hostile client sends. */
  const part = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom("text", "step-start", "tool-x", "dynamic-tool", "file"),
          fc.jsonValue(),
        ),
        text: fc.jsonValue(),
        toolCallId: fc.jsonValue(),
        state: fc.oneof(
          fc.constantFrom("output-available", "output-error", "input-available"),
          fc.jsonValue(),
        ),
        input: fc.jsonValue(),
        output: fc.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  );
  const message = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        role: fc.oneof(fc.constantFrom("user", "assistant", "system"), fc.jsonValue()),
        parts: fc.oneof(fc.array(part, { maxLength: 4 }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
  );
  const body = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record({ id: fc.jsonValue(), messages: fc.array(message, { maxLength: 4 }) })
      .map((v) => JSON.stringify(v)),
    fc.string(),
  );

  it("is a 400 naming the fault or the turn's stream, never a thrown error", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await agentUIStreamResponse(
          new Request("http://chat.test/api/chat", { method: "POST", body: text }),
          {
            model: fakeModel([buildStreamEvents([{ type: "text", text: "ok" }])]),
            executor: new ToolExecutor(TOOLS),
            logger: false,
          },
        );
        if (response.status === 400) {
          expect((await response.text()).length).toBeGreaterThan(0);
        } else {
          expect(response.status).toBe(200);
          expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
          expect(await response.text()).toMatch(/data: \[DONE\]\n\n$/);
        }
      }),
      { numRuns: 300 },
    );
  });
});
