#!/usr/bin/env node
// Compiles the shop and the two packages it runs on (overlap-runtime, overlap-sim) to JavaScript
// when their build is missing or older than their sources, so `npm start` runs compiled code
// (no TypeScript loader in the server) and a fresh clone needs no separate build step. Plain
// JavaScript: it runs before anything is compiled.
//
// Each project is emitted file by file without type checking (that is `npm run typecheck`'s job;
// seconds instead of half a minute); `apps/shop/dist/.build-stamp` marks a complete build. Run
// as a command it builds if needed and exits; `ensureShopBuild()` does the same for the start
// scripts.

import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PROJECTS = ["packages/overlap", "packages/sim", "apps/shop"];
/** What each project's build must hold for the shop to run. */
const OUTPUTS = [
  "packages/overlap/dist/index.js",
  "packages/sim/dist/index.js",
  "apps/shop/dist/main.js",
  "apps/shop/dist/model/scripted-model-main.js",
];
const STAMP = join(ROOT, "apps/shop/dist/.build-stamp");

/** The newest modification time under `path` (0 when missing). */
function newestMtime(path) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when a compiled build exists and no source, tsconfig or manifest changed since. */
export function shopBuildIsFresh() {
  if (!OUTPUTS.every((file) => existsSync(join(ROOT, file)))) return false;
  // The stamp of our last build, or a full build by other means (`npm run build`, which runs tsc
  // in each workspace): every output is then newer than the sources it was compiled from.
  const builtAt = Math.max(
    newestMtime(STAMP),
    Math.min(...OUTPUTS.map((file) => newestMtime(join(ROOT, file)))),
  );
  const inputs = PROJECTS.flatMap((p) => [
    join(ROOT, p, "src"),
    join(ROOT, p, "package.json"),
    join(ROOT, p, "tsconfig.build.json"),
  ]);
  inputs.push(join(ROOT, "tsconfig.base.json"));
  return builtAt > 0 && inputs.every((input) => newestMtime(input) <= builtAt);
}

/**
 * Compiles one project (its `tsconfig.build.json`) to JavaScript only: no type check, no import
 * resolution, no declarations, so each file is emitted on its own (the code is written for
 * `isolatedModules`). Throws with the compiler's messages when a file cannot be emitted.
 */
function compile(ts, project) {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, project, "tsconfig.build.json"),
    {
      noCheck: true,
      noResolve: true,
      noLib: true,
      types: [],
      declaration: false,
      declarationMap: false,
    },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${project}/tsconfig.build.json`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const syntax = program.getSyntacticDiagnostics();
  const result = program.emit();
  const problems = [...syntax, ...result.diagnostics];
  if (result.emitSkipped || problems.length > 0) {
    const text = ts.formatDiagnostics(problems, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => "\n",
    });
    throw new Error(`compiling ${project} failed:\n${text}`);
  }
}

/** Builds unless fresh; returns whether it built. Throws when a file cannot be compiled. */
export async function ensureShopBuild() {
  if (shopBuildIsFresh()) return { built: false };
  const startedAt = Date.now();
  const { default: ts } = await import("typescript");
  for (const project of PROJECTS) compile(ts, project);
  writeFileSync(STAMP, `${new Date(startedAt).toISOString()}\n`);
  // Stamped with the build's start: a source saved while it compiled makes the next start build.
  utimesSync(STAMP, new Date(startedAt), new Date(startedAt));
  return { built: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fresh = shopBuildIsFresh();
  if (!fresh) process.stdout.write("Compiling the shop (TypeScript to JavaScript, once)...\n");
  try {
    await ensureShopBuild();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
