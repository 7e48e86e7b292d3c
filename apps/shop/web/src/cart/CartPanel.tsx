/**
 * The cart, always in view: lines (a picture of the product's kind, its size and colour) with
 * − / + and remove (REST), the total against the cart's limit, the rule's own sentence when a
 * change is refused, and a short highlight when the assistant changed the cart while it was
 * talking. The lines scroll; the total and the checkout button never leave the panel.
 */

import { useEffect, useState } from "react";
import type { CartLine } from "../api/types";
import { ProductPicture } from "../cards/ProductPicture";
import { friendlyRule } from "../chat/call-words";
import type { ProductBook } from "../chat/product-book";
import { Icon, Spinner } from "../ui/Icon";
import type { CartModel } from "./use-cart";

/** "Size US 10 · Volt" for a line with a variant, else `undefined`. */
export function variantOf(line: Pick<CartLine, "size" | "color">): string | undefined {
  const parts = [...(line.size ? [`Size ${line.size}`] : []), ...(line.color ? [line.color] : [])];
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

export function CartPanel({
  model,
  onCheckout,
  running,
  book,
}: {
  model: CartModel;
  onCheckout: () => void;
  running: boolean;
  /** Product names and categories the page knows (for the pictures). */
  book?: ProductBook | undefined;
}) {
  const { cart, busy, notice, dismiss, change, assistantUpdates } = model;
  const [flash, setFlash] = useState(false);

  useEffect(() => {
    if (assistantUpdates === 0) return;
    setFlash(true);
    const timer = setTimeout(() => setFlash(false), 1_600);
    return () => clearTimeout(timer);
  }, [assistantUpdates]);

  const max = cart?.maxQuantityPerLine ?? 10;
  const share = cart && cart.limitCents > 0 ? Math.min(1, cart.totalCents / cart.limitCents) : 0;

  return (
    <div className={`cart${flash ? " cart-flash" : ""}`} data-testid="cart-panel">
      <header className="panel-head">
        <h2 className="panel-title">
          <Icon name="cart" size={17} /> Your cart
        </h2>
        {cart && (
          <span className="panel-meta" data-testid="cart-count">
            {cart.itemCount} item{cart.itemCount === 1 ? "" : "s"}
          </span>
        )}
        <span className={`updated-tag${flash ? " is-visible" : ""}`} aria-hidden={!flash}>
          <Icon name="spark" size={12} /> Updated
          <span className="hide-narrow"> by the assistant</span>
        </span>
      </header>

      {notice && (
        <div
          className={`banner ${notice.kind === "rule" ? "banner-warn" : "banner-error"}`}
          role="alert"
          data-testid="cart-error"
          key={notice.seq}
        >
          <Icon name="alert" size={15} />
          <span>{friendlyRule(notice.message)}</span>
          <button type="button" className="btn-icon" onClick={dismiss} aria-label="Dismiss message">
            <Icon name="x" size={14} />
          </button>
        </div>
      )}

      {!cart ? (
        model.loadFailed ? (
          <div className="banner banner-error" role="alert">
            <Icon name="alert" size={15} />
            <span>The cart could not be loaded.</span>
            <button type="button" className="btn btn-link" onClick={() => void model.refresh()}>
              Retry
            </button>
          </div>
        ) : (
          <div className="cart-loading" aria-busy="true">
            <span className="skeleton skeleton-line" />
            <span className="skeleton skeleton-line short" />
          </div>
        )
      ) : cart.lines.length === 0 ? (
        <div className="cart-empty">
          <p>Your cart is empty.</p>
          <p className="muted">
            Ask the assistant to add something, or use “Add” on a product card.
          </p>
        </div>
      ) : (
        <ul className="cart-lines">
          {cart.lines.map((line) => {
            const lineBusy = busy === line.productId;
            return (
              <li
                key={line.productId}
                className="cart-line"
                data-testid="cart-line"
                data-product-id={line.productId}
              >
                <ProductPicture
                  id={line.productId}
                  category={book?.get(line.productId)?.category}
                  name={line.name}
                  size="small"
                />
                <div className="cart-line-main">
                  <div className="cart-line-name">{line.name}</div>
                  {variantOf(line) && (
                    <div className="cart-line-variant" data-testid="cart-variant">
                      {variantOf(line)}
                    </div>
                  )}
                  <div className="cart-line-unit muted">{line.unitPrice} each</div>
                </div>
                <fieldset className="stepper">
                  <legend className="visually-hidden">Quantity of {line.name}</legend>
                  <button
                    type="button"
                    className="btn-icon"
                    disabled={lineBusy}
                    onClick={() =>
                      void change(
                        line.quantity <= 1
                          ? { kind: "remove", productId: line.productId }
                          : { kind: "set", productId: line.productId, quantity: line.quantity - 1 },
                      )
                    }
                    aria-label={`Decrease quantity of ${line.name}`}
                  >
                    <Icon name="minus" size={14} />
                  </button>
                  <span className="stepper-value" data-testid="cart-quantity" aria-live="polite">
                    {lineBusy ? <Spinner size={12} /> : line.quantity}
                  </span>
                  <button
                    type="button"
                    className="btn-icon"
                    disabled={lineBusy}
                    onClick={() =>
                      void change({
                        kind: "set",
                        productId: line.productId,
                        quantity: line.quantity + 1,
                      })
                    }
                    aria-label={`Increase quantity of ${line.name}`}
                    title={line.quantity >= max ? `A line holds at most ${max}` : undefined}
                  >
                    <Icon name="plus" size={14} />
                  </button>
                </fieldset>
                <div className="cart-line-total">{line.lineTotal}</div>
                <button
                  type="button"
                  className="btn-icon btn-remove"
                  disabled={lineBusy}
                  onClick={() => void change({ kind: "remove", productId: line.productId })}
                  aria-label={`Remove ${line.name} from cart`}
                >
                  <Icon name="trash" size={15} />
                </button>
              </li>
            );
          })}
        </ul>
      )}

      {cart && (
        <footer className="cart-foot">
          <div className="cart-total-row">
            <span>Total</span>
            <strong data-testid="cart-total">{cart.total}</strong>
          </div>
          <div className="cart-limit-row">
            <div className="limit-bar" aria-hidden="true">
              <span
                className={`limit-fill${share > 0.9 ? " is-high" : ""}`}
                style={{ width: `${share * 100}%` }}
              />
            </div>
            <span className="cart-limit muted">
              Limit {cart.limit} · {max} per line
            </span>
          </div>
          <button
            type="button"
            className="btn btn-primary btn-block"
            disabled={running || cart.lines.length === 0}
            onClick={onCheckout}
          >
            Check out with the assistant
          </button>
        </footer>
      )}
    </div>
  );
}
