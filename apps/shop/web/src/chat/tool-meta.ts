/** What the UI knows about the shop's tools: which draw a card, and how to summarise arguments. */

import type { CallPhase, JsonPreview } from "overlap-runtime/client";
import { isRecord } from "../api/types";

/** Display tools: their card is drawn from the first byte of their arguments. */
export const DISPLAY_TOOLS: ReadonlySet<string> = new Set([
  "show_products",
  "compare_products",
  "show_inventory",
]);

/** Delegate tools: another agent answers inside the call. */
export const DELEGATE_TOOLS: ReadonlySet<string> = new Set(["ask_merchant"]);

/** A chip's words for each phase. */
export const PHASE_LABEL: Readonly<Record<CallPhase, string>> = {
  "streaming-args": "writing arguments",
  queued: "queued",
  running: "running",
  done: "done",
  failed: "failed",
  cancelled: "cancelled",
  deferred: "waits for the reply to end",
  invalid: "invalid arguments",
};

/** True while the call is not settled. */
export function isActivePhase(phase: CallPhase): boolean {
  return phase === "streaming-args" || phase === "queued" || phase === "running";
}

/** One piece of an argument summary; `id` pieces are drawn in monospace. */
export interface SummaryPart {
  text: string;
  id?: boolean;
}

const money = (v: unknown) => (typeof v === "number" ? `$${v}` : undefined);

/** A short, readable summary of a call's arguments (complete or preview). */
export function summarizeArgs(args: unknown): SummaryPart[] {
  if (!isRecord(args)) return [];
  const parts: SummaryPart[] = [];
  if (typeof args.productId === "string" && args.productId !== "") {
    parts.push({ text: args.productId, id: true });
  }
  if (Array.isArray(args.productIds) && args.productIds.length > 0) {
    const ids = args.productIds.filter((x): x is string => typeof x === "string");
    parts.push({ text: `${ids.length} product${ids.length === 1 ? "" : "s"}` });
  }
  if (typeof args.quantity === "number") parts.push({ text: `× ${args.quantity}` });
  if (typeof args.units === "number") parts.push({ text: `${args.units} units` });
  if (typeof args.query === "string" && args.query !== "") parts.push({ text: `“${args.query}”` });
  const max = money(args.maxPrice);
  if (max) parts.push({ text: `≤ ${max}` });
  const min = money(args.minPrice);
  if (min) parts.push({ text: `≥ ${min}` });
  const price = money(args.price);
  if (price) parts.push({ text: `→ ${price}` });
  if (typeof args.threshold === "number") parts.push({ text: `stock ≤ ${args.threshold}` });
  if (typeof args.question === "string" && args.question !== "") {
    const q = args.question.length > 48 ? `${args.question.slice(0, 47)}…` : args.question;
    parts.push({ text: `“${q}”` });
  }
  return parts;
}

/** The strings of a preview's `productIds` so far (an unfinished id is left out). */
export function previewIds(args: JsonPreview | Readonly<Record<string, unknown>> | undefined) {
  if (!isRecord(args) || !Array.isArray(args.productIds)) return [];
  return args.productIds.filter((x): x is string => typeof x === "string" && x !== "");
}

/** A preview's string field, if it has one so far. */
export function previewString(
  args: JsonPreview | Readonly<Record<string, unknown>> | undefined,
  key: string,
): string | undefined {
  if (!isRecord(args)) return undefined;
  const value = args[key];
  return typeof value === "string" ? value : undefined;
}

/** Short names of the shop's tools for people (the timeline's rows). */
const TOOL_LABELS: Readonly<Record<string, string>> = {
  search_products: "Search",
  get_product: "Product details",
  add_to_cart: "Add to cart",
  update_cart_item: "Change cart",
  remove_from_cart: "Remove from cart",
  clear_cart: "Empty cart",
  view_cart: "Look at cart",
  cart_total: "Cart total",
  checkout: "Place order",
  my_orders: "Your orders",
  show_products: "Product cards",
  compare_products: "Comparison",
  ask_merchant: "Ask merchant",
  low_stock_report: "Low stock",
  restock_eta: "Restock date",
  bulk_discount: "Bulk discount",
  show_inventory: "Inventory",
  restock: "Restock",
  set_price: "Set price",
  restock_products: "Restock products",
  edit_product: "Edit product",
  set_discount: "Set discount",
  end_discount: "End discount",
  list_discounts: "Discounts",
  list_orders: "Orders",
  sales_summary: "Sales",
};

/** The same short names in Chinese. */
const TOOL_LABELS_ZH: Readonly<Record<string, string>> = {
  search_products: "搜索",
  get_product: "商品详情",
  add_to_cart: "加入购物车",
  update_cart_item: "修改购物车",
  remove_from_cart: "移出购物车",
  clear_cart: "清空购物车",
  view_cart: "查看购物车",
  cart_total: "购物车合计",
  checkout: "下单",
  my_orders: "您的订单",
  show_products: "商品卡片",
  compare_products: "对比",
  ask_merchant: "询问商家",
  low_stock_report: "库存不足",
  restock_eta: "补货日期",
  bulk_discount: "批量折扣",
  show_inventory: "库存",
  restock: "补货",
  set_price: "设定价格",
  restock_products: "批量补货",
  edit_product: "修改商品",
  set_discount: "设置折扣",
  end_discount: "结束折扣",
  list_discounts: "折扣",
  list_orders: "订单",
  sales_summary: "销售",
};

/**
 * A tool's short name for people: "Add to cart" (加入购物车); an unknown tool's name in words
 * (in Chinese: "工具" and its name).
 */
export function toolLabel(name: string, lang: "en" | "zh" = "en"): string {
  if (lang === "zh") return TOOL_LABELS_ZH[name] ?? "工具";
  const known = TOOL_LABELS[name];
  if (known) return known;
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
