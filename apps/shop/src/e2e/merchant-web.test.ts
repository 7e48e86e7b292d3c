/**
 * The merchant's changes in a browser: a change to several products (a bulk restock, a category
 * discount) shows one table in an approval card and nothing changes before Approve; approved, the
 * result is the same single table; declined, nothing changes. A discount then shows on the
 * shopper's product card (price paid, list price struck through) and in the cart at the sale
 * price. The merchant's page in Chinese (its language button, then a Chinese message) with no
 * English of the page's own. At 1280x800 and 390x844, with screenshots. The real shop (SQLite,
 * the embedded scripted model, the built web app) through Debian's Chromium.
 */

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { discountedCents, listPriceOf } from "../domain/discounts.js";
import { formatCents } from "../domain/money.js";
import {
  browserTestsSkipped,
  screenshotPath,
  sendMessage as send,
  TEST_MERCHANT_TOKEN,
  waitForReply,
  webTestBed,
} from "./web-harness.js";

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 400, firstTokenMs: 20, jitter: 0 }, 120_000);

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const GLACIER = "p-0036"; // Glacier Rain Jacket, sizes XS-XXL, Red/Blue/Olive

const composer = (page: Page) => page.getByRole("textbox", { name: /Message|消息/ });
const replies = (page: Page) => page.getByTestId("assistant-turn");
const approvals = (page: Page) => page.getByTestId("approval-card");

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: await screenshotPath(name), animations: "disabled" });
}

/** The merchant console, signed in, at `viewport`. */
async function openConsole(viewport: {
  width: number;
  height: number;
}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await bed.browser.newContext({ viewport, locale: "en-US" });
  const page = await context.newPage();
  await page.goto(`${bed.shop.url}/merchant`);
  await page.getByLabel(/Merchant token|商家令牌/).fill(TEST_MERCHANT_TOKEN);
  await page.getByRole("button", { name: /Open the console|进入后台/ }).click();
  await composer(page).waitFor();
  return { context, page };
}

/** The pending approval card of the reply, once it shows. */
async function pendingApproval(page: Page) {
  const card = approvals(page).and(page.locator('[data-status="pending"]'));
  await card.waitFor({ timeout: 20_000 });
  return card;
}

/** Nothing on the page wider than the viewport (no horizontal scroll of the page itself). */
async function expectFitsWidth(page: Page, width: number) {
  const scrollWidth = await page.evaluate("document.documentElement.scrollWidth");
  expect(scrollWidth).toBeLessThanOrEqual(width);
}

