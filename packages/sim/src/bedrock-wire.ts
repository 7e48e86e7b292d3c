/**
 * Bedrock's Converse wire format, from a resolved script and its pacing: the binary event stream
 * of `ConverseStream` (see `aws-event-stream.ts`) and the `Converse` body. Pure.
 *
 * Stream (each message `:message-type: event`, `:content-type: application/json`, its
 * `:event-type` the union member; every payload carries the `p` padding field the service adds
 * to hide lengths): `messageStart` `{ role: "assistant" }`; per block, with `contentBlockIndex`
 * counting the blocks: a call opens with `contentBlockStart` `{ start: { toolUse: { toolUseId,
 * name } } }` and streams `contentBlockDelta` `{ delta: { toolUse: { input } } }` (string
 * fragments); text has no start event, its first `{ delta: { text } }` opens it; thinking streams
 * `{ delta: { reasoningContent: { text } } }` then one `{ reasoningContent: { signature } }`; each
 * block ends with `contentBlockStop`. Then `messageStop` `{ stopReason }` (`end_turn`, `tool_use`,
 * `max_tokens`, `stop_sequence`; `content_filtered` for a refusal) and last `metadata` `{ usage:
 * { inputTokens, outputTokens, totalTokens }, metrics: { latencyMs } }`.
 *
 * Provider-side code execution (Nova's code interpreter): `contentBlockStart` `{ start: { toolUse:
 * { toolUseId, name: "nova_code_interpreter", type: "server_tool_use" } } }`, its `{ snippet }`
 * input in `toolUse` deltas, its stop; then, after the server-side delay, its result as a block
 * of its own: `contentBlockStart` `{ start: { toolResult: { toolUseId, type:
 * "nova_code_interpreter_result", status } } }`, one `{ delta: { toolResult: [{ json: { stdOut,
 * stdErr, exitCode, isError } }] } }` and its stop.
 *
 * Web search (Nova's web grounding, the `nova_grounding` system tool) streams no block of its
 * own: only its time passes (the server-side delay before what follows), and the blocks after it
 * are numbered as if it were not there. A text's citations are `{ delta: { citation: { title,
 * sourceContent, location: { web: { url, domain } } } } }` deltas after its text, before its stop
 * (in `Converse`, the text is a `citationsContent` block holding the text and its citations).
 *
 * Argument text is sent as the script resolved it: the `invalid-json` fault and a cut call (the
 * `max-tokens` fault, the request's `maxTokens`) reach the client as they are, the block still
 * stopped.
 */

import type { ApiRejection } from "./api-rejection.js";
import { awsEvent, awsException } from "./aws-event-stream.js";
import type { PacedItem } from "./pacing.js";
import { outputTokens, type ResolvedBlock, type ResolvedScript } from "./resolve-script.js";
import type { SimStopReason } from "./script.js";
import type { WireFrame } from "./wire-frame.js";

/** What the Bedrock encoders need besides the script. */
export interface BedrockWireContext {
  promptTokens: number;
}

/**
 * The exception sent mid-stream by the `error-after` fault: `:message-type: exception`,
 * `:exception-type: modelStreamErrorException` (the SDK throws it as a ModelStreamErrorException).
 */
export const BEDROCK_STREAM_ERROR_FRAME: Uint8Array = awsException("modelStreamErrorException", {
  message: "The model is overloaded. Please try again later.",
  originalStatusCode: 529,
  originalMessage: "Overloaded",
});

/**
 * The service's error body, `{ message }`; the exception's name travels in the
 * `x-amzn-ErrorType` header (see {@link bedrockRejection}). A rejection made outside the Bedrock
 * dialect (without that header) names it in `__type`, which the SDK reads too.
 */
export function bedrockErrorBody(rejection: ApiRejection): unknown {
  const named = Object.keys(rejection.headers ?? {}).some(
    (h) => h.toLowerCase() === "x-amzn-errortype",
  );
  return named
    ? { message: rejection.message }
    : { __type: awsErrorName(rejection.type), message: rejection.message };
}

/** A rejection with the exception's name in `x-amzn-ErrorType`, as the service sends it. */
export function bedrockRejection(status: number, type: string, message: string): ApiRejection {
  return {
    status,
    type,
    message,
    headers: {
      "x-amzn-ErrorType": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    },
  };
}

/** Our rejection types that are not AWS exception names, as the AWS exception they are. */
function awsErrorName(type: string): string {
  if (/^[A-Z]\w*Exception$/.test(type)) return type;
  if (type === "not_found_error") return "ResourceNotFoundException";
  if (type === "rate_limit_error") return "ThrottlingException";
  if (type === "api_error") return "InternalServerException";
  return "ValidationException";
}

/** The stop reason Converse reports for a script's. */
export function bedrockStopReason(stop: SimStopReason): string {
  if (stop === "refusal") return "content_filtered";
  if (stop === "pause_turn") return "end_turn";
  return stop;
}

/** The `p` field: padding of varying length, as the service adds to every event. */
function padding(n: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return alphabet.slice(0, 1 + ((n * 7) % alphabet.length));
}

function usage(script: ResolvedScript, context: BedrockWireContext) {
  const output = outputTokens(script);
  return {
    inputTokens: context.promptTokens,
    outputTokens: output,
    totalTokens: context.promptTokens + output,
  };
}

