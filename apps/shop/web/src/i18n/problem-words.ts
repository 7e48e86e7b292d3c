/**
 * Why a call failed, in the page's words: written from the result's `problem` (a code and its
 * facts, see the runtime's `ToolProblem`) and never from the English sentence the model reads, so
 * a reworded rule or a new release of the schema library changes nothing here. Both languages; a
 * code this page does not know gets a plain sentence, never the model's text on a Chinese page.
 * Pure: no React, no DOM.
 */

import type { InputIssue, ToolProblem } from "overlap-runtime/client";
import { formatCents } from "../api/format";
import { colorName } from "./color-words";
import { type Lang, pick } from "./lang";

/** What the page knows of the products it showed (a name for an id). */
export interface NameBook {
  get(id: string): { name: string } | undefined;
}

type Params = Readonly<Record<string, unknown>>;

const text = (params: Params, key: string): string | undefined => {
  const v = params[key];
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
};
const whole = (params: Params, key: string): number | undefined => {
  const v = params[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
};
const texts = (params: Params, key: string): string[] => {
  const v = params[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
};

/** The field names the shop's tools use, as a shopper (or merchant) would say them. */
const FIELDS: Readonly<Record<string, readonly [string, string]>> = {
  quantity: ["quantity", "数量"],
  productId: ["product", "商品"],
  productIds: ["list of products", "商品列表"],
  maxPrice: ["highest price", "最高价格"],
  minPrice: ["lowest price", "最低价格"],
  size: ["size", "尺码"],
  color: ["colour", "颜色"],
  lineSize: ["size of the line", "原来的尺码"],
  lineColor: ["colour of the line", "原来的颜色"],
  query: ["search", "搜索词"],
  category: ["category", "类别"],
  question: ["question", "问题"],
  units: ["number of units", "件数"],
  price: ["price", "价格"],
  percent: ["discount", "折扣"],
  threshold: ["stock threshold", "库存阈值"],
  limit: ["number of results", "结果数量"],
  orderId: ["order number", "订单号"],
  title: ["title", "标题"],
  name: ["name", "名称"],
  description: ["description", "描述"],
  top: ["number of best sellers", "畅销商品数量"],
};

/** One schema failure as a sentence: "The quantity can be at most 10." / "数量最多为 10。" */
export function issueSentence(issue: InputIssue, lang: Lang): string {
  const key = issue.path.find((p): p is string => typeof p === "string") ?? "";
  const field = FIELDS[key];
  const what = field ? pick(lang, field[0], field[1]) : key;
  const end = issueEnd(issue, lang);
  if (lang === "zh") return `${what || "请求"}${end}。`;
  return `${what ? `The ${what}` : "The request"} ${end}.`;
}

function issueEnd(issue: InputIssue, lang: Lang): string {
  const zh = lang === "zh";
  const bound = issue.maximum ?? issue.minimum;
  switch (issue.code) {
    case "too_big":
    case "too_small": {
      const big = issue.code === "too_big";
      if (issue.origin === "string") {
        if (!big) return zh ? "不能为空" : "is missing";
        return zh ? `太长了（最多 ${bound} 个字符）` : `is too long (at most ${bound} characters)`;
      }
      if (issue.origin === "array" || issue.origin === "set") {
        if (big) return zh ? `最多 ${bound} 个` : `can hold at most ${bound}`;
        return zh ? `至少需要 ${bound} 个` : `needs at least ${bound}`;
      }
      if (big) {
        if (issue.inclusive === false)
          return zh ? `必须小于 ${bound}` : `must be less than ${bound}`;
        return zh ? `最多为 ${bound}` : `can be at most ${bound}`;
      }
      if (issue.inclusive === false) return zh ? `必须大于 ${bound}` : `must be more than ${bound}`;
      return zh ? `至少为 ${bound}` : `must be at least ${bound}`;
    }
    case "invalid_type":
      if (issue.missing) return zh ? "缺失" : "is missing";
      if (issue.expected === "int") return zh ? "必须是整数" : "must be a whole number";
      if (issue.expected === "number") return zh ? "应该是数字" : "should be a number";
      if (issue.expected === "string") return zh ? "应该是文字" : "should be text";
      return zh ? "格式不对" : "is in the wrong form";
    case "unrecognized_keys":
      return zh ? "带了无法识别的字段" : "has a field the shop doesn't know";
    case "invalid_value":
      return zh ? "不是可选的值" : "isn't one of the choices";
    case "not_multiple_of":
      return zh ? "必须是整数" : "must be a whole number";
    default:
      return zh ? "无效" : "isn't valid";
  }
}

/** "Aero Trail Runner (size US 10, Volt)" from a rule's facts; "that item" without a name. */
function itemOf(params: Params, lang: Lang, book: NameBook): string {
  const id = text(params, "productId");
  const name = text(params, "name") ?? (id ? book.get(id)?.name : undefined);
  const size = text(params, "size");
  const color = text(params, "color");
  const variant = [
    ...(size ? [pick(lang, `size ${size}`, `${size} 码`)] : []),
    ...(color ? [colorName(color, lang)] : []),
  ];
  const base = name ?? pick(lang, "that item", "这件商品");
  if (variant.length === 0) return base;
  return lang === "zh" ? `${base}（${variant.join("，")}）` : `${base} (${variant.join(", ")})`;
}

/** What a product still needs chosen, from a `variant_required` choice. */
function choiceSentence(choice: unknown, lang: Lang): string | undefined {
  if (typeof choice !== "object" || choice === null) return undefined;
  const c = choice as Params;
  const name = text(c, "name");
  const missing = texts(c, "missing");
  if (!name) return undefined;
  const size = missing.includes("size");
  const color = missing.includes("color");
  const what = pick(
    lang,
    size && color ? "a size and a colour" : size ? "a size" : "a colour",
    size && color ? "尺码和颜色" : size ? "尺码" : "颜色",
  );
  return pick(lang, `${what} for ${name}`, `${name} 的${what}`);
}

/**
 * The sentence for a failed call's `problem`; `undefined` for a code this page has no words for
 * (the caller then says plainly that it could not be done).
 */
export function problemSentence(
  problem: ToolProblem,
  lang: Lang,
  book: NameBook,
): string | undefined {
  const said = sentenceOf(problem, lang, book);
  return said !== undefined && lang === "zh" ? spacedChinese(said) : said;
}

/**
 * Chinese with a space between Han characters and Latin words or figures ("请先选择 Aero Trail
 * Runner 的尺码"), none after a full-width bracket.
 */
function spacedChinese(text: string): string {
  return text
    .replace(/([\u4e00-\u9fff])([A-Za-z0-9$])/g, "$1 $2")
    .replace(/([A-Za-z0-9.])([\u4e00-\u9fff])/g, "$1 $2")
    .replace(/([）」])\s+/g, "$1");
}

function sentenceOf(problem: ToolProblem, lang: Lang, book: NameBook): string | undefined {
  const p: Params = problem.params ?? {};
  const zh = lang === "zh";
  const item = () => itemOf(p, lang, book);
  switch (problem.code) {
    case "invalid_input": {
      const issues = Array.isArray(p.issues) ? (p.issues as InputIssue[]) : [];
      const sentences = issues.filter(isIssue).map((issue) => issueSentence(issue, lang));
      if (sentences.length > 0) return sentences.join(zh ? "" : " ");
      return pick(
        lang,
        "The request was not in a form the shop accepts, so nothing was done.",
        "请求的格式不对，所以什么也没做。",
      );
    }
    case "invalid_json":
      return pick(
        lang,
        "The assistant's request came out garbled, so nothing was done.",
        "助手的请求格式有误，所以什么也没做。",
      );
    case "input_cut":
      return pick(
        lang,
        "The request was cut off, so nothing was done.",
        "请求被截断了，所以什么也没做。",
      );
    case "unknown_tool":
      return pick(lang, "The shop has no such action.", "商店没有这个功能。");
    case "timeout":
      return pick(lang, "It took too long and was stopped.", "用时太长，已被停止。");
    case "quantity_out_of_range": {
      const max = whole(p, "max");
      const quantity = whole(p, "wouldHold") ?? whole(p, "quantity");
      if (quantity !== undefined && quantity < 1) {
        return pick(lang, "A cart line needs at least 1.", "每件商品至少要放 1 件。");
      }
      if (max === undefined) return pick(lang, "That quantity isn't allowed.", "这个数量不行。");
      return pick(lang, `A cart line holds at most ${max}.`, `每件商品最多只能放 ${max} 件。`);
    }
    case "insufficient_stock": {
      const available = whole(p, "available") ?? 0;
      if (available <= 0) return pick(lang, `${item()} is out of stock.`, `${item()} 已售罄。`);
      return pick(
        lang,
        `Only ${available} × ${item()} left in stock.`,
        `${item()} 只剩 ${available} 件库存。`,
      );
    }
    case "over_limit": {
      const limit = whole(p, "limitCents");
      const room = whole(p, "room");
      const cap = limit === undefined ? "" : formatCents(limit);
      const head = pick(
        lang,
        `That would take the cart over its ${cap} limit.`,
        `这样购物车总额会超过 ${cap}。`,
      );
      if (room !== undefined && room > 0) {
        return `${head}${pick(lang, ` At most ${room} more would fit.`, `最多还能再放 ${room} 件。`)}`;
      }
      return `${head}${pick(lang, " Remove something first.", "请先移除一些商品。")}`;
    }
    case "invalid_variant": {
      const sizes = texts(p, "sizes");
      const colors = texts(p, "colors");
      const name = itemOf({ ...p, size: undefined, color: undefined }, lang, book);
      const size = text(p, "size");
      const color = text(p, "color");
      if (size !== undefined && sizes.length === 0) {
        return pick(lang, `${name} comes in one size only.`, `${name} 只有一个尺码。`);
      }
      if (size !== undefined) {
        return pick(
          lang,
          `${name} doesn't come in size ${size} (sizes: ${sizes.join(", ")}).`,
          `${name} 没有 ${size} 码（有：${sizes.join("、")}）。`,
        );
      }
      const named = colors.map((c) => colorName(c, lang));
      return pick(
        lang,
        `${name} doesn't come in ${color ?? "that colour"} (colours: ${named.join(", ")}).`,
        `${name} 没有${color ? ` ${colorName(color, lang)} ` : "这个"}颜色（有：${named.join("、")}）。`,
      );
    }
    case "variant_required": {
      const choices = Array.isArray(p.choices) ? p.choices : [];
      const needs = choices.flatMap((c) => choiceSentence(c, lang) ?? []);
      if (needs.length === 0) return pick(lang, "Choose a size first.", "请先选择尺码。");
      return pick(lang, `Choose ${needs.join("; ")} first.`, `请先选择${needs.join("；")}。`);
    }
    case "ambiguous_line": {
      const lines = Array.isArray(p.lines) ? p.lines.length : 0;
      const name = itemOf({ ...p, size: undefined, color: undefined }, lang, book);
      return pick(
        lang,
        `Your cart has ${name} in ${lines > 1 ? lines : "several"} sizes or colours: say which one.`,
        `购物车里有${lines > 1 ? ` ${lines} ` : "几"}种规格的 ${name}，请说明是哪一件。`,
      );
    }
    case "not_in_cart":
      return pick(lang, `${item()} is not in your cart.`, `购物车里没有 ${item()}。`);
    case "empty_cart":
      return pick(lang, "Your cart is empty: add something first.", "购物车是空的，先加点东西吧。");
    case "unknown_product":
      return pick(lang, "That product isn't in the catalog.", "目录里没有这件商品。");
    case "unknown_order":
      return pick(lang, "There is no such order of yours.", "没有找到您的这个订单。");
    case "invalid_price":
      return pick(lang, "That price isn't allowed.", "这个价格不行。");
    case "invalid_quantity":
      return pick(lang, "That number of units isn't allowed.", "这个数量不行。");
    case "invalid_discount":
      return pick(lang, "That discount isn't allowed.", "这个折扣不行。");
    case "unknown_category":
      return pick(lang, "The catalog has no such category.", "目录里没有这个类别。");
    case "invalid_edit":
      return pick(lang, "That change can't be made as written.", "这个修改无法按原样进行。");
    case "name_taken":
      return pick(lang, "Another product already has that name.", "已有商品使用这个名称。");
    case "too_many_products":
      return pick(
        lang,
        "That change covers too many products at once.",
        "这个修改一次涉及的商品太多了。",
      );
    default:
      return undefined;
  }
}

function isIssue(value: unknown): value is InputIssue {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as InputIssue).code === "string" &&
    Array.isArray((value as InputIssue).path)
  );
}
