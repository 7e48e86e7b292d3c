import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { LoadFigures } from "./load-figures.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RUN_LOAD = fileURLToPath(new URL("./run-load.ts", import.meta.url));

/** Runs the benchmark as `npm run bench:load` does and returns its exit code and output. */
function runLoad(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=overlap-source", "--import", "tsx", RUN_LOAD, ...args],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe("the load benchmark", () => {
  it("runs a small open loop against a real shop and scripted model, every turn answered", {
    timeout: 180_000,
  }, async () => {
    const { code, out } = await runLoad([
      "--conversations",
      "3",
      "--think-ms",
      "100",
      "--duration-s",
      "2",
      "--warmup",
      "0",
      "--lone-turns",
      "2",
      "--build",
      "source",
      "--log-level",
      "warn",
    ]);
    expect(code, out).toBe(0);
    const last = out.trim().split("\n").at(-1) ?? "";
    const figures = JSON.parse(last) as LoadFigures & { bench: string };
    expect(figures).toMatchObject({ bench: "load", mode: "open", conversations: 3, errors: 0 });
    expect(figures.turns).toBeGreaterThan(0);
    expect(figures.turnsCompleted).toBe(figures.turns);
    expect(figures.thinkMs).toBe(100);
    // Each turn of the demo runs its tools, so dispatch delays were seen.
    expect(figures.dispatchSamples).toBeGreaterThan(0);
    expect(out).toContain("conversations (open loop)");
  });
});
