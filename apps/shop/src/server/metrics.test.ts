import type { AgentEvent, LoggedEvent } from "overlap-runtime";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import type { ShopTurnInput, TurnBody } from "../turns/turn-body.js";
import type { TurnContext } from "../turns/turn-context.js";
import { capturedLog } from "./captured-log.testkit.js";
import { createApp } from "./create-app.js";
import { MAX_LABEL_VALUES, ShopMetrics } from "./metrics.js";
import { observedTurnBody } from "./observe-turns.js";
import { type HttpServer, startHttpServer } from "./start-http-server.js";
import {
  createTestShop,
  readEvents,
  TEST_MERCHANT_TOKEN,
  type TestShop,
} from "./test-shop.testkit.js";

const DEMO =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

// --- A small reader of the Prometheus text exposition format (version 0.0.4) ---

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? "";
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const label = LABEL.exec(body);
      if (!label) throw new Error(`bad labels: ${body}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const raw = match[3]!;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    samples.push({ name: match[1]!, labels, value });
  }
  return { types, samples };
}

/** The value of the one sample named `name` with exactly these labels (0 when absent). */
function sampleValue(x: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = x.samples.filter(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value ?? 0;
}

function labelsOf(x: Exposition, name: string): Record<string, string>[] {
  return x.samples.filter((s) => s.name === name).map((s) => s.labels);
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

// --- HTTP helpers (a real server on a free port) ---

async function scrape(base: string, token = TEST_MERCHANT_TOKEN): Promise<Exposition> {
  const response = await fetch(`${base}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

async function shopperSession(base: string): Promise<{ id: string; token: string }> {
  const response = await fetch(`${base}/api/sessions`, { method: "POST" });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; token: string };
}

