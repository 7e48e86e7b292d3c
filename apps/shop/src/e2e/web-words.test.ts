/**
 * The browser app's words, without a browser: what a tool call's chip says (in English and
 * Chinese), the plain sentences that replace the runtime's validation texts and the shop's rule
 * texts, the product names the page learns, and the timeline's explanations. Pure modules of
 * `apps/shop/web/src`, imported as they are.
 */

import type { ModelClient } from "overlap-runtime";
import type { AgentState, CallView } from "overlap-runtime/client";
import { initialAgentState } from "overlap-runtime/client";
import { describe, expect, it } from "vitest";
import { merchantTools } from "../agents/merchant-tools.js";
import type { ShopAgent } from "../agents/shop-agent.js";
import { shopperTools } from "../agents/shopper-tools.js";

/*
 * The web app's modules are loaded by path at run time: the root type-check (Node resolution, no
 * DOM) must not follow into the web app, which has its own (`npx tsc -p apps/shop/web`). These
 * are the shapes used here.
 */
type Lang = "en" | "zh";
type Book = ReadonlyMap<string, { name: string; category: string | undefined }>;
interface WordsContext {
  lang: Lang;
  book: Book;
}
interface RoundChart {
  round: number;
  stopReason: string | undefined;
  rows: unknown[];
  streamEndMs: number | undefined;
  endMs: number;
  savedMs: number | undefined;
  firstToolStartMs: number | undefined;
  headStartMs: number;
  endWithoutOverlapMs: number | undefined;
  toolsEndMs: number | undefined;
  longestToolMs: number;
}
interface TurnChart {
  rounds: RoundChart[];
  openRounds: number[];
  scaleMs: number;
  ticks: number[];
  totalMs: number;
  totalSavedMs: number;
  totalHeadStartMs: number;
}
const load = (path: string): Promise<unknown> => import(path);
const { callProblem, callSentence, tidyText } = (await load(
  "../../web/src/chat/call-words.ts",
)) as {
  callSentence(entry: CallView, ctx: WordsContext): string;
  callProblem(entry: CallView, ctx: WordsContext): string | undefined;
  tidyText(text: string, book: Book): string;
};
const { TOOL_WORDS } = (await load("../../web/src/chat/tool-words.ts")) as {
  TOOL_WORDS: Readonly<Record<string, unknown>>;
};
const { productBook } = (await load("../../web/src/chat/product-book.ts")) as {
  productBook(state: AgentState): Book;
};
const { count, detectLang } = (await load("../../web/src/i18n/lang.ts")) as {
  count(lang: Lang, n: number, noun: "item" | "product" | "order"): string;
  detectLang(text: string): Lang;
};
const { explainRound, explainTurn, roundChart } = (await load(
  "../../web/src/timeline/timeline-model.ts",
)) as {
  explainRound(chart: RoundChart, lang: Lang): string | undefined;
  explainTurn(chart: TurnChart, lang: Lang): string;
  roundChart(info: { round: number; stopReason: string | undefined; timings: unknown }): RoundChart;
};

function call(fields: Partial<CallView> & Pick<CallView, "name">): CallView {
  return {
    callId: "toolu_1",
    round: 1,
    index: 1,
    phase: "running",
    dispatch: "started",
    preview: undefined,
    previewBytes: 0,
    input: undefined,
    inputError: undefined,
    ui: [],
    result: undefined,
    parentCallId: undefined,
    agent: undefined,
    startedAt: undefined,
    endedAt: undefined,
    ...fields,
  } as CallView;
}

const book = new Map([
  ["p-0001", { name: "Aero Trail Runner", category: "Running Shoes" }],
  ["p-0003", { name: "Swift Road Racer", category: "Running Shoes" }],
]);
const en: WordsContext = { lang: "en", book };
const zh: WordsContext = { lang: "zh", book };

