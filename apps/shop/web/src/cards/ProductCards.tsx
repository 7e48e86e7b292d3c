/**
 * Product cards (`show_products`): a grid of tiles, each with a picture of its category, its
 * stock, and what of it is already in the cart. The preview and the final card share the grid and
 * the tile size, so filling in never moves anything: a skeleton tile becomes a product.
 */

import { useState } from "react";
import type { Product } from "../api/types";
import { type PickedVariant, VariantPicker, variantNeeds } from "../cart/VariantPicker";
import { useChatView } from "../chat/view-context";
import { categoryName } from "../i18n/category-words";
import { type Lang, pick } from "../i18n/lang";
import { Icon, Spinner } from "../ui/Icon";
import { ProductPicture } from "./ProductPicture";
import { PriceCell } from "./SalePrice";

/** What a card can do beyond showing (the shopper can add to the cart from a tile). */
export interface CardActions {
  /** Adds one unit, in the size and colour picked when the product needs them. */
  addToCart?: ((productId: string, variant?: PickedVariant) => void) | undefined;
  /** The product being added, if any. */
  busyProductId?: string | undefined;
  /** Units of each product already in the cart, by product id. */
  inCart?: ReadonlyMap<string, number> | undefined;
}

export function StockPill({ stock, lang = "en" }: { stock: number; lang?: Lang }) {
  if (stock <= 0) {
    return <span className="pill pill-muted">{pick(lang, "Sold out", "已售罄")}</span>;
  }
  if (stock <= 5) {
    return (
      <span className="pill pill-warn">{pick(lang, `Only ${stock} left`, `仅剩 ${stock} 件`)}</span>
    );
  }
  return <span className="pill pill-ok">{pick(lang, `${stock} in stock`, `库存 ${stock}`)}</span>;
}

export function Rating({ rating, lang = "en" }: { rating: number; lang?: Lang }) {
  return (
    <span
      className="rating"
      role="img"
      aria-label={pick(lang, `Rated ${rating} out of 5`, `评分 ${rating}（满分 5）`)}
    >
      <Icon name="star" size={13} />
      {rating.toFixed(1)}
    </span>
  );
}

/** "In your cart: 2" on a tile whose product is in the cart. */
export function InCartPill({ quantity, lang }: { quantity: number; lang: Lang }) {
  return (
    <span className="pill pill-accent in-cart" data-testid="in-cart">
      <Icon name="check" size={11} />
      {pick(lang, `${quantity} in your cart`, `购物车里有 ${quantity} 件`)}
    </span>
  );
}

/** One tile: a product, or (while the arguments stream) its id and bars where the rest will be. */
function Tile({
  product,
  id,
  actions,
}: {
  product: Product | undefined;
  id: string | undefined;
  actions: CardActions;
}) {
  const { addToCart, busyProductId, inCart } = actions;
  const { lang, book, developer } = useChatView();
  const [picking, setPicking] = useState(false);
  if (!product) {
    const known = id ? book.get(id) : undefined;
    return (
      <li className="tile tile-skeleton" data-product-id={id} aria-hidden="true">
        {id && known ? (
          <ProductPicture id={id} category={known.category} />
        ) : (
          <span className="picture picture-tile skeleton" />
        )}
        <div className="tile-name">
          {known ? (
            known.name
          ) : id && developer ? (
            <code className="id">{id}</code>
          ) : (
            <span className="skeleton skeleton-line" />
          )}
        </div>
        <div className="tile-meta">
          <span className="skeleton skeleton-line short" />
        </div>
        <div className="tile-bottom">
          <span className="skeleton skeleton-price" />
        </div>
        {addToCart && <span className="skeleton skeleton-button" />}
      </li>
    );
  }
  const busy = busyProductId === product.id;
  const held = inCart?.get(product.id) ?? 0;
  const needs = variantNeeds(product);
  return (
    <li
      className={`tile${held > 0 ? " is-in-cart" : ""}`}
      data-product-id={product.id}
      data-in-cart={held}
    >
      <ProductPicture id={product.id} category={product.category} />
      <div className="tile-name" title={product.name}>
        {product.name}
      </div>
      <div className="tile-meta">
        {product.brand}
        {product.category ? ` · ${categoryName(product.category, lang)}` : ""}
      </div>
      <div className="tile-bottom">
        <span className="tile-price">
          <PriceCell product={product} lang={lang} />
        </span>
        <Rating rating={product.rating} lang={lang} />
      </div>
      <div className="tile-pills">
        <StockPill stock={product.stock} lang={lang} />
        {held > 0 && <InCartPill quantity={held} lang={lang} />}
      </div>
      {addToCart && picking && (
        <VariantPicker
          name={product.name}
          sizes={product.sizes}
          colors={product.colors}
          askSize={needs.size}
          askColor={needs.color}
          lang={lang}
          confirmLabel={pick(lang, "Add to cart", "加入购物车")}
          onConfirm={(variant) => {
            setPicking(false);
            addToCart(product.id, variant);
          }}
          onCancel={() => setPicking(false)}
          testId="tile-variant-picker"
        />
      )}
      {addToCart && !picking && (
        <button
          type="button"
          className="btn btn-soft btn-small tile-add"
          disabled={!product.inStock || busy}
          onClick={() =>
            // A product with sizes (or several colours) is added with them: ask first.
            needs.size || needs.color ? setPicking(true) : addToCart(product.id)
          }
          aria-label={
            held > 0
              ? pick(lang, `Add another ${product.name} to cart`, `再加一件 ${product.name}`)
              : pick(lang, `Add ${product.name} to cart`, `把 ${product.name} 加入购物车`)
          }
        >
          {busy ? <Spinner size={12} /> : <Icon name="plus" size={14} />}
          {pick(lang, "Add", "加入")}
        </button>
      )}
    </li>
  );
}

/** Tiles drawn while a product card's arguments are still being written. */
const MIN_PREVIEW_TILES = 3;

/**
 * The tiles of a product card. Final: one per product. Preview: one per id written so far, and
 * placeholders up to a first row, so tiles are only ever added. The card around them is the
 * element that stays.
 */
export function ProductTiles({
  ids,
  products,
  actions,
}: {
  ids: readonly string[];
  products: readonly Product[] | undefined;
  actions: CardActions;
}) {
  // While writing, at least a row of tiles: the first ids fill placeholders, never remove them.
  const entries: { key: string; id: string | undefined; product: Product | undefined }[] = products
    ? products.map((p) => ({ key: p.id, id: p.id, product: p }))
    : [
        // By position: an id may still be growing ("p-0" then "p-0202"), or be written twice.
        ...ids.map((id, i) => ({ key: `${i}:${id}`, id, product: undefined })),
        ...Array.from({ length: Math.max(0, MIN_PREVIEW_TILES - ids.length) }, (_, i) => ({
          key: `placeholder-${ids.length + i}`,
          id: undefined,
          product: undefined,
        })),
      ];
  return (
    <ul className="tile-grid" aria-busy={products === undefined}>
      {entries.map((e) => (
        <Tile key={e.key} product={e.product} id={e.id} actions={actions} />
      ))}
    </ul>
  );
}
