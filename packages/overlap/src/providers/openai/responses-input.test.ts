import { describe, expect, it } from "vitest";
import { repairConversation } from "../../agent/repair-conversation.js";
import { validateConversation } from "../../agent/validate-conversation.js";
import { BlockAssembler } from "../../stream/block-assembler.js";
import type { AssistantMessage, Message } from "../../stream/message.js";
import { toLanguageModelV3Prompt } from "../ai-sdk/ai-sdk-prompt.js";
import { anthropicParams } from "../anthropic/anthropic.js";
import { toConverseMessages } from "../bedrock/bedrock-request.js";
import { toGeminiContents } from "../google/gemini-request.js";
import { withoutResponsesData } from "../without-responses-data.js";
import { toChatMessages } from "./chat-messages.js";
import { responsesParams } from "./openai-responses.js";
import { ResponsesEventTranslator, type ResponsesItem } from "./responses-event-translator.js";
import { toResponsesInput } from "./responses-input.js";

const REASONING_ITEM = {
  id: "rs_01",
  type: "reasoning",
  encrypted_content: "gAAAAABsealed==",
  summary: [{ type: "summary_text", text: "**Plan**\n\nAdd, then answer." }],
};

const ASSISTANT: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "openai_reasoning", item: REASONING_ITEM },
    { type: "text", text: "Adding ", openai_item: { id: "msg_01", phase: "commentary" } },
    { type: "text", text: "it now.", openai_item: { id: "msg_01", phase: "commentary" } },
    {
      type: "tool_use",
      id: "call_A",
      name: "add_to_cart",
      input: { sku: "SHOE-42", qty: 2 },
      openai_item: { id: "fc_01" },
    },
    { type: "tool_use", id: "call_B", name: "cart_total", input: {} },
  ],
};

const CONVERSATION: Message[] = [
  { role: "user", content: "Add the shoes." },
  ASSISTANT,
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "call_A", content: "Added." },
      {
        type: "tool_result",
        tool_use_id: "call_B",
        content: [
          { type: "text", text: "Total:" },
          { type: "text", text: "€90" },
        ],
        is_error: false,
      },
      { type: "text", text: "And hurry." },
    ],
  },
];

