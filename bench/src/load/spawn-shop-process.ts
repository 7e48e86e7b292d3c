/**
 * Starts the shop as `npm start` runs it, as an OS process of its own: the compiled build
 * (`apps/shop/dist/main.js`) or the sources through tsx, with extra node options (a CPU profile).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SOURCE = fileURLToPath(new URL("../../../apps/shop/src/main.ts", import.meta.url));
const DIST = fileURLToPath(new URL("../../../apps/shop/dist/main.js", import.meta.url));

/** A running shop. */
export interface ShopChild {
  /** Where it listens, e.g. `http://localhost:41234`. */
  url: string;
  port: number;
  child: ChildProcess;
}

/** Starts the shop on a free port; resolves once it prints its URL. */
export function spawnShopProcess(options: {
  build: "dist" | "source";
  env: Record<string, string>;
  nodeOptions?: readonly string[];
  /** With `build: "source"`: another copy of the shop's `src/main.ts` (an older commit's). */
  sourceEntry?: string;
}): Promise<ShopChild> {
  const entry =
    options.build === "dist"
      ? [DIST]
      : ["--conditions=overlap-source", "--import", "tsx", options.sourceEntry ?? SOURCE];
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), ...entry], {
    cwd: ROOT,
    env: { ...process.env, ...options.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let started = false;
    const timer = setTimeout(() => reject(new Error(`the shop did not start: ${out}`)), 60_000);
    // Its log lines are read and dropped (an unread pipe would block the shop once full).
    child.stdout?.on("data", (chunk: Buffer) => {
      if (started) return;
      out += chunk.toString();
      const match = out.match(/Shopping assistant: (http:\/\/\S+)/);
      if (match?.[1]) {
        started = true;
        clearTimeout(timer);
        resolve({ url: match[1], port: Number(new URL(match[1]).port), child });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (!started) out += chunk.toString();
      else process.stderr.write(chunk);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`the shop exited (${code}): ${out}`));
    });
  });
}

/** Stops a child process with SIGTERM (a CPU profile is written then) and waits for its exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await gone;
}
