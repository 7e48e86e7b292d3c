/**
 * A policy's script made concrete for one API: ids filled in, tool arguments turned into the
 * exact text that will be streamed, blocks the API cannot carry dropped, and the argument faults
 * and `max_tokens` cut applied. The wire encoders work only from this.
 */

import type { IdFactory } from "./id-factory.js";
import { estimateTokens } from "./pacing.js";
import type { SimBlock, SimScript, SimStopReason } from "./script.js";

/** One web search hit as sent. */
export interface ResolvedWebSearchResult {
  title: string;
  url: string;
  encryptedContent: string;
  pageAge: string | null;
}

/** One source a text cites, as sent (`encryptedIndex`: the Messages API's `encrypted_index`). */
export interface ResolvedCitation {
  url: string;
  title: string;
  citedText: string;
  encryptedIndex: string;
}

/** A block with everything the wire needs. `args` is the argument text exactly as streamed. */
export type ResolvedBlock =
  | { type: "text"; text: string; citations?: readonly ResolvedCitation[] }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; args: string }
  | {
      type: "server_tool_use";
      id: string;
      name: string;
      args: string;
      /** The Responses API: the search's results, its call's `sources` (no item of their own). */
      sources?: readonly ResolvedWebSearchResult[];
    }
  | { type: "web_search_tool_result"; toolUseId: string; results: ResolvedWebSearchResult[] }
  /** `args`: the code (Gemini) or the `{ snippet }` input text (Bedrock). */
  | { type: "code_execution"; id: string; code: string; args: string }
  | { type: "code_execution_result"; toolUseId: string; output: string; failed: boolean };

/** A response ready to pace and encode. */
export interface ResolvedScript {
  blocks: ResolvedBlock[];
  stopReason: SimStopReason;
}

/** Options of {@link resolveScript}. */
export interface ResolveOptions {
  api: "anthropic" | "openai" | "gemini" | "responses" | "bedrock";
  ids: IdFactory;
  /** The `invalid-json` fault: the last tool call's arguments are made invalid. */
  invalidJson?: boolean;
  /** The `max-tokens` fault: the response is cut inside the last tool call. */
  cutInLastToolUse?: boolean;
  /** The request's `max_tokens`: a longer response is cut there, as a model would be. */
  maxTokens?: number;
}

/**
 * The blocks the Responses API has items for (reasoning, message, function call, web search; a
 * search's results become its call's `sources`, never an item of their own).
 */
const RESPONSES_BLOCKS: ReadonlySet<string> = new Set([
  "text",
  "thinking",
  "tool_use",
  "server_tool_use",
  "web_search_tool_result",
]);

