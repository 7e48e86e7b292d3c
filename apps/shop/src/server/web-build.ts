/**
 * Builds the browser app (`apps/shop/web`) with Vite when its build is missing or older than its
 * sources, so `npm start` on a fresh clone serves the UI without a separate build step.
 */

import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WEB_DIST_DIR } from "./serve-web.js";

/** The web app's sources (`apps/shop/web`). */
export const WEB_DIR = fileURLToPath(new URL("../../web", import.meta.url));

/** What the build is made from: a change to any of these makes `dist/` stale. */
const BUILD_INPUTS = [
  join(WEB_DIR, "index.html"),
  join(WEB_DIR, "vite.config.ts"),
  join(WEB_DIR, "public"),
  join(WEB_DIR, "src"),
  fileURLToPath(new URL("../../../../packages/overlap/src/client", import.meta.url)),
  fileURLToPath(new URL("../../../../packages/overlap/src/react", import.meta.url)),
];

/** The newest modification time of a file or of any file under a directory (0 when missing). */
async function newestMtime(path: string): Promise<number> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path);
  const times = await Promise.all(entries.map((entry) => newestMtime(join(path, entry))));
  return Math.max(info.mtimeMs, ...times);
}

/** Builds the web app with Vite's API unless `dist/index.html` is newer than every source. */
export async function ensureWebBuild(): Promise<{ built: boolean }> {
  const builtAt = await newestMtime(join(WEB_DIST_DIR, "index.html"));
  const changedAt = Math.max(...(await Promise.all(BUILD_INPUTS.map(newestMtime))));
  if (builtAt > 0 && builtAt >= changedAt) return { built: false };
  const { build } = await import("vite");
  // vitest sets NODE_ENV=test, which would give a development build of React.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      root: WEB_DIR,
      configFile: join(WEB_DIR, "vite.config.ts"),
      mode: "production",
      logLevel: "warn",
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return { built: true };
}
