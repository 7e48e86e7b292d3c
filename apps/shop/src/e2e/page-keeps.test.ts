/**
 * A reloaded page shows what it showed, in a browser: the product cards and the comparison of
 * earlier turns come back from the stored turn with working Add buttons (adding from one changes
 * the cart), every earlier reply keeps its round timings (the timeline draws them, no reply says
 * "no timings kept"), and the chat shows a message the moment the shopper sends it, with a
 * "Jump to latest" button while they read further up. The real shop (SQLite, the embedded
 * scripted model, the built web app) through Debian's Chromium.
 */

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, waitForReply, webTestBed } from "./web-harness.js";

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 400, firstTokenMs: 20, jitter: 0 }, 120_000);
const pageProblems: string[] = [];

const composer = (page: Page) => page.getByRole("textbox", { name: "Message" });
const replies = (page: Page) => page.getByTestId("assistant-turn");

async function open(
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await bed.browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  await page.goto(bed.shop.url);
  await expect.poll(() => composer(page).isEnabled(), { timeout: 15_000 }).toBe(true);
  return { context, page };
}

/** Sends `text` and waits for its reply. */
async function ask(page: Page, text: string): Promise<void> {
  const before = await replies(page).count();
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await waitForReply(page, before + 1);
}

const cartCount = (page: Page) => page.getByTestId("cart-count").textContent();

describe.skipIf(noBrowser)("a reloaded page shows what it showed", { timeout: 90_000 }, () => {
  it("earlier turns' product cards and comparison come back with working Add buttons, and their timings", async () => {
    const { context, page } = await open();
    await ask(page, "show me running shoes under 100");
    await ask(page, "compare the first two");
    await ask(page, "what is in my cart");
    const before = await replies(page).count();
    await page.reload();
    await expect.poll(() => replies(page).count(), { timeout: 15_000 }).toBe(before);

    // The first reply's cards, drawn from the stored turn, not its result text.
    const first = replies(page).first();
    const tiles = first.locator('[data-testid="call-card"][data-tool="show_products"] .tile');
    await expect.poll(() => tiles.count(), { timeout: 15_000 }).toBeGreaterThan(1);
    const comparison = replies(page).nth(1).locator('[data-tool="compare_products"] table.compare');
    expect(await comparison.count()).toBe(1);
    expect(await comparison.locator("th[data-product-id]").count()).toBe(2);
    await page.screenshot({ path: await screenshotPath("keeps-01-reloaded-cards") });

    // Add from a re-rendered card: the picker asks the size and colour, the cart gets the line.
    expect(await cartCount(page)).toBe("0 items");
    const tile = tiles.first();
    const name = (await tile.locator(".tile-name").textContent()) ?? "";
    await tile.getByRole("button", { name: `Add ${name} to cart` }).click();
    const picker = tile.getByTestId("tile-variant-picker");
    await picker.waitFor();
    for (const select of await picker.locator("select").all()) {
      const first = await select.locator("option:not([value=''])").first().getAttribute("value");
      await select.selectOption(first ?? "");
    }
    await picker.getByRole("button", { name: "Add to cart" }).click();
    await expect.poll(() => cartCount(page), { timeout: 10_000 }).toBe("1 item");
    const line = page.locator(
      `[data-testid="cart-line"][data-product-id="${await tile.getAttribute("data-product-id")}"]`,
    );
    expect(await line.count()).toBe(1);

    // Every reply kept its timings: none says they were not kept, and the timeline draws the first.
    const footers = await page.locator(".turn-timing").allTextContents();
    expect(footers).toHaveLength(before);
    for (const footer of footers) expect(footer).toMatch(/^Answered in /);
    await first.locator(".turn-timing").click();
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.getByTestId("timeline-round").count()).toBeGreaterThan(0);
    expect(await timeline.locator(".tl-empty").count()).toBe(0);
    expect(await timeline.locator('[data-bar="run"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: await screenshotPath("keeps-02-reloaded-timeline") });
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("a sent message is scrolled into view; scrolled up, Jump to latest brings the newest back", async () => {
    const { context, page } = await open({ width: 390, height: 844 });
    for (const text of [
      "show me running shoes under 100",
      "compare the first two",
      "show me jackets",
    ]) {
      await ask(page, text);
    }
    const log = page.getByTestId("chat-log");
    const jump = page.getByTestId("jump-latest");
    expect(await jump.count()).toBe(0);

    await page.evaluate(`document.querySelector('[data-testid="chat-log"]').scrollTop = 0`);
    await jump.waitFor({ timeout: 5_000 });
    await page.screenshot({ path: await screenshotPath("keeps-03-jump-to-latest") });
    await jump.click();
    await expect.poll(() => jump.count()).toBe(0);
    const atBottom = `(() => { const el = document.querySelector('[data-testid="chat-log"]'); return el.scrollHeight - el.scrollTop - el.clientHeight < 4; })()`;
    await expect.poll(() => page.evaluate(atBottom), { timeout: 5_000 }).toBe(true);

    // Scrolled up again, a message sent is shown at once (and the list follows its reply).
    await page.evaluate(`document.querySelector('[data-testid="chat-log"]').scrollTop = 0`);
    await jump.waitFor({ timeout: 5_000 });
    await composer(page).fill("what is in my cart");
    await composer(page).press("Enter");
    const mine = page.getByTestId("user-message").last();
    await expect.poll(() => mine.textContent()).toBe("what is in my cart");
    const [box, view] = await Promise.all([mine.boundingBox(), log.boundingBox()]);
    expect(box).not.toBeNull();
    expect(view).not.toBeNull();
    if (box && view) {
      expect(box.y).toBeGreaterThanOrEqual(view.y - 1);
      expect(box.y + box.height).toBeLessThanOrEqual(view.y + view.height + 1);
    }
    expect(await jump.count()).toBe(0);
    await waitForReply(page, 4);
    await expect.poll(() => page.evaluate(atBottom), { timeout: 5_000 }).toBe(true);
    expect(pageProblems).toEqual([]);
    await context.close();
  });
});
