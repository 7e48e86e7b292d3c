/**
 * The AI SDK's values in the neutral terms and back: usage, an `error` part's error, and the
 * provider metadata a block carries so it can be sent back.
 */

import type { Usage } from "../../protocol/usage.js";
import type { AssistantContentBlock } from "../../stream/message.js";
import type { LanguageModelV3Usage, SharedV3ProviderMetadata } from "./language-model-v3.js";

/** The field a block keeps its AI SDK provider metadata in (see the module comment). */
export const AI_SDK_METADATA_FIELD = "ai_sdk_metadata";

/** The V3 usage in the Messages API's terms (`input_tokens` without cached tokens, as there). */
export function toUsage(usage: LanguageModelV3Usage | undefined): Usage {
  const out: Usage = {};
  const input = usage?.inputTokens;
  const inputTokens = input?.noCache ?? input?.total;
  if (inputTokens != null) out.input_tokens = inputTokens;
  if (usage?.outputTokens?.total != null) out.output_tokens = usage.outputTokens.total;
  if (input?.cacheRead != null) out.cache_read_input_tokens = input.cacheRead;
  if (input?.cacheWrite != null) out.cache_creation_input_tokens = input.cacheWrite;
  return out;
}

/** Metadata `b` over `a`, per provider. */
export function mergeMetadata(
  a: SharedV3ProviderMetadata | undefined,
  b: SharedV3ProviderMetadata,
): SharedV3ProviderMetadata {
  const out: SharedV3ProviderMetadata = { ...a };
  for (const [provider, values] of Object.entries(b)) {
    out[provider] = { ...out[provider], ...values };
  }
  return out;
}

/** The first string `field` of any provider's metadata (`{ anthropic: { signature } }`). */
export function metadataField(
  metadata: SharedV3ProviderMetadata | undefined,
  field: string,
): string | undefined {
  for (const values of Object.values(metadata ?? {})) {
    const value = values?.[field];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** `block` with the provider metadata it started with, under {@link AI_SDK_METADATA_FIELD}. */
export function withMetadata<B extends object>(
  block: B,
  metadata: SharedV3ProviderMetadata | undefined,
): AssistantContentBlock {
  const fields =
    metadata && Object.keys(metadata).length > 0
      ? { [AI_SDK_METADATA_FIELD]: structuredClone(metadata) }
      : {};
  return { ...block, ...fields } as unknown as AssistantContentBlock;
}

/** An `error` part's error as the neutral `{ type, message }` (the provider's own when it has one). */
export function streamError(error: unknown): { type: string; message: string } {
  if (error !== null && typeof error === "object") {
    const fields = error as Record<string, unknown>;
    const nested = isObject(fields.error) ? fields.error : undefined;
    const type = nested?.type ?? fields.type ?? fields.code ?? fields.name;
    const message = nested?.message ?? fields.message;
    return {
      type: typeof type === "string" && type !== "" ? type : "error",
      message: typeof message === "string" && message !== "" ? message : "stream error",
    };
  }
  return { type: "error", message: typeof error === "string" ? error : "stream error" };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
