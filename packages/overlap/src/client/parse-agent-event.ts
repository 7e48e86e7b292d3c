/**
 * Validates one SSE frame's data as an {@link AgentEvent} (docs/protocol.md). The browser trusts
 * nothing it did not check: a frame must be a JSON object with a known `type` and that type's
 * required fields with the right primitive types. Anything else is reported as `undefined`, never
 * thrown, so a newer server that adds an event type (or a proxy that mangles one frame) cannot
 * break an older client; the reader skips and counts such frames.
 */

import type { AgentEvent, AgentEventType } from "../protocol/agent-event.js";

type Check = (value: unknown) => boolean;

const isNumber: Check = (v) => typeof v === "number" && Number.isFinite(v);
const isString: Check = (v) => typeof v === "string";
const isBoolean: Check = (v) => typeof v === "boolean";
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
// `preview` and `result` are arbitrary JSON (and absent when undefined was serialized).
const isAnything: Check = () => true;
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const oneOf =
  (...values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v);
const isUiEvent: Check = (v) => isRecord(v) && isString(v.type);
// A page turns each into a link: the address must be text; title and quote are optional text.
const isCitationList: Check = (v) =>
  Array.isArray(v) &&
  v.every(
    (c) =>
      isRecord(c) &&
      isString(c.url) &&
      optional(isString)(c.title) &&
      optional(isString)(c.citedText),
  );
const isProblem: Check = (v) => isRecord(v) && isString(v.code) && optional(isRecord)(v.params);
// The timeline is drawn from these. The round's optional milliseconds are numbers when present
// (an older server may send none of them, e.g. no `firstTokenMs`); the entries of `blocks` and
// `tools` are checked where they are read.
const TIMING_MS = [
  "firstEventMs",
  "firstTokenMs",
  "firstToolStartMs",
  "streamEndMs",
  "endMs",
  "savedMs",
] as const;
const isTimings: Check = (v) =>
  isRecord(v) &&
  isNumber(v.startedAt) &&
  Array.isArray(v.blocks) &&
  Array.isArray(v.tools) &&
  TIMING_MS.every((name) => optional(isNumber)(v[name]));

// Enumerations that drive the client's state machine are checked value by value: an unknown
// dispatch decision or status has no meaning to map to. `stopReason` and the result `status` are
// only displayed, so any string is accepted there.
const isDispatch = oneOf("started", "deferred", "invalid", "cancelled", "duplicate");
const isToolState = oneOf("queued", "running", "done", "failed", "cancelled");
const isApprovalResolution = oneOf("approved", "declined", "timeout", "cancelled");

/**
 * The required (and typed optional) fields of each event type. A mapped type over
 * {@link AgentEventType}, so adding an event to the protocol fails to compile until it is listed.
 */
const FIELDS: { readonly [T in AgentEventType]: Readonly<Record<string, Check>> } = {
  "round-start": { round: isNumber },
  "text-delta": { round: isNumber, index: isNumber, text: isString },
  "thinking-delta": { round: isNumber, index: isNumber, thinking: isString },
  "tool-call-start": { round: isNumber, index: isNumber, callId: isString, name: isString },
  "tool-input-preview": {
    round: isNumber,
    index: isNumber,
    callId: isString,
    name: isString,
    preview: isAnything,
    bytes: isNumber,
  },
  "tool-call": {
    round: isNumber,
    index: isNumber,
    callId: isString,
    name: isString,
    input: isRecord,
    dispatch: isDispatch,
    error: optional(isString),
  },
  "tool-status": {
    round: isNumber,
    callId: isString,
    name: isString,
    status: isToolState,
    atMs: isNumber,
  },
  "server-tool": {
    round: isNumber,
    index: isNumber,
    callId: isString,
    name: isString,
    phase: oneOf("call", "result"),
    input: optional(isRecord),
    result: isAnything,
  },
  citations: { round: isNumber, index: isNumber, citations: isCitationList },
  "approval-request": {
    round: isNumber,
    callId: isString,
    name: isString,
    input: isRecord,
    summary: isString,
    details: optional(isRecord),
    timeoutMs: optional(isNumber),
  },
  "approval-resolved": {
    round: isNumber,
    callId: isString,
    name: isString,
    decision: isApprovalResolution,
    reason: optional(isString),
  },
  ui: { round: isNumber, callId: isString, name: isString, ui: isUiEvent },
  "tool-result": {
    round: isNumber,
    callId: isString,
    name: isString,
    isError: isBoolean,
    status: isString,
    resultText: isString,
    output: isAnything,
    problem: optional(isProblem),
  },
  "round-end": { round: isNumber, stopReason: isString, usage: isRecord, timings: isTimings },
  done: { roundCount: isNumber, stopReason: isString },
  error: {
    code: isString,
    message: isString,
    category: optional(isString),
    retryAfterMs: optional(isNumber),
  },
};

// A mistyped `parentCallId` would route an inner agent's event into the outer turn.
const BASE_FIELDS: Readonly<Record<string, Check>> = {
  parentCallId: optional(isString),
  agent: optional(isString),
};

/**
 * Parses and validates the `data` of one SSE frame. A `done` in its older shape (its count of
 * rounds named `rounds`, as stored logs of earlier turns still hold it) is read with `roundCount`.
 * @returns the event, or `undefined` when the data is not JSON, not an object, names an unknown
 *   type, or lacks (or mistypes) a field its type requires. Never throws.
 */
export function parseAgentEvent(data: string): AgentEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  value = upgradeOldShape(value);
  return isAgentEvent(value) ? value : undefined;
}

/**
 * Renames the fields of events written before a rename to today's names. Servers keep each turn's
 * event log and replay it to a browser that reloads or resumes, so a turn that ran before the
 * rename still arrives in its old shape; dropping its `done` would leave that turn looking as if it
 * were still running. Done here, where the data is parsed into a new value, rather than in
 * {@link isAgentEvent}, a type guard that only checks the value it is given.
 */
function upgradeOldShape(value: unknown): unknown {
  // `done` carried its count of rounds as `rounds` (a number) before it was named `roundCount`.
  if (isRecord(value) && value.type === "done" && value.roundCount === undefined) {
    const { rounds, ...rest } = value;
    if (isNumber(rounds)) return { ...rest, roundCount: rounds };
  }
  return value;
}

/**
 * True when `value` is a well-formed {@link AgentEvent} of a type this client knows, in today's
 * shape: unlike {@link parseAgentEvent}, it does not accept the older names of renamed fields.
 */
export function isAgentEvent(value: unknown): value is AgentEvent {
  if (!isRecord(value) || typeof value.type !== "string") return false;
  // hasOwn: a `type` of "constructor" or "__proto__" must not find an inherited entry.
  if (!Object.hasOwn(FIELDS, value.type)) return false;
  const fields = FIELDS[value.type as AgentEventType];
  return conforms(value, BASE_FIELDS) && conforms(value, fields);
}

function conforms(
  value: Record<string, unknown>,
  fields: Readonly<Record<string, Check>>,
): boolean {
  for (const [name, check] of Object.entries(fields)) {
    if (!check(value[name])) return false;
  }
  return true;
}
