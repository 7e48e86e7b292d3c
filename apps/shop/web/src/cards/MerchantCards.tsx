/**
 * The merchant's cards: stock tables (inventory, low stock, an update), a change to several
 * products as one table (a bulk restock, a category discount: the same table in the approval card
 * and in the result), a product edit, the discounts in force, orders and sales. Their words come
 * from `i18n/merchant-words.ts`, in the language they are given.
 */

import { useState } from "react";
import { formatCents, formatDateTime } from "../api/format";
import { isRecord, type Order, type Product, type SalesSummary } from "../api/types";
import { categoryName } from "../i18n/category-words";
import { discountWords } from "../i18n/discount-words";
import { count, type Lang, pick } from "../i18n/lang";
import { merchantWords } from "../i18n/merchant-words";
import { StockPill } from "./ProductCards";
import { PriceCell } from "./SalePrice";
import "./merchant-cards.css";

/** Rows shown before "Show all". */
const COLLAPSED_ROWS = 8;

/** A table of products with their stock; skeleton rows while the list is not known. */
export function StockTable({
  products,
  placeholderRows = 4,
  highlightLow,
  lang = "en",
}: {
  products: readonly Product[] | undefined;
  placeholderRows?: number;
  highlightLow?: number | undefined;
  lang?: Lang;
}) {
  const w = merchantWords(lang);
  const [expanded, setExpanded] = useState(false);
  const hidden = products && !expanded ? Math.max(0, products.length - COLLAPSED_ROWS) : 0;
  const shown = products && hidden > 0 ? products.slice(0, COLLAPSED_ROWS) : products;
  return (
    <div className="table-scroll">
      <table className="data-table" aria-busy={products === undefined}>
        <thead>
          <tr>
            <th scope="col">{w.product}</th>
            <th scope="col">{w.brand}</th>
            <th scope="col" className="num">
              {w.stock}
            </th>
            <th scope="col" className="num">
              {w.price}
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
                    <StockPill stock={p.stock} lang={lang} />
                  </td>
                  <td className="num strong">
                    <PriceCell product={p} lang={lang} />
                  </td>
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
          {expanded ? w.showFewer : w.showAll(products.length)}
        </button>
      )}
    </div>
  );
}

/** One product's row of a {@link ChangeTable}. */
interface ChangeRow {
  productId: string;
  name: string;
  before: number;
  after: number;
  beforeText: string;
  afterText: string;
}

/** A change to several products, as the server sends it (`details.change`, `ui.change`). */
export type Change =
  | { kind: "restock"; quantity?: number; upTo?: number; rows: ChangeRow[] }
  | { kind: "discount"; category: string; percent?: number; rows: ChangeRow[] };

const optNum = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined;

/** Reads a {@link Change}, or `undefined` when it is not one. */
export function readChange(value: unknown): Change | undefined {
  if (!isRecord(value) || !Array.isArray(value.rows)) return undefined;
  const rows = value.rows.filter(isRecord).flatMap((r): ChangeRow[] =>
    typeof r.productId === "string" &&
    typeof r.name === "string" &&
    typeof r.before === "number" &&
    typeof r.after === "number"
      ? [
          {
            productId: r.productId,
            name: r.name,
            before: r.before,
            after: r.after,
            beforeText: typeof r.beforeText === "string" ? r.beforeText : String(r.before),
            afterText: typeof r.afterText === "string" ? r.afterText : String(r.after),
          },
        ]
      : [],
  );
  const quantity = optNum(value.quantity);
  const upTo = optNum(value.upTo);
  const percent = optNum(value.percent);
  if (value.kind === "restock") {
    return {
      kind: "restock",
      ...(quantity === undefined ? {} : { quantity }),
      ...(upTo === undefined ? {} : { upTo }),
      rows,
    };
  }
  if (value.kind === "discount" && typeof value.category === "string") {
    return {
      kind: "discount",
      category: value.category,
      ...(percent === undefined ? {} : { percent }),
      rows,
    };
  }
  return undefined;
}

/**
 * A change to several products as one table: a row per product with its stock (or price) before
 * and after, a caption saying the change, and for a restock the units added in all.
 */
