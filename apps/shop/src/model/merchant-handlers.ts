/**
 * The merchant's actions, one handler per kind of request, looked up in one table: what each
 * does (tool calls with a short lead-in, or a reply) from the request, the tools offered (a
 * shopper's `ask_merchant` reaches a read-only merchant) and this turn's results so far.
 */

import type { SimScript } from "overlap-sim";
import type { Product } from "../domain/catalog.js";
import { formatCents } from "../domain/money.js";
import { countOf } from "../views/count-words.js";
import type { ConversationState, ToolExchange } from "./conversation-state.js";
import { categoryIn, finalAnswer, MAX_BULK, zhFold } from "./merchant-answer.js";
import type { MerchantIntent } from "./merchant-intent.js";
import { catalogIndex } from "./product-resolver.js";
import { call, listedProducts, listOf, pick, say, text } from "./replies.js";

/** What every merchant handler reads. */
interface MerchantContext {
  readonly state: ConversationState;
  readonly zh: boolean;
  /** The tool is offered (a read-only merchant has no changing tools). */
  readonly has: (name: string) => boolean;
  /** The reply when a change is asked of a merchant that cannot make it. */
  readonly cannot: SimScript;
  /** This turn's successful calls of a tool. */
  readonly ran: (name: string) => ToolExchange[];
  readonly done: readonly ToolExchange[];
}

type IntentOf<K extends MerchantIntent["kind"]> = Extract<MerchantIntent, { kind: K }>;
/** The handler of one kind of merchant request. */
type MerchantHandler<K extends MerchantIntent["kind"]> = (
  c: MerchantContext,
  intent: IntentOf<K>,
) => SimScript;

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

function lowStock(c: MerchantContext, intent: IntentOf<"low-stock">): SimScript {
  const { state, zh, has, ran, done } = c;
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

function restock(c: MerchantContext, intent: IntentOf<"restock">): SimScript {
  const { state, zh, has, cannot, ran, done } = c;
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
      ...found.products.map((p) => call("restock", { productId: p.id, quantity: intent.quantity })),
    ],
  };
}

function setPrice(c: MerchantContext, intent: IntentOf<"set-price" | "adjust-price">): SimScript {
  const { state, zh, has, cannot, ran, done } = c;
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

function orders(c: MerchantContext, intent: IntentOf<"orders">): SimScript {
  const { state, has, cannot, ran, done } = c;
  if (!has("list_orders")) return cannot;
  if (ran("list_orders").length > 0) return say(finalAnswer(state, intent, done));
  return { blocks: [call("list_orders", { limit: 10 })] };
}

function sales(c: MerchantContext, intent: IntentOf<"sales">): SimScript {
  const { state, has, cannot, ran, done } = c;
  if (!has("sales_summary")) return cannot;
  if (ran("sales_summary").length > 0) return say(finalAnswer(state, intent, done));
  return { blocks: [call("sales_summary", { top: 5 })] };
}

function inventory(c: MerchantContext, intent: IntentOf<"inventory">): SimScript {
  const { state, zh, done } = c;
  if (done.length > 0) return say(finalAnswer(state, intent, done));
  if (intent.query === undefined)
    return {
      blocks: [text(pick(zh, "Here is the inventory.", "库存如下。")), call("show_inventory", {})],
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

function restockEta(
  c: MerchantContext,
  intent: IntentOf<"restock-eta" | "bulk-discount">,
): SimScript {
  const { state, zh, done } = c;
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

function discount(c: MerchantContext, intent: IntentOf<"discount" | "end-discount">): SimScript {
  const { state, zh, has, cannot, done } = c;
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

function discounts(c: MerchantContext, intent: IntentOf<"discounts">): SimScript {
  const { state, has, cannot, done } = c;
  if (!has("list_discounts")) return cannot;
  if (done.length > 0) return say(finalAnswer(state, intent, done));
  return { blocks: [call("list_discounts", {})] };
}

function rename(c: MerchantContext, intent: IntentOf<"rename" | "describe">): SimScript {
  const { state, zh, has, cannot, done } = c;
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

function greeting(c: MerchantContext, _intent: IntentOf<"greeting">): SimScript {
  const { zh } = c;
  return say(
    pick(
      zh,
      'Hello! I\'m the merchant\'s scripted assistant. Try "what is low on stock? restock it", "show the inventory of trail shoes" or "raise the price of the Aero trail runner by 10%".',
      "您好！我是商家的脚本助手。可以试试「库存不足的商品有哪些？补货」「查看越野跑鞋的库存」或「Aero越野跑鞋涨价10%」。",
    ),
  );
}

function thanks(c: MerchantContext, _intent: IntentOf<"thanks">): SimScript {
  const { zh } = c;
  return say(pick(zh, "You're welcome! Anything else?", "不客气！还有其他需要吗？"));
}

function notUnderstood(c: MerchantContext, _intent: MerchantIntent): SimScript {
  const { zh } = c;
  return say(
    pick(
      zh,
      'I\'m the merchant\'s scripted assistant. I can report low stock and restock it ("what is low on stock? restock it"), show inventory by product or category, change prices ("raise the price of X by 10%"), list orders, summarise sales, and answer restock-date and bulk-discount questions.',
      "我是商家的脚本助手。可以报告低库存并补货、按商品或类别查看库存、修改价格（例如「X涨价10%」）、列出订单、汇总销售，并回答补货日期和批发折扣问题。",
    ),
  );
}

/** Every kind of merchant request and its handler. */
const MERCHANT_HANDLERS: { readonly [K in MerchantIntent["kind"]]: MerchantHandler<K> } = {
  "low-stock": lowStock,
  restock: restock,
  "set-price": setPrice,
  "adjust-price": setPrice,
  orders: orders,
  sales: sales,
  inventory: inventory,
  "restock-eta": restockEta,
  "bulk-discount": restockEta,
  discount: discount,
  "end-discount": discount,
  discounts: discounts,
  rename: rename,
  describe: rename,
  greeting: greeting,
  thanks: thanks,
  unknown: notUnderstood,
};

/** The merchant's step for a request. */
export function merchantAct(
  state: ConversationState,
  intent: MerchantIntent,
  tools: ReadonlySet<string>,
  done: readonly ToolExchange[],
): SimScript {
  const { zh } = state;
  const context: MerchantContext = {
    state,
    zh,
    has: (name) => tools.has(name),
    cannot: say(
      pick(
        zh,
        "I can't do that from here: this assistant can only read stock, restock dates and discounts.",
        "这里无法执行这个操作：此助手只能查询库存、补货日期和折扣。",
      ),
    ),
    ran: (name) => done.filter((x) => x.name === name && !x.isError),
    done,
  };
  const handler = MERCHANT_HANDLERS[intent.kind] as MerchantHandler<typeof intent.kind>;
  return handler(context, intent as never);
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
