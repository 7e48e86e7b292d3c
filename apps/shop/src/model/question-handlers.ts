/**
 * Questions about products, answered from their facts: one product's material, waterproofing,
 * weight or warmth (from get_product's description and keywords), and which of the products
 * shown is the cheapest, best rated, lightest or waterproof (no tool: the products are the ones
 * the conversation showed, their prices the tools' and their ratings and keywords the catalog's).
 */

import type { SimScript } from "overlap-sim";
import { formatCents } from "../domain/money.js";
import type { ConversationState } from "./conversation-state.js";
import type { ProductAttribute } from "./read-question.js";
import { call, listOf, type ProductFacts, pick, say } from "./replies.js";
import { priceOf, productOf, resolveItem } from "./resolve-item.js";
import type { IntentOf } from "./shopper-handler.js";

/** A product's facts for a question about it: get_product, answered in the final answer. */
export function askAttribute(state: ConversationState, intent: IntentOf<"attribute">): SimScript {
  const target = resolveItem(intent, state, "catalog");
  if (!target.ok) return say(target.say);
  return { blocks: [call("get_product", { productId: target.product.id })] };
}

/** Materials a description names, with their Chinese words. */
const MATERIALS: ReadonlyArray<readonly [RegExp, string, string]> = [
  [/merino wool/i, "merino wool", "美利奴羊毛"],
  [/\bwool\b/i, "wool", "羊毛"],
  [/recycled-polyester/i, "recycled polyester", "再生聚酯纤维"],
  [/mesh/i, "mesh", "网眼布"],
  [/knit/i, "knit", "针织面料"],
  [/ripstop/i, "ripstop fabric", "防撕裂面料"],
  [/stretch fabric/i, "stretch fabric", "弹力面料"],
  [/carbon/i, "a carbon plate", "碳板"],
  [/foam/i, "foam", "泡沫缓震材料"],
  [/BPA-free/i, "BPA-free materials", "不含双酚A的材料"],
  [/recycled materials/i, "recycled materials", "再生材料"],
];

/** The answer to a question about one product's facts. */
export function attributeSentence(
  p: ProductFacts,
  tags: readonly string[],
  attribute: ProductAttribute,
  zh: boolean,
): string {
  const text = `${p.description} ${tags.join(" ")}`;
  switch (attribute) {
    case "material": {
      const found = MATERIALS.filter(([pattern]) => pattern.test(p.description));
      const words = found
        .filter(
          ([, en], i) => !(en === "wool" && found.some(([, e], j) => j < i && e === "merino wool")),
        )
        .map(([, en, cn]) => pick(zh, en, cn));
      if (words.length === 0)
        return pick(
          zh,
          `The ${p.name}'s description doesn't name its material: "${p.description}"`,
          `${p.name} 的商品说明里没有写明材质。`,
        );
      return pick(
        zh,
        `The ${p.name} is made with ${listOf(words, false)}: "${p.description}"`,
        `${p.name} 的材质：${listOf(words, true)}。`,
      );
    }
    case "waterproof": {
      if (/waterproof/i.test(text))
        return pick(
          zh,
          /waterproof/i.test(p.description)
            ? `Yes: the ${p.name} is waterproof ("${p.description}").`
            : `Yes: the catalog lists the ${p.name} as waterproof.`,
          `适合：${p.name} 是防水的，下雨天也能穿。`,
        );
      if (/water-resistant/i.test(text))
        return pick(
          zh,
          `The ${p.name} is water-resistant, not fully waterproof ("${p.description}").`,
          `${p.name} 有一定的防泼水性能，但不是完全防水。`,
        );
      return pick(
        zh,
        `The catalog doesn't say the ${p.name} is waterproof. For rain, ask me for waterproof ones.`,
        `商品说明里没有提到 ${p.name} 防水；如果要在雨天用，可以让我找防水的款式。`,
      );
    }
    case "light":
      return /lightweight|\blight\b|ultralight/i.test(text)
        ? pick(zh, `Yes, the ${p.name} is a lightweight one.`, `是的，${p.name} 是轻量款。`)
        : pick(
            zh,
            `The catalog lists no weight for the ${p.name}, and doesn't call it lightweight.`,
            `商品说明里没有写 ${p.name} 的重量，也没有说它是轻量款。`,
          );
    case "warm":
      return /warm|thermal|winter|insulated|fleece|down/i.test(text)
        ? pick(
            zh,
            `Yes, the ${p.name} is made for the cold.`,
            `是的，${p.name} 适合寒冷天气，比较保暖。`,
          )
        : pick(
            zh,
            `The catalog doesn't describe the ${p.name} as warm.`,
            `商品说明里没有说 ${p.name} 保暖。`,
          );
  }
}

/** "Which one is top rated?": the answer among the products shown, no action. */
export function whichShown(state: ConversationState, intent: IntentOf<"which-shown">): SimScript {
  const { zh } = state;
  const products = state.shown.flatMap((id) => (productOf(id) ? [productOf(id)!] : []));
  if (products.length === 0)
    return say(
      pick(
        zh,
        "Which products do you mean? Ask me to show you some first.",
        "您指的是哪些商品？可以先让我展示几款。",
      ),
    );
  const offer = pick(zh, " Want me to add it to your cart?", "要加入购物车吗？");
  switch (intent.by) {
    case "cheapest":
    case "priciest": {
      const sorted = [...products].sort((a, b) => priceOf(state, a.id) - priceOf(state, b.id));
      const p = intent.by === "cheapest" ? sorted[0]! : sorted.at(-1)!;
      const price = formatCents(priceOf(state, p.id));
      return say(
        intent.by === "cheapest"
          ? pick(
              zh,
              `The cheapest of these is the ${p.name}, at ${price}.${offer}`,
              `其中最便宜的是 ${p.name}，售价 ${price}。${offer}`,
            )
          : pick(
              zh,
              `The priciest of these is the ${p.name}, at ${price}.${offer}`,
              `其中最贵的是 ${p.name}，售价 ${price}。${offer}`,
            ),
      );
    }
    case "best-rated": {
      const p = [...products].sort((a, b) => b.rating - a.rating)[0]!;
      return say(
        pick(
          zh,
          `The best rated of these is the ${p.name}, at ${p.rating}/5.${offer}`,
          `其中评分最高的是 ${p.name}，评分 ${p.rating}/5。${offer}`,
        ),
      );
    }
    case "light":
    case "waterproof": {
      const word = intent.by === "light" ? /lightweight|ultralight/ : /waterproof/;
      const matching = products.filter((p) => word.test(`${p.tags.join(" ")} ${p.description}`));
      const names = matching.map((p) => p.name);
      if (intent.by === "light")
        return say(
          names.length === 0
            ? pick(
                zh,
                "The catalog lists no weights, and none of these is described as lightweight.",
                "商品目录没有列出重量，这几款也都没有标注为轻量款。",
              )
            : pick(
                zh,
                `The catalog lists no weights, but of these the ${listOf(names, false)} ${names.length === 1 ? "is" : "are"} described as lightweight.`,
                `商品目录没有列出重量，不过其中 ${listOf(names, true)} 标注为轻量款。`,
              ),
        );
      return say(
        names.length === 0
          ? pick(zh, "None of these is described as waterproof.", "这几款都没有标注为防水。")
          : pick(
              zh,
              `Of these, the ${listOf(names, false)} ${names.length === 1 ? "is" : "are"} waterproof.`,
              `其中 ${listOf(names, true)} 是防水的。`,
            ),
      );
    }
  }
}
