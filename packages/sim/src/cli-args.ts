/** The command line of `overlap-sim`, parsed into server options. */

import { parseArgs } from "node:util";
import type { Pacing } from "./pacing.js";
import type { SimServerOptions } from "./sim-server.js";

/** The usage text printed by `--help`. */
export const CLI_USAGE = `Usage: overlap-sim [options]

A scripted model server. It is not a language model: a fixed policy writes every
answer. It speaks five wire formats, streaming and not:

  Anthropic Messages       POST /v1/messages
  OpenAI Chat Completions  POST /v1/chat/completions
  OpenAI Responses         POST /v1/responses
  Gemini                   POST /v1beta/models/{model}:streamGenerateContent?alt=sse
                           (and :generateContent)
  Amazon Bedrock Converse  POST /model/{modelId}/converse-stream (and /converse)

Each sends a provider-side web search and cited text in its own form (Anthropic
server_tool_use + web_search_tool_result + citations, Responses web_search_call +
url_citation annotations, Gemini grounding metadata, Bedrock citation deltas, Chat
Completions url_citation annotations); the web-search fault adds one to any answer.

Options:
  --port N             port to listen on (default 8317; 0 picks a free one)
  --host HOST          interface to listen on (default 127.0.0.1)
  --tps N              tokens per second (default 60)
  --first-token-ms N   latency of the first token (default 300)
  --seed N             seed for ids and pacing (default 1)
  --fast               no pacing at all
  --faults SPEC        faults for every request, e.g. "thinking,error-after=5"
  --quirks SPEC        OpenAI-compatible quirks for every request, e.g. "index-zero"
  -h, --help           show this text
`;

/** The default port of the command (the library's default is an ephemeral port). */
export const DEFAULT_CLI_PORT = 8317;

/** What the command line asks for. */
export type CliCommand = { help: true } | { help: false; options: SimServerOptions };

function number(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min) {
    throw new RangeError(`--${name} needs a number of at least ${min}, got "${value}".`);
  }
  return n;
}

/**
 * Parses `overlap-sim` arguments.
 * @throws TypeError for an unknown option; RangeError for a bad number.
 */
export function parseCliArgs(args: readonly string[]): CliCommand {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: "string" },
      host: { type: "string" },
      tps: { type: "string" },
      "first-token-ms": { type: "string" },
      seed: { type: "string" },
      fast: { type: "boolean" },
      faults: { type: "string" },
      quirks: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return { help: true };
  const pacing: Partial<Pacing> = {};
  const tps = number("tps", values.tps, Number.MIN_VALUE);
  if (tps !== undefined) pacing.tokensPerSecond = tps;
  const firstTokenMs = number("first-token-ms", values["first-token-ms"], 0);
  if (firstTokenMs !== undefined) pacing.firstTokenMs = firstTokenMs;
  if (values.fast === true) pacing.fast = true;
  const options: SimServerOptions = {
    port: number("port", values.port, 0) ?? DEFAULT_CLI_PORT,
    pacing,
  };
  const seed = number("seed", values.seed, 0);
  if (seed !== undefined) options.seed = seed;
  if (values.host !== undefined) options.host = values.host;
  if (values.faults !== undefined) options.faults = values.faults;
  if (values.quirks !== undefined) options.quirks = values.quirks;
  return { help: false, options };
}

/** What the command prints once listening: where it is and how to point the SDKs at it. */
export function startupBanner(url: string): string {
  return [
    `overlap-sim listening on ${url}`,
    "This is a scripted model, not a language model: a fixed policy writes every answer.",
    "Point the official SDKs at it (any API key works):",
    `  ANTHROPIC_BASE_URL=${url}`,
    `  OPENAI_BASE_URL=${url}/v1`,
    'Try: "call <tool_name> {json}" in a user message to make it call a tool.',
  ].join("\n");
}
