/**
 * The shop's policy for the embedded scripted model (B8): it reads the conversation like a model
 * would (the user's words, the tool results of the last round) and answers with text plus tool
 * calls, in parallel where a real model would, then writes a final answer from the results. It
 * knows the catalog's product names (as a model that saw the catalog would) but every fact it
 * states about prices, stock and the cart comes from tool results. It is a script, not a model,
 * and is labelled so everywhere.
 */

import type { SimBlock, SimPolicy, SimRequest, SimRequestMessage, SimScript } from "overlap-sim";
import { generateCatalog, type Product } from "../domain/catalog.js";
import { searchProducts } from "../domain/search-products.js";
import { isChinese, readMerchantIntent, readShopperIntent } from "./shop-intent.js";

let catalog: Product[] | undefined;
const products = (): Product[] => {
  catalog ??= generateCatalog();
  return catalog;
};

/** A product the request names, by the best catalog match. */
function resolve(query: string): Product | undefined {
  // No words, no product: an empty query must never pick one at random for a side effect.
  if (query.trim() === "") return undefined;
  return searchProducts(products(), { text: query, limit: 1 })[0];
}

interface Round {
  /** The user's text this turn answers. */
  userText: string;
  zh: boolean;
  /** Tool calls of the last assistant message and their results, when the last message holds results. */
  results: Array<{ name: string; input: unknown; content: string; isError: boolean }>;
  /** Product ids shown or found earlier in the conversation, newest first. */
  seenIds: string[];
}

function readRound(request: SimRequest): Round {
  const messages = request.messages;
  const last = messages.at(-1);
  // The newest request: a message that merged an unanswered earlier one (after a crash or a
  // stop) ends with the text the user sent last.
  const userText =
    [...messages]
      .reverse()
      .find((m) => m.role === "user" && m.content.some((b) => b.type === "text"))
      ?.content.flatMap((b) => (b.type === "text" ? [b.text] : []))
      .at(-1) ?? "";
  const results: Round["results"] = [];
  // Tool results followed by new text (a turn that was stopped, then a new request) are history:
  // the new request is what to answer.
  if (last?.role === "user" && !last.content.some((b) => b.type === "text")) {
    const calls = new Map<string, { name: string; input: unknown }>();
    for (const block of messages.at(-2)?.content ?? []) {
      if (block.type === "tool_use") calls.set(block.id, { name: block.name, input: block.input });
    }
    for (const block of last.content) {
      if (block.type !== "tool_result") continue;
      const call = calls.get(block.tool_use_id);
      if (call) results.push({ ...call, content: block.content, isError: block.is_error === true });
    }
  }
  return { userText, zh: isChinese(userText), results, seenIds: seenProductIds(messages) };
}

/** Ids the shopper has seen: from cards shown and search results, newest first. */
function seenProductIds(messages: readonly SimRequestMessage[]): string[] {
  const ids: string[] = [];
  for (const message of [...messages].reverse()) {
    for (const block of [...message.content].reverse()) {
      if (
        block.type === "tool_use" &&
        (block.name === "show_products" || block.name === "compare_products")
      ) {
        const input = block.input as { productIds?: unknown };
        if (Array.isArray(input.productIds))
          ids.push(...input.productIds.filter((x): x is string => typeof x === "string"));
      }
    }
  }
  return [...new Set(ids)];
}

const text = (t: string): SimBlock => ({ type: "text", text: t });
const call = (name: string, input: Record<string, unknown>): SimBlock => ({
  type: "tool_use",
  name,
  input,
});
const say = (t: string): SimScript => ({ blocks: [text(t)] });
const pick = (zh: boolean, en: string, cn: string) => (zh ? cn : en);

/** The shop's policy: the merchant's script when merchant tools are offered, else the shopper's. */
export const shopPolicy: SimPolicy = (request) => {
  const merchant = request.tools.some((t) => t.name === "low_stock_report");
  const round = readRound(request);
  return merchant ? merchantScript(round, request) : shopperScript(round);
};

