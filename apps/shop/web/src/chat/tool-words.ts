/**
 * What each of the shop's tools does, in words, as a table keyed by the tool's name: its action
 * in English (a verb and the rest: "add" + "Aero Trail Runner (size US 10) to your cart" gives
 * "add…", "Adding…" and "Added…") and in Chinese (one phrase: "把 … 加入购物车" gives "正在…" and
 * "已…"), fixed or made by a small function from the call's facts; and, for some, what a finished
 * call found out ("Your total: $120.00 for 2 items"). A tool missing here is said by its name
 * ("Running “tool name”"). Pure: no React, no DOM.
 */

import type { CallView } from "overlap-runtime/client";
import { isRecord } from "../api/types";
import { categoryName } from "../i18n/category-words";
import { colorName } from "../i18n/color-words";
import { discountWords } from "../i18n/discount-words";
import { count, type Lang, pick } from "../i18n/lang";
import type { ProductBook } from "./product-book";

/** What a sentence needs: the language and the names the page knows. */
export interface WordsContext {
  lang: Lang;
  book: ProductBook;
}

/** A call's action in three forms: "add X to your cart", "Adding…", "Added…". */
export interface Phrase {
  base: string;
  ing: string;
  past: string;
}

/** The English verbs the table uses, with their "-ing" and past forms. */
const VERBS = {
  add: ["Adding", "Added"],
  ask: ["Asking", "Asked"],
  change: ["Changing", "Changed"],
  check: ["Checking", "Checked"],
  compare: ["Comparing", "Compared"],
  edit: ["Editing", "Edited"],
  empty: ["Emptying", "Emptied"],
  end: ["Ending", "Ended"],
  fill: ["Filling", "Filled"],
  list: ["Listing", "Listed"],
  look: ["Looking", "Looked"],
  place: ["Placing", "Placed"],
  put: ["Putting", "Put"],
  remove: ["Removing", "Removed"],
  restock: ["Restocking", "Restocked"],
  run: ["Running", "Ran"],
  show: ["Showing", "Showed"],
} as const satisfies Record<string, readonly [ing: string, past: string]>;

/** An English action: a verb of {@link VERBS} and the words after it. */
type English = readonly [verb: keyof typeof VERBS, rest: string];

type Args = Readonly<Record<string, unknown>>;

/** What the table's functions read of a call, in the page's language. */
export interface CallFacts {
  readonly lang: Lang;
  readonly book: ProductBook;
  readonly args: Args;
  /** The product's name, or "an item" when the page does not know it (never its id). */
  readonly name: string;
  readonly quantity: number | undefined;
  /** "2 × Name" (Chinese "Name × 2"), the name alone for one. */
  readonly named: (quantity: number | undefined) => string;
  /** The size and colour asked for, each in words. */
  readonly variantParts: readonly string[];
  /** Those in brackets after a name (" (size US 10, Volt)"), or "". */
  readonly variant: string;
  /** The call's `productIds`, as far as they are ids. */
  readonly ids: readonly string[];
  readonly str: (key: string) => string | undefined;
  readonly num: (key: string) => number | undefined;
}

/** A form fixed, or made from the call's facts. */
type Form<T> = T | ((facts: CallFacts) => T);

/** One tool's words. */
export interface ToolWords {
  readonly en: Form<English>;
  readonly zh: Form<string>;
  /** What a finished call found out, when its cards or result say more than "done". */
  readonly found?: (entry: CallView, ctx: WordsContext) => string | undefined;
}

/** Dollars as the shop writes them: `$100`, `$99.50`. */
function dollars(value: number): string {
  return Number.isInteger(value) ? `$${value}` : `$${value.toFixed(2)}`;
}

/** "A and B", "A, B and C"; Chinese "A 和 B", "A、B 和 C". */
function joinNames(lang: Lang, names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  const head = names.slice(0, -1).join(pick(lang, ", ", "、"));
  return `${head}${pick(lang, " and ", " 和 ")}${names.at(-1)}`;
}

/** "products", or the number of them the call names. */
const someProducts = (f: CallFacts, n: number | undefined) =>
  n !== undefined ? count(f.lang, n, "product") : pick(f.lang, "products", "商品");

