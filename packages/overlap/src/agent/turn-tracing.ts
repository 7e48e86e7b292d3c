/**
 * OpenTelemetry traces of a turn, read off its AgentEvents, for whatever the host's tracing
 * backend is (Jaeger, Tempo, Honeycomb, Langfuse...). Nothing happens unless `@opentelemetry/api`
 * is installed and a tracer provider is registered: the first turn looks for the API once, and a
 * turn whose span does not record (no provider) stops tracing at once.
 *
 * The spans follow the OpenTelemetry semantic conventions for generative AI:
 * - `invoke_agent <agent>`: the turn (`gen_ai.operation.name` `invoke_agent`, `gen_ai.agent.name`);
 *   active while the turn runs, so a delegate tool's inner turn and the host's own spans (a
 *   database call inside a tool) become its children; repairs of the conversation (calls answered
 *   as interrupted or not run) are events on it, a turn that ended with an error is an error.
 * - `chat <model>` per model call: from the round's start to the end of its stream, with
 *   `gen_ai.request.model`, `gen_ai.provider.name` (when the model client names its provider),
 *   `gen_ai.usage.input_tokens` / `output_tokens`, `gen_ai.response.finish_reasons`, and the time
 *   to first token.
 * - `execute_tool <name>` per tool that ran, from its start to its end (`gen_ai.tool.name`,
 *   `gen_ai.tool.call.id`), with what the eager start did: `overlap.tool.start_after_block_stop_ms`
 *   (how long after its arguments were complete it started) and
 *   `overlap.tool.started_before_stream_end_ms` (how much earlier it started than waiting for
 *   the end of the response would have let it). Approval waits are events on it.
 * The model and tool spans are written when their round ends, with the times the round measured
 * (the turn's clock), as children of the turn span: the traced work itself pays nothing per event.
 */

import type { AgentEvent, AgentEventSink } from "../protocol/agent-event.js";
import type { RoundTimings } from "../protocol/round-timings.js";

/** The part of `@opentelemetry/api` used here (its types, written out: it is optional). */
interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    setSpan(context: unknown, span: OtelSpan): unknown;
  };
  context: {
    active(): unknown;
    with<R>(context: unknown, fn: () => R): R;
  };
}

interface OtelTracer {
  startSpan(
    name: string,
    options?: { attributes?: Attributes; startTime?: number; kind?: number },
    context?: unknown,
  ): OtelSpan;
}

interface OtelSpan {
  isRecording(): boolean;
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes, time?: number): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(time?: number): void;
}

type AttributeValue = string | number | boolean | string[];
type Attributes = Record<string, AttributeValue | undefined>;

/** SpanKind.INTERNAL and CLIENT, SpanStatusCode.ERROR, as the API numbers them. */
const KIND_INTERNAL = 0;
const KIND_CLIENT = 2;
const STATUS_ERROR = 2;

const TRACER_NAME = "overlap-runtime";

/** What a turn tells its tracing. */
export interface TurnTracing {
  /** A sink that feeds the tracing, then `sink`. */
  tap(sink: AgentEventSink): AgentEventSink;
  /** Runs `fn` with the turn span active (children: delegate turns, the host's own spans). */
  within<R>(fn: () => R): R;
  /** Ends the turn span. */
  end(outcome: { stopReason: string; error?: { code: string; message: string } }): void;
}

/** What the turn span is named after. */
export interface TurnTracingInput {
  agent?: string;
  model: { readonly label?: string; readonly provider?: string };
}

let api: Promise<OtelApi | undefined> | undefined;

/** `@opentelemetry/api` when the host has it installed, looked for once per process. */
function loadApi(): Promise<OtelApi | undefined> {
  api ??= import("@opentelemetry/api").then(
    (module) => (module.trace ? (module as unknown as OtelApi) : undefined),
    () => undefined,
  );
  return api;
}

/** Starts a turn's tracing; `undefined` when nothing would record it. */
export async function startTurnTracing(input: TurnTracingInput): Promise<TurnTracing | undefined> {
  const otel = await loadApi();
  if (!otel) return undefined;
  const tracer = otel.trace.getTracer(TRACER_NAME);
  const agentName = input.agent;
  const turn = tracer.startSpan(agentName ? `invoke_agent ${agentName}` : "invoke_agent", {
    kind: KIND_INTERNAL,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agentName,
      "gen_ai.request.model": input.model.label,
      "gen_ai.provider.name": input.model.provider,
    },
  });
  if (!turn.isRecording()) {
    turn.end();
    return undefined;
  }
  const context = otel.trace.setSpan(otel.context.active(), turn);
  return new RecordingTurn(tracer, turn, context, otel, input);
}

/** Approval waits of one call, kept until its tool span is written. */
interface ApprovalMark {
  name: string;
  at: number;
  attributes: Attributes;
}

class RecordingTurn implements TurnTracing {
  readonly #tracer: OtelTracer;
  readonly #turn: OtelSpan;
  readonly #context: unknown;
  readonly #otel: OtelApi;
  readonly #model: TurnTracingInput["model"];
  readonly #approvals = new Map<string, ApprovalMark[]>();
  /** Calls of the round in flight answered without running as they should have (repairs). */
  #repaired: Array<{ callId: string; name: string; status: string }> = [];

