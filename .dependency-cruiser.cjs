/**
 * Import rules checked by `npm run depcheck` (part of `npm test`): no import cycle anywhere in our
 * sources, and the runtime's layers only import downwards. The order, bottom first, is the one
 * docs/architecture.md draws; a layer may import any layer below it, never one above. Tests may
 * reach across (a stream test replays through the SSE decoder), the code they test may not.
 */

const { builtinModules } = require("node:module");

const RUNTIME = "^packages/overlap/src/";

/**
 * The entry points of overlap-runtime that run on every JavaScript runtime (Node, Deno, Bun,
 * workerd, browsers): the root, core, the SSE adapters, ai-sdk, client, react and testing.
 * `/node` is Node's on purpose; `/bedrock` and `/mcp` follow their SDKs.
 */
const PORTABLE_ENTRY_POINTS = [
  "index.ts",
  "core/index.ts",
  "providers/anthropic/anthropic.ts",
  "providers/openai/openai.ts",
  "providers/google/google.ts",
  "providers/ai-sdk/ai-sdk.ts",
  "client/index.ts",
  "react/index.ts",
  "testing/index.ts",
];

/** Node's own modules (`node:http`, `zlib`...), as dependency-cruiser names them. */
const NODE_BUILTINS = `^(node:)?(${builtinModules
  .filter((name) => !name.startsWith("_"))
  .map((name) => name.replace(/[/]/g, "\\/"))
  .join("|")})$`;

/** The runtime's layers, bottom first. One entry may hold several folders of the same height. */
const LAYERS = [
  ["protocol", "errors.ts"],
  ["json"],
  ["sse"],
  ["stream"],
  ["tools"],
  ["dispatch"],
  ["round"],
  ["agent"],
  ["providers", "mcp", "testing", "durable"],
  ["index.ts", "core"],
];

const pathOf = (parts) =>
  `${RUNTIME}(${parts.map((p) => (p.endsWith(".ts") ? p.replace(".", "\\.") : `${p}/`)).join("|")})`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer[0]}`,
  comment: `${layer.join(", ")} may not import from a layer above it (${LAYERS.slice(i + 1)
    .flat()
    .join(", ")})`,
  severity: "error",
  from: { path: pathOf(layer), pathNot: "\\.test\\.ts$|__fixtures__" },
  to: { path: pathOf(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle hides the order of the code: move the shared part down",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "portable-entry-points-reach-no-node",
      comment:
        "the portable entry points, and everything they import, use no Node module: what only Node has goes in overlap-runtime/node",
      severity: "error",
      from: {
        path: `${RUNTIME}(${PORTABLE_ENTRY_POINTS.map((p) => p.replace(".", "\\.")).join("|")})$`,
      },
      to: { path: NODE_BUILTINS, reachable: true },
    },
    {
      name: "client-stays-in-the-browser",
      comment:
        "overlap-runtime/client and /react run in the browser: protocol, sse and errors only",
      severity: "error",
      from: { path: `${RUNTIME}(client|react)/`, pathNot: "\\.test\\.ts$|__fixtures__" },
      // The server's entry points too: they re-export every layer.
      to: {
        path: `${RUNTIME}((json|stream|tools|dispatch|round|agent|providers|mcp|testing|core|durable)/|index\\.ts$)`,
      },
    },
    {
      name: "durable-is-server-storage",
      comment:
        "durable/ builds on the agent loop and storage drivers only: no provider, MCP or test helper (its testkits may use them)",
      severity: "error",
      from: { path: `${RUNTIME}durable/`, pathNot: "\\.test\\.ts$|\\.testkit\\.ts$" },
      to: { path: `${RUNTIME}(providers|mcp|testing)/` },
    },
    {
      name: "providers-root-is-shared",
      comment:
        "providers/ root holds what several vendors share: it may not reach into one vendor's folder",
      severity: "error",
      from: {
        path: `${RUNTIME}providers/[^/]+\\.ts$`,
        pathNot: "\\.test\\.ts$|\\.testkit\\.ts$",
      },
      to: { path: `${RUNTIME}providers/[^/]+/` },
    },
    {
      name: "shop-domain-is-pure",
      comment: "the shop's business rules import no storage, server, model or agent code",
      severity: "error",
      from: { path: "^apps/shop/src/domain/", pathNot: "\\.test\\.ts$" },
      to: { path: "^apps/shop/src/(?!domain/)" },
    },
    {
      name: "shop-db-below-the-rest",
      comment: "the shop's storage knows the domain only",
      severity: "error",
      from: { path: "^apps/shop/src/db/", pathNot: "\\.test\\.ts$|\\.testkit\\.ts$" },
      to: { path: "^apps/shop/src/(?!domain/|db/)" },
    },
    {
      name: "shop-turns-below-the-server",
      comment:
        "a turn body knows nothing of the server or the demo (what it receives, TurnContext, lives in turns/): they choose a body, never the other way",
      severity: "error",
      from: { path: "^apps/shop/src/turns/", pathNot: "\\.test\\.ts$|\\.testkit\\.ts$" },
      to: { path: "^apps/shop/src/(server|demo)/" },
    },
    {
      name: "shop-turn-paths-apart",
      comment:
        "the streamed and the whole-response turn bodies share only what sits in turns/ itself",
      severity: "error",
      from: { path: "^apps/shop/src/turns/(streamed|whole)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^apps/shop/src/turns/(streamed|whole)/", pathNot: "^apps/shop/src/turns/$1/" },
    },
    {
      name: "web-reads-only-the-view-contract",
      comment:
        "the browser app shares the server's JSON shapes (views/view-types.ts, types only) and its colour words, nothing else of the server",
      severity: "error",
      from: { path: "^apps/shop/web/src/" },
      to: { path: "^apps/shop/src/(?!views/(view-types|chinese-color-words)\\.ts$)" },
    },
    {
      name: "view-contract-imports-nothing",
      comment:
        "the JSON shapes the browser shares are plain types: the browser's type-check follows no further",
      severity: "error",
      from: { path: "^apps/shop/src/views/(view-types|chinese-color-words)\\.ts$" },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|/dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
