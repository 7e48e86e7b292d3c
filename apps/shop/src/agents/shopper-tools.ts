/**
 * The shopper agent's tools. The cart and the orders are the shopper's, shared by all of their
 * chats; the tools reach them through the chat's session id. Cart tools run read-check-write
 * under the cart's lock (`store.withCart`), so the cart calls of one round apply in call order
 * (so two cart calls of one round cannot both pass a limit), also when another chat of the shopper changes the cart at the same time. Display tools
 * re-validate their input and fill in live price and stock before the final card.
 */

import {
  type AnyTool,
  defineDelegateTool,
  defineTool,
  type ModelClient,
  type ToolContext,
  type ToolResultSpec,
  type UiEvent,
} from "overlap-runtime";
import { z } from "zod";
import type { CartTransaction, CheckoutResult } from "../db/shop-store.js";
import { withSimulatedLatency } from "../demo/simulated-latency.js";
import {
  addToCart,
  type Cart,
  type CartResult,
  clearCart,
  removeLine,
  updateQuantity,
} from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import { formatCents } from "../domain/money.js";
import { type CheckoutEffect, checkoutEffect, checkout as draftOrder } from "../domain/orders.js";
import { type CartView, cartView, priceLineView } from "../views/cart-view.js";
import { countOf } from "../views/count-words.js";
import { recordCall } from "./call-record.js";
import { ruleResult, unknownProductResult } from "./rule-problem.js";
import type { ShopAgent } from "./shop-agent.js";
import { cartSummary, productLine, productView, variantText } from "./shop-views.js";
import type { ShopToolContext } from "./tool-context.js";

/**
 * The cart's calls run one at a time in the order the model wrote them, even while it still
 * writes: a quick total never overtakes a slow add, and a change never overtakes the checkout.
 */
export const CART_SEQUENCE = "cart";

const productId = z
  .string()
  .min(1)
  .max(40)
  .describe("A product id from search results, like p-0001.");
/**
 * A whole number of units. How many one line may hold is the cart's own rule (its configured
 * per-line maximum), which refuses more naming the product and the limit: the schema does not
 * repeat it.
 */
const quantity = z.number().int().min(1);
const dollars = z.number().positive().max(100_000);
const size = z
  .string()
  .min(1)
  .max(20)
  .describe('One of the product\'s sizes, e.g. "US 10" or "M" ("10" and "medium" are understood).');
const color = z.string().min(1).max(30).describe('One of the product\'s colours, e.g. "Volt".');

