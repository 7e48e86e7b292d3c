/**
 * Recorded-style Anthropic Messages API streams, as the exact `text/event-stream` text the API
 * sends, for replay in tests (chunked any way you like). Each comes with what assembling it must
 * produce, written by hand from the stream text, never computed by the code under test.
 *
 * The texts are `String.raw` so that the JSON escapes on the wire (`\"`, `\\u84dd`) read exactly as
 * they are sent. Argument fragments split keys, strings, numbers and escapes at awkward points, as
 * real streams do.
 */

import type { StopReason } from "../protocol/stop-reason.js";
import type { AssistantMessage } from "../stream/message.js";

/** A tool call as the assembler must report it at its block stop, in report order. */
export interface ExpectedToolCall {
  callId: string;
  name: string;
  /** True for a provider-side (server_tool_use) call, which is never run locally (the provider runs it). */
  server: boolean;
  /** Whether the complete arguments passed the strict parse. */
  ok: boolean;
}

/** What replaying a fixture must produce. */
export interface StreamFixtureExpectation {
  /**
   * The assembled message: the final one for a stream that reached message_stop, otherwise the
   * partial one (what repair after the interruption starts from).
   */
  message: AssistantMessage;
  /** The final stop reason; `error` for a stream that broke off with an error event. */
  stopReason: StopReason;
  /** True when the stream reaches message_stop. */
  ended: boolean;
  /** Every tool-call report, in order (local and server calls). */
  toolCalls: ExpectedToolCall[];
  /** The cumulative usage after the last event (fields the API adds beyond `Usage` included). */
  usage: Readonly<Record<string, unknown>>;
  /** The stream's `error` event, for a stream that failed. */
  error?: { type: string; message: string };
}

/** A named stream with its expectation. */
export interface StreamFixture {
  name: string;
  /** The SSE text, exactly as sent on the wire. */
  sse: string;
  expected: StreamFixtureExpectation;
}

// ---------------------------------------------------------------------------------------------
// shoppingRound: "put A and B in my cart and tell me the total" (the seed's running example).
// ---------------------------------------------------------------------------------------------

/**
 * Text, then three tool_use blocks (add_to_cart A, add_to_cart B, cart_total without arguments)
 * with a ping between them; stop reason tool_use.
 */
export const shoppingRound: string = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_01Lk3sP9Vq2XnWbT7cRz4JmY","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1284,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":3,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll add both"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" items to your cart, then check the total."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Hq7XbSy3tZ8WkQm2VnRc4D","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sk"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"u\": \"A-10"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"01\", \"quantity\": 2, \"no"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"te\": \"gift \\"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"wrap\\\" plea"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"se\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: ping
data: {"type": "ping"}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01Bv5PzN2LmKx9JdTg6RwYeF","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"B-20"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"02\", \"quantity\": 1"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"0}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01Ts8CqW4HnZp3VfMa7KuGyL","name":"cart_total","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":143}}

event: message_stop
data: {"type":"message_stop"}

