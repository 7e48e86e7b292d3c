/**
 * The scripted model's sentences written from tool results, in English or Chinese. Every number
 * and name in them is read from the result text the tools returned (their formats are the tools'
 * own, see agents/); a result this module cannot read is quoted as it is, never made up.
 */

import type { SimBlock, SimScript } from "overlap-sim";
import { countOf } from "../views/count-words.js";
import { cartLines, type ToolExchange } from "./conversation-state.js";
import { chineseColorName } from "./zh-lexicon.js";

/** English or Chinese, by the request's language. */
export const pick = (zh: boolean, en: string, cn: string): string => (zh ? cn : en);

export const text = (t: string): SimBlock => ({ type: "text", text: t });
export const call = (name: string, input: Record<string, unknown>): SimBlock => ({
  type: "tool_use",
  name,
  input,
});
export const say = (t: string): SimScript => ({ blocks: [text(t)] });

/** "A and B", "A, B and C" / "A、B和C". */
export function listOf(items: readonly string[], zh: boolean): string {
  if (items.length <= 1) return items.join("");
  return zh
    ? `${items.slice(0, -1).join("、")}和${items.at(-1)}`
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The total line of a cart summary: "2 items, total $103.50" ("1 item, …"). */
function cartTotals(summary: string): { items: string; total: string } | undefined {
  const m = summary.match(/(\d+) items?, total (\$[\d,]+\.\d{2})/);
  return m ? { items: m[1]!, total: m[2]! } : undefined;
}

/** A cart summary as a sentence. */
export function cartSentence(summary: string, zh: boolean): string {
  if (/cart is empty|already empty/i.test(summary))
    return pick(zh, "Your cart is empty.", "您的购物车是空的。");
  const lines = cartLines(summary);
  const totals = cartTotals(summary);
  if (lines.length === 0 || !totals) return summary;
  const variant = (l: (typeof lines)[number]) =>
    [
      l.size ? pick(zh, `size ${l.size}`, `尺码 ${l.size}`) : "",
      l.color ? (zh ? chineseColorName(l.color) : l.color) : "",
    ]
      .filter((p) => p !== "")
      .join(zh ? "，" : ", ");
  const items = lines.map((l) => {
    const v = variant(l);
    return zh
      ? `${l.name} × ${l.quantity}${v ? `（${v}）` : ""}`
      : `${l.quantity} × ${l.name}${v ? ` (${v})` : ""}`;
  });
  return pick(
    zh,
    `Your cart: ${items.join("; ")}. ${countOf(totals.items, "item")}, total ${totals.total}.`,
    `购物车：${items.join("；")}。共 ${totals.items} 件，合计 ${totals.total}。`,
  );
}

/** "Cart total: $207.00 for 4 items (limit $5,000.00)." as a sentence (the limit is the shop's own). */
export function totalSentence(content: string, zh: boolean): string {
  const m = content.match(/Cart total: (\S+) for (\d+) items? \(limit (\S+)\)/);
  if (!m) return content;
  return pick(
    zh,
    `Your cart total is ${m[1]} for ${countOf(m[2]!, "item")}.`,
    `购物车总价 ${m[1]}，共 ${m[2]} 件。`,
  );
}

/** A product (or a cart line) that needs a size or colour chosen, and its choices. */
export interface VariantAsk {
  name: string;
  missing: readonly ("size" | "color")[];
  sizes: readonly string[];
  colors: readonly string[];
}

/**
 * "Which size for the Aero Trail Runner: US 6, US 7, …?" per product, in the request's language.
 * `inCart`: about lines already in the cart ("… in your cart"). The shopper script recognises
 * its own question by these words (see `VARIANT_QUESTION` there).
 */
export function variantQuestion(asks: readonly VariantAsk[], zh: boolean, inCart = false): string {
  return asks
    .map((a) => {
      const size = a.missing.includes("size");
      const color = a.missing.includes("color");
      const what = pick(
        zh,
        size && color ? "size and colour" : size ? "size" : "colour",
        size && color ? "尺码和颜色" : size ? "尺码" : "颜色",
      );
      const where = inCart ? pick(zh, " in your cart", "（购物车里的）") : "";
      const sizes = pick(zh, a.sizes.join(", "), a.sizes.join("、"));
      const colors = pick(
        zh,
        a.colors.length > 1
          ? `${a.colors.slice(0, -1).join(", ")} or ${a.colors.at(-1)}`
          : a.colors.join(""),
        a.colors.map(chineseColorName).join("、"),
      );
      if (zh) {
        const options = size && color ? `尺码：${sizes}；颜色：${colors}` : size ? sizes : colors;
        return `${a.name}${where}要哪个${what}？可选：${options}。`;
      }
      const options =
        size && color ? ` Sizes: ${sizes}; colours: ${colors}.` : `: ${size ? sizes : colors}?`;
      return size && color
        ? `Which ${what} for the ${a.name}${where}?${options}`
        : `Which ${what} for the ${a.name}${where}${options}`;
    })
    .join(zh ? "" : " ");
}

/**
 * The asks of a `variant_required` refusal ("Choose a size (US 9, US 10) and a colour (Slate,
 * Volt) for X; nothing was added." / "Choose … for X (Rust); … before checking out; …").
 */
export function variantAsks(message: string): VariantAsk[] | undefined {
  const m = message.match(
    /^Choose (.+?)(?: before checking out)?; nothing was (?:added|ordered)\.$/,
  );
  if (!m) return undefined;
  return m[1]!.split("; ").flatMap((part) => {
    const g = part.match(
      /^(?:a size \(([^)]*)\))?(?: and )?(?:a colour \(([^)]*)\))? for (.+?)(?: \([^)]*\))?$/,
    );
    if (!g) return [];
    return [
      {
        name: g[3]!,
        missing: [
          ...(g[1] !== undefined ? ["size" as const] : []),
          ...(g[2] !== undefined ? ["color" as const] : []),
        ],
        sizes: g[1]?.split(", ") ?? [],
        colors: g[2]?.split(", ") ?? [],
      },
    ];
  });
}

