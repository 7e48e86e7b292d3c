/**
 * The two published packages as a user gets them. `npm pack` packs overlap-runtime and overlap-sim
 * (their `prepack` script rebuilds dist/ first, so a stale build is never what gets tested);
 * publint and attw check the tarballs; then a scratch project outside the repository installs the
 * tarballs the way a user would and
 * - imports every entry point from plain Node ESM (and CommonJS: Node 20.19+ can require() ESM),
 * - runs the README's scripted-model quick start against the installed `overlap-sim` command and
 *   compares what it prints with the output shown in the README, and its OpenAI-compatible quick
 *   start against the same command's Chat Completions route (`OPENAI_BASE_URL`),
 * - runs every README example marked `<!-- checked: example-name -->` (one per entry point) against
 *   the installed `overlap-sim` command, its port in `SIM_PORT`, and compares what it prints with
 *   {@link EXAMPLE_OUTPUT}; the React one is compiled by `tsc` and rendered with react-dom/server,
 * - type-checks every README example marked `<!-- checked: name -->` and a file importing every
 *   entry point with `tsc` (nodenext, strict), against the packed type declarations.
 * - compiles every example of the repository's documentation marked `<!-- checked: name -->`
 *   (`docs/*.md`; `docs/guides/*.md`, where every TypeScript or JavaScript block must be) with `tsc` in
 *   the same scratch project, runs each, and compares what it prints with the block marked
 *   `<!-- checked: name-output -->` after it, when there is one.
 * The README examples are read from the installed packages, so the READMEs that ship are the ones
 * checked; the documentation's from the repository. One slow test: building, packing and
 * installing take tens of seconds.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PACKAGES = { runtime: join(ROOT, "packages/overlap"), sim: join(ROOT, "packages/sim") };
const BIN = join(ROOT, "node_modules/.bin");
const MINUTE = 60_000;

/** Without npm's own variables: a child npm would otherwise inherit this run's prefix and config. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== "INIT_CWD") env[key] = value;
  }
  return { ...env, NO_COLOR: "1", npm_config_update_notifier: "false" };
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never rejects on a non-zero exit (the caller asserts). */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...childEnv(), ...options.env },
        timeout: options.timeoutMs ?? 2 * MINUTE,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({
          code,
          stdout,
          stderr: error && code === 1 ? `${stderr}${error.message}` : stderr,
        });
      },
    );
  });
}

function report(what: string, result: RunResult): string {
  return `${what} exited with ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

async function runOk(
  what: string,
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(report(what, result));
  return result;
}

/** The installed version of a dependency of the workspace: already in npm's cache. */
async function workspaceVersion(name: string): Promise<string> {
  const file = join(ROOT, "node_modules", name, "package.json");
  const text = await readFile(file, "utf8").catch(() => {
    throw new Error(`${name} is not installed in the workspace: add it to a devDependencies.`);
  });
  return `${name}@${JSON.parse(text).version}`;
}

interface Packed {
  tarball: string;
  files: { path: string; mode: number }[];
}

async function pack(dir: string, destination: string): Promise<Packed> {
  const result = await runOk(
    `npm pack in ${dir}`,
    "npm",
    ["pack", "--json", "--pack-destination", destination],
    {
      cwd: dir,
      timeoutMs: 4 * MINUTE,
    },
  );
  // Lifecycle output (the build) goes to stderr with --json; stdout is the JSON report.
  const [info] = JSON.parse(result.stdout) as { filename: string; files: Packed["files"] }[];
  if (!info) throw new Error(`npm pack in ${dir} reported nothing`);
  return { tarball: join(destination, info.filename), files: info.files };
}

/** The fenced blocks of a README that follow a `<!-- checked: name ... -->` marker, by name. */
function checkedBlocks(readme: string): Map<string, { lang: string; code: string }> {
  const blocks = new Map<string, { lang: string; code: string }>();
  for (const m of readme.matchAll(/<!-- checked: ([\w-]+)[^>]*-->\n```(\w+)\n([\s\S]*?)\n```/g)) {
    blocks.set(m[1]!, { lang: m[2]!, code: `${m[3]!}\n` });
  }
  return blocks;
}

/** The repository's documentation that holds examples: docs/ and its guides (not docs/api). */
const GUIDES = join(ROOT, "docs/guides");
const DOCS_FOLDERS = [join(ROOT, "docs"), GUIDES];
const CODE_LANGS = ["js", "ts", "tsx"];

interface DocsExamples {
  /** Every checked block of the documentation, by name (code and expected outputs alike). */
  blocks: Map<string, { lang: string; code: string; file: string }>;
  /** Guides' code blocks in a code language without a `checked` marker, as `file: first line`. */
  unchecked: string[];
  /** Names marked twice. */
  duplicates: string[];
}

/** The checked examples of docs/*.md and docs/guides/*.md, read from the repository. */
async function docsExamples(): Promise<DocsExamples> {
  const found: DocsExamples = { blocks: new Map(), unchecked: [], duplicates: [] };
  for (const folder of DOCS_FOLDERS) {
    for (const entry of (await readdir(folder)).filter((f) => f.endsWith(".md")).sort()) {
      const file = relative(ROOT, join(folder, entry));
      const text = await readFile(join(folder, entry), "utf8");
      for (const [name, block] of checkedBlocks(text)) {
        if (found.blocks.has(name)) found.duplicates.push(name);
        found.blocks.set(name, { ...block, file });
      }
      // A guide's code block without its marker would go unchecked: every one must have it.
      if (folder !== GUIDES) continue;
      for (const m of text.matchAll(/(<!-- checked: [\w-]+[^>]*-->\n)?```(\w+)\n(.*)/g)) {
        if (!m[1] && CODE_LANGS.includes(m[2]!)) found.unchecked.push(`${file}: ${m[3]}`);
      }
    }
  }
  return found;
}