`;

/** What {@link shoppingRound} assembles to. */
export const shoppingRoundExpected: StreamFixtureExpectation = {
  message: {
    role: "assistant",
    content: [
      { type: "text", text: "I'll add both items to your cart, then check the total." },
      {
        type: "tool_use",
        id: "toolu_01Hq7XbSy3tZ8WkQm2VnRc4D",
        name: "add_to_cart",
        input: { sku: "A-1001", quantity: 2, note: 'gift "wrap" please' },
      },
      {
        type: "tool_use",
        id: "toolu_01Bv5PzN2LmKx9JdTg6RwYeF",
        name: "add_to_cart",
        input: { sku: "B-2002", quantity: 10 },
      },
      { type: "tool_use", id: "toolu_01Ts8CqW4HnZp3VfMa7KuGyL", name: "cart_total", input: {} },
    ],
  },
  stopReason: "tool_use",
  ended: true,
  toolCalls: [
    { callId: "toolu_01Hq7XbSy3tZ8WkQm2VnRc4D", name: "add_to_cart", server: false, ok: true },
    { callId: "toolu_01Bv5PzN2LmKx9JdTg6RwYeF", name: "add_to_cart", server: false, ok: true },
    { callId: "toolu_01Ts8CqW4HnZp3VfMa7KuGyL", name: "cart_total", server: false, ok: true },
  ],
  usage: {
    input_tokens: 1284,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 143,
    service_tier: "standard",
  },
};

// ---------------------------------------------------------------------------------------------
// richRound: every block kind, in Chinese, with a provider-side web search.
// ---------------------------------------------------------------------------------------------

/**
 * Thinking (thinking_delta + signature_delta), text, a server_tool_use web_search whose input is
 * streamed with `\u` escapes split across fragments, a whole web_search_tool_result block, text
 * with a citations_delta, more text, a tool_use whose arguments split `\u` escapes and a surrogate
 * pair across fragments, a ping, and one event type the protocol may add later (ignored).
 */
export const richRound: string = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_01QmRk8vTz3NcXa5LpWy2HbE","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2310,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024,"output_tokens":4,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants Bluetooth earbuds as a gift. "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I should check current reviews first, then add the best match with a gift message."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIBxgCKkDp3nV2sQ8h0Zb+T1cXr6dJ4mAOtWq9yLkF7uH2gEiRjC5wPzN0aSvY3xKBe8lQ1fMoUJnDtZ6rGhIy=="}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"我先搜索一下"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"最新的评测 🔍"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"query"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\": \"\\u84"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"dd\\u7259耳机 送礼 评测\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: content_block_start
data: {"type":"content_block_start","index":3,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","content":[{"type":"web_search_result","title":"2025 送礼蓝牙耳机推荐：Aurora Buds 2 评测","url":"https://audio.example.com/reviews/aurora-buds-2","encrypted_content":"EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2ESDJ9aWxkKPaR5qCMBdBoM","page_age":"2 weeks ago"},{"type":"web_search_result","title":"Best wireless earbuds to give this year","url":"https://www.example.org/guides/gift-earbuds","encrypted_content":"Eo8ECioIARgBIiQzZWI4NjBiZC1hZmE3LTRmNDMtYmM0Yy05Y2M5NDBkNTc4ZTMSDO3kKjPb8sRr0vYH1BoM","page_age":null}]}}

event: content_block_stop
data: {"type":"content_block_stop","index":3}

event: content_block_start
data: {"type":"content_block_start","index":4,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Aurora Buds 2 的续航长达 30 小时，礼盒包装精美。","url":"https://audio.example.com/reviews/aurora-buds-2","title":"2025 送礼蓝牙耳机推荐：Aurora Buds 2 评测","encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm"}}}

event: content_block_annotation
data: {"type":"content_block_annotation","index":4,"annotation":{"kind":"safety_review","level":"none"}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"Aurora Buds 2 续航长达 30 小时，"}}

event: content_block_delta
data: {"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"还有精美礼盒 🎁"}}

event: content_block_stop
data: {"type":"content_block_stop","index":4}

event: content_block_start
data: {"type":"content_block_start","index":5,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"我这就把它加入购物车。"}}

event: content_block_stop
data: {"type":"content_block_stop","index":5}

event: content_block_start
data: {"type":"content_block_start","index":6,"content_block":{"type":"tool_use","id":"toolu_01Nf4GkXr7WsQ2mVb9TzJcHd","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"AUR-BUDS2\", \"qua"}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"ntity\": 1, \"gift_message\": \"\\u75"}}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"1f\\u65e5\\u5feb\\"}}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"u4e50 \\ud83c"}}

event: content_block_delta
data: {"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"\\udf81 蓝牙\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":6}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":2310,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024,"output_tokens":412,"server_tool_use":{"web_search_requests":1}}}

event: message_stop
data: {"type":"message_stop"}

`;

const richSearchTitle = "2025 送礼蓝牙耳机推荐：Aurora Buds 2 评测";
const richSearchUrl = "https://audio.example.com/reviews/aurora-buds-2";

