/**
 * The merchant side of the scripted model (and the read-only merchant a shopper's `ask_merchant`
 * reaches). Products are found with the same resolver as the shopper's; a request by category
 * ("inventory of trail shoes", "restock all socks") covers every product the words describe. A
 * change to more than one product is one call the merchant confirms (`restock_products`,
 * `set_discount`, `end_discount`), never a call per product. Steps that need a current number (a
 * price to raise by 10%) read it from a tool first, then act on what the tool said.
 */

import type { SimScript } from "overlap-sim";
import type { Product } from "../domain/catalog.js";
import { formatCents } from "../domain/money.js";
import { countOf } from "../views/count-words.js";
import { type ConversationState, type ToolExchange, turnExchanges } from "./conversation-state.js";
import { type MerchantIntent, readMerchantIntent } from "./merchant-intent.js";
import { catalogIndex } from "./product-resolver.js";
import { merchantNumberQuestion } from "./reading/merchant-numbers.js";
import {
  call,
  categoryWords,
  errorSentence,
  listedProducts,
  listOf,
  pick,
  say,
  stockWords,
  text,
} from "./replies.js";

/** The merchant's next response. */
export function merchantScript(
  conversation: ConversationState,
  tools: ReadonlySet<string>,
): SimScript {
  // A merchant who writes Chinese words around English product names ("把 Aero Trail Runner
  // 改名为 …") is answered in Chinese, as the page turns Chinese for them; a quoted new name in
  // Chinese does not count.
  const unquoted = conversation.userText.replace(/["“「『][^"”」』]*["”」』]/g, " ");
  const state = conversation.zh
    ? conversation
    : { ...conversation, zh: /[\u3400-\u9fff]/.test(unquoted) };
  const done = turnExchanges(state);
  // A number no change can take is asked about before anything is read as a change.
  const numbers = done.length === 0 ? merchantNumberQuestion(state.userText, state.zh) : undefined;
  if (numbers) return say(numbers);
  const intent = readMerchantIntent(state.userText);
  const next = act(state, intent, tools, done);
  const calls = next.blocks.filter((b) => b.type === "tool_use");
  // Never call again what this turn already called: answer with what is known instead.
  if (calls.length > 0 && calls.every((c) => done.some((x) => x.name === c.name)))
    return say(finalAnswer(state, intent, done));
  return next;
}

const index = () => catalogIndex();
const MAX_PRODUCTS = 20;

/** The products a merchant's words mean: one product, or every product of a description. */
function productsFor(
  query: string,
  zh: boolean,
  options: { many: boolean },
): { ok: true; products: Product[] } | { ok: false; say: string } {
  if (query === "")
    return { ok: false, say: pick(zh, "Which product do you mean?", "您指的是哪件商品？") };
  if (options.many) {
    const all = index().matchAll(query);
    if (all.length > 0) return { ok: true, products: all.slice(0, MAX_PRODUCTS) };
  }
  const resolution = index().resolve(query);
  if (resolution.kind === "found") return { ok: true, products: [resolution.product] };
  if (resolution.kind === "ambiguous") {
    const names = resolution.candidates.slice(0, 3).map((p) => p.name);
    return {
      ok: false,
      say: pick(
        zh,
        `"${query}" fits ${resolution.total} products (${listOf(names, false)}${resolution.total > 3 ? ", ..." : ""}). Which one? Or say "all ${query}".`,
        `「${query}」对应 ${resolution.total} 款商品（${listOf(names, true)}${resolution.total > 3 ? "等" : ""}）。是哪一款？也可以说「全部${query}」。`,
      ),
    };
  }
  return {
    ok: false,
    say: resolution.closest
      ? pick(
          zh,
          `I couldn't find "${query}". The closest is the ${resolution.closest.name}; is that the one?`,
          `没有找到「${query}」。最接近的是 ${resolution.closest.name}，是这款吗？`,
        )
      : pick(zh, `I couldn't find "${query}" in the catalog.`, `目录里没有找到「${query}」。`),
  };
}

function act(
  state: ConversationState,
  intent: MerchantIntent,
  tools: ReadonlySet<string>,
  done: readonly ToolExchange[],
): SimScript {
  const { zh } = state;
  const has = (name: string) => tools.has(name);
  const cannot = say(
    pick(
      zh,
      "I can't do that from here: this assistant can only read stock, restock dates and discounts.",
      "这里无法执行这个操作：此助手只能查询库存、补货日期和折扣。",
    ),
  );
  const ran = (name: string) => done.filter((x) => x.name === name && !x.isError);
  switch (intent.kind) {
    case "low-stock": {
      const report = ran("low_stock_report").at(-1);
      const threshold = intent.threshold ?? 5;
      if (!report)
        return {
          blocks: [
            text(pick(zh, "Checking stock levels.", "正在检查库存。")),
            call("low_stock_report", { threshold }),
          ],
        };
      if (intent.restock && has("restock_products") && ran("restock_products").length === 0) {
        const listed = listedProducts(report.content).filter(
          (p) => intent.target === undefined || p.stock < intent.target,
        );
        if (listed.length > 0) return restockMany(listed, intent, zh);
      }
      return say(finalAnswer(state, intent, done));
    }
    case "restock": {
      if (!has("restock")) return cannot;
      if (ran("restock").length > 0 || ran("restock_products").length > 0)
        return say(finalAnswer(state, intent, done));
      const found = productsFor(intent.query, zh, { many: intent.all === true });
      if (!found.ok) return say(found.say);
      // Several products, or a level to fill up to: one call, from the stock as it is then.
      if (found.products.length > 1 || intent.target !== undefined)
        return restockMany(found.products, intent, zh);
      return {
        blocks: [
          text(
            pick(
              zh,
              `Restocking ${listOf(
                found.products.slice(0, 3).map((p) => p.name),
                false,
              )}${found.products.length > 3 ? ` and ${found.products.length - 3} more` : ""} with ${countOf(intent.quantity, "unit")} each.`,
              `为 ${listOf(
                found.products.slice(0, 3).map((p) => p.name),
                true,
              )}${found.products.length > 3 ? ` 等 ${found.products.length} 款商品` : ""}各补货 ${intent.quantity} 件。`,
            ),
          ),
          ...found.products.map((p) =>
            call("restock", { productId: p.id, quantity: intent.quantity }),
          ),
        ],
      };
    }
    case "set-price":
    case "adjust-price": {
      if (!has("set_price")) return cannot;
      if (ran("set_price").length > 0) return say(finalAnswer(state, intent, done));
      const found = productsFor(intent.query, zh, { many: false });
      if (!found.ok) return say(found.say);
      const product = found.products[0]!;
      if (intent.kind === "set-price")
        return {
          blocks: [
            text(
              pick(
                zh,
                `Setting the price of the ${product.name} to ${formatCents(intent.priceCents)}.`,
                `把 ${product.name} 的价格改为 ${formatCents(intent.priceCents)}。`,
              ),
            ),
            call("set_price", { productId: product.id, price: intent.priceCents / 100 }),
          ],
        };
      // The current price comes from a tool, not from memory.
      const inventory = ran("show_inventory").at(-1);
      if (!inventory)
        return {
          blocks: [
            text(
              pick(
                zh,
                `Checking the current price of the ${product.name}.`,
                `先查一下 ${product.name} 的当前价格。`,
              ),
            ),
            call("show_inventory", { productIds: [product.id] }),
          ],
        };
      const listed = listedProducts(inventory.content).find((p) => p.id === product.id);
      if (!listed) return say(finalAnswer(state, intent, done));
      const current = Math.round(Number(listed.price.replace(/[$,]/g, "")) * 100);
      const next =
        intent.percent !== undefined
          ? Math.round((current * (100 + intent.percent)) / 100)
          : current + (intent.deltaCents ?? 0);
      if (next < 1)
        return say(
          pick(
            zh,
            `That would put the ${product.name} (now ${listed.price}) at ${formatCents(next)}; a price must be at least $0.01.`,
            `这样 ${product.name}（现价 ${listed.price}）会变成 ${formatCents(next)}，价格至少要 $0.01。`,
          ),
        );
      const change =
        intent.percent !== undefined
          ? `${intent.percent > 0 ? "+" : ""}${intent.percent}%`
          : `${(intent.deltaCents ?? 0) > 0 ? "+" : "-"}${formatCents(Math.abs(intent.deltaCents ?? 0))}`;
      return {
        blocks: [
          text(
            pick(
              zh,
              `The ${product.name} costs ${listed.price}; ${change} makes ${formatCents(next)}.`,
              `${product.name} 现价 ${listed.price}，调整 ${change} 后为 ${formatCents(next)}。`,
            ),
          ),
          call("set_price", { productId: product.id, price: next / 100 }),
        ],
      };
    }
    case "orders":
      if (!has("list_orders")) return cannot;
      if (ran("list_orders").length > 0) return say(finalAnswer(state, intent, done));
      return { blocks: [call("list_orders", { limit: 10 })] };
    case "sales":
      if (!has("sales_summary")) return cannot;
      if (ran("sales_summary").length > 0) return say(finalAnswer(state, intent, done));
      return { blocks: [call("sales_summary", { top: 5 })] };
    case "inventory": {
      if (done.length > 0) return say(finalAnswer(state, intent, done));
      if (intent.query === undefined)
        return {
          blocks: [
            text(pick(zh, "Here is the inventory.", "库存如下。")),
            call("show_inventory", {}),
          ],
        };
      const found = productsFor(intent.query, zh, { many: true });
      if (!found.ok) return say(found.say);
      return {
        blocks: [
          text(
            pick(
              zh,
              `Here is the inventory of ${found.products.length === 1 ? `the ${found.products[0]!.name}` : `${found.products.length} products matching "${intent.query}"`}.`,
              `以下是${found.products.length === 1 ? ` ${found.products[0]!.name} ` : `符合「${intent.query}」的 ${found.products.length} 款商品`}的库存。`,
            ),
          ),
          call("show_inventory", { productIds: found.products.map((p) => p.id) }),
        ],
      };
    }
    case "restock-eta":
    case "bulk-discount": {
      if (done.length > 0) return say(finalAnswer(state, intent, done));
      const found = productsFor(intent.query, zh, { many: false });
      if (!found.ok) return say(found.say);
      const id = found.products[0]!.id;
      return {
        blocks: [
          intent.kind === "restock-eta"
            ? call("restock_eta", { productId: id })
            : call("bulk_discount", { productId: id, units: intent.units }),
        ],
      };
    }
    case "discount":
    case "end-discount": {
      const tool = intent.kind === "discount" ? "set_discount" : "end_discount";
      if (!has(tool)) return cannot;
      if (done.some((x) => x.name === tool)) return say(finalAnswer(state, intent, done));
      const where = categoryIn(intent.category, zh);
      return intent.kind === "discount"
        ? {
            blocks: [
              text(
                pick(
                  zh,
                  `Putting ${intent.percent}% off all ${where}. Please confirm the new prices first.`,
                  `把${where}全部打${zhFold(intent.percent)}。请先确认新价格。`,
                ),
              ),
              call("set_discount", { category: intent.category, percent: intent.percent }),
            ],
          }
        : {
            blocks: [
              text(
                pick(
                  zh,
                  `Ending the discount on ${where}. Please confirm the prices first.`,
                  `结束${where}的折扣。请先确认价格。`,
                ),
              ),
              call("end_discount", { category: intent.category }),
            ],
          };
    }
    case "discounts":
      if (!has("list_discounts")) return cannot;
      if (done.length > 0) return say(finalAnswer(state, intent, done));
      return { blocks: [call("list_discounts", {})] };
    case "rename":
    case "describe": {
      if (!has("edit_product")) return cannot;
      if (done.some((x) => x.name === "edit_product")) return say(finalAnswer(state, intent, done));
      const found = productsFor(intent.query, zh, { many: false });
      if (!found.ok) return say(found.say);
      const product = found.products[0]!;
      return intent.kind === "rename"
        ? {
            blocks: [
              text(
                pick(
                  zh,
                  `Renaming the ${product.name} to "${intent.name}".`,
                  `把 ${product.name} 改名为「${intent.name}」。`,
                ),
              ),
              call("edit_product", { productId: product.id, name: intent.name }),
            ],
          }
        : {
            blocks: [
              text(
                pick(
                  zh,
                  `Updating the description of the ${product.name}.`,
                  `更新 ${product.name} 的描述。`,
                ),
              ),
              call("edit_product", { productId: product.id, description: intent.description }),
            ],
          };
    }
    case "greeting":
      return say(
        pick(
          zh,
          'Hello! I\'m the merchant\'s scripted assistant. Try "what is low on stock? restock it", "show the inventory of trail shoes" or "raise the price of the Aero trail runner by 10%".',
          "您好！我是商家的脚本助手。可以试试「库存不足的商品有哪些？补货」「查看越野跑鞋的库存」或「Aero越野跑鞋涨价10%」。",
        ),
      );
    case "thanks":
      return say(pick(zh, "You're welcome! Anything else?", "不客气！还有其他需要吗？"));
    default:
      return say(
        pick(
          zh,
          'I\'m the merchant\'s scripted assistant. I can report low stock and restock it ("what is low on stock? restock it"), show inventory by product or category, change prices ("raise the price of X by 10%"), list orders, summarise sales, and answer restock-date and bulk-discount questions.',
          "我是商家的脚本助手。可以报告低库存并补货、按商品或类别查看库存、修改价格（例如「X涨价10%」）、列出订单、汇总销售，并回答补货日期和批发折扣问题。",
        ),
      );
  }
}

/**
 * One restock of several products (the merchant confirms its table): `quantity` each, or each up
 * to `target` from the stock the tool reads when it runs.
 */
function restockMany(
  products: readonly { id: string; name: string }[],
  intent: { quantity?: number; target?: number },
  zh: boolean,
): SimScript {
  const ids = products.slice(0, MAX_BULK).map((p) => p.id);
  const names = listOf(
    products.slice(0, 3).map((p) => p.name),
    zh,
  );
  const more = products.length > 3 ? products.length - 3 : 0;
  const which = pick(
    zh,
    products.length === 1 ? `the ${names}` : `${names}${more > 0 ? ` and ${more} more` : ""}`,
    products.length === 1 ? names : `${names}${more > 0 ? ` 等 ${products.length} 款商品` : ""}`,
  );
  const input =
    intent.target !== undefined
      ? { productIds: ids, upTo: intent.target }
      : { productIds: ids, quantity: intent.quantity ?? 20 };
  const sentence =
    intent.target !== undefined
      ? pick(
          zh,
          `Filling ${which} up to ${countOf(intent.target, "unit")} each.`,
          `把${which}各补到 ${intent.target} 件。`,
        )
      : pick(
          zh,
          `Restocking ${which} with ${countOf(intent.quantity ?? 20, "unit")} each.`,
          `为${which}各补货 ${intent.quantity ?? 20} 件。`,
        );
  const confirm =
    ids.length > 1 ? pick(zh, " Please confirm the table first.", "请先确认表格。") : "";
  return { blocks: [text(`${sentence}${confirm}`), call("restock_products", input)] };
}

/** The most products one scripted restock covers (the tool takes up to 50). */
const MAX_BULK = 50;

/** The category's name in the answer's language. */
function categoryIn(category: string, zh: boolean): string {
  return zh ? categoryWords(category, true) : category;
}

/** The final answer of a merchant turn, from its results. */
function finalAnswer(
  state: ConversationState,
  intent: MerchantIntent,
  xs: readonly ToolExchange[],
): string {
  const { zh } = state;
  const parts: string[] = [];
  const restocked = xs.filter((x) => x.name === "restock" && !x.isError);
  const bulk = xs.find((x) => x.name === "restock_products" && !x.isError);
  if (bulk) parts.push(bulkRestockSentence(bulk.content, zh));
  if (restocked.length > 0) {
    const items = restocked.flatMap((x) => {
      const m = x.content.match(/^Restocked (.+): now (\d+) units?/);
      return m ? [pick(zh, `${m[1]} (now ${m[2]})`, `${m[1]}（现有 ${m[2]} 件）`)] : [];
    });
    const shown = items.slice(0, 12);
    const more = items.length - shown.length;
    parts.push(
      pick(
        zh,
        `Restocked ${countOf(restocked.length, "product")}: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`,
        `已为 ${restocked.length} 款商品补货：${shown.join("、")}${more > 0 ? `等（另有 ${more} 款）` : ""}。`,
      ),
    );
  }
  for (const x of xs) {
    if (x.isError) {
      parts.push(notApprovedChange(x, zh) ?? errorSentence(x, zh));
      continue;
    }
    switch (x.name) {
      case "low_stock_report":
        if (restocked.length === 0 && !bulk && !xs.some((y) => y.name === "restock_products"))
          parts.push(lowStockSentence(x, zh));
        break;
      case "set_discount":
      case "end_discount":
        parts.push(discountSentence(x.content, zh));
        break;
      case "list_discounts":
        parts.push(discountsSentence(x.content, zh));
        break;
      case "edit_product":
        parts.push(editSentence(x.content, zh));
        break;
      case "show_inventory":
        // A look at the stock or price before a change is not the answer.
        if (intent.kind === "inventory") parts.push(inventorySentence(x, zh));
        break;
      case "set_price": {
        const m = x.content.match(
          /^(.+) now costs (\$[\d,]+\.\d{2}(?: \(\d+% off \$[\d,]+\.\d{2}\))?)/,
        );
        parts.push(
          m
            ? pick(
                zh,
                `Done: the ${m[1]} now costs ${m[2]}.`,
                `已完成：${m[1]} 的价格现在是 ${m[2]}。`,
              )
            : x.content,
        );
        break;
      }
      case "list_orders":
        parts.push(ordersListSentence(x.content, zh));
        break;
      case "sales_summary":
        parts.push(salesSentence(x.content, zh));
        break;
      case "restock_eta":
        parts.push(etaSentence(x.content, zh));
        break;
      case "bulk_discount":
        parts.push(bulkSentence(x.content, zh));
        break;
      default:
        break;
    }
  }
  return parts.join("\n") || pick(zh, "Done.", "完成了。");
}

function lowStockSentence(x: ToolExchange, zh: boolean): string {
  const none = x.content.match(/^No product has (\d+) or fewer/);
  if (none)
    return pick(
      zh,
      `No product has ${none[1]} or fewer units in stock.`,
      `没有库存不多于 ${none[1]} 件的商品。`,
    );
  const threshold = x.content.match(/at or below (\d+)/)?.[1] ?? "5";
  const listed = listedProducts(x.content);
  const shown = listed.slice(0, 12);
  const more = listed.length - shown.length;
  return pick(
    zh,
    `${countOf(listed.length, "product")} ${listed.length === 1 ? "has" : "have"} ${threshold} or fewer units: ${shown.map((p) => stockWords(p, false)).join(", ")}${more > 0 ? ` and ${more} more (see the card)` : ""}. Say "restock them" to add 20 units each.`,
    `有 ${listed.length} 款商品库存不多于 ${threshold} 件：${shown.map((p) => stockWords(p, true)).join("、")}${more > 0 ? `等（其余 ${more} 款见卡片）` : ""}。说「补货」即可各补 20 件。`,
  );
}

function inventorySentence(x: ToolExchange, zh: boolean): string {
  const listed = listedProducts(x.content);
  if (listed.length === 0) return pick(zh, "No products to show.", "没有可显示的商品。");
  if (listed.length === 1) {
    const p = listed[0]!;
    return pick(
      zh,
      p.stock > 0
        ? `The ${p.name} has ${countOf(p.stock, "unit")} in stock, at ${p.price}.`
        : `The ${p.name} is sold out (price ${p.price}).`,
      p.stock > 0
        ? `${p.name} 库存 ${p.stock} 件，售价 ${p.price}。`
        : `${p.name} 已售罄（售价 ${p.price}）。`,
    );
  }
  const lowest = [...listed].sort((a, b) => a.stock - b.stock).slice(0, 3);
  const units = listed.reduce((n, p) => n + p.stock, 0);
  return pick(
    zh,
    `${countOf(listed.length, "product")}, ${countOf(units, "unit")} in all. Lowest stock: ${lowest.map((p) => stockWords(p, false)).join(", ")}.`,
    `共 ${listed.length} 款商品，总库存 ${units} 件。库存最少的：${lowest.map((p) => stockWords(p, true)).join("、")}。`,
  );
}

function ordersListSentence(content: string, zh: boolean): string {
  if (/^No orders yet/.test(content)) return pick(zh, "No orders yet.", "还没有订单。");
  const orders = [...content.matchAll(/^(o-\S+) (\S+): (\d+) items?, (\$[\d,]+\.\d{2})/gm)];
  if (!zh || orders.length === 0)
    return pick(zh, `Recent orders, newest first:\n${content}`, content);
  return `最近的订单（最新的在前）：\n${orders.map((o) => `${o[1]}（${o[2]!.replace("T", " ")}）：${o[3]} 件，${o[4]}`).join("\n")}`;
}

function salesSentence(content: string, zh: boolean): string {
  const m = content.match(
    /^(\d+) orders?, (\d+) items?, revenue (\S+), average (\S+)\.(?: Best sellers: (.+)\.)?/,
  );
  if (!m || !zh) return content;
  return `共 ${m[1]} 个订单、${m[2]} 件商品，营业额 ${m[3]}，平均每单 ${m[4]}。${m[5] ? `畅销商品：${m[5].replace(/; /g, "；")}。` : ""}`;
}

function etaSentence(content: string, zh: boolean): string {
  let m = content.match(/^(.+) is in stock \((\d+) units?\); no restock is pending/);
  if (m)
    return pick(
      zh,
      `The ${m[1]} is in stock (${countOf(m[2]!, "unit")}), so no restock is pending.`,
      `${m[1]} 有货（${m[2]} 件），目前没有待补货。`,
    );
  m = content.match(/^(.+): (\d+) in stock; the next restock arrives in (\d+) days? \((.+)\)/);
  if (m)
    return pick(
      zh,
      `The ${m[1]} has ${m[2]} in stock; the next restock arrives in ${countOf(m[3]!, "day")} (${m[4]}).`,
      `${m[1]} 目前库存 ${m[2]} 件，下一批补货预计 ${m[3]} 天后（${m[4]}）到货。`,
    );
  return content;
}

function bulkSentence(content: string, zh: boolean): string {
  const m = content.match(/^(\d+) × (.+): (\d+)% off, (\S+) instead of (\S+)\./);
  if (!m || !zh) return content;
  return `${m[2]} 买 ${m[1]} 件可享 ${m[3]}% 折扣：${m[4]}（原价 ${m[5]}）。超过 10 件的批量订单需要联系商家。`;
}

/** "9折" for 10% off: the price paid in tenths, as Chinese shops write it. */
function zhFold(percent: number): string {
  return `${Math.round((100 - percent) * 10) / 100}折`;
}

/** A change the merchant declined, or left unanswered: nothing was changed. */
function notApprovedChange(x: ToolExchange, zh: boolean): string | undefined {
  if (/^The user declined this action\./.test(x.content))
    return pick(zh, "OK, nothing was changed.", "好的，没有做任何修改。");
  if (/^No answer from the user in time/.test(x.content))
    return pick(
      zh,
      "Nothing was changed: the change was not confirmed in time.",
      "没有做任何修改：没有及时确认。",
    );
  return undefined;
}

function bulkRestockSentence(content: string, zh: boolean): string {
  const rows = [...content.matchAll(/(?:: |; )([^;:]+?) (\d+) → (\d+)(?=;|\)|\.$)/g)].map((m) => ({
    name: m[1]!.trim(),
    before: Number(m[2]),
    after: Number(m[3]),
  }));
  const changed = rows.filter((r) => r.after > r.before);
  if (/^Nothing to restock/.test(content) || changed.length === 0)
    return pick(
      zh,
      "Nothing to restock: every one already has enough.",
      "不需要补货：这些商品的库存都已足够。",
    );
  const shown = changed.slice(0, 8);
  const more = changed.length - shown.length;
  return pick(
    zh,
    `Restocked ${countOf(changed.length, "product")}: ${shown.map((r) => `${r.name} (${r.before} → ${r.after})`).join(", ")}${more > 0 ? ` and ${more} more (see the table)` : ""}.`,
    `已为 ${changed.length} 款商品补货：${shown.map((r) => `${r.name}（${r.before} → ${r.after}）`).join("、")}${more > 0 ? `等（其余 ${more} 款见表格）` : ""}。`,
  );
}

function discountSentence(content: string, zh: boolean): string {
  const on = content.match(
    /^(\d+)% off (.+?) is in force: (\d+) products? at the sale price \((.+?)(?:;|\))/,
  );
  if (on) {
    const example = on[4]!;
    return pick(
      zh,
      `Done: ${on[1]}% off all ${on[2]}, ${countOf(Number(on[3]), "product")} now at the sale price (for example ${example}).`,
      `已完成：${categoryWords(on[2]!, true)}全部打${zhFold(Number(on[1]))}，${on[3]} 款商品按折后价出售（例如 ${example}）。`,
    );
  }
  const off = content.match(/^The discount on (.+?) ended: (\d+) products?/);
  if (off)
    return pick(
      zh,
      `Done: the discount on ${off[1]} ended; ${countOf(Number(off[2]), "product")} are back at their list price.`,
      `已完成：${categoryWords(off[1]!, true)}的折扣已结束，${off[2]} 款商品恢复原价。`,
    );
  return content;
}

function discountsSentence(content: string, zh: boolean): string {
  if (/^No discount/.test(content)) return pick(zh, "No discount is in force.", "目前没有折扣。");
  const items = [...content.matchAll(/^(\d+)% off (.+?) \((\d+) products?\)$/gm)];
  if (items.length === 0) return content;
  return pick(
    zh,
    `In force: ${items.map((m) => `${m[1]}% off ${m[2]} (${countOf(Number(m[3]), "product")})`).join("; ")}.`,
    `当前折扣：${items.map((m) => `${categoryWords(m[2]!, true)}${zhFold(Number(m[1]))}（${m[3]} 款）`).join("；")}。`,
  );
}

function editSentence(content: string, zh: boolean): string {
  const renamed = content.match(/renamed from "(.+?)" to "(.+?)"/);
  if (renamed)
    return pick(
      zh,
      `Done: the ${renamed[1]} is now called "${renamed[2]}".`,
      `已完成：${renamed[1]} 已改名为「${renamed[2]}」。`,
    );
  const m = content.match(/^(.+) \((p-\d{4})\): (.+)\.$/);
  if (m && /new description/.test(m[3]!))
    return pick(zh, `Done: the ${m[1]} has its new description.`, `已完成：${m[1]} 的描述已更新。`);
  return content;
}
