/**
 * Traces out of the shop: with `OTEL_EXPORTER_OTLP_ENDPOINT` set (the OpenTelemetry SDK's own
 * variable, e.g. `http://127.0.0.1:4318`), a tracer provider is registered that sends every span
 * over OTLP/HTTP (JSON) to `<endpoint>/v1/traces` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it
 * is), in batches; the runtime's turns then trace themselves (a turn, its model calls, its tools:
 * see overlap-runtime's `turn-tracing.ts`). `OTEL_SERVICE_NAME` names the service (default
 * `overlap-shop`). Unset: nothing is registered and tracing costs nothing.
 */

import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { Logger } from "pino";

/** A registered exporter; `shutdown` sends what is left and unregisters nothing else. */
export interface OtelExport {
  /** Where the spans go. */
  readonly url: string;
  /** Flushes the spans not sent yet, then stops. */
  shutdown(): Promise<void>;
}

/** Registers the OTLP exporter when the environment asks for one; `undefined` otherwise. */
export function startOtelExport(
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): OtelExport | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!base && !tracesUrl) return undefined;
  const url = tracesUrl || `${base?.replace(/\/+$/, "")}/v1/traces`;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME?.trim() || "overlap-shop",
    }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 1_000 }),
    ],
  });
  provider.register();
  logger.info({ url }, "traces are exported over OTLP/HTTP");
  return {
    url,
    shutdown: () =>
      provider.shutdown().catch((err: unknown) => {
        logger.warn({ err }, "the last traces could not be sent");
      }),
  };
}
