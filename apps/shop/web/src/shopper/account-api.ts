/**
 * The shopper's chats and orders as the API sends them (`GET /api/shopper/chats`,
 * `GET /api/shopper/orders`), with readers that keep only well-shaped entries.
 */

import { requestJson } from "../api/http";
import { isRecord } from "../api/types";

/** One chat in the list. */
export interface ChatSummary {
  id: string;
  /** The shopper's first message ("" when it had no words). */
  title: string;
  /** ISO 8601. */
  lastActivity: string;
  messageCount: number;
}

/** One line of an order, with the size and colour ordered. */
export interface OrderLineView {
  productId: string;
  name: string;
  quantity: number;
  size: string | undefined;
  color: string | undefined;
  lineTotal: string;
}

/** One order. */
export interface OrderView {
  id: string;
  chatId: string;
  status: string;
  /** ISO 8601. */
  createdAt: string;
  itemCount: number;
  total: string;
  lines: OrderLineView[];
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function readChat(value: unknown): ChatSummary | undefined {
  if (!isRecord(value)) return undefined;
  const id = str(value.id);
  const lastActivity = str(value.lastActivity);
  if (!id || !lastActivity) return undefined;
  return {
    id,
    title: str(value.title) ?? "",
    lastActivity,
    messageCount: num(value.messageCount) ?? 0,
  };
}

function readLine(value: unknown): OrderLineView | undefined {
  if (!isRecord(value)) return undefined;
  const productId = str(value.productId);
  const name = str(value.name);
  const quantity = num(value.quantity);
  if (!productId || !name || quantity === undefined) return undefined;
  return {
    productId,
    name,
    quantity,
    size: str(value.size),
    color: str(value.color),
    lineTotal: str(value.lineTotal) ?? "",
  };
}

function readOrder(value: unknown): OrderView | undefined {
  if (!isRecord(value) || !Array.isArray(value.lines)) return undefined;
  const id = str(value.id);
  const createdAt = str(value.createdAt);
  if (!id || !createdAt) return undefined;
  return {
    id,
    chatId: str(value.chatId) ?? "",
    status: str(value.status) ?? "placed",
    createdAt,
    itemCount: num(value.itemCount) ?? 0,
    total: str(value.total) ?? "",
    lines: value.lines.map(readLine).filter((l): l is OrderLineView => l !== undefined),
  };
}

function listOf<T>(key: string, read: (v: unknown) => T | undefined) {
  return (value: unknown): T[] | undefined => {
    if (!isRecord(value) || !Array.isArray(value[key])) return undefined;
    return (value[key] as unknown[]).map(read).filter((x): x is T => x !== undefined);
  };
}

/** The shopper's chats, most recently active first. */
export const fetchChats = (token: string, signal?: AbortSignal) =>
  requestJson("/api/shopper/chats", listOf("chats", readChat), { token, signal });

/** The shopper's orders, newest first. */
export const fetchOrders = (token: string, signal?: AbortSignal) =>
  requestJson("/api/shopper/orders", listOf("orders", readOrder), { token, signal });