describe.skipIf(noBrowser)("the merchant's changes in the browser", { timeout: 120_000 }, () => {
  it("a bulk restock shows one table and asks first; approved, the result is that table", async () => {
    const { context, page } = await openConsole(DESKTOP);
    const low = await bed.shop.store.lowStock(4);
    expect(low.length).toBeGreaterThan(1);

    const reply = await send(page, "restock everything under 5 to 20");
    const card = await pendingApproval(page);
    expect(await card.getAttribute("data-tool")).toBe("restock_products");
    // One table for the whole change, a row per product, and no card per product.
    const table = card.getByTestId("change-table");
    expect(await table.count()).toBe(1);
    expect(await table.locator("tbody tr").count()).toBe(Math.min(low.length, 16));
    expect(await table.locator("caption").textContent()).toBe(
      `${low.length} products filled up to 20 each`,
    );
    const firstRow = table.locator(`tr[data-product-id="${low[0]!.id}"]`);
    expect(await firstRow.locator("td").allTextContents()).toEqual([
      `${low[0]!.name}${low[0]!.id}`,
      String(low[0]!.stock),
      `+${20 - low[0]!.stock}`,
      "20",
    ]);
    expect(await page.locator('[data-testid="call-card"][data-tool="restock"]').count()).toBe(0);
    // Nothing is restocked before Approve.
    expect((await bed.shop.store.getProduct(low[0]!.id))?.stock).toBe(low[0]!.stock);
    await shot(page, "merchant-desktop-en-bulk-approval");

    await card.getByRole("button", { name: "Approve" }).click();
    await waitForReply(page, reply);
    for (const p of low) expect((await bed.shop.store.getProduct(p.id))?.stock).toBe(20);
    const turn = replies(page).nth(reply - 1);
    const results = turn.locator('[data-testid="call-card"] [data-testid="change-table"]');
    expect(await results.count()).toBe(1);
    expect(await results.locator("tbody tr").count()).toBe(Math.min(low.length, 16));
    expect(await turn.getByTestId("approval-outcome").textContent()).toBe("Approved and done.");
    // The approval card keeps only its outcome: the result's table is the one table left.
    expect(await turn.getByTestId("change-table").count()).toBe(1);
    await shot(page, "merchant-desktop-en-bulk-done");
    await context.close();
  });

  it("a declined bulk change changes nothing", async () => {
    const { context, page } = await openConsole(DESKTOP);
    const socks = (await bed.shop.store.listProducts()).filter((p) => p.category === "Socks");
    const reply = await send(page, "restock all socks with 10");
    const card = await pendingApproval(page);
    expect(await card.getByTestId("change-table").locator("tbody tr").count()).toBe(16);
    await card.getByRole("button", { name: "Decline" }).click();
    await waitForReply(page, reply);
    for (const p of socks) expect((await bed.shop.store.getProduct(p.id))?.stock).toBe(p.stock);
    const turn = replies(page).nth(reply - 1);
    // The card keeps the table it asked about, says it was not done; no result table.
    expect(await turn.getByTestId("approval-outcome").textContent()).toBe(
      "Cancelled. It was not done.",
    );
    expect(
      await turn.locator('[data-testid="call-card"] [data-testid="change-table"]').count(),
    ).toBe(0);
    expect(await turn.textContent()).toContain("OK, nothing was changed.");
    await context.close();
  });

  it("a discount is approved as one table, then the shopper's card and cart show the sale price", async () => {
    const { context, page } = await openConsole(DESKTOP);
    const glacier = (await bed.shop.store.getProduct(GLACIER))!;
    const sale = discountedCents(listPriceOf(glacier), 10);
    const reply = await send(page, "10% off all jackets");
    const card = await pendingApproval(page);
    const table = card.getByTestId("change-table");
    expect(await table.getAttribute("data-kind")).toBe("discount");
    expect(await table.locator("caption").textContent()).toBe("10% off all Jackets: 20 products");
    expect(await table.locator(`tr[data-product-id="${GLACIER}"] td`).allTextContents()).toEqual([
      `${glacier.name}${GLACIER}`,
      formatCents(glacier.priceCents),
      formatCents(sale),
    ]);
    expect((await bed.shop.store.getProduct(GLACIER))?.priceCents).toBe(glacier.priceCents);
    await shot(page, "merchant-desktop-en-discount-approval");
    await card.getByRole("button", { name: "Approve" }).click();
    await waitForReply(page, reply);
    expect((await bed.shop.store.getProduct(GLACIER))?.priceCents).toBe(sale);
    await context.close();

    // The shopper's side.
    const shopper = await bed.browser.newContext({ viewport: DESKTOP, locale: "en-US" });
    const shop = await shopper.newPage();
    await shop.goto(bed.shop.url);
    await composer(shop).waitFor();
    await expect.poll(() => composer(shop).isEnabled(), { timeout: 15_000 }).toBe(true);
    await waitForReply(shop, await send(shop, "show me rain jackets"));
    const tile = shop.locator(`.tile[data-product-id="${GLACIER}"]`);
    await tile.waitFor({ timeout: 15_000 });
    const price = tile.locator(".sale-price");
    expect(await price.getAttribute("data-discount")).toBe("10");
    expect(await price.locator(".sale-now").textContent()).toBe(formatCents(sale));
    expect(await price.locator(".sale-was").textContent()).toContain(
      formatCents(listPriceOf(glacier)),
    );
    expect(await price.locator(".pill-sale").textContent()).toBe("10% off");
    await shot(shop, "shopper-desktop-en-discounted-card");

    await waitForReply(shop, await send(shop, "add the glacier rain jacket in size M in red"));
    const line = shop.getByTestId("cart-line").first();
    await expect.poll(() => line.textContent(), { timeout: 15_000 }).toContain(formatCents(sale));
    expect(await shop.getByTestId("cart-total").textContent()).toBe(formatCents(sale));
    await shot(shop, "shopper-desktop-en-discounted-cart");
    await shopper.close();

    // On a phone, in Chinese: the discount as Chinese shops write it.
    const phone = await bed.browser.newContext({ viewport: PHONE, locale: "zh-CN" });
    const zh = await phone.newPage();
    await zh.goto(bed.shop.url);
    await expect.poll(() => composer(zh).isEnabled(), { timeout: 15_000 }).toBe(true);
    await waitForReply(zh, await send(zh, "推荐一些雨衣"));
    const zhTile = zh
      .locator(".tile")
      .filter({ has: zh.locator(".sale-price") })
      .first();
    await zhTile.waitFor({ timeout: 15_000 });
    expect(await zhTile.locator(".pill-sale").textContent()).toBe("9折");
    await zhTile.scrollIntoViewIfNeeded();
    await expectFitsWidth(zh, PHONE.width);
    await shot(zh, "shopper-phone-zh-discounted-card");
    await phone.close();
  });

  it("an edit of one product runs without asking and shows each field before and after", async () => {
    const { context, page } = await openConsole(DESKTOP);
    const reply = await send(page, "rename the Aero trail runner to Aero Trail Runner Pro");
    await waitForReply(page, reply);
    const turn = replies(page).nth(reply - 1);
    expect(await turn.getByTestId("approval-card").count()).toBe(0);
    const row = turn.locator('.edit-table tr[data-field="name"]');
    expect(await row.locator("th, td").allTextContents()).toEqual([
      "Name",
      "Aero Trail Runner",
      "Aero Trail Runner Pro",
    ]);
    expect((await bed.shop.store.getProduct("p-0001"))?.name).toBe("Aero Trail Runner Pro");
    // The chip names the product (by its new name), never "an item".
    expect(await turn.getByTestId("tool-chip").allInnerTexts()).toEqual([
      "Edited Aero Trail Runner Pro",
    ]);
    await shot(page, "merchant-desktop-en-edit");
    await context.close();
  });

  it("speaks Chinese: the language button, a Chinese request, its table in Chinese; fits a phone", async () => {
    for (const [viewport, size] of [
      [DESKTOP, "desktop"],
      [PHONE, "phone"],
    ] as const) {
      const { context, page } = await openConsole(viewport);
      if (size === "phone") await shot(page, "merchant-phone-en-welcome");
      await page.getByTestId("merchant-lang").click();
      await page.getByRole("heading", { name: "商家助手" }).waitFor();
      expect(await page.getByRole("button", { name: "库存不足的商品有哪些？补货" }).count()).toBe(
        1,
      );
      await shot(page, `merchant-${size}-zh-welcome`);
      const reply = await send(page, size === "desktop" ? "所有袜子打八五折" : "所有背包打八折");
      const card = await pendingApproval(page);
      const heading = await card.locator("h3").textContent();
      expect(heading).toBe("确认这项修改");
      const caption = await card.locator("caption").textContent();
      expect(caption).toMatch(
        size === "desktop" ? /^袜子全部8\.5折：18 件商品$/ : /^背包全部8折：17 件商品$/,
      );
      const headers = await card.locator("thead th").allTextContents();
      expect(headers).toEqual(["商品", "现价", "折后价"]);
      expect(await card.getByRole("button", { name: "同意" }).count()).toBe(1);
      // No word of the page's own in Latin letters: only product names, ids and prices are.
      const names = (await bed.shop.store.listProducts())
        .map((p) => p.name)
        .sort((a, b) => b.length - a.length);
      let rest = (await card.textContent()) ?? "";
      for (const name of names) rest = rest.split(name).join(" ");
      expect(rest.replace(/p-\d{4}|\$[\d,]+\.\d{2}/g, " ")).not.toMatch(/[A-Za-z]/);
      await expectFitsWidth(page, viewport.width);
      const box = await card.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(viewport.width);
      await shot(page, `merchant-${size}-zh-discount-approval`);
      await card.getByRole("button", { name: "同意" }).click();
      await waitForReply(page, reply);
      const turn = replies(page).nth(reply - 1);
      expect(await turn.getByTestId("approval-outcome").textContent()).toBe("已同意并完成。");
      expect(await turn.textContent()).toMatch(/已完成：.+全部打8\.?5?折/);
      await shot(page, `merchant-${size}-zh-discount-done`);
      if (size === "phone") {
        // The bulk restock's table on a phone, in English again.
        await page.getByTestId("merchant-lang").click();
        const next = await send(page, "restock all backpacks with 5");
        const bulk = await pendingApproval(page);
        await expectFitsWidth(page, viewport.width);
        await shot(page, "merchant-phone-en-bulk-approval");
        await bulk.getByRole("button", { name: "Approve" }).click();
        await waitForReply(page, next);
        await shot(page, "merchant-phone-en-bulk-done");
      }
      await context.close();
    }
  });
});