/** The shopper's tools; `ask_merchant` runs the merchant agent on the same model. */
export function shopperTools(deps: {
  model: ModelClient;
  merchant: ShopAgent;
}): AnyTool<ShopToolContext>[] {
  // The demo drawer's simulated service latency (a no-op outside a demo scope).
  return withSimulatedLatency([
    defineTool({
      name: "search_products",
      description:
        "Search the catalog by words (name, brand, category), with optional price limits in dollars.",
      input: z.object({
        query: z.string().max(200).default(""),
        maxPrice: dollars.optional(),
        minPrice: dollars.optional(),
        category: z.string().max(60).optional(),
        limit: z.number().int().min(1).max(20).default(8),
      }),
      run: async (input, { context }) => {
        const products = await context.store.searchProducts({
          text: input.query,
          limit: input.limit,
          ...(input.maxPrice !== undefined
            ? { maxPriceCents: Math.round(input.maxPrice * 100) }
            : {}),
          ...(input.minPrice !== undefined
            ? { minPriceCents: Math.round(input.minPrice * 100) }
            : {}),
          ...(input.category ? { category: input.category } : {}),
        });
        if (products.length === 0) return `No products match "${input.query}".`;
        return `${products.length} found:\n${products.map(productLine).join("\n")}`;
      },
    }),
    defineTool({
      name: "get_product",
      description: "Details of one product: price, stock, sizes, colours, rating, description.",
      input: z.object({ productId }),
      run: async ({ productId: id }, { context }) => {
        const product = await context.store.getProduct(id);
        if (!product) return unknownProductResult(`There is no product ${id}.`, [id]);
        return { data: productView(product) };
      },
    }),
    defineTool({
      name: "add_to_cart",
      sequence: CART_SEQUENCE,
      description:
        "Add a product to the cart (quantity 1-10 per line; the cart total has a limit). A product with sizes needs one of its sizes, one with several colours one of its colours: without them nothing is added and the result lists the choices, so ask the shopper which.",
      input: z.object({
        productId,
        quantity: quantity.default(1),
        size: size.optional(),
        color: color.optional(),
      }),
      run: ({ productId: id, quantity: n, size: s, color: c }, ctx) =>
        changeCart(
          ctx,
          (cart, product, rules) => addToCart(cart, product, n, rules, { size: s, color: c }),
          id,
          (p, line) => `Added ${n} × ${p.name}${lineVariant(line)}.`,
        ),
    }),
    defineTool({
      name: "update_cart_item",
      sequence: CART_SEQUENCE,
      description:
        "Change a line already in the cart: its quantity (0 removes it), size or colour; also how to give a line the size or colour it still needs. When the cart holds the product in several sizes or colours, lineSize and lineColor name the line to change (its current size and colour).",
      input: z.object({
        productId,
        quantity: z.number().int().min(0).optional(),
        size: size.optional(),
        color: color.optional(),
        lineSize: size.optional(),
        lineColor: color.optional(),
      }),
      run: ({ productId: id, quantity: n, size: s, color: c, lineSize, lineColor }, ctx) =>
        changeCart(
          ctx,
          (cart, product, rules) =>
            updateQuantity(
              cart,
              product,
              n,
              rules,
              { size: s, color: c },
              {
                size: lineSize,
                color: lineColor,
              },
            ),
          id,
          (p, line) =>
            line === undefined
              ? `Removed ${p.name}.`
              : `${p.name} now ${line.quantity}${lineVariant(line)}.`,
        ),
    }),
    defineTool({
      name: "remove_from_cart",
      sequence: CART_SEQUENCE,
      description:
        "Remove a product from the cart: every line of it, or with size and/or colour only the line in that variant.",
      input: z.object({ productId, size: size.optional(), color: color.optional() }),
      run: ({ productId: id, size: s, color: c }, ctx) =>
        changeCart(
          ctx,
          (cart) => removeLine(cart, id, { size: s, color: c }),
          id,
          (p) => `Removed ${p.name}.`,
        ),
    }),
    defineTool({
      name: "clear_cart",
      sequence: CART_SEQUENCE,
      description: "Remove every line from the cart (only when the shopper asks to empty it).",
      input: z.object({}),
      run: async (_input, ctx) => {
        const { context } = ctx;
        let removed = 0;
        // The reply is built and recorded in the change's transaction (see recordCall).
        const recorded = recordCall(
          ctx,
          async (result: CartResult, tx: CartTransaction): Promise<ToolResultSpec> => {
            const view = await viewIn(tx, result.ok ? result.cart : { lines: [] });
            return {
              text:
                removed === 0
                  ? "The cart was already empty."
                  : `Emptied the cart (${countOf(removed, "line")} removed). ${cartSummary(view)}`,
              events: [{ type: "cart-updated", cart: view }],
            };
          },
        );
        await context.store.withCart(
          context.sessionId,
          (cart) => {
            removed = cart.lines.length;
            return removed === 0 ? ({ ok: true, cart } as const) : clearCart(cart);
          },
          recorded,
        );
        return recorded.replied() ?? { text: "Done." };
      },
    }),
    defineTool({
      name: "my_orders",
      description:
        "The shopper's own orders (from any of their chats), newest first: id, date, lines with size and colour, total and status. Give orderId for one order.",
      input: z.object({
        orderId: z.string().min(1).max(40).optional(),
        limit: z.number().int().min(1).max(20).default(5),
      }),
      run: async ({ orderId, limit }, { context }) => {
        const session = await context.store.getSession(context.sessionId);
        const orders = await context.store.listOrders({
          ...(session?.shopperId
            ? { shopperId: session.shopperId }
            : { sessionId: context.sessionId }),
          limit: orderId ? 50 : limit,
        });
        const chosen = orderId ? orders.filter((o) => o.id === orderId) : orders;
        if (orderId && chosen.length === 0)
          return {
            text: `There is no order ${orderId} of yours.`,
            problem: { code: "unknown_order", params: { orderId } },
          };
        if (chosen.length === 0) return "No orders yet.";
        const lines = chosen.map(
          (o) =>
            `${o.id} placed ${o.createdAt.slice(0, 16).replace("T", " ")} UTC: ${o.lines
              .map((l) => `${l.quantity} × ${l.name}${lineVariant(l)}`)
              .join(
                ", ",
              )}; ${countOf(o.itemCount, "item")}, ${formatCents(o.totalCents)}. Status: placed and paid (shipping is not tracked by this shop).`,
        );
        return `${countOf(chosen.length, "order")}, newest first:\n${lines.join("\n")}`;
      },
    }),
    defineTool({
      name: "view_cart",
      sequence: CART_SEQUENCE,
      description: "The cart's lines, item count and total.",
      input: z.object({}),
      run: async (_input, { context }) => {
        const view = await currentCart(context);
        return { text: cartSummary(view), events: [{ type: "cart-updated", cart: view }] };
      },
    }),
    defineTool({
      name: "cart_total",
      sequence: CART_SEQUENCE,
      description:
        "The cart total. Runs after the cart changes requested before it in the same response.",
      input: z.object({}),
      run: async (_input, { context }) => {
        const view = await currentCart(context);
        return `Cart total: ${view.total} for ${countOf(view.itemCount, "item")} (limit ${view.limit}).`;
      },
    }),
    defineTool({
      name: "checkout",
      sequence: CART_SEQUENCE,
      description:
        "Place the order for everything in the cart. Only when the shopper clearly asks to buy.",
      input: z.object({}),
      // Irreversible: it runs only once the response has ended normally, never on a cut one,
      // and only once the shopper confirmed the order the approval request shows.
      dispatch: "deferred",
      approval: "required",
      // The card shows the order as checkout would place it now (current prices), and that
      // exact effect binds the shopper's Confirm: checkout places nothing else.
      summarize: async (_input, context) => {
        const view = await currentCart(context);
        const draft = await draftOf(context);
        if (!draft.ok) {
          return { text: orderSummaryText(view), details: { type: "order-summary", cart: view } };
        }
        const effect = checkoutEffect(draft.draft);
        const order = orderView(effect, view);
        return {
          text: orderSummaryText(order),
          details: { type: "order-summary", cart: order },
          effect,
        };
      },
      run: async (_input, ctx) => {
        const { context, callId } = ctx;
        // The order and the call's record commit together (see recordCall).
        const recorded = recordCall(
          ctx,
          async (result: CheckoutResult, tx: CartTransaction): Promise<ToolResultSpec> => {
            if (!result.ok) return ruleResult(result);
            const { order } = result;
            const changes = result.priceChanges.map(
              (c) =>
                `${c.name} is now ${formatCents(c.unitPriceCents)} (was ${formatCents(c.cartUnitPriceCents)})`,
            );
            const events: UiEvent[] = [
              { type: "order-placed", order },
              { type: "cart-updated", cart: await viewIn(tx, await tx.getCart()) },
            ];
            return {
              text: `Order ${order.id} placed: ${countOf(order.itemCount, "item")}, ${formatCents(order.totalCents)}.${changes.length ? ` Price changes: ${changes.join("; ")}.` : ""}`,
              events,
            };
          },
        );
        // `approved` binds the order to the card the shopper confirmed: a different order (a
        // price changed, the cart was edited elsewhere) throws EffectChangedError, nothing is
        // placed, and the shopper is asked again with what changed.
        const result = await context.store.checkout(context.sessionId, callId, {
          record: recorded.record,
          approved: { effect: ctx.approved?.effect },
        });
        // Without a reply the transaction was rolled back: another checkout took the stock.
        return (
          recorded.replied() ??
          (result.ok ? { text: `Order ${result.order.id} placed.` } : ruleResult(result))
        );
      },
    }),
    defineTool({
      name: "show_products",
      description: "Show product cards to the shopper (live price and stock are filled in).",
      kind: "display",
      input: z.object({
        title: z.string().max(120).default("Products"),
        productIds: z.array(productId).min(1).max(12),
      }),
      run: async ({ title, productIds }, { context }) => {
        const { found, missing } = await loadProducts(context, productIds);
        const events: UiEvent[] = [
          { type: "product-cards", title, products: found.map(productView), missing },
        ];
        const text = `Showed ${countOf(found.length, "product card")}: ${found.map((p) => p.name).join(", ")}.`;
        return {
          text: missing.length ? `${text} Unknown ids: ${missing.join(", ")}.` : text,
          events,
        };
      },
    }),
    defineTool({
      name: "compare_products",
      description: "Show a side-by-side comparison of 2-4 products.",
      kind: "display",
      input: z.object({ productIds: z.array(productId).min(2).max(4) }),
      run: async ({ productIds }, { context }) => {
        const { found, missing } = await loadProducts(context, productIds);
        if (found.length < 2)
          return unknownProductResult(
            `Need two known products to compare; unknown: ${missing.join(", ")}.`,
            missing,
          );
        const cheapest = [...found].sort((a, b) => a.priceCents - b.priceCents)[0]!;
        const best = [...found].sort((a, b) => b.rating - a.rating)[0]!;
        return {
          text: `Compared ${found.map((p) => p.name).join(" vs ")}. Cheapest: ${cheapest.name}; best rated: ${best.name}.`,
          events: [
            {
              type: "comparison",
              products: found.map(productView),
              cheapestId: cheapest.id,
              bestRatedId: best.id,
            },
          ],
        };
      },
    }),
    defineDelegateTool<z.ZodObject<{ question: z.ZodString }>, ShopToolContext>({
      name: "ask_merchant",
      description:
        "Ask the merchant's assistant a question only the merchant can answer (restock dates, bulk discounts).",
      input: z.object({ question: z.string().min(1).max(500) }),
      timeoutMs: 60_000,
      agent: ({ question }, { context }) => ({
        model: deps.model,
        // Read-only merchant tools: a shopper's question must never restock or reprice anything.
        executor: deps.merchant.executor(context.sessionId, { readOnly: true }),
        system: deps.merchant.system,
        agent: "merchant",
        prompt: question,
        maxRounds: 4,
      }),
    }),
  ]);
}

