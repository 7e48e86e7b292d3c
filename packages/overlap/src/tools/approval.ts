/**
 * Approval before irreversible actions, the tool's side: a tool defined with
 * `approval: "required"` (or a predicate over its validated input and the host context) is not run
 * until the user approves the call. `summarize` says in words what will happen, for the approval
 * card; the default is a generic sentence naming the tool and its arguments. The round asks and
 * waits (`dispatch/approval-gate.ts`); the executor decides whether a call needs asking
 * ({@link ToolExecutor.approvalOf}).
 */

/**
 * When calls of a tool need the user's approval: always (`"required"`), or when the predicate
 * returns true for the call's validated input and the host context. A predicate that throws
 * counts as true (asking is the safe side).
 */
export type ApprovalPolicy<I, C> =
  | "required"
  | ((input: I, context: C) => boolean | Promise<boolean>);

/**
 * What the user is asked to approve: a sentence, or a sentence with structured details for a
 * richer card (the host's own shape, e.g. order lines and a total).
 */
export type ApprovalSummary =
  | string
  | {
      text: string;
      details?: Record<string, unknown>;
      /**
       * The exact effect the call will have (JSON: for a checkout, its lines and total), for an
       * approval that binds: the tool gets it back as `ctx.approved` and runs only if the state
       * still gives it (`sameEffect`), else throws `EffectChangedError` and the user is asked again.
       */
      effect?: unknown;
    };

/** What a call that needs approval shows the user. */
export interface ApprovalNeed {
  summary: string;
  details?: Record<string, unknown>;
  /** The exact effect asked for, when the tool states one. */
  effect?: unknown;
}

/** The longest argument text the default summary quotes. */
const MAX_ARGS_CHARS = 200;

/** The summary of a tool without `summarize`: a generic sentence with the arguments. */
export function defaultApprovalSummary(name: string, input: unknown): string {
  let args = "";
  try {
    const json = JSON.stringify(input);
    if (json && json !== "{}") {
      args = json.length > MAX_ARGS_CHARS ? `${json.slice(0, MAX_ARGS_CHARS - 1)}…` : json;
    }
  } catch {
    // Not serialisable: the tool's name alone.
  }
  return args
    ? `The assistant wants to run ${name} with ${args}.`
    : `The assistant wants to run ${name}.`;
}

/** A summary as the approval request carries it; `undefined` for an unusable one. */
export function approvalNeedOf(summary: ApprovalSummary | undefined): ApprovalNeed | undefined {
  if (typeof summary === "string") return summary.trim() ? { summary } : undefined;
  if (typeof summary !== "object" || summary === null || typeof summary.text !== "string") {
    return undefined;
  }
  if (!summary.text.trim()) return undefined;
  const need: ApprovalNeed = { summary: summary.text };
  const details = summary.details;
  if (typeof details === "object" && details !== null && !Array.isArray(details)) {
    need.details = details;
  }
  if (summary.effect !== undefined) need.effect = summary.effect;
  return need;
}

/** The methods a tool carries for its approval policy (none without one). */
export function approvalMethods<I, C>(
  name: string,
  approval: ApprovalPolicy<I, C> | undefined,
  summarize: ((input: I, context: C) => ApprovalSummary | Promise<ApprovalSummary>) | undefined,
): {
  requiresApproval?(input: I, context: C): boolean | Promise<boolean>;
  summarize?(input: I, context: C): ApprovalSummary | Promise<ApprovalSummary>;
} {
  if (approval === undefined) return summarize ? { summarize } : {};
  if (approval !== "required" && typeof approval !== "function") {
    throw new TypeError(
      `Tool "${name}": approval must be "required" or a function of (input, context).`,
    );
  }
  const requiresApproval = approval === "required" ? () => true : approval;
  return summarize ? { requiresApproval, summarize } : { requiresApproval };
}
