/**
 * The shopper's orders, newest first, from every chat: when, the status, each line with its
 * size and colour, and the total.
 */

import { useCallback } from "react";
import { variantOf } from "../cart/variant-words";
import { count, pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { formatWhen as when } from "../i18n/when";
import { AccountDrawer } from "./AccountDrawer";
import { fetchOrders } from "./account-api";
import { FetchedView } from "./FetchedView";
import { useFetched } from "./use-fetched";

export function OrdersDrawer({ token, onClose }: { token: string; onClose: () => void }) {
  const lang = useLang();
  const load = useCallback((signal: AbortSignal) => fetchOrders(token, signal), [token]);
  const { state, retry } = useFetched(load);
  return (
    <AccountDrawer
      title={pick(lang, "Your orders", "您的订单")}
      testId="orders-drawer"
      onClose={onClose}
    >
      <FetchedView state={state} retry={retry}>
        {(orders) =>
          orders.length === 0 ? (
            <p className="account-empty muted">
              {pick(
                lang,
                "No orders yet. Orders you place in any chat show here.",
                "还没有订单。在任何对话中下的订单都会显示在这里。",
              )}
            </p>
          ) : (
            <ul className="order-list">
              {orders.map((order) => (
                <li
                  key={order.id}
                  className="order-card"
                  data-testid="order-card"
                  data-order-id={order.id}
                >
                  <div className="order-head">
                    <span className="order-when">{when(order.createdAt, lang)}</span>
                    <span className="order-status">
                      {order.status === "placed"
                        ? pick(lang, "Placed · paid", "已下单 · 已付款")
                        : order.status}
                    </span>
                  </div>
                  <ul className="order-lines">
                    {order.lines.map((line) => {
                      const variant = variantOf(line, lang);
                      return (
                        <li
                          key={`${line.productId}-${line.size ?? ""}-${line.color ?? ""}`}
                          className="order-line"
                        >
                          <span className="order-line-main">
                            <span className="order-line-name">
                              {line.quantity} × {line.name}
                            </span>
                            {variant && (
                              <span
                                className="order-line-variant muted"
                                data-testid="order-variant"
                              >
                                {variant}
                              </span>
                            )}
                          </span>
                          <span className="order-line-total">{line.lineTotal}</span>
                        </li>
                      );
                    })}
                  </ul>
                  <div className="order-foot">
                    <span className="muted">
                      {count(lang, order.itemCount, "item")} ·{" "}
                      <span className="order-id">{order.id}</span>
                    </span>
                    <strong className="order-total">{order.total}</strong>
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </FetchedView>
    </AccountDrawer>
  );
}
