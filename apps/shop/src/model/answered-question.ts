/**
 * Answers to the assistant's own questions: "the merino ones" after "Which one do you mean: A or
 * B?", "the 10 in volt" after "Which size for the X?". Each turns back into the earlier request,
 * completed with what the answer chose.
 */

import { chooseVariant } from "../domain/cart.js";
import type { Product } from "../domain/catalog.js";
import type { ConversationState } from "./conversation-state.js";
import { readRef } from "./read-mention.js";
import { readVariantAnswer } from "./read-variant.js";
import { index, resolveItem } from "./resolve-item.js";
import { readShopperIntent, type ShopperIntent } from "./shopper-intent.js";
import { foldText } from "./text-match.js";

/** Where the last reply asks which product: the products it names after this are the choices. */
const QUESTION =
  /(Which one do you mean|Did you mean|The closest is|fits \d+ products|您指的是|您是指|最接近的是|符合「)/;

/**
 * "the merino ones" / "yes" / "the first one" after "Which one do you mean: A or B?": the earlier
 * request, carried out with the product chosen among the ones the question named. Undefined when
 * the request is not such an answer.
 */
export function answeredQuestion(
  state: ConversationState,
): { state: ConversationState; intent: ShopperIntent } | undefined {
  const previous = state.earlierTexts[0];
  const at = state.lastReply.search(QUESTION);
  if (previous === undefined || at < 0) return undefined;
  const own = readShopperIntent(state.userText);
  const answer = state.userText.trim();
  const words = answer.split(/\s+/).length;
  const short = words <= 6 && !/about|tell|more|介绍|详/.test(answer);
  if (!short || !["details", "unknown", "thanks", "add"].includes(own.kind)) return undefined;
  if (own.kind === "add" && own.items.some((i) => i.query !== "")) return undefined;
  // The choices: catalog products named in the question, in the order they were named.
  const question = state.lastReply.slice(at);
  const choices = index()
    .all()
    .filter((p) => question.includes(p.name))
    .sort((a, b) => question.indexOf(a.name) - question.indexOf(b.name));
  if (choices.length === 0) return undefined;
  const ids = choices.map((p) => p.id);
  let chosen: string | undefined;
  if (
    /^(yes|yeah|yep|yup|sure|ok|okay|correct|right|that one|是|是的|对|对的|好|好的|嗯|就是它)\b/i.test(
      answer,
    ) ||
    /^(是|对|好|嗯)/.test(answer)
  )
    chosen = choices.length === 1 ? ids[0] : undefined;
  else {
    // "the first one", "the cheaper one" pick among the choices; other answers name one.
    const pickRef = readRef(foldText(answer));
    const ref = pickRef?.kind === "pick" ? pickRef : undefined;
    const target = resolveItem(
      ref ? { query: "", ref } : { query: answer.replace(/\b(the|one|ones|please|pls)\b/gi, " ") },
      { ...state, shown: ids, focus: undefined, cart: undefined },
      "catalog",
      ids,
    );
    chosen = target.ok && ids.includes(target.product.id) ? target.product.id : undefined;
  }
  if (!chosen) return undefined;
  const before = readShopperIntent(previous);
  const resolved: ConversationState = { ...state, userText: previous, answer: chosen };
  // Of an add, only the items that were asked about: the others are in the cart already.
  const intent: ShopperIntent =
    before.kind === "add"
      ? { ...before, items: before.items.filter((i) => !resolveItem(i, state, "catalog").ok) }
      : before;
  return { state: resolved, intent };
}

/** Where the last reply asks for a size or colour (see `variantQuestion`). */
const VARIANT_QUESTION =
  /(Which (?:size and colour|size|colour) for the |要哪个(?:尺码和颜色|尺码|颜色))/;

/**
 * "the 10" / "a 9" / "size 10 in Volt" / "L号" after "Which size for the X: …?": the products the
 * question named, added (or, for lines in the cart, changed) with the size and colour given. The
 * earlier request supplies the quantities and any variant it named; earlier answers in a row
 * ("10", then "Volt") add up. Undefined when the request is not such an answer.
 */
export function answeredVariantQuestion(
  state: ConversationState,
): { state: ConversationState; intent: ShopperIntent } | undefined {
  const at = state.lastReply.search(VARIANT_QUESTION);
  const answer = at < 0 ? undefined : readVariantAnswer(state.userText);
  if (!answer) return undefined;
  const question = state.lastReply;
  const names = [
    ...question.matchAll(
      /Which (?:size and colour|size|colour) for the (.+?)(?: in your cart)?[?:]|([^。？！：；]+?)(?:（购物车里的）)?要哪个/g,
    ),
  ].map((m) => (m[1] ?? m[2]!).trim());
  const pending = names.flatMap((name) =>
    index()
      .all()
      .filter((p) => p.name === name),
  );
  if (pending.length === 0) return undefined;
  // Earlier answers in a row, then the request they answer.
  const answers = [answer];
  let request: string | undefined;
  for (const earlier of state.earlierTexts) {
    const before = readVariantAnswer(earlier);
    if (!before) {
      request = earlier;
      break;
    }
    answers.unshift(before);
  }
  const before = request === undefined ? undefined : readShopperIntent(request);
  const asked = (product: Product) =>
    before?.kind === "add"
      ? before.items.find((item) => {
          const target = resolveItem(item, state, "catalog");
          return target.ok && target.product.id === product.id;
        })
      : undefined;
  const items = pending.map((product, i) => {
    const item = asked(product);
    let size = item?.size;
    let color = item?.color;
    // Each size or colour goes to the products that come in it; one answer per product asked
    // about ("10 in volt and 9 in red") goes in the order they were asked.
    const own = answer.length === pending.length && pending.length > 1 ? [answer[i]!] : answer;
    for (const part of [...answers.slice(0, -1).flat(), ...own]) {
      if (part.size !== undefined && chooseVariant(product, { size: part.size }).ok)
        size = part.size;
      if (part.color !== undefined && chooseVariant(product, { color: part.color }).ok)
        color = part.color;
    }
    return {
      query: product.name,
      quantity: item?.quantity ?? 1,
      ...(size !== undefined ? { size } : {}),
      ...(color !== undefined ? { color } : {}),
    };
  });
  if (/ in your cart|（购物车里的）/.test(question)) {
    const first = items.find((i) => i.size !== undefined || i.color !== undefined);
    if (!first) return undefined;
    return { state, intent: { kind: "set-variant", ...first } };
  }
  return { state, intent: { kind: "add", items, total: before?.kind === "add" && before.total } };
}
