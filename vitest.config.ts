import { defineConfig } from "vitest/config";

// Workspace packages export their TypeScript sources under the "overlap-source" condition (a name
// of our own: some dependencies publish a "source" condition of theirs), so tests run
// against src/ without a build step (and never against a stale dist/).
const conditions = ["overlap-source", "import", "module", "node", "default"];

export default defineConfig({
  resolve: { conditions },
  // Not "import" on the server side: vitest hands these to Node as --conditions, and a CJS package
  // that require()s a dual-format one (pg -> pg-pool) would then get its ESM build.
  ssr: {
    resolve: {
      conditions: ["overlap-source", "node", "default"],
      externalConditions: ["overlap-source"],
    },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/overlap/runtimes/*.test.ts",
      "apps/*/src/**/*.test.ts",
      "bench/src/**/*.test.ts",
    ],
    testTimeout: 20_000,
    server: { deps: { inline: [/packages\/overlap/, /packages\/sim/, /^overlap/] } },
  },
});