/** A rule's refusal (the domain's English sentence) in the request's language. */
export function errorSentence(x: ToolExchange, zh: boolean): string {
  const invalid = invalidInputSentence(x.content, zh);
  if (invalid) return invalid;
  const m = x.content;
  // A size or colour to choose: asked, with the choices, instead of reported as a failure.
  const asks = variantAsks(m);
  if (asks && asks.length > 0) return variantQuestion(asks, zh, /before checking out/.test(m));
  // More than a line may hold: the limit in plain words, as the shop's rule means it.
  const tooMany = m.match(/^Quantity must be a whole number from 1 to (\d+) \(got (\d+)\)/);
  if (tooMany && Number(tooMany[2]) > Number(tooMany[1])) {
    return pick(
      zh,
      `You can have at most ${tooMany[1]} of one item in your cart.`,
      `同一件商品在购物车里最多只能放 ${tooMany[1]} 件。`,
    );
  }
  // "The cart already holds…" reads on after the colon in lower case; a product's name keeps its own.
  if (!zh)
    return `I couldn't do that: ${m.replace(/^(The|There|Only|Quantity|Adding|Setting) /, (w) => w.toLowerCase())}`;
  const rules: Array<[RegExp, (g: RegExpMatchArray) => string]> = [
    [/^(.+) is (now )?out of stock/, (g) => `${g[1]} 已售罄。`],
    [
      /^Only (\d+) × (.+?) (?:left )?in stock/,
      (g) => `${g[2]} 只剩 ${g[1]} 件库存，无法满足这个数量。`,
    ],
    [/^(.+) is not in the cart/, (g) => `${g[1]} 不在购物车里。`],
    [/cart is empty/, () => "购物车是空的，请先添加商品再结账。"],
    [
      /^Quantity must be a whole number from 1 to (\d+) \(got (-?\d+)\)/,
      (g) => `每件商品的数量必须在 1 到 ${g[1]} 之间（您要的是 ${g[2]}）。`,
    ],
    [
      /already holds (\d+) × (.+?); adding (\d+) would make (\d+), and a line holds at most (\d+)/,
      (g) =>
        `购物车里已有 ${g[2]} × ${g[1]}，再加 ${g[3]} 件就是 ${g[4]} 件，每件商品最多 ${g[5]} 件。`,
    ],
    [
      /would bring the cart total to (\S+), over the (\S+) limit/,
      (g) => `这样购物车总价会变成 ${g[1]}，超过 ${g[2]} 的上限。`,
    ],
    [
      /^(.+) comes in sizes (.+); there is no size (.+)\.$/,
      (g) => `${g[1]} 的尺码有 ${g[2]}，没有 ${g[3]} 码。`,
    ],
    [/^(.+) comes in one size only/, (g) => `${g[1]} 只有均码。`],
    [/^(.+) comes in (.+); not in (.+)\.$/, (g) => `${g[1]} 的颜色有 ${g[2]}，没有 ${g[3]}。`],
    [
      /already holds (.+) in (.+); a cart line holds one (size|colour)/,
      (g) =>
        `购物车里的 ${g[1]} 已选 ${g[2]}；同一商品只能选一种${g[3] === "size" ? "尺码" : "颜色"}，请先修改或删除。`,
    ],
    [/^There is no product (\S+)/, (g) => `没有编号为 ${g[1]} 的商品。`],
    [/^There is no order (\S+)/, (g) => `没有找到订单 ${g[1]}。`],
  ];
  for (const [pattern, render] of rules) {
    const g = m.match(pattern);
    if (g) return `未能完成：${render(g)}`;
  }
  return `未能完成（${x.name}）：${m}`;
}

