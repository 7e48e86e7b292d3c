/**
 * A failure as the page says it: the server's and the client's errors arrive with a code and an
 * English message; a Chinese page says the known ones in Chinese (and a plain sentence for any
 * other), so no English sentence reaches a Chinese shopper.
 */

import type { Lang } from "./lang";

/** Chinese sentences of the errors the shopper can meet, by code. */
const CHINESE: Readonly<Record<string, string>> = {
  connection_lost: "与服务器的连接断开了，无法恢复。请刷新页面查看最新回复。",
  network_error: "连不上服务器。请检查网络后再试。",
  turn_lost: "回复在服务器上中断了，无法继续。请重新发送。",
  turn_crashed: "回复在服务器上中断了（服务器重启了）。请重新发送。",
  turn_log_expired: "这条回复早已结束，服务器不再保留它的实时记录。请刷新页面查看。",
  turn_running: "上一条回复还在进行中。请等它结束或先停止它。",
  conversation_conflict: "这个对话同时在别处被修改了。请刷新页面后继续。",
  rate_limited: "消息发得太快了。请稍等片刻再试。",
  shutting_down: "服务器正在重启。请稍后再试。",
  unauthorized: "这个会话已失效。请开始新的对话。",
  forbidden: "这个会话已失效。请开始新的对话。",
  not_found: "找不到这个对话。请开始新的对话。",
  provider_error: "模型暂时没有回应。请稍后再试。",
  stream_interrupted: "模型的回复中断了。请重新发送。",
  internal: "服务器出了点问题。请再试一次。",
  empty_message: "消息里没有可见的文字。",
};

/** The sentence for an error with `code` and `message` in `lang`. */
export function errorWords(error: { code: string; message: string }, lang: Lang): string {
  if (lang === "en") return error.message;
  return CHINESE[error.code] ?? "出了点问题。请再试一次。";
}
