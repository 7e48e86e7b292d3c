/**
 * defineTool: a tool is a name, a description, a zod schema for its input, a kind, a
 * dispatch policy, a timeout and a `run` function that receives validated input and an
 * AbortSignal. The model sees the JSON Schema generated from the zod schema.
 */

import { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { ToolProblem } from "../protocol/tool-problem.js";
import type { UiEvent } from "../protocol/ui-event.js";
import type { ToolCall } from "../stream/tool-call.js";
import { type ApprovalPolicy, type ApprovalSummary, approvalMethods } from "./approval.js";
import type { ApprovedEffect } from "./approved-effect.js";
import {
  checkToolBasics,
  checkZodInput,
  describeZod,
  invalidDefinition,
  toolLabel,
} from "./tool-definition-checks.js";
import type { ToolOutcome } from "./tool-outcome.js";

/**
 * - `handler`: business logic with effects (add to cart...).
 * - `display`: builds UI (cards) from its input plus server data; tells the model briefly what
 *   was shown.
 * - `delegate`: hands the task to another agent and returns its answer; the inner agent's events
 *   are forwarded live, tagged with this call's id.
 */
export type ToolKind = "handler" | "display" | "delegate";

/**
 * - `eager` (default): starts the moment its arguments are complete, while the model still writes.
 * - `deferred`: starts only once the whole message ended with stop reason `tool_use`; for
 *   irreversible actions (checkout) that must not run on a response that gets cut off.
 */
export type DispatchPolicy = "eager" | "deferred";

/**
 * How a tool's effects are recorded, which decides what a restart says of a call that a crash cut
 * off (journaled, no ledger record):
 * - `none`: the tool changes nothing (a lookup): the call is answered as not run.
 * - `ledger`: the effect is committed in the ledger record's own transaction, so no record means
 *   no effect: answered as not run.
 * - `external`: the effect lives elsewhere (a payment API, an email): its outcome is unknown, and
 *   the answer says so, with the call's idempotency key, so the model checks before calling again.
 *
 * A tool that declares nothing is treated as `external`: "not run" is only said where it is known.
 */
export type ToolEffects = "none" | "ledger" | "external";

/** What `run` receives besides its input. */
export interface ToolContext<C = unknown> {
  /** The call id (tool_use id): stable across retries, the key of the ledger. */
  callId: string;
  /**
   * A key naming this logical call, to pass to an API that deduplicates (payments, email):
   * stable across retry, resume and takeover, and independent of the provider's call ids (some
   * servers repeat them). The host derives it (`ToolExecutorOptions.idempotencyKey`; the durable
   * host from the chat, the turn and the call's position); without one it is the call id.
   */
  idempotencyKey: string;
  /**
   * The call being run (its tool_use block, round, index, arguments). A tool whose effect lives
   * in a database stores it with {@link outcome} in the effect's transaction, so the effect never
   * exists without a record of its call (the ledger's later write of the same call is then a
   * no-op).
   */
  call: ToolCall;
  /**
   * The outcome the executor reports when `run` returns `value` (same text, events and error
   * flag), for a tool that records its own outcome inside its transaction.
   */
  outcome(value: ToolReturn): ToolOutcome;
  /** Aborted on timeout, on interruption of the round, or when the turn is cancelled. */
  signal: AbortSignal;
  /** The host application's context (session, database...), given to the ToolExecutor. */
  context: C;
  /**
   * The effect the user approved for this call (its `summarize`'s `effect`) and its digest;
   * absent when no approval with an effect was asked. A tool with an irreversible effect compares
   * it with the effect the state gives now (`sameEffect`), in the same transaction as the
   * effect, and throws `EffectChangedError` when they differ: nothing happens, and the user is
   * asked again showing what changed.
   */
  approved?: ApprovedEffect;
  /**
   * Sends an AgentEvent to the display channel now. A delegate tool forwards its inner agent's
   * events with it; they are tagged with this call's id as `parentCallId`.
   */
  emit(event: AgentEvent): void;
}

/**
 * A tool's full result: the text the model reads, the data, UI events, an expected failure. An
 * object is read as one when it has no key other than these five (an empty object included);
 * to return data that looks like one, wrap it: `{ data: value }`.
 */
export interface ToolResultSpec<D = unknown> {
  /** The text the model reads. Defaults to JSON of `data`, or a short note for display tools. */
  text?: string;
  /**
   * Structured result, serialised as JSON for the model when `text` is absent; kept as the
   * outcome's `output` and sent to the UI as the call's output.
   */
  data?: D;
  /** Formal UI events (cards, cart updates), emitted in call order after the join. */
  events?: UiEvent[];
  /** An expected failure the model should read as an error (out of stock, limit reached). */
  isError?: boolean;
  /**
   * The failure for programs: a code and its facts (e.g. `{ code: "insufficient_stock", params:
   * { available: 2 } }`), so a front end writes its own words instead of reading `text`. Implies
   * `isError` unless that is set to `false`.
   */
  problem?: ToolProblem;
}

/**
 * What `run` may return: text for the model; an object or an array, sent to the model as JSON
 * and kept as data (the outcome's `output`, the UI's tool output); or a {@link ToolResultSpec}.
 */
export type ToolReturn = string | ToolResultSpec | object;

/** The keys that make an object a {@link ToolResultSpec}. */
type ResultSpecKey = keyof ToolResultSpec;

/**
 * The `output` a tool's calls give, from what its `run` returns: the text, the object or array,
 * or a result's `data`.
 */
export type ToolOutputOf<R> = R extends string
  ? string
  : R extends readonly unknown[]
    ? R
    : [Exclude<keyof R, ResultSpecKey>] extends [never]
      ? R extends { data?: infer D }
        ? D
        : undefined
      : R;

/**
 * The input schemas a zod tool may have: an object (the model APIs send tool arguments as a JSON
 * object), optionally piped into a transform.
 */
export type ToolInputSchema = z.ZodObject | z.ZodPipe<z.ZodObject, z.ZodType>;

/** The definition passed to {@link defineTool}; `R` is what `run` returns. */
export interface ToolConfig<S extends ToolInputSchema, C, R extends ToolReturn = ToolReturn> {
  name: string;
  description: string;
  input: S;
  kind?: ToolKind;
  dispatch?: DispatchPolicy;
  /** Milliseconds before the call is aborted and reported as a timeout. */
  timeoutMs?: number;
  /**
   * Calls of tools that name the same sequence run one at a time, in call order, within a round,
   * eager or not: a later call waits (`queued`) until the one before it has ended. For effects
   * that must apply in the order the model wrote them (changes to one cart). The time saved is
   * then reckoned with the calls of a sequence one after another, as they would have run.
   */
  sequence?: string;
  /**
   * The user must approve a call before it runs: always (`"required"`), or when the predicate
   * returns true for the validated input and the host context (`ctx.context`). The round emits
   * `approval-request` and waits for the approval source given to it (`approvals`); a call
   * declined, unanswered in time or cancelled while waiting is never run. See docs/protocol.md.
   */
  approval?: ApprovalPolicy<z.output<S>, C>;
  /**
   * What a call will do, in words, for the approval request (optionally with structured
   * `details` for a richer card). Default: a generic sentence naming the tool and its arguments.
   */
  summarize?: (input: z.output<S>, context: C) => ApprovalSummary | Promise<ApprovalSummary>;
  /** How the tool's effects are recorded (see {@link ToolEffects}); default `external`. */
  effects?: ToolEffects;
  run(input: z.output<S>, ctx: ToolContext<C>): R | Promise<R>;
}

/**
 * A defined tool, ready for a ToolExecutor; `O` is the `output` of its calls, `N` its name (the
 * literal, from `defineTool`, so a turn's events can be told apart per tool).
 */
export interface Tool<
  S extends z.ZodType = z.ZodType,
  C = unknown,
  O = unknown,
  N extends string = string,
> {
  readonly name: N;
  readonly description: string;
  readonly input: S;
  readonly kind: ToolKind;
  readonly dispatch: DispatchPolicy;
  readonly timeoutMs: number | undefined;
  /** Calls of tools with the same sequence run one at a time in call order (see {@link ToolConfig.sequence}). */
  readonly sequence?: string;
  /** JSON Schema of the input, as sent to the model. */
  readonly inputSchema: Record<string, unknown>;
  /** How the tool's effects are recorded (see {@link ToolEffects}); absent: `external`. */
  readonly effects?: ToolEffects;
  run(input: z.output<S>, ctx: ToolContext<C>): ToolReturn | Promise<ToolReturn>;
  /** Present when the tool has an approval policy: true when this call must be approved. */
  requiresApproval?(input: z.output<S>, context: C): boolean | Promise<boolean>;
  /** The approval request's summary of a call (see {@link ToolConfig.summarize}). */
  summarize?(input: z.output<S>, context: C): ApprovalSummary | Promise<ApprovalSummary>;
  /** Type only (never set): the `output` of this tool's calls, for `ToolOutput<typeof tool>`. */
  readonly "~output"?: O;
}

/** The `output` of a tool's calls, e.g. `ToolOutput<typeof getWeather>`. */
// biome-ignore lint/suspicious/noExplicitAny: any input schema and context.
export type ToolOutput<T> = T extends Tool<any, any, infer O, any> ? O : never;

/**
 * The host context a list of tools needs (`ctx.context`): what every tool that declares one
 * declares (their intersection), or `unknown` when none does. A tool declares its context by
 * typing its `run`'s second parameter: `run: (input, ctx: ToolContext<AppContext>) => ...`.
 */
export type ContextOfTools<T> = (
  T extends Tool<z.ZodType, infer C, unknown, string>
    ? (need: ContextNeed<C>) => void
    : never
) extends (need: infer I) => void
  ? I
  : never;

/** What a tool of context `C` needs: nothing for `unknown` (and `any`, tools of any context). */
export type ContextNeed<C> = unknown extends C ? unknown : C;

/** A tool of any input type, as held by an executor. */
// biome-ignore lint/suspicious/noExplicitAny: tool inputs are checked by their own schema at run time.
export type AnyTool<C = any> = Tool<z.ZodType, C>;

/** The tool description sent to a model (Messages API shape). */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * Defines a tool. Throws an `OverlapError` with code `invalid_tool_definition`, whose message
 * names the tool and says what to change, for a definition the model APIs or the executor could
 * not use: a missing or non-object input schema, a field JSON cannot carry (`z.date()`,
 * `z.bigint()`, `z.map()`...), a name the model APIs refuse, a missing `run`, an unknown kind or
 * dispatch policy, a timeout that is not a positive number.
 */
export function defineTool<
  S extends ToolInputSchema,
  C = unknown,
  R extends ToolReturn = ToolReturn,
  N extends string = string,
>(config: ToolConfig<S, C, R> & { name: N }): Tool<S, C, ToolOutputOf<R>, N> {
  checkToolBasics(config, "defineTool");
  checkZodInput(config as unknown as Record<string, unknown>);
  const label = toolLabel(config.name);
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(config.input, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    invalidDefinition(
      `${label}: its input schema cannot be turned into the JSON Schema the model reads (${why}); simplify the schema.`,
    );
  }
  delete schema.$schema;
  if (schema.type !== "object") {
    invalidDefinition(
      `${label}: its input must be a zod object schema (z.object({...})), got ${describeZod(config.input)}.`,
    );
  }
  return {
    name: config.name,
    description: config.description,
    input: config.input,
    kind: config.kind ?? "handler",
    dispatch: config.dispatch ?? "eager",
    timeoutMs: config.timeoutMs,
    ...(config.sequence !== undefined ? { sequence: config.sequence } : {}),
    ...(config.effects !== undefined ? { effects: config.effects } : {}),
    inputSchema: schema,
    run: config.run,
    ...approvalMethods(config.name, config.approval, config.summarize),
  };
}

/** The spec a model receives for a tool. */
export function toolSpec(tool: AnyTool): ToolSpec {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}
