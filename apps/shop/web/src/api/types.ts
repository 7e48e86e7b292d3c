/**
 * The JSON the shop's API and its UI events carry, with readers that check the shape of what
 * arrives: a field of an unexpected type is dropped, never rendered blindly. The product and cart
 * shapes are the server's own (`apps/shop/src/views/view-types.ts`, imported as types, never
 * copied): a field renamed there fails to compile here.
 */

import type { CartLineView, CartView, ProductView } from "../../../src/views/view-types";

/** A product as a card shows it: live price and stock (the server's own view, see above). */
export type Product = Omit<ProductView, "sizes" | "colors" | "listPriceCents"> & {
  /** The sizes it comes in (empty for one size). */
  sizes: string[];
  /** The colours it comes in. */
  colors: string[];
};

/** One cart line, as the panel uses it. */
export type CartLine = Pick<
  CartLineView,
  "productId" | "name" | "quantity" | "unitPrice" | "lineTotal" | "size" | "color" | "needs"
>;

/** The cart, from the REST API or a `cart-updated` event. */
export type Cart = Omit<CartView, "lines" | "maxQuantityPerLine"> & {
  lines: CartLine[];
  /** Absent from what an older server kept: then the panel assumes its own default. */
  maxQuantityPerLine: number | undefined;
};

/** One line of a placed order. */
export interface OrderLine {
  productId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  lineTotalCents: number;
  /** The size ordered, for a product with sizes. */
  size?: string | undefined;
  /** The colour ordered. */
  color?: string | undefined;
}

/** A placed order. */
export interface Order {
  id: string;
  lines: OrderLine[];
  totalCents: number;
  itemCount: number;
  createdAt: string;
}

/** The merchant's sales figures. */
export interface SalesSummary {
  orderCount: number;
  itemCount: number;
  revenueCents: number;
  averageOrderCents: number;
  topProducts: { productId: string; name: string; quantity: number; revenueCents: number }[];
}

/** `GET /healthz`. */
export interface Health {
  ok: boolean;
  db: string;
  model: string;
  scripted: boolean;
}

/** A session's id and bearer token (`POST /api/sessions`). */
export interface Credentials {
  id: string;
  token: string;
}

type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const str = (o: Json, k: string, fallback = ""): string =>
  typeof o[k] === "string" ? (o[k] as string) : fallback;
const num = (o: Json, k: string, fallback = 0): number =>
  typeof o[k] === "number" && Number.isFinite(o[k]) ? (o[k] as number) : fallback;
const strings = (o: Json, k: string): string[] =>
  Array.isArray(o[k]) ? (o[k] as unknown[]).filter((x): x is string => typeof x === "string") : [];
/** The first of `keys` holding a non-empty string. */
const optStr = (o: Json, ...keys: string[]): string | undefined => {
  for (const k of keys) if (typeof o[k] === "string" && o[k] !== "") return o[k] as string;
  return undefined;
};

/** Reads a product, or `undefined` without an id and a name. */
export function readProduct(value: unknown): Product | undefined {
  if (!isRecord(value) || typeof value.id !== "string" || typeof value.name !== "string") {
    return undefined;
  }
  const stock = num(value, "stock");
  return {
    id: value.id,
    name: value.name,
    brand: str(value, "brand"),
    category: str(value, "category"),
    priceCents: num(value, "priceCents"),
    price: str(value, "price"),
    ...(typeof value.discountPercent === "number" && typeof value.listPrice === "string"
      ? { discountPercent: value.discountPercent, listPrice: value.listPrice }
      : {}),
    stock,
    inStock: typeof value.inStock === "boolean" ? value.inStock : stock > 0,
    rating: num(value, "rating"),
    description: str(value, "description"),
    sizes: strings(value, "sizes"),
    colors: strings(value, "colors"),
  };
}

/** Reads a list of products, skipping malformed entries. */
export function readProducts(value: unknown): Product[] {
  if (!Array.isArray(value)) return [];
  return value.map(readProduct).filter((p): p is Product => p !== undefined);
}