describe("a call in words", () => {
  it("every tool of both agents has its own words, and the table names no other tool", () => {
    // The tools are only listed: neither the model nor the merchant agent is called.
    const tools = [
      ...shopperTools({ model: {} as ModelClient, merchant: {} as ShopAgent }),
      ...merchantTools(),
    ].map((tool) => tool.name);
    expect(tools.length).toBeGreaterThan(20);
    expect(Object.keys(TOOL_WORDS).sort()).toEqual([...new Set(tools)].sort());
    for (const name of tools) {
      for (const ctx of [en, zh]) {
        for (const phase of ["running", "done", "deferred", "cancelled"] as const) {
          const sentence = callSentence(call({ name, phase, input: {} }), ctx);
          // A tool missing from the table is said by its name: "Running “add to cart”".
          expect(sentence, `${name} ${ctx.lang} ${phase}`).not.toMatch(/“|”|undefined|_/);
          expect(sentence.trim(), `${name} ${ctx.lang} ${phase}`).toBe(sentence);
        }
      }
    }
    expect(callSentence(call({ name: "new_tool" }), en)).toBe("Running “new tool”");
    expect(callSentence(call({ name: "new_tool" }), zh)).toBe("正在执行“new tool”");
  });

  it("says what a cart change does, with the product's name and variant, never its id", () => {
    const add = call({
      name: "add_to_cart",
      input: { productId: "p-0001", quantity: 1, size: "US 10" },
    });
    expect(callSentence(add, en)).toBe("Adding Aero Trail Runner (size US 10) to your cart");
    expect(callSentence({ ...add, phase: "done" }, en)).toBe(
      "Added Aero Trail Runner (size US 10) to your cart",
    );
    expect(callSentence(add, zh)).toBe("正在把 Aero Trail Runner（尺码 US 10）加入购物车");
    const unknown = call({ name: "add_to_cart", input: { productId: "p-0999", quantity: 2 } });
    expect(callSentence(unknown, en)).toBe("Adding 2 items to your cart");
    expect(callSentence({ ...unknown, input: { productId: "p-0999" } }, en)).toBe(
      "Adding an item to your cart",
    );
  });

  it("describes searches, totals, comparisons and checkout, and what came of them", () => {
    expect(
      callSentence(
        call({ name: "search_products", input: { query: "running shoes", maxPrice: 100 } }),
        en,
      ),
    ).toBe("Looking for running shoes under $100");
    const total = call({ name: "cart_total", input: {} });
    expect(callSentence(total, en)).toBe("Checking your total");
    expect(
      callSentence(
        {
          ...total,
          phase: "done",
          result: {
            isError: false,
            status: "ok",
            text: "Cart total: $89.00 for 1 items (limit $5,000.00).",
          },
        },
        en,
      ),
    ).toBe("Your total: $89.00 for 1 item");
    expect(
      callSentence(
        call({ name: "compare_products", input: { productIds: ["p-0001", "p-0003"] } }),
        en,
      ),
    ).toBe("Comparing Aero Trail Runner and Swift Road Racer");
    expect(callSentence(call({ name: "checkout", phase: "deferred", input: {} }), en)).toBe(
      "Will place your order once the reply is written",
    );
    expect(callSentence(call({ name: "checkout", input: {} }), zh)).toBe("正在下单");
  });

  it("a call waiting for the shopper's confirmation says so, not what the tool does; then how the wait ended", () => {
    const approval = {
      status: "pending" as const,
      summary: "Place an order for 1 item, total $89.00: 1 × Aero Trail Runner ($89.00).",
      details: undefined,
      timeoutMs: 300_000,
      reason: undefined,
    };
    for (const phase of ["deferred", "queued", "running"] as const) {
      const waiting = call({ name: "checkout", phase, input: {}, approval });
      expect(callSentence(waiting, en), phase).toBe("Waiting for your confirmation");
      expect(callSentence(waiting, zh), phase).toBe("等待您确认");
    }
    const ended = (status: "approved" | "declined" | "timeout") =>
      call({
        name: "checkout",
        phase: "done",
        input: {},
        approval: { ...approval, status },
        result: {
          isError: status !== "approved",
          status:
            status === "approved" ? "ok" : status === "declined" ? "declined" : "not_executed",
          text:
            status === "approved"
              ? "Order o-1 placed: 1 item, $89.00."
              : "The user declined this action.",
        },
      });
    expect(callSentence(ended("declined"), en)).toBe("Order not placed: you cancelled it");
    expect(callSentence(ended("declined"), zh)).toBe("未下单：您取消了");
    expect(callSentence(ended("timeout"), en)).toBe("Order not placed: not confirmed in time");
    expect(callSentence(ended("approved"), en)).toBe("Placed your order");
  });

  it("a failure is a sentence written from its code and facts, never from the model's text", () => {
    // The text the model reads is deliberately unlike anything the page says: the words must come
    // from the problem alone.
    const modelText = "MODEL-ONLY TEXT";
    const failed = (problem: unknown, status = "error") =>
      call({
        name: "add_to_cart",
        phase: "done",
        input: { productId: "p-0001", quantity: 11 },
        result: { isError: true, status, text: modelText, problem } as CallView["result"],
      });
    const invalid = failed(
      {
        code: "invalid_input",
        params: {
          issues: [
            { code: "too_big", path: ["quantity"], origin: "number", maximum: 10, inclusive: true },
          ],
        },
      },
      "invalid_input",
    );
    expect(callSentence(invalid, en)).toBe("Couldn't add 11 × Aero Trail Runner to your cart");
    expect(callProblem(invalid, en)).toBe("The quantity can be at most 10.");
    expect(callProblem(invalid, zh)).toBe("数量最多为 10。");
    const issues = (...list: unknown[]) =>
      failed({ code: "invalid_input", params: { issues: list } });
    expect(
      callProblem(
        issues({ code: "too_small", path: ["productIds"], origin: "array", minimum: 2 }),
        en,
      ),
    ).toBe("The list of products needs at least 2.");
    expect(
      callProblem(
        issues(
          { code: "invalid_type", path: ["size"], expected: "string", missing: true },
          { code: "unrecognized_keys", path: [], keys: ["colour"] },
        ),
        zh,
      ),
    ).toBe("尺码缺失。请求带了无法识别的字段。");

    const tooMany = failed({
      code: "quantity_out_of_range",
      params: {
        productId: "p-0001",
        name: "Aero Trail Runner",
        quantity: 1,
        wouldHold: 11,
        max: 10,
      },
    });
    expect(callProblem(tooMany, en)).toBe("A cart line holds at most 10.");
    expect(callProblem(tooMany, zh)).toBe("每件商品最多只能放 10 件。");
    const stock = failed({
      code: "insufficient_stock",
      params: { productId: "p-0001", name: "Aero Trail Runner", size: "US 10", available: 2 },
    });
    expect(callProblem(stock, en)).toBe("Only 2 × Aero Trail Runner (size US 10) left in stock.");
    expect(callProblem(stock, zh)).toBe("Aero Trail Runner（US 10 码）只剩 2 件库存。");
    const noSize = failed({
      code: "invalid_variant",
      params: {
        productId: "p-0001",
        name: "Aero Trail Runner",
        size: "15",
        sizes: ["US 9", "US 10"],
      },
    });
    expect(callProblem(noSize, en)).toBe(
      "Aero Trail Runner doesn't come in size 15 (sizes: US 9, US 10).",
    );
    expect(callProblem(noSize, zh)).toBe("Aero Trail Runner 没有 15 码（有：US 9、US 10）。");
    const choose = failed({
      code: "variant_required",
      params: { choices: [{ productId: "p-0001", name: "Aero Trail Runner", missing: ["size"] }] },
    });
    expect(callProblem(choose, en)).toBe("Choose a size for Aero Trail Runner first.");
    expect(callProblem(choose, zh)).toBe("请先选择 Aero Trail Runner 的尺码。");
    // A name the facts leave out comes from the page's book, never an id.
    expect(callProblem(failed({ code: "not_in_cart", params: { productId: "p-0003" } }), en)).toBe(
      "Swift Road Racer is not in your cart.",
    );
    expect(
      callProblem(failed({ code: "over_limit", params: { limitCents: 500_000, room: 0 } }), zh),
    ).toBe("这样购物车总额会超过 $5,000.00。请先移除一些商品。");

    // A code the page has no words for: English shows the tidied text, Chinese a plain sentence.
    expect(callProblem(failed({ code: "brand_new_rule" }), en)).toBe(modelText);
    expect(callProblem(failed({ code: "brand_new_rule" }), zh)).toBe("这一步没能完成。");
    expect(callProblem(failed(undefined, "invalid_input"), zh)).toBe(
      "请求的格式不对，所以什么也没做。",
    );
    expect(callProblem(failed({ code: "input_cut" }, "invalid_input"), en)).toMatch(/cut off/);
    expect(callProblem(failed(undefined, "interrupted"), en)).toMatch(
      /stopped while this was running/,
    );
    expect(callProblem(call({ name: "view_cart", phase: "invalid" }), en)).toMatch(/garbled/);
    expect(callProblem(call({ name: "view_cart", phase: "done" }), en)).toBeUndefined();
  });

  it("tidies a result text for people: no ids, plurals right", () => {
    expect(
      tidyText(
        "Added 1 × Aero Trail Runner (size US 10). Cart: 1 × Aero Trail Runner (p-0001, size US 10) at $89.00 = $89.00. 1 items, total $89.00. Emptied the cart (2 line(s) removed).",
        book,
      ),
    ).toBe(
      "Added 1 × Aero Trail Runner (size US 10). Cart: 1 × Aero Trail Runner (size US 10) at $89.00 = $89.00. 1 item, total $89.00. Emptied the cart (2 lines removed).",
    );
  });
});

