/**
 * Test support: runs the shop's real entry point (`src/main.ts`, what `npm start` runs) as a
 * separate OS process on a free port, for tests of several processes and of crashes.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** A shop server process. */
export interface ShopProcess {
  url: string;
  child: ChildProcess;
}

/**
 * Starts `apps/shop/src/main.ts` on a free port; resolves with its URL. `via: "npm"` runs it as
 * `npm start` in the repository (then `child` is the npm process, as an operator would see it);
 * `detached` gives it a process group of its own (signal the group as a terminal's Ctrl-C does).
 */
export function spawnShop(
  env: Record<string, string>,
  options: { via?: "node" | "npm"; detached?: boolean } = {},
): Promise<ShopProcess> {
  const [command, args] =
    options.via === "npm"
      ? ["npm", ["start"]]
      : [process.execPath, ["--conditions=overlap-source", "--import", "tsx", MAIN]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: "0", LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  return new Promise((resolve, reject) => {
    let out = "";
    // A start transforms the sources (tsx): on a loaded machine the first one took over 30 s.
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 90_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/Shopping assistant: (http:\/\/\S+)/);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/** Stops a shop process (SIGTERM, or SIGKILL for a crash) and waits until it is gone. */
export async function stopShop(
  shop: ShopProcess,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (shop.child.exitCode !== null || shop.child.signalCode !== null) return;
  const gone = new Promise((resolve) => shop.child.once("exit", resolve));
  shop.child.kill(signal);
  await gone;
}