/** A price range's words: " under $100", "100 以下的"; "" without bounds. */
function priceWords(f: CallFacts): string {
  const max = f.num("maxPrice");
  const min = f.num("minPrice");
  if (f.lang === "zh") {
    if (max !== undefined && min !== undefined) return `${dollars(min)} 到 ${dollars(max)} 之间的`;
    if (max !== undefined) return `${dollars(max)} 以下的`;
    return min !== undefined ? `${dollars(min)} 以上的` : "";
  }
  if (max !== undefined && min !== undefined) {
    return ` between ${dollars(min)} and ${dollars(max)}`;
  }
  if (max !== undefined) return ` under ${dollars(max)}`;
  return min !== undefined ? ` over ${dollars(min)}` : "";
}

/** The category a discount call names, in words. */
const discountCategory = (f: CallFacts) => {
  const category = f.str("category") ?? "";
  return category ? categoryName(category, f.lang) : pick(f.lang, "a category", "一个品类");
};

/** The stock query a call names: " of boots" (Chinese "“boots”的"), or "". */
const stockOf = (f: CallFacts, lang: Lang) => {
  const query = f.str("query");
  return query ? pick(lang, ` of ${query}`, `“${query}”的`) : "";
};

/** A search's count from its result: "Looked for boots: 3 found". */
function searchFound(entry: CallView, ctx: WordsContext): string | undefined {
  const { lang } = ctx;
  const text = entry.result?.text ?? "";
  const found = /^(\d+) found/.exec(text);
  const p = callPhrase(entry, ctx).past;
  if (found) return pick(lang, `${p}: ${found[1]} found`, `${p}：找到 ${found[1]} 件`);
  if (/^No products match/.test(text)) return pick(lang, `${p}: nothing found`, `${p}：没有找到`);
  return undefined;
}

/** The cart a call's `cart-updated` card shows: "Your cart: 2 items, $120.00". */
function cartFound(entry: CallView, ctx: WordsContext): string | undefined {
  const { lang } = ctx;
  const cartUi = entry.ui.find((u) => u.type === "cart-updated");
  const cart = isRecord(cartUi?.cart) ? cartUi.cart : undefined;
  if (!cart || typeof cart.itemCount !== "number") return undefined;
  if (cart.itemCount === 0) return pick(lang, "Your cart is empty", "购物车是空的");
  return pick(
    lang,
    `Your cart: ${count(lang, cart.itemCount, "item")}, ${String(cart.total ?? "")}`,
    `购物车：共 ${count(lang, cart.itemCount, "item")}，${String(cart.total ?? "")}`,
  );
}

