/** Helpers on Responses output items: the fields kept on a block, a provider-side call's input. */

import type { ResponsesItem } from "./responses-stream-types.js";

/** Fields a call's block holds itself (or that change as the item streams). */
export const CALL_FIELDS: ReadonlySet<string> = new Set([
  "type",
  "status",
  "call_id",
  "name",
  "arguments",
]);
/** Fields a message's text blocks hold themselves (or that change as the item streams). */
export const MESSAGE_FIELDS: ReadonlySet<string> = new Set(["type", "status", "role", "content"]);

/** The item's fields but `held` (a copy), for `openai_item`. */
export function itemFields(
  item: ResponsesItem,
  held: ReadonlySet<string>,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (!held.has(key) && value !== undefined) fields[key] = structuredClone(value);
  }
  return fields;
}

/** Fields of a provider-side item that describe its call (its `server_tool_use` input). */
const PROVIDER_INPUT_FIELDS = [
  "server_label",
  "action",
  "queries",
  "code",
  "container_id",
  "arguments",
  "input",
] as const;

/** The input shown for a provider-side call: `arguments` parsed when they are a JSON object. */
export function providerInput(item: ResponsesItem): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of PROVIDER_INPUT_FIELDS) {
    const value = item[field];
    if (value === undefined || value === null) continue;
    input[field] =
      field === "arguments" && typeof value === "string"
        ? (jsonObject(value) ?? value)
        : structuredClone(value);
  }
  return input;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function idFields(id: string | undefined): Record<string, unknown> {
  return id ? { id } : {};
}

export function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