/**
 * Runs one cart change under the cart's lock and reports it to the model and the UI. The reply
 * is built in the change's transaction and recorded with it (see `recordCall`).
 */
async function changeCart(
  ctx: ToolContext<ShopToolContext>,
  change: (
    cart: Cart,
    product: Product | undefined,
    rules: ShopToolContext["store"]["cartRules"],
  ) => CartResult,
  id: string,
  done: (product: Product, line: Cart["lines"][number] | undefined) => string,
): Promise<ToolResultSpec> {
  const { store, sessionId } = ctx.context;
  let product: Product | undefined;
  let before: Cart = { lines: [] };
  const recorded = recordCall(
    ctx,
    async (result: CartResult, tx: CartTransaction): Promise<ToolResultSpec> => {
      if (!result.ok) return ruleResult(result);
      const view = await viewIn(tx, result.cart);
      // The line this change made or changed (a new object); none when it removed the line.
      const line = result.cart.lines.find((l) => l.productId === id && !before.lines.includes(l));
      const text = `${product ? done(product, line) : "Done."} ${cartSummary(view)}`;
      return { text, events: [{ type: "cart-updated", cart: view }] };
    },
  );
  await store.withCart(
    sessionId,
    async (cart, tx) => {
      before = cart;
      product = await tx.getProduct(id);
      return change(cart, product, tx.rules);
    },
    recorded,
  );
  return recorded.replied() ?? { text: "Done." };
}

