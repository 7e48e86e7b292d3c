import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { OverlapError } from "../errors.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { StreamEvent } from "../stream/stream-event.js";
import { buildStreamEvents } from "../testing/stream-builder.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import type { ModelClient } from "./model-client.js";
import { runAgentTurn } from "./run-agent-turn.js";

const answer = buildStreamEvents([{ type: "text", text: "Sure." }]);
const executor = new ToolExecutor([
  defineTool({ name: "noop", description: "Does nothing.", input: z.object({}), run: () => "ok" }),
]);
const quiet = { error: () => {}, warn: () => {} };

/** A model whose first requests fail with `failures`, in order, before any output. */
function flaky(failures: unknown[], events: readonly StreamEvent[] = answer) {
  const times: number[] = [];
  const model: ModelClient = {
    async *stream() {
      times.push(performance.now());
      const failure = failures[times.length - 1];
      if (failure !== undefined) throw failure;
      yield events;
    },
  };
  return { model, times };
}

const limited = (retryAfterMs?: number) =>
  new OverlapError("provider_error", "The model request failed: 429 slow down", {
    category: "rate_limited",
    retryAfterMs,
  });

describe("a request that fails before any output is retried", () => {
  it("waits the Retry-After, then continues as if nothing happened (one round)", async () => {
    const { model, times } = flaky([limited(40), limited(40)]);
    const seen: AgentEvent[] = [];
    const logger = { error: vi.fn(), warn: vi.fn() };
    const turn = await runAgentTurn({
      model,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: (e) => seen.push(e),
      logger,
      retry: { retryProviderErrors: true },
    });
    expect(turn.error).toBeUndefined();
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(35);
    expect(seen.filter((e) => e.type === "round-start")).toHaveLength(1);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[0]?.[0]).toMatch(/rate_limited.*retry 1 of 2 in 40 ms/);
  });

  it("ends with the category and the wait once the retries are spent, or at once when the wait is too long", async () => {
    const cases = [
      {
        failures: [limited(1), limited(1), limited(1)],
        retry: { maxRetries: 1, retryProviderErrors: true },
        requests: 2,
        wait: 1,
      },
      {
        failures: [limited(30_000)],
        retry: { retryProviderErrors: true },
        requests: 1,
        wait: 30_000,
      },
    ];
    for (const { failures, retry, requests, wait } of cases) {
      const { model, times } = flaky(failures);
      const seen: AgentEvent[] = [];
      const turn = await runAgentTurn({
        model,
        executor,
        messages: [{ role: "user", content: "hi" }],
        sink: (e) => seen.push(e),
        retry,
        logger: quiet,
      });
      expect(times).toHaveLength(requests);
      expect(turn.error?.category).toBe("rate_limited");
      expect(seen.find((e) => e.type === "error")).toEqual({
        type: "error",
        code: "provider_error",
        message: `The model service is receiving too many requests; try again in ${Math.ceil(wait / 1000)} s.`,
        category: "rate_limited",
        retryAfterMs: wait,
      });
    }
  });

  it("by default, retries a client's own failures and cut connections, not the adapters' verdicts", async () => {
    const raw = Object.assign(new Error("429 Too Many Requests"), {
      status: 429,
      headers: new Headers({ "retry-after-ms": "30" }),
    });
    const cut = new OverlapError("stream_interrupted", "The model stream was cut", {
      category: "network",
    });
    const own = flaky([raw, cut]);
    const ok = await runAgentTurn({
      model: own.model,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: () => {},
      logger: quiet,
    });
    expect(ok.error).toBeUndefined();
    expect(own.times).toHaveLength(3);
    expect(own.times[1]! - own.times[0]!).toBeGreaterThanOrEqual(25);
    // A provider_error comes after the adapter's own retries (the SDK's maxRetries): not again.
    const adapter = flaky([limited(1)]);
    const failed = await runAgentTurn({
      model: adapter.model,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: () => {},
      logger: quiet,
    });
    expect(adapter.times).toHaveLength(1);
    expect(failed.error?.category).toBe("rate_limited");
  });

  it("never retries what waiting cannot fix, nor once any output arrived", async () => {
    const auth = Object.assign(new Error("401 invalid x-api-key"), { status: 401 });
    const a = flaky([auth]);
    const first = await runAgentTurn({
      model: a.model,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: () => {},
      logger: quiet,
    });
    expect(a.times).toHaveLength(1);
    expect(first.error?.publicMessage).toMatch(/credentials/);

    let requests = 0;
    const started: ModelClient = {
      async *stream() {
        requests++;
        yield answer.slice(0, 2); // message_start and a block start
        throw Object.assign(new Error("503"), { status: 503 });
      },
    };
    const second = await runAgentTurn({
      model: started,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: () => {},
      logger: quiet,
    });
    expect(requests).toBe(1);
    expect(second.error?.code).toBe("stream_interrupted");
  });

  it("an abort during the wait ends the turn as cancelled, at once", async () => {
    const { model } = flaky([limited(10_000)]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    const turn = await runAgentTurn({
      model,
      executor,
      messages: [{ role: "user", content: "hi" }],
      sink: () => {},
      signal: controller.signal,
      retry: { maxDelayMs: 60_000, retryProviderErrors: true },
      logger: quiet,
    });
    expect(turn.error?.code).toBe("aborted");
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