/** The streamed messages, each with the time to send it. */
export function encodeBedrockStream(
  script: ResolvedScript,
  items: readonly PacedItem[],
  context: BedrockWireContext,
): WireFrame[] {
  const frames: WireFrame[] = [];
  const push = (atMs: number, eventType: string, payload: Record<string, unknown>): void => {
    const body = { ...payload, p: padding(frames.length) };
    frames.push({
      atMs,
      text: `${eventType} ${JSON.stringify(body)}`,
      bytes: awsEvent(eventType, body),
    });
  };
  push(0, "messageStart", { role: "assistant" });
  /** Blocks that sent something: an empty text block sends nothing at all, not even its stop. */
  const opened = new Set<number>();
  const wireIndex = wireIndexes(script.blocks);
  for (const item of items) {
    if (item.type === "message-end") {
      push(item.atMs, "messageStop", { stopReason: bedrockStopReason(script.stopReason) });
      push(item.atMs, "metadata", {
        usage: usage(script, context),
        metrics: { latencyMs: Math.max(1, Math.round(item.atMs)) },
      });
      break;
    }
    const block = script.blocks[item.index];
    const contentBlockIndex = wireIndex[item.index];
    if (block === undefined || contentBlockIndex === undefined) continue;
    if (item.type === "block-start") {
      if (block.type === "tool_use") {
        opened.add(contentBlockIndex);
        push(item.atMs, "contentBlockStart", {
          contentBlockIndex,
          start: { toolUse: { toolUseId: block.id, name: block.name } },
        });
      } else if (block.type === "code_execution") {
        opened.add(contentBlockIndex);
        push(item.atMs, "contentBlockStart", {
          contentBlockIndex,
          start: { toolUse: { toolUseId: block.id, name: CODE_TOOL, type: "server_tool_use" } },
        });
      } else if (block.type === "code_execution_result") {
        opened.add(contentBlockIndex);
        const result = codeResult(block);
        const { content, ...start } = result;
        push(item.atMs, "contentBlockStart", { contentBlockIndex, start: { toolResult: start } });
        push(item.atMs, "contentBlockDelta", { contentBlockIndex, delta: { toolResult: content } });
      }
    } else if (item.type === "delta") {
      opened.add(contentBlockIndex);
      push(item.atMs, "contentBlockDelta", { contentBlockIndex, delta: delta(block, item.text) });
    } else {
      if (block.type === "thinking") {
        opened.add(contentBlockIndex);
        push(item.atMs, "contentBlockDelta", {
          contentBlockIndex,
          delta: { reasoningContent: { signature: block.signature } },
        });
      }
      if (block.type === "text" && opened.has(contentBlockIndex)) {
        for (const citation of citationsOf(block)) {
          push(item.atMs, "contentBlockDelta", { contentBlockIndex, delta: { citation } });
        }
      }
      if (opened.has(contentBlockIndex)) push(item.atMs, "contentBlockStop", { contentBlockIndex });
    }
  }
  return frames;
}

/** Each block's `contentBlockIndex`: undefined for a web search, which sends no block. */
function wireIndexes(blocks: readonly ResolvedBlock[]): (number | undefined)[] {
  let next = 0;
  return blocks.map((b) =>
    b.type === "server_tool_use" || b.type === "web_search_tool_result" ? undefined : next++,
  );
}

/** A text's citations as Nova's web grounding cites its pages. */
function citationsOf(block: Extract<ResolvedBlock, { type: "text" }>): Record<string, unknown>[] {
  return (block.citations ?? []).map((c) => {
    const citation: Record<string, unknown> = { title: c.title };
    if (c.citedText !== "") citation.sourceContent = [{ text: c.citedText }];
    let domain = c.url;
    try {
      domain = new URL(c.url).hostname;
    } catch {
      // Not a URL: the text itself.
    }
    citation.location = { web: { url: c.url, domain } };
    return citation;
  });
}

function delta(block: ResolvedBlock, text: string): Record<string, unknown> {
  if (block.type === "thinking") return { reasoningContent: { text } };
  if (block.type === "tool_use" || block.type === "code_execution") {
    return { toolUse: { input: text } };
  }
  return { text };
}

/** Nova's code interpreter: the system tool's name. */
const CODE_TOOL = "nova_code_interpreter";

/** A code execution's `toolResult` block, as the service returns it. */
function codeResult(block: Extract<ResolvedBlock, { type: "code_execution_result" }>) {
  return {
    toolUseId: block.toolUseId,
    type: `${CODE_TOOL}_result`,
    status: block.failed ? "error" : "success",
    content: [
      {
        json: {
          stdOut: block.failed ? "" : block.output,
          stdErr: block.failed ? block.output : "",
          exitCode: block.failed ? 1 : 0,
          isError: block.failed,
        },
      },
    ],
  };
}

/** A call's `input` document: its arguments when they are a JSON object, else `{}`. */
function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args === "" ? "{}" : args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The `Converse` (non-streaming) body. */
export function bedrockResponseBody(
  script: ResolvedScript,
  context: BedrockWireContext,
  latencyMs: number,
): unknown {
  const content: Record<string, unknown>[] = [];
  for (const block of script.blocks) {
    if (block.type === "text") {
      if (block.text !== "" && block.citations) {
        content.push({
          citationsContent: { content: [{ text: block.text }], citations: citationsOf(block) },
        });
      } else if (block.text !== "") content.push({ text: block.text });
    } else if (block.type === "thinking") {
      content.push({
        reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } },
      });
    } else if (block.type === "tool_use") {
      content.push({
        toolUse: { toolUseId: block.id, name: block.name, input: inputOf(block.args) },
      });
    } else if (block.type === "code_execution") {
      content.push({
        toolUse: {
          toolUseId: block.id,
          name: CODE_TOOL,
          input: inputOf(block.args),
          type: "server_tool_use",
        },
      });
    } else if (block.type === "code_execution_result") {
      content.push({ toolResult: codeResult(block) });
    }
  }
  return {
    metrics: { latencyMs: Math.max(1, Math.round(latencyMs)) },
    output: { message: { role: "assistant", content } },
    stopReason: bedrockStopReason(script.stopReason),
    usage: usage(script, context),
  };
}