/** " (size US 10, Volt)" for a line with a variant. */
function lineVariant(line: { size?: string; color?: string } | undefined): string {
  const text = line ? variantText(line).slice(2) : "";
  return text ? ` (${text})` : "";
}

/** What checkout asks the shopper to confirm: the order's lines and total, from the cart. */
function orderSummaryText(view: CartView): string {
  if (view.lines.length === 0)
    return "Place an order: the cart is empty, so nothing would be ordered.";
  const lines = view.lines.map(
    (l) => `${l.quantity} × ${l.name}${lineVariant(l)} (${l.lineTotal})`,
  );
  return `Place an order for ${countOf(view.itemCount, "item")}, total ${view.total}: ${lines.join(", ")}.`;
}

/** The order checkout would place now, from the cart at current prices (no lock taken). */
async function draftOf(context: ShopToolContext) {
  const cart = await context.store.getCart(context.sessionId);
  const products = new Map<string, Product>();
  for (const line of cart.lines) {
    const product = await context.store.getProduct(line.productId);
    if (product) products.set(product.id, product);
  }
  return draftOrder(cart, products, context.store.cartRules);
}

/** An order's effect in the cart view's shape (at the prices it would charge), for the card. */
function orderView(effect: CheckoutEffect, cart: CartView): CartView {
  return {
    ...cart,
    lines: effect.lines.map(priceLineView),
    itemCount: effect.itemCount,
    totalCents: effect.totalCents,
    total: formatCents(effect.totalCents),
  };
}

async function currentCart(context: ShopToolContext): Promise<CartView> {
  return viewOf(context, await context.store.getCart(context.sessionId));
}

function viewOf(context: ShopToolContext, cart: Cart): Promise<CartView> {
  return cartView(context.store, cart);
}

/** The view of `cart`, reading product names inside a cart transaction. */
function viewIn(tx: CartTransaction, cart: Cart): Promise<CartView> {
  return cartView({ getProduct: tx.getProduct, cartRules: tx.rules }, cart);
}

async function loadProducts(context: ShopToolContext, ids: readonly string[]) {
  const found: Product[] = [];
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const product = await context.store.getProduct(id);
    if (product) found.push(product);
    else missing.push(id);
  }
  return { found, missing };
}
