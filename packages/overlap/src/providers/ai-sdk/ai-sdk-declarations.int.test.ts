/**
 * `overlap-runtime/ai-sdk` type-checks in a project that has not installed `@ai-sdk/provider`,
 * with `skipLibCheck` off: its declarations, emitted fresh from the sources, import no package but
 * zod (a required peer dependency), and a scratch project outside the repository, holding only
 * them and zod, compiles a route and a model adapter written against them. The same project fails
 * to compile a file that does import `@ai-sdk/provider`, so the package is really absent there.
 */

import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const PACKAGE = join(ROOT, "packages/overlap");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");

function tsc(args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, ...args],
      { cwd, timeout: 4 * 60_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
          output: `${stdout}${stderr}`,
        });
      },
    );
  });
}

async function declarationFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** A consumer's route and model, written against the entry point's declarations only. */
const CONSUMER_TS = `import {
  type AgentUIStreamResponseOptions,
  agentUIStreamResponse,
  aiSdkModel,
  uiMessageStreamResponse,
} from "overlap-runtime/ai-sdk";

export function POST(request: Request, options: AgentUIStreamResponseOptions): Promise<Response> {
  return agentUIStreamResponse(request, {
    ...options,
    onFinish: ({ body, uiMessages, result }) => {
      const parts: number = uiMessages.reduce((n, m) => n + m.parts.length, 0);
      console.log(body.id, parts, result.stopReason);
    },
  });
}

export const model = aiSdkModel({
  specificationVersion: "v3",
  provider: "test",
  modelId: "test",
  supportedUrls: {},
  doStream: async () => ({ stream: new ReadableStream() }),
});
export const empty: Response = uiMessageStreamResponse((async function* () {})());
`;

describe("overlap-runtime/ai-sdk's declarations", { timeout: 5 * 60_000 }, () => {
  let work = "";
  let dist = "";
  let consumer = "";
  let emitted: { code: number; output: string };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "overlap-ai-sdk-dts-"));
    const pkg = join(work, "consumer/node_modules/overlap-runtime");
    dist = join(pkg, "dist");
    consumer = join(work, "consumer");
    await mkdir(pkg, { recursive: true });
    emitted = await tsc(
      [
        ...["--declaration", "--emitDeclarationOnly", "--outDir", dist],
        ...[
          "--rootDir",
          join(PACKAGE, "src"),
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
        ],
        ...["--target", "es2022", "--strict", "--skipLibCheck", "--types", "node"],
        ...["--customConditions", "overlap-source"],
        join(PACKAGE, "src/providers/ai-sdk/ai-sdk.ts"),
      ],
      PACKAGE,
    );
    const manifest = {
      name: "overlap-runtime",
      type: "module",
      exports: { "./ai-sdk": { types: "./dist/providers/ai-sdk/ai-sdk.d.ts" } },
    };
    await writeFile(join(pkg, "package.json"), JSON.stringify(manifest));
    await symlink(join(ROOT, "node_modules/zod"), join(consumer, "node_modules/zod"), "dir");
    await writeFile(
      join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    await writeFile(join(consumer, "route.ts"), CONSUMER_TS);
    // Types of the DOM's fetch (Request, Response, ReadableStream): no @types/node either.
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2022",
      lib: ["es2023", "dom"],
      types: [],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    };
    await writeFile(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions, include: ["route.ts"] }),
    );
    await writeFile(
      join(consumer, "tsconfig.spec.json"),
      JSON.stringify({ compilerOptions, include: ["spec.ts"] }),
    );
    await writeFile(
      join(consumer, "spec.ts"),
      'import type { LanguageModelV3 } from "@ai-sdk/provider";\nexport type M = LanguageModelV3;\n',
    );
  }, 5 * 60_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("are emitted and import no package but zod", async () => {
    expect(emitted.code, emitted.output).toBe(0);
    const packages = new Set<string>();
    for (const file of await declarationFiles(dist)) {
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/(?:from |import\()["']([^"'.][^"']*)["']/g))
        packages.add(m[1]!);
    }
    expect([...packages].sort()).toEqual(["zod"]);
  });

  it("type-check a route and a model without @ai-sdk/provider, skipLibCheck off", async () => {
    const spec = await tsc(["-p", "tsconfig.spec.json"], consumer);
    expect(spec.code, "@ai-sdk/provider is absent from the scratch project").not.toBe(0);
    expect(spec.output).toContain("@ai-sdk/provider");
    const result = await tsc(["-p", "tsconfig.json"], consumer);
    expect(result.code, result.output).toBe(0);
  });
});
