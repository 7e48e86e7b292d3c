import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Workspace packages export their TypeScript sources under the "source" condition,
    // so tests run against src/ without a build step.
    conditions: ["source"],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "bench/src/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
