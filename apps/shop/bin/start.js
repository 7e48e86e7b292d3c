#!/usr/bin/env node
// `npm start`: compiles the shop when its build is missing or stale (see ensure-build.js), then
// runs the compiled server (apps/shop/dist/main.js) in this very process, so signals sent to it
// reach the server.
import { ensureShopBuild, shopBuildIsFresh } from "./ensure-build.js";

if (!shopBuildIsFresh()) {
  process.stdout.write("Compiling the shop (TypeScript to JavaScript; once per change)...\n");
  try {
    await ensureShopBuild();
  } catch (error) {
    process.stderr.write(
      `Cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
}
await import(new URL("../dist/main.js", import.meta.url).href);