describe("the product book", () => {
  it("learns names from cards, carts, search results and product details", () => {
    const state = {
      ...initialAgentState(),
      calls: {
        a: call({
          name: "search_products",
          phase: "done",
          result: {
            isError: false,
            status: "ok",
            text: "2 found:\nHorizon Trail Shoe (p-0009) by Altura, $78.00, 76 in stock, rated 5\nRapid Trail Shoe (p-0202) by Kinetica, $57.95",
          },
        }),
        b: call({
          name: "add_to_cart",
          phase: "done",
          ui: [
            {
              type: "cart-updated",
              cart: { lines: [{ productId: "p-0002", name: "Merino Wool Socks", quantity: 1 }] },
            },
          ],
        }),
        c: call({
          name: "get_product",
          phase: "done",
          result: {
            isError: false,
            status: "ok",
            text: '{"id":"p-0001","name":"Aero Trail Runner","category":"Running Shoes"}',
          },
        }),
      },
    };
    const names = productBook(state);
    expect(names.get("p-0009")?.name).toBe("Horizon Trail Shoe");
    expect(names.get("p-0202")?.name).toBe("Rapid Trail Shoe");
    expect(names.get("p-0002")?.name).toBe("Merino Wool Socks");
    expect(names.get("p-0001")).toEqual({ name: "Aero Trail Runner", category: "Running Shoes" });
  });

  it("learns a product's name from a refused call's facts, so its chip names the product and not only its size", () => {
    const refused = (params: Record<string, unknown>) =>
      call({
        name: "add_to_cart",
        phase: "done",
        input: { productId: "p-0001", quantity: 9, size: "US 10", color: "Volt" },
        result: {
          isError: true,
          status: "error",
          text: "Only 5 in stock.",
          problem: { code: "insufficient_stock", params },
        },
      } as Partial<CallView> & Pick<CallView, "name">);
    const stock = refused({ productId: "p-0001", name: "Aero Trail Runner", available: 5 });
    const choice = refused({
      choices: [{ productId: "p-0002", name: "Merino Wool Socks", missing: ["size"] }],
    });
    const book = productBook({ ...initialAgentState(), calls: { a: stock, b: choice } });
    expect(book.get("p-0001")?.name).toBe("Aero Trail Runner");
    expect(book.get("p-0002")?.name).toBe("Merino Wool Socks");
    expect(callSentence(stock, { lang: "en", book })).toBe(
      "Couldn't add 9 × Aero Trail Runner (size US 10, Volt) to your cart",
    );
  });
});

