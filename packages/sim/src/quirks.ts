/**
 * Quirk modes of OpenAI-compatible servers, so an adapter can be tested against them: header
 * `x-sim-quirk` (comma-separated) or the server config; the header adds to the config, `none`
 * first drops the config's quirks. Chat Completions only.
 *
 * | quirk | effect |
 * | --- | --- |
 * | `index-zero` | every parallel call at `index: 0`, told apart only by a new id (some Ollama/vLLM builds) |
 * | `whole-call` | each call's id, name and complete arguments in one chunk |
 * | `multi-call-chunk` | several calls' fragments in one chunk |
 * | `no-args` (`=omit`, default) / `no-args=empty` | a call without arguments has no `arguments` field at all / `arguments: ""` (instead of `"{}"`) |
 * | `no-usage` | no usage at all, even when `stream_options.include_usage` asks for it |
 */

import { parseSpecList, SimSpecError } from "./sim-spec-error.js";

/** The quirks of one request. */
export interface SimQuirks {
  indexZero?: boolean;
  wholeCall?: boolean;
  multiCallChunk?: boolean;
  noArgs?: "omit" | "empty";
  noUsage?: boolean;
}

const QUIRK_NAMES = [
  "index-zero",
  "whole-call",
  "multi-call-chunk",
  "no-args",
  "no-usage",
] as const;

/**
 * Parses a quirk spec such as `index-zero,no-usage`.
 * @throws SimSpecError for an unknown quirk or a bad value.
 */
export function parseQuirks(spec: string | undefined): SimQuirks {
  const quirks: SimQuirks = {};
  for (const { name, value } of parseSpecList(spec)) {
    switch (name) {
      case "index-zero":
        quirks.indexZero = true;
        break;
      case "whole-call":
        quirks.wholeCall = true;
        break;
      case "multi-call-chunk":
        quirks.multiCallChunk = true;
        break;
      case "no-usage":
        quirks.noUsage = true;
        break;
      case "no-args":
        if (value !== undefined && value !== "omit" && value !== "empty") {
          throw new SimSpecError('Quirk "no-args" takes "omit" or "empty".');
        }
        quirks.noArgs = value === "empty" ? "empty" : "omit";
        break;
      case "none":
        break;
      default:
        throw new SimSpecError(`Unknown quirk "${name}"; known: ${QUIRK_NAMES.join(", ")}, none.`);
    }
  }
  if (quirks.wholeCall === true && quirks.multiCallChunk === true) {
    throw new SimSpecError('Quirks "whole-call" and "multi-call-chunk" exclude each other.');
  }
  return quirks;
}

/** The config's quirks with a request's header applied. */
export function requestQuirks(config: SimQuirks, header: string | undefined): SimQuirks {
  const own = parseQuirks(header);
  const first = parseSpecList(header)[0];
  return first?.name === "none" ? own : { ...config, ...own };
}
