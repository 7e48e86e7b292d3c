/**
 * What a tool call does, in words, for the shopper: "Adding Aero Trail Runner (size US 10) to your
 * cart", "Checking your total", "Looking for running shoes under $100", in English or Chinese.
 * Product names come from the page's {@link ProductBook}; a product not known yet is "an item",
 * never its id. Failures read as plain sentences written from the result's `problem` (a code and
 * its facts: "The quantity can be at most 10.", "数量最多为 10。"), never from the model's text.
 * Pure: no React, no DOM.
 */

import type { CallView } from "overlap-runtime/client";
import { isRecord } from "../api/types";
import { categoryName } from "../i18n/category-words";
import { colorName } from "../i18n/color-words";
import { discountWords } from "../i18n/discount-words";
import { count, type Lang, pick } from "../i18n/lang";
import { problemSentence } from "../i18n/problem-words";
import type { ProductBook } from "./product-book";

/** What a sentence needs: the language and the names the page knows. */
export interface WordsContext {
  lang: Lang;
  book: ProductBook;
}

/** A call's action in three forms: "add X to your cart", "Adding…", "Added…" (Chinese: the base). */
interface Phrase {
  base: string;
  ing: string;
  past: string;
}

type Args = Readonly<Record<string, unknown>>;

const argsOf = (entry: CallView): Args => {
  const args = entry.input ?? entry.preview;
  return isRecord(args) ? args : {};
};
const str = (args: Args, key: string): string | undefined => {
  const v = args[key];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
};
const num = (args: Args, key: string): number | undefined => {
  const v = args[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
};

/** Dollars as the shop writes them: `$100`, `$99.50`. */
export function dollars(value: number): string {
  return Number.isInteger(value) ? `$${value}` : `$${value.toFixed(2)}`;
}

/** "A and B", "A, B and C"; Chinese "A 和 B", "A、B 和 C". */
export function joinNames(lang: Lang, names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  const head = names.slice(0, -1).join(pick(lang, ", ", "、"));
  return `${head}${pick(lang, " and ", " 和 ")}${names.at(-1)}`;
}

function en(base: string, ing: string, past: string): Phrase {
  return { base, ing, past };
}

function zh(text: string): Phrase {
  // No space between a full-width bracket and the words after it.
  const base = text.replace(/） /g, "）");
  return { base, ing: `正在${base}`, past: `已${base}` };
}

/** The phrase of a call, in `ctx.lang`. */
function phrase(entry: CallView, ctx: WordsContext): Phrase {
  const { lang, book } = ctx;
  const z = lang === "zh";
  const args = argsOf(entry);
  const id = str(args, "productId");
  const known = id ? book.get(id)?.name : undefined;
  const name = known ?? pick(lang, "an item", "一件商品");
  const quantity = num(args, "quantity");
  const withCount = (q: number | undefined) =>
    q === undefined || q === 1
      ? name
      : known === undefined
        ? pick(lang, `${q} items`, `${q} 件商品`)
        : z
          ? `${known} × ${q}`
          : `${q} × ${known}`;
  const variantParts = [
    ...(str(args, "size")
      ? [pick(lang, `size ${str(args, "size")}`, `尺码 ${str(args, "size")}`)]
      : []),
    ...(str(args, "color") ? [colorName(str(args, "color") as string, lang)] : []),
  ];
  const variant = variantParts.length
    ? z
      ? `（${variantParts.join("，")}）`
      : ` (${variantParts.join(", ")})`
    : "";
  const ids = Array.isArray(args.productIds)
    ? args.productIds.filter((x): x is string => typeof x === "string" && x !== "")
    : [];

  switch (entry.name) {
    case "search_products": {
      const max = num(args, "maxPrice");
      const min = num(args, "minPrice");
      const subject = str(args, "query") ?? str(args, "category");
      if (z) {
        const price =
          max !== undefined && min !== undefined
            ? `${dollars(min)} 到 ${dollars(max)} 之间的`
            : max !== undefined
              ? `${dollars(max)} 以下的`
              : min !== undefined
                ? `${dollars(min)} 以上的`
                : "";
        // The model searches in English: a Chinese page names the category, not those words.
        const category = str(args, "category");
        const said =
          subject && !/[A-Za-z]/.test(subject)
            ? `“${subject}”`
            : category && categoryName(category, "zh") !== category
              ? categoryName(category, "zh")
              : "商品";
        return zh(`查找${price}${said}`);
      }
      const price =
        max !== undefined && min !== undefined
          ? ` between ${dollars(min)} and ${dollars(max)}`
          : max !== undefined
            ? ` under ${dollars(max)}`
            : min !== undefined
              ? ` over ${dollars(min)}`
              : "";
      const what = `${subject ?? "products"}${price}`;
      return en(`look for ${what}`, `Looking for ${what}`, `Looked for ${what}`);
    }
    case "get_product":
      return z
        ? zh(`查看 ${name}`)
        : en(`look up ${name}`, `Looking up ${name}`, `Looked up ${name}`);
    case "add_to_cart": {
      const what = `${withCount(quantity)}${variant}`;
      return z
        ? zh(`把 ${what} 加入购物车`)
        : en(
            `add ${what} to your cart`,
            `Adding ${what} to your cart`,
            `Added ${what} to your cart`,
          );
    }
    case "update_cart_item": {
      if (quantity === 0) {
        return z
          ? zh(`把 ${name} 移出购物车`)
          : en(
              `remove ${name} from your cart`,
              `Removing ${name} from your cart`,
              `Removed ${name} from your cart`,
            );
      }
      if (quantity !== undefined) {
        const what = `${name}${variant}`;
        return z
          ? zh(`把 ${what} 改为 ${quantity} 件`)
          : en(
              `change ${what} to ${quantity} in your cart`,
              `Changing ${what} to ${quantity} in your cart`,
              `Changed ${what} to ${quantity} in your cart`,
            );
      }
      const to =
        variantParts.join(pick(lang, ", ", "，")) || pick(lang, "another option", "其他选项");
      return z
        ? zh(`把 ${name} 改为 ${to}`)
        : en(`change ${name} to ${to}`, `Changing ${name} to ${to}`, `Changed ${name} to ${to}`);
    }
    case "remove_from_cart":
      return z
        ? zh(`把 ${name} 移出购物车`)
        : en(
            `remove ${name} from your cart`,
            `Removing ${name} from your cart`,
            `Removed ${name} from your cart`,
          );
    case "clear_cart":
      return z
        ? zh("清空购物车")
        : en("empty your cart", "Emptying your cart", "Emptied your cart");
    case "view_cart":
      return z
        ? zh("查看购物车")
        : en("look at your cart", "Looking at your cart", "Looked at your cart");
    case "cart_total":
      return z
        ? zh("计算总价")
        : en("check your total", "Checking your total", "Checked your total");
    case "checkout":
      return z ? zh("下单") : en("place your order", "Placing your order", "Placed your order");
    case "my_orders":
      return z
        ? zh("查询您的订单")
        : en("look up your orders", "Looking up your orders", "Looked up your orders");
    case "show_products": {
      const what =
        ids.length > 0 ? count(lang, ids.length, "product") : pick(lang, "products", "商品");
      return z ? zh(`展示${what}`) : en(`show ${what}`, `Showing ${what}`, `Showed ${what}`);
    }
    case "compare_products": {
      const names = ids.map((id) => book.get(id)?.name);
      const what =
        names.every((n): n is string => n !== undefined) && names.length >= 2
          ? joinNames(lang, names)
          : ids.length > 0
            ? count(lang, ids.length, "product")
            : pick(lang, "products", "商品");
      return z
        ? zh(`比较 ${what}`)
        : en(`compare ${what}`, `Comparing ${what}`, `Compared ${what}`);
    }
    case "ask_merchant":
      return z
        ? zh("询问商家")
        : en("ask the merchant", "Asking the merchant", "Asked the merchant");
    case "low_stock_report":
      return z
        ? zh("查看库存不足的商品")
        : en(
            "check what is low on stock",
            "Checking what is low on stock",
            "Checked what is low on stock",
          );
    case "restock_eta":
      return z
        ? zh(`查询 ${name} 的补货时间`)
        : en(
            `check when ${name} is back in stock`,
            `Checking when ${name} is back in stock`,
            `Checked when ${name} is back in stock`,
          );
    case "bulk_discount": {
      const units = num(args, "units");
      const what = units !== undefined ? `${units} × ${name}` : name;
      return z
        ? zh(`查询 ${name} 的批量折扣`)
        : en(
            `check a bulk discount on ${what}`,
            `Checking a bulk discount on ${what}`,
            `Checked a bulk discount on ${what}`,
          );
    }
    case "show_inventory": {
      const query = str(args, "query");
      return z
        ? zh(`展示${query ? `“${query}”的` : ""}库存`)
        : en(
            `show the stock${query ? ` of ${query}` : ""}`,
            `Showing the stock${query ? ` of ${query}` : ""}`,
            `Showed the stock${query ? ` of ${query}` : ""}`,
          );
    }
    case "restock":
      return z
        ? zh(`为 ${name} 补货${quantity !== undefined ? ` ${quantity} 件` : ""}`)
        : en(
            `restock ${withCount(quantity)}`,
            `Restocking ${withCount(quantity)}`,
            `Restocked ${withCount(quantity)}`,
          );
    case "set_price": {
      const price = num(args, "price");
      const to = price !== undefined ? dollars(price) : pick(lang, "a new price", "新价格");
      return z
        ? zh(`把 ${name} 的价格改为 ${to}`)
        : en(
            `change the price of ${name} to ${to}`,
            `Changing the price of ${name} to ${to}`,
            `Changed the price of ${name} to ${to}`,
          );
    }
    case "restock_products": {
      const n = Array.isArray(args.productIds) ? args.productIds.length : undefined;
      const what = n !== undefined ? count(lang, n, "product") : pick(lang, "products", "商品");
      const upTo = num(args, "upTo");
      const each = upTo !== undefined ? upTo : quantity;
      return z
        ? zh(
            upTo !== undefined
              ? `把 ${what}各补到 ${upTo} 件`
              : `为 ${what}补货${each !== undefined ? `，各 ${each} 件` : ""}`,
          )
        : upTo !== undefined
          ? en(
              `fill ${what} up to ${upTo} each`,
              `Filling ${what} up to ${upTo} each`,
              `Filled ${what} up to ${upTo} each`,
            )
          : en(`restock ${what}`, `Restocking ${what}`, `Restocked ${what}`);
    }
    case "edit_product":
      return z ? zh(`修改 ${name}`) : en(`edit ${name}`, `Editing ${name}`, `Edited ${name}`);
    case "set_discount":
    case "end_discount": {
      const category = str(args, "category") ?? "";
      const percent = num(args, "percent");
      const where = category ? categoryName(category, lang) : pick(lang, "a category", "一个品类");
      if (entry.name === "end_discount")
        return z
          ? zh(`结束${where}的折扣`)
          : en(
              `end the discount on ${where}`,
              `Ending the discount on ${where}`,
              `Ended the discount on ${where}`,
            );
      return z
        ? zh(`${where}${percent !== undefined ? `打${discountWords(percent, "zh")}` : "打折"}`)
        : en(
            `put ${percent ?? "a"}% off ${where}`,
            `Putting ${percent ?? "a"}% off ${where}`,
            `Put ${percent ?? "a"}% off ${where}`,
          );
    }
    case "list_discounts":
      return z
        ? zh("查看当前折扣")
        : en("list the discounts", "Listing the discounts", "Listed the discounts");
    case "list_orders":
      return z
        ? zh("列出最近的订单")
        : en("list recent orders", "Listing recent orders", "Listed recent orders");
    case "sales_summary":
      return z
        ? zh("汇总销售额")
        : en("add up the sales", "Adding up the sales", "Added up the sales");
    default: {
      const words = entry.name.replace(/[_-]+/g, " ").trim();
      return z
        ? zh(`执行“${words}”`)
        : en(`run “${words}”`, `Running “${words}”`, `Ran “${words}”`);
    }
  }
}

/** What a finished call found out, when its cards or result say more than "done". */
function outcome(entry: CallView, ctx: WordsContext): string | undefined {
  const { lang } = ctx;
  const text = entry.result?.text ?? "";
  const cartUi = entry.ui.find((u) => u.type === "cart-updated");
  switch (entry.name) {
    case "cart_total": {
      const m = /Cart total: (\$[\d,.]+) for (\d+) items?/.exec(text);
      if (!m) return undefined;
      const n = Number(m[2]);
      return pick(
        lang,
        `Your total: ${m[1]} for ${count(lang, n, "item")}`,
        `总价 ${m[1]}，共 ${count(lang, n, "item")}`,
      );
    }
    case "view_cart": {
      const cart = isRecord(cartUi?.cart) ? cartUi.cart : undefined;
      if (!cart || typeof cart.itemCount !== "number") return undefined;
      if (cart.itemCount === 0) return pick(lang, "Your cart is empty", "购物车是空的");
      return pick(
        lang,
        `Your cart: ${count(lang, cart.itemCount, "item")}, ${String(cart.total ?? "")}`,
        `购物车：共 ${count(lang, cart.itemCount, "item")}，${String(cart.total ?? "")}`,
      );
    }
    case "clear_cart":
      return /already empty/.test(text)
        ? pick(lang, "Your cart was already empty", "购物车本来就是空的")
        : undefined;
    case "checkout": {
      const placed = entry.ui.find((u) => u.type === "order-placed");
      const order = isRecord(placed?.order) ? placed.order : undefined;
      if (!order || typeof order.itemCount !== "number" || typeof order.totalCents !== "number") {
        return undefined;
      }
      const total = `$${(order.totalCents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
      return pick(
        lang,
        `Order placed: ${count(lang, order.itemCount, "item")}, ${total}`,
        `已下单：共 ${count(lang, order.itemCount, "item")}，${total}`,
      );
    }
    case "search_products": {
      const found = /^(\d+) found/.exec(text);
      const p = phrase(entry, ctx).past;
      if (found) return pick(lang, `${p}: ${found[1]} found`, `${p}：找到 ${found[1]} 件`);
      if (/^No products match/.test(text))
        return pick(lang, `${p}: nothing found`, `${p}：没有找到`);
      return undefined;
    }
    case "my_orders": {
      const n = /^(\d+) order/.exec(text);
      if (n) {
        return pick(
          lang,
          `Found ${count(lang, Number(n[1]), "order")}`,
          `找到 ${count(lang, Number(n[1]), "order")}`,
        );
      }
      return /^No orders yet/.test(text) ? pick(lang, "No orders yet", "还没有订单") : undefined;
    }
    case "show_products": {
      const cards = entry.ui.find((u) => u.type === "product-cards");
      if (!cards || !Array.isArray(cards.products)) return undefined;
      const n = cards.products.length;
      return pick(
        lang,
        `Showing ${count(lang, n, "product")}`,
        `展示了 ${count(lang, n, "product")}`,
      );
    }
    default:
      return undefined;
  }
}

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
  const p = phrase(entry, ctx);
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
      return outcome(entry, ctx) ?? p.past;
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
