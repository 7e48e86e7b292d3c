/**
 * Approvals that bind: what the user confirmed is what runs. A tool that needs approval may say,
 * besides its summary in words, the exact effect it asks for (`summarize` returning `effect`: for
 * a checkout, its lines with product, variant, quantity and unit price, and the total). The
 * approval request carries that effect and its digest; once approved, the tool gets them as
 * `ctx.approved` and, in the same transaction as its effect, compares them with the effect the
 * state now gives ({@link sameEffect}). If anything differs it throws {@link EffectChangedError}
 * before doing anything: the round then asks the user again, showing what changed
 * ({@link effectChanges}), instead of doing more (or something else) than was confirmed.
 *
 * Pure: canonical JSON, a digest over it (Web Crypto's SHA-256, on every runtime), a structural
 * diff.
 */

import type { EffectChange } from "../protocol/approval.js";

/** The effect a user approved for a call, as its tool receives it (`ctx.approved`). */
export interface ApprovedEffect {
  /** The effect exactly as the approval request showed it (its `summarize`'s `effect`). */
  readonly effect: unknown;
  /** {@link effectDigest} of `effect`: what the user's decision was bound to. */
  readonly digest: string;
}

/**
 * Thrown by a tool whose approved effect no longer matches the state it is about to change (a
 * price changed, the cart was edited elsewhere, a sale ended). Thrown before any effect, inside
 * the effect's transaction, so nothing happens; the round asks the user again with the effect
 * the state now gives (`current`, or the tool's `summarize` again when absent) and what changed.
 */
export class EffectChangedError extends Error {
  override readonly name = "EffectChangedError";
  constructor(
    /** The effect the state gives now, when the tool computed it. */
    readonly current?: unknown,
    message = "The action's effect changed after it was approved; nothing was done.",
  ) {
    super(message);
  }
}

/**
 * JSON text of `value` with object keys sorted at every depth, so that two equal effects give one
 * text whatever order their keys were built in. `undefined` members are left out (as JSON does);
 * non-finite numbers are refused, since JSON cannot say them and two of them could not be told apart.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`An effect cannot hold the number ${value}.`);
  }
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
}

/** Whether two effects are the same (equal canonical JSON). */
export function sameEffect(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The digest an approval is bound to: `sha256:` and the hex SHA-256 of the canonical JSON. */
export async function effectDigest(effect: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(effect));
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

/**
 * What changed from `before` to `after`, leaf by leaf, as paths (`lines[0].quantity`,
 * `total`). Array elements that are objects with a string or number `key` (or `id`) member are
 * matched by it, so an added or removed line is one change, not a shift of every line after it.
 * Empty when the effects are the same.
 */
export function effectChanges(before: unknown, after: unknown): EffectChange[] {
  const changes: EffectChange[] = [];
  diff(sortKeys(before), sortKeys(after), "", changes);
  return changes;
}

function diff(before: unknown, after: unknown, path: string, out: EffectChange[]): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    const keyed = keysOf(before) && keysOf(after);
    if (keyed) {
      const old = new Map(before.map((item) => [elementKey(item), item]));
      const now = new Map(after.map((item) => [elementKey(item), item]));
      for (const [key, item] of old) {
        const at = `${path}[${JSON.stringify(key)}]`;
        if (now.has(key)) diff(item, now.get(key), at, out);
        else out.push({ path: at, before: item });
      }
      for (const [key, item] of now) {
        if (!old.has(key)) out.push({ path: `${path}[${JSON.stringify(key)}]`, after: item });
      }
      return;
    }
    const length = Math.max(before.length, after.length);
    for (let i = 0; i < length; i++) {
      const at = `${path}[${i}]`;
      if (i >= before.length) out.push({ path: at, after: after[i] });
      else if (i >= after.length) out.push({ path: at, before: before[i] });
      else diff(before[i], after[i], at, out);
    }
    return;
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of [...keys].sort()) {
      const at = path ? `${path}.${key}` : key;
      if (!(key in after)) out.push({ path: at, before: before[key] });
      else if (!(key in before)) out.push({ path: at, after: after[key] });
      else diff(before[key], after[key], at, out);
    }
    return;
  }
  out.push({ path, before, after });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The key an array element is matched by, or undefined when it has none. */
function elementKey(item: unknown): string | number | undefined {
  if (!isRecord(item)) return undefined;
  const key = item.key ?? item.id;
  return typeof key === "string" || typeof key === "number" ? key : undefined;
}

/** Whether every element has a key, and no two share one. */
function keysOf(items: readonly unknown[]): boolean {
  const seen = new Set<string | number>();
  for (const item of items) {
    const key = elementKey(item);
    if (key === undefined || seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}