/** Field names of the tools' arguments in words: [English, Chinese]. */
const FIELD_WORDS: Record<string, [string, string]> = {
  quantity: ["quantity", "数量"],
  productId: ["product", "商品"],
  productIds: ["products", "商品"],
  price: ["price", "价格"],
  maxPrice: ["highest price", "最高价格"],
  minPrice: ["lowest price", "最低价格"],
  size: ["size", "尺码"],
  color: ["colour", "颜色"],
  threshold: ["stock threshold", "库存阈值"],
  limit: ["number of results", "结果数量"],
  units: ["number of units", "件数"],
  query: ["search words", "搜索词"],
  top: ["number of best sellers", "畅销商品数量"],
};

/**
 * The sentence for a call whose arguments failed its tool's schema, or undefined for another
 * result. The model reads the runtime's precise text ("Invalid arguments for add_to_cart: ✖ Too
 * big: expected number to be <=10 → at quantity. Fix them…"); the shopper reads what it means in
 * plain words ("You can have at most 10 of one item in your cart."), never the validation dump.
 */
export function invalidInputSentence(content: string, zh: boolean): string | undefined {
  if (!/^Invalid arguments for \S+: /.test(content)) return undefined;
  const sentences = new Set<string>();
  for (const issue of content.matchAll(/✖ ([^\n]+)(?:\n\s*→ at (\S+))?/g)) {
    // "items[0].quantity." (the last one ends the runtime's sentence): the field is "quantity".
    const path = (issue[2] ?? "").replace(/\.$/, "").replace(/\[\d+\]/g, "");
    sentences.add(issueSentence(issue[1]!, path.split(".").at(-1) ?? "", zh));
  }
  if (sentences.size === 0) {
    sentences.add(pick(zh, "Something in that request wasn't valid.", "请求里有无效的内容。"));
  }
  return [...sentences].join(zh ? "" : " ");
}

/** One schema issue ("Too big: expected number to be <=10", at `field`) as a sentence. */
function issueSentence(issue: string, field: string, zh: boolean): string {
  const big = issue.match(/^Too big: expected (\w+) to (?:be|have) <(=?)(\d+)/);
  const small = issue.match(/^Too small: expected (\w+) to (?:be|have) >(=?)(\d+)/);
  if (field === "quantity" && big) {
    return pick(
      zh,
      `You can have at most ${big[3]} of one item in your cart.`,
      `同一件商品在购物车里最多只能放 ${big[3]} 件。`,
    );
  }
  if (field === "quantity" && small) {
    return small[2] === "=" && small[3] === "0"
      ? pick(zh, "A quantity can't be negative.", "数量不能是负数。")
      : pick(zh, "The quantity must be at least 1.", "数量至少是 1 件。");
  }
  if (field === "productIds" && small) {
    return pick(
      zh,
      `Pick at least ${small[3]} products to compare.`,
      `请至少选 ${small[3]} 款商品来比较。`,
    );
  }
  const [en, cn] = FIELD_WORDS[field] ?? [
    field.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase() || "request",
    field || "请求",
  ];
  if (big) {
    const unit = big[1] === "string" ? " characters" : big[1] === "array" ? " items" : "";
    return pick(
      zh,
      `The ${en} can be at most ${big[3]}${unit}.`,
      `${cn}最多为 ${big[3]}${big[1] === "string" ? " 个字符" : ""}。`,
    );
  }
  if (small) {
    if (small[1] === "number" && small[2] === "" && small[3] === "0") {
      return pick(zh, `The ${en} must be more than 0.`, `${cn}必须大于 0。`);
    }
    const unit = small[1] === "string" ? " characters" : small[1] === "array" ? " items" : "";
    return pick(
      zh,
      `The ${en} must be at least ${small[3]}${unit}.`,
      `${cn}至少为 ${small[3]}${small[1] === "string" ? " 个字符" : ""}。`,
    );
  }
  if (/expected int\b/.test(issue)) {
    return pick(zh, `The ${en} must be a whole number.`, `${cn}必须是整数。`);
  }
  return pick(zh, `The ${en} isn't valid.`, `${cn}无效。`);
}

