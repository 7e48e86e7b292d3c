/**
 * Starts the bench's scripted model in a process of its own (`sim-process.ts`), so that the CPU
 * a benchmark measures in its own process is the client's alone. Shared by `bench:peers`,
 * `cpu-turn` and `provider-reads`.
 */

import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SimKind } from "./scenarios.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const tsx = import.meta.resolve("tsx");

/** The running sim: its URL per kind of pacing, and how to stop it. */
export interface SimProcess {
  urls: Record<SimKind, string>;
  stop: () => void;
}

/** Starts the sim process and resolves once it printed its URLs (30 s at most). */
export async function startSimProcess(): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=overlap-source", "--import", tsx, "bench/src/peers/sim-process.ts"],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] },
  );
  const urls = await new Promise<Record<SimKind, string>>((resolveUrls, reject) => {
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const match = /@@sim (.*)\n/.exec(buffer);
      if (match) resolveUrls(JSON.parse(match[1]!) as Record<SimKind, string>);
    });
    child.on("exit", (code) => reject(new Error(`the sim process exited (${code})`)));
    setTimeout(() => reject(new Error("the sim process did not start in 30 s")), 30_000).unref();
  });
  return {
    urls,
    stop: () => {
      child.stdin.end();
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    },
  };
}
