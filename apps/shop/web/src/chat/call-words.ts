/**
 * What a tool call does, in words, for the shopper: "Adding Aero Trail Runner (size US 10) to your
 * cart", "Checking your total", "Looking for running shoes under $100", in English or Chinese,
 * for where the call is now (running, done, waiting for a confirmation, failed). Each tool's words
 * are a row of `tool-words.ts`. Product names come from the page's {@link ProductBook}; a product
 * not known yet is "an item", never its id. Failures read as plain sentences written from the
 * result's `problem` (a code and its facts: "The quantity can be at most 10.", "数量最多为 10。"),
 * never from the model's text. Pure: no React, no DOM.
 */

import type { CallView } from "overlap-runtime/client";
import { type Lang, pick } from "../i18n/lang";
import { problemSentence } from "../i18n/problem-words";
import type { ProductBook } from "./product-book";
import { callFound, callPhrase, type WordsContext } from "./tool-words";

/** True when the call ended without doing what it was asked. */
export function callFailed(entry: CallView): boolean {
  return (
    entry.phase === "failed" ||
    entry.phase === "invalid" ||
    (entry.phase === "done" && entry.result?.isError === true) ||
    (entry.result?.isError === true && entry.phase !== "cancelled")
  );
}

/** The chip's sentence for where the call is now. */
export function callSentence(entry: CallView, ctx: WordsContext): string {
  const p = callPhrase(entry, ctx);
  const z = ctx.lang === "zh";
  // A call that needs the shopper's yes (checkout) waits for them, not for the shop: say so.
  const approval = approvalSentence(entry, ctx.lang);
  if (approval) return approval;
  if (entry.phase === "cancelled") {
    return z ? `已停止：${p.base}` : `Stopped before it could ${p.base}`;
  }
  if (callFailed(entry)) return z ? `没能${p.base}` : `Couldn't ${p.base}`;
  switch (entry.phase) {
    case "deferred":
      return z ? `回复写完后${p.base}` : `Will ${p.base} once the reply is written`;
    case "done":
      return callFound(entry, ctx) ?? p.past;
    default:
      return p.ing;
  }
}

/**
 * While a call waits for the shopper's confirmation, and when they said no or did not answer in
 * time: what the chip says then (the approval card next to it holds the details and the buttons).
 */
function approvalSentence(entry: CallView, lang: Lang): string | undefined {
  const checkout = entry.name === "checkout";
  switch (entry.approval?.status) {
    case "pending":
      return pick(lang, "Waiting for your confirmation", "等待您确认");
    case "declined":
      return checkout
        ? pick(lang, "Order not placed: you cancelled it", "未下单：您取消了")
        : pick(lang, "Not done: you cancelled it", "未执行：您取消了");
    case "timeout":
      return checkout
        ? pick(lang, "Order not placed: not confirmed in time", "未下单：没有及时确认")
        : pick(lang, "Not done: not confirmed in time", "未执行：没有及时确认");
    default:
      return undefined;
  }
}

/**
 * A model-facing result text made fit for people: ids out ("Aero Trail Runner (p-0001, size
 * US 10)" → "Aero Trail Runner (size US 10)", a bare id → its name when known), plurals right
 * ("1 items" → "1 item", "2 line(s)" → "2 lines").
 */
export function tidyText(text: string, book: ProductBook): string {
  return text
    .replace(/ \((p-[\w-]+)\)/g, "")
    .replace(/\((p-[\w-]+), /g, "(")
    .replace(/\bp-\d{3,}\b/g, (id) => book.get(id)?.name ?? "that item")
    .replace(/\b1 (item|product|order|line|unit)s\b/g, "1 $1")
    .replace(/\b(\d+) ([a-z]+(?: [a-z]+)?)\(s\)/g, (_all, n: string, noun: string) =>
      Number(n) === 1 ? `${n} ${noun}` : `${n} ${noun}s`,
    );
}

/**
 * Why a call did not do what it was asked, as a sentence for the shopper; `undefined` for a call
 * that did not fail. Written from the result's `problem` (a code and its facts) or its status,
 * never from the text the model reads: on an English page a failure without a known code shows
 * that text tidied, on a Chinese page a plain sentence.
 */
export function callProblem(entry: CallView, ctx: WordsContext): string | undefined {
  const { lang } = ctx;
  if (entry.phase === "invalid") {
    return pick(
      lang,
      "The assistant's request came out garbled, so nothing was done.",
      "助手的请求格式有误，所以什么也没做。",
    );
  }
  const result = entry.result;
  if (!result || !callFailed(entry)) return undefined;
  const known = result.problem ? problemSentence(result.problem, lang, ctx.book) : undefined;
  if (known) return known;
  switch (result.status) {
    case "invalid_input":
      return pick(
        lang,
        "The request was not in a form the shop accepts, so nothing was done.",
        "请求的格式不对，所以什么也没做。",
      );
    case "unknown_tool":
      return pick(lang, "The shop has no such action.", "商店没有这个功能。");
    case "timeout":
      return pick(lang, "It took too long and was stopped.", "用时太长，已被停止。");
    case "interrupted":
      return pick(
        lang,
        "The reply was stopped while this was running; it may not have finished.",
        "回复被停止时这一步正在进行，可能没有完成。",
      );
    case "not_executed":
      return pick(
        lang,
        "The reply was stopped before this started, so nothing was done.",
        "回复在这一步开始前就停止了，所以什么也没做。",
      );
    default:
      return pick(lang, tidyText(result.text, ctx.book), "这一步没能完成。");
  }
}
