/**
 * Benchmark: N conversations against one shop process (the cost per turn), all at once or in an
 * open loop.
 *
 * The shop's scripted model runs in a process of its own (`npm run scripted-model`'s entry point,
 * paced like the embedded model: 60 tokens/s, first token at 300 ms), and ONE shop process (as
 * `npm start` runs it, on SQLite in a temporary directory) talks to it as to Claude, through
 * `ANTHROPIC_BASE_URL`. First a few lone turns, one after the other (the first warms up; the
 * median of the rest is the lone turn). Then N sessions are created and, in a burst (the
 * default), every one sends the demo request at the same moment, over real HTTP, and reads the
 * SSE turn stream to its end; in the open loop (`--rate` or `--think-ms`), each sends the demo
 * request, reads the reply, thinks, and sends it again, until the duration is over, the first
 * messages spread over one cycle (see `open-loop.ts`).
 *
 * Reported: turns completed, errors, turns per second, turn latency p50/p99 against the lone
 * turn, the p99 delay from a tool's block stop to its `tool-status running` event (both on the
 * round's clock: the round-end timings and the status event), CPU ms per turn of the shop and of
 * the model process (from /proc during the load), the shop's resident memory growth per
 * conversation (peak during the load minus before it); goals met or not; as the very last line
 * one JSON object `{"bench":"load",...}`.
 *
 * Run alone: `npm run bench:load --workspace bench -- --conversations 100` (see `LOAD_USAGE`).
 * Under `npm run bench` it runs with the default 1,000 (or `LOAD_CONVERSATIONS`). The build of
 * the shop is made first when missing or stale (`apps/shop/bin/ensure-build.js`, as `npm start` does), unless `--build source`.
 * Linux only (/proc); shoppers connect from 127.0.0.2-251 so the per-address session limit
 * counts per shopper.
 */

import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  spawnScriptedModel,
  stopScriptedModel,
} from "../../../apps/shop/src/model/spawn-scripted-model.js";
import {
  type LoadUsage,
  loadFigures,
  loadTable,
  percentile,
  type TurnRecord,
} from "./load-figures.js";
import { LOAD_USAGE, type LoadOptions, parseLoadOptions, thinkMsFor } from "./load-options.js";
import { runOpenLoop } from "./open-loop.js";
import { cpuMsOf, rssBytesOf } from "./process-usage.js";
import { createSession, runTurn, type ShopperEndpoint, type ShopperSession } from "./shopper.js";
import { spawnShopProcess, stopChild } from "./spawn-shop-process.js";

const ENSURE_BUILD = fileURLToPath(
  new URL("../../../apps/shop/bin/ensure-build.js", import.meta.url),
);

/** The demo request of the README. */
const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";
/** Sessions created at a time before the load (their creation is not measured). */
const SESSION_CONCURRENCY = 32;
/** Local addresses the shoppers connect from: 127.0.0.2 to 127.0.0.251. */
const ADDRESSES = 250;
/** How often the shop's resident memory is sampled during the load, ms. */
const RSS_SAMPLE_MS = 50;

function addressOf(i: number): string {
  return `127.0.0.${2 + (i % ADDRESSES)}`;
}

