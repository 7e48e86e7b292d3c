/** The side-by-side comparison (`compare_products`); columns appear as the ids stream in. */

import type { ReactNode } from "react";
import type { Product } from "../api/types";
import { Rating, StockPill, Swatch } from "./ProductCards";

export function ComparisonTable({
  ids,
  products,
  cheapestId,
  bestRatedId,
}: {
  ids: readonly string[];
  products: readonly Product[] | undefined;
  cheapestId: string | undefined;
  bestRatedId: string | undefined;
}) {
  const columns: { key: string; product: Product | undefined; id: string | undefined }[] = products
    ? products.map((p) => ({ key: p.id, product: p, id: p.id }))
    : (ids.length > 0 ? ids : [undefined, undefined]).map((id, i) => ({
        key: id ?? `placeholder-${i}`,
        product: undefined,
        id,
      }));
  const cell = (c: (typeof columns)[number], render: (p: Product) => ReactNode) =>
    c.product ? render(c.product) : <span className="skeleton skeleton-line short" />;
  return (
    <div className="compare-scroll">
      <table className="compare" aria-busy={products === undefined}>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Property</span>
            </th>
            {columns.map((c) => (
              <th scope="col" key={c.key} data-product-id={c.id}>
                <div className="compare-head">
                  {c.product ? (
                    <Swatch id={c.product.id} name={c.product.name} />
                  ) : (
                    <span className="swatch skeleton" />
                  )}
                  <span className="compare-name">
                    {c.product ? c.product.name : c.id ? <code className="id">{c.id}</code> : ""}
                  </span>
                </div>
                <div className="compare-badges">
                  {c.product && c.product.id === cheapestId && (
                    <span className="pill pill-accent">Cheapest</span>
                  )}
                  {c.product && c.product.id === bestRatedId && (
                    <span className="pill pill-ok">Best rated</span>
                  )}
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Price</th>
            {columns.map((c) => (
              <td key={c.key} className="num strong">
                {cell(c, (p) => p.price)}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">Rating</th>
            {columns.map((c) => (
              <td key={c.key}>
                {cell(c, (p) => (
                  <Rating rating={p.rating} />
                ))}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">Stock</th>
            {columns.map((c) => (
              <td key={c.key}>
                {cell(c, (p) => (
                  <StockPill stock={p.stock} />
                ))}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">Brand</th>
            {columns.map((c) => (
              <td key={c.key}>{cell(c, (p) => p.brand)}</td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}
