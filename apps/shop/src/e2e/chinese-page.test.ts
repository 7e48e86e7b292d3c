/**
 * Chinese is first-class on the whole page, in a browser: a Chinese chat (a search, an add with a
 * size and colour, the cart, checkout up to its approval card, the timeline open) at 1280x800 and
 * at 390x844, and every piece of visible text the page itself writes holds no Latin letter except
 * the catalog's product names, brands and sizes. The model's and the shopper's own words are
 * theirs (marked `data-source` by the page) and key caps are keys; everything else is checked:
 * the top bar, tabs, cards, chips, the cart panel, the approval card and the timeline. The real
 * shop (SQLite, the embedded scripted model, the built web app) through Debian's Chromium.
 */

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserTestsSkipped,
  screenshotPath,
  sendMessage as send,
  waitForReply,
  webTestBed,
} from "./web-harness.js";

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 300, firstTokenMs: 30, jitter: 0 }, 120_000);
const pageProblems: string[] = [];

/**
 * The text of every visible text node the page wrote itself: not the model's or the shopper's
 * words (`data-source`), not key caps, ids, the reply selector (the shopper's messages) or text
 * only for screen readers. A string expression: it runs in the page (no DOM types here).
 */
const PAGE_TEXT = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el) continue;
    if (el.closest("[data-source], kbd, code, select, script, style, .visually-hidden, .skip-link")) continue;
    if (el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    out.push(text);
  }
  return out;
})()`;

/** The catalog's product names, brands and sizes, longest first (and the shop's own name). */
async function allowedWords(): Promise<string[]> {
  const products = await bed.shop.store.listProducts();
  const words = new Set<string>(["Trail & Run"]);
  for (const p of products) {
    words.add(p.name);
    words.add(p.brand);
    for (const size of p.sizes) words.add(size);
  }
  return [...words].sort((a, b) => b.length - a.length);
}

/** The page's own strings that still hold a Latin letter once the allowed words are taken out. */
async function latinLeft(page: Page): Promise<string[]> {
  const allowed = await allowedWords();
  const texts = (await page.evaluate(PAGE_TEXT)) as string[];
  return texts.filter((text) => {
    let rest = text;
    for (const word of allowed) rest = rest.split(word).join(" ");
    return /[A-Za-z]/.test(rest);
  });
}

async function open(
  width: number,
  height: number,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await bed.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  await page.goto(bed.shop.url);
  await expect.poll(() => page.locator("textarea").isEnabled(), { timeout: 15_000 }).toBe(true);
  return { context, page };
}

describe.skipIf(noBrowser)("a Chinese chat", { timeout: 120_000 }, () => {
  for (const [label, width, height] of [
    ["1280x800", 1280, 800],
    ["390x844", 390, 844],
  ] as const) {
    it(`${label}: search, add with a size, cart, approval card and timeline show no Latin letters but product names, brands and sizes`, async () => {
      const { context, page } = await open(width, height);
      const phone = width < 600;
      const tab = (name: string) => page.getByRole("tab", { name });
      const shot = async (step: string) =>
        page.screenshot({ path: await screenshotPath(`chinese-${label}-${step}`) });

      // A new shopper's page starts in English: the check sees its words (it is not blind).
      expect((await latinLeft(page)).length).toBeGreaterThan(3);
      await waitForReply(page, await send(page, "给我看看100美元以下的跑鞋"));
      await page.getByTestId("call-card").first().waitFor();
      // The page follows the shopper's language from their first Chinese message on.
      await expect.poll(() => page.locator(".brand-sub").textContent()).toBe("购物助手");
      expect(await latinLeft(page)).toEqual([]);
      await shot("1-search");

      await waitForReply(page, await send(page, "把10码荧光绿的Aero越野跑鞋加入购物车"));
      expect(await latinLeft(page)).toEqual([]);

      if (phone) await tab("购物车").click();
      const cart = page.getByTestId("cart-panel");
      await expect.poll(() => cart.textContent()).toContain("荧光绿");
      expect(await latinLeft(page)).toEqual([]);
      await shot("2-cart");
      if (phone) await tab("聊天").click();

      const reply = await send(page, "结账");
      const card = page.getByTestId("approval-card").and(page.locator('[data-status="pending"]'));
      await card.waitFor({ timeout: 20_000 });
      expect(await card.textContent()).toContain("确认订单");
      expect(await latinLeft(page)).toEqual([]);
      await shot("3-approval");
      // The approval card's title is whole on the phone too (not cut).
      const whole = await page.evaluate(
        `(() => { const t = document.querySelector('[data-testid="approval-card"] .card-title'); return t !== null && t.scrollWidth <= t.clientWidth + 1; })()`,
      );
      expect(whole).toBe(true);

      await card.getByRole("button", { name: "确认下单" }).click();
      await waitForReply(page, reply);
      // The placed order's card names each line's size and colour.
      const placed = page.getByTestId("order-placed");
      await placed.waitFor();
      expect(await placed.getByTestId("order-variant").textContent()).toBe(
        " (尺码 US 10 · 荧光绿)",
      );
      if (phone) await tab("时间线").click();
      const timeline = page.getByTestId("timeline");
      await timeline.getByTestId("timeline-round").first().waitFor();
      expect(await timeline.textContent()).toContain("第 1 轮");
      expect(await latinLeft(page)).toEqual([]);
      await shot("4-timeline");
      expect(pageProblems).toEqual([]);
      await context.close();
    });
  }
});
