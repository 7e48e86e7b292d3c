/** The merchant's answers, written from a turn's results, in the request's language. */

import { countOf } from "../views/count-words.js";
import type { ConversationState, ToolExchange } from "./conversation-state.js";
import type { MerchantIntent } from "./merchant-intent.js";
import { categoryWords, errorSentence, listedProducts, pick, stockWords } from "./replies.js";

/** The most products one scripted restock covers (the tool takes up to 50). */
export const MAX_BULK = 50;

/** The category's name in the answer's language. */
export function categoryIn(category: string, zh: boolean): string {
  return zh ? categoryWords(category, true) : category;
}

/** The final answer of a merchant turn, from its results. */
export function finalAnswer(
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
export function zhFold(percent: number): string {
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