export function ChangeTable({ change, lang }: { change: Change; lang: Lang }) {
  const w = merchantWords(lang);
  const [expanded, setExpanded] = useState(false);
  const restock = change.kind === "restock";
  const rows = expanded ? change.rows : change.rows.slice(0, COLLAPSED_ROWS * 2);
  const changed = change.rows.filter((r) => r.after !== r.before).length;
  const added = change.rows.reduce((sum, r) => sum + Math.max(0, r.after - r.before), 0);
  const caption = restock
    ? w.restockCaption(changed, change)
    : w.discountCaption(change.category, change.percent, change.rows.length);
  return (
    <div className="table-scroll change-table" data-testid="change-table" data-kind={change.kind}>
      <table className="data-table">
        <caption className="change-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{w.product}</th>
            <th scope="col" className="num">
              {restock ? w.inStockNow : w.priceNow}
            </th>
            {restock && (
              <th scope="col" className="num">
                {w.adding}
              </th>
            )}
            <th scope="col" className="num">
              {restock ? w.afterRestock : change.percent === undefined ? w.backTo : w.salePrice}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.productId}
              data-product-id={r.productId}
              className={r.after === r.before ? "row-same" : ""}
            >
              <td>
                <div className="cell-name">{r.name}</div>
                <code className="id">{r.productId}</code>
              </td>
              <td className="num">{r.beforeText}</td>
              {restock && (
                <td className="num change-delta">
                  {r.after > r.before ? `+${r.after - r.before}` : w.unchanged}
                </td>
              )}
              <td className="num strong">{r.afterText}</td>
            </tr>
          ))}
        </tbody>
        {restock && (
          <tfoot>
            <tr>
              <td colSpan={4} className="num change-total">
                {w.unitsInAll(added)}
              </td>
            </tr>
          </tfoot>
        )}
      </table>
      {change.rows.length > COLLAPSED_ROWS * 2 && (
        <button
          type="button"
          className="btn btn-ghost btn-small table-more"
          onClick={() => setExpanded((x) => !x)}
        >
          {expanded ? w.showFewer : w.showAll(change.rows.length)}
        </button>
      )}
    </div>
  );
}

/** A product edit: each changed field before and after. */
export function EditTable({
  before,
  product,
  changed,
  lang,
}: {
  before: Product;
  product: Product;
  changed: readonly string[];
  lang: Lang;
}) {
  const w = merchantWords(lang);
  const value = (p: Product, field: string) =>
    field === "name" ? p.name : field === "price" ? p.price : p.description;
  return (
    <div className="table-scroll">
      <table className="data-table edit-table" data-product-id={product.id}>
        <caption className="change-caption">
          {product.name} <code className="id">{product.id}</code>
        </caption>
        <thead>
          <tr>
            <th scope="col">{w.field}</th>
            <th scope="col">{w.before}</th>
            <th scope="col">{w.after}</th>
          </tr>
        </thead>
        <tbody>
          {changed.map((field) => (
            <tr key={field} data-field={field}>
              <th scope="row">{w.fieldName(field)}</th>
              <td className="edit-before">{value(before, field)}</td>
              <td className="strong">
                {field === "price" ? (
                  <PriceCell product={product} lang={lang} />
                ) : (
                  value(product, field)
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The discounts in force. */
export function DiscountsTable({ discounts, lang }: { discounts: readonly unknown[]; lang: Lang }) {
  const w = merchantWords(lang);
  const rows = discounts
    .filter(isRecord)
    .flatMap((d) =>
      typeof d.category === "string" && typeof d.percent === "number"
        ? [{ category: d.category, percent: d.percent, n: optNum(d.productCount) ?? 0 }]
        : [],
    );
  if (rows.length === 0) return <p className="muted">{w.noDiscounts}</p>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">{w.category}</th>
            <th scope="col" className="num">
              {w.off}
            </th>
            <th scope="col" className="num">
              {w.products}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={`${d.category}-${d.percent}`}>
              <td>{categoryName(d.category, lang)}</td>
              <td className="num strong">{discountWords(d.percent, lang)}</td>
              <td className="num">{d.n}</td>
            </tr>
          ))}
        </tbody>
      </table>
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
        <span className="muted">{formatDateTime(order.createdAt, lang)}</span>
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

export function OrdersTable({ orders, lang = "en" }: { orders: readonly Order[]; lang?: Lang }) {
  const w = merchantWords(lang);
  if (orders.length === 0) return <p className="muted">{w.noOrders}</p>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">{w.order}</th>
            <th scope="col">{w.placed}</th>
            <th scope="col" className="num">
              {w.items}
            </th>
            <th scope="col" className="num">
              {w.total}
            </th>
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.id}>
              <td>
                <code className="id">{o.id}</code>
              </td>
              <td>{formatDateTime(o.createdAt, lang)}</td>
              <td className="num">{o.itemCount}</td>
              <td className="num strong">{formatCents(o.totalCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SalesFigures({ summary, lang = "en" }: { summary: SalesSummary; lang?: Lang }) {
  const w = merchantWords(lang);
  const kpis = [
    [w.kpis[0], String(summary.orderCount)],
    [w.kpis[1], String(summary.itemCount)],
    [w.kpis[2], formatCents(summary.revenueCents)],
    [w.kpis[3], formatCents(summary.averageOrderCents)],
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
                {w.sold(p.quantity)} · {formatCents(p.revenueCents)}
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