async function inBatches<T>(count: number, size: number, make: (i: number) => Promise<T>) {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

/** Runs the benchmark and prints its table and JSON line. */
export async function main(options: LoadOptions): Promise<void> {
  if (options.build === "dist") {
    // What `npm start` does first: compile the shop when its build is missing or stale.
    const build = spawnSync(process.execPath, [ENSURE_BUILD], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("could not compile the shop");
  }
  const dataDir = await mkdtemp(join(tmpdir(), "bench-load-"));
  const profile = (name: string) =>
    options.profileDir
      ? [
          "--cpu-prof",
          `--cpu-prof-dir=${resolve(options.profileDir)}`,
          `--cpu-prof-name=${name}.cpuprofile`,
        ]
      : [];
  const model = await spawnScriptedModel({ build: options.build, nodeOptions: profile("model") });
  try {
    const shop = await spawnShopProcess({
      build: options.build,
      nodeOptions: [...profile("shop"), ...options.shopNodeOptions],
      env: {
        DATA_DIR: dataDir,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "load-benchmark",
        MODEL: "scripted-shop",
        MERCHANT_TOKEN: "load-benchmark-merchant-token",
        LOG_LEVEL: options.logLevel,
        // Room for every session of the run (shoppers also come from many addresses).
        RATE_LIMIT_SESSIONS_PER_MINUTE: String(
          Math.max(1_000, 2 * (options.conversations + options.warmup + options.loneTurns)),
        ),
        RATE_LIMIT_TURNS_PER_MINUTE: "100000",
        // Every conversation holds a connection at once (the default cap is 900).
        MAX_CONNECTIONS: String(Math.max(900, 2 * options.conversations + 100)),
      },
    });
    const shopPid = shop.child.pid as number;
    const modelPid = model.child.pid as number;
    try {
      // Warm-up: a small load, not measured, so the figures are not the JIT's first steps.
      if (options.warmup > 0) {
        const warm = await Promise.all(
          Array.from({ length: options.warmup }, async (_, i) => {
            const endpoint = { port: shop.port, localAddress: addressOf(ADDRESSES - 1 - i) };
            return runTurn(endpoint, await createSession(endpoint), DEMO);
          }),
        );
        const failed = warm.find((t) => !t.ok);
        if (failed) throw new Error(`a warm-up turn failed: ${failed.error}`);
      }

      // Lone turns, one after the other.
      const lone: TurnRecord[] = [];
      const loneCpuBefore = { at: 0, cpu: 0 };
      for (let i = 0; i < options.loneTurns; i++) {
        if (i === 1) loneCpuBefore.cpu = cpuMsOf(shopPid);
        const endpoint: ShopperEndpoint = { port: shop.port, localAddress: "127.0.0.1" };
        const turn = await runTurn(endpoint, await createSession(endpoint), DEMO);
        if (!turn.ok) throw new Error(`a lone turn failed: ${turn.error}`);
        if (i > 0) lone.push(turn);
      }
      const loneShopCpuMsPerTurn = (cpuMsOf(shopPid) - loneCpuBefore.cpu) / lone.length;
      const loneTurnMs = percentile(
        lone.map((t) => t.latencyMs),
        50,
      );

      const endpoints = Array.from({ length: options.conversations }, (_, i) => ({
        port: shop.port,
        localAddress: addressOf(i),
      }));
      const sessions: ShopperSession[] = await inBatches(
        options.conversations,
        SESSION_CONCURRENCY,
        (i) => createSession(endpoints[i] as ShopperEndpoint),
      );

      // The load: every conversation sends the demo request at once, or in the open loop.
      const mode = options.mode;
      const thinkMs =
        mode.kind === "burst"
          ? undefined
          : (mode.thinkMs ?? thinkMsFor(options.conversations, mode.rate as number, loneTurnMs));
      const rssBefore = rssBytesOf(shopPid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, rssBytesOf(shopPid));
      }, RSS_SAMPLE_MS);
      const shopCpuBefore = cpuMsOf(shopPid);
      const modelCpuBefore = cpuMsOf(modelPid);
      const startedAt = performance.now();
      const turnOf = (i: number) =>
        runTurn(endpoints[i] as ShopperEndpoint, sessions[i] as ShopperSession, DEMO);
      const turns =
        mode.kind === "burst"
          ? await Promise.all(sessions.map((_, i) => turnOf(i)))
          : await runOpenLoop(
              {
                conversations: options.conversations,
                thinkMs: thinkMs as number,
                durationMs: mode.durationMs,
                cycleMs: (thinkMs as number) + loneTurnMs,
              },
              turnOf,
            );
      const usage: LoadUsage = {
        wallMs: performance.now() - startedAt,
        shopCpuMs: cpuMsOf(shopPid) - shopCpuBefore,
        modelCpuMs: cpuMsOf(modelPid) - modelCpuBefore,
        shopRssBeforeBytes: rssBefore,
        shopRssPeakBytes: Math.max(rssPeak, rssBytesOf(shopPid)),
      };
      clearInterval(sampler);

      const figures = loadFigures({
        mode: mode.kind,
        conversations: options.conversations,
        ...(thinkMs === undefined ? {} : { thinkMs }),
        turns,
        loneTurnMs,
        loneShopCpuMsPerTurn,
        usage,
      });
      console.log(
        `shop: ${options.build === "dist" ? "compiled JavaScript (apps/shop/dist)" : "sources through tsx"}, SQLite, LOG_LEVEL=${options.logLevel}; model: the scripted model in its own process`,
      );
      console.log(loadTable(figures));
      console.log(JSON.stringify({ bench: "load", build: options.build, ...figures }));
    } finally {
      await stopChild(shop.child);
    }
  } finally {
    await stopScriptedModel(model);
    await rm(dataDir, { recursive: true, force: true });
  }
}

let options: LoadOptions;
try {
  options = parseLoadOptions(process.argv.slice(2), process.env);
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${LOAD_USAGE}`);
  process.exit(2);
}
await main(options);