/** The order a checkout placed: "Order placed: 2 items, $120.00". */
function orderFound(entry: CallView, ctx: WordsContext): string | undefined {
  const { lang } = ctx;
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

/** Removing a product from the cart, said the same by both tools that do it. */
const REMOVE: ToolWords = {
  en: (f) => ["remove", `${f.name} from your cart`],
  zh: (f) => `把 ${f.name} 移出购物车`,
};

/** Every tool of the shopper's and the merchant's agents, by name. */
export const TOOL_WORDS: Readonly<Record<string, ToolWords>> = {
  // The shopper's tools.
  search_products: {
    en: (f) => ["look", `for ${f.str("query") ?? f.str("category") ?? "products"}${priceWords(f)}`],
    zh: (f) => {
      // The model searches in English: a Chinese page names the category, not those words.
      const subject = f.str("query") ?? f.str("category");
      const category = f.str("category");
      const said =
        subject && !/[A-Za-z]/.test(subject)
          ? `“${subject}”`
          : category && categoryName(category, "zh") !== category
            ? categoryName(category, "zh")
            : "商品";
      return `查找${priceWords(f)}${said}`;
    },
    found: searchFound,
  },
  get_product: { en: (f) => ["look", `up ${f.name}`], zh: (f) => `查看 ${f.name}` },
  add_to_cart: {
    en: (f) => ["add", `${f.named(f.quantity)}${f.variant} to your cart`],
    zh: (f) => `把 ${f.named(f.quantity)}${f.variant} 加入购物车`,
  },
  update_cart_item: {
    en: (f) => {
      if (f.quantity === 0) return ["remove", `${f.name} from your cart`];
      if (f.quantity !== undefined) {
        return ["change", `${f.name}${f.variant} to ${f.quantity} in your cart`];
      }
      return ["change", `${f.name} to ${f.variantParts.join(", ") || "another option"}`];
    },
    zh: (f) => {
      if (f.quantity === 0) return `把 ${f.name} 移出购物车`;
      if (f.quantity !== undefined) return `把 ${f.name}${f.variant} 改为 ${f.quantity} 件`;
      return `把 ${f.name} 改为 ${f.variantParts.join("，") || "其他选项"}`;
    },
  },
  remove_from_cart: REMOVE,
  clear_cart: {
    en: ["empty", "your cart"],
    zh: "清空购物车",
    found: (entry, { lang }) =>
      /already empty/.test(entry.result?.text ?? "")
        ? pick(lang, "Your cart was already empty", "购物车本来就是空的")
        : undefined,
  },
  view_cart: { en: ["look", "at your cart"], zh: "查看购物车", found: cartFound },
  cart_total: {
    en: ["check", "your total"],
    zh: "计算总价",
    found: (entry, { lang }) => {
      const m = /Cart total: (\$[\d,.]+) for (\d+) items?/.exec(entry.result?.text ?? "");
      if (!m) return undefined;
      const items = count(lang, Number(m[2]), "item");
      return pick(lang, `Your total: ${m[1]} for ${items}`, `总价 ${m[1]}，共 ${items}`);
    },
  },
  checkout: { en: ["place", "your order"], zh: "下单", found: orderFound },
  my_orders: {
    en: ["look", "up your orders"],
    zh: "查询您的订单",
    found: (entry, { lang }) => {
      const text = entry.result?.text ?? "";
      const n = /^(\d+) order/.exec(text);
      if (n) {
        const orders = count(lang, Number(n[1]), "order");
        return pick(lang, `Found ${orders}`, `找到 ${orders}`);
      }
      return /^No orders yet/.test(text) ? pick(lang, "No orders yet", "还没有订单") : undefined;
    },
  },
  show_products: {
    en: (f) => ["show", someProducts(f, f.ids.length > 0 ? f.ids.length : undefined)],
    zh: (f) => `展示${someProducts(f, f.ids.length > 0 ? f.ids.length : undefined)}`,
    found: (entry, { lang }) => {
      const cards = entry.ui.find((u) => u.type === "product-cards");
      if (!cards || !Array.isArray(cards.products)) return undefined;
      const shown = count(lang, cards.products.length, "product");
      return pick(lang, `Showing ${shown}`, `展示了 ${shown}`);
    },
  },
  compare_products: {
    en: (f) => ["compare", comparedNames(f)],
    zh: (f) => `比较 ${comparedNames(f)}`,
  },
  ask_merchant: { en: ["ask", "the merchant"], zh: "询问商家" },
  // The merchant's tools.
  low_stock_report: { en: ["check", "what is low on stock"], zh: "查看库存不足的商品" },
  restock_eta: {
    en: (f) => ["check", `when ${f.name} is back in stock`],
    zh: (f) => `查询 ${f.name} 的补货时间`,
  },
  bulk_discount: {
    en: (f) => {
      const units = f.num("units");
      return [
        "check",
        `a bulk discount on ${units !== undefined ? `${units} × ${f.name}` : f.name}`,
      ];
    },
    zh: (f) => `查询 ${f.name} 的批量折扣`,
  },
  show_inventory: {
    en: (f) => ["show", `the stock${stockOf(f, "en")}`],
    zh: (f) => `展示${stockOf(f, "zh")}库存`,
  },
  restock: {
    en: (f) => ["restock", f.named(f.quantity)],
    zh: (f) => `为 ${f.name} 补货${f.quantity !== undefined ? ` ${f.quantity} 件` : ""}`,
  },
  set_price: {
    en: (f) => ["change", `the price of ${f.name} to ${newPrice(f)}`],
    zh: (f) => `把 ${f.name} 的价格改为 ${newPrice(f)}`,
  },
  restock_products: {
    en: (f) => {
      const what = restockedProducts(f);
      const upTo = f.num("upTo");
      return upTo !== undefined ? ["fill", `${what} up to ${upTo} each`] : ["restock", what];
    },
    zh: (f) => {
      const what = restockedProducts(f);
      const upTo = f.num("upTo");
      if (upTo !== undefined) return `把 ${what}各补到 ${upTo} 件`;
      return `为 ${what}补货${f.quantity !== undefined ? `，各 ${f.quantity} 件` : ""}`;
    },
  },
  edit_product: { en: (f) => ["edit", f.name], zh: (f) => `修改 ${f.name}` },
  set_discount: {
    en: (f) => ["put", `${f.num("percent") ?? "a"}% off ${discountCategory(f)}`],
    zh: (f) => {
      const percent = f.num("percent");
      const off = percent !== undefined ? `打${discountWords(percent, "zh")}` : "打折";
      return `${discountCategory(f)}${off}`;
    },
  },
  end_discount: {
    en: (f) => ["end", `the discount on ${discountCategory(f)}`],
    zh: (f) => `结束${discountCategory(f)}的折扣`,
  },
  list_discounts: { en: ["list", "the discounts"], zh: "查看当前折扣" },
  list_orders: { en: ["list", "recent orders"], zh: "列出最近的订单" },
  sales_summary: { en: ["add", "up the sales"], zh: "汇总销售额" },
};

/** The names of the products a comparison names, when the page knows them all. */
function comparedNames(f: CallFacts): string {
  const names = f.ids.map((id) => f.book.get(id)?.name);
  if (names.every((n): n is string => n !== undefined) && names.length >= 2) {
    return joinNames(f.lang, names);
  }
  return someProducts(f, f.ids.length > 0 ? f.ids.length : undefined);
}

/** The price a `set_price` call asks for. */
function newPrice(f: CallFacts): string {
  const price = f.num("price");
  return price !== undefined ? dollars(price) : pick(f.lang, "a new price", "新价格");
}

/** The products a `restock_products` call restocks (any entries counted). */
function restockedProducts(f: CallFacts): string {
  return someProducts(f, Array.isArray(f.args.productIds) ? f.args.productIds.length : undefined);
}

/** A tool the table does not know: said by its name. */
const UNKNOWN = (name: string): ToolWords => {
  const words = name.replace(/[_-]+/g, " ").trim();
  return { en: ["run", `“${words}”`], zh: `执行“${words}”` };
};

/** The phrase of a call, in `ctx.lang`. */
export function callPhrase(entry: CallView, ctx: WordsContext): Phrase {
  const words = TOOL_WORDS[entry.name] ?? UNKNOWN(entry.name);
  const facts = callFacts(entry, ctx);
  if (ctx.lang === "zh") {
    const text = typeof words.zh === "function" ? words.zh(facts) : words.zh;
    // No space between a full-width bracket and the words after it.
    const base = text.replace(/） /g, "）");
    return { base, ing: `正在${base}`, past: `已${base}` };
  }
  const [verb, rest] = typeof words.en === "function" ? words.en(facts) : words.en;
  const [ing, past] = VERBS[verb];
  return { base: `${verb} ${rest}`, ing: `${ing} ${rest}`, past: `${past} ${rest}` };
}

/** What a finished call found out, when its tool says more than "done". */
export function callFound(entry: CallView, ctx: WordsContext): string | undefined {
  return TOOL_WORDS[entry.name]?.found?.(entry, ctx);
}

/** The facts of a call as the table's functions read them. */
function callFacts(entry: CallView, ctx: WordsContext): CallFacts {
  const { lang, book } = ctx;
  const raw = entry.input ?? entry.preview;
  const args: Args = isRecord(raw) ? raw : {};
  const str = (key: string): string | undefined => {
    const v = args[key];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const num = (key: string): number | undefined => {
    const v = args[key];
    return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };
  const id = str("productId");
  const known = id ? book.get(id)?.name : undefined;
  const name = known ?? pick(lang, "an item", "一件商品");
  const named = (q: number | undefined) =>
    q === undefined || q === 1
      ? name
      : known === undefined
        ? pick(lang, `${q} items`, `${q} 件商品`)
        : pick(lang, `${q} × ${known}`, `${known} × ${q}`);
  const size = str("size");
  const color = str("color");
  const variantParts = [
    ...(size ? [pick(lang, `size ${size}`, `尺码 ${size}`)] : []),
    ...(color ? [colorName(color, lang)] : []),
  ];
  const variant = variantParts.length
    ? pick(lang, ` (${variantParts.join(", ")})`, `（${variantParts.join("，")}）`)
    : "";
  const ids = Array.isArray(args.productIds)
    ? args.productIds.filter((x): x is string => typeof x === "string" && x !== "")
    : [];
  return {
    lang,
    book,
    args,
    name,
    quantity: num("quantity"),
    named,
    variantParts,
    variant,
    ids,
    str,
    num,
  };
}
