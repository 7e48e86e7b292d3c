/**
 * The OpenAI Responses API's wire format, from a resolved script and its pacing: the streamed
 * events as the API sends them (`event: <type>` and `data: <json>` with `type` and
 * `sequence_number`), and the non-streaming `response` body. Pure.
 *
 * Stream: `response.created` and `response.in_progress` right away (the response with empty
 * `output`), then one output item per block:
 *
 * - text → a `message` item: `response.output_item.added`, `response.content_part.added`,
 *   `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`,
 *   `response.output_item.done` (a script stopping with `refusal` sends `refusal` parts and
 *   `response.refusal.delta` / `.done` instead); a text's citations are `url_citation`
 *   annotations over the whole text, each announced by `response.output_text.annotation.added`
 *   after the text deltas and listed on the done part and item;
 * - server_tool_use (web search) → a `web_search_call` item (`ws_…`): added with `action:
 *   { type: "search" }`, `response.web_search_call.in_progress` and `.searching`, then
 *   `.completed` and the done item with the action's `query` and `queries` (and `sources`, the
 *   urls of the search's results, when the request includes `web_search_call.action.sources`);
 * - tool_use → a `function_call` item (`fc_…` id, `call_…` call id): added with `arguments: ""`,
 *   `response.function_call_arguments.delta`…, `response.function_call_arguments.done`, done;
 * - thinking → a `reasoning` item (`rs_…`): its summary streams as
 *   `response.reasoning_summary_part.added` / `response.reasoning_summary_text.delta`… / `.done`
 *   / `response.reasoning_summary_part.done` only when the request asks for one
 *   (`reasoning.summary`), else the reasoning is silent (`summary: []`); the item carries
 *   `encrypted_content` when the request includes `reasoning.encrypted_content`.
 *
 * then `response.completed`, or `response.incomplete` (`incomplete_details.reason:
 * "max_output_tokens"`) when the answer was cut: the cut item ends with `status: "incomplete"`,
 * and a cut call gets no `function_call_arguments.done` (its arguments never completed).
 * Item ids share their response id's first characters, as the API's do.
 */

import type { IdFactory } from "./id-factory.js";
import type { PacedItem } from "./pacing.js";
import { estimateTokens } from "./pacing.js";
import { outputTokens, type ResolvedBlock, type ResolvedScript } from "./resolve-script.js";
import { isJsonObject } from "./validate-request.js";
import { sseEvent, type WireFrame } from "./wire-frame.js";

/** What the Responses encoders need besides the script. */
export interface ResponsesWireContext {
  /** `resp_…`. */
  responseId: string;
  /** The id of each block's output item (`msg_…`, `fc_…`, `rs_…`), by block position. */
  itemIds: readonly string[];
  /** Sealed reasoning of each thinking block: at `output_item.added` and at `.done`. */
  sealed: ReadonlyArray<{ added: string; done: string } | undefined>;
  model: string;
  /** Unix seconds. */
  createdAt: number;
  inputTokens: number;
  /** The validated request body: the response echoes its settings. */
  body: Readonly<Record<string, unknown>>;
}

/**
 * The `error` event sent mid-stream by the `error-after` fault, in the shape the API was
 * recorded sending (the error nested, which the SDK raises as an APIError). The real event also
 * carries a `sequence_number`, which this constant frame cannot know.
 */
export const RESPONSES_STREAM_ERROR_EVENT = sseEvent("error", {
  type: "error",
  error: {
    type: "server_error",
    code: "server_error",
    message: "The server had an error while processing your request. Sorry about that!",
    param: null,
  },
});

/** The ids and sealed reasoning of one response (drawn from the request's seeded ids). */
export function responsesContext(
  script: ResolvedScript,
  ids: IdFactory,
  settings: Omit<ResponsesWireContext, "responseId" | "itemIds" | "sealed">,
): ResponsesWireContext {
  // `req_` + 32 hex digits per draw: the seeded hex source without a new IdFactory method.
  const hex = (count: number): string => {
    let out = "";
    while (out.length < count) out += ids.openaiRequest().slice(4);
    return out.slice(0, count);
  };
  const shared = hex(24);
  const id = (prefix: string): string => `${prefix}_${shared}${hex(26)}`;
  const responseId = id("resp");
  const itemIds = script.blocks.map((b) =>
    id(
      b.type === "tool_use"
        ? "fc"
        : b.type === "thinking"
          ? "rs"
          : b.type === "server_tool_use"
            ? "ws"
            : "msg",
    ),
  );
  const sealed = script.blocks.map((b, i) =>
    b.type === "thinking"
      ? { added: sealReasoning(itemIds[i]!, hex(40)), done: sealReasoning(itemIds[i]!, hex(40)) }
      : undefined,
  );
  return { ...settings, responseId, itemIds, sealed };
}

