/**
 * The body of a call's card, by what is known: a display tool's preview (from its arguments as
 * they stream) or the formal UI events of its outcome (S5: live price and stock). The header keeps
 * its place in both, so the card never jumps when it becomes final.
 */

import type { CallEntry, UiEvent } from "overlap-runtime/client";
import type { ReactNode } from "react";
import { readOrder, readOrders, readProduct, readProducts, readSalesSummary } from "../api/types";
import { previewIds, previewString } from "../chat/tool-meta";
import { Icon, type IconName, Spinner } from "../ui/Icon";
import { ComparisonTable } from "./Comparison";
import { OrderSummary, OrdersTable, SalesFigures, StockTable } from "./MerchantCards";
import { type CardActions, ProductTiles } from "./ProductCards";

/** UI event types drawn as a card (`cart-updated` is the cart panel's). */
export const CARD_TYPES: ReadonlySet<string> = new Set([
  "product-cards",
  "comparison",
  "order-placed",
  "low-stock",
  "inventory",
  "inventory-updated",
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
            <Spinner size={11} /> Writing…
          </>
        )}
        {stage === "loading" && (
          <>
            <Spinner size={11} /> Checking live prices…
          </>
        )}
        {stage === "final" && (
          <>
            <Icon name="check" size={12} /> Live
          </>
        )}
      </span>
    </header>
  );
}

function Settled({ entry }: { entry: CallEntry }) {
  const text = entry.result?.text;
  return (
    <p className={`card-note ${entry.result?.isError ? "card-note-error" : ""}`}>
      {text ?? (entry.phase === "invalid" ? "The card could not be drawn." : "Not shown.")}
    </p>
  );
}

/** The preview of a display tool (no UI event yet). */
export function PreviewBody({
  entry,
  stage,
  actions,
}: {
  entry: CallEntry;
  stage: CardStage;
  actions: CardActions;
}) {
  const args = entry.input ?? entry.preview;
  const ids = previewIds(args);
  const settled = stage === "settled";
  switch (entry.name) {
    case "show_products": {
      const title = previewString(args, "title");
      return (
        <>
          <CardHead
            icon="store"
            stage={stage}
            title={title || <span className="skeleton skeleton-line title" />}
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
          <CardHead icon="timeline" stage={stage} title="Comparison" />
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
            title={query ? `Inventory · “${query}”` : "Inventory"}
          />
          {settled ? <Settled entry={entry} /> : <StockTable products={undefined} />}
        </>
      );
    }
    default:
      return (
        <>
          <CardHead icon="spark" stage={stage} title={entry.name} />
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
  entry: CallEntry;
  actions: CardActions;
}) {
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
            title={typeof ui.title === "string" && ui.title ? ui.title : "Products"}
          />
          <ProductTiles ids={[]} products={products} actions={actions} />
          {missing.length > 0 && (
            <p className="card-note">Not in the catalog: {missing.join(", ")}</p>
          )}
        </>
      );
    }
    case "comparison": {
      const products = readProducts(ui.products);
      return (
        <>
          <CardHead icon="timeline" stage="final" title="Comparison" />
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
            title={query ? `Inventory · “${query}”` : "Inventory"}
          />
          <StockTable products={readProducts(ui.products)} />
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
            title={`Low stock${threshold !== undefined ? ` · ${threshold} or fewer` : ""}`}
          >
            <span className="pill pill-warn">{products.length}</span>
          </CardHead>
          <StockTable products={products} highlightLow={threshold} />
        </>
      );
    }
    case "inventory-updated": {
      const product = readProduct(ui.product);
      return (
        <>
          <CardHead icon="refresh" stage="final" title="Inventory updated" />
          <StockTable products={product ? [product] : []} />
        </>
      );
    }
    case "order-placed": {
      const order = readOrder(ui.order);
      return (
        <>
          <CardHead icon="check" stage="final" title="Order placed" />
          {order ? <OrderSummary order={order} /> : null}
        </>
      );
    }
    case "orders":
      return (
        <>
          <CardHead icon="clock" stage="final" title="Recent orders" />
          <OrdersTable orders={readOrders(ui.orders)} />
        </>
      );
    case "sales-summary": {
      const summary = readSalesSummary(ui.summary);
      return (
        <>
          <CardHead icon="timeline" stage="final" title="Sales summary" />
          {summary ? <SalesFigures summary={summary} /> : null}
        </>
      );
    }
    default:
      return <CardHead icon="spark" stage="final" title={`${entry.name}: ${ui.type}`} />;
  }
}
