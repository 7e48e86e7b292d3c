/**
 * The shop's Prometheus metrics, served at `GET /metrics` in the text exposition
 * format. Each app has a registry of its own (never prom-client's global one), so a process (a
 * test) can build several apps; the Node process metrics (`process_*`, `nodejs_*`) live in one
 * registry per process, shared by every app's answer, since they describe the process.
 *
 * Fed from the AgentEvents of every turn ({@link ShopMetrics.observe}, see `observe-turns.ts`) and
 * from the HTTP answers ({@link ShopMetrics.middleware}: error codes, open SSE connections).
 * Label values that come from outside (tool names a model made up, raw stop reasons) are bounded:
 * past {@link MAX_LABEL_VALUES} distinct values per label the rest are counted as `_other`.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { Hono, MiddlewareHandler } from "hono";
import type { AgentEvent } from "overlap-runtime";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { AppEnv } from "./app-env.js";
import { bearerToken } from "./bearer-token.js";
import { HttpError } from "./http-error.js";
import { onSseClose, sseBodyOf } from "./sse-response.js";

/** Distinct values one label may take before the rest are counted as `_other`. */
export const MAX_LABEL_VALUES = 64;

/** Tool durations, seconds: tools are database calls, searches, or slow remote services. */
const TOOL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Time to first token, seconds. */
const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
/**
 * Time saved per round, seconds. The runtime's figure is never negative: `le="0"` counts the
 * rounds where the overlap saved nothing (every tool started after the response ended: deferred
 * calls, calls that waited for approval, the whole-response path); a negative figure from another
 * producer would be counted there too. Above 0, fine steps up to a second, then coarse ones.
 */
const SAVED_BUCKETS = [0, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processRegistry: Registry | undefined;

/** The process metrics, collected once per process whatever the number of apps. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** Keeps a label's values to a bounded set. */
class BoundedLabel {
  readonly #seen = new Set<string>();

  value(raw: string | undefined): string {
    const value = raw === undefined || raw === "" ? "unknown" : raw;
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= MAX_LABEL_VALUES) return "_other";
    this.#seen.add(value);
    return value;
  }
}

