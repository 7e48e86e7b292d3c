/**
 * The body of a call's card, by what is known: a display tool's preview (from its arguments as
 * they stream) or the formal UI events of its outcome (live price and stock). The header keeps
 * its place in both, so the card never jumps when it becomes final.
 */

import type { CallView, UiEvent } from "overlap-runtime/client";
import type { ReactNode } from "react";
import {
  isRecord,
  readOrder,
  readOrders,
  readProduct,
  readProducts,
  readSalesSummary,
} from "../api/types";
import { callProblem, callSentence, tidyText } from "../chat/call-words";
import { previewIds, previewString } from "../chat/tool-meta";
import { useChatView } from "../chat/view-context";
import { pick } from "../i18n/lang";
import { merchantWords } from "../i18n/merchant-words";
import { Icon, type IconName, Spinner } from "../ui/Icon";
import { ComparisonTable } from "./Comparison";
import {
  ChangeTable,
  DiscountsTable,
  EditTable,
  OrdersTable,
  readChange,
  SalesFigures,
  StockTable,
} from "./MerchantCards";
import { OrderPlaced } from "./OrderPlaced";
import { type CardActions, ProductTiles } from "./ProductCards";

/** UI event types drawn as a card (`cart-updated` is the cart panel's). */
export const CARD_TYPES: ReadonlySet<string> = new Set([
  "product-cards",
  "comparison",
  "order-placed",
  "low-stock",
  "inventory",
  "inventory-updated",
  "products-changed",
  "product-edited",
  "discounts",
  "orders",
  "sales-summary",
]);

/** Where the card is: being written, complete and loading, final, or over without a card. */
export type CardStage = "writing" | "loading" | "final" | "settled";

function CardHead({
  icon,
  title,
  stage,
  children,
}: {
  icon: IconName;
  title: ReactNode;
  stage: CardStage;
  children?: ReactNode;
}) {
  const { lang } = useChatView();
  return (
    <header className="card-head">
      <span className="card-icon">
        <Icon name={icon} size={15} />
      </span>
      <h3 className="card-title">{title}</h3>
      {children}
      <span className={`card-stage stage-${stage}`}>
        {stage === "writing" && (
          <>
            <Spinner size={11} /> {pick(lang, "Writing…", "正在生成…")}
          </>
        )}
        {stage === "loading" && (
          <>
            <Spinner size={11} /> {pick(lang, "Checking live prices…", "正在查询实时价格…")}
          </>
        )}
        {stage === "final" && (
          <>
            <Icon name="check" size={12} /> {pick(lang, "Live", "实时")}
          </>
        )}
      </span>
    </header>
  );
}

function Settled({ entry }: { entry: CallView }) {
  const view = useChatView();
  const { lang } = view;
  const problem = callProblem(entry, view);
  const text =
    problem ??
    (entry.result
      ? view.developer
        ? entry.result.text
        : // The shop's answer is written for the model, in English.
          pick(lang, tidyText(entry.result.text, view.book), "卡片没有保留下来。")
      : entry.phase === "invalid"
        ? pick(lang, "The card could not be drawn.", "无法显示这张卡片。")
        : pick(lang, "Not shown: the reply was stopped first.", "没有显示：回复先停止了。"));
  return <p className={`card-note ${entry.result?.isError ? "card-note-error" : ""}`}>{text}</p>;
}

/** The preview of a display tool (no UI event yet). */
export function PreviewBody({
  entry,
  stage,
  actions,
}: {
  entry: CallView;
  stage: CardStage;
  actions: CardActions;
}) {
  const args = entry.input ?? entry.preview;
  const ids = previewIds(args);
  const settled = stage === "settled";
  const view = useChatView();
  switch (entry.name) {
    case "show_products": {
      const title = previewString(args, "title");
      return (
        <>
          <CardHead
            icon="store"
            stage={stage}
            title={
              title ? (
                <span data-source="model">{title}</span>
              ) : (
                <span className="skeleton skeleton-line title" />
              )
            }
          />
          {settled ? (
            <Settled entry={entry} />
          ) : (
            <ProductTiles ids={ids} products={undefined} actions={actions} />
          )}
        </>
      );
    }
    case "compare_products":
      return (
        <>
          <CardHead
            icon="timeline"
            stage={stage}
            title={view.developer ? "Comparison" : callSentence(entry, view)}
          />
          {settled ? (
            <Settled entry={entry} />
          ) : (
            <ComparisonTable
              ids={ids}
              products={undefined}
              cheapestId={undefined}
              bestRatedId={undefined}
            />
          )}
        </>
      );
    case "show_inventory": {
      const query = previewString(args, "query");
      return (
        <>
          <CardHead
            icon="store"
            stage={stage}
            title={
              query
                ? pick(view.lang, `Inventory · “${query}”`, `库存 · “${query}”`)
                : pick(view.lang, "Inventory", "库存")
            }
          />
          {settled ? (
            <Settled entry={entry} />
          ) : (
            <StockTable products={undefined} lang={view.lang} />
          )}
        </>
      );
    }
    default:
      return (
        <>
          <CardHead
            icon="spark"
            stage={stage}
            title={view.developer ? entry.name : callSentence(entry, view)}
          />
          {settled && <Settled entry={entry} />}
        </>
      );
  }
}

