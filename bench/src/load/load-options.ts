/** The command line of the load benchmark (`npm run bench:load --workspace bench -- ...`). */

import { parseArgs } from "node:util";

/**
 * How the conversations send their messages: all at once (`burst`, one turn each), or an open
 * loop for a while (`open`): each conversation sends its next message a think time after its
 * last reply.
 */
export type LoadMode =
  | { kind: "burst" }
  | {
      kind: "open";
      /** How long new turns are started, ms; turns running at its end are awaited. */
      durationMs: number;
      /** The think time, set directly (`--think-ms`), or... */
      thinkMs?: number;
      /** ...derived from the turns per second wanted over all conversations (`--rate`). */
      rate?: number;
    };

/** What one run of the load benchmark does. */
export interface LoadOptions {
  /** Conversations (default 1,000): each sends the demo request at once, or in an open loop. */
  conversations: number;
  /** Burst (default) or open loop. */
  mode: LoadMode;
  /** Conversations run at once before the measured load, to warm the JIT up (default 20). */
  warmup: number;
  /** Lone turns measured before the load, one after the other (the first one warms up). */
  loneTurns: number;
  /** Run the shop and the model from their compiled build (`dist`, default) or through tsx. */
  build: "dist" | "source";
  /** Write CPU profiles (`node --cpu-prof`) of the shop and the model into this directory. */
  profileDir?: string;
  /** The shop's `LOG_LEVEL` (default `info`, as `npm start` runs). */
  logLevel: string;
  /**
   * Extra options of the shop's node (`--shop-node-option=--heap-growing-percent=50`, repeatable),
   * to measure a V8 or Node flag against the same run without it; none by default.
   */
  shopNodeOptions: string[];
}

/** The usage text. */
export const LOAD_USAGE = `Usage: npm run bench:load --workspace bench -- [options]

  --conversations N   conversations (default 1000; env LOAD_CONVERSATIONS)
  --rate R            open loop: R turns a second over all conversations, each sending its
                      next message a think time after its last reply (think = N / R - lone turn)
  --think-ms MS       open loop with this think time instead of --rate
  --duration-s S      open loop: how long new turns are started (default 60)
  --warmup N          conversations at once before the load, not measured (default 20)
  --lone-turns N      lone turns before the load, the first one a warm-up (default 4)
  --build dist|source the shop and model from their build (default) or through tsx
  --profile DIR       node --cpu-prof of the shop and the model, written into DIR
  --log-level LEVEL   the shop's LOG_LEVEL (default info)
  --shop-node-option=FLAG
                      one more option of the shop's node, e.g.
                      --shop-node-option=--max-semi-space-size=32 (repeatable)

Without --rate or --think-ms every conversation sends the demo request at the same moment.
`;

/**
 * Parses the arguments; `env.LOAD_CONVERSATIONS` is the default number of conversations (so
 * `npm run bench` can run a smaller load).
 * @throws TypeError for an unknown option, RangeError for a bad value or a bad combination.
 */
export function parseLoadOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): LoadOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      conversations: { type: "string" },
      rate: { type: "string" },
      "think-ms": { type: "string" },
      "duration-s": { type: "string" },
      "lone-turns": { type: "string" },
      warmup: { type: "string" },
      build: { type: "string" },
      profile: { type: "string" },
      "log-level": { type: "string" },
      "shop-node-option": { type: "string", multiple: true },
    },
    strict: true,
  });
  const build = values.build ?? "dist";
  if (build !== "dist" && build !== "source") {
    throw new RangeError(`--build must be dist or source, not "${build}".`);
  }
  return {
    conversations: whole(
      "conversations",
      values.conversations ?? env.LOAD_CONVERSATIONS ?? "1000",
      1,
    ),
    mode: loadMode(values),
    warmup: whole("warmup", values.warmup ?? "20", 0),
    loneTurns: whole("lone-turns", values["lone-turns"] ?? "4", 2),
    build,
    ...(values.profile ? { profileDir: values.profile } : {}),
    logLevel: values["log-level"] ?? "info",
    shopNodeOptions: (values["shop-node-option"] ?? []).map(nodeOption),
  };
}

function loadMode(values: {
  rate?: string | undefined;
  "think-ms"?: string | undefined;
  "duration-s"?: string | undefined;
}): LoadMode {
  const { rate, "think-ms": think, "duration-s": duration } = values;
  if (rate !== undefined && think !== undefined) {
    throw new RangeError("--rate and --think-ms both set the think time: give one of them.");
  }
  if (rate === undefined && think === undefined) {
    if (duration !== undefined) {
      throw new RangeError("--duration-s is for the open loop: add --rate or --think-ms.");
    }
    return { kind: "burst" };
  }
  const durationMs = 1000 * positiveNumber("duration-s", duration ?? "60");
  return rate !== undefined
    ? { kind: "open", durationMs, rate: positiveNumber("rate", rate) }
    : { kind: "open", durationMs, thinkMs: whole("think-ms", think as string, 0) };
}

/**
 * The open loop's think time: with `conversations` each taking about a lone turn and then
 * thinking, `rate` turns a second over all of them need `conversations / rate - loneTurnMs`.
 * @throws RangeError when the conversations are too few for the rate even without thinking.
 */
export function thinkMsFor(conversations: number, rate: number, loneTurnMs: number): number {
  const cycleMs = (1000 * conversations) / rate;
  if (cycleMs < loneTurnMs) {
    throw new RangeError(
      `${conversations} conversations cannot offer ${rate} turns/s with a lone turn of ${Math.round(loneTurnMs)} ms: at most ${Math.floor((1000 * conversations) / loneTurnMs)}; use more conversations.`,
    );
  }
  return Math.round(cycleMs - loneTurnMs);
}

/** A node option as given, refused unless it is one (an option starts with `-`). */
function nodeOption(value: string): string {
  if (!value.startsWith("-")) {
    throw new RangeError(
      `--shop-node-option takes a node option such as --max-semi-space-size=32, got "${value}".`,
    );
  }
  return value;
}

function whole(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new RangeError(`--${name} needs a whole number of at least ${min}, got "${value}".`);
  }
  return n;
}

function positiveNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new RangeError(`--${name} needs a number above 0, got "${value}".`);
  }
  return n;
}
