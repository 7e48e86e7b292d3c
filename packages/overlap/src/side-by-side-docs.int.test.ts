/**
 * docs/side-by-side.md: the same three-tool agent written with the AI SDK's `streamText` and with
 * overlap. The page embeds both programs (docs/side-by-side/*.ts) and what each prints; this test
 * keeps the page equal to the files and runs both files, as they are, against overlap-sim's
 * Anthropic Messages API, checking what the page claims:
 * - both get the same results from the tools that succeed, and the same final answer up to the
 *   failed tool;
 * - overlap started its first tool before the model's response ended; `streamText` started every
 *   `execute` after it ended (moments compared with the sim's own end of each response, in one
 *   process, so on one clock);
 * - overlap's result events come in call order, and both send the results to the model in call order;
 * - the thrown secret never reaches the model with overlap (it reaches the logger), and does with
 *   `streamText`'s defaults.
 * Orders of events only, never durations: the sim is paced slowly so the orders hold with room to
 * spare on a busy machine.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { genericPolicy, type SimRequestMessage, startSim } from "overlap-sim";
import { afterEach, describe, expect, it, vi } from "vitest";

const DOCS = fileURLToPath(new URL("../../../docs/", import.meta.url));
const PAGE = `${DOCS}side-by-side.md`;
const PROGRAMS = {
  streamText: `${DOCS}side-by-side/stream-text-agent.ts`,
  overlap: `${DOCS}side-by-side/overlap-agent.ts`,
} as const;
const CALL_ORDER = ["search_catalog", "get_price", "check_stock"];
const SECRET = "hunter2";

// The AI SDK warns on the console about models it does not know (the sim's).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

interface Printed {
  at: number;
  text: string;
}

interface ProgramRun {
  /** Each `console.log` line of the program, with when it was printed. */
  lines: Printed[];
  /** What it wrote with `console.error` (overlap's default logger). */
  logged: string;
  /** When the sim read each request, in request order. */
  requestStarts: number[];
  /** When the sim finished sending each response, in request order. */
  responseEnds: number[];
  /** The conversation of each request, as the sim read it. */
  requests: SimRequestMessage[][];
}

/**
 * Runs one program in this process (imports it: its top-level await is the whole program) against
 * a sim of its own, recording its lines and the sim's moments on one clock.
 */
async function runProgram(file: string): Promise<ProgramRun> {
  const run: ProgramRun = {
    lines: [],
    logged: "",
    requestStarts: [],
    responseEnds: [],
    requests: [],
  };
  const sim = await startSim({
    // Slower than the default pacing: the tool calls' arguments take about a second to stream.
    pacing: { tokensPerSecond: 20, firstTokenMs: 100 },
    policy: (request) => {
      run.requestStarts.push(performance.now());
      run.requests.push(request.messages);
      return genericPolicy(request);
    },
    // Called once a response was sent whole.
    log: () => run.responseEnds.push(performance.now()),
  });
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    run.lines.push({ at: performance.now(), text: args.map(String).join(" ") });
  });
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    run.logged += `${args.map(String).join(" ")}\n`;
  });
  process.env.SIM_PORT = String(sim.port);
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    vi.restoreAllMocks();
    delete process.env.SIM_PORT;
    await sim.close();
  }
  return run;
}

/** The fenced block after each `<!-- name -->` marker of the page, by name. */
function pageBlocks(page: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of page.matchAll(/<!-- ([\w./-]+) -->\n```\w+\n([\s\S]*?)\n```/g)) {
    blocks.set(m[1]!, `${m[2]!}\n`);
  }
  return blocks;
}

const started = (run: ProgramRun) => run.lines.filter((l) => l.text.endsWith(" started"));
/** The lines of the tools' results (`name: …` or `name failed: …`), as printed. */
const resultLines = (run: ProgramRun) =>
  run.lines
    .map((l) => l.text)
    .filter((t) => /^\w+( failed)?: /.test(t) && !t.startsWith("Results: "));
const answer = (run: ProgramRun) => run.lines.find((l) => l.text.startsWith("Results: "))?.text;

