/** The command line of the load benchmark (`npm run bench:load --workspace bench -- ...`). */

import { parseArgs } from "node:util";

/** What one run of the load benchmark does. */
export interface LoadOptions {
  /** Conversations that each send the demo request at once (default 1,000). */
  conversations: number;
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
}

/** The usage text. */
export const LOAD_USAGE = `Usage: npm run bench:load --workspace bench -- [options]

  --conversations N   concurrent conversations (default 1000; env LOAD_CONVERSATIONS)
  --warmup N          conversations at once before the load, not measured (default 20)
  --lone-turns N      lone turns before the load, the first one a warm-up (default 4)
  --build dist|source the shop and model from their build (default) or through tsx
  --profile DIR       node --cpu-prof of the shop and the model, written into DIR
  --log-level LEVEL   the shop's LOG_LEVEL (default info)
`;

/**
 * Parses the arguments; `env.LOAD_CONVERSATIONS` is the default number of conversations (so
 * `npm run bench` can run a smaller load).
 * @throws TypeError for an unknown option, RangeError for a bad value.
 */
export function parseLoadOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): LoadOptions {
  const { values } = parseArgs({
    args: [...args],
    options: {
      conversations: { type: "string" },
      "lone-turns": { type: "string" },
      warmup: { type: "string" },
      build: { type: "string" },
      profile: { type: "string" },
      "log-level": { type: "string" },
    },
    strict: true,
  });
  const build = values.build ?? "dist";
  if (build !== "dist" && build !== "source") {
    throw new RangeError(`--build must be dist or source, not "${build}".`);
  }
  return {
    conversations: positive(
      "conversations",
      values.conversations ?? env.LOAD_CONVERSATIONS ?? "1000",
      1,
    ),
    warmup: positive("warmup", values.warmup ?? "20", 0),
    loneTurns: positive("lone-turns", values["lone-turns"] ?? "4", 2),
    build,
    ...(values.profile ? { profileDir: values.profile } : {}),
    logLevel: values["log-level"] ?? "info",
  };
}

function positive(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new RangeError(`--${name} needs a whole number of at least ${min}, got "${value}".`);
  }
  return n;
}
