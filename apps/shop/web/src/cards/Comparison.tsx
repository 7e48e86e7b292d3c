/** The side-by-side comparison (`compare_products`); columns appear as the ids stream in. */

import type { ReactNode } from "react";
import type { Product } from "../api/types";
import { useChatView } from "../chat/view-context";
import { pick } from "../i18n/lang";
import { Rating, StockPill } from "./ProductCards";
import { ProductPicture } from "./ProductPicture";

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
  const { lang, book, developer } = useChatView();
  const cell = (c: (typeof columns)[number], render: (p: Product) => ReactNode) =>
    c.product ? render(c.product) : <span className="skeleton skeleton-line short" />;
  return (
    <div className="compare-scroll">
      <table className="compare" aria-busy={products === undefined}>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">{pick(lang, "Property", "属性")}</span>
            </th>
            {columns.map((c) => (
              <th scope="col" key={c.key} data-product-id={c.id}>
                <div className="compare-head">
                  {c.product ? (
                    <ProductPicture id={c.product.id} category={c.product.category} size="small" />
                  ) : (
                    <span className="picture picture-small skeleton" />
                  )}
                  <span className="compare-name">
                    {c.product ? (
                      c.product.name
                    ) : c.id && book.get(c.id) ? (
                      book.get(c.id)?.name
                    ) : c.id && developer ? (
                      <code className="id">{c.id}</code>
                    ) : (
                      <span className="skeleton skeleton-line short" />
                    )}
                  </span>
                </div>
                <div className="compare-badges">
                  {c.product && c.product.id === cheapestId && (
                    <span className="pill pill-accent">{pick(lang, "Cheapest", "最便宜")}</span>
                  )}
                  {c.product && c.product.id === bestRatedId && (
                    <span className="pill pill-ok">{pick(lang, "Best rated", "评分最高")}</span>
                  )}
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">{pick(lang, "Price", "价格")}</th>
            {columns.map((c) => (
              <td key={c.key} className="num strong">
                {cell(c, (p) => p.price)}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">{pick(lang, "Rating", "评分")}</th>
            {columns.map((c) => (
              <td key={c.key}>
                {cell(c, (p) => (
                  <Rating rating={p.rating} lang={lang} />
                ))}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">{pick(lang, "Stock", "库存")}</th>
            {columns.map((c) => (
              <td key={c.key}>
                {cell(c, (p) => (
                  <StockPill stock={p.stock} lang={lang} />
                ))}
              </td>
            ))}
          </tr>
          <tr>
            <th scope="row">{pick(lang, "Brand", "品牌")}</th>
            {columns.map((c) => (
              <td key={c.key}>{cell(c, (p) => p.brand)}</td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}