/** What {@link richRound} assembles to. */
export const richRoundExpected: StreamFixtureExpectation = {
  message: {
    role: "assistant",
    content: [
      {
        type: "thinking",
        thinking:
          "The user wants Bluetooth earbuds as a gift. I should check current reviews first, then add the best match with a gift message.",
        signature:
          "EqQBCkYIBxgCKkDp3nV2sQ8h0Zb+T1cXr6dJ4mAOtWq9yLkF7uH2gEiRjC5wPzN0aSvY3xKBe8lQ1fMoUJnDtZ6rGhIy==",
      },
      { type: "text", text: "我先搜索一下最新的评测 🔍" },
      {
        type: "server_tool_use",
        id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        name: "web_search",
        input: { query: "蓝牙耳机 送礼 评测" },
      },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        content: [
          {
            type: "web_search_result",
            title: richSearchTitle,
            url: richSearchUrl,
            encrypted_content:
              "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2ESDJ9aWxkKPaR5qCMBdBoM",
            page_age: "2 weeks ago",
          },
          {
            type: "web_search_result",
            title: "Best wireless earbuds to give this year",
            url: "https://www.example.org/guides/gift-earbuds",
            encrypted_content:
              "Eo8ECioIARgBIiQzZWI4NjBiZC1hZmE3LTRmNDMtYmM0Yy05Y2M5NDBkNTc4ZTMSDO3kKjPb8sRr0vYH1BoM",
            page_age: null,
          },
        ],
      },
      {
        type: "text",
        text: "Aurora Buds 2 续航长达 30 小时，还有精美礼盒 🎁",
        citations: [
          {
            type: "web_search_result_location",
            cited_text: "Aurora Buds 2 的续航长达 30 小时，礼盒包装精美。",
            url: richSearchUrl,
            title: richSearchTitle,
            encrypted_index: "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
          },
        ],
      },
      { type: "text", text: "我这就把它加入购物车。" },
      {
        type: "tool_use",
        id: "toolu_01Nf4GkXr7WsQ2mVb9TzJcHd",
        name: "add_to_cart",
        input: { sku: "AUR-BUDS2", quantity: 1, gift_message: "生日快乐 🎁 蓝牙" },
      },
    ],
  },
  stopReason: "tool_use",
  ended: true,
  toolCalls: [
    { callId: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", name: "web_search", server: true, ok: true },
    { callId: "toolu_01Nf4GkXr7WsQ2mVb9TzJcHd", name: "add_to_cart", server: false, ok: true },
  ],
  usage: {
    input_tokens: 2310,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1024,
    output_tokens: 412,
    service_tier: "standard",
    server_tool_use: { web_search_requests: 1 },
  },
};

// ---------------------------------------------------------------------------------------------
// invalidJsonRound: arguments that never become valid JSON (the call must not run).
// ---------------------------------------------------------------------------------------------

/**
 * Two add_to_cart calls: the first one's arguments contain unescaped quotes inside a string (a
 * real model mistake) and never parse; the second one is valid. Stop reason tool_use.
 */
export const invalidJsonRound: string = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_01Dx6YhVq3LpRz8WnKt2MsBc","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":987,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Adding both now."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Pw3KcTz9XmNv4RbLq7HsYg","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"C-3003\", \"quantity\": 2, "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"note\": \"the \"blue"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\" one\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01Gm8RvXs2TqHk5WnCz6JdPa","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"D-4004\""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":", \"quantity\": 1}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":97}}

event: message_stop
data: {"type":"message_stop"}

`;

/** What {@link invalidJsonRound} assembles to: the invalid call keeps `{}` as its input. */
export const invalidJsonRoundExpected: StreamFixtureExpectation = {
  message: {
    role: "assistant",
    content: [
      { type: "text", text: "Adding both now." },
      { type: "tool_use", id: "toolu_01Pw3KcTz9XmNv4RbLq7HsYg", name: "add_to_cart", input: {} },
      {
        type: "tool_use",
        id: "toolu_01Gm8RvXs2TqHk5WnCz6JdPa",
        name: "add_to_cart",
        input: { sku: "D-4004", quantity: 1 },
      },
    ],
  },
  stopReason: "tool_use",
  ended: true,
  toolCalls: [
    { callId: "toolu_01Pw3KcTz9XmNv4RbLq7HsYg", name: "add_to_cart", server: false, ok: false },
    { callId: "toolu_01Gm8RvXs2TqHk5WnCz6JdPa", name: "add_to_cart", server: false, ok: true },
  ],
  usage: {
    input_tokens: 987,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 97,
    service_tier: "standard",
  },
};

// ---------------------------------------------------------------------------------------------
// maxTokensRound: the output limit cuts a tool call's arguments (the cut call must not run).
// ---------------------------------------------------------------------------------------------

/**
 * A complete search_catalog call, then an add_to_cart call whose JSON is cut off by the token
 * limit. The API still closes the block with content_block_stop; stop reason max_tokens.
 */
export const maxTokensRound: string = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_01Vc2JtNw8KsLx4QzRp6GmYh","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1502,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01Xr5MbQw7HvTn2KsJc9PzLd","name":"search_catalog","input":{}}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"linen na"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"pkins\", \"limit\": 5}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Kd9TsVm3WqPb6XnHr2YcFg","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"E-5005\", \"quantity\": 3"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":", \"note\": \"Please wrap each item sepa"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":64}}

event: message_stop
data: {"type":"message_stop"}

`;