describe("the timeline's two bars agree with the time saved", () => {
  const tool = (callId: string, startMs: number, endMs: number, extra: object = {}) => ({
    callId,
    name: "t",
    readyMs: startMs,
    startMs,
    endMs,
    status: "done",
    ...extra,
  });
  const chart = (timings: object) =>
    roundChart({
      round: 1,
      stopReason: "tool_use",
      timings: { startedAt: 0, blocks: [], ...timings },
    });

  it("a checkout that waited for the shopper: both bars end together, nothing saved", () => {
    // The call ran 5 s after the reply ended (the shopper's yes), and took 40 ms.
    const c = chart({ streamEndMs: 900, savedMs: 0, tools: [tool("co", 5_900, 5_940)] });
    expect(c.endWithoutOverlapMs).toBe(5_940);
    expect(explainRound(c, "en")).toMatch(/no time was saved/);
  });

  it("calls that ran one after another: the waiting bar is the chain the runtime reckoned", () => {
    const c = chart({
      streamEndMs: 1_677,
      savedMs: 317,
      tools: [tool("a", 1_240, 1_540), tool("b", 1_660, 1_960), tool("t", 1_960, 1_962)],
    });
    expect(c.endWithoutOverlapMs).toBe(1_962 + 317);
  });
});

describe("the timeline in words", () => {
  const round = (fields: Partial<RoundChart>): RoundChart => ({
    round: 1,
    stopReason: "tool_use",
    rows: [],
    streamEndMs: 1_000,
    endMs: 1_000,
    savedMs: 0,
    firstToolStartMs: 795,
    headStartMs: 205,
    endWithoutOverlapMs: 1_001,
    toolsEndMs: 796,
    longestToolMs: 1,
    ...fields,
  });

  it("says plainly when nothing was saved, and what was when something was", () => {
    expect(explainRound(round({}), "en")).toBe(
      "The tools started 205 ms before the reply ended, but took only 1 ms, so no time was saved.",
    );
    expect(
      explainRound(
        round({ savedMs: 900, longestToolMs: 900, toolsEndMs: 100, headStartMs: 950 }),
        "en",
      ),
    ).toBe(
      "The tools finished 900 ms before the reply ended; waiting for the reply would have taken 900 ms longer.",
    );
    expect(explainRound(round({ headStartMs: 0 }), "en")).toMatch(
      /could only start once the reply/,
    );
    expect(explainRound(round({ endWithoutOverlapMs: undefined }), "en")).toBeUndefined();
    const turn = (rounds: RoundChart[], saved: number): TurnChart => ({
      rounds,
      openRounds: [],
      scaleMs: 2_000,
      ticks: [],
      totalMs: 1_600,
      totalSavedMs: saved,
      totalHeadStartMs: 205,
    });
    expect(explainTurn(turn([round({})], 0), "en")).toMatch(/^No time was saved this time/);
    expect(explainTurn(turn([round({ savedMs: 900 })], 900), "en")).toBe(
      "Tools started while the reply was still being written, which saved 900 ms: the reply took 1.60 s instead of 2.50 s.",
    );
    expect(explainTurn(turn([round({ endWithoutOverlapMs: undefined })], 0), "zh")).toMatch(
      /没有用到工具/,
    );
  });
});

