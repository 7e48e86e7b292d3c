import { configDefaults, defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * `npm run test:fast`: the unit tests only, no PostgreSQL, Redis, browser, child process or
 * socket. The rule: a test that needs a service, a process or a network server is named
 * `*.int.test.ts`, lives in an `e2e/` folder, or is listed below; `npm test` runs every test.
 * vitest.fast.setup.ts makes the rule hold: in this run, spawning a process, listening on a port
 * or opening a connection throws, so a new test that does so fails here instead of joining.
 */
const NEEDS_A_SERVICE_OR_A_PROCESS = [
  "**/*.int.test.ts",
  "**/e2e/**",
  // Pack, install and run the packages (npm, publint, attw, tsc in a scratch project).
  "packages/overlap/src/packaging.test.ts",
  // Against overlap-sim over HTTP, or an MCP server in a child process.
  "packages/overlap/src/mcp/mcp-tools.test.ts",
  "packages/overlap/src/providers/ai-sdk/ai-sdk-sim.test.ts",
  "packages/overlap/src/providers/**/*.conformance.test.ts",
  "packages/overlap/src/providers/anthropic/eager-input.test.ts",
  // A local HTTP server for nodeHttpFetch (its own tests, and stream-paths reading through it).
  "packages/overlap/src/providers/node/node-http-fetch.test.ts",
  "packages/overlap/src/providers/stream-paths.test.ts",
  "packages/overlap/src/providers/node/incoming-batches.test.ts",
  "packages/overlap/src/providers/providers.test.ts",
  "packages/overlap/src/providers/openai/responses-sim-integration.test.ts",
  "packages/overlap/src/providers/provider-tools-sim.test.ts",
  "packages/overlap/src/providers/sim-integration.test.ts",
  "packages/overlap/src/providers/web-search-sim.test.ts",
  "packages/sim/src/cli-args.test.ts",
  "packages/sim/src/code-execution.test.ts",
  "packages/sim/src/mid-call-cut.test.ts",
  "packages/sim/src/sim-server*.test.ts",
  "packages/sim/src/web-search.test.ts",
  // Pure, but 40 recorded conversations at every chunking: about half a minute on its own.
  "packages/overlap/src/providers/realstreams.test.ts",
  // The shop: PostgreSQL, Redis, OS processes, its HTTP server or the embedded scripted model.
  "apps/shop/src/agents/shop-agents.test.ts",
  "apps/shop/src/db/postgres-store.test.ts",
  "apps/shop/src/db/sqlite-store.test.ts",
  "apps/shop/src/demo/demo-scope.test.ts",
  "apps/shop/src/model/model-from-env.test.ts",
  "apps/shop/src/model/phrasings.test.ts",
  "apps/shop/src/model/scripted-model-main.test.ts",
  "apps/shop/src/server/approval-restart.test.ts",
  "apps/shop/src/server/approval-routes.test.ts",
  "apps/shop/src/server/cart-concurrency.test.ts",
  "apps/shop/src/server/client-address.test.ts",
  "apps/shop/src/server/concurrent-turns.test.ts",
  "apps/shop/src/server/crash-recovery.test.ts",
  "apps/shop/src/server/demo-routes.test.ts",
  "apps/shop/src/server/fault-recovery.test.ts",
  "apps/shop/src/server/graceful-drain.test.ts",
  "apps/shop/src/server/graceful-stop.test.ts",
  "apps/shop/src/server/hostile-input.test.ts",
  "apps/shop/src/server/hostile-storm.test.ts",
  "apps/shop/src/server/http-api.test.ts",
  "apps/shop/src/server/metrics.test.ts",
  "apps/shop/src/server/one-turn-per-chat.test.ts",
  "apps/shop/src/server/otel-export.test.ts",
  "apps/shop/src/server/read-json.test.ts",
  "apps/shop/src/server/redis-*.test.ts",
  "apps/shop/src/server/shopper-routes.test.ts",
  "apps/shop/src/server/start-http-server.test.ts",
  "apps/shop/src/server/start-shop.test.ts",
  "apps/shop/src/server/stream-limits.test.ts",
  "apps/shop/src/server/three-processes.test.ts",
  "apps/shop/src/server/turn-registry.test.ts",
  "apps/shop/src/server/turn-routes.test.ts",
  "apps/shop/src/server/two-instances*.test.ts",
  "apps/shop/src/server/two-processes.test.ts",
  "apps/shop/src/turns/whole/whole-path.test.ts",
];

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...NEEDS_A_SERVICE_OR_A_PROCESS],
      setupFiles: ["./vitest.fast.setup.ts"],
      // Worker threads that keep their loaded modules from one test file to the next: half the
      // CPU time of the default (a process per worker, modules loaded again for every file). A
      // test here must leave no global state behind (timers, stubs, environment).
      pool: "threads",
      isolate: false,
    },
  }),
);