/** Resolves a script for one API (see the module comment). */
export function resolveScript(script: SimScript, options: ResolveOptions): ResolvedScript {
  // Chat Completions has nothing for thinking or code execution: they are left out there; a web
  // search is kept (its delay; the search models show no call) and its wire sends only the
  // citations. Gemini and Bedrock keep a web search the same way (Gemini reports it in the
  // grounding metadata). The Responses API has reasoning items (our thinking) and a web search
  // item (the call; its results are the call's sources). Provider-side code execution is Gemini's
  // and Bedrock's only.
  const source =
    options.api === "openai"
      ? script.blocks.filter((b) => b.type !== "thinking" && !isCodeExecution(b))
      : options.api === "responses"
        ? script.blocks.filter((b) => RESPONSES_BLOCKS.has(b.type))
        : options.api === "gemini" || options.api === "bedrock"
          ? script.blocks
          : script.blocks.filter((b) => !isCodeExecution(b));
  let blocks: ResolvedBlock[] = [];
  for (const block of source) blocks.push(resolveBlock(block, blocks, options));
  if (options.api === "responses") blocks = withSources(blocks);
  let cut = false;
  const lastCall = blocks.findLastIndex((b) => b.type === "tool_use");
  if (options.invalidJson === true && lastCall >= 0) {
    blocks[lastCall] = withArgs(blocks[lastCall]!, breakJson(argsOf(blocks[lastCall]!)));
  }
  if (options.cutInLastToolUse === true) {
    blocks = cutInside(
      blocks,
      lastCall >= 0 ? lastCall : blocks.findLastIndex((b) => b.type === "text"),
    );
    cut = true;
  }
  if (options.maxTokens !== undefined) {
    const budgeted = applyBudget(blocks, options.maxTokens);
    cut ||= budgeted.length !== blocks.length || budgeted.some((b, i) => b !== blocks[i]);
    blocks = budgeted;
  }
  const stopReason: SimStopReason = cut
    ? "max_tokens"
    : (script.stopReason ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"));
  return { blocks, stopReason };
}

function isCodeExecution(block: SimBlock): boolean {
  return block.type === "code_execution" || block.type === "code_execution_result";
}

/**
 * The argument text of a tool input as each API's models produce it: Claude writes `{"a": 1}`
 * (spaces after `:` and `,`) and an empty string for no arguments; OpenAI models write compact
 * JSON (Gemini's `args` object is sent as such; its compact text paces the call). A string
 * input is raw text, kept as is.
 */
export function argumentText(
  input: Readonly<Record<string, unknown>> | string,
  api: "anthropic" | "openai" | "gemini" | "responses" | "bedrock",
): string {
  if (typeof input === "string") return input;
  if (api !== "anthropic") return JSON.stringify(input);
  return Object.keys(input).length === 0 ? "" : spacedJson(input);
}

/** The estimated output tokens of a block (results of server tools cost none). */
export function blockTokens(block: ResolvedBlock): number {
  switch (block.type) {
    case "text":
      return estimateTokens(block.text);
    case "thinking":
      return estimateTokens(block.thinking);
    case "tool_use":
    case "server_tool_use":
      return estimateTokens(block.name) + estimateTokens(block.args);
    case "code_execution":
      return estimateTokens(block.args);
    case "web_search_tool_result":
    case "code_execution_result":
      return 0;
  }
}

/** The estimated output tokens of a response: never 0, as a real response costs at least one. */
export function outputTokens(script: ResolvedScript): number {
  return Math.max(
    1,
    script.blocks.reduce((sum, b) => sum + blockTokens(b), 0),
  );
}

function resolveBlock(
  block: SimBlock,
  before: readonly ResolvedBlock[],
  options: ResolveOptions,
): ResolvedBlock {
  const { api, ids } = options;
  switch (block.type) {
    case "text":
      return block.citations !== undefined && block.citations.length > 0
        ? {
            type: "text",
            text: block.text,
            citations: block.citations.map((c) => ({
              url: c.url,
              title: c.title,
              citedText: c.citedText ?? "",
              encryptedIndex: ids.encryptedContent(),
            })),
          }
        : { type: "text", text: block.text };
    case "thinking":
      return {
        type: "thinking",
        thinking: block.thinking,
        signature: block.signature ?? ids.thinkingSignature(),
      };
    case "tool_use":
      return {
        type: "tool_use",
        // Gemini calls have no id on the wire; Bedrock's are `tooluse_` and 22 characters.
        id:
          block.id ??
          (api === "anthropic"
            ? ids.anthropicToolUse()
            : api === "gemini"
              ? ""
              : api === "bedrock"
                ? `tooluse_${ids.openaiCall().slice(5, 27)}`
                : ids.openaiCall()),
        name: block.name,
        args: argumentText(block.input, api),
      };
    case "server_tool_use":
      return {
        type: "server_tool_use",
        id: block.id ?? ids.anthropicServerToolUse(),
        name: block.name,
        args: argumentText(block.input, api),
      };
    case "code_execution":
      return {
        type: "code_execution",
        id:
          block.id ??
          (api === "bedrock"
            ? `tooluse_${ids.openaiCall().slice(5, 27)}`
            : ids.openaiCall().slice(5, 13).toLowerCase()),
        code: block.code,
        args: api === "bedrock" ? JSON.stringify({ snippet: block.code }) : block.code,
      };
    case "code_execution_result": {
      const call = before.findLast((b) => b.type === "code_execution");
      return {
        type: "code_execution_result",
        toolUseId: block.toolUseId ?? call?.id ?? "",
        output: block.output,
        failed: block.failed === true,
      };
    }
    case "web_search_tool_result": {
      const call = before.findLast((b) => b.type === "server_tool_use");
      return {
        type: "web_search_tool_result",
        toolUseId: block.toolUseId ?? call?.id ?? ids.anthropicServerToolUse(),
        results: block.results.map((r) => ({
          title: r.title,
          url: r.url,
          encryptedContent: ids.encryptedContent(),
          pageAge: r.pageAge ?? null,
        })),
      };
    }
  }
}

/** The Responses API: each search's results moved onto its call as `sources`. */
function withSources(blocks: readonly ResolvedBlock[]): ResolvedBlock[] {
  const out: ResolvedBlock[] = [];
  for (const block of blocks) {
    if (block.type !== "web_search_tool_result") {
      out.push(block);
      continue;
    }
    const at = out.findLastIndex((b) => b.type === "server_tool_use" && b.id === block.toolUseId);
    const call = out[at];
    if (call?.type === "server_tool_use") {
      out[at] = { ...call, sources: [...(call.sources ?? []), ...block.results] };
    }
  }
  return out;
}

function argsOf(block: ResolvedBlock): string {
  return block.type === "tool_use" || block.type === "server_tool_use" ? block.args : "";
}

function withArgs(block: ResolvedBlock, args: string): ResolvedBlock {
  return block.type === "tool_use" || block.type === "server_tool_use" ? { ...block, args } : block;
}

/** Makes argument text invalid the way models do: a trailing comma before the closing brace. */
function breakJson(args: string): string {
  const trimmed = args.trimEnd();
  if (trimmed === "") return "{, }";
  if (trimmed.endsWith("}")) return `${trimmed.slice(0, -1).trimEnd()}, }`;
  return `${trimmed}}`;
}

/** Keeps the first `count` code points. */
function head(text: string, count: number): string {
  return Array.from(text).slice(0, Math.max(0, count)).join("");
}

/** Keeps blocks up to `index` and cuts that block in half (tool JSON stays incomplete). */
function cutInside(blocks: readonly ResolvedBlock[], index: number): ResolvedBlock[] {
  if (index < 0) return [...blocks];
  const kept = blocks.slice(0, index + 1);
  const block = kept[index]!;
  if (block.type === "tool_use") {
    const args = block.args === "" ? "{}" : block.args;
    kept[index] = {
      ...block,
      args: head(args, Math.max(1, Math.floor(Array.from(args).length / 2))),
    };
  } else if (block.type === "text") {
    kept[index] = {
      ...block,
      text: head(block.text, Math.max(1, Math.floor(Array.from(block.text).length / 2))),
    };
  }
  return kept;
}

/** Cuts the response where it would exceed `maxTokens` (4 characters a token). */
function applyBudget(blocks: readonly ResolvedBlock[], maxTokens: number): ResolvedBlock[] {
  const out: ResolvedBlock[] = [];
  let used = 0;
  for (const block of blocks) {
    const cost = blockTokens(block);
    if (used + cost <= maxTokens) {
      out.push(block);
      used += cost;
      continue;
    }
    const chars = (maxTokens - used) * 4;
    if (block.type === "text" && chars > 0) out.push({ ...block, text: head(block.text, chars) });
    if (block.type === "thinking" && chars > 0)
      out.push({ ...block, thinking: head(block.thinking, chars) });
    if (block.type === "tool_use" || block.type === "server_tool_use") {
      out.push({ ...block, args: head(block.args, Math.max(0, chars - block.name.length)) });
    }
    break;
  }
  return out;
}

/** JSON with a space after each `:` and `,`, as Claude writes tool arguments. */
function spacedJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? "null" : spacedJson(v))).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(
      ([, v]) => v !== undefined && typeof v !== "function",
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${spacedJson(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
