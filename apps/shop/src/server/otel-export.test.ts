/**
 * The shop's traces over OTLP/HTTP: a stand-in collector receives the spans of a demo turn (the
 * turn, its model calls, its tools) under the shop's service name once the shop closes (the last
 * batch is flushed then); without the endpoint, nothing is registered.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { shopPolicy } from "../model/shop-policy.js";
import { startOtelExport } from "./otel-export.js";
import { startShop } from "./start-shop.js";
import { readEvents } from "./test-shop.testkit.js";

interface OtlpSpan {
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP collector that keeps every span it is sent, with the resource's service name. */
async function collector() {
  const spans: Array<OtlpSpan & { service: unknown }> = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      paths.push(req.url ?? "");
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
          scopeSpans: Array<{ spans: OtlpSpan[] }>;
        }>;
      };
      for (const rs of payload.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value
          .stringValue;
        for (const scope of rs.scopeSpans)
          for (const span of scope.spans) spans.push({ ...span, service });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.boolValue;
};

describe("traces over OTLP", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is registered", () => {
    expect(startOtelExport({}, pino({ level: "silent" }))).toBeUndefined();
  });

  it("a demo turn's spans reach the collector: the turn, its model calls, its tools", async () => {
    const otlp = await collector();
    dir = await mkdtemp(join(tmpdir(), "shop-otel-"));
    const config = loadConfig({ PORT: "0", DATA_DIR: dir, MERCHANT_TOKEN: "m".repeat(20) });
    const shop = await startShop({
      config,
      logger: pino({ level: "silent" }),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/`, OTEL_SERVICE_NAME: "shop-under-test" },
      policy: shopPolicy,
      pacing: { tokensPerSecond: 400, firstTokenMs: 5, jitter: 0 },
    });
    try {
      const session = (await (
        await fetch(`${shop.url}/api/sessions`, { method: "POST" })
      ).json()) as {
        id: string;
        token: string;
      };
      const response = await fetch(`${shop.url}/api/sessions/${session.id}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          text: "add the charcoal wool socks in size M to my cart and tell me the total",
        }),
      });
      const events = await readEvents(response);
      expect(events.at(-1)?.event.type).toBe("done");
    } finally {
      await shop.close(); // flushes the last batch
      await otlp.close();
    }
    expect(otlp.paths.every((p) => p === "/v1/traces")).toBe(true);
    const names = otlp.spans.map((s) => s.name);
    expect(names).toContain("invoke_agent shopper");
    expect(names.filter((n) => n.startsWith("chat ")).length).toBeGreaterThanOrEqual(2);
    const tools = otlp.spans.filter((s) => s.name.startsWith("execute_tool "));
    expect(tools.length).toBeGreaterThanOrEqual(1);
    expect(attribute(tools[0]!, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attribute(tools[0]!, "gen_ai.tool.call.id")).toBeTruthy();
    const chat = otlp.spans.find((s) => s.name.startsWith("chat "))!;
    expect(attribute(chat, "gen_ai.provider.name")).toBe("anthropic");
    expect(otlp.spans.every((s) => s.service === "shop-under-test")).toBe(true);
  }, 60_000);
});