describe("toResponsesInput", () => {
  it("maps every block to its item, in order", () => {
    expect(toResponsesInput(CONVERSATION)).toEqual([
      { role: "user", content: "Add the shoes." },
      REASONING_ITEM,
      {
        id: "msg_01",
        phase: "commentary",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [
          { type: "output_text", text: "Adding ", annotations: [] },
          { type: "output_text", text: "it now.", annotations: [] },
        ],
      },
      {
        id: "fc_01",
        type: "function_call",
        call_id: "call_A",
        name: "add_to_cart",
        arguments: '{"sku":"SHOE-42","qty":2}',
      },
      { type: "function_call", call_id: "call_B", name: "cart_total", arguments: "{}" },
      { type: "function_call_output", call_id: "call_A", output: "Added." },
      { type: "function_call_output", call_id: "call_B", output: "Total:\n€90" },
      { role: "user", content: "And hurry." },
    ]);
  });

  it("text without a Responses item id is an easy assistant message; several user texts are parts", () => {
    expect(
      toResponsesInput([
        {
          role: "user",
          content: [
            { type: "text", text: "One." },
            { type: "text", text: "Two." },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "Hi." }] },
      ]),
    ).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "One." },
          { type: "input_text", text: "Two." },
        ],
      },
      { role: "assistant", content: "Hi." },
    ]);
  });

  it("Messages-API-only blocks are left out", () => {
    expect(
      toResponsesInput([
        { role: "user", content: "Search." },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Hmm.", signature: "sig" },
            { type: "redacted_thinking", data: "xyz" },
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { q: "x" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "text", text: "Found it." },
          ],
        },
      ]),
    ).toEqual([
      { role: "user", content: "Search." },
      { role: "assistant", content: "Found it." },
    ]);
  });

  it("provider-side items go back whole in their place, the reasoning before each kept; citations go back as annotations", () => {
    const search = {
      id: "ws_01",
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "red shoes" },
    };
    const citation = {
      type: "url_citation",
      start_index: 0,
      end_index: 5,
      title: "A",
      url: "https://a",
    };
    const reasoning2 = { ...REASONING_ITEM, id: "rs_02" };
    const messages: Message[] = [
      { role: "user", content: "Search." },
      {
        role: "assistant",
        content: [
          { type: "openai_reasoning", item: REASONING_ITEM },
          {
            type: "server_tool_use",
            id: "ws_01",
            name: "web_search",
            input: { action: search.action },
          },
          { type: "openai_tool_result", tool_use_id: "ws_01", content: search },
          { type: "openai_reasoning", item: reasoning2 },
          { type: "text", text: "Found.", citations: [citation], openai_item: { id: "msg_01" } },
        ],
      },
    ];
    expect(toResponsesInput(messages)).toEqual([
      { role: "user", content: "Search." },
      REASONING_ITEM,
      search,
      reasoning2,
      {
        id: "msg_01",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Found.", annotations: [citation] }],
      },
    ]);
  });

  it("a reasoning item not followed by a message or a call (cut right after it) is left out", () => {
    const cut: Message[] = [
      { role: "user", content: "Go." },
      { role: "assistant", content: [{ type: "openai_reasoning", item: REASONING_ITEM }] },
      { role: "user", content: "Again." },
    ];
    expect(toResponsesInput(cut)).toEqual([
      { role: "user", content: "Go." },
      { role: "user", content: "Again." },
    ]);
    const twice: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "openai_reasoning", item: { ...REASONING_ITEM, id: "rs_00" } },
        { type: "openai_reasoning", item: REASONING_ITEM },
        { type: "text", text: "Done." },
      ],
    };
    expect(toResponsesInput([twice])).toEqual([
      REASONING_ITEM,
      { role: "assistant", content: "Done." },
    ]);
  });

  it("round trip: a streamed response becomes our message, which becomes the response's own output items again", () => {
    const output: ResponsesItem[] = [
      { ...REASONING_ITEM },
      {
        id: "msg_01",
        type: "message",
        status: "completed",
        content: [{ type: "output_text", annotations: [], logprobs: [], text: "Adding it." }],
        role: "assistant",
        phase: "commentary",
      },
      {
        id: "fc_01",
        type: "function_call",
        status: "completed",
        arguments: '{"sku":"SHOE-42","qty":2}',
        call_id: "call_A",
        name: "add_to_cart",
      },
    ];
    // Only the done items and the final response: the translator takes each item whole.
    const translator = new ResponsesEventTranslator();
    const assembler = new BlockAssembler();
    const events = [
      { type: "response.created", response: { id: "resp_1", model: "gpt-test" } },
      ...output.map((item, i) => ({ type: "response.output_item.added", output_index: i, item })),
      ...output.map((item, i) => ({ type: "response.output_item.done", output_index: i, item })),
      { type: "response.completed", response: { id: "resp_1", output } },
    ];
    let message: AssistantMessage | undefined;
    for (const event of events) {
      for (const neutral of translator.push(event)) {
        for (const report of assembler.push(neutral)) {
          if (report.type === "message-end") message = report.message;
        }
      }
    }
    const items = toResponsesInput([message!]);
    // Reasoning: exactly the item. Message and call: the same item, but for the fields that
    // only describe the output (`status` of a call, each part's `logprobs`).
    expect(items[0]).toEqual(output[0]);
    const { logprobs: _l, ...part } = (output[1]!.content ?? [])[0]!;
    expect(items[1]).toEqual({ ...output[1], content: [part] });
    const { status: _s, ...call } = output[2]!;
    expect(items[2]).toEqual(call);
  });
});