/** Reads a cart, or `undefined` when `value` is not one. */
/** A cart line's `needs`: what it still has to choose (`size`, `color`) and the choices. */
function readNeeds(value: unknown): CartLine["needs"] {
  if (!isRecord(value) || !Array.isArray(value.missing)) return undefined;
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  const missing = value.missing.filter((m): m is "size" | "color" => m === "size" || m === "color");
  if (missing.length === 0) return undefined;
  return { missing, sizes: strings(value.sizes), colors: strings(value.colors) };
}

export function readCart(value: unknown): Cart | undefined {
  if (!isRecord(value) || !Array.isArray(value.lines)) return undefined;
  const lines: CartLine[] = [];
  for (const line of value.lines) {
    if (!isRecord(line) || typeof line.productId !== "string") continue;
    lines.push({
      productId: line.productId,
      name: str(line, "name", line.productId),
      quantity: num(line, "quantity"),
      unitPrice: str(line, "unitPrice"),
      lineTotal: str(line, "lineTotal"),
      size: optStr(line, "size"),
      color: optStr(line, "color", "colour"),
      needs: readNeeds(line.needs),
    });
  }
  return {
    lines,
    itemCount: num(value, "itemCount"),
    totalCents: num(value, "totalCents"),
    total: str(value, "total"),
    limitCents: num(value, "limitCents"),
    limit: str(value, "limit"),
    maxQuantityPerLine:
      typeof value.maxQuantityPerLine === "number" ? value.maxQuantityPerLine : undefined,
  };
}

/** Reads an order, or `undefined`. */
export function readOrder(value: unknown): Order | undefined {
  if (!isRecord(value) || typeof value.id !== "string") return undefined;
  const lines = Array.isArray(value.lines) ? value.lines.filter(isRecord) : [];
  return {
    id: value.id,
    lines: lines.map((l) => ({
      productId: str(l, "productId"),
      name: str(l, "name", str(l, "productId")),
      quantity: num(l, "quantity"),
      unitPriceCents: num(l, "unitPriceCents"),
      lineTotalCents: num(l, "lineTotalCents"),
      ...(typeof l.size === "string" ? { size: l.size } : {}),
      ...(typeof l.color === "string" ? { color: l.color } : {}),
    })),
    totalCents: num(value, "totalCents"),
    itemCount: num(value, "itemCount"),
    createdAt: str(value, "createdAt"),
  };
}

/** Reads a list of orders. */
export function readOrders(value: unknown): Order[] {
  if (!Array.isArray(value)) return [];
  return value.map(readOrder).filter((o): o is Order => o !== undefined);
}

/** Reads the merchant's sales summary, or `undefined`. */
export function readSalesSummary(value: unknown): SalesSummary | undefined {
  if (!isRecord(value)) return undefined;
  const top = Array.isArray(value.topProducts) ? value.topProducts.filter(isRecord) : [];
  return {
    orderCount: num(value, "orderCount"),
    itemCount: num(value, "itemCount"),
    revenueCents: num(value, "revenueCents"),
    averageOrderCents: num(value, "averageOrderCents"),
    topProducts: top.map((p) => ({
      productId: str(p, "productId"),
      name: str(p, "name", str(p, "productId")),
      quantity: num(p, "quantity"),
      revenueCents: num(p, "revenueCents"),
    })),
  };
}

/** Reads `/healthz`, or `undefined`. */
export function readHealth(value: unknown): Health | undefined {
  if (!isRecord(value) || typeof value.scripted !== "boolean") return undefined;
  return {
    ok: value.ok === true,
    db: str(value, "db"),
    model: str(value, "model"),
    scripted: value.scripted,
  };
}

/** Reads a new session's credentials, or `undefined`. */
export function readCredentials(value: unknown): Credentials | undefined {
  if (!isRecord(value) || typeof value.id !== "string" || typeof value.token !== "string") {
    return undefined;
  }
  return { id: value.id, token: value.token };
}