function sendMessage(base: string, session: { id: string; token: string }, text: string) {
  return fetch(`${base}/api/sessions/${session.id}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
}

function roundEnds(events: readonly LoggedEvent[]): Of<"round-end">[] {
  return events.map((e) => e.event).filter((e): e is Of<"round-end"> => e.type === "round-end");
}

function ranTools(ends: readonly Of<"round-end">[]) {
  return ends.flatMap((e) =>
    e.timings.tools.filter((t) => t.startMs !== undefined && t.endMs !== undefined),
  );
}

describe("GET /metrics after a demo turn over real HTTP (streamed path)", () => {
  let t: TestShop;
  let http: HttpServer;
  let events: LoggedEvent[];
  let turnId: string;
  let x: Exposition;

  beforeAll(async () => {
    t = await createTestShop();
    http = await startHttpServer(t.shop.app.fetch, { port: 0 });
    const session = await shopperSession(http.url);
    const response = await sendMessage(http.url, session, DEMO);
    expect(response.status).toBe(200);
    turnId = response.headers.get("x-turn-id")!;
    events = await readEvents(response);
    x = await scrape(http.url);
  });
  afterAll(async () => {
    await http.close();
    await t.close();
  });

  it("declares each metric with its type, the process metrics included", () => {
    expect(Object.fromEntries([...x.types].filter(([name]) => name.startsWith("shop_")))).toEqual({
      shop_rounds_total: "counter",
      shop_tool_calls_total: "counter",
      shop_tool_duration_seconds: "histogram",
      shop_round_saved_seconds: "histogram",
      shop_model_first_token_seconds: "histogram",
      shop_errors_total: "counter",
      shop_active_turns: "gauge",
      shop_open_sse_connections: "gauge",
    });
    expect(x.types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(x.types.get("nodejs_heap_size_used_bytes")).toBe("gauge");
  });

  it("counts the turn's rounds by agent and stop reason", () => {
    const ends = roundEnds(events);
    expect(ends.length).toBeGreaterThanOrEqual(2);
    const expected = countBy(ends, (e) => `${e.agent}|${e.stopReason}`);
    const seen = labelsOf(x, "shop_rounds_total").map((l) => `${l.agent}|${l.stop_reason}`);
    expect(seen.sort()).toEqual([...expected.keys()].sort());
    for (const [key, count] of expected) {
      const [agent, stopReason] = key.split("|") as [string, string];
      expect(sampleValue(x, "shop_rounds_total", { agent, stop_reason: stopReason })).toBe(count);
    }
    expect(sampleValue(x, "shop_rounds_total", { agent: "shopper", stop_reason: "end_turn" })).toBe(
      1,
    );
    expect(
      sampleValue(x, "shop_rounds_total", { agent: "shopper", stop_reason: "tool_use" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("counts tool calls by tool and status: the two cart additions among them", () => {
    const results = events
      .map((e) => e.event)
      .filter((e): e is Of<"tool-result"> => e.type === "tool-result");
    const expected = countBy(results, (r) => `${r.name}|${r.status}`);
    const seen = labelsOf(x, "shop_tool_calls_total").map((l) => `${l.tool}|${l.status}`);
    expect(seen.sort()).toEqual([...expected.keys()].sort());
    for (const [key, count] of expected) {
      const [tool, status] = key.split("|") as [string, string];
      expect(sampleValue(x, "shop_tool_calls_total", { tool, status })).toBe(count);
    }
    expect(sampleValue(x, "shop_tool_calls_total", { tool: "add_to_cart", status: "ok" })).toBe(2);
  });

  it("observes each tool's duration under its name, in seconds", () => {
    const tools = ranTools(roundEnds(events));
    for (const [name, count] of countBy(tools, (tool) => tool.name)) {
      const mine = tools.filter((tool) => tool.name === name);
      const sum = mine.reduce((s, tool) => s + (tool.endMs! - tool.startMs!) / 1000, 0);
      expect(sampleValue(x, "shop_tool_duration_seconds_count", { tool: name })).toBe(count);
      expect(sampleValue(x, "shop_tool_duration_seconds_bucket", { tool: name, le: "+Inf" })).toBe(
        count,
      );
      expect(sampleValue(x, "shop_tool_duration_seconds_sum", { tool: name })).toBeCloseTo(sum, 6);
    }
    // Buckets are cumulative.
    const buckets = x.samples.filter(
      (s) => s.name === "shop_tool_duration_seconds_bucket" && s.labels.tool === "add_to_cart",
    );
    expect(buckets.length).toBeGreaterThan(5);
    for (let i = 1; i < buckets.length; i++) {
      expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    }
  });

  it("observes the time saved per round with a tool, and the time to first token per round", () => {
    const ends = roundEnds(events);
    const withSaved = ends.filter((e) => e.timings.savedMs !== undefined);
    expect(withSaved.length).toBeGreaterThanOrEqual(1);
    expect(sampleValue(x, "shop_round_saved_seconds_count", { agent: "shopper" })).toBe(
      withSaved.length,
    );
    expect(sampleValue(x, "shop_round_saved_seconds_sum", { agent: "shopper" })).toBeCloseTo(
      withSaved.reduce((s, e) => s + e.timings.savedMs! / 1000, 0),
      6,
    );
    const zeroOrLess = withSaved.filter((e) => e.timings.savedMs! <= 0).length;
    expect(sampleValue(x, "shop_round_saved_seconds_bucket", { agent: "shopper", le: "0" })).toBe(
      zeroOrLess,
    );
    // Every streamed round has content, so a time to first token.
    expect(ends.every((e) => typeof e.timings.firstTokenMs === "number")).toBe(true);
    expect(sampleValue(x, "shop_model_first_token_seconds_count", { agent: "shopper" })).toBe(
      ends.length,
    );
    expect(sampleValue(x, "shop_model_first_token_seconds_sum", { agent: "shopper" })).toBeCloseTo(
      ends.reduce((s, e) => s + e.timings.firstTokenMs! / 1000, 0),
      6,
    );
  });

  it("no turn runs and no stream is open once the turn's stream ended; no turn error", () => {
    expect(sampleValue(x, "shop_active_turns")).toBe(0);
    expect(sampleValue(x, "shop_open_sse_connections")).toBe(0);
    expect(labelsOf(x, "shop_errors_total").filter((l) => l.source === "turn")).toEqual([]);
  });

  it("counts the API's error answers by code", async () => {
    const before = sampleValue(await scrape(http.url), "shop_errors_total", {
      source: "http",
      code: "unauthorized",
    });
    expect((await fetch(`${http.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${http.url}/api/sessions/nope/cart`)).status).toBe(401);
    expect((await fetch(`${http.url}/no-such-route`)).status).toBe(404);
    const after = await scrape(http.url);
    expect(sampleValue(after, "shop_errors_total", { source: "http", code: "unauthorized" })).toBe(
      before + 2,
    );
    expect(
      sampleValue(after, "shop_errors_total", { source: "http", code: "not_found" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("writes one info line per round with the round-end event's figures", () => {
    const lines = t.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "round" && line.turnId === turnId);
    const ends = roundEnds(events);
    expect(lines).toHaveLength(ends.length);
    for (const [i, end] of ends.entries()) {
      const line = lines[i]!;
      const tm = end.timings;
      expect(line).toMatchObject({
        level: 30,
        agent: "shopper",
        round: end.round,
        stopReason: end.stopReason,
        firstTokenMs: tm.firstTokenMs,
        firstToolStartMs: tm.firstToolStartMs ?? null,
        streamEndMs: tm.streamEndMs,
        endMs: tm.endMs,
        savedMs: tm.savedMs ?? null,
        tools: tm.tools.map((tool) => ({
          callId: tool.callId,
          name: tool.name,
          readyMs: tool.readyMs,
          startMs: tool.startMs ?? null,
          endMs: tool.endMs ?? null,
          status: tool.status ?? null,
        })),
      });
      expect(typeof line.sessionId).toBe("string");
      expect(typeof line.firstTokenMs).toBe("number");
    }
    // A round that ran tools: each tool's start and end, and the first start among them.
    const withTools = lines.find((line) => (line.tools as unknown[]).length > 0)!;
    const tools = withTools.tools as Array<{ startMs: number; endMs: number }>;
    expect(withTools.firstToolStartMs).toBe(Math.min(...tools.map((tool) => tool.startMs)));
    for (const tool of tools) expect(tool.endMs).toBeGreaterThanOrEqual(tool.startMs);
    expect(withTools.savedMs).toBeTypeOf("number");
  });
});

describe("gauges while a turn runs, and a cancelled turn", () => {
  let t: TestShop;
  let http: HttpServer;
  beforeAll(async () => {
    // A slow first token keeps the turn running while the test looks.
    t = await createTestShop({ pacing: { fast: false, firstTokenMs: 3_000, jitter: 0 } });
    http = await startHttpServer(t.shop.app.fetch, { port: 0 });
  });
  afterAll(async () => {
    await http.close();
    await t.close();
  });

  it("one active turn and one open SSE connection while it streams; none after; aborted counted", async () => {
    const session = await shopperSession(http.url);
    const response = await sendMessage(http.url, session, DEMO);
    expect(response.status).toBe(200);
    const during = await scrape(http.url);
    expect(sampleValue(during, "shop_active_turns")).toBe(1);
    expect(sampleValue(during, "shop_open_sse_connections")).toBe(1);
    const cancel = await fetch(`${http.url}/api/sessions/${session.id}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(await cancel.json()).toEqual({ cancelled: true });
    const events = await readEvents(response);
    expect(events.at(-1)?.event.type).toBe("done");
    const after = await scrape(http.url);
    expect(sampleValue(after, "shop_active_turns")).toBe(0);
    expect(sampleValue(after, "shop_open_sse_connections")).toBe(0);
    expect(sampleValue(after, "shop_errors_total", { source: "turn", code: "aborted" })).toBe(1);
    expect(
      sampleValue(after, "shop_rounds_total", { agent: "shopper", stop_reason: "error" }),
    ).toBe(1);
  });

  it("a reader that leaves closes its connection in the gauge", async () => {
    const session = await shopperSession(http.url);
    const response = await sendMessage(http.url, session, DEMO);
    const controller = new AbortController();
    const resumed = await fetch(`${http.url}/api/sessions/${session.id}/stream`, {
      headers: { authorization: `Bearer ${session.token}` },
      signal: controller.signal,
    });
    expect(resumed.status).toBe(200);
    expect(sampleValue(await scrape(http.url), "shop_open_sse_connections")).toBe(2);
    controller.abort();
    await resumed.body?.cancel().catch(() => {});
    await expect
      .poll(async () => sampleValue(await scrape(http.url), "shop_open_sse_connections"))
      .toBe(1);
    await fetch(`${http.url}/api/sessions/${session.id}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.token}` },
    });
    await readEvents(response);
    expect(sampleValue(await scrape(http.url), "shop_open_sse_connections")).toBe(0);
  });
});

