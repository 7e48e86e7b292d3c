/**
 * The library on every JavaScript runtime it claims: the quick start (quickstart.ts, a turn with
 * two tools against overlap-sim, started here on 127.0.0.1) runs on Node, Deno, Bun and
 * Cloudflare's workerd, and each must print the same AgentEvents as Node (compared in the form
 * comparable-turn.ts reduces them to: the same events, whatever the network reads and clocks).
 *
 * The runtimes are the binaries of their npm packages, pinned in this folder's package.json and
 * installed by `npm ci` here (.ci/run does it); they are not part of the repository's workspaces.
 * The quick start is bundled with esbuild into one ES module per kind of runtime, as a user's
 * bundler would: for Node, Deno and Bun with the `node` platform's resolution (each of them
 * resolves npm packages that way); for workerd with the browser and `workerd` conditions, as
 * wrangler does, and no Node.js module at all: a `node:` import anywhere in what the quick start
 * loads fails the bundle, as it fails a Workers build without `nodejs_compat`, and workerd runs
 * the worker with Node.js compatibility turned off (workerd.capnp). A runtime that is not
 * installed is a loud skip, and under `CI=true` a failure.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { genericPolicy, type SimServer, startSim } from "overlap-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ComparableTurn, comparableRun } from "./comparable-turn.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = join(HERE, "node_modules/.bin");
const CI = process.env.CI === "true";
/** How long one runtime may take to run the turn (startup included). */
const RUN_TIMEOUT_MS = 30_000;

const RUNTIMES = ["deno", "bun", "workerd"] as const;
type Runtime = (typeof RUNTIMES)[number];
const missing = RUNTIMES.filter((runtime) => !existsSync(join(BIN, runtime)));
if (missing.length > 0 && !CI) {
  console.warn(
    `\n!!! Runtimes test SKIPPED for ${missing.join(", ")}: not installed in ${HERE}.\n` +
      "!!! Run `npm ci` there (.ci/run does); under CI=true this is a failure.\n",
  );
}

/** What a process printed and how it ended. */
interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(stream: Readable | null): () => string {
  const chunks: Buffer[] = [];
  stream?.on("data", (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString("utf8");
}

/** Runs `command` to its end (killed after RUN_TIMEOUT_MS). */
async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const [code] = (await once(child, "close").catch(() => [null])) as [number | null];
  return { code, stdout: stdout(), stderr: stderr() } satisfies Ran;
}

/**
 * Serves worker.js with workerd on a port it picks (reported on its control fd), asks it to run
 * the quick start against `modelUrl`, and stops it.
 */
async function runOnWorkerd(dir: string, modelUrl: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn(join(BIN, "workerd"), ["serve", "workerd.capnp", "--control-fd=3"], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const exited = once(child, "close").catch(() => [null]);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let control = "";
      (child.stdio[3] as Readable).on("data", (chunk: Buffer) => {
        // One JSON message a line (`{"event":"listen","socket":"http","port":...}`); a chunk may
        // end inside one.
        const lines = (control + chunk.toString("utf8")).split("\n");
        control = lines.pop() ?? "";
        for (const line of lines) {
          const message = line.trim() === "" ? undefined : (JSON.parse(line) as { port?: number });
          if (message?.port !== undefined) resolve(message.port);
        }
      });
      child.on("close", (code) => reject(new Error(`workerd exited (${code}) before listening`)));
    });
    const response = await fetch(
      `http://127.0.0.1:${port}/?model=${encodeURIComponent(modelUrl)}`,
      {
        signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
      },
    );
    const body = await response.text();
    return { code: response.ok ? 0 : response.status, stdout: body, stderr: stderr() };
  } catch (error) {
    return { code: null, stdout: stdout(), stderr: `${stderr()}\n${String(error)}` };
  } finally {
    child.kill();
    await exited;
  }
}