/** The tool_use ids of the first response and the tool_result ids of the second request. */
function resultOrder(run: ProgramRun): { calls: string[]; results: string[] } {
  const second = run.requests[1] ?? [];
  const assistant = second.find((m) => m.role === "assistant");
  const user = second.at(-1);
  return {
    calls: (assistant?.content ?? []).flatMap((b) => (b.type === "tool_use" ? [b.name] : [])),
    results: (user?.content ?? []).flatMap((b) => {
      if (b.type !== "tool_result") return [];
      const call = assistant?.content.find((c) => c.type === "tool_use" && c.id === b.tool_use_id);
      return call?.type === "tool_use" ? [call.name] : [];
    }),
  };
}

describe("docs/side-by-side.md", () => {
  afterEach(() => vi.restoreAllMocks());

  it("embeds both programs as they are", async () => {
    const blocks = pageBlocks(await readFile(PAGE, "utf8"));
    for (const file of Object.values(PROGRAMS)) {
      const name = `side-by-side/${file.split("/").at(-1)}`;
      expect(blocks.get(name), name).toBe(await readFile(file, "utf8"));
    }
  });

  it("runs both against overlap-sim: what the page prints and claims", {
    timeout: 60_000,
  }, async () => {
    const streamText = await runProgram(PROGRAMS.streamText);
    const overlap = await runProgram(PROGRAMS.overlap);

    // Two model requests each (the tools, then the answer), every tool run once.
    for (const run of [streamText, overlap]) {
      expect(run.requests).toHaveLength(2);
      const names = started(run).map((l) => l.text.split(" ")[0]);
      expect(names.sort()).toEqual([...CALL_ORDER].sort());
    }

    // The same results from the tools that succeeded, the same answer up to the failed one.
    const succeeded = (run: ProgramRun) => resultLines(run).filter((t) => !t.includes(" failed"));
    // (as sets: streamText's stream has them as they finish, overlap's in call order)
    expect(succeeded(overlap).sort()).toEqual(succeeded(streamText).sort());
    expect(succeeded(overlap)).toHaveLength(2);
    const upToFailure = (text: string | undefined) => text?.split("; check_stock failed:")[0];
    expect(upToFailure(answer(overlap))).toBe(upToFailure(answer(streamText)));
    expect(upToFailure(answer(overlap))).toMatch(/^Results: search_catalog: .+; get_price: /);

    if (process.env.OVERLAP_TIMINGS) {
      for (const [name, run] of Object.entries({ streamText, overlap })) {
        const from = run.requestStarts[0]!;
        const ms = (at: number) => Math.round(at - from);
        const starts = started(run).map((l) => `${l.text.split(" ")[0]} ${ms(l.at)}`);
        process.stderr.write(
          `${name}: first response ended at ${ms(run.responseEnds[0]!)} ms; ${starts.join(", ")}\n`,
        );
      }
    }

    // When the tools started, against the end of the first response.
    const [streamTextEnd] = streamText.responseEnds;
    const [overlapEnd] = overlap.responseEnds;
    expect(started(overlap)[0]!.at).toBeLessThan(overlapEnd!);
    for (const line of started(streamText)) expect(line.at).toBeGreaterThanOrEqual(streamTextEnd!);

    // overlap's result events in call order; both send the model the results in call order.
    expect(resultLines(overlap).map((t) => t.split(/[: ]/)[0])).toEqual(CALL_ORDER);
    expect(resultOrder(overlap)).toEqual({ calls: CALL_ORDER, results: CALL_ORDER });
    expect(resultOrder(streamText)).toEqual({ calls: CALL_ORDER, results: CALL_ORDER });

    // The thrown message: with overlap only the logger has it; streamText sends it to the model.
    expect(JSON.stringify(overlap.requests)).not.toContain(SECRET);
    expect(answer(overlap)).not.toContain(SECRET);
    expect(overlap.logged).toContain(SECRET);
    expect(JSON.stringify(streamText.requests[1])).toContain(SECRET);

    // What the page shows each printing.
    const blocks = pageBlocks(await readFile(PAGE, "utf8"));
    const printed = (run: ProgramRun) => `${run.lines.map((l) => l.text).join("\n")}\n`;
    expect(printed(streamText)).toBe(blocks.get("side-by-side/stream-text-agent.output"));
    expect(printed(overlap)).toBe(blocks.get("side-by-side/overlap-agent.output"));
  });
});
