/**
 * A tool the model's provider runs, in a browser, end to end: asked what reviews say about a
 * product, the shop's scripted model (over the Messages API wire, as the shop talks to it by
 * default, with web search offered as the provider's tool) searches the web, finds six pages and
 * answers citing two of them. The page shows the search as its own
 * chip ("Searched the web: 6 results", in Chinese "已搜索网络：6 条结果") and the cited pages as links
 * right under the text they belong to; after a reload, the stored conversation shows the same.
 * On a desktop (1280×800) and a phone (390×844), with screenshots in `test-results/shop-web/`.
 */

import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, webTestBed } from "./web-harness.js";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 400, firstTokenMs: 20 }, 60_000);

/** The script's six pages for the Aero Trail Runner, and the two its answer cites. */
const PAGES = [
  "trail-notes",
  "run-lab",
  "gear-digest",
  "summit-weekly",
  "pace-forum",
  "outdoor-bench",
].map((site) => `https://${site}.example/reviews/aero-trail-runner`);
const CITED = [
  { url: PAGES[0]!, title: "Aero Trail Runner review · Trail Notes" },
  { url: PAGES[2]!, title: "Aero Trail Runner review · Gear Digest" },
];

const composer = (page: Page) => page.getByRole("textbox", { name: /^(Message|消息)$/ });
const replies = (page: Page) => page.getByTestId("assistant-turn");

/** Sends `text` and waits until its reply has ended. */
async function ask(page: Page, text: string): Promise<Locator> {
  const count = (await replies(page).count()) + 1;
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await expect.poll(() => replies(page).count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(count);
  const reply = replies(page).nth(count - 1);
  await expect.poll(() => reply.getAttribute("data-done"), { timeout: 15_000 }).toBe("true");
  return reply;
}

/** The chip and the links of one reply, checked against what the model sent. */
async function expectSearchShown(reply: Locator, zh: boolean): Promise<void> {
  const chip = reply.getByTestId("provider-tool-chip");
  await expect.poll(() => chip.count()).toBe(1);
  expect(await chip.getAttribute("data-phase")).toBe("done");
  expect((await chip.textContent())?.trim()).toBe(
    zh ? "已搜索网络：6 条结果" : "Searched the web: 6 results",
  );
  // The query is there for whoever wants it.
  expect(await chip.getAttribute("title")).toBe(
    zh ? "Aero Trail Runner 评价" : "Aero Trail Runner reviews",
  );
  const sources = reply.getByTestId("citations");
  expect(await sources.getAttribute("aria-label")).toBe(zh ? "来源" : "Sources");
  const links = sources.getByTestId("citation-link");
  expect(await links.count()).toBe(2);
  for (const [i, result] of CITED.entries()) {
    const link = links.nth(i);
    expect(await link.getAttribute("href")).toBe(result.url);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await link.textContent()).toContain(result.title);
  }
  // Under the text they cite: the links follow that paragraph, nothing between them.
  // (The page's DOM, typed by hand: this package's TypeScript has no DOM library.)
  type Sibling = { getAttribute(name: string): string | null; textContent: string | null };
  const follows = await sources.evaluate((nav) => {
    const before = (nav as unknown as { previousElementSibling: Sibling | null })
      .previousElementSibling;
    return before?.getAttribute("data-source") === "model" ? before.textContent : null;
  });
  expect(follows).toMatch(
    zh ? /^评测者给 Aero Trail Runner/ : /^Reviewers rate the Aero Trail Runner/,
  );
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(250);
  await page.screenshot({ path: await screenshotPath(name), animations: "disabled" });
}

describe.skipIf(noBrowser)("a provider's web search and its citations in the browser", () => {
  for (const [label, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`${label}: the search's own chip with its result count and the cited pages as links under the text, in English and Chinese, also after a reload`, async () => {
      const phone = viewport.width < 500;
      const context = await bed.browser.newContext({
        viewport,
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
      });
      try {
        const page = await context.newPage();
        await page.goto(bed.shop.url);
        await composer(page).waitFor();
        const english = await ask(page, "What do reviews say about the Aero Trail Runner?");
        await expectSearchShown(english, false);
        await shot(page, `provider-tools-${label}-en`);
        // In Chinese, about the shoe in view.
        await ask(page, "介绍一下 Aero Trail Runner");
        const chinese = await ask(page, "网上对这双鞋评价怎么样？");
        await expectSearchShown(chinese, true);
        await shot(page, `provider-tools-${label}-zh`);
        // A reply of the shop's own tools cites nothing and shows no provider chip.
        const plain = replies(page).nth(1);
        expect(await plain.getByTestId("citations").count()).toBe(0);
        expect(await plain.getByTestId("provider-tool-chip").count()).toBe(0);
        // After a reload the stored conversation shows the same (the earlier turns are read
        // back from the stored messages, the last from the server's event log).
        await page.reload();
        await composer(page).waitFor();
        await expect.poll(() => replies(page).count(), { timeout: 15_000 }).toBe(3);
        await expectSearchShown(replies(page).nth(0), false);
        await expectSearchShown(replies(page).nth(2), true);
        await shot(page, `provider-tools-${label}-reloaded`);
      } finally {
        await context.close();
      }
    });
  }
});