let dir: string;
let sim: SimServer;
/** What Node printed, the reference: each entry point's turn. */
let onNode: Record<string, ComparableTurn>;
/** Why the quick start could not be bundled for Workers (a `node:` import, say), if it could not. */
let workerBundleErrors: string[] = [];
/** The entry points the quick start runs its turn through (quickstart.ts). */
const ENTRY_POINTS = ["anthropic", "openai-chat", "openai-responses", "google", "ai-sdk"];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "overlap-runtimes-"));
  const bundle = { bundle: true, format: "esm", logLevel: "warning" } as const;
  await Promise.all([
    build({
      ...bundle,
      entryPoints: [join(HERE, "main.ts")],
      outfile: join(dir, "main.js"),
      platform: "node",
      conditions: ["overlap-source"],
    }),
    build({
      ...bundle,
      entryPoints: [join(HERE, "worker.ts")],
      outfile: join(dir, "worker.js"),
      platform: "browser",
      conditions: ["overlap-source", "workerd", "worker"],
      logLevel: "silent",
    }).catch((error: { errors?: { text: string; location?: { file: string } | null }[] }) => {
      workerBundleErrors = (error.errors ?? [{ text: String(error) }]).map(
        (message) => `${message.location?.file ?? "?"}: ${message.text}`,
      );
    }),
    copyFile(join(HERE, "workerd.capnp"), join(dir, "workerd.capnp")),
  ]);
  // Paced like a fast model, so that the first tool runs while the second call still streams.
  sim = await startSim({
    policy: genericPolicy,
    pacing: { firstTokenMs: 20, tokensPerSecond: 200 },
  });
  const ran = await run(process.execPath, ["main.js", sim.url], dir, process.env);
  expect(ran.code, `node failed:\n${ran.stderr}\n${ran.stdout}`).toBe(0);
  onNode = comparableRun(ran.stdout);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the quick start prints the same events on every runtime as on Node", () => {
  it("on Node: through each entry point, two tools, each run once, results in call order, then the model's answer", () => {
    expect(Object.keys(onNode)).toEqual(ENTRY_POINTS);
    for (const [entry, turn] of Object.entries(onNode)) {
      expect(turn.stopReason, entry).toBe("end_turn");
      expect(turn.statuses, entry).toEqual({
        "call-1": ["running", "done"],
        "call-2": ["running", "done"],
      });
      const results = turn.events.filter(
        (event) => (event as { type: string }).type === "tool-result",
      );
      expect(results, entry).toEqual([
        expect.objectContaining({
          callId: "call-1",
          name: "get_weather",
          resultText: "sunny, 21 °C",
        }),
        expect.objectContaining({ callId: "call-2", name: "get_time", resultText: "14:05" }),
      ]);
      expect(turn.events.at(-3), entry).toMatchObject({
        type: "text-delta",
        round: 2,
        text: "Results: get_weather: sunny, 21 °C; get_time: 14:05",
      });
    }
  });

  const commands: Record<Exclude<Runtime, "workerd">, string[]> = {
    // The Anthropic SDK reads its environment variables (ANTHROPIC_*): hence --allow-env.
    deno: ["run", "--no-config", "--no-prompt", "--allow-net=127.0.0.1", "--allow-env", "main.js"],
    bun: ["main.js"],
  };
  for (const runtime of RUNTIMES) {
    const installed = !missing.includes(runtime);
    it.runIf(installed || CI)(`on ${runtime}`, async () => {
      expect(installed, `${runtime} is not installed: run \`npm ci\` in ${HERE}`).toBe(true);
      const env = {
        ...process.env,
        NO_COLOR: "1",
        DENO_DIR: join(dir, "deno"),
        DENO_NO_UPDATE_CHECK: "1",
      };
      if (runtime === "workerd") {
        expect(
          workerBundleErrors,
          "the quick start bundles for Workers without Node.js modules",
        ).toEqual([]);
      }
      const ran =
        runtime === "workerd"
          ? await runOnWorkerd(dir, sim.url, env)
          : await run(join(BIN, runtime), [...commands[runtime], sim.url], dir, env);
      expect(ran.code, `${runtime} failed:\n${ran.stderr}\n${ran.stdout}`).toBe(0);
      expect(comparableRun(ran.stdout)).toEqual(onNode);
    });
  }
});