describe("who may read /metrics", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop();
  });
  afterAll(() => t.close());

  it("by default: the merchant token; none is 401 with WWW-Authenticate, others 403", async () => {
    const none = await t.call("GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const shopper = await t.session();
    expect((await t.call("GET", "/metrics", { token: shopper.token })).status).toBe(403);
    expect((await t.call("GET", "/metrics", { token: "x".repeat(40) })).status).toBe(403);
    const ok = await t.call("GET", "/metrics", { token: TEST_MERCHANT_TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("no-store");
  });

  it("with METRICS_TOKEN: that token, and no longer the merchant's; apps keep registries apart", async () => {
    const metricsToken = "metrics-token-for-tests-0123456789";
    const other = createApp({
      store: t.store,
      agents: t.agents,
      model: t.model,
      merchantToken: TEST_MERCHANT_TOKEN,
      metricsToken,
      logger: pino({ level: "silent" }),
      webDir: null,
    });
    try {
      const get = (token: string) =>
        other.app.request("/metrics", { headers: { authorization: `Bearer ${token}` } });
      expect((await get(TEST_MERCHANT_TOKEN)).status).toBe(403);
      const ok = await get(metricsToken);
      expect(ok.status).toBe(200);
      const x = parseExposition(await ok.text());
      // Its own registry: the 403 above is counted here, not in the first app.
      expect(sampleValue(x, "shop_errors_total", { source: "http", code: "forbidden" })).toBe(1);
      expect(other.metrics.registry).not.toBe(t.shop.metrics.registry);
      expect(x.types.get("process_cpu_user_seconds_total")).toBe("counter");
    } finally {
      await other.drain();
    }
  });

  it("METRICS_TOKEN in the configuration: default the merchant token, at least 16 characters", () => {
    const merchant = "a-long-enough-merchant-token";
    expect(loadConfig({ MERCHANT_TOKEN: merchant }).metricsToken).toBe(merchant);
    const generated = loadConfig({});
    expect(generated.metricsToken).toBe(generated.merchantToken);
    expect(
      loadConfig({ MERCHANT_TOKEN: merchant, METRICS_TOKEN: " prometheus-scrape-token " })
        .metricsToken,
    ).toBe("prometheus-scrape-token");
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
  });
});

describe("observedTurnBody: the tap every turn runs through", () => {
  const input = (log: pino.Logger) =>
    ({ sessionId: "s-1", agent: { name: "shopper" }, log }) as unknown as ShopTurnInput;
  const context = (events: AgentEvent[]): TurnContext =>
    ({
      turnId: "turn-1",
      emit: (event: AgentEvent) => events.push(event),
      signal: new AbortController().signal,
    }) as unknown as TurnContext;
  const roundEnd: Of<"round-end"> = {
    type: "round-end",
    agent: "merchant",
    parentCallId: "toolu_outer",
    round: 1,
    stopReason: "end_turn",
    usage: { input_tokens: 10, output_tokens: 5 },
    timings: {
      startedAt: 1,
      firstTokenMs: 40,
      streamEndMs: 100,
      endMs: 101,
      blocks: [],
      tools: [{ callId: "c1", name: "sales_report", readyMs: 10, startMs: 10, endMs: 30 }],
      savedMs: 20,
    },
  };

  async function metricValue(metrics: ShopMetrics, name: string) {
    return (await metrics.registry.getSingleMetric(name)!.get()).values;
  }

  it("passes every event on unchanged, counts it, logs the round (a delegate's too)", async () => {
    const { logger: log, lines } = capturedLog();
    const metrics = new ShopMetrics();
    const body: TurnBody = () => async (turn) => {
      turn.emit(roundEnd);
      turn.emit({ type: "done", roundCount: 1, stopReason: "end_turn" });
    };
    const events: AgentEvent[] = [];
    await observedTurnBody(metrics, body)(input(log))(context(events));
    expect(events).toEqual([roundEnd, { type: "done", roundCount: 1, stopReason: "end_turn" }]);
    expect(await metricValue(metrics, "shop_rounds_total")).toEqual([
      { value: 1, labels: { agent: "merchant", stop_reason: "end_turn" } },
    ]);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      msg: "round",
      level: 30,
      sessionId: "s-1",
      turnId: "turn-1",
      agent: "shopper",
      delegate: { agent: "merchant", parentCallId: "toolu_outer" },
      firstTokenMs: 40,
      firstToolStartMs: null,
      savedMs: 20,
      tools: [{ callId: "c1", name: "sales_report", startMs: 10, endMs: 30 }],
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  });

  it("a body that throws: an internal turn error, and the turn no longer counts as active", async () => {
    const metrics = new ShopMetrics();
    const body: TurnBody = () => async () => {
      expect((await metricValue(metrics, "shop_active_turns"))[0]?.value).toBe(1);
      throw new Error("boom");
    };
    const run = observedTurnBody(metrics, body)(input(pino({ level: "silent" })))(context([]));
    await expect(run).rejects.toThrow("boom");
    expect((await metricValue(metrics, "shop_active_turns"))[0]?.value).toBe(0);
    expect(await metricValue(metrics, "shop_errors_total")).toEqual([
      { value: 1, labels: { source: "turn", code: "internal" } },
    ]);
  });

  it("label values from outside are bounded: tool names past the limit count as _other", async () => {
    const metrics = new ShopMetrics();
    for (let i = 0; i < MAX_LABEL_VALUES + 10; i++) {
      metrics.observe({
        type: "tool-result",
        round: 1,
        callId: `c${i}`,
        name: `made_up_${i}`,
        isError: true,
        status: "unknown_tool",
        resultText: "no such tool",
      });
    }
    const values = await metricValue(metrics, "shop_tool_calls_total");
    expect(values).toHaveLength(MAX_LABEL_VALUES + 1);
    expect(values.find((v) => v.labels.tool === "_other")?.value).toBe(10);
  });
});

describe("GET /metrics on the whole-response path", () => {
  let t: TestShop;
  beforeAll(async () => {
    t = await createTestShop({ path: "whole" });
  });
  afterAll(() => t.close());

  it("its rounds and tools are counted; nothing saved (le=0); no time to first token", async () => {
    const { id, token } = await t.session();
    const response = await t.call("POST", `/api/sessions/${id}/messages`, {
      token,
      json: { text: DEMO },
    });
    const events = await readEvents(response);
    const x = parseExposition(
      await (await t.call("GET", "/metrics", { token: TEST_MERCHANT_TOKEN })).text(),
    );
    const ends = roundEnds(events);
    expect(ends.length).toBeGreaterThanOrEqual(2);
    expect(
      labelsOf(x, "shop_rounds_total").reduce(
        (n, labels) => n + sampleValue(x, "shop_rounds_total", labels),
        0,
      ),
    ).toBe(ends.length);
    expect(sampleValue(x, "shop_tool_calls_total", { tool: "add_to_cart", status: "ok" })).toBe(2);
    const withSaved = ends.filter((e) => e.timings.savedMs !== undefined);
    expect(withSaved.length).toBeGreaterThanOrEqual(1);
    expect(withSaved.every((e) => e.timings.savedMs === 0)).toBe(true);
    expect(sampleValue(x, "shop_round_saved_seconds_bucket", { agent: "shopper", le: "0" })).toBe(
      withSaved.length,
    );
    expect(labelsOf(x, "shop_model_first_token_seconds_count")).toEqual([]);
    expect(
      t.logs.filter((line) => (JSON.parse(line) as { msg?: string }).msg === "round"),
    ).toHaveLength(ends.length);
  });
});