describe("language and plurals", () => {
  it("detects Chinese and counts", () => {
    expect(detectLang("把两件商品加入购物车")).toBe("zh");
    expect(detectLang("add two")).toBe("en");
    expect(count("en", 1, "item")).toBe("1 item");
    expect(count("en", 2, "item")).toBe("2 items");
    expect(count("zh", 2, "product")).toBe("2 件商品");
  });
});

const { variantOf } = (await load("../../web/src/cart/variant-words.ts")) as {
  variantOf(line: { size?: string; color?: string }, lang?: Lang): string | undefined;
};
const { readNewShopperSession } = (await load("../../web/src/session/shopper-credentials.ts")) as {
  readNewShopperSession(value: unknown): { id: string; token: string } | undefined;
};
const { formatWhen, localeFor } = (await load("../../web/src/i18n/when.ts")) as {
  formatWhen(iso: string, lang: Lang, languages?: readonly string[]): string;
  localeFor(lang: Lang, languages?: readonly string[]): string;
};
const { colorName } = (await load("../../web/src/i18n/color-words.ts")) as {
  colorName(color: string, lang: Lang): string;
};
const { categoryName } = (await load("../../web/src/i18n/category-words.ts")) as {
  categoryName(category: string, lang: Lang): string;
};
const { errorWords } = (await load("../../web/src/i18n/error-words.ts")) as {
  errorWords(error: { code: string; message: string }, lang: Lang): string;
};
const { formatMs } = (await load("../../web/src/api/format.ts")) as {
  formatMs(ms: number, lang?: Lang): string;
};
const { conversationState, readStoredConversation } = (await load(
  "../../web/src/session/history.ts",
)) as {
  conversationState(
    messages: readonly unknown[],
    options: { stopBeforeLastTurn: boolean; display?: ReadonlyMap<number, readonly unknown[]> },
  ): AgentState;
  readStoredConversation(
    value: unknown,
  ): { display: ReadonlyMap<number, readonly unknown[]>; messages: unknown[] } | undefined;
};

