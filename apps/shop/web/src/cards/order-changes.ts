/**
 * What changed in an order the shopper had confirmed, in words: the server asks again when the
 * order it would place is no longer the one confirmed (a price changed, the cart was edited in
 * another chat, a sale ended), and its request carries the changes as paths into the order's
 * effect (`lines["<key>"].unitPriceCents`, `totalCents`) with the values before and after. The
 * merchant's changes to several products are bound the same way (`lines["<id>"].afterCents`,
 * `.add`).
 */

import type { EffectChange } from "overlap-runtime/client";
import { formatCents } from "../api/format";
import { isRecord } from "../api/types";
import { type Lang, pick } from "../i18n/lang";

const LINE = /^lines\["((?:[^"\\]|\\.)*)"\](?:\.(\w+))?$/;

/** One sentence per change a shopper cares about (the item count follows from the lines). */
export function orderChangeWords(
  changes: readonly EffectChange[],
  names: ReadonlyMap<string, string>,
  lang: Lang,
): string[] {
  const words: string[] = [];
  for (const change of changes) {
    if (change.path === "itemCount") continue;
    if (change.path === "totalCents") {
      words.push(
        pick(
          lang,
          `The total is now ${money(change.after)}, was ${money(change.before)}.`,
          `总价现在是 ${money(change.after)}，原来是 ${money(change.before)}。`,
        ),
      );
      continue;
    }
    const line = LINE.exec(change.path);
    if (!line) continue;
    const key = JSON.parse(`"${line[1] ?? ""}"`) as string;
    const field = line[2];
    const name = names.get(key) ?? nameIn(change.before) ?? nameIn(change.after) ?? key;
    if (field === undefined) {
      const quantity = quantityIn(change.after ?? change.before);
      words.push(
        change.after === undefined
          ? pick(lang, `${name} is no longer in the order.`, `${name} 已不在订单里。`)
          : pick(lang, `${name} was added (${quantity}).`, `新增了 ${name}（${quantity} 件）。`),
      );
    } else if (field === "unitPriceCents") {
      words.push(
        pick(
          lang,
          `${name} is now ${money(change.after)}, was ${money(change.before)}.`,
          `${name} 现价 ${money(change.after)}，原价 ${money(change.before)}。`,
        ),
      );
    } else if (field === "quantity") {
      words.push(
        pick(
          lang,
          `The cart now holds ${String(change.after)} × ${name}, was ${String(change.before)}.`,
          `购物车里的 ${name} 现在是 ${String(change.after)} 件，原来是 ${String(change.before)} 件。`,
        ),
      );
    } else if (field === "afterCents") {
      words.push(
        pick(
          lang,
          `${name} would now be ${money(change.after)}, was ${money(change.before)}.`,
          `${name} 将是 ${money(change.after)}，原来是 ${money(change.before)}。`,
        ),
      );
    } else if (field === "add") {
      words.push(
        pick(
          lang,
          `${name} would gain ${String(change.after)} units, was ${String(change.before)}.`,
          `${name} 将补货 ${String(change.after)} 件，原来是 ${String(change.before)} 件。`,
        ),
      );
    } else if (field === "name") {
      words.push(
        pick(
          lang,
          `${String(change.before)} is now called ${String(change.after)}.`,
          `${String(change.before)} 已改名为 ${String(change.after)}。`,
        ),
      );
    }
  }
  return words;
}

function money(value: unknown): string {
  return typeof value === "number" ? formatCents(value) : "–";
}

function nameIn(value: unknown): string | undefined {
  return isRecord(value) && typeof value.name === "string" ? value.name : undefined;
}

function quantityIn(value: unknown): string {
  return isRecord(value) && typeof value.quantity === "number" ? String(value.quantity) : "?";
}