function shopperScript(round: Round): SimScript {
  const { zh } = round;
  if (round.results.length > 0) return shopperFollowUp(round);
  const intent = readShopperIntent(round.userText);
  switch (intent.kind) {
    case "add": {
      const found = intent.items.map((item) => ({ item, product: resolve(item.query) }));
      const unknown = found.filter((f) => !f.product).map((f) => f.item.query);
      const known = found.filter((f) => f.product);
      if (known.length === 0)
        return say(
          pick(
            zh,
            `I could not find ${unknown.join(" or ")} in the catalog. Try other words?`,
            `目录里没有找到「${unknown.join("、")}」，换个说法试试？`,
          ),
        );
      const names = known.map((f) => f.product!.name).join(pick(zh, " and ", "和"));
      const blocks = [
        text(
          pick(
            zh,
            `I'll add ${names} to your cart${intent.total ? " and then check the total" : ""}.`,
            `好的，我把${names}加入购物车${intent.total ? "，然后算一下总价" : ""}。`,
          ),
        ),
      ];
      for (const f of known)
        blocks.push(call("add_to_cart", { productId: f.product!.id, quantity: f.item.quantity }));
      if (intent.total) blocks.push(call("cart_total", {}));
      return { blocks };
    }
    case "add-shown": {
      const ids = (
        round.seenIds.length > 0
          ? round.seenIds
          : products()
              .slice(0, 2)
              .map((p) => p.id)
      ).slice(0, intent.count);
      const names = ids
        .map((id) => products().find((p) => p.id === id)?.name ?? id)
        .join(pick(zh, " and ", "和"));
      const blocks = [
        text(
          pick(
            zh,
            `Adding ${names} to your cart${intent.total ? ", then the total" : ""}.`,
            `好的，把${names}加入购物车${intent.total ? "，再算一下总价" : ""}。`,
          ),
        ),
      ];
      for (const id of ids) blocks.push(call("add_to_cart", { productId: id, quantity: 1 }));
      if (intent.total) blocks.push(call("cart_total", {}));
      return { blocks };
    }
    case "search": {
      const input: Record<string, unknown> = { query: intent.query || "running shoes", limit: 6 };
      if (intent.maxPriceCents !== undefined) input.maxPrice = intent.maxPriceCents / 100;
      if (intent.minPriceCents !== undefined) input.minPrice = intent.minPriceCents / 100;
      return {
        blocks: [
          text(pick(zh, "Let me look that up.", "我来查一下。")),
          call("search_products", input),
        ],
      };
    }
    case "compare": {
      const ids = round.seenIds.slice(0, Math.max(2, Math.min(4, intent.count)));
      if (ids.length < 2)
        return say(
          pick(
            zh,
            "Which products should I compare? Ask me to show some first.",
            "要比较哪些商品？可以先让我展示几款。",
          ),
        );
      return {
        blocks: [
          text(pick(zh, "Here is a side-by-side comparison.", "下面是对比：")),
          call("compare_products", { productIds: ids }),
        ],
      };
    }
    case "remove": {
      const product = resolve(intent.query);
      if (!product) return say(pick(zh, "Which product should I remove?", "要删除哪件商品？"));
      return { blocks: [call("remove_from_cart", { productId: product.id })] };
    }
    case "view-cart":
      return { blocks: [call("view_cart", {})] };
    case "total":
      return { blocks: [call("cart_total", {})] };
    case "checkout-question":
      return say(
        pick(
          zh,
          "I won't place an order until you ask me to. When you're ready, say \"check out\" and I'll place it for everything in your cart.",
          "在您明确要求之前我不会下单。准备好后请说「结账」，我会为购物车中的全部商品下单。",
        ),
      );
    case "checkout":
      return {
        blocks: [text(pick(zh, "Placing your order now.", "正在为您下单。")), call("checkout", {})],
      };
    case "ask-merchant":
      return {
        blocks: [
          text(pick(zh, "Let me ask the merchant.", "我去问一下商家。")),
          call("ask_merchant", { question: intent.question }),
        ],
      };
    default:
      return say(
        pick(
          zh,
          'I\'m the store\'s scripted shopping assistant. I can search products ("show me running shoes under 100"), show and compare them, add them to your cart and tell you the total ("add the Aero trail runner and the wool socks to my cart and tell me the total"), check out, and ask the merchant about restocks or bulk discounts.',
          "我是商店的脚本购物助手。我可以搜索商品（例如「推荐一些跑鞋 100元以下」）、展示和比较商品、加入购物车并计算总价、结账，还可以向商家询问补货和批发折扣。",
        ),
      );
  }
}