/** What a cart change did, from its result ("Added 2 × X (size US 10). Cart: …"). */
export function cartChangeSentence(x: ToolExchange, zh: boolean): string {
  const head = x.content.split(" Cart:")[0]!.split(" The cart is empty")[0]!.trim();
  let g: RegExpMatchArray | null;
  if (!zh) {
    g = head.match(/^(.+) now (\d+)(?: \((.+)\))?\.$/);
    if (g) return `Done: ${g[2]} × ${g[1]}${g[3] ? ` (${g[3]})` : ""} in your cart now.`;
    g = head.match(/^Removed (.+)\.$/);
    if (g) return `Removed the ${g[1]} from your cart.`;
    if (/^Emptied the cart/.test(head)) return "Done, your cart is now empty.";
    return head;
  }
  g = head.match(/^Added (\d+) × (.+?)(?: \((.+)\))?\.$/);
  if (g) return `已加入购物车：${g[2]} × ${g[1]}${g[3] ? `（${variantZh(g[3])}）` : ""}。`;
  g = head.match(/^Removed (.+)\.$/);
  if (g) return `已从购物车删除 ${g[1]}。`;
  g = head.match(/^(.+) now (\d+)(?: \((.+)\))?\.$/);
  if (g) return `${g[1]} 已改为 ${g[2]} 件${g[3] ? `（${variantZh(g[3])}）` : ""}。`;
  g = head.match(/^Emptied the cart/);
  if (g) return "购物车已清空。";
  if (/already empty/.test(head)) return "购物车本来就是空的。";
  return head;
}

/** "size US 10, Volt" → "尺码 US 10，荧光绿": the colour named as the chip and the cart name it. */
function variantZh(variant: string): string {
  return variant
    .split(", ")
    .map((part) => (part.startsWith("size ") ? `尺码 ${part.slice(5)}` : chineseColorName(part)))
    .join("，");
}

/** An order placed, from checkout's result. */
export function orderSentence(content: string, zh: boolean): string {
  const m = content.match(
    /^Order (\S+) placed: (\d+) items?, (\$[\d,]+\.\d{2})\.(?: Price changes: (.+)\.)?/,
  );
  if (!m) return content;
  const changes = m[4];
  return pick(
    zh,
    `Done! Order ${m[1]} is placed: ${countOf(m[2]!, "item")}, ${m[3]}.${changes ? ` Note the price changes since you added them: ${changes}.` : ""} Thank you!`,
    `下单成功！订单 ${m[1]}：共 ${m[2]} 件，合计 ${m[3]}。${changes ? `注意有商品价格变化：${changes}。` : ""}谢谢惠顾！`,
  );
}

/** The shopper's orders, from my_orders' result. */
/** "1 × X (size M, Charcoal), 2 × Y" in Chinese: "X × 1（尺码 M，Charcoal）、Y × 2". */
function zhLines(lines: string): string {
  return lines
    .split(/, (?=\d+ × )/)
    .map((line) => {
      const m = line.match(/^(\d+) × (.+?)(?: \((.+)\))?$/);
      if (!m) return line;
      const variant = m[3]
        ?.replace(/^size /, "尺码 ")
        .replace(/, size /, "，尺码 ")
        .replace(/, /g, "，");
      return `${m[2]} × ${m[1]}${variant ? `（${variant}）` : ""}`;
    })
    .join("、");
}

