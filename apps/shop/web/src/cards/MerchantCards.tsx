/** The merchant's cards: stock tables (inventory, low stock, an update), orders, sales. */

import { useState } from "react";
import { formatCents, formatDateTime } from "../api/format";
import type { Order, Product, SalesSummary } from "../api/types";
import { count, type Lang, pick } from "../i18n/lang";
import { StockPill } from "./ProductCards";

/** A table of products with their stock; skeleton rows while the list is not known. */
/** Rows shown before "Show all". */
const COLLAPSED_ROWS = 8;

export function StockTable({
  products,
  placeholderRows = 4,
  highlightLow,
}: {
  products: readonly Product[] | undefined;
  placeholderRows?: number;
  highlightLow?: number | undefined;
}) {
  const [expanded, setExpanded] = useState(false);
  const hidden = products && !expanded ? Math.max(0, products.length - COLLAPSED_ROWS) : 0;
  const shown = products && hidden > 0 ? products.slice(0, COLLAPSED_ROWS) : products;
  return (
    <div className="table-scroll">
      <table className="data-table" aria-busy={products === undefined}>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Brand</th>
            <th scope="col" className="num">
              Stock
            </th>
            <th scope="col" className="num">
              Price
            </th>
          </tr>
        </thead>
        <tbody>
          {shown
            ? shown.map((p) => (
                <tr
                  key={p.id}
                  data-product-id={p.id}
                  className={highlightLow !== undefined && p.stock <= highlightLow ? "row-low" : ""}
                >
                  <td>
                    <div className="cell-name">{p.name}</div>
                    <code className="id">{p.id}</code>
                  </td>
                  <td>{p.brand}</td>
                  <td className="num">
                    <StockPill stock={p.stock} />
                  </td>
                  <td className="num strong">{p.price}</td>
                </tr>
              ))
            : Array.from({ length: placeholderRows }, (_, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: placeholder rows have no identity
                <tr key={i}>
                  <td>
                    <span className="skeleton skeleton-line" />
                  </td>
                  <td>
                    <span className="skeleton skeleton-line short" />
                  </td>
                  <td className="num">
                    <span className="skeleton skeleton-pill" />
                  </td>
                  <td className="num">
                    <span className="skeleton skeleton-line short" />
                  </td>
                </tr>
              ))}
        </tbody>
      </table>
      {products && products.length > COLLAPSED_ROWS && (
        <button
          type="button"
          className="btn btn-ghost btn-small table-more"
          onClick={() => setExpanded((x) => !x)}
        >
          {expanded ? "Show fewer" : `Show all ${products.length}`}
        </button>
      )}
    </div>
  );
}

export function OrderSummary({ order, lang = "en" }: { order: Order; lang?: Lang }) {
  return (
    <div className="order">
      <div className="order-head">
        <span>
          {pick(lang, "Order", "订单")} <code className="id">{order.id}</code>
        </span>
        <span className="muted">{formatDateTime(order.createdAt)}</span>
      </div>
      <ul className="order-lines">
        {order.lines.map((l) => (
          <li key={l.productId}>
            <span>
              {l.quantity} × {l.name}
            </span>
            <span className="num">{formatCents(l.lineTotalCents)}</span>
          </li>
        ))}
      </ul>
      <div className="order-total">
        <span>{count(lang, order.itemCount, "item")}</span>
        <strong>{formatCents(order.totalCents)}</strong>
      </div>
    </div>
  );
}

export function OrdersTable({ orders }: { orders: readonly Order[] }) {
  if (orders.length === 0) return <p className="muted">No orders yet.</p>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Placed</th>
            <th scope="col" className="num">
              Items
            </th>
            <th scope="col" className="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.id}>
              <td>
                <code className="id">{o.id}</code>
              </td>
              <td>{formatDateTime(o.createdAt)}</td>
              <td className="num">{o.itemCount}</td>
              <td className="num strong">{formatCents(o.totalCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SalesFigures({ summary }: { summary: SalesSummary }) {
  const kpis = [
    ["Orders", String(summary.orderCount)],
    ["Items sold", String(summary.itemCount)],
    ["Revenue", formatCents(summary.revenueCents)],
    ["Average order", formatCents(summary.averageOrderCents)],
  ] as const;
  return (
    <div className="sales">
      <dl className="kpis">
        {kpis.map(([label, value]) => (
          <div className="kpi" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {summary.topProducts.length > 0 && (
        <ol className="top-products">
          {summary.topProducts.map((p) => (
            <li key={p.productId}>
              <span>{p.name}</span>
              <span className="muted">
                {p.quantity} sold · {formatCents(p.revenueCents)}
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
