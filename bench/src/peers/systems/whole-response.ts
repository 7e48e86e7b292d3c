/**
 * The shop's whole-response path (`apps/shop/src/turns/whole/`): `runAgentSdkTurn`, the Claude
 * Agent SDK (its CLI, a child process of this one) with the same tools as overlap, each call run
 * once its response has ended. The CLI makes its own HTTP requests, so they go through a small
 * proxy in this process that forwards them to the scripted model with the same wire tap as every
 * other system. The CLI's own CPU (another process) is not in this system's CPU figure.
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { defineTool, type Message, ToolExecutor } from "overlap-runtime";
import { z } from "zod";
import { runAgentSdkTurn } from "../../../../apps/shop/src/turns/whole/agent-sdk-turn.js";
import {
  benchTool,
  type PeerSystem,
  packageVersion,
  runPeerChild,
  tappedFetch,
} from "../child-kit.js";
import { BENCH_TOOL_SCHEMA, BENCH_TOOLS } from "../scenarios.js";

const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "content-length",
  "keep-alive",
  "transfer-encoding",
]);

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A local HTTP proxy to `target` whose requests go through the wire tap. */
async function tapProxy(target: string, fetch: typeof globalThis.fetch): Promise<string> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (value === undefined || HOP_BY_HOP.has(name)) continue;
          headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const init: RequestInit = { method: req.method ?? "GET", headers };
        if (req.method !== "GET" && req.method !== "HEAD") init.body = await body(req);
        const upstream = await fetch(`${target}${req.url ?? "/"}`, init);
        const out: Record<string, string> = {};
        upstream.headers.forEach((value, name) => {
          if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
        });
        res.writeHead(upstream.status, out);
        res.flushHeaders();
        if (upstream.body) {
          for await (const chunk of upstream.body) res.write(chunk);
        }
        res.end();
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function load(): Promise<PeerSystem> {
  const fetch = tappedFetch();
  // The whole path hands the SDK zod object shapes (it needs `.shape`): the bench schema in zod.
  const input = z.looseObject({
    op: z.string().describe(BENCH_TOOL_SCHEMA.properties.op.description),
    ms: z.number().int().describe(BENCH_TOOL_SCHEMA.properties.ms.description),
  });
  const executor = new ToolExecutor(
    BENCH_TOOLS.map((t) =>
      defineTool({
        name: t.name,
        description: t.description,
        input,
        run: (args, ctx) => benchTool(t.name, args, ctx.signal),
      }),
    ),
  );
  const proxies = new Map<string, Promise<string>>();
  const proxyFor = (url: string) => {
    let proxy = proxies.get(url);
    if (!proxy) {
      proxy = tapProxy(url, fetch);
      proxies.set(url, proxy);
    }
    return proxy;
  };
  return {
    name: "whole-response",
    versions: {
      "@anthropic-ai/claude-agent-sdk": packageVersion(
        "@anthropic-ai/claude-agent-sdk",
        new URL("../../../../apps/shop/package.json", import.meta.url).href,
      ),
    },
    async turn({ url, history, prompt, signal }) {
      const messages: Message[] = [...(history as Message[]), { role: "user", content: prompt }];
      const turn = await runAgentSdkTurn({
        endpoint: { baseUrl: await proxyFor(url), apiKey: "bench", model: "scripted-peers" },
        executor,
        messages,
        sink: () => {},
        signal,
      });
      const last = turn.messages.at(-1);
      const text =
        last?.role === "assistant" && Array.isArray(last.content)
          ? last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
          : "";
      const result = { text, history: turn.messages };
      return turn.error
        ? { ...result, error: `${turn.error.code}: ${turn.error.message}` }
        : result;
    },
  };
}

await runPeerChild(load);
