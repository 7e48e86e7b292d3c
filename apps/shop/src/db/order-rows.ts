/**
 * Orders as stored: an `orders` row and its `order_lines` (each line keeps the name, price and
 * variant it was ordered with), read back newest first.
 */

import type { Order, OrderLine } from "../domain/orders.js";
import type { ShopDb } from "./shop-database.js";

/** Which orders {@link readOrders} reads; every filter given must match. */
export interface OrderFilter {
  sessionId?: string;
  shopperId?: string;
  callId?: string;
  limit?: number;
}

/** Stores a placed order with its lines (in the caller's transaction). */
export async function insertOrder(db: ShopDb, order: Order): Promise<void> {
  await db
    .insertInto("orders")
    .values({
      id: order.id,
      session_id: order.sessionId,
      shopper_id: order.shopperId,
      call_id: order.callId,
      total_cents: order.totalCents,
      item_count: order.itemCount,
      created_at: order.createdAt,
    })
    .execute();
  await db
    .insertInto("order_lines")
    .values(
      order.lines.map((line, position) => ({
        order_id: order.id,
        position,
        product_id: line.productId,
        name: line.name,
        quantity: line.quantity,
        unit_price_cents: line.unitPriceCents,
        size: line.size ?? null,
        color: line.color ?? null,
      })),
    )
    .execute();
}

/** The orders `filter` selects, newest first, with their lines. */
export async function readOrders(db: ShopDb, filter: OrderFilter): Promise<Order[]> {
  let query = db.selectFrom("orders").selectAll().orderBy("created_at", "desc").orderBy("id");
  if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
  if (filter.shopperId !== undefined) query = query.where("shopper_id", "=", filter.shopperId);
  if (filter.callId !== undefined) query = query.where("call_id", "=", filter.callId);
  if (filter.limit !== undefined) query = query.limit(Math.max(0, Math.floor(filter.limit)));
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const lineRows = [];
  // Chunked: both databases cap the number of parameters in one statement.
  for (let i = 0; i < rows.length; i += 500) {
    const ids = rows.slice(i, i + 500).map((row) => row.id);
    lineRows.push(
      ...(await db
        .selectFrom("order_lines")
        .selectAll()
        .where("order_id", "in", ids)
        .orderBy("order_id")
        .orderBy("position")
        .execute()),
    );
  }
  const linesByOrder = new Map<string, OrderLine[]>();
  for (const row of lineRows) {
    const quantity = Number(row.quantity);
    const unitPriceCents = Number(row.unit_price_cents);
    const lines = linesByOrder.get(row.order_id) ?? [];
    lines.push({
      productId: row.product_id,
      name: row.name,
      quantity,
      unitPriceCents,
      lineTotalCents: quantity * unitPriceCents,
      ...(row.size !== null && row.size !== undefined ? { size: row.size } : {}),
      ...(row.color !== null && row.color !== undefined ? { color: row.color } : {}),
    });
    linesByOrder.set(row.order_id, lines);
  }
  return rows.map((row) => ({
    id: row.id,
    sessionId: row.session_id,
    shopperId: row.shopper_id ?? row.session_id,
    callId: row.call_id,
    lines: linesByOrder.get(row.id) ?? [],
    totalCents: Number(row.total_cents),
    itemCount: Number(row.item_count),
    createdAt: row.created_at,
  }));
}