describe("the shopper's cart, chats and orders in words", () => {
  it("says a line's size and colour in the shopper's language", () => {
    expect(variantOf({ size: "US 10", color: "Volt" })).toBe("Size US 10 · Volt");
    expect(variantOf({ size: "US 10" }, "zh")).toBe("尺码 US 10");
    expect(variantOf({ color: "Volt" }, "zh")).toBe("荧光绿");
    expect(variantOf({ size: "M", color: "Charcoal" }, "zh")).toBe("尺码 M · 炭灰色");
    expect(variantOf({})).toBeUndefined();
  });

  it("keeps the shopper's token from a new shopper's first chat, else the chat's", () => {
    expect(readNewShopperSession({ id: "s-1", token: "chat", shopperToken: "shopper" })).toEqual({
      id: "s-1",
      token: "shopper",
    });
    expect(readNewShopperSession({ id: "s-2", token: "chat" })).toEqual({
      id: "s-2",
      token: "chat",
    });
    expect(readNewShopperSession({ id: "s-3" })).toBeUndefined();
    expect(readNewShopperSession("nope")).toBeUndefined();
  });

  it("shows a reopened chat's messages without the shop's notes to the model", () => {
    const state = conversationState(
      [
        {
          role: "user",
          content: [
            {
              type: "text",
              text: "<system-reminder>The cart changed outside this chat (in another chat or the cart panel). Now: The cart is empty (limit $5,000.00).</system-reminder>\ncheck out",
            },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "Your cart is empty." }] },
        { role: "user", content: "hello" },
      ],
      { stopBeforeLastTurn: false },
    );
    const users = state.turns.flatMap((t) => (t.role === "user" ? [t.text] : []));
    expect(users).toEqual(["check out", "hello"]);
  });

  it("writes every time one way: the shopper's own locale in the page's language, and nothing for a broken one", () => {
    const at = "2026-12-03T10:32:00.000Z";
    expect(formatWhen(at, "en", ["en-US"])).toMatch(/^Dec 3, \d{1,2}:32\s(AM|PM)$/);
    expect(formatWhen(at, "en", ["en-GB"])).toMatch(/^3 Dec, \d{2}:32$/);
    expect(formatWhen(at, "zh", ["zh-CN"])).toMatch(/^12月3日 \d{2}:32$/);
    expect(formatWhen("not a time", "en")).toBe("");
    // A Chinese page of an English-speaking browser still writes the time in Chinese.
    expect(localeFor("zh", ["en-US", "fr"])).toBe("zh-CN");
    expect(localeFor("en", ["zh-TW", "en-GB"])).toBe("en-GB");
    expect(localeFor("zh", ["zh-TW", "en-GB"])).toBe("zh-TW");
  });

  it("says colours, categories, durations and errors in Chinese on a Chinese page", () => {
    expect(colorName("Volt", "zh")).toBe("荧光绿");
    expect(colorName("Volt", "en")).toBe("Volt");
    expect(categoryName("Running Shoes", "zh")).toBe("跑鞋");
    expect(categoryName("Running Shoes", "en")).toBe("Running Shoes");
    expect(formatMs(420, "zh")).toBe("420 毫秒");
    expect(formatMs(1250, "zh")).toBe("1.25 秒");
    expect(formatMs(1250)).toBe("1.25 s");
    const lost = { code: "connection_lost", message: "The connection to the server was lost." };
    expect(errorWords(lost, "en")).toBe(lost.message);
    expect(errorWords(lost, "zh")).not.toMatch(/[A-Za-z]/);
    expect(errorWords({ code: "something_new", message: "Boom." }, "zh")).not.toMatch(/[A-Za-z]/);
  });

  it("a reloaded chat shows each turn's cards and round timings where they were, from what the server kept", () => {
    const search = {
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "call_s", name: "search_products", input: { query: "shoes" } },
      ],
    };
    const answered = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "call_s", content: "2 products" }],
    };
    const timings = (streamEndMs: number) => ({
      startedAt: 1_000,
      firstTokenMs: 5,
      streamEndMs,
      endMs: streamEndMs + 10,
      blocks: [],
      tools: [],
    });
    const stored = readStoredConversation({
      messages: [
        { role: "user", content: "shoes please" },
        search,
        answered,
        { role: "assistant", content: [{ type: "text", text: "Here they are." }] },
        { role: "user", content: "thanks" },
        { role: "assistant", content: [{ type: "text", text: "You're welcome." }] },
      ],
      display: [
        {
          seq: 0,
          events: [
            {
              type: "ui",
              round: 1,
              callId: "call_s",
              name: "search_products",
              ui: { type: "product-cards", products: [{ id: "p-1", name: "Aero" }] },
            },
            {
              type: "round-end",
              round: 1,
              stopReason: "tool_use",
              usage: {},
              timings: timings(40),
            },
            {
              type: "round-end",
              round: 2,
              stopReason: "end_turn",
              usage: {},
              timings: timings(30),
            },
            { type: "not-an-event" },
          ],
        },
        "garbage",
      ],
      turn: { running: false, lastTurnId: null },
    });
    expect(stored?.display.get(0)).toHaveLength(3);
    const state = conversationState(stored?.messages ?? [], {
      stopBeforeLastTurn: false,
      display: stored?.display,
    });
    const call = state.calls.call_s;
    expect(call?.ui.map((u) => u.type)).toEqual(["product-cards"]);
    expect(call?.result?.text).toBe("2 products");
    const [first, second] = state.turns.filter((t) => t.role === "assistant");
    expect(Object.values(first?.rounds ?? {}).map((r) => r.timings?.streamEndMs)).toEqual([40, 30]);
    // A turn the server kept nothing for has no timings (and says so), as before.
    expect(Object.values(second?.rounds ?? {}).map((r) => r.timings)).toEqual([undefined]);
  });

  it("a stored turn that still waited for an approval shows it as ended, never as a card still to answer", () => {
    const state = conversationState(
      [
        { role: "user", content: "check out" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_c", name: "checkout", input: {} }],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_c", content: "not run", is_error: true },
          ],
        },
      ],
      {
        stopBeforeLastTurn: false,
        display: new Map([
          [
            0,
            [
              {
                type: "approval-request",
                round: 1,
                callId: "call_c",
                name: "checkout",
                input: {},
                summary: "Place the order",
              },
            ],
          ],
        ]),
      },
    );
    expect(state.calls.call_c?.approval?.status).toBe("cancelled");
  });
});
