/**
 * Questions about products rather than requests to act: a fact of one product ("is it
 * waterproof?", "what's it made of", "适合下雨天吗") and which of the products shown is the
 * cheapest, best rated or lightest ("which one is top rated", "评分最高的是哪个").
 */

import { mentionIn, type Ref } from "./read-mention.js";

/** A fact of a product a shopper asks about. */
export type ProductAttribute = "material" | "waterproof" | "light" | "warm";

/** How a question orders the products shown ("the cheapest", "the lightest"). */
export type ShownOrder = "cheapest" | "priciest" | "best-rated" | "light" | "waterproof";

const ATTRIBUTES: ReadonlyArray<readonly [ProductAttribute, RegExp]> = [
  [
    "material",
    /what('?s| is| are) (it|they|this|that|the .+?) made (of|from)|made of what|what (material|fabric)|which (material|fabric)|什么(材质|材料|面料|做的)|(材质|面料|材料)是什么|用什么做的/,
  ],
  [
    "waterproof",
    /\b(waterproof|water ?proof|water-resistant|water resistant|good (for|in) (the )?rain|for rainy|rainy days?|in the rain|keep (my )?feet dry)\b|防水|下雨|雨天|防雨/,
  ],
  [
    "light",
    /\b(is|are) (it|they|this|that|the .+?) (light|lightweight|heavy)\b|重不重|轻不轻|轻便吗|重吗|轻吗/,
  ],
  [
    "warm",
    /\b(is|are) (it|they|this|that|the .+?) warm\b|warm enough|for (the )?winter|保暖|暖和吗|冬天/,
  ],
];

/** "is it waterproof?": the fact asked and the product it is asked of (by default the one in view). */
export function readAttribute(
  text: string,
): { kind: "attribute"; query: string; ref?: Ref; attribute: ProductAttribute } | undefined {
  // Only a question: "show me waterproof shoes" browses.
  const asks =
    /\?|？|^(is|are|does|do|what|which|will|would|can|how)\b|吗|呢|么|什么|是不是|适合|能不能/.test(
      text,
    );
  const browsing =
    /\b(show|find|recommend|search|looking for|do you have|have you got|got any|any)\b|推荐|有没有|找/;
  if (!asks || browsing.test(text)) return undefined;
  const found = ATTRIBUTES.find(([, pattern]) => pattern.test(text));
  if (!found) return undefined;
  const [attribute, pattern] = found;
  // "is it good for hiking in the rain?": "it" is the product asked about, whatever else is said.
  if (
    /\b(it|they|this|that|this one|that one)\b|它|这个|这款|这双|这件/.test(text) &&
    !/\bthe \w+ \w+/.test(text)
  )
    return { kind: "attribute", attribute: found[0], query: "", ref: { kind: "it" } };
  const target = mentionIn(
    text
      .replace(pattern, " ")
      .replace(
        /\b(is|are|does|do|will|would|can|it|they|this|that|good|for|made|of|from|what|which|how|enough|keep|dry|feet)\b/g,
        " ",
      )
      .replace(/适合|吗|呢|是不是|能不能|穿|用|的|么|这双|这件|这款|它/g, " "),
  );
  return {
    kind: "attribute",
    attribute,
    query: target.query,
    ...(target.ref ? { ref: target.ref } : target.query === "" ? { ref: { kind: "it" } } : {}),
  };
}

/** "which one is top rated", "which of these is lighter", "最便宜的是哪个": an order asked of the shown. */
export function readWhichShown(text: string): { kind: "which-shown"; by: ShownOrder } | undefined {
  const en = text.match(
    /^(?:so |and |ok,? )?(?:which|what)(?: one| ones)?(?: of (?:these|those|them|the ones you showed))?(?: one)? (?:is|are|has|have|got|'s)(?: the)? (cheapest|cheaper|lowest price|least expensive|most affordable|best rated|top rated|highest rated|better rated|best reviewed|best reviews|highest rating|best rating|most expensive|priciest|lighter|lightest|lightweight|waterproof)\b/,
  );
  const zh = text.match(
    /(?:哪个|哪款|哪双|哪件|哪一(?:个|款|双|件))(?:最|更)?(便宜|贵|轻|防水|评分最高|评分高|好评)|(最便宜|评分最高|最贵|最轻|防水)的?(?:是)?(?:哪个|哪款|哪双|哪件|哪一)/,
  );
  const word = en?.[1] ?? zh?.[1] ?? zh?.[2];
  if (!word) return undefined;
  const by: ShownOrder = /cheap|lowest|least|affordable|便宜/.test(word)
    ? "cheapest"
    : /expensive|priciest|贵/.test(word)
      ? "priciest"
      : /light|轻/.test(word)
        ? "light"
        : /waterproof|防水/.test(word)
          ? "waterproof"
          : "best-rated";
  return { kind: "which-shown", by };
}
