/**
 * "Forget me on this device" in a browser: the confirmation, the revoked tokens, the new shopper;
 * and a remembered token that the server no longer accepts (revoked elsewhere) on load. On a
 * desktop (1280×800) and a phone (390×844), with screenshots in `test-results/shop-web/`.
 */

import type { BrowserContext, Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, webTestBed } from "./web-harness.js";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 200, firstTokenMs: 50 }, 60_000);
/** Problems the pages reported (uncaught errors, console errors other than failed requests). */
const pageProblems: string[] = [];

const SESSION_KEY = "trail-run.shopper-session";

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
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // A refused request (the 401 of a revoked token) is logged by the browser itself: expected.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
      pageProblems.push(`console: ${msg.text()}`);
    }
  });
  await page.goto(bed.shop.url);
  await composer(page).waitFor();
  return { context, page };
}

const composer = (page: Page) => page.getByRole("textbox", { name: /^(Message|消息)$/ });

/** The shopper session the page remembers. */
async function sessionOf(page: Page): Promise<{ id: string; token: string }> {
  return JSON.parse(String(await page.evaluate(`localStorage.getItem('${SESSION_KEY}')`))) as {
    id: string;
    token: string;
  };
}

/** The status `GET /api/sessions/:id` answers with `token`. */
async function statusWith(page: Page, id: string, token: string): Promise<number> {
  const response = await page.request.get(`${bed.shop.url}/api/sessions/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return response.status();
}

async function shot(page: Page, name: string): Promise<void> {
  // Let an entrance animation end first; a screenshot shows the state, not a transition.
  await page.waitForTimeout(250);
  await page.screenshot({ path: await screenshotPath(name), animations: "disabled" });
}

/** True when the element is wholly inside the viewport. */
async function inView(target: Locator): Promise<boolean> {
  const box = await target.boundingBox();
  const size = target.page().viewportSize();
  return (
    box !== null &&
    size !== null &&
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= size.width &&
    box.y + box.height <= size.height
  );
}

describe.skipIf(noBrowser)("Forget me on this device", () => {
  for (const [label, viewport] of [
    ["1280x800", DESKTOP],
    ["390x844", PHONE],
  ] as const) {
    it(`${label}: asks first; Cancel keeps everything; Forget me revokes the tokens and starts a new shopper`, async () => {
      const { context, page } = await open(viewport);
      const before = await sessionOf(page);
      // Something in the cart, so that the new shopper's empty cart shows.
      const added = await page.request.post(
        `${bed.shop.url}/api/sessions/${before.id}/cart/items`,
        {
          headers: { authorization: `Bearer ${before.token}` },
          data: { productId: "p-0002", quantity: 1, size: "M", color: "Charcoal" },
        },
      );
      expect(added.status()).toBe(200);
      await page.reload();
      const cart = page.getByTestId("cart-panel");
      if (viewport === PHONE) await page.getByRole("tab", { name: /Cart/ }).click();
      await expect.poll(() => cart.getByTestId("cart-line").count()).toBe(1);
      if (viewport === PHONE) await page.getByRole("tab", { name: /Chat/ }).click();

      const forgetMe = page.getByTestId("forget-me");
      // Every button of the bar is whole and in view (on a phone, Forget me is its icon).
      const bar = page.locator(".account-bar button");
      expect(await bar.count()).toBe(4);
      for (let i = 0; i < 4; i++) expect(await inView(bar.nth(i)), `button ${i}`).toBe(true);
      expect(await forgetMe.getAttribute("aria-label")).toBe("Forget me on this device");
      await shot(page, `forget-me-bar-${label}`);

      await forgetMe.click();
      const dialog = page.getByTestId("forget-dialog");
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain("This cannot be undone.");
      // The drawer slides in (0.18 s): measured once it has come to rest, not mid-slide.
      await expect.poll(() => inView(page.getByTestId("forget-confirm"))).toBe(true);
      await shot(page, `forget-me-confirm-${label}`);

      // Cancel: nothing is forgotten.
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect(await sessionOf(page)).toEqual(before);
      expect(await statusWith(page, before.id, before.token)).toBe(200);

      await forgetMe.click();
      await page.getByTestId("forget-confirm").click();
      await expect
        .poll(() => page.locator(".chat").textContent())
        .toContain("This device no longer remembers you: your tokens were revoked.");
      await dialog.waitFor({ state: "detached" });

      // A new shopper is remembered; the old token opens nothing any more (as an unknown one).
      const after = await sessionOf(page);
      expect(after.id).not.toBe(before.id);
      expect(after.token).not.toBe(before.token);
      expect(await statusWith(page, before.id, before.token)).toBe(401);
      expect(await statusWith(page, after.id, before.token)).toBe(401);
      expect(await statusWith(page, after.id, after.token)).toBe(200);
      const chats = await page.request.get(`${bed.shop.url}/api/shopper/chats`, {
        headers: { authorization: `Bearer ${before.token}` },
      });
      expect(chats.status()).toBe(401);
      // The new shopper's cart is empty and the message box works.
      if (viewport === PHONE) await page.getByRole("tab", { name: /Cart/ }).click();
      await expect.poll(() => cart.getByTestId("cart-line").count()).toBe(0);
      if (viewport === PHONE) await page.getByRole("tab", { name: /Chat/ }).click();
      expect(await composer(page).isEnabled()).toBe(true);
      await shot(page, `forget-me-done-${label}`);
      await context.close();
    });
  }

  it("a remembered token revoked elsewhere: on load the page starts a new shopper and says so, in Chinese too", async () => {
    const { context, page } = await open(DESKTOP);
    for (const [lang, words] of [
      ["en", "Your saved session on this device has ended"],
      ["zh", "此设备上保存的会话已结束"],
    ] as const) {
      await page.evaluate(`localStorage.setItem('trail-run.lang', '${lang}')`);
      const before = await sessionOf(page);
      // Another tab (or a script with the token) forgot this shopper.
      const forgot = await page.request.post(`${bed.shop.url}/api/shopper/forget`, {
        headers: { authorization: `Bearer ${before.token}` },
      });
      expect(forgot.status()).toBe(200);
      await page.reload();
      await expect.poll(() => page.locator(".chat").textContent()).toContain(words);
      const after = await sessionOf(page);
      expect(after.token).not.toBe(before.token);
      expect(await statusWith(page, after.id, after.token)).toBe(200);
      await shot(page, `forget-me-revoked-on-load-${lang}`);
    }
    await context.close();
  });

  it("no page reported an error", () => {
    expect(pageProblems).toEqual([]);
  });
});
