/**
 * ToolExecutor: the one place a tool runs. It looks the tool up, validates the input
 * with the tool's schema, passes an AbortSignal, applies the timeout, and turns every way a call
 * can end into a {@link ToolOutcome}. `execute` never rejects.
 */

import { z } from "zod";
import { OverlapError } from "../errors.js";
import type { AgentEvent, AgentEventSink } from "../protocol/agent-event.js";
import { guardedSink } from "../protocol/guarded-sink.js";
import { timerDelay } from "../protocol/timer-delay.js";
import type { ToolCall } from "../stream/tool-call.js";
import { type ApprovalNeed, approvalNeedOf, defaultApprovalSummary } from "./approval.js";
import { type ApprovedEffect, EffectChangedError } from "./approved-effect.js";
import {
  type AnyTool,
  type ContextOfTools,
  type ToolResultSpec,
  type ToolReturn,
  type ToolSpec,
  toolSpec,
} from "./define-tool.js";
import { inputIssues } from "./input-issues.js";
import { consoleLogger, type Logger, safeLog } from "./logger.js";
import { ToolError } from "./tool-error.js";
import { failedOutcome, type ToolOutcome } from "./tool-outcome.js";
import { unparsedCallOutcome } from "./unparsed-call-outcome.js";

/** Options of a {@link ToolExecutor}. */
export interface ToolExecutorOptions<C> {
  /** The host context every tool receives as `ctx.context`. */
  context?: C;
  /** Timeout for tools that set none. Default 60 s. */
  defaultTimeoutMs?: number;
  /**
   * After an abort, how long to wait for the tool to settle before reporting it interrupted. A
   * tool that finishes within the grace keeps its real result: its effect happened.
   */
  abortGraceMs?: number;
  /**
   * Called with unexpected exceptions (their details are masked from the model and the UI). When
   * given, the host reports them itself: `logger` is not written to.
   */
  onUnexpectedError?: (error: unknown, call: ToolCall) => void;
  /**
   * Where an unexpected exception of a tool is reported (the tool's name, the call id and the
   * error with its stack), unless `onUnexpectedError` is given; `false` reports nowhere. The
   * error is also kept on the call's outcome (`error`). Default: the console.
   */
  logger?: Logger | false;
  /** The idempotency key of a call (`ctx.idempotencyKey`); default its call id. */
  idempotencyKey?: (call: ToolCall) => string;
}

/**
 * The options argument of `new ToolExecutor(tools, options)`: optional while no tool declares a
 * context, and then required with `context` of the type the tools declare, so a missing context
 * is a compile error rather than a tool's TypeError at run time.
 */
export type ToolExecutorOptionsArg<C, T> =
  unknown extends ContextOfTools<T>
    ? [options?: ToolExecutorOptions<C>]
    : [optionsWithContext: ToolExecutorOptions<C> & { context: ContextOfTools<T> }];

/** Per-call options of {@link ToolExecutor.execute}. */
export interface ExecuteOptions {
  signal?: AbortSignal;
  /** Display channel for events a tool sends while it runs (delegate tools). */
  emit?: AgentEventSink;
  /** Called right before the tool's `run` begins (after lookup and validation). */
  onStart?: () => void;
  /** The effect the user approved for this call and its digest (the tool's `ctx.approved`). */
  approved?: ApprovedEffect;
}

const DISPLAY_DEFAULT_TEXT = "Shown to the user.";

const MISSING_CONTEXT =
  "; it read `ctx.context`, which is undefined: this executor was given no `context` (new ToolExecutor(tools, { context }))";

/**
 * Runs tools by name with uniform outcomes. `T` is the union of its tools (inferred from the
 * list), which types a turn's events per tool.
 */
export class ToolExecutor<C = unknown, T extends AnyTool<C> = AnyTool<C>> {
  readonly #tools = new Map<string, AnyTool<C>>();
  readonly #context: C;
  readonly #defaultTimeoutMs: number;
  readonly #abortGraceMs: number;
  readonly #onUnexpectedError: ((error: unknown, call: ToolCall) => void) | undefined;
  readonly #options: ToolExecutorOptions<C>;
  readonly #keyOf: ((call: ToolCall) => string) | undefined;

