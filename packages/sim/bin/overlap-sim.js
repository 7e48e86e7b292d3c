#!/usr/bin/env node
// The `overlap-sim` command. The server is TypeScript compiled into dist/ by `npm run build`
// (published packages ship dist/). In a fresh clone dist/ does not exist until that build has run:
// say so plainly instead of a module-not-found stack trace.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    "overlap-sim: dist/cli.js is missing: the package has not been built.\n" +
      "Run `npm run build` at the repository root (or in packages/sim), then try again.\n",
  );
  process.exit(1);
}
await import(cli.href);