/** What {@link maxTokensRound} assembles to: the cut call keeps `{}` as its input. */
export const maxTokensRoundExpected: StreamFixtureExpectation = {
  message: {
    role: "assistant",
    content: [
      {
        type: "tool_use",
        id: "toolu_01Xr5MbQw7HvTn2KsJc9PzLd",
        name: "search_catalog",
        input: { query: "linen napkins", limit: 5 },
      },
      { type: "tool_use", id: "toolu_01Kd9TsVm3WqPb6XnHr2YcFg", name: "add_to_cart", input: {} },
    ],
  },
  stopReason: "max_tokens",
  ended: true,
  toolCalls: [
    { callId: "toolu_01Xr5MbQw7HvTn2KsJc9PzLd", name: "search_catalog", server: false, ok: true },
    { callId: "toolu_01Kd9TsVm3WqPb6XnHr2YcFg", name: "add_to_cart", server: false, ok: false },
  ],
  usage: {
    input_tokens: 1502,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 64,
    service_tier: "standard",
  },
};

// ---------------------------------------------------------------------------------------------
// errorRound: the provider fails mid-stream (every call must still be answered).
// ---------------------------------------------------------------------------------------------

/**
 * Text and one complete add_to_cart call, then a second call whose arguments are still arriving
 * when an `overloaded_error` event ends the stream (no message_delta, no message_stop).
 */
export const errorRound: string = String.raw`event: message_start
data: {"type":"message_start","message":{"id":"msg_01Hb7NqWc4XzTs9KmLv3RpJf","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1130,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Sure, adding the mug"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" and the kettle."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Rt6VwKp2MzQc8HnBs5XyDg","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"MUG-"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"0042\", \"quantity\": 1}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01Lq4ZsHy8NwVc3TkPm7GbRx","name":"add_to_cart","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"sku\": \"KET"}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

`;

/**
 * What {@link errorRound} assembles to: the partial message, where the call that never stopped
 * has `{}` as its input (its record's input is null) and was never reported.
 */
export const errorRoundExpected: StreamFixtureExpectation = {
  message: {
    role: "assistant",
    content: [
      { type: "text", text: "Sure, adding the mug and the kettle." },
      {
        type: "tool_use",
        id: "toolu_01Rt6VwKp2MzQc8HnBs5XyDg",
        name: "add_to_cart",
        input: { sku: "MUG-0042", quantity: 1 },
      },
      { type: "tool_use", id: "toolu_01Lq4ZsHy8NwVc3TkPm7GbRx", name: "add_to_cart", input: {} },
    ],
  },
  stopReason: "error",
  ended: false,
  toolCalls: [
    { callId: "toolu_01Rt6VwKp2MzQc8HnBs5XyDg", name: "add_to_cart", server: false, ok: true },
  ],
  usage: {
    input_tokens: 1130,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 2,
    service_tier: "standard",
  },
  error: { type: "overloaded_error", message: "Overloaded" },
};

/** Every fixture with its expectation, for tests that replay them all. */
export const streamFixtures: readonly StreamFixture[] = [
  { name: "shoppingRound", sse: shoppingRound, expected: shoppingRoundExpected },
  { name: "richRound", sse: richRound, expected: richRoundExpected },
  { name: "invalidJsonRound", sse: invalidJsonRound, expected: invalidJsonRoundExpected },
  { name: "maxTokensRound", sse: maxTokensRound, expected: maxTokensRoundExpected },
  { name: "errorRound", sse: errorRound, expected: errorRoundExpected },
];
