/**
 * Checkout asks first, in a browser: with items in the cart, "check out" shows an order
 * summary card (lines and total) with Confirm and Cancel, and nothing is ordered before Confirm.
 * Confirm places exactly one order; Cancel places none and the assistant says so; a reload while
 * the card waits shows it again, still answerable. The real shop (SQLite, the embedded scripted
 * model, the built web app) through Debian's Chromium; orders are read from the store.
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

const bed = webTestBed({ tokensPerSecond: 120, firstTokenMs: 60, jitter: 0 }, 120_000);
const pageProblems: string[] = [];

async function open(): Promise<{ context: BrowserContext; page: Page; sessionId: string }> {
  const context = await bed.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  await page.goto(bed.shop.url);
  await expect.poll(() => composer(page).isEnabled(), { timeout: 15_000 }).toBe(true);
  // A string expression: it runs in the page, where this file's Node types know no localStorage.
  const raw = await page.evaluate("localStorage.getItem('trail-run.shopper-session')");
  const sessionId = typeof raw === "string" ? (JSON.parse(raw) as { id: string }).id : "";
  expect(sessionId).not.toBe("");
  return { context, page, sessionId };
}

const composer = (page: Page) => page.getByRole("textbox", { name: "Message" });
const replies = (page: Page) => page.getByTestId("assistant-turn");
const card = (page: Page) => page.getByTestId("approval-card");

/** A cart with the two demo products, then "check out" up to the pending card. */
async function checkOutToCard(page: Page): Promise<number> {
  await waitForReply(
    page,
    await send(
      page,
      "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart",
    ),
  );
  const reply = await send(page, "check out");
  await card(page).and(page.locator('[data-status="pending"]')).waitFor({ timeout: 20_000 });
  return reply;
}

const orders = (sessionId: string) => bed.shop.store.listOrders({ sessionId });

describe.skipIf(noBrowser)("checkout asks the shopper first", { timeout: 90_000 }, () => {
  it("shows the order summary card; nothing is ordered before Confirm; Confirm places exactly one order", async () => {
    const { context, page, sessionId } = await open();
    const reply = await checkOutToCard(page);
    const summary = card(page);
    expect(await summary.getAttribute("data-tool")).toBe("checkout");
    const shown = (await summary.textContent()) ?? "";
    expect(shown).toContain("1 × Aero Trail Runner");
    expect(shown).toContain("1 × Merino Wool Socks");
    expect(await summary.getByTestId("approval-total").textContent()).toBe("$103.50");
    await page.screenshot({ path: await screenshotPath("approval-01-order-summary") });

    // The reply waits: no order while the card is shown, however long it stays.
    await page.waitForTimeout(400);
    expect(
      await replies(page)
        .nth(reply - 1)
        .getAttribute("data-done"),
    ).not.toBe("true");
    expect(await orders(sessionId)).toEqual([]);

    await summary.getByRole("button", { name: "Confirm order" }).click();
    await waitForReply(page, reply);
    expect(await orders(sessionId)).toHaveLength(1);
    expect(await summary.getAttribute("data-status")).toBe("approved");
    expect(await summary.getByTestId("approval-outcome").textContent()).toContain(
      "Your order is placed.",
    );
    expect(
      (await replies(page)
        .nth(reply - 1)
        .textContent()) ?? "",
    ).toMatch(/Order o-\S+ is placed/);
    await page.screenshot({ path: await screenshotPath("approval-02-confirmed") });
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("Cancel places no order, and the assistant says the order was not placed", async () => {
    const { context, page, sessionId } = await open();
    const reply = await checkOutToCard(page);
    await card(page).getByRole("button", { name: "Cancel order" }).click();
    await waitForReply(page, reply);
    expect(await orders(sessionId)).toEqual([]);
    expect(await card(page).getAttribute("data-status")).toBe("declined");
    expect(await card(page).getByTestId("approval-outcome").textContent()).toContain(
      "No order was placed.",
    );
    const text = (
      await replies(page)
        .nth(reply - 1)
        .locator(".turn-text")
        .allInnerTexts()
    ).join(" ");
    expect(text).toContain("I did not place the order");
    await page.screenshot({ path: await screenshotPath("approval-03-cancelled") });
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("a reload while the card waits shows it again, and it can still be confirmed", async () => {
    const { context, page, sessionId } = await open();
    const reply = await checkOutToCard(page);
    await page.reload();
    const again = card(page).and(page.locator('[data-status="pending"]'));
    await again.waitFor({ timeout: 20_000 });
    expect(await orders(sessionId)).toEqual([]);
    await again.getByRole("button", { name: "Confirm order" }).click();
    await waitForReply(page, reply);
    expect(await orders(sessionId)).toHaveLength(1);
    expect(await card(page).getAttribute("data-status")).toBe("approved");
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("a price raised while the card waits: Confirm orders nothing, the card comes back with what changed", async () => {
    const { context, page, sessionId } = await open();
    const reply = await checkOutToCard(page);
    const aero = (await bed.shop.store.getCart(sessionId)).lines[0]?.productId ?? "";
    const before = await bed.shop.store.getProduct(aero);
    // The merchant (another instance, as far as this card knows) raises the price meanwhile.
    await bed.shop.store.setPrice(aero, 9_500);
    await card(page).getByRole("button", { name: "Confirm order" }).click();
    const changed = card(page).getByTestId("approval-changes");
    await changed.waitFor({ timeout: 20_000 });
    expect(await orders(sessionId)).toEqual([]);
    const words = (await changed.textContent()) ?? "";
    expect(words).toContain("Aero Trail Runner is now $95.00, was $89.00.");
    expect(words).toContain("The total is now $109.50, was $103.50.");
    expect(await card(page).getByTestId("approval-total").textContent()).toBe("$109.50");
    await page.screenshot({ path: await screenshotPath("approval-04-order-changed") });
    await card(page).getByRole("button", { name: "Confirm order" }).click();
    await waitForReply(page, reply);
    const placed = await orders(sessionId);
    expect(placed.map((o) => o.totalCents)).toEqual([10_950]);
    expect(await card(page).getAttribute("data-status")).toBe("approved");
    if (before) await bed.shop.store.setPrice(aero, before.priceCents);
    expect(pageProblems).toEqual([]);
    await context.close();
  });
});
