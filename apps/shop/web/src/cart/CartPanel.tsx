/**
 * The shopper's cart (it belongs to the shopper, not to one chat), always in view: lines (a
 * picture of the product's kind, its size and colour) with − / + and remove (REST), the total
 * against the cart's limit, the rule's own sentence when a change is refused, and a short
 * highlight when the assistant changed the cart while it was talking. A line still missing the
 * size or colour its product needs (a cart from before sizes were required) is marked "Choose a
 * size" with a picker, and checkout asks for it instead of starting. The lines scroll; the total
 * and the checkout button never leave the panel. Its words follow the page's language.
 */

import { useEffect, useState } from "react";
import { ProductPicture } from "../cards/ProductPicture";
import type { ProductBook } from "../chat/product-book";
import { errorWords } from "../i18n/error-words";
import { count, type Lang, pick } from "../i18n/lang";
import { problemSentence } from "../i18n/problem-words";
import { useLang } from "../i18n/shopper-lang";
import { Icon, Spinner } from "../ui/Icon";
import type { CartModel } from "./use-cart";
import { VariantPicker } from "./VariantPicker";
import { variantOf } from "./variant-words";

export { variantOf };

/**
 * A refused change in the panel's language, from its code and facts (never the server's English
 * sentence on a Chinese page); any other error by its code.
 */