export function ordersSentence(content: string, zh: boolean): string {
  if (/^No orders yet/.test(content))
    return pick(
      zh,
      // The shopper's orders from every chat of theirs: not only this one's.
      "You haven't placed any orders yet.",
      "您还没有下过订单。",
    );
  const orders = [
    ...content.matchAll(
      /(o-\S+) placed (\S+ \S+) UTC: (.+?); (\d+) items?, (\$[\d,]+\.\d{2})\. Status: (.+?)\./g,
    ),
  ];
  if (orders.length === 0) return content;
  const lines = orders.map((o) =>
    pick(
      zh,
      `${o[1]} (${o[2]} UTC): ${o[3]} — ${countOf(o[4]!, "item")}, ${o[5]}; status: ${o[6]}.`,
      `${o[1]}（${o[2]}，世界协调时）：${zhLines(o[3]!)}，共 ${o[4]} 件，${o[5]}；状态：已下单并付款（本店不跟踪物流）。`,
    ),
  );
  return pick(
    zh,
    `${orders.length === 1 ? "Your order" : `Your ${orders.length} orders, newest first`}:\n${lines.join("\n")}`,
    `${orders.length === 1 ? "您的订单" : `您的 ${orders.length} 个订单（最新的在前）`}：\n${lines.join("\n")}`,
  );
}

/** A product as get_product returned it (JSON of the product view). */
export interface ProductFacts {
  id: string;
  name: string;
  brand: string;
  category: string;
  price: string;
  stock: number;
  rating: number;
  description: string;
  sizes: string[];
  colors: string[];
}