describe("the other adapters and the conversation rules leave Responses data alone", () => {
  it("anthropicParams and toChatMessages send no openai_reasoning block and no openai_item field", () => {
    const messages = anthropicParams({ messages: CONVERSATION, tools: [] }, { model: "claude" })
      .messages as unknown as Message[];
    expect(JSON.stringify(messages)).not.toMatch(/openai/);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Adding " },
        { type: "text", text: "it now." },
        { type: "tool_use", id: "call_A", name: "add_to_cart", input: { sku: "SHOE-42", qty: 2 } },
        { type: "tool_use", id: "call_B", name: "cart_total", input: {} },
      ],
    });
    expect(JSON.stringify(toChatMessages(undefined, CONVERSATION))).not.toMatch(/openai|rs_01/);
  });

  it("the other adapters leave out provider-side items and the Responses API's annotations, and keep Claude's citations", () => {
    const search = { id: "ws_01", type: "web_search_call", status: "completed", action: {} };
    const annotation = {
      type: "url_citation",
      start_index: 0,
      end_index: 5,
      title: "A",
      url: "https://a",
    };
    const claude = { type: "web_search_result_location", url: "https://b", cited_text: "b" };
    const messages: Message[] = [
      { role: "user", content: "Search." },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "ws_01", name: "web_search", input: {} },
          { type: "openai_tool_result", tool_use_id: "ws_01", content: search },
          { type: "text", text: "Found.", citations: [annotation], openai_item: { id: "msg_01" } },
          { type: "text", text: "Both.", citations: [annotation, claude] },
        ],
      },
      { role: "user", content: "Thanks." },
    ];
    expect(withoutResponsesData(messages)[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Found." },
        { type: "text", text: "Both.", citations: [claude] },
      ],
    });
    const claudeMessages = anthropicParams({ messages, tools: [] }, { model: "claude" }).messages;
    expect(JSON.stringify(claudeMessages)).not.toMatch(/openai|ws_01|url_citation/);
    expect(JSON.stringify(toChatMessages(undefined, messages))).not.toMatch(/ws_01|url_citation/);
    expect(JSON.stringify(toGeminiContents(messages))).not.toMatch(/ws_01|url_citation/);
    expect(JSON.stringify(toConverseMessages(messages))).not.toMatch(/ws_01|url_citation/);
    expect(JSON.stringify(toLanguageModelV3Prompt(undefined, messages))).not.toMatch(
      /ws_01|url_citation/,
    );
  });

  it("withoutResponsesData returns the same objects when there is nothing to strip, and drops emptied assistant messages", () => {
    const plain: Message[] = [
      { role: "user", content: "Hi." },
      { role: "assistant", content: [{ type: "text", text: "Hello." }] },
    ];
    expect(withoutResponsesData(plain)).toBe(plain);
    const stripped = withoutResponsesData([
      ...plain,
      { role: "user", content: "More." },
      { role: "assistant", content: [{ type: "openai_reasoning", item: REASONING_ITEM }] },
    ]);
    expect(stripped).toEqual([...plain, { role: "user", content: "More." }]);
    expect(stripped[1]).toBe(plain[1]);
  });

  it("validateConversation and repairConversation keep reasoning blocks and item fields as they are", () => {
    expect(validateConversation(CONVERSATION)).toEqual([]);
    const repaired = repairConversation(CONVERSATION);
    expect(repaired).toEqual(CONVERSATION);
    // A cut round: a reasoning block and an unanswered call, repaired like any other.
    const cut: Message[] = [
      { role: "user", content: "Go." },
      {
        role: "assistant",
        content: [
          { type: "openai_reasoning", item: REASONING_ITEM },
          { type: "tool_use", id: "call_Z", name: "x", input: {}, openai_item: { id: "fc_9" } },
        ],
      },
    ];
    const fixed = repairConversation(cut);
    expect(validateConversation(fixed)).toEqual([]);
    expect(fixed[1]).toBe(cut[1]);
    expect(toResponsesInput(fixed).map((i) => (i as { type?: string }).type)).toEqual([
      undefined,
      "reasoning",
      "function_call",
      "function_call_output",
    ]);
  });
});

describe("responsesParams", () => {
  it("system as instructions, function tools with strict false, store false with encrypted reasoning, max_output_tokens", () => {
    const params = responsesParams(
      {
        system: "Be brief.",
        messages: [{ role: "user", content: "Hi." }],
        tools: [
          {
            name: "add_to_cart",
            description: "Adds.",
            input_schema: { type: "object", properties: { sku: { type: "string" } } },
          },
        ],
        maxTokens: 300,
      },
      {
        model: "gpt-test",
        params: { temperature: 0.2, include: ["message.output_text.logprobs"] },
      },
    );
    expect(params).toEqual({
      temperature: 0.2,
      include: ["message.output_text.logprobs", "reasoning.encrypted_content"],
      model: "gpt-test",
      input: [{ role: "user", content: "Hi." }],
      store: false,
      instructions: "Be brief.",
      tools: [
        {
          type: "function",
          name: "add_to_cart",
          description: "Adds.",
          parameters: { type: "object", properties: { sku: { type: "string" } } },
          strict: false,
        },
      ],
      max_output_tokens: 300,
    });
    const stored = responsesParams({ messages: [], tools: [] }, { model: "m", store: true });
    expect(stored).toEqual({ model: "m", input: [], store: true });
    const viaParams = responsesParams(
      { messages: [], tools: [] },
      { model: "m", params: { store: true } },
    );
    expect(viaParams).toEqual({ model: "m", input: [], store: true });
  });

  it("providerTools are sent after the executor's function tools, and alone when there are none", () => {
    const spec = { name: "cart_total", description: "Totals.", input_schema: { type: "object" } };
    const providerTools = [
      { type: "web_search" as const },
      { type: "code_interpreter" as const, container: { type: "auto" as const } },
    ];
    const both = responsesParams({ messages: [], tools: [spec] }, { model: "m", providerTools });
    expect(both.tools).toEqual([
      {
        type: "function",
        name: "cart_total",
        description: "Totals.",
        parameters: { type: "object" },
        strict: false,
      },
      ...providerTools,
    ]);
    const alone = responsesParams({ messages: [], tools: [] }, { model: "m", providerTools });
    expect(alone.tools).toEqual(providerTools);
    expect(responsesParams({ messages: [], tools: [] }, { model: "m" }).tools).toBeUndefined();
  });
});
