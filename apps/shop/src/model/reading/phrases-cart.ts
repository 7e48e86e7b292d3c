/** Phrase steps that change the cart or ask about it. */

import { countIn, explicitCount, isNegated, stripFiller } from "../intent-words.js";
import { catalogIndex } from "../product-resolver.js";
import { readCorrection, readKeepOnly } from "../read-cart-edit.js";
import { namedItems, readShownRun } from "../read-mention.js";
import { readVariant, withoutVariant } from "../read-variant.js";
import type { ShopperIntent } from "../shopper-intents.js";
import { addBody, readCartChange } from "./phrase-words.js";
import { ADDING, type Said } from "./said.js";

/** "only keep the jacket". */
export function keepOnly(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const keep = readKeepOnly(text);
  if (keep) return keep;
  return undefined;
}

/** "wait, not that one, the …". */
export function correction(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const correction = readCorrection(text);
  if (correction) return correction;
  return undefined;
}

/** Emptying the cart (or declining to). */
export function clearCart(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (
    /(empty|clear|reset|wipe|clean)( out)? (my |the |our )?(cart|basket)|(remove|delete|take out|drop) (everything|all( the)? (items|things|products)|all of (it|them)|it all)( from| in| out of)?|start (over|again) with (an? )?(new |empty )?cart|清空(购物车)?|全部(删除|删掉|移除)|都不要了|全都不要/.test(
      text,
    )
  ) {
    return isNegated(text) && !/都不要了|全都不要/.test(text)
      ? { kind: "declined" }
      : { kind: "clear-cart" };
  }

  return undefined;
}

