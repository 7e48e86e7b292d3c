/**
 * The command line of `npm run scripted-model`: where the shop's scripted model listens and how it
 * paces its answers. Pure: parsing and the usage text, no I/O.
 */

import { parseArgs } from "node:util";
import type { Pacing } from "overlap-sim";

/** The usage text printed by `--help` and after a bad argument. */
export const SCRIPTED_MODEL_USAGE = `Usage: npm run scripted-model -- [options]

The shop's scripted model (the one the shop embeds when no API key is set) as a
server of its own, speaking the Anthropic Messages API. It is not a language
model: a fixed policy writes every answer. Point the shop at it with
  ANTHROPIC_BASE_URL=<the printed URL> ANTHROPIC_API_KEY=any npm start

Options:
  --port N             port to listen on (default 8318; 0 picks a free one)
  --host HOST          interface to listen on (default 127.0.0.1)
  --tps N              tokens per second (default 60, like the embedded model)
  --first-token-ms N   latency of the first token (default 300)
  --fast               no pacing at all
  -h, --help           show this text
`;

/** The default port: next to overlap-sim's 8317, so both can run side by side. */
export const DEFAULT_SCRIPTED_MODEL_PORT = 8318;

/** What the command line asks for. */
export type ScriptedModelCommand =
  | { help: true }
  | { help: false; port: number; host: string; pacing: Partial<Pacing> };

/**
 * Parses the arguments (those after `--`).
 * @throws TypeError for an unknown option; RangeError for a bad number.
 */
export function parseScriptedModelArgs(args: readonly string[]): ScriptedModelCommand {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: "string" },
      host: { type: "string" },
      tps: { type: "string" },
      "first-token-ms": { type: "string" },
      fast: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) return { help: true };
  const port = numberArg("port", values.port, 0) ?? DEFAULT_SCRIPTED_MODEL_PORT;
  if (!Number.isInteger(port) || port > 65_535) {
    throw new RangeError(`--port needs a whole number from 0 to 65535, got "${values.port}".`);
  }
  const pacing: Partial<Pacing> = {};
  const tps = numberArg("tps", values.tps, Number.MIN_VALUE);
  if (tps !== undefined) pacing.tokensPerSecond = tps;
  const firstTokenMs = numberArg("first-token-ms", values["first-token-ms"], 0);
  if (firstTokenMs !== undefined) pacing.firstTokenMs = firstTokenMs;
  if (values.fast === true) pacing.fast = true;
  return { help: false, port, host: values.host ?? "127.0.0.1", pacing };
}

function numberArg(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min) {
    throw new RangeError(`--${name} needs a number of at least ${min}, got "${value}".`);
  }
  return n;
}
