/**
 * Starts `npm run scripted-model`'s entry point as an OS process of its own and resolves with the
 * URL it prints; used by its end-to-end test and by the load benchmark. Runs the TypeScript
 * sources through tsx by default, or the compiled `dist/` build (`build: "dist"`).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./scripted-model-main.ts", import.meta.url));
const DIST = fileURLToPath(new URL("../../dist/model/scripted-model-main.js", import.meta.url));

/** A running scripted model process. */
export interface ScriptedModelProcess {
  /** `http://127.0.0.1:<port>`: the shop's `ANTHROPIC_BASE_URL`. */
  url: string;
  child: ChildProcess;
}

/** Options of {@link spawnScriptedModel}. */
export interface SpawnScriptedModelOptions {
  /** Command-line arguments after the entry point (default `--port 0`). */
  args?: readonly string[];
  /** Run the sources through tsx (default) or the compiled build. */
  build?: "source" | "dist";
  /** Extra node options before the entry point (e.g. `--cpu-prof`). */
  nodeOptions?: readonly string[];
}

/** Starts the process; rejects when it exits or prints no URL within 30 s. */
export function spawnScriptedModel(
  options: SpawnScriptedModelOptions = {},
): Promise<ScriptedModelProcess> {
  const entry =
    options.build === "dist" ? [DIST] : ["--conditions=overlap-source", "--import", "tsx", SOURCE];
  const child = spawn(
    process.execPath,
    [...(options.nodeOptions ?? []), ...entry, ...(options.args ?? ["--port", "0"])],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the scripted model did not start: ${out}`));
    }, 30_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/Scripted model: (http:\/\/\S+)/);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the scripted model exited (${code}): ${out}`));
    });
  });
}

/** Stops the process (SIGTERM) and waits until it is gone. */
export async function stopScriptedModel(model: ScriptedModelProcess): Promise<void> {
  if (model.child.exitCode !== null || model.child.signalCode !== null) return;
  const gone = new Promise((resolve) => model.child.once("exit", resolve));
  model.child.kill("SIGTERM");
  await gone;
}
