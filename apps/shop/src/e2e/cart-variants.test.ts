/**
 * Sizes and colours in a browser: a product card's "Add" opens a size and colour picker for a
 * product that needs them, and the line arrives with its variant; a cart line without its size
 * (a cart from before sizes were required) is marked "Choose a size and colour", checkout asks
 * for it instead of starting, and the line's picker completes it, after which checkout starts.
 * On a desktop (1280×800) and a phone (390×844), with screenshots in `test-results/shop-web/`.
 */

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, webTestBed } from "./web-harness.js";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 400, firstTokenMs: 20 }, 60_000);
const SESSION_KEY = "trail-run.shopper-session";

const composer = (page: Page) => page.getByRole("textbox", { name: /^(Message|消息)$/ });
const replies = (page: Page) => page.getByTestId("assistant-turn");

async function open(viewport: { width: number; height: number }): Promise<{
  context: BrowserContext;
  page: Page;
}> {
  const phone = viewport.width < 500;
  const context = await bed.browser.newContext({
    viewport,
    deviceScaleFactor: phone ? 2 : 1,
    isMobile: phone,
    hasTouch: phone,
  });
  const page = await context.newPage();
  await page.goto(bed.shop.url);
  await composer(page).waitFor();
  return { context, page };
}

/** Sends `text` and waits until its reply has ended. */
async function ask(page: Page, text: string): Promise<void> {
  const count = (await replies(page).count()) + 1;
  await composer(page).fill(text);
  await composer(page).press("Enter");
  await expect.poll(() => replies(page).count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(count);
  await expect
    .poll(
      () =>
        replies(page)
          .nth(count - 1)
          .getAttribute("data-done"),
      { timeout: 15_000 },
    )
    .toBe("true");
}

async function sessionOf(page: Page): Promise<{ id: string; token: string }> {
  return JSON.parse(String(await page.evaluate(`localStorage.getItem('${SESSION_KEY}')`))) as {
    id: string;
    token: string;
  };
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(250);
  await page.screenshot({ path: await screenshotPath(name), animations: "disabled" });
}

/** On a phone the cart is a tab of its own. */
async function showCart(page: Page, phone: boolean): Promise<void> {
  if (phone) await page.getByRole("tab", { name: /Cart|购物车/ }).click();
}

async function showChat(page: Page, phone: boolean): Promise<void> {
  if (phone) await page.getByRole("tab", { name: /Chat|对话/ }).click();
}

describe.skipIf(noBrowser)("sizes and colours in the browser", () => {
  for (const [label, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    it(`${label}: a card's Add asks the size and colour; a line without its size is marked, checkout asks for it, the line's picker completes it`, async () => {
      const phone = viewport.width < 500;
      const { context, page } = await open(viewport);
      await ask(page, "show me the aero trail runner");
      const tile = replies(page).last().locator('.tile[data-product-id="p-0001"]');
      await tile.getByRole("button", { name: "Add Aero Trail Runner to cart" }).click();
      const picker = tile.getByTestId("tile-variant-picker");
      await picker.waitFor();
      const confirm = picker.getByRole("button", { name: "Add to cart" });
      expect(await confirm.isDisabled()).toBe(true);
      await picker.getByLabel("Size of Aero Trail Runner").selectOption("US 10");
      await picker.getByLabel("Colour of Aero Trail Runner").selectOption("Volt");
      await shot(page, `${label}-variants-01-card-picker`);
      await confirm.click();
      await expect.poll(() => picker.count()).toBe(0);

      await showCart(page, phone);
      const cart = page.getByTestId("cart-panel");
      const shoe = cart.locator('[data-testid="cart-line"][data-product-id="p-0001"]');
      await expect
        .poll(() => shoe.getByTestId("cart-variant").textContent())
        .toBe("Size US 10 · Volt");

      // A line from before sizes were required: no size, no colour.
      const { id } = await sessionOf(page);
      await bed.shop.store.withCart(id, (c) => ({
        ok: true,
        cart: {
          lines: [...c.lines, { productId: "p-0002", quantity: 1, unitPriceCents: 1_450 }],
        },
      }));
      await page.reload();
      await composer(page).waitFor({ state: "attached" });
      await showCart(page, phone);
      const socks = cart.locator('[data-testid="cart-line"][data-product-id="p-0002"]');
      await expect
        .poll(() => socks.getByTestId("cart-line-needs").textContent())
        .toContain("Choose a size and colour");
      expect(await shoe.getByTestId("cart-line-needs").count()).toBe(0);

      // Checkout asks for the choice instead of starting.
      const turns = await replies(page).count();
      await cart.getByRole("button", { name: "Check out with the assistant" }).click();
      await cart.getByTestId("cart-choose-first").waitFor();
      expect(await cart.getByTestId("cart-choose-first").textContent()).toContain(
        "Choose the size and colour of the Merino Wool Socks before checking out.",
      );
      await shot(page, `${label}-variants-02-line-needs-size`);
      expect(await replies(page).count()).toBe(turns);
      expect(await bed.shop.store.listOrders({ sessionId: id })).toEqual([]);

      // The line's picker completes it.
      const fix = socks.getByTestId("cart-variant-picker");
      await fix.getByLabel("Size of Merino Wool Socks").selectOption("M");
      await fix.getByLabel("Colour of Merino Wool Socks").selectOption("Charcoal");
      await fix.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => socks.getByTestId("cart-line-needs").count()).toBe(0);
      await expect
        .poll(() => socks.getByTestId("cart-variant").textContent())
        .toBe("Size M · Charcoal");
      expect(await cart.getByTestId("cart-choose-first").count()).toBe(0);
      expect((await bed.shop.store.getCart(id)).lines).toEqual([
        expect.objectContaining({ productId: "p-0001", size: "US 10", color: "Volt" }),
        expect.objectContaining({ productId: "p-0002", size: "M", color: "Charcoal" }),
      ]);
      await shot(page, `${label}-variants-03-line-completed`);

      // Now checkout starts: the assistant asks to confirm the order.
      await cart.getByRole("button", { name: "Check out with the assistant" }).click();
      await showChat(page, phone);
      await page.getByTestId("approval-card").waitFor({ timeout: 15_000 });
      await shot(page, `${label}-variants-04-checkout`);
      await context.close();
    });
  }
});