/** A line (or some of its units) out of the cart. */
export function remove(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const removal =
    /\b(remove|delete|take out|take off|drop|get rid of|ditch)\b|take .+ (out|off)|(don'?t|do not|no longer) (want|need) (the |those |these |that |this |my )?(.+?) (anymore|any more)|^(?:actually,? |oh,? |and )?i (?:don'?t|do not|no longer) (?:want|need) (?:the|that|this|those|these|my) .+$|删除|删掉|删了|移除|去掉|拿掉|不要了|不想要了/;
  if (removal.test(text)) {
    const dontWant =
      text.match(/(?:don'?t|do not|no longer) (?:want|need) (.+?) (?:anymore|any more)/) ??
      text.match(
        /i (?:don'?t|do not|no longer) (?:want|need) ((?:the|that|this|those|these|my) .+)$/,
      );
    const zhVerb = /删除|删掉|删了|移除|去掉|拿掉|不要了|不想要了/;
    const rest = dontWant
      ? dontWant[1]!
      : zhVerb.test(text)
        ? // Chinese puts the object first ("把袜子删掉") or after the verb ("删除袜子").
          text
            .replace(/(从)?购物车(里|中)?(的)?/g, " ")
            .replace(/帮我|请|把|给我|吧|。|！/g, " ")
            .replace(zhVerb, " ")
        : text
            .replace(/.*?\b(remove|delete|take out|take off|drop|get rid of|ditch|take)\b/, "")
            .replace(/\b(out|off)\b/g, " ")
            .replace(/\b(from|of|in|out of) (my |the )?(cart|basket|order)\b.*$/, "");
    const [item] = namedItems(rest);
    const quantity = explicitCount(rest);
    return {
      kind: "remove",
      query: item?.query ?? "",
      ...(item?.ref ? { ref: item.ref } : {}),
      ...(quantity !== undefined ? { quantity } : {}),
    };
  }

  return undefined;
}

/** A quantity or variant change of a cart line. */
export function cartChange(said: Said): ShopperIntent | undefined {
  const { text } = said;
  const change = readCartChange(text);
  if (change) return change;
  return undefined;
}

/** "I'd like the aero trail runner in 10": a product picked, not a browse. */
export function wanting(said: Said): ShopperIntent | undefined {
  const { text, wantsTotal, priced } = said;
  const wanting = text.match(
    /^(?:(?:ok|okay|yes|yeah|great|then),? )*(?:i(?:'?d| would) like|i want|i need|i'?ll go with|let me get|can i (?:get|have)|could i (?:get|have)|我要|我想要)(.+)$/,
  );
  if (wanting && !priced && !ADDING.test(text)) {
    // "i want the aero trail runner in size 10" picks a product; "i want running shoes" browses.
    const items = namedItems(wanting[1]!);
    const specific = items.every(
      (item) => item.ref !== undefined || catalogIndex().resolve(item.query).kind === "found",
    );
    if (items.length > 0 && specific) return { kind: "add", items, total: wantsTotal };
  }
  return undefined;
}

/** "don't add the socks": nothing is added. */
export function declinedAdd(said: Said): ShopperIntent | undefined {
  const { text } = said;
  // "don't add the socks": nothing is added.
  if (
    ADDING.test(text) &&
    /^(please )?(don'?t|do not|no need to|never) (add|put|buy|get)\b|不要(加|买|放)|别(加|买|放)/.test(
      text,
    )
  )
    return { kind: "declined" };
  return undefined;
}

/** Adding products: named, or a run of the products shown. */
export function add(said: Said): ShopperIntent | undefined {
  const { text, wantsTotal, priced } = said;
  if (ADDING.test(text) && !priced && !/^(should|how|why|what|where|when|is|does)\b/.test(text)) {
    const body = addBody(text);
    const variant = readVariant(text);
    const shownVariant = {
      ...(variant.size !== undefined ? { size: variant.size } : {}),
      ...(variant.color !== undefined ? { color: variant.color } : {}),
    };
    const bare = withoutVariant(body)
      .replace(
        /\b(you showed( me)?|you (just )?showed|shown|above|on (the )?(screen|list)|please)\b|(的)?商品/g,
        " ",
      )
      .replace(/\s+/g, " ")
      .trim();
    // "the last two you showed", "前两件商品": a run of the products shown.
    const run = readShownRun(bare);
    if (
      run &&
      (run.count >= 2 || run.from === "end") &&
      stripFiller(bare.replace(/\b(first|top|last|bottom)\b|前|后面|后|最后/g, " ")) === ""
    )
      return { kind: "add-shown", ...run, ...shownVariant, total: wantsTotal };
    const shown =
      /^(them|these|those|both|all|all of them|all three|everything shown|the (two|three|four) (of them|shown|above)|these (two|three|four)|those (two|three|four)|the (two|three|four)|两(件|个|款|双)?|这(两|几|些|三)(件|个|款|双)?|那(两|几|些|三)(件|个|款|双)?|(两|几|三)件|它们|都|都要|全要|全部要)$/;
    if (shown.test(bare)) {
      const all = /^(all|all of them|everything shown|都|都要|全要|全部要)$/.test(bare);
      // "both" of more than two shown is not said which: asked, like "those".
      const count = all ? 99 : /^both$/.test(bare) ? undefined : countIn(bare);
      return {
        kind: "add-shown",
        ...(count !== undefined ? { count } : {}),
        ...shownVariant,
        total: wantsTotal,
      };
    }
    if (
      /^(something|anything|some stuff|stuff|a gift|a present|gifts?|东西|点东西|礼物)\b/.test(bare)
    )
      return { kind: "vague" };
    const items = namedItems(body);
    const [only] = items;
    if (items.length === 1 && only?.ref?.kind === "them")
      return {
        kind: "add-shown",
        ...(only.ref.count !== undefined ? { count: only.ref.count } : {}),
        ...shownVariant,
        total: wantsTotal,
      };
    // One item: a size or colour said anywhere in the message is its own ("…加入购物车，炭灰色").
    if (only && items.length === 1) {
      if (only.size === undefined && variant.size !== undefined) only.size = variant.size;
      if (only.color === undefined && variant.color !== undefined) only.color = variant.color;
    }
    if (items.length > 0) return { kind: "add", items, total: wantsTotal };
    // "add to cart", "加入购物车": the product the conversation is about.
    return {
      kind: "add",
      items: [{ query: "", quantity: 1, ref: { kind: "it" } }],
      total: wantsTotal,
    };
  }

  return undefined;
}

/** "what's in my cart?". */
export function viewCart(said: Said): ShopperIntent | undefined {
  const { text } = said;
  if (
    /(what'?s|what is|whats|what do i have|what have i got) in (my |the )?(cart|basket)|how many (items|things|products)( are| do i have)? in (my |the )?(cart|basket)|(show|view|see|open|check) (me )?(my |the )?(cart|basket)|^(my )?(cart|basket)\??$|购物车里|看看购物车|查看购物车|看一下购物车|购物车有什么/.test(
      text,
    )
  )
    return { kind: "view-cart" };
  return undefined;
}

/** The total, with delivery or shipping asked about or not. */
export function total(said: Said): ShopperIntent | undefined {
  const { text, wantsTotal } = said;
  const delivery = /\b(delivery|shipping|postage)\b|运费|邮费|快递费|配送费|包邮/.test(text);
  if (
    wantsTotal ||
    delivery ||
    /how much (is|do) (it|i owe|everything)|what do i owe|what'?s the damage/.test(text)
  )
    return delivery ? { kind: "total", delivery: true } : { kind: "total" };

  return undefined;
}

/** "change it": what to change is asked. */
export function changeIt(said: Said): ShopperIntent | undefined {
  const { text } = said;
  // "change it": what to change is asked.
  if (
    /^(change|edit|modify|switch|swap) (it|that|this|that one|this one)$|^(改一下|换一下)$/.test(
      text,
    )
  )
    return { kind: "set-variant", query: "", ref: { kind: "it" } };

  return undefined;
}