  constructor(
    tracer: OtelTracer,
    turn: OtelSpan,
    context: unknown,
    otel: OtelApi,
    input: TurnTracingInput,
  ) {
    this.#tracer = tracer;
    this.#turn = turn;
    this.#context = context;
    this.#otel = otel;
    this.#model = input.model;
  }

  tap(sink: AgentEventSink): AgentEventSink {
    return (event) => {
      try {
        this.#observe(event);
      } catch {
        // Tracing never breaks a turn.
      }
      sink(event);
    };
  }

  within<R>(fn: () => R): R {
    return this.#otel.context.with(this.#context, fn);
  }

  end(outcome: { stopReason: string; error?: { code: string; message: string } }): void {
    this.#turn.setAttribute("overlap.stop_reason", outcome.stopReason);
    if (outcome.error) {
      this.#turn.setAttribute("error.type", outcome.error.code);
      this.#turn.setStatus({ code: STATUS_ERROR, message: outcome.error.message });
    }
    this.#turn.end();
  }

  #observe(event: AgentEvent): void {
    if (event.parentCallId !== undefined) return; // a delegate's inner turn traces itself
    switch (event.type) {
      case "approval-request":
        this.#mark(event.callId, "approval.requested", {
          "overlap.approval.summary": event.summary,
          "overlap.approval.timeout_ms": event.timeoutMs,
        });
        break;
      case "approval-resolved":
        this.#mark(event.callId, "approval.resolved", {
          "overlap.approval.decision": event.decision,
        });
        break;
      case "tool-result":
        if (event.status === "interrupted" || event.status === "not_executed") {
          this.#repaired.push({ callId: event.callId, name: event.name, status: event.status });
        }
        break;
      case "round-end":
        this.#round(event.round, event.stopReason, event.usage, event.timings);
        break;
      default:
        break;
    }
  }

  #mark(callId: string, name: string, attributes: Attributes): void {
    const marks = this.#approvals.get(callId) ?? [];
    marks.push({ name, at: Date.now(), attributes });
    this.#approvals.set(callId, marks);
  }

  #round(
    round: number,
    stopReason: string,
    usage: Extract<AgentEvent, { type: "round-end" }>["usage"],
    timings: RoundTimings,
  ): void {
    const at = (ms: number | undefined) => (ms === undefined ? undefined : timings.startedAt + ms);
    const streamEnd = at(timings.streamEndMs) ?? at(timings.endMs) ?? Date.now();
    const model = this.#model.label;
    const chat = this.#tracer.startSpan(
      model ? `chat ${model}` : "chat",
      {
        kind: KIND_CLIENT,
        startTime: timings.startedAt,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": model,
          "gen_ai.provider.name": this.#model.provider,
          "gen_ai.usage.input_tokens": usage.input_tokens ?? undefined,
          "gen_ai.usage.output_tokens": usage.output_tokens ?? undefined,
          "gen_ai.response.finish_reasons": [stopReason],
          "overlap.round": round,
          "overlap.first_token_ms": timings.firstTokenMs,
        },
      },
      this.#context,
    );
    if (stopReason === "error") chat.setStatus({ code: STATUS_ERROR });
    chat.end(streamEnd);

    for (const tool of timings.tools) {
      const start = at(tool.startMs);
      if (start === undefined || tool.startMs === undefined) continue; // never ran
      const span = this.#tracer.startSpan(
        `execute_tool ${tool.name}`,
        {
          kind: KIND_INTERNAL,
          startTime: start,
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool.name,
            "gen_ai.tool.call.id": tool.callId,
            "overlap.round": round,
            "overlap.tool.status": tool.status,
            "overlap.tool.start_after_block_stop_ms": tool.startMs - tool.readyMs,
            "overlap.tool.started_before_stream_end_ms":
              timings.streamEndMs === undefined
                ? undefined
                : Math.max(0, timings.streamEndMs - tool.startMs),
          },
        },
        this.#context,
      );
      for (const mark of this.#approvals.get(tool.callId) ?? []) {
        span.addEvent(mark.name, mark.attributes, mark.at);
      }
      this.#approvals.delete(tool.callId);
      if (tool.status !== undefined && tool.status !== "ok") {
        span.setAttribute("error.type", tool.status);
        span.setStatus({ code: STATUS_ERROR });
      }
      span.end(at(tool.endMs) ?? at(timings.endMs) ?? Date.now());
    }
    // Approvals of calls that never ran (declined, timed out) stay on the turn.
    for (const [callId, marks] of this.#approvals) {
      for (const mark of marks) {
        this.#turn.addEvent(
          mark.name,
          { ...mark.attributes, "gen_ai.tool.call.id": callId },
          mark.at,
        );
      }
    }
    this.#approvals.clear();
    if (this.#repaired.length > 0) {
      this.#turn.addEvent("conversation.repaired", {
        "overlap.round": round,
        "overlap.repair.call_ids": this.#repaired.map((r) => r.callId),
        "overlap.repair.statuses": this.#repaired.map((r) => `${r.name}: ${r.status}`),
      });
      this.#repaired = [];
    }
  }
}