/** One formal UI event as a card body. */
export function UiBody({
  ui,
  entry,
  actions,
}: {
  ui: UiEvent;
  entry: CallView;
  actions: CardActions;
}) {
  const view = useChatView();
  const { lang } = view;
  switch (ui.type) {
    case "product-cards": {
      const products = readProducts(ui.products);
      const missing = Array.isArray(ui.missing)
        ? ui.missing.filter((m) => typeof m === "string")
        : [];
      return (
        <>
          <CardHead
            icon="store"
            stage="final"
            title={
              typeof ui.title === "string" && ui.title ? (
                // The model's title for the cards, its own words.
                <span data-source="model">{ui.title}</span>
              ) : (
                pick(lang, "Products", "商品")
              )
            }
          />
          <ProductTiles ids={[]} products={products} actions={actions} />
          {missing.length > 0 && (
            <p className="card-note">
              {view.developer
                ? `Not in the catalog: ${missing.join(", ")}`
                : pick(
                    lang,
                    missing.length === 1
                      ? "One more product was asked for, but it is not in the catalog."
                      : `${missing.length} more products were asked for, but they are not in the catalog.`,
                    `另有 ${missing.length} 件商品不在目录里。`,
                  )}
            </p>
          )}
        </>
      );
    }
    case "comparison": {
      const products = readProducts(ui.products);
      return (
        <>
          <CardHead
            icon="timeline"
            stage="final"
            title={view.developer ? "Comparison" : callSentence(entry, view)}
          />
          <ComparisonTable
            ids={[]}
            products={products}
            cheapestId={typeof ui.cheapestId === "string" ? ui.cheapestId : undefined}
            bestRatedId={typeof ui.bestRatedId === "string" ? ui.bestRatedId : undefined}
          />
        </>
      );
    }
    case "inventory": {
      const query = previewString(entry.input, "query");
      return (
        <>
          <CardHead
            icon="store"
            stage="final"
            title={
              query
                ? pick(view.lang, `Inventory · “${query}”`, `库存 · “${query}”`)
                : pick(view.lang, "Inventory", "库存")
            }
          />
          <StockTable products={readProducts(ui.products)} lang={lang} />
        </>
      );
    }
    case "low-stock": {
      const threshold = typeof ui.threshold === "number" ? ui.threshold : undefined;
      const products = readProducts(ui.products);
      return (
        <>
          <CardHead
            icon="alert"
            stage="final"
            title={pick(
              lang,
              `Low stock${threshold !== undefined ? ` · ${threshold} or fewer` : ""}`,
              `库存不足${threshold !== undefined ? ` · 不超过 ${threshold}` : ""}`,
            )}
          >
            <span className="pill pill-warn">{products.length}</span>
          </CardHead>
          <StockTable products={products} highlightLow={threshold} lang={lang} />
        </>
      );
    }
    case "inventory-updated": {
      const product = readProduct(ui.product);
      return (
        <>
          <CardHead
            icon="refresh"
            stage="final"
            title={pick(lang, "Inventory updated", "库存已更新")}
          />
          <StockTable products={product ? [product] : []} lang={lang} />
        </>
      );
    }
    case "products-changed": {
      const change = readChange(ui.change);
      const w = merchantWords(lang);
      return (
        <>
          <CardHead
            icon="refresh"
            stage="final"
            title={
              change?.kind === "discount"
                ? w.discountSet(change.category, change.percent)
                : w.restocked
            }
          />
          {change ? <ChangeTable change={change} lang={lang} /> : null}
        </>
      );
    }
    case "product-edited": {
      const edit = isRecord(ui.edit) ? ui.edit : {};
      const before = readProduct(edit.before);
      const product = readProduct(edit.product);
      const changed = Array.isArray(edit.changed)
        ? edit.changed.filter((f): f is string => typeof f === "string")
        : [];
      return (
        <>
          <CardHead icon="refresh" stage="final" title={merchantWords(lang).productEdited} />
          {before && product ? (
            <EditTable before={before} product={product} changed={changed} lang={lang} />
          ) : null}
        </>
      );
    }
    case "discounts":
      return (
        <>
          <CardHead icon="store" stage="final" title={merchantWords(lang).discounts} />
          <DiscountsTable discounts={Array.isArray(ui.discounts) ? ui.discounts : []} lang={lang} />
        </>
      );
    case "order-placed": {
      const order = readOrder(ui.order);
      return (
        <>
          <CardHead icon="check" stage="final" title={pick(lang, "Order placed", "已下单")} />
          {order ? <OrderPlaced order={order} lang={lang} /> : null}
        </>
      );
    }
    case "orders":
      return (
        <>
          <CardHead icon="clock" stage="final" title={pick(lang, "Recent orders", "最近的订单")} />
          <OrdersTable orders={readOrders(ui.orders)} lang={lang} />
        </>
      );
    case "sales-summary": {
      const summary = readSalesSummary(ui.summary);
      return (
        <>
          <CardHead icon="timeline" stage="final" title={pick(lang, "Sales summary", "销售概况")} />
          {summary ? <SalesFigures summary={summary} lang={lang} /> : null}
        </>
      );
    }
    default:
      return (
        <CardHead
          icon="spark"
          stage="final"
          title={view.developer ? `${entry.name}: ${ui.type}` : callSentence(entry, view)}
        />
      );
  }
}