const STATUS = / \[\w+: \w+\]/g;
const withoutStatuses = (text: string): string => text.replace(STATUS, "").replace(/\s+/g, " ");
const statuses = (text: string): string[] => (text.match(STATUS) ?? []).sort();

/** Starts the installed `overlap-sim` command on a free port; resolves with it and its URL. */
async function startSimCommand(cwd: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(join(cwd, "node_modules/.bin/overlap-sim"), ["--port", "0"], {
    cwd,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`overlap-sim did not start:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`overlap-sim exited (${code}) before listening:\n${output}`));
    });
  });
  return { child, url };
}

const SUMMARY = "Calling get_weather.\nResults: get_weather: sunny in Paris\nend_turn\n";

/**
 * What the README's OpenAI-compatible quick start prints against overlap-sim: its prompt is written
 * for a language model, so the scripted model answers with how to drive it, naming the tool the
 * request offered (the whole way through `openaiChatModel`, tools included, and back).
 */
const QUICKSTART_OPENAI_OUTPUT =
  'I am a scripted model (overlap-sim), not a language model. You said: "What is the weather in Paris and in Oslo?". ' +
  'Write "call <tool_name> {json}" to make me call a tool; several directives make parallel calls. ' +
  "Tools on offer: get_weather. When the tool results come back, I summarise them.\nend_turn\n";

/** What each README example (`<!-- checked: example-... -->`) prints, run against overlap-sim. */
const EXAMPLE_OUTPUT: Record<string, string> = {
  "example-openai-responses": SUMMARY,
  "example-google": SUMMARY,
  "example-bedrock": SUMMARY,
  "example-ai-sdk-model": SUMMARY,
  "example-ai-sdk-ui-stream":
    "v1\ntool-input-start tool-input-delta tool-input-available tool-output-available\ndata: [DONE]\n",
  "example-mcp": SUMMARY.replaceAll("get_weather", "wx_get_weather"),
  "example-client": [
    "get_weather: streaming-args",
    "get_weather: queued",
    "get_weather: running",
    "get_weather: done",
    "Calling get_weather.",
    "Results: get_weather: sunny in Paris\n",
  ].join("\n"),
  "example-testing": "ok\n",
  "example-core": [
    '{"city":"Pa"}',
    '{"city":"Paris"}',
    '{"city":"Paris","days":3}',
    "true false",
    "message-start block-start text-delta block-stop tool-input-delta tool-call message-delta message-end tool_use\n",
  ].join("\n"),
};

/** Renders the README's React example (compiled to out/example-react.js) on the server side. */
const RENDER_REACT_MJS = `import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { Chat } from "./out/example-react.js";
console.log(renderToString(createElement(Chat, { token: "t" })));
`;

/** Named exports that must be functions, per entry point (every entry point is loaded anyway). */
const EXPECTED_FUNCTIONS: Record<string, string[]> = {
  "overlap-runtime": ["runAgentTurn", "defineTool", "ToolExecutor", "validateConversation"],
  "overlap-runtime/core": ["BlockAssembler", "EagerDispatcher", "StreamedRound", "parseToolInput"],
  "overlap-runtime/anthropic": ["anthropicModel"],
  "overlap-runtime/openai": ["openaiChatModel", "ChatChunkTranslator", "toChatMessages"],
  "overlap-runtime/client": ["AgentStreamClient", "reduceAgentEvent", "initialAgentState"],
  "overlap-runtime/react": ["useAgentSession"],
  "overlap-runtime/testing": ["fakeModel", "buildStreamEvents"],
  "overlap-runtime/ai-sdk": ["aiSdkModel", "agentUIStreamResponse", "uiMessageStreamResponse"],
  "overlap-runtime/node": ["nodeHttpFetch", "createNodeHttpFetch"],
  "overlap-runtime/durable": ["DurableAgentHost", "DurableStore", "TurnRunningError"],
  "overlap-runtime/postgres": ["openPostgresStore", "postgresDriver"],
  "overlap-runtime/sqlite": ["openSqliteStore", "sqliteDriver"],
  "overlap-runtime/redis": ["redisTurnEvents"],
  "overlap-sim": ["startSim", "genericPolicy"],
};

/** The import specifiers of a package's `exports` (its package.json aside). */
function entryPoints(manifest: { name: string; exports: Record<string, unknown> }): string[] {
  return Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

function importsMjs(specifiers: readonly string[]): string {
  return `const expected = ${JSON.stringify(EXPECTED_FUNCTIONS)};
for (const specifier of ${JSON.stringify(specifiers)}) {
  const module = await import(specifier);
  if (Object.keys(module).length === 0) throw new Error(specifier + " exports nothing");
  for (const name of expected[specifier] ?? []) {
    if (typeof module[name] !== "function") throw new Error(specifier + " lacks " + name);
  }
}
console.log("imports ok");
`;
}

/** Node 20.19+ can require() an ES module without top-level await: CommonJS users can too. */
function requireCjs(specifiers: readonly string[]): string {
  return `for (const specifier of ${JSON.stringify(specifiers)}) {
  if (Object.keys(require(specifier)).length === 0) throw new Error(specifier + " exports nothing");
}
console.log("require ok");
`;
}

const IMPORTS_TS = `import type { AgentEvent, ModelClient, Tool } from "overlap-runtime";
import { defineTool, runAgentTurn, ToolExecutor } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import {
  type AgentState,
  addUserMessage,
  initialAgentState,
  isTurnSettled,
  parseAgentEvent,
} from "overlap-runtime/client";
import { openaiChatModel } from "overlap-runtime/openai";
import { type AgentSession, useAgentSession } from "overlap-runtime/react";
import { buildStreamEvents, fakeModel } from "overlap-runtime/testing";
import { genericPolicy, type SimServer, startSim } from "overlap-sim";
import { z } from "zod";

const echo: Tool = defineTool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
const models: ModelClient[] = [
  anthropicModel({ model: "claude-sonnet-4-5" }),
  openaiChatModel({ model: "gpt-4.1" }),
  fakeModel([buildStreamEvents([{ type: "text", text: "hi" }])]),
];
const state: AgentState = addUserMessage(initialAgentState(), "hi");
const settled: boolean = isTurnSettled(state);
const event: AgentEvent | undefined = parseAgentEvent('{"type":"done","roundCount":1,"stopReason":"end_turn"}');
const hook: (options: Parameters<typeof useAgentSession>[0]) => AgentSession = useAgentSession;
const sim: Promise<SimServer> = startSim({ policy: genericPolicy, pacing: { fast: true } });
export const all = { echo, models, settled, event, hook, sim, runAgentTurn, ToolExecutor };
`;

/**
 * What a newcomer writes first, type-checked against the installed declarations: histories as
 * stored, typed with the SDKs' own types (OpenAI chat messages with tool calls and images,
 * useChat's messages with file and tool parts, streamText's with image parts), passed to a turn
 * and to the converters; a tool that declares its context, whose executor must be given one; the
 * typed events of a tool returning an object.
 */
const NEWCOMER_TS = `import type { ModelMessage, UIMessage } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import {
  defineTool,
  fromUIMessages,
  type MessageInput,
  runAgentTurn,
  type ToolContext,
  ToolExecutor,
  toModelMessages,
  toOpenAIChatMessages,
  toUIMessages,
} from "overlap-runtime";
import { fakeModel } from "overlap-runtime/testing";
import { z } from "zod";

interface Shop {
  orders: Map<string, { status: string }>;
}
const lookupOrder = defineTool({
  name: "lookup_order",
  description: "An order.",
  input: z.object({ id: z.string() }),
  run: ({ id }, ctx: ToolContext<Shop>) => ctx.context.orders.get(id) ?? { status: "unknown" },
});
const weather = defineTool({
  name: "get_weather",
  description: "Weather.",
  input: z.object({ city: z.string() }),
  run: ({ city }) => \`sunny in \${city}\`,
});
// @ts-expect-error lookup_order declares a context: the executor needs it
export const missing = () => new ToolExecutor([weather, lookupOrder]);
const executor = new ToolExecutor([weather, lookupOrder], { context: { orders: new Map() } });
export const plain = new ToolExecutor([weather]);

const chat: ChatCompletionMessageParam[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: [{ type: "text", text: "this?" }, { type: "image_url", image_url: { url: "https://x/y.png" } }] },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "sunny" },
  { role: "user", content: "and then?" },
];
const ui: UIMessage[] = [
  { id: "1", role: "user", parts: [{ type: "text", text: "hi" }, { type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBE" }] },
  { id: "2", role: "assistant", parts: [{ type: "tool-get_weather", toolCallId: "t", state: "output-available", input: { city: "Oslo" }, output: "rain" }] },
];
const model: ModelMessage[] = [
  { role: "user", content: [{ type: "text", text: "see" }, { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" }] },
];
const stored: MessageInput[] = [...chat, ...ui, ...model, { role: "assistant", content: "ok" }];
const turn = await runAgentTurn({
  model: fakeModel([]),
  executor,
  messages: [...stored, { role: "user", content: "next" }],
  sink: (event) => {
    if (event.type === "tool-result" && event.name === "lookup_order") {
      const status: string | undefined = event.output?.status;
      void status;
    }
  },
});
const next = await runAgentTurn({
  model: fakeModel([]),
  executor,
  messages: [...turn.messages, { role: "user", content: "again" }],
  sink: () => {},
});
export const back: [ChatCompletionMessageParam[], UIMessage[], ModelMessage[]] = [
  toOpenAIChatMessages(next.messages),
  toUIMessages(fromUIMessages(ui).messages),
  toModelMessages(next.messages),
];
`;

function entryPointsTs(specifiers: readonly string[]): string {
  return specifiers.map((s, i) => `export * as entry${i} from "${s}";\n`).join("");
}

const TSCONFIG = {
  compilerOptions: {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    strict: true,
    noEmit: true,
    types: ["node"],
    jsx: "react-jsx",
  },
  include: ["*.ts", "*.tsx"],
};

// Each step runs tools (publint, attw, node, tsc) that take seconds; more on a loaded machine.
describe("the packed packages", { timeout: 2 * MINUTE }, () => {
  let work = "";
  let consumer = "";
  const packed: Partial<Record<keyof typeof PACKAGES, Packed>> = {};
  /** Every entry point of both packages, read from the installed manifests. */
  const specifiers: string[] = [];
  let sim: ChildProcess | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "overlap-packaging-"));
    const packs = join(work, "packs");
    consumer = join(work, "consumer");
    await mkdir(packs);
    await mkdir(consumer);
    // One after the other: both builds at once would compete with the other test files for CPU.
    packed.sim = await pack(PACKAGES.sim, packs);
    packed.runtime = await pack(PACKAGES.runtime, packs);
    await writeFile(
      join(consumer, "package.json"),
      `${JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2)}\n`,
    );
    // Every peer dependency (optional ones too: each entry point gets loaded), plus the types a
    // TypeScript user of react and Node.js has, and `@types/json-schema`, which the AI SDK's own
    // declarations (`@ai-sdk/provider`, a dependency of its provider packages) import without
    // depending on it; all at the versions the workspace uses.
    const manifest = JSON.parse(await readFile(join(PACKAGES.runtime, "package.json"), "utf8"));
    // Not better-sqlite3: a native module whose install compiles SQLite here (minutes); the
    // `/sqlite` entry point imports nothing of it (the database is the user's), so it loads and
    // type-checks without it.
    const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
      (name) => name !== "better-sqlite3",
    );
    // The README's examples also import a provider package of the AI SDK, the AWS SDK's HTTP/1.1
    // handler and react-dom (to render the React one); the AI SDK guide's, Hono and useChat;
    // the newcomer's check types its stored histories with the AI SDK's own message types.
    const examplesNeed = [
      "@ai-sdk/anthropic",
      "@smithy/node-http-handler",
      "react-dom",
      "ai",
      "@ai-sdk/react",
      "hono",
    ];
    const dependencies = await Promise.all(
      [...peers, ...examplesNeed, "@types/react", "@types/node", "@types/json-schema"].map(
        workspaceVersion,
      ),
    );
    await runOk(
      "npm install in the scratch project",
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        packed.runtime.tarball,
        packed.sim.tarball,
        ...dependencies,
      ],
      { cwd: consumer, timeoutMs: 4 * MINUTE },
    );
    for (const name of ["overlap-runtime", "overlap-sim"]) {
      const installed = join(consumer, "node_modules", name, "package.json");
      specifiers.push(...entryPoints(JSON.parse(await readFile(installed, "utf8"))));
    }
  }, 10 * MINUTE);

  afterAll(async () => {
    if (sim && sim.exitCode === null && sim.signalCode === null) {
      sim.kill("SIGINT");
      await once(sim, "exit");
    }
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("ship the license, the README, dist and the sources, not the tests", () => {
    for (const [name, info] of Object.entries(packed)) {
      const paths = info.files.map((f) => f.path);
      expect(paths, name).toEqual(
        expect.arrayContaining([
          "LICENSE",
          "README.md",
          "package.json",
          "dist/index.js",
          "dist/index.d.ts",
          "src/index.ts",
        ]),
      );
      expect(
        paths.filter((p) => /\.test\.|\.testkit\.|__fixtures__|test-support/.test(p)),
        name,
      ).toEqual([]);
    }
    const bin = packed.sim?.files.find((f) => f.path === "bin/overlap-sim.js");
    expect(bin?.mode ?? 0, "bin/overlap-sim.js is executable").toSatisfy(
      (mode: number) => (mode & 0o111) !== 0,
    );
  });

  it("pass publint (strict) and attw (ESM-only profile)", async () => {
    for (const info of Object.values(packed)) {
      const lint = await run(join(BIN, "publint"), ["run", info.tarball, "--strict"], {
        cwd: work,
      });
      expect(lint.code, report("publint", lint)).toBe(0);
      // The packages are ESM only (no "require" condition). attw's esm-only profile leaves out
      // node10 (a resolution without `exports`, so no subpaths) and node16-cjs (TypeScript's view
      // of require() from CommonJS, where any ESM is an error, though Node 20.19+ can require()
      // these packages: require.cjs below does).
      const types = await run(
        join(BIN, "attw"),
        [info.tarball, "--profile", "esm-only", "--no-color", "--no-emoji", "--format", "ascii"],
        { cwd: work },
      );
      expect(types.code, report("attw", types)).toBe(0);
    }
  });

  it("load from Node ESM and CommonJS in a project that installed the tarballs", async () => {
    expect(specifiers).toEqual(expect.arrayContaining(Object.keys(EXPECTED_FUNCTIONS)));
    await writeFile(join(consumer, "imports.mjs"), importsMjs(specifiers));
    await writeFile(join(consumer, "require.cjs"), requireCjs(specifiers));
    const esm = await runOk("node imports.mjs", process.execPath, ["imports.mjs"], {
      cwd: consumer,
    });
    expect(esm.stdout).toContain("imports ok");
    const cjs = await runOk("node require.cjs", process.execPath, ["require.cjs"], {
      cwd: consumer,
    });
    expect(cjs.stdout).toContain("require ok");
  });

  /**
   * The README's quick start `name` (the same code as `examples/<name>.mjs`), run in the consumer
   * project against a started overlap-sim with the environment `env` gives for its URL.
   */
  async function runQuickstart(name: string, env: (simUrl: string) => Record<string, string>) {
    const readme = await readFile(join(consumer, "node_modules/overlap-runtime/README.md"), "utf8");
    const blocks = checkedBlocks(readme);
    const code = blocks.get(name)?.code;
    expect(code, `the README's ${name} block`).toBeDefined();
    const example = await readFile(join(PACKAGES.runtime, `examples/${name}.mjs`), "utf8");
    expect(example, `packages/overlap/examples/${name}.mjs is the README's code`).toBe(code);
    const started = await startSimCommand(consumer);
    sim = started.child;
    await writeFile(join(consumer, `${name}.mjs`), code!);
    const result = await runOk(`node ${name}.mjs`, process.execPath, [`${name}.mjs`], {
      cwd: consumer,
      timeoutMs: MINUTE,
      env: env(started.url),
    });
    return { code: code!, blocks, result, child: started.child };
  }

  it("run the README's scripted-model quick start against the installed overlap-sim", async () => {
    const { code, blocks, result, child } = await runQuickstart("quickstart-sim", (url) => ({
      SIM_PORT: new URL(url).port,
    }));
    expect(code, "the quick start takes its port from SIM_PORT").toContain(
      "process.env.SIM_PORT ?? 8317",
    );
    const shown = blocks.get("quickstart-sim-output")?.code;
    expect(shown, "the README's quickstart-sim-output block").toBeDefined();
    // What the README shows, up to where the tool statuses fall between the streamed blocks (that
    // interleaving depends on timing, e.g. on a loaded machine).
    expect(withoutStatuses(result.stdout)).toBe(withoutStatuses(shown!));
    expect(statuses(result.stdout)).toEqual(statuses(shown!));
    expect(result.stdout).toMatch(/\nend_turn\n$/);

    child.kill("SIGINT");
    const [exitCode] = await once(child, "exit");
    expect(exitCode, "overlap-sim stops on Ctrl-C").toBe(0);
  });

  it("run the README's OpenAI-compatible quick start against the installed overlap-sim", async () => {
    const { code, result, child } = await runQuickstart("quickstart-openai", (url) => ({
      OPENAI_BASE_URL: `${url}/v1`,
      // A key of this run's environment is not sent to the scripted model.
      OPENAI_API_KEY: "unused",
    }));
    expect(
      code,
      "the quick start takes its address from OPENAI_BASE_URL, Ollama's by default",
    ).toContain('process.env.OPENAI_BASE_URL ?? "http://localhost:11434/v1"');
    expect(result.stdout).toBe(QUICKSTART_OPENAI_OUTPUT);

    child.kill("SIGINT");
    await once(child, "exit");
  });

  it("run the README's example of every entry point against the installed overlap-sim", async () => {
    const readme = await readFile(join(consumer, "node_modules/overlap-runtime/README.md"), "utf8");
    const examples = [...checkedBlocks(readme)].filter(([name]) => name.startsWith("example-"));
    expect(examples.map(([name]) => name).sort()).toEqual(
      [...Object.keys(EXAMPLE_OUTPUT), "example-react"].sort(),
    );
    const started = await startSimCommand(consumer);
    sim = started.child;
    const env = { SIM_PORT: new URL(started.url).port };
    for (const [name, { lang, code }] of examples) {
      if (lang === "tsx") continue; // the React example: rendered below
      expect(code, `${name} takes its port from SIM_PORT`).not.toMatch(/:8317\b/);
      await writeFile(join(consumer, `${name}.mjs`), code);
      const result = await runOk(`node ${name}.mjs`, process.execPath, [`${name}.mjs`], {
        cwd: consumer,
        timeoutMs: MINUTE,
        env,
      });
      expect(result.stdout, name).toBe(EXAMPLE_OUTPUT[name]);
    }

    const react = examples.find(([name]) => name === "example-react")?.[1];
    expect(react?.lang, "the React example is TSX").toBe("tsx");
    await writeFile(join(consumer, "example-react.tsx"), react!.code);
    const tsc = await run(
      process.execPath,
      [
        join(ROOT, "node_modules/typescript/bin/tsc"),
        ...["--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"],
        ...["--jsx", "react-jsx", "--strict", "--types", "node", "--outDir", "out"],
        "example-react.tsx",
      ],
      { cwd: consumer },
    );
    expect(tsc.code, report("tsc example-react.tsx", tsc)).toBe(0);
    await writeFile(join(consumer, "render-react.mjs"), RENDER_REACT_MJS);
    const rendered = await runOk("node render-react.mjs", process.execPath, ["render-react.mjs"], {
      cwd: consumer,
    });
    expect(rendered.stdout).toBe('<div><button type="button">Ask</button></div>\n');

    sim.kill("SIGINT");
    await once(sim, "exit");
  });

  it("type-check every checked README example and every entry point (tsc nodenext, strict)", async () => {
    const examples = new Map<string, { lang: string; code: string }>();
    for (const pkg of ["overlap-runtime", "overlap-sim"]) {
      const readme = await readFile(join(consumer, "node_modules", pkg, "README.md"), "utf8");
      for (const [name, block] of checkedBlocks(readme)) {
        if (["js", "ts", "tsx"].includes(block.lang)) examples.set(name, block);
      }
    }
    expect([...examples.keys()].sort()).toEqual(
      [
        ...Object.keys(EXAMPLE_OUTPUT),
        "example-react",
        "quickstart-claude",
        "quickstart-openai",
        "quickstart-sim",
        "startSim",
      ].sort(),
    );
    for (const [name, { lang, code }] of examples) {
      await writeFile(join(consumer, `${name}.${lang === "tsx" ? "tsx" : "ts"}`), code);
    }
    await writeFile(join(consumer, "imports.ts"), IMPORTS_TS);
    await writeFile(join(consumer, "newcomer.ts"), NEWCOMER_TS);
    await writeFile(join(consumer, "entry-points.ts"), entryPointsTs(specifiers));
    await writeFile(join(consumer, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    const tsc = await run(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      { cwd: consumer },
    );
    expect(tsc.code, report("tsc", tsc)).toBe(0);
  });

  it("compile and run every example of docs/ and its guides, each printing what is shown after it", {
    timeout: 6 * MINUTE,
  }, async () => {
    const { blocks, unchecked, duplicates } = await docsExamples();
    expect(unchecked, "docs/guides code blocks without a `<!-- checked: name -->`").toEqual([]);
    expect(duplicates, "names marked twice in docs/").toEqual([]);
    const examples = [...blocks].filter(([, block]) => CODE_LANGS.includes(block.lang));
    expect(examples.length, "the guides' examples").toBeGreaterThan(0);
    for (const [name, block] of blocks) {
      if (name.endsWith("-output") && !blocks.has(name.slice(0, -"-output".length))) {
        throw new Error(`${block.file}: ${name} follows no example named ${name.slice(0, -7)}`);
      }
    }
    // A folder of the scratch project: the same installed packages, its own compiler output.
    const dir = join(consumer, "docs-examples");
    await mkdir(dir, { recursive: true });
    for (const [name, { lang, code }] of examples) {
      await writeFile(join(dir, `${name}.${lang === "tsx" ? "tsx" : "ts"}`), code);
    }
    const tsconfig = {
      compilerOptions: { ...TSCONFIG.compilerOptions, noEmit: false, outDir: "out" },
      include: TSCONFIG.include,
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    const tsc = await run(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      { cwd: dir },
    );
    expect(tsc.code, report("tsc (docs/ examples)", tsc)).toBe(0);
    for (const [name, { file }] of examples) {
      const result = await runOk(
        `node ${name}.js (${file})`,
        process.execPath,
        [`out/${name}.js`],
        {
          cwd: dir,
          timeoutMs: 2 * MINUTE,
        },
      );
      const shown = blocks.get(`${name}-output`)?.code;
      if (shown !== undefined) expect(result.stdout, `${file}: ${name}`).toBe(shown);
    }
  });
});