/**
 * Opaque `encrypted_content` for a reasoning item, in the API's style (`gAAAAAB…`). It seals
 * nothing but the item's id, so the server can tell an item sent back unchanged (see
 * {@link sealedItemId}).
 */
export function sealReasoning(itemId: string, noise: string): string {
  return `gAAAAAB${Buffer.from(`overlap-sim:${itemId}:${noise}`).toString("base64url")}`;
}

/** The item id sealed in an `encrypted_content`, or undefined when the sim did not make it. */
export function sealedItemId(content: string): string | undefined {
  if (!content.startsWith("gAAAAAB")) return undefined;
  const text = Buffer.from(content.slice(7), "base64url").toString("utf8");
  const match = /^overlap-sim:([^:]+):[0-9a-f]+$/.exec(text);
  return match?.[1];
}

function wantsSummary(body: Readonly<Record<string, unknown>>): boolean {
  const reasoning = body.reasoning;
  return isJsonObject(reasoning) && typeof reasoning.summary === "string";
}

function wantsSources(body: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(body.include) && body.include.includes("web_search_call.action.sources");
}

function wantsEncrypted(body: Readonly<Record<string, unknown>>): boolean {
  return Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
}

/** The echo of the request's function tools, as the response lists them. */
function echoTools(body: Readonly<Record<string, unknown>>): unknown[] {
  if (!Array.isArray(body.tools)) return [];
  return body.tools.filter(isJsonObject).map((tool) =>
    tool.type === "function"
      ? {
          type: "function",
          description: tool.description ?? null,
          name: tool.name,
          parameters: tool.parameters ?? null,
          strict: tool.strict ?? true,
        }
      : tool,
  );
}

type Status = "in_progress" | "completed" | "incomplete";

/** The `response` object in a given state. */
function responseObject(
  context: ResponsesWireContext,
  status: Status,
  output: unknown[],
  usage: unknown,
): Record<string, unknown> {
  const { body } = context;
  const reasoning = isJsonObject(body.reasoning) ? body.reasoning : {};
  return {
    id: context.responseId,
    object: "response",
    created_at: context.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    model: context.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    safety_identifier: null,
    service_tier: status === "in_progress" ? "auto" : "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: echoTools(body),
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: body.metadata ?? {},
  };
}

function usage(script: ResolvedScript, context: ResponsesWireContext): unknown {
  const output = outputTokens(script);
  const reasoning = script.blocks.reduce(
    (sum, b) => sum + (b.type === "thinking" ? estimateTokens(b.thinking) : 0),
    0,
  );
  return {
    input_tokens: context.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: context.inputTokens + output,
  };
}

/** True when the response was cut (the last block is then the incomplete one). */
function isCut(script: ResolvedScript): boolean {
  return script.stopReason === "max_tokens";
}

function textPart(
  refusal: boolean,
  text: string,
  annotations: readonly unknown[] = [],
): Record<string, unknown> {
  return refusal
    ? { type: "refusal", refusal: text }
    : { type: "output_text", annotations, logprobs: [], text };
}

/** A text block's citations as `url_citation` annotations over its whole text. */
function annotationsOf(block: ResolvedBlock): Record<string, unknown>[] {
  if (block.type !== "text") return [];
  return (block.citations ?? []).map((c) => ({
    type: "url_citation",
    start_index: 0,
    end_index: block.text.length,
    title: c.title,
    url: c.url,
  }));
}

/** The query a web search call's argument text names. */
function searchQuery(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isJsonObject(parsed) && typeof parsed.query === "string") return parsed.query;
  } catch {
    // Not JSON (a cut call): the text itself.
  }
  return args;
}

/** A block's output item, complete (`done`) or as it starts. */
function outputItem(
  block: ResolvedBlock,
  index: number,
  script: ResolvedScript,
  context: ResponsesWireContext,
  done: boolean,
): Record<string, unknown> {
  const id = context.itemIds[index]!;
  const status: Status = !done
    ? "in_progress"
    : isCut(script) && index === script.blocks.length - 1
      ? "incomplete"
      : "completed";
  switch (block.type) {
    case "tool_use":
      return {
        id,
        type: "function_call",
        status,
        arguments: done ? block.args : "",
        call_id: block.id,
        name: block.name,
      };
    case "server_tool_use": {
      if (!done) return { id, type: "web_search_call", status, action: { type: "search" } };
      const query = searchQuery(block.args);
      const action: Record<string, unknown> = { type: "search", queries: [query], query };
      if (wantsSources(context.body) && block.sources) {
        action.sources = block.sources.map((r) => ({ type: "url", url: r.url }));
      }
      return { id, type: "web_search_call", status, action };
    }
    case "thinking": {
      const item: Record<string, unknown> = { id, type: "reasoning" };
      const sealed = context.sealed[index];
      if (wantsEncrypted(context.body) && sealed) {
        item.encrypted_content = done ? sealed.done : sealed.added;
      }
      item.summary =
        done && wantsSummary(context.body) ? [{ type: "summary_text", text: block.thinking }] : [];
      return item;
    }
    default: {
      const text = block.type === "text" ? block.text : "";
      return {
        id,
        type: "message",
        status,
        content: done
          ? [textPart(script.stopReason === "refusal", text, annotationsOf(block))]
          : [],
        role: "assistant",
      };
    }
  }
}