function noticeWords(
  notice: NonNullable<CartModel["notice"]>,
  lang: Lang,
  book: ProductBook | undefined,
): string {
  const said =
    notice.kind === "rule" && notice.problem
      ? problemSentence(notice.problem, lang, book ?? new Map())
      : undefined;
  if (said) return said;
  return errorWords({ code: notice.problem?.code ?? "internal", message: notice.message }, lang);
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
  const lang = useLang();
  const { cart, busy, notice, dismiss, change, assistantUpdates } = model;
  const [flash, setFlash] = useState(false);
  /** Checkout was asked for while a line still needs a size or colour. */
  const [askChoice, setAskChoice] = useState(false);
  const incomplete = cart?.lines.filter((l) => l.needs) ?? [];
  useEffect(() => {
    if (incomplete.length === 0) setAskChoice(false);
  }, [incomplete.length]);
  // Once the notice is shown (the lines' room shrank), the first line's picker comes into view.
  useEffect(() => {
    if (!askChoice) return;
    document
      .querySelector(".cart-line.needs-choice .variant-picker")
      ?.scrollIntoView({ block: "nearest" });
  }, [askChoice]);

  useEffect(() => {
    if (assistantUpdates === 0) return;
    setFlash(true);
    const timer = setTimeout(() => setFlash(false), 1_600);
    return () => clearTimeout(timer);
  }, [assistantUpdates]);

  const max = cart?.maxQuantityPerLine ?? 10;
  const share = cart && cart.limitCents > 0 ? Math.min(1, cart.totalCents / cart.limitCents) : 0;

  return (
    <div className={`cart${flash ? " cart-flash" : ""}`} data-testid="cart-panel" lang={lang}>
      <header className="panel-head">
        <h2 className="panel-title">
          <Icon name="cart" size={17} /> {pick(lang, "Your cart", "购物车")}
        </h2>
        {cart && (
          <span className="panel-meta" data-testid="cart-count">
            {count(lang, cart.itemCount, "item")}
          </span>
        )}
        <span className={`updated-tag${flash ? " is-visible" : ""}`} aria-hidden={!flash}>
          <Icon name="spark" size={12} /> {pick(lang, "Updated", "已更新")}
          <span className="hide-narrow">{pick(lang, " by the assistant", "（助手）")}</span>
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
          <span>{noticeWords(notice, lang, book)}</span>
          <button
            type="button"
            className="btn-icon"
            onClick={dismiss}
            aria-label={pick(lang, "Dismiss message", "关闭提示")}
          >
            <Icon name="x" size={14} />
          </button>
        </div>
      )}

      {!cart ? (
        model.loadFailed ? (
          <div className="banner banner-error" role="alert">
            <Icon name="alert" size={15} />
            <span>{pick(lang, "The cart could not be loaded.", "购物车没能加载。")}</span>
            <button type="button" className="btn btn-link" onClick={() => void model.refresh()}>
              {pick(lang, "Retry", "重试")}
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
          <p>{pick(lang, "Your cart is empty.", "购物车是空的。")}</p>
          <p className="muted">
            {pick(
              lang,
              "Ask the assistant to add something, or use “Add” on a product card.",
              "请助手帮您加入商品，或点商品卡片上的“加入”。",
            )}
          </p>
        </div>
      ) : (
        <ul className="cart-lines">
          {cart.lines.map((line) => {
            const lineBusy = busy === line.productId;
            // Which line of the product, when it is in the cart in several sizes or colours.
            const which = { size: line.size, color: line.color };
            return (
              <li
                key={`${line.productId}|${line.size ?? ""}|${line.color ?? ""}`}
                className={`cart-line${line.needs ? " needs-choice" : ""}`}
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
                  {variantOf(line, lang) && (
                    <div className="cart-line-variant" data-testid="cart-variant">
                      {variantOf(line, lang)}
                    </div>
                  )}
                  <div className="cart-line-unit muted">
                    {pick(lang, `${line.unitPrice} each`, `单价 ${line.unitPrice}`)}
                  </div>
                </div>
                <fieldset className="stepper">
                  <legend className="visually-hidden">
                    {pick(lang, `Quantity of ${line.name}`, `${line.name} 的数量`)}
                  </legend>
                  <button
                    type="button"
                    className="btn-icon"
                    disabled={lineBusy}
                    onClick={() =>
                      void change(
                        line.quantity <= 1
                          ? { kind: "remove", productId: line.productId, line: which }
                          : {
                              kind: "set",
                              productId: line.productId,
                              quantity: line.quantity - 1,
                              line: which,
                            },
                      )
                    }
                    aria-label={pick(
                      lang,
                      `Decrease quantity of ${line.name}`,
                      `减少 ${line.name} 的数量`,
                    )}
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
                        line: which,
                      })
                    }
                    aria-label={pick(
                      lang,
                      `Increase quantity of ${line.name}`,
                      `增加 ${line.name} 的数量`,
                    )}
                    title={
                      line.quantity >= max
                        ? pick(lang, `A line holds at most ${max}`, `每行最多 ${max} 件`)
                        : undefined
                    }
                  >
                    <Icon name="plus" size={14} />
                  </button>
                </fieldset>
                <div className="cart-line-total">{line.lineTotal}</div>
                <button
                  type="button"
                  className="btn-icon btn-remove"
                  disabled={lineBusy}
                  onClick={() =>
                    void change({ kind: "remove", productId: line.productId, line: which })
                  }
                  aria-label={pick(
                    lang,
                    `Remove ${line.name} from cart`,
                    `从购物车移除 ${line.name}`,
                  )}
                >
                  <Icon name="trash" size={15} />
                </button>
                {line.needs && (
                  <div className="cart-line-choice">
                    <div className="pill pill-warn cart-line-needs" data-testid="cart-line-needs">
                      <Icon name="alert" size={12} /> {needsWords(line.needs.missing, lang)}
                    </div>
                    <VariantPicker
                      name={line.name}
                      sizes={line.needs.sizes}
                      colors={line.needs.colors}
                      askSize={line.needs.missing.includes("size")}
                      askColor={line.needs.missing.includes("color")}
                      lang={lang}
                      confirmLabel={pick(lang, "Save", "保存")}
                      onConfirm={(variant) =>
                        void change({
                          kind: "set",
                          productId: line.productId,
                          ...variant,
                          line: which,
                        })
                      }
                      testId="cart-variant-picker"
                    />
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}

      {cart && (
        <footer className="cart-foot">
          <div className="cart-total-row">
            <span>{pick(lang, "Total", "合计")}</span>
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
              {pick(
                lang,
                `Limit ${cart.limit} · ${max} per line`,
                `上限 ${cart.limit} · 每行 ${max} 件`,
              )}
            </span>
          </div>
          {askChoice && incomplete.length > 0 && (
            <div className="banner banner-warn" role="alert" data-testid="cart-choose-first">
              <Icon name="alert" size={15} />
              <span>
                {pick(
                  lang,
                  `Choose ${incomplete.map((l) => `the ${needsNoun(l.needs!.missing, lang)} of the ${l.name}`).join(" and ")} before checking out.`,
                  `结账前请先选择${incomplete.map((l) => `${l.name} 的${needsNoun(l.needs!.missing, lang)}`).join("、")}。`,
                )}
              </span>
            </div>
          )}
          <button
            type="button"
            className="btn btn-primary btn-block"
            disabled={running || cart.lines.length === 0}
            onClick={() => (incomplete.length > 0 ? setAskChoice(true) : onCheckout())}
          >
            {pick(lang, "Check out with the assistant", "让助手结账")}
          </button>
        </footer>
      )}
    </div>
  );
}

/** "size", "colour", "size and colour" (尺码, 颜色, 尺码和颜色). */
function needsNoun(missing: readonly ("size" | "color")[], lang: "en" | "zh"): string {
  const size = missing.includes("size");
  const color = missing.includes("color");
  return pick(
    lang,
    size && color ? "size and colour" : size ? "size" : "colour",
    size && color ? "尺码和颜色" : size ? "尺码" : "颜色",
  );
}

/** The mark of a line that still needs a choice: "Choose a size" (请选择尺码). */
function needsWords(missing: readonly ("size" | "color")[], lang: "en" | "zh"): string {
  return pick(lang, `Choose a ${needsNoun(missing, lang)}`, `请选择${needsNoun(missing, lang)}`);
}