  /**
   * Throws `OverlapError` (`invalid_tool_definition`) when two tools have one name: the model
   * could not tell them apart.
   */
  constructor(tools: readonly T[], ...[given]: ToolExecutorOptionsArg<C, T>) {
    const options: ToolExecutorOptions<C> = given ?? {};
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) {
        throw new OverlapError(
          "invalid_tool_definition",
          `Two tools are named "${tool.name}"; the names of an executor's tools must be unique (the model calls them by name).`,
        );
      }
      this.#tools.set(tool.name, tool);
    }
    this.#options = options;
    this.#context = options.context as C;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.#abortGraceMs = options.abortGraceMs ?? 50;
    this.#keyOf = options.idempotencyKey;
    const logger = options.logger ?? consoleLogger;
    this.#onUnexpectedError =
      options.onUnexpectedError ??
      ((error, call) =>
        safeLog(
          logger,
          "error",
          `overlap: tool ${call.name} (call ${call.id}) threw an unexpected error (the model and the user read only that it failed)${this.#readsMissingContext.has(call.id) ? MISSING_CONTEXT : ""}:`,
          error,
        ));
  }

  /** Calls whose tool read `ctx.context` while this executor has none, until they fail or end. */
  readonly #readsMissingContext = new Set<string>();

  /**
   * The same tools and options with another logger, unless this executor was given a `logger` or
   * `onUnexpectedError` of its own (runAgentTurn's `logger` reaches the tools this way).
   */
  withLogger(logger: Logger | false): ToolExecutor<C, T> {
    if (this.#options.logger !== undefined || this.#options.onUnexpectedError) return this;
    const options = [{ ...this.#options, logger }] as ToolExecutorOptionsArg<C, T>;
    return new ToolExecutor<C, T>([...this.#tools.values()] as T[], ...options);
  }

  /** The tool of that name, if any. */
  tool(name: string): AnyTool<C> | undefined {
    return this.#tools.get(name);
  }

  /** The tool list as sent to the model. */
  specs(): ToolSpec[] {
    return [...this.#tools.values()].map(toolSpec);
  }

  /**
   * Whether the call must be approved by the user before it runs, and what to show them: the
   * tool's `approval` policy and `summarize` applied to the validated input and the host context.
   * `undefined` when it needs no approval, and for an unknown tool or invalid input (the call
   * never runs: {@link execute} reports it). A policy that throws asks (the safe side); a
   * `summarize` that throws gives the default summary. Never rejects.
   */
  async approvalOf(call: ToolCall): Promise<ApprovalNeed | undefined> {
    const tool = this.#tools.get(call.name);
    if (!tool?.requiresApproval || !call.input?.ok) return undefined;
    const input = call.input.value;
    let parsed: Awaited<ReturnType<typeof tool.input.safeParseAsync>>;
    try {
      parsed = await tool.input.safeParseAsync(input);
    } catch (error) {
      // A schema that throws: ask rather than guess.
      this.#onUnexpectedError?.(error, call);
      return { summary: defaultApprovalSummary(call.name, input) };
    }
    if (!parsed.success) return undefined;
    let required = true;
    try {
      required = (await tool.requiresApproval(parsed.data, this.#context)) !== false;
    } catch (error) {
      this.#onUnexpectedError?.(error, call);
    }
    if (!required) return undefined;
    let need: ApprovalNeed | undefined;
    if (tool.summarize) {
      try {
        need = approvalNeedOf(await tool.summarize(parsed.data, this.#context));
      } catch (error) {
        this.#onUnexpectedError?.(error, call);
      }
    }
    return need ?? { summary: defaultApprovalSummary(call.name, input) };
  }

  /**
   * Runs one call. Never rejects: every failure is an outcome. A call whose arguments did not
   * pass the strict parse is not run (the dispatcher refuses those before they get here).
   */
  async execute(call: ToolCall, options: ExecuteOptions = {}): Promise<ToolOutcome> {
    const { input: strict } = call;
    if (!strict?.ok) return unparsedCallOutcome(call, strict);
    const input = strict.value;
    const tool = this.#tools.get(call.name);
    if (!tool) {
      const known = [...this.#tools.keys()].join(", ");
      return failedOutcome(
        call.id,
        call.name,
        "unknown_tool",
        `There is no tool named "${call.name}". Available tools: ${known}.`,
        { code: "unknown_tool", params: { name: call.name } },
      );
    }
    const parsed = await tool.input.safeParseAsync(input);
    // Checked after validation too: it may be async, and the round may be cancelled meanwhile.
    if (options.signal?.aborted) {
      return failedOutcome(
        call.id,
        call.name,
        "not_executed",
        `${call.name} was not run: the response was cancelled before it started.`,
      );
    }

    if (!parsed.success) {
      return failedOutcome(
        call.id,
        call.name,
        "invalid_input",
        `Invalid arguments for ${call.name}: ${z.prettifyError(parsed.error)}. Fix them and call the tool again.`,
        { code: "invalid_input", params: { issues: inputIssues(parsed.error, input) } },
      );
    }
    return this.#run(tool, call, parsed.data, options);
  }

  async #run(
    tool: AnyTool<C>,
    call: ToolCall,
    input: unknown,
    options: ExecuteOptions,
  ): Promise<ToolOutcome> {
    const outer = options.signal;
    options.onStart?.();
    if (outer?.aborted) {
      // Cancelled by whoever was told of the start (e.g. a failed write of the status).
      return failedOutcome(
        call.id,
        call.name,
        "not_executed",
        `${call.name} was not run: the response was cancelled before it started.`,
      );
    }
    const controller = new AbortController();
    const timeoutMs = tool.timeoutMs ?? this.#defaultTimeoutMs;
    let timedOut = false;
    // An unbounded timeout (Infinity, or longer than a timer can hold) sets no timer.
    const timerMs = timerDelay(timeoutMs);
    const timer =
      timerMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(
              new DOMException(`${call.name} timed out after ${timeoutMs} ms`, "TimeoutError"),
            );
          }, timerMs)
        : undefined;
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });

    // A sink must not break the tool that feeds it.
    const emit = options.emit && guardedSink(options.emit);
    // Closed when execute returns: a tool still winding down must not emit after its outcome.
    let open = true;
    // A tool that reads the context of an executor given none gets undefined; if it then fails,
    // the report says what is missing (`new ToolExecutor(tools, { context })`).
    const noContext = this.#context === undefined && !("context" in this.#options);
    const readsMissing = this.#readsMissingContext;
    const self = this.#context;
    const ctx = {
      callId: call.id,
      idempotencyKey: this.#keyOf?.(call) ?? call.id,
      call,
      outcome: (value: ToolReturn) => this.#success(tool, call, value),
      signal: controller.signal,
      get context() {
        if (noContext) readsMissing.add(call.id);
        return self;
      },
      ...(options.approved ? { approved: options.approved } : {}),
      emit: (event: AgentEvent) => {
        if (!emit || !open) return;
        emit(
          tool.kind === "delegate"
            ? { ...event, parentCallId: event.parentCallId ?? call.id }
            : event,
        );
      },
    };

    // The tool's own promise, settled into a value so nothing can reject unhandled.
    const running: Promise<Settled> = (async () => tool.run(input, ctx))().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    try {
      const first = await Promise.race([running, aborted(controller.signal)]);
      let settled: Settled | undefined = first === ABORTED ? undefined : first;
      if (!settled) {
        // Aborted: give the tool a short grace to finish or stop. If it finished, its effect
        // happened and we keep the real result (recorded truthfully).
        const grace = delay(this.#abortGraceMs);
        const late = await Promise.race([running, grace.promise]);
        grace.cancel();
        settled = late === TIMEOUT ? undefined : late;
        if (!settled || (!settled.ok && controller.signal.aborted && isAbortLike(settled.error))) {
          return timedOut
            ? failedOutcome(
                call.id,
                call.name,
                "timeout",
                `${call.name} did not finish within ${timeoutMs} ms and was stopped. It may be retried.`,
                { code: "timeout", params: { timeoutMs } },
              )
            : interrupted(call, "while it was running");
        }
      }
      return settled.ok
        ? this.#success(tool, call, settled.value)
        : this.#failure(call, settled.error);
    } finally {
      open = false;
      readsMissing.delete(call.id);
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    }
  }

  #success(tool: AnyTool<C>, call: ToolCall, value: ToolReturn): ToolOutcome {
    const spec = resultSpecOf(value);
    let json: string | undefined;
    try {
      json = spec.data === undefined ? undefined : JSON.stringify(spec.data);
    } catch (error) {
      // A cycle, a BigInt: the data cannot reach the model. A bug of the tool, reported as one.
      return this.#failure(call, error);
    }
    const text = spec.text ?? json ?? (tool.kind === "display" ? DISPLAY_DEFAULT_TEXT : "Done.");
    const isError = spec.isError ?? spec.problem !== undefined;
    const outcome: ToolOutcome = {
      callId: call.id,
      name: call.name,
      status: isError ? "error" : "ok",
      resultText: text,
      events: spec.events ?? [],
      isError,
    };
    if (spec.problem !== undefined) outcome.problem = spec.problem;
    const output = typeof value === "string" ? value : spec.data;
    if (output !== undefined) outcome.output = output;
    return outcome;
  }

  #failure(call: ToolCall, error: unknown): ToolOutcome {
    if (error instanceof EffectChangedError) {
      // Nothing happened: the round asks the user again with the effect as it is now.
      const outcome = failedOutcome(
        call.id,
        call.name,
        "not_executed",
        `${call.name} was not run: what it would do changed after the user approved it.`,
      );
      outcome.effectChanged = error.current === undefined ? {} : { current: error.current };
      return outcome;
    }
    if (error instanceof ToolError)
      return failedOutcome(call.id, call.name, "error", error.message, error.problem);
    this.#onUnexpectedError?.(error, call);
    // Unexpected exceptions are masked: their details may hold internals, never shown to users.
    const outcome = failedOutcome(
      call.id,
      call.name,
      "error",
      `${call.name} failed with an internal error. Do not retry it more than once; tell the user if it fails again.`,
    );
    outcome.error = error;
    return outcome;
  }
}

type Settled = { ok: true; value: ToolReturn } | { ok: false; error: unknown };

const RESULT_SPEC_KEYS: ReadonlySet<string> = new Set<keyof ToolResultSpec>([
  "text",
  "data",
  "events",
  "isError",
  "problem",
]);

/**
 * What `run` returned as a result: text as the text; an object with no key but a result's own
 * as that result; any other object, an array or another value as data (the model reads its JSON).
 */
function resultSpecOf(value: unknown): ToolResultSpec {
  if (typeof value === "string") return { text: value };
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) return { data: value };
  const spec = value as ToolResultSpec;
  const isSpec =
    Object.keys(value).every((key) => RESULT_SPEC_KEYS.has(key)) &&
    (spec.text === undefined || typeof spec.text === "string") &&
    (spec.events === undefined || Array.isArray(spec.events));
  return isSpec ? spec : { data: value };
}

const ABORTED = Symbol("aborted");
const TIMEOUT = Symbol("timeout");

function aborted(signal: AbortSignal): Promise<typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(ABORTED), { once: true }),
  );
}

function delay(ms: number): { promise: Promise<typeof TIMEOUT>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function interrupted(call: ToolCall, when: string): ToolOutcome {
  return failedOutcome(
    call.id,
    call.name,
    "interrupted",
    `${call.name} was interrupted ${when} because the response was cancelled; it may not have completed. Check the current state before calling it again.`,
  );
}
