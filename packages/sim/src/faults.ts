/**
 * Fault injection: per request with the header `x-sim-fault` (comma-separated `name[=value]`),
 * or for every request through the server config. The header adds to the config (a name given in
 * both takes the header's value); `none` first in the header drops the config's faults.
 *
 * | fault | effect |
 * | --- | --- |
 * | `error-after=N` | after N events/chunks, an error event (Anthropic `overloaded_error`; OpenAI a `data: {"error":…}` frame), then the connection ends |
 * | `drop-after=N` | after N events/chunks the socket is destroyed, no terminator |
 * | `error-mid-call` | an error event in the middle of the last tool call's arguments (earlier calls complete; without a call, in the middle of the last block), then the connection ends |
 * | `drop-mid-call` | the socket is destroyed at that same point |
 * | `invalid-json` | the last tool call's arguments are not valid JSON |
 * | `max-tokens` | the response is cut inside the last tool call (its JSON incomplete, its block still stopped), stop reason `max_tokens` / `length` |
 * | `status=429\|529\|500` | that error status before the stream, with the API's own error body |
 * | `slow-first-byte=MS` | nothing at all (not even headers) for MS milliseconds |
 * | `thinking` | a thinking block first (Messages API only) |
 * | `web-search` | a web search before the answer, its two results cited by the answer's first text, in each format's shape (see `SimServerToolUseBlock`): server_tool_use + web_search_tool_result and citations (Messages API), a `web_search_call` item and `url_citation` annotations (Responses API), grounding metadata (Gemini), citation deltas (Bedrock), `url_citation` annotations (Chat Completions) |
 */

import type { SimBlock, SimScript } from "./script.js";
import type { SimRequest } from "./sim-request.js";
import { parseSpecList, SimSpecError } from "./sim-spec-error.js";

/** The faults of one request. */
export interface SimFaults {
  errorAfter?: number;
  dropAfter?: number;
  /** `error-mid-call`: an error event halfway through the last tool call's arguments. */
  errorMidCall?: boolean;
  /** `drop-mid-call`: the connection cut halfway through the last tool call's arguments. */
  dropMidCall?: boolean;
  invalidJson?: boolean;
  maxTokens?: boolean;
  status?: 429 | 529 | 500;
  slowFirstByteMs?: number;
  thinking?: boolean;
  webSearch?: boolean;
}

const FAULT_NAMES = [
  "error-after",
  "drop-after",
  "error-mid-call",
  "drop-mid-call",
  "invalid-json",
  "max-tokens",
  "status",
  "slow-first-byte",
  "thinking",
  "web-search",
] as const;

function count(name: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || value === "" || !Number.isSafeInteger(n) || n < 0) {
    throw new SimSpecError(`Fault "${name}" needs a whole number, as in "${name}=3".`);
  }
  return n;
}

/**
 * Parses a fault spec such as `error-after=5,thinking`.
 * @throws SimSpecError for an unknown fault or a bad value.
 */
export function parseFaults(spec: string | undefined): SimFaults {
  const faults: SimFaults = {};
  for (const { name, value } of parseSpecList(spec)) {
    switch (name) {
      case "error-after":
        faults.errorAfter = count(name, value);
        break;
      case "drop-after":
        faults.dropAfter = count(name, value);
        break;
      case "error-mid-call":
        faults.errorMidCall = true;
        break;
      case "drop-mid-call":
        faults.dropMidCall = true;
        break;
      case "slow-first-byte":
        faults.slowFirstByteMs = count(name, value);
        break;
      case "status":
        if (value !== "429" && value !== "529" && value !== "500") {
          throw new SimSpecError('Fault "status" takes 429, 529 or 500, as in "status=429".');
        }
        faults.status = Number(value) as 429 | 529 | 500;
        break;
      case "invalid-json":
        faults.invalidJson = true;
        break;
      case "max-tokens":
        faults.maxTokens = true;
        break;
      case "thinking":
        faults.thinking = true;
        break;
      case "web-search":
        faults.webSearch = true;
        break;
      case "none":
        break;
      default:
        throw new SimSpecError(`Unknown fault "${name}"; known: ${FAULT_NAMES.join(", ")}, none.`);
    }
  }
  return faults;
}

/** The config's faults with a request's header applied (see the module comment). */
export function requestFaults(config: SimFaults, header: string | undefined): SimFaults {
  const own = parseFaults(header);
  const first = parseSpecList(header)[0];
  return first?.name === "none" ? own : { ...config, ...own };
}

/**
 * Adds the blocks the `thinking` and `web-search` faults ask for: a thinking block first, then a
 * web search (call and results) before the policy's own blocks. Ids and the signature are left to
 * resolution.
 */
export function addFaultBlocks(
  script: SimScript,
  faults: SimFaults,
  request: SimRequest,
): SimScript {
  if (faults.thinking !== true && faults.webSearch !== true) return script;
  const said = lastUserText(request);
  const blocks: SimBlock[] = [];
  if (faults.thinking === true) {
    blocks.push({ type: "thinking", thinking: thinkingText(said, script) });
  }
  let own = script.blocks;
  if (faults.webSearch === true) {
    const query = said === "" ? "overlap-sim" : said.slice(0, 80);
    const results = [1, 2].map((n) => ({
      title: `Scripted result ${n} for "${query}"`,
      url: `https://example.com/overlap-sim/${n}?q=${encodeURIComponent(query)}`,
      pageAge: "April 1, 2025",
    }));
    blocks.push({ type: "server_tool_use", name: "web_search", input: { query } });
    blocks.push({ type: "web_search_tool_result", results });
    // The answer cites what was found.
    const first = own.findIndex((b) => b.type === "text");
    const text = own[first];
    if (text?.type === "text" && text.citations === undefined) {
      own = own.with(first, {
        ...text,
        citations: results.map((r) => ({ url: r.url, title: r.title })),
      });
    }
  }
  return { ...script, blocks: [...blocks, ...own] };
}

function lastUserText(request: SimRequest): string {
  const last = request.messages.findLast((m) => m.role === "user");
  const text = (last?.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
  return text.replace(/\s+/g, " ").trim();
}

function thinkingText(said: string, script: SimScript): string {
  const calls = script.blocks.flatMap((b) => (b.type === "tool_use" ? [b.name] : []));
  const plan = calls.length > 0 ? `I will call ${calls.join(", ")}.` : "I will answer in text.";
  const heard =
    said === "" ? "The user sent tool results." : `The user wrote: "${said.slice(0, 120)}".`;
  return `${heard} I am a scripted model, so my policy decides the answer. ${plan}`;
}
