/**
 * A price as a shopper or the merchant sees it: while a discount applies, the price paid, the
 * list price struck through and the discount ("10% off", in Chinese "9折").
 */

import type { Product } from "../api/types";
import { discountWords } from "../i18n/discount-words";
import { type Lang, pick } from "../i18n/lang";
import "./sale-price.css";

/** `product`'s price, with its discount when one applies. */
export function PriceCell({ product, lang }: { product: Product; lang: Lang }) {
  if (product.discountPercent === undefined || !product.listPrice) return <>{product.price}</>;
  return (
    <span className="sale-price" data-discount={product.discountPercent}>
      <span className="sale-now">{product.price}</span>{" "}
      <s className="sale-was">
        <span className="visually-hidden">{pick(lang, "list price ", "原价 ")}</span>
        {product.listPrice}
      </s>{" "}
      <span className="pill pill-sale">{discountWords(product.discountPercent, lang)}</span>
    </span>
  );
}