/** One app's metrics. */
export class ShopMetrics {
  /** This app's own registry (the process metrics are added when scraped). */
  readonly registry = new Registry();
  readonly #rounds: Counter<"agent" | "stop_reason">;
  readonly #toolCalls: Counter<"tool" | "status">;
  readonly #toolSeconds: Histogram<"tool">;
  readonly #savedSeconds: Histogram<"agent">;
  readonly #firstTokenSeconds: Histogram<"agent">;
  readonly #errors: Counter<"source" | "code">;
  readonly #activeTurns: Gauge;
  readonly #openSse: Gauge;
  readonly #labels = {
    agent: new BoundedLabel(),
    stopReason: new BoundedLabel(),
    tool: new BoundedLabel(),
    status: new BoundedLabel(),
    code: new BoundedLabel(),
  };

  constructor() {
    const registers = [this.registry];
    this.#rounds = new Counter({
      name: "shop_rounds_total",
      help: "Model rounds that ended, by agent and stop reason.",
      labelNames: ["agent", "stop_reason"],
      registers,
    });
    this.#toolCalls = new Counter({
      name: "shop_tool_calls_total",
      help: "Tool calls answered (one per tool-result), by tool and result status.",
      labelNames: ["tool", "status"],
      registers,
    });
    this.#toolSeconds = new Histogram({
      name: "shop_tool_duration_seconds",
      help: "How long each tool ran (from its start to its end), by tool.",
      labelNames: ["tool"],
      buckets: TOOL_BUCKETS,
      registers,
    });
    this.#savedSeconds = new Histogram({
      name: "shop_round_saved_seconds",
      help: "Per round with a tool that ran: time saved by starting tools while the model streamed, versus waiting for the end of its response (le=0: nothing saved).",
      labelNames: ["agent"],
      buckets: SAVED_BUCKETS,
      registers,
    });
    this.#firstTokenSeconds = new Histogram({
      name: "shop_model_first_token_seconds",
      help: "Model time to first token (first content block) per round, by agent.",
      labelNames: ["agent"],
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    });
    this.#errors = new Counter({
      name: "shop_errors_total",
      help: 'Errors by code: source="turn" for a turn\'s error event, source="http" for an error answer of the API.',
      labelNames: ["source", "code"],
      registers,
    });
    this.#activeTurns = new Gauge({
      name: "shop_active_turns",
      help: "Turns running now.",
      registers,
    });
    this.#openSse = new Gauge({
      name: "shop_open_sse_connections",
      help: "SSE responses (turn streams) open now.",
      registers,
    });
  }

  /** Counts what one AgentEvent of a turn says (delegated agents' events included). */
  observe(event: AgentEvent): void {
    const l = this.#labels;
    switch (event.type) {
      case "round-end": {
        const agent = l.agent.value(event.agent);
        this.#rounds.inc({ agent, stop_reason: l.stopReason.value(event.stopReason) });
        const t = event.timings;
        for (const tool of t.tools) {
          if (tool.startMs === undefined || tool.endMs === undefined) continue;
          this.#toolSeconds.observe(
            { tool: l.tool.value(tool.name) },
            seconds(tool.endMs - tool.startMs),
          );
        }
        if (isMs(t.firstTokenMs))
          this.#firstTokenSeconds.observe({ agent }, seconds(t.firstTokenMs));
        if (isMs(t.savedMs)) this.#savedSeconds.observe({ agent }, t.savedMs / 1000);
        return;
      }
      case "tool-result":
        this.#toolCalls.inc({
          tool: l.tool.value(event.name),
          status: l.status.value(event.status),
        });
        return;
      case "error":
        this.turnError(event.code);
        return;
      default:
        return;
    }
  }

  /** A turn failed with `code` (also for a failure that never became an event). */
  turnError(code: string): void {
    this.#errors.inc({ source: "turn", code: this.#labels.code.value(code) });
  }

  /** A turn started; call {@link turnEnded} once when it is over. */
  turnStarted(): void {
    this.#activeTurns.inc();
  }

  turnEnded(): void {
    this.#activeTurns.dec();
  }

  /**
   * The middleware counting the API's error answers by code (read from the JSON error body) and
   * the open SSE responses (until their body ends, fails or the client goes away). Answers
   * refused before routing (Node's parser) are not seen here.
   */
  readonly middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get("content-type") ?? "";
    if (res.status >= 400 && type.includes("json")) {
      this.#errors.inc({ source: "http", code: this.#labels.code.value(await errorCode(res)) });
    } else if (type.startsWith("text/event-stream")) {
      // The shop's own SSE bodies tell when they are over; any other is counted through a stream.
      const body = sseBodyOf(res) ?? res.body;
      if (!body) return;
      const gauge = this.#openSse;
      gauge.inc();
      if (!onSseClose(body, () => gauge.dec())) {
        c.res = new Response(this.#countOpen(body), res);
      }
    }
  };

  /** Text exposition of this app's metrics and the process metrics. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    const merged = Registry.merge([processMetrics(), this.registry]);
    return { contentType: merged.contentType, text: await merged.metrics() };
  }

  /** `body`, counted in {@link ShopMetrics} as an open SSE connection while it lasts. */
  #countOpen(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const gauge = this.#openSse;
    let open = true;
    const closed = () => {
      if (open) gauge.dec();
      open = false;
    };
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const next = await reader.read();
            if (next.done) {
              closed();
              controller.close();
            } else controller.enqueue(next.value);
          } catch (error) {
            closed();
            controller.error(error);
          }
        },
        cancel(reason) {
          closed();
          return reader.cancel(reason);
        },
      },
      // Pull only when the consumer asks: frames go out as they come, nothing is read ahead.
      { highWaterMark: 0 },
    );
  }
}

/**
 * `GET /metrics`: needs `Authorization: Bearer <token>` (`METRICS_TOKEN`, by default the merchant
 * token): the figures tell how busy the shop is and which tools fail.
 */
export function registerMetricsRoute(app: Hono<AppEnv>, metrics: ShopMetrics, token: string): void {
  const expected = digest(token);
  app.get("/metrics", async (c) => {
    const offered = bearerToken(c.req.header("authorization"));
    if (offered === undefined) {
      c.header("www-authenticate", 'Bearer realm="metrics"');
      throw new HttpError(
        401,
        "unauthorized",
        "Send the metrics token as Authorization: Bearer <token>.",
      );
    }
    if (!timingSafeEqual(digest(offered), expected)) {
      throw new HttpError(403, "forbidden", "This route needs the metrics token.");
    }
    const { contentType, text } = await metrics.exposition();
    c.header("cache-control", "no-store");
    return c.body(text, 200, { "content-type": contentType });
  });
}

async function errorCode(res: Response): Promise<string> {
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } };
    return typeof body?.error?.code === "string" ? body.error.code : `status_${res.status}`;
  } catch {
    return `status_${res.status}`;
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}

function isMs(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
