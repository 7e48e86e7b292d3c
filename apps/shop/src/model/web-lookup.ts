/**
 * "What do reviews say about the Aero Trail Runner?", "网上对这双鞋评价怎么样": what the web says
 * about a product. A model answers that with its provider's own web search, never with the shop's
 * tools: when the request offers the search (`web_search` among the tools, which the shop's
 * scripted model is given as each API's provider tool), the script searches and answers citing two
 * of the pages it found; without it, it says it cannot search the web. The pages are the script's
 * own, on `.example` sites, and the answer says so: their only fact, the average rating, is the
 * catalog's.
 */

import type { SimBlock, SimScript } from "overlap-sim";
import type { Product } from "../domain/catalog.js";
import type { ConversationState } from "./conversation-state.js";
import { mentionIn, type Ref } from "./read-mention.js";
import { pick, say } from "./replies.js";
import { resolveItem } from "./resolve-item.js";

/** The provider tool a request offers when the model may search the web (`SimRequest.providerTools`). */
export const WEB_SEARCH = "web_search";

const ASKS_EN = new RegExp(
  [
    "\\bwhat (do|does|did|are) (the )?(people|web|internet|others|reviewers|reviews|runners|customers|users) (say|saying|think|thinking)\\b",
    "\\b(reviews?|reviewers?|opinions?) (say|said|saying|think)\\b",
    "\\b(online|web|internet) (reviews?|opinions?|ratings?)\\b",
    "\\b(how|what) (are|is) (the )?(reviews?|opinions?)\\b",
    "\\b(any|read|find|search( for)?|look up) (the )?(reviews?|opinions?)\\b",
  ].join("|"),
);
const ASKS_ZH = /网上|网络上|测评|评测|口碑|评价怎么样|评价如何|怎么评价|评价好吗|评论怎么样/;

/** The words of such a question that are not the product. */
const QUESTION_WORDS_EN =
  /\b(what|do|does|are|the|people|reviewers?|reviews?|reviewed|say|said|saying|think|about|of|on|for|online|web|internet|others|runners|customers|opinions?|ratings?)\b/g;
const QUESTION_WORDS_ZH =
  /网上|网络上|测评|评测|口碑|评价|评论|怎么样|如何|怎么|好吗|对|的|大家|别人|吗|呢|[？?。，,]/g;

/** "this pair", "这双鞋", "it": the product in view, whatever generic noun comes with it. */
const POINTING =
  /\b(this|that|these|those) (one|ones|pair|pairs|shoes?|item|product)\b|\b(it|its|them|they)\b|它|[这那](双|款|件|个|顶|副|只|条|把)?(鞋子?|衣服|外套|商品|产品|东西)?/g;

/** The product a "what does the web say" question is about, or undefined for another request. */
export function readWebLookup(text: string): { query: string; ref?: Ref } | undefined {
  if (!ASKS_EN.test(text) && !ASKS_ZH.test(text)) return undefined;
  const words = text.replace(QUESTION_WORDS_EN, " ").replace(QUESTION_WORDS_ZH, " ");
  const pointed = words.replace(POINTING, " ");
  const target = mentionIn(pointed);
  if (target.query === "" && target.ref === undefined && pointed !== words) {
    target.ref = { kind: "it" };
  }
  return target;
}

/** The sites of the script's search results (`.example`: reserved names, no real site). */
const SITES = [
  "Trail Notes",
  "Run Lab",
  "Gear Digest",
  "Summit Weekly",
  "Pace Forum",
  "Outdoor Bench",
] as const;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** The script's search results for a product: one page per site. */
export function reviewPages(product: Product): { title: string; url: string }[] {
  return SITES.map((site) => ({
    title: `${product.name} review · ${site}`,
    url: `https://${slug(site)}.example/reviews/${slug(product.name)}`,
  }));
}

/** The step for the question: search and answer with citations, or say why not. */
export function lookUpOnline(
  state: ConversationState,
  intent: { query: string; ref?: Ref },
  tools: ReadonlySet<string>,
): SimScript {
  const { zh } = state;
  const target = resolveItem(intent, state, "catalog");
  if (!target.ok) return say(target.say);
  const { product } = target;
  if (!tools.has(WEB_SEARCH)) {
    return say(
      pick(
        zh,
        `I can't search the web from here, so I can't tell you what reviewers say about the ${product.name}. I can tell you what the shop knows: ask me for its details.`,
        `我这里不能上网搜索，没法告诉你网上对 ${product.name} 的评价。可以问我它的详情，我来介绍商店里的信息。`,
      ),
    );
  }
  const pages = reviewPages(product);
  const cited = [pages[0]!, pages[2]!].map((p) => ({
    ...p,
    citedText: `${product.name}: rated ${product.rating}/5`,
  }));
  const blocks: SimBlock[] = [
    {
      type: "server_tool_use",
      name: WEB_SEARCH,
      input: { query: pick(zh, `${product.name} reviews`, `${product.name} 评价`) },
    },
    { type: "web_search_tool_result", results: pages },
    {
      type: "text",
      text: pick(
        zh,
        `Reviewers rate the ${product.name} ${product.rating} out of 5 on average. These are the scripted model's own search results, not the real web.`,
        `评测者给 ${product.name} 的平均评分是 ${product.rating} 分（满分 5 分）。这些是脚本模型自己的搜索结果，不是真实网页。`,
      ),
      citations: cited,
    },
  ];
  return { blocks, stopReason: "end_turn" };
}
