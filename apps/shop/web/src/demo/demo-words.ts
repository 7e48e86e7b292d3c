/** What the demo drawer and the repair note say, in English and Chinese. */

import type { Lang } from "../i18n/lang";
import type { DemoFault, DemoService } from "./demo-settings";

type Words = Record<Lang, string>;

export const SERVICE_NAMES: Record<DemoService, Words> = {
  search: { en: "Search", zh: "搜索" },
  inventory: { en: "Inventory", zh: "库存" },
  cart: { en: "Cart", zh: "购物车" },
  orders: { en: "Orders", zh: "订单" },
};

/** Which tools call each service, in words (for the drawer's hints). */
export const SERVICE_HINTS: Record<DemoService, Words> = {
  search: { en: "catalog search", zh: "商品搜索" },
  inventory: {
    en: "stock checks: details, cards, adding to the cart",
    zh: "库存查询：详情、卡片、加入购物车",
  },
  cart: { en: "the cart itself: adds, changes, totals", zh: "购物车本身：加购、修改、总价" },
  orders: { en: "your orders, checkout", zh: "订单、结账" },
};

export const FAULT_NAMES: Record<DemoFault | "none", Words> = {
  none: { en: "Don't break anything", zh: "不制造故障" },
  drop: { en: "Drop the connection", zh: "断开连接" },
  error: { en: "Send an error event", zh: "发送错误事件" },
  "invalid-json": { en: "Invalid tool JSON", zh: "无效的工具 JSON" },
  "max-tokens": { en: "Hit max_tokens", zh: "触发 max_tokens" },
};

export const FAULT_HINTS: Record<DemoFault, Words> = {
  drop: {
    en: "The connection is cut halfway through the reply's last tool call.",
    zh: "在回复的最后一个工具调用写到一半时断开连接。",
  },
  error: {
    en: "The model sends an error event at that same point, as an overloaded API does.",
    zh: "模型在同一位置发送错误事件，就像 API 过载时那样。",
  },
  "invalid-json": {
    en: "The last tool call's arguments arrive as broken JSON.",
    zh: "最后一个工具调用的参数是损坏的 JSON。",
  },
  "max-tokens": {
    en: "The reply runs out of tokens inside its last tool call.",
    zh: "回复在最后一个工具调用中途用完了 token。",
  },
};

/** "400 ms simulated" */
export function simulatedMs(lang: Lang, ms: number): string {
  return lang === "zh" ? `模拟 ${ms} 毫秒` : `${ms} ms simulated`;
}
