/**
 * What a provider-side tool (run by the model's provider, never by the shop) did, in the
 * shopper's words: "Searched the web: 6 results", "已搜索网络：6 条结果". Pure: read from the
 * `server-tool` item the client keeps (its call's input and the provider's result, in the
 * provider's own shape).
 */

import type { ServerToolItem } from "overlap-runtime/client";
import { type Lang, pick } from "../i18n/lang";

/** What kind of provider tool it is. */
export type ProviderToolKind = "web-search" | "code" | "other";

/** The kind of a provider tool by its name (`web_search`, `code_execution`, `nova_code_interpreter`…). */
export function providerToolKind(name: string): ProviderToolKind {
  if (/search/i.test(name)) return "web-search";
  if (/code|interpreter/i.test(name)) return "code";
  return "other";
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * How many pages a web search found, when the provider says: the Messages API's result block is
 * the list of results (an error result is an object), a Responses `web_search_call` lists its
 * `action.sources` when asked to.
 */
export function searchResultCount(result: unknown): number | undefined {
  if (Array.isArray(result)) {
    return result.filter((r) => isRecord(r) && r.type !== "web_search_tool_result_error").length;
  }
  if (isRecord(result) && isRecord(result.action) && Array.isArray(result.action.sources)) {
    return result.action.sources.length;
  }
  return undefined;
}

/** The query a web search ran, when its input names one. */
export function searchQuery(
  input: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (typeof input?.query === "string") return input.query;
  const action = input?.action;
  if (isRecord(action) && typeof action.query === "string") return action.query;
  return undefined;
}

/** The chip's sentence for the shopper. */
export function providerToolWords(item: ServerToolItem, lang: Lang): string {
  const kind = providerToolKind(item.name);
  const done = item.hasResult;
  if (kind === "web-search") {
    if (!done) return pick(lang, "Searching the web…", "正在搜索网络…");
    const n = searchResultCount(item.result);
    if (n === undefined) return pick(lang, "Searched the web", "已搜索网络");
    return pick(
      lang,
      `Searched the web: ${n} ${n === 1 ? "result" : "results"}`,
      `已搜索网络：${n} 条结果`,
    );
  }
  if (kind === "code") {
    return done
      ? pick(lang, "Ran code", "已运行代码")
      : pick(lang, "Running code…", "正在运行代码…");
  }
  return done
    ? pick(lang, "Looked something up", "已查询")
    : pick(lang, "Looking something up…", "正在查询…");
}
