/**
 * The shopper's "Order placed" card: the order's number and time, each line with its size and
 * colour (two sizes of one product are two lines), and the total.
 */

import { formatCents } from "../api/format";
import type { Order } from "../api/types";
import { variantOf } from "../cart/variant-words";
import { count, type Lang, pick } from "../i18n/lang";
import { formatWhen } from "../i18n/when";

export function OrderPlaced({ order, lang }: { order: Order; lang: Lang }) {
  return (
    <div className="order" data-testid="order-placed">
      <div className="order-head">
        <span>
          {pick(lang, "Order", "订单")} <code className="id">{order.id}</code>
        </span>
        <span className="muted">{formatWhen(order.createdAt, lang)}</span>
      </div>
      <ul className="order-lines">
        {order.lines.map((line) => {
          const variant = variantOf(line, lang);
          return (
            <li key={`${line.productId}|${line.size ?? ""}|${line.color ?? ""}`}>
              <span>
                {line.quantity} × {line.name}
                {variant && (
                  <span className="order-variant" data-testid="order-variant">
                    {" "}
                    ({variant})
                  </span>
                )}
              </span>
              <span className="num">{formatCents(line.lineTotalCents)}</span>
            </li>
          );
        })}
      </ul>
      <div className="order-total">
        <span>{count(lang, order.itemCount, "item")}</span>
        <strong>{formatCents(order.totalCents)}</strong>
      </div>
    </div>
  );
}
