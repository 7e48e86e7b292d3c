import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defineTool, type ToolContext } from "overlap-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DemoBook } from "./demo-book.js";
import { bookScope, currentDemoScope, demoSimFetch, runInDemoScope } from "./demo-scope.js";
import {
  applyDemoUpdate,
  callLatencyMs,
  defaultDemoSettings,
  simRequestHeaders,
} from "./demo-settings.js";
import { withSimulatedLatency } from "./simulated-latency.js";

/** A server that answers each request with its headers. */
let echo: Server;
let url: string;
beforeAll(async () => {
  echo = createServer((req, res) => res.end(JSON.stringify(req.headers)));
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

const headersSeen = async () =>
  (await (await demoSimFetch(url, { headers: { "x-own": "kept" } })).json()) as Record<
    string,
    string
  >;

describe("demo settings", () => {
  it("apply an update field by field, services one by one", () => {
    const settings = applyDemoUpdate(defaultDemoSettings(), {
      serviceLatencyMs: { search: 400 },
      breakNextReply: "drop",
    });
    expect(applyDemoUpdate(settings, { tokensPerSecond: 30 })).toEqual({
      tokensPerSecond: 30,
      serviceLatencyMs: { search: 400, inventory: 0, cart: 0, orders: 0 },
      breakNextReply: "drop",
    });
    expect(applyDemoUpdate(settings, { breakNextReply: null }).breakNextReply).toBeNull();
  });

  it("become the embedded model's headers", () => {
    expect(simRequestHeaders(null, null)).toEqual({});
    expect(simRequestHeaders(120, "drop")).toEqual({
      "x-sim-pacing": "tokens-per-second=120",
      "x-sim-fault": "drop-mid-call",
    });
    expect(simRequestHeaders(null, "error")["x-sim-fault"]).toBe("error-mid-call");
    expect(simRequestHeaders(null, "invalid-json")["x-sim-fault"]).toBe("invalid-json");
    expect(simRequestHeaders(null, "max-tokens")["x-sim-fault"]).toBe("max-tokens");
  });
});

describe("demoSimFetch", () => {
  it("sends nothing of its own outside a demo scope", async () => {
    expect(currentDemoScope()).toBeUndefined();
    const seen = await headersSeen();
    expect(seen["x-own"]).toBe("kept");
    expect(seen["x-sim-fault"]).toBeUndefined();
    expect(seen["x-sim-pacing"]).toBeUndefined();
  });

  it("sends the session's speed on every request and its fault on the next one only", async () => {
    const book = new DemoBook();
    book.update("s1", { tokensPerSecond: 40, breakNextReply: "invalid-json" });
    const scope = bookScope(book, "s1", true);
    const [first, second] = await runInDemoScope(scope, async () => [
      await headersSeen(),
      await headersSeen(),
    ]);
    expect(first).toMatchObject({
      "x-own": "kept",
      "x-sim-pacing": "tokens-per-second=40",
      "x-sim-fault": "invalid-json",
    });
    expect(second?.["x-sim-pacing"]).toBe("tokens-per-second=40");
    expect(second?.["x-sim-fault"]).toBeUndefined();
    expect(book.state("s1").settings.breakNextReply).toBeNull();
    expect(book.state("s1").lastBreak?.fault).toBe("invalid-json");
    // Another session's scope sees its own settings.
    const other = await runInDemoScope(bookScope(book, "s2", true), headersSeen);
    expect(other["x-sim-pacing"]).toBeUndefined();
  });

  it("sends nothing, and keeps the fault armed, when the model has no demo controls", async () => {
    const book = new DemoBook();
    book.update("s1", { breakNextReply: "drop" });
    const seen = await runInDemoScope(bookScope(book, "s1", false), headersSeen);
    expect(seen["x-sim-fault"]).toBeUndefined();
    expect(book.state("s1").settings.breakNextReply).toBe("drop");
  });
});

describe("callLatencyMs", () => {
  it("sums the latencies of the services a tool calls", () => {
    const latency = { search: 400, inventory: 300, cart: 100, orders: 0 };
    expect(callLatencyMs("add_to_cart", latency)).toEqual({
      services: ["inventory", "cart"],
      ms: 400,
    });
    expect(callLatencyMs("cart_total", latency)).toEqual({ services: ["cart"], ms: 100 });
    expect(callLatencyMs("my_orders", latency)).toEqual({ services: [], ms: 0 });
    expect(callLatencyMs("ask_merchant", latency)).toEqual({ services: [], ms: 0 });
  });
});

describe("withSimulatedLatency", () => {
  const ran: string[] = [];
  const askMerchant = defineTool({
    name: "ask_merchant",
    description: "ask",
    input: z.object({}),
    run: () => "hi",
  });
  const [search, merchant] = withSimulatedLatency([
    defineTool({
      name: "search_products",
      description: "search",
      input: z.object({}),
      run: (_input, ctx) => {
        ran.push(ctx.callId);
        return "found";
      },
    }),
    askMerchant,
  ]);
  const ctx = (callId: string, signal = new AbortController().signal) =>
    ({ callId, signal }) as unknown as ToolContext<unknown>;

  it("waits the service's latency in a scope and notes the call; not outside one", async () => {
    const book = new DemoBook();
    book.update("s1", { serviceLatencyMs: { search: 60 } });
    const started = performance.now();
    await runInDemoScope(bookScope(book, "s1", true), () => search!.run({}, ctx("c1")));
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(book.state("s1").simulated).toEqual({ c1: { services: ["search"], ms: 60 } });
    expect(await search!.run({}, ctx("c2"))).toBe("found");
    expect(ran).toEqual(["c1", "c2"]);
    expect(book.state("s1").simulated.c2).toBeUndefined();
    expect(merchant).toBe(askMerchant); // a tool of no service is left as it is
  });

  it("ends the wait when the call is aborted, without running the tool", async () => {
    const book = new DemoBook();
    book.update("s1", { serviceLatencyMs: { search: 5_000 } });
    const abort = new AbortController();
    const running = runInDemoScope(bookScope(book, "s1", true), () =>
      search!.run({}, ctx("c3", abort.signal)),
    );
    abort.abort();
    await expect(running).rejects.toThrow();
    expect(ran).not.toContain("c3");
  });
});