/** The streamed events, each with the time to send it. */
export function encodeResponsesStream(
  script: ResolvedScript,
  items: readonly PacedItem[],
  context: ResponsesWireContext,
): WireFrame[] {
  const frames: WireFrame[] = [];
  let sequence = 0;
  const emit = (atMs: number, type: string, fields: Record<string, unknown>): void => {
    frames.push({ atMs, text: sseEvent(type, { type, sequence_number: sequence++, ...fields }) });
  };
  emit(0, "response.created", { response: responseObject(context, "in_progress", [], null) });
  emit(0, "response.in_progress", { response: responseObject(context, "in_progress", [], null) });
  const refusal = script.stopReason === "refusal";
  const summary = wantsSummary(context.body);

  for (const item of items) {
    if (item.type === "message-end") {
      const done = script.blocks.map((b, i) => outputItem(b, i, script, context, true));
      emit(item.atMs, isCut(script) ? "response.incomplete" : "response.completed", {
        response: responseObject(
          context,
          isCut(script) ? "incomplete" : "completed",
          done,
          usage(script, context),
        ),
      });
      continue;
    }
    const block = script.blocks[item.index];
    if (block === undefined) continue;
    const at = { item_id: context.itemIds[item.index], output_index: item.index };
    const { atMs } = item;
    if (item.type === "block-start") {
      emit(atMs, "response.output_item.added", {
        output_index: item.index,
        item: outputItem(block, item.index, script, context, false),
      });
      if (block.type === "text") {
        emit(atMs, "response.content_part.added", {
          ...at,
          content_index: 0,
          part: textPart(refusal, ""),
        });
      } else if (block.type === "server_tool_use") {
        emit(atMs, "response.web_search_call.in_progress", at);
        emit(atMs, "response.web_search_call.searching", at);
      } else if (block.type === "thinking" && summary) {
        emit(atMs, "response.reasoning_summary_part.added", {
          ...at,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        });
      }
      continue;
    }
    if (item.type === "delta") {
      if (block.type === "text") {
        if (refusal) {
          emit(atMs, "response.refusal.delta", { ...at, content_index: 0, delta: item.text });
        } else {
          emit(atMs, "response.output_text.delta", {
            ...at,
            content_index: 0,
            delta: item.text,
            logprobs: [],
          });
        }
      } else if (block.type === "tool_use") {
        emit(atMs, "response.function_call_arguments.delta", { ...at, delta: item.text });
      } else if (block.type === "thinking" && summary) {
        emit(atMs, "response.reasoning_summary_text.delta", {
          ...at,
          summary_index: 0,
          delta: item.text,
        });
      }
      continue;
    }
    // block-stop
    const cut = isCut(script) && item.index === script.blocks.length - 1;
    if (block.type === "text") {
      const annotations = refusal ? [] : annotationsOf(block);
      annotations.forEach((annotation, annotation_index) => {
        emit(atMs, "response.output_text.annotation.added", {
          ...at,
          content_index: 0,
          annotation_index,
          annotation,
        });
      });
      if (refusal) {
        emit(atMs, "response.refusal.done", { ...at, content_index: 0, refusal: block.text });
      } else {
        emit(atMs, "response.output_text.done", {
          ...at,
          content_index: 0,
          text: block.text,
          logprobs: [],
        });
      }
      emit(atMs, "response.content_part.done", {
        ...at,
        content_index: 0,
        part: textPart(refusal, block.text, annotations),
      });
    } else if (block.type === "server_tool_use") {
      emit(atMs, "response.web_search_call.completed", at);
    } else if (block.type === "tool_use" && !cut) {
      emit(atMs, "response.function_call_arguments.done", { ...at, arguments: block.args });
    } else if (block.type === "thinking" && summary) {
      emit(atMs, "response.reasoning_summary_text.done", {
        ...at,
        summary_index: 0,
        text: block.thinking,
      });
      emit(atMs, "response.reasoning_summary_part.done", {
        ...at,
        summary_index: 0,
        part: { type: "summary_text", text: block.thinking },
      });
    }
    emit(atMs, "response.output_item.done", {
      output_index: item.index,
      item: outputItem(block, item.index, script, context, true),
    });
  }
  return frames;
}

/** The non-streaming `response` body. */
export function responsesResponseBody(
  script: ResolvedScript,
  context: ResponsesWireContext,
): unknown {
  const output = script.blocks.map((b, i) => outputItem(b, i, script, context, true));
  return responseObject(
    context,
    isCut(script) ? "incomplete" : "completed",
    output,
    usage(script, context),
  );
}
