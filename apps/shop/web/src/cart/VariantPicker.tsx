/**
 * Choosing a size and/or colour: for a product card's "Add" when the product needs one, and for
 * a cart line that still lacks one. Only the choices asked for are shown; the confirm button
 * waits until each has a value.
 */

import { useState } from "react";
import { colorName } from "../i18n/color-words";
import { type Lang, pick } from "../i18n/lang";

/** The size and colour picked. */
export interface PickedVariant {
  size?: string;
  color?: string;
}

/** What a product needs chosen before it can go into the cart. */
export function variantNeeds(product: { sizes: readonly string[]; colors: readonly string[] }) {
  return {
    size: product.sizes.length > 0,
    color: product.colors.length > 1,
  };
}

export function VariantPicker({
  name,
  sizes,
  colors,
  askSize,
  askColor,
  lang,
  confirmLabel,
  onConfirm,
  onCancel,
  testId,
}: {
  name: string;
  sizes: readonly string[];
  colors: readonly string[];
  askSize: boolean;
  askColor: boolean;
  lang: Lang;
  confirmLabel: string;
  onConfirm: (variant: PickedVariant) => void;
  onCancel?: (() => void) | undefined;
  testId: string;
}) {
  const [size, setSize] = useState("");
  const [color, setColor] = useState("");
  const ready = (!askSize || size !== "") && (!askColor || color !== "");
  return (
    <div className="variant-picker" data-testid={testId}>
      {askSize && (
        <label className="variant-field">
          <span>{pick(lang, "Size", "尺码")}</span>
          <select
            value={size}
            onChange={(e) => setSize(e.target.value)}
            aria-label={pick(lang, `Size of ${name}`, `${name} 的尺码`)}
          >
            <option value="">{pick(lang, "Choose…", "请选择…")}</option>
            {sizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      )}
      {askColor && (
        <label className="variant-field">
          <span>{pick(lang, "Colour", "颜色")}</span>
          <select
            value={color}
            onChange={(e) => setColor(e.target.value)}
            aria-label={pick(lang, `Colour of ${name}`, `${name} 的颜色`)}
          >
            <option value="">{pick(lang, "Choose…", "请选择…")}</option>
            {colors.map((c) => (
              <option key={c} value={c}>
                {colorName(c, lang)}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="variant-actions">
        <button
          type="button"
          className="btn btn-primary btn-small"
          disabled={!ready}
          onClick={() =>
            onConfirm({
              ...(askSize ? { size } : {}),
              ...(askColor ? { color } : {}),
            })
          }
        >
          {confirmLabel}
        </button>
        {onCancel && (
          <button type="button" className="btn btn-link btn-small" onClick={onCancel}>
            {pick(lang, "Cancel", "取消")}
          </button>
        )}
      </div>
    </div>
  );
}
