/**
 * Product cards (`show_products`): a grid of tiles. The preview and the final card share the
 * grid and the tile size, so filling in never moves anything: a skeleton tile becomes a product.
 */

import { hueOf, initialsOf } from "../api/format";
import type { Product } from "../api/types";
import { Icon, Spinner } from "../ui/Icon";

/** What a card can do beyond showing (the shopper can add to the cart from a tile). */
export interface CardActions {
  addToCart?: ((productId: string) => void) | undefined;
  /** The product being added, if any. */
  busyProductId?: string | undefined;
}

export function Swatch({ id, name }: { id: string; name: string }) {
  const hue = hueOf(id);
  return (
    <span
      className="swatch"
      style={{
        background: `linear-gradient(135deg, hsl(${hue} 70% 92%), hsl(${(hue + 40) % 360} 65% 84%))`,
        color: `hsl(${hue} 45% 32%)`,
      }}
      aria-hidden="true"
    >
      {initialsOf(name)}
    </span>
  );
}

export function StockPill({ stock }: { stock: number }) {
  if (stock <= 0) return <span className="pill pill-muted">Sold out</span>;
  if (stock <= 5) return <span className="pill pill-warn">Only {stock} left</span>;
  return <span className="pill pill-ok">{stock} in stock</span>;
}

export function Rating({ rating }: { rating: number }) {
  return (
    <span className="rating" role="img" aria-label={`Rated ${rating} out of 5`}>
      <Icon name="star" size={13} />
      {rating.toFixed(1)}
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
  const { addToCart, busyProductId } = actions;
  if (!product) {
    return (
      <li className="tile tile-skeleton" data-product-id={id} aria-hidden="true">
        <div className="tile-top">
          <span className="swatch skeleton" />
          <span className="skeleton skeleton-pill" />
        </div>
        <div className="tile-name">
          {id ? <code className="id">{id}</code> : <span className="skeleton skeleton-line" />}
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
  return (
    <li className="tile" data-product-id={product.id}>
      <div className="tile-top">
        <Swatch id={product.id} name={product.name} />
        <StockPill stock={product.stock} />
      </div>
      <div className="tile-name" title={product.name}>
        {product.name}
      </div>
      <div className="tile-meta">
        {product.brand}
        {product.category ? ` · ${product.category}` : ""}
      </div>
      <div className="tile-bottom">
        <span className="tile-price">{product.price}</span>
        <Rating rating={product.rating} />
      </div>
      {addToCart && (
        <button
          type="button"
          className="btn btn-soft btn-small tile-add"
          disabled={!product.inStock || busy}
          onClick={() => addToCart(product.id)}
          aria-label={`Add ${product.name} to cart`}
        >
          {busy ? <Spinner size={12} /> : <Icon name="plus" size={14} />}
          Add
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