export function productFacts(content: string): ProductFacts | undefined {
  try {
    const value = JSON.parse(content) as ProductFacts;
    return typeof value.name === "string" && typeof value.stock === "number" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A size range: "US 6–US 13" for many, "S, M, L" for a few. */
function sizeRange(sizes: readonly string[]): string {
  return sizes.length > 4 ? `${sizes[0]}–${sizes.at(-1)}` : sizes.join(", ");
}

/** The catalog's categories in Chinese. */
const CATEGORY_ZH: Readonly<Record<string, string>> = {
  "Running Shoes": "跑鞋",
  Socks: "袜子",
  "Hiking Boots": "登山靴",
  Tops: "上衣",
  Jackets: "外套",
  "Shorts & Tights": "短裤和紧身裤",
  Backpacks: "背包",
  Accessories: "配饰",
  Electronics: "电子产品",
  Hydration: "饮水装备",
  Camping: "露营装备",
  Fitness: "健身器材",
};

/** A category's name in the answer's language. */
export function categoryWords(category: string, zh: boolean): string {
  return zh ? (CATEGORY_ZH[category] ?? category) : category;
}

/** "Tell me more about X". */
export function detailsSentence(p: ProductFacts, zh: boolean): string {
  const stock =
    p.stock > 0
      ? pick(zh, `${p.stock} in stock`, `库存 ${p.stock} 件`)
      : pick(zh, "sold out right now", "目前已售罄");
  const sizes =
    p.sizes.length > 0
      ? pick(zh, ` Sizes ${sizeRange(p.sizes)}.`, `尺码 ${sizeRange(p.sizes)}。`)
      : "";
  const colors = pick(
    zh,
    ` Colours: ${p.colors.join(", ")}.`,
    `颜色：${p.colors.map(chineseColorName).join("、")}。`,
  );
  return pick(
    zh,
    `${p.name} by ${p.brand} (${p.category}): ${p.price}, ${stock}, rated ${p.rating}/5. ${p.description}${sizes}${colors} Want me to add it to your cart?`,
    // The catalog's descriptions are English: a Chinese answer gives the facts without it.
    `${p.name}（${p.brand}，${categoryWords(p.category, true)}）：${p.price}，${stock}，评分 ${p.rating}/5。${sizes}${colors}需要加入购物车吗？`,
  );
}

/** "Do you have it in size 10?" / "is it in stock?", from the product's facts. */
export function availabilitySentence(
  p: ProductFacts,
  ask: { size?: string; color?: string; sizeName?: string; colorName?: string },
  zh: boolean,
): string {
  if (p.stock <= 0)
    return pick(
      zh,
      `Sorry, the ${p.name} is sold out right now. I can ask the merchant when it will be back in stock.`,
      `抱歉，${p.name} 目前已售罄。我可以帮您问商家什么时候补货。`,
    );
  if (ask.size !== undefined && ask.sizeName === undefined) {
    return p.sizes.length === 0
      ? pick(
          zh,
          `The ${p.name} comes in one size only (${p.stock} in stock).`,
          `${p.name} 只有均码（库存 ${p.stock} 件）。`,
        )
      : pick(
          zh,
          `The ${p.name} doesn't come in size ${ask.size}; it comes in ${sizeRange(p.sizes)}.`,
          `${p.name} 没有 ${ask.size} 码，尺码范围是 ${sizeRange(p.sizes)}。`,
        );
  }
  if (ask.color !== undefined && ask.colorName === undefined) {
    return pick(
      zh,
      `The ${p.name} doesn't come in ${ask.color}; it comes in ${p.colors.join(", ")}.`,
      `${p.name} 没有${chineseColorName(ask.color)}，可选颜色：${p.colors.map(chineseColorName).join("、")}。`,
    );
  }
  const variant = [
    ask.sizeName ? pick(zh, `size ${ask.sizeName}`, `${ask.sizeName} 码`) : "",
    ask.colorName ?? "",
  ]
    .filter((v) => v !== "")
    .join(zh ? "、" : ", ");
  return variant
    ? pick(
        zh,
        `Yes — the ${p.name} comes in ${variant}, and ${p.stock} are in stock (stock is counted per product, not per size). Want me to add ${p.sizes.length > 0 && /shoe|sock|boot|glove/i.test(p.category) ? "a pair" : "one"} in ${variant}?`,
        `有的，${p.name} 有 ${variant}，库存 ${p.stock} 件（库存按商品计，不分尺码）。要帮您加一件 ${variant} 的吗？`,
      )
    : pick(
        zh,
        `Yes, the ${p.name} is in stock: ${p.stock} available at ${p.price}.${p.sizes.length > 0 ? ` Sizes ${sizeRange(p.sizes)}.` : ""}`,
        `有货，${p.name} 库存 ${p.stock} 件，售价 ${p.price}。${p.sizes.length > 0 ? `尺码 ${sizeRange(p.sizes)}。` : ""}`,
      );
}

/** compare_products' result ("Compared A vs B. Cheapest: A; best rated: B."). */
export function compareSentence(content: string, zh: boolean): string {
  const m = content.match(/^Compared (.+)\. Cheapest: (.+); best rated: (.+)\.$/);
  if (!m) return content;
  if (m[2] === m[3])
    return pick(
      zh,
      `Here's ${m[1]} side by side: the ${m[2]} is both the cheapest and the best rated. Want me to add it?`,
      `${m[1]!.split(" vs ").join(" 与 ")} 的对比如上：${m[2]} 既最便宜，评分也最高。要加入购物车吗？`,
    );
  return pick(
    zh,
    `Here's ${m[1]!.replace(/ vs /g, " vs ")} side by side: the ${m[2]} is the cheapest, the ${m[3]} the best rated. Want me to add one?`,
    `${m[1]!.split(" vs ").join(" 与 ")} 的对比如上：最便宜的是 ${m[2]}，评分最高的是 ${m[3]}。要加入购物车吗？`,
  );
}

/** One product line of a tool result ("Name (p-0001) by Brand, $89.00, 12 in stock, rated 4.6"). */
export interface ListedProduct {
  id: string;
  name: string;
  price: string;
  stock: number;
}

export function listedProducts(content: string): ListedProduct[] {
  return [
    ...content.matchAll(
      /^(.+?) \((p-\d{4})\) by [^,]+, (\$[\d,]+\.\d{2}), (?:(\d+) in stock|sold out)/gm,
    ),
  ].map((m) => ({ name: m[1]!, id: m[2]!, price: m[3]!, stock: Number(m[4] ?? 0) }));
}

/** A stock level in words. */
export function stockWords(p: ListedProduct, zh: boolean): string {
  return p.stock > 0
    ? pick(zh, `${p.name} (${p.stock})`, `${p.name}（${p.stock} 件）`)
    : pick(zh, `${p.name} (sold out)`, `${p.name}（已售罄）`);
}
