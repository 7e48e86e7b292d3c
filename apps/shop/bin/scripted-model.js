#!/usr/bin/env node
// `npm run scripted-model`: compiles the shop when its build is missing or stale (see
// ensure-build.js), then runs the compiled scripted model (dist/model/scripted-model-main.js).
import { ensureShopBuild, shopBuildIsFresh } from "./ensure-build.js";

if (!shopBuildIsFresh()) {
  process.stderr.write("Compiling the shop (TypeScript to JavaScript; once per change)...\n");
  try {
    await ensureShopBuild();
  } catch (error) {
    process.stderr.write(
      `Cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
await import(new URL("../dist/model/scripted-model-main.js", import.meta.url).href);