function shopperFollowUp(round: Round): SimScript {
  const { zh, results } = round;
  const failed = results.filter((r) => r.isError);
  const search = results.find((r) => r.name === "search_products");
  if (search && !search.isError) {
    const ids = [...search.content.matchAll(/\((p-\d{4})\)/g)].map((m) => m[1]!).slice(0, 6);
    if (ids.length === 0)
      return say(
        pick(
          zh,
          "Nothing in the catalog matches that. Try other words?",
          "目录里没有匹配的商品，换个说法试试？",
        ),
      );
    const title = pick(
      zh,
      `Results for "${(search.input as { query?: string }).query ?? ""}"`,
      `「${(search.input as { query?: string }).query ?? ""}」的搜索结果`,
    );
    return {
      blocks: [
        text(pick(zh, `I found ${ids.length}. Here they are:`, `找到 ${ids.length} 款，如下：`)),
        call("show_products", { title, productIds: ids }),
      ],
    };
  }
  const parts: string[] = [];
  for (const r of results) {
    if (r.isError) continue;
    if (r.name === "cart_total") parts.push(zh ? totalInChinese(r.content) : r.content);
    else if (r.name === "checkout" || r.name === "ask_merchant" || r.name === "compare_products")
      parts.push(r.content);
    else if (r.name === "show_products")
      parts.push(
        pick(
          zh,
          "Those are the best matches; want me to add any, or compare two?",
          "这些是最匹配的商品；要加入购物车还是比较两款？",
        ),
      );
    else if (r.name === "view_cart") parts.push(r.content);
  }
  const changed = results.filter(
    (r) => !r.isError && /^(add_to_cart|update_cart_item|remove_from_cart)$/.test(r.name),
  );
  if (changed.length > 0 && !results.some((r) => r.name === "cart_total")) {
    const last = changed.at(-1)!.content;
    parts.unshift(last);
  } else if (changed.length > 0) {
    parts.unshift(
      zh
        ? `已加入购物车：${changed
            .map(
              (r) =>
                r.content
                  .match(/Added (\d+) × ([^.]+)\./)
                  ?.slice(1)
                  .reverse()
                  .join(" × ") ?? r.name,
            )
            .join("、")}。`
        : changed.map((r) => r.content.split(" Cart:")[0]).join(" "),
    );
  }
  for (const r of failed)
    parts.push(pick(zh, `Could not do ${r.name}: ${r.content}`, `${r.name} 未完成：${r.content}`));
  return say(parts.join(" ") || pick(zh, "Done.", "完成了。"));
}

/** "Cart total: $207.00 for 4 items (limit $5,000.00)." in Chinese. */
function totalInChinese(text: string): string {
  const m = text.match(/Cart total: (\S+) for (\d+) items \(limit (\S+)\)/);
  return m ? `购物车总价 ${m[1]}，共 ${m[2]} 件（上限 ${m[3]}）。` : text;
}

function merchantScript(round: Round, request: SimRequest): SimScript {
  const { zh } = round;
  const has = (name: string) => request.tools.some((t) => t.name === name);
  if (round.results.length > 0) {
    const intent = readMerchantIntent(round.userText);
    const report = round.results.find((r) => r.name === "low_stock_report");
    if (report && intent.kind === "low-stock" && intent.restock && has("restock")) {
      const ids = [...report.content.matchAll(/\((p-\d{4})\)/g)].map((m) => m[1]!);
      if (ids.length > 0) {
        return {
          blocks: [
            text(
              pick(
                zh,
                `Restocking ${ids.length} product(s) with 20 units each.`,
                `为 ${ids.length} 款商品各补货 20 件。`,
              ),
            ),
            ...ids.map((id) => call("restock", { productId: id, quantity: 20 })),
          ],
        };
      }
    }
    return say(round.results.map((r) => r.content).join("\n"));
  }
  const intent = readMerchantIntent(round.userText);
  const product = () =>
    resolve(round.userText.replace(/when|will|be|back|in stock|restock|bulk|discount|\d+/gi, " "));
  if (
    /back in stock|restock date|when will|什么时候|补货/.test(round.userText.toLowerCase()) &&
    !has("restock")
  ) {
    const p = product();
    if (p) return { blocks: [call("restock_eta", { productId: p.id })] };
  }
  if (/bulk|discount|批发|折扣/.test(round.userText.toLowerCase())) {
    const p = product();
    const units = Number(round.userText.match(/\d+/)?.[0] ?? 10);
    if (p) return { blocks: [call("bulk_discount", { productId: p.id, units })] };
  }
  switch (intent.kind) {
    case "low-stock":
      return {
        blocks: [
          text(pick(zh, "Checking stock levels.", "正在检查库存。")),
          call("low_stock_report", { threshold: 5 }),
        ],
      };
    case "restock": {
      const p = resolve(intent.query);
      if (!p || !has("restock"))
        return say(pick(zh, "Which product should I restock?", "要给哪件商品补货？"));
      return { blocks: [call("restock", { productId: p.id, quantity: intent.quantity })] };
    }
    case "set-price": {
      const p = resolve(intent.query);
      if (!p || !has("set_price"))
        return say(pick(zh, "Which product's price should I change?", "要修改哪件商品的价格？"));
      return { blocks: [call("set_price", { productId: p.id, price: intent.priceCents / 100 })] };
    }
    case "orders":
      return has("list_orders")
        ? { blocks: [call("list_orders", { limit: 10 })] }
        : say("I can't list orders here.");
    case "sales":
      return has("sales_summary")
        ? { blocks: [call("sales_summary", { top: 5 })] }
        : say("I can't show sales here.");
    case "inventory":
      return { blocks: [call("show_inventory", { query: intent.query ?? "" })] };
    default:
      return say(
        pick(
          zh,
          "I'm the merchant's scripted assistant. I can report low stock and restock it (\"what is low on stock? restock it\"), change prices, list orders, summarise sales, and answer restock-date and bulk-discount questions.",
          "我是商家的脚本助手。可以报告低库存并补货、修改价格、列出订单、汇总销售，并回答补货日期和批发折扣问题。",
        ),
      );
  }
}
