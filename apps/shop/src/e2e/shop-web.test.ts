/**
 * The browser app end to end: the real shop (SQLite, the embedded scripted model paced so that a
 * turn takes one to two seconds, the built web app) driven through Chromium. Each test opens its
 * own browser context, so each has its own shopper session (localStorage) and cart. Screenshots of
 * every state go to `test-results/shop-web/` at the repository root.
 */

import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM_PATH,
  ensureWebBuild,
  launchBrowser,
  screenshotPath,
  startWebShop,
  TEST_MERCHANT_TOKEN,
  type WebShop,
} from "./web-harness.js";

const DEMO = "add the Aero trail runner and the wool socks to my cart and tell me the total";
const SEARCH = "show me running shoes under 100";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * Without Chromium (Debian's, or the one at CHROMIUM_PATH) the browser tests cannot run: a failure
 * under CI, a loud skip elsewhere.
 */
const noBrowser = !existsSync(CHROMIUM_PATH) && process.env.CI !== "true";
if (noBrowser) {
  console.warn(
    `\n!!! Browser tests SKIPPED: ${CHROMIUM_PATH} is missing (apt-get install chromium, or set CHROMIUM_PATH; CI=true makes this a failure).\n`,
  );
}

let shop: WebShop;
let browser: Browser;
/** Problems the pages reported (uncaught errors, console errors other than failed requests). */
const pageProblems: string[] = [];

beforeAll(async () => {
  if (noBrowser) return;
  const [, started, launched] = await Promise.all([
    ensureWebBuild(),
    // About 60 tokens a second and a quick first token: a demo turn takes about 1.5 s.
    startWebShop({ pacing: { tokensPerSecond: 60, firstTokenMs: 150, jitter: 0.1 } }),
    launchBrowser(),
  ]);
  shop = started;
  browser = launched;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
});

async function open(
  viewport: { width: number; height: number },
  path = "/",
): Promise<{ context: BrowserContext; page: Page }> {
  const phone = viewport.width < 500;
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: phone ? 2 : 1,
    isMobile: phone,
    hasTouch: phone,
    reducedMotion: "no-preference",
  });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // A refused request (the 409 of a cart rule) is logged by the browser itself: expected.
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) {
      pageProblems.push(`console: ${msg.text()}`);
    }
  });
  await page.goto(shop.url + path);
  return { context, page };
}

const composer = (page: Page) => page.getByRole("textbox", { name: "Message" });
const replies = (page: Page) => page.getByTestId("assistant-turn");
const lastTurn = (page: Page) => replies(page).last();

/** Sends `text` with Enter; returns how many replies there will be once it is answered. */
async function send(page: Page, text: string): Promise<number> {
  const before = await replies(page).count();
  await composer(page).fill(text);
  await composer(page).press("Enter");
  return before + 1;
}

/** Waits until reply number `count` has ended (its own `done`) and the message box is usable. */
async function waitForReply(page: Page, count: number): Promise<void> {
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
  await expect.poll(() => composer(page).isEnabled(), { timeout: 10_000 }).toBe(true);
}

/** The text of the element a locator (or handle) points at. */
async function text(target: { textContent(): Promise<string | null> }): Promise<string> {
  return (await target.textContent()) ?? "";
}

/** One attribute of every element a locator matches. */
async function attributes(locator: Locator, name: string): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < (await locator.count()); i++)
    out.push(await locator.nth(i).getAttribute(name));
  return out;
}

async function shot(page: Page, name: string, settleMs = 0): Promise<void> {
  // Elements that just appeared finish their entrance first; running animations jump to their
  // end: a screenshot shows the state, not a frame of a transition.
  if (settleMs > 0) await page.waitForTimeout(settleMs);
  await page.screenshot({ path: await screenshotPath(name), animations: "disabled" });
}

/** Reads `data-*` numbers of the timeline's bars in one round. */
async function roundBars(page: Page, round: number) {
  const bars = page.locator(`[data-testid="timeline-round"][data-round="${round}"] [data-bar]`);
  const count = await bars.count();
  const out: { kind: string; bar: string; startMs: number; endMs: number }[] = [];
  for (let i = 0; i < count; i++) {
    const bar = bars.nth(i);
    out.push({
      kind: (await bar.getAttribute("data-kind")) ?? "",
      bar: (await bar.getAttribute("data-bar")) ?? "",
      startMs: Number(await bar.getAttribute("data-start-ms")),
      endMs: Number(await bar.getAttribute("data-end-ms")),
    });
  }
  return out;
}

/**
 * What the conversation shows, without ids and timings: each user message, and each reply's
 * text, its tool chips (name and final state) and its cards (tool and state).
 */
async function transcript(page: Page): Promise<string[]> {
  const entries = page.locator('[data-testid="user-message"], [data-testid="assistant-turn"]');
  const lines: string[] = [];
  for (let i = 0; i < (await entries.count()); i++) {
    const entry = entries.nth(i);
    if ((await entry.getAttribute("data-testid")) === "user-message") {
      lines.push(`user: ${await text(entry)}`);
      continue;
    }
    const texts = await entry.locator(".turn-text").allInnerTexts();
    const chips = entry.locator('[data-testid="tool-chip"]');
    const chipStates: string[] = [];
    for (let c = 0; c < (await chips.count()); c++) {
      chipStates.push(
        `${await chips.nth(c).getAttribute("data-tool")}:${await chips.nth(c).getAttribute("data-phase")}`,
      );
    }
    const cards = entry.locator('[data-testid="call-card"]');
    const cardStates: string[] = [];
    for (let c = 0; c < (await cards.count()); c++) {
      cardStates.push(
        `${await cards.nth(c).getAttribute("data-tool")}:${await cards.nth(c).getAttribute("data-state")}`,
      );
    }
    lines.push(
      `assistant: ${texts.join(" | ")} [${chipStates.join(", ")}] {${cardStates.join(", ")}}`,
    );
  }
  return lines;
}

describe.skipIf(noBrowser)("the shop in a browser", () => {
  it("demo: tool chips before the reply ends, the preview card becomes the final card, the cart and the timeline follow", async () => {
    const { context, page } = await open(DESKTOP);
    await expect.poll(() => text(page.getByTestId("model-badge"))).toContain("Scripted model");
    await page.getByTestId("cart-panel").getByText("Your cart is empty.").waitFor();
    await shot(page, "desktop-01-welcome");

    const demo = await send(page, DEMO);
    // A chip appears while the reply is still being written.
    await page.waitForSelector(
      '[data-testid="assistant-turn"][data-running="true"] [data-testid="tool-chip"]',
    );
    await shot(page, "desktop-02-demo-streaming");
    await waitForReply(page, demo);

    const chips = lastTurn(page).getByTestId("tool-chip");
    expect(await chips.count()).toBe(3);
    expect(await attributes(chips, "data-phase")).toEqual(["done", "done", "done"]);
    const cart = page.getByTestId("cart-panel");
    await expect.poll(() => cart.getByTestId("cart-line").count()).toBe(2);
    expect(await text(cart)).toContain("Aero Trail Runner");
    expect(await text(cart)).toContain("Merino Wool Socks");
    await expect.poll(() => text(cart.getByTestId("cart-total"))).toBe("$103.50");

    // Round 1: tool bars that start before the model's last block ends.
    const bars = await roundBars(page, 1);
    const blocks = bars.filter((b) => b.kind === "block");
    const tools = bars.filter((b) => b.bar === "run");
    expect(tools.length).toBe(3);
    const lastBlockEnd = Math.max(...blocks.map((b) => b.endMs));
    expect(tools.some((t) => t.startMs < lastBlockEnd)).toBe(true);
    expect(await page.getByTestId("stream-end").count()).toBeGreaterThan(0);
    await shot(page, "desktop-03-demo-done");

    // A chip opens its details (arguments, result, when it ran).
    await chips.first().click();
    expect(await text(page.locator(".call-details"))).toContain("Added 1 × Aero Trail Runner");
    await shot(page, "desktop-03b-chip-details");
    await chips.first().click();

    // A display tool: the preview card is the element that becomes the final card.
    const search = await send(page, SEARCH);
    const preview = await page.waitForSelector(
      '[data-testid="call-card"][data-tool="show_products"][data-state="preview"]',
      { timeout: 15_000 },
    );
    await shot(page, "desktop-04-preview-skeleton");
    // The partial product list: ids written so far, their tiles still loading.
    await page.waitForFunction(
      (el) =>
        el.querySelectorAll("code.id").length >= 2 || el.getAttribute("data-state") !== "preview",
      preview,
      { timeout: 15_000, polling: "raf" },
    );
    await shot(page, "desktop-04b-preview-partial");
    await page.waitForFunction((el) => el.getAttribute("data-state") === "final", preview, {
      timeout: 15_000,
    });
    expect(await preview.evaluate((el) => el.isConnected)).toBe(true);
    const finalCard = await page.$('[data-testid="call-card"][data-tool="show_products"]');
    expect(await preview.evaluate((a, b) => a === b, finalCard)).toBe(true);
    const cardText = await text(preview);
    expect(cardText).toMatch(/\$\d+\.\d\d/);
    expect(cardText).toMatch(/in stock|left|Sold out/);
    await waitForReply(page, search);
    await shot(page, "desktop-05-search-done");
    await context.close();
  });

  it("a reload in the middle of a turn resumes it and ends with the same conversation", async () => {
    const reference = await open(DESKTOP);
    await waitForReply(reference.page, await send(reference.page, DEMO));
    const expected = await transcript(reference.page);
    await reference.context.close();

    const { context, page } = await open(DESKTOP);
    const demo = await send(page, DEMO);
    await page.waitForSelector('[data-testid="tool-chip"]');
    const conversation = page.waitForResponse(
      (r) =>
        r.request().method() === "GET" &&
        /^\/api\/sessions\/[^/]+$/.test(new URL(r.url()).pathname),
    );
    await page.reload();
    const loaded = (await (await conversation).json()) as { turn: { running: boolean } };
    expect(loaded.turn.running).toBe(true);
    await page.getByTestId("timeline-round").first().waitFor();
    await shot(page, "desktop-06-reload-resumed", 500);
    await waitForReply(page, demo);
    expect(await transcript(page)).toEqual(expected);
    await context.close();
  });

  it("Stop in the middle of a turn, then another message works", async () => {
    const { context, page } = await open(DESKTOP);
    await send(page, DEMO);
    await page.waitForSelector('[data-testid="tool-chip"]');
    await page.getByRole("button", { name: "Stop the reply" }).click();
    await page.getByTestId("turn-stopped").waitFor();
    await expect.poll(() => composer(page).isEnabled()).toBe(true);
    await shot(page, "desktop-07-stopped");

    const next = await send(page, SEARCH);
    await waitForReply(page, next);
    expect(
      await text(
        replies(page)
          .nth(next - 1)
          .locator(".turn-text")
          .first(),
      ),
    ).not.toBe("");
    expect(await page.getByTestId("turn-error").count()).toBe(0);
    expect(await page.getByTestId("chat-error").count()).toBe(0);
    await shot(page, "desktop-08-after-stop");

    // The stored conversation was repaired: every tool_use has its tool_result right after it.
    const session = JSON.parse(
      String(await page.evaluate("localStorage.getItem('trail-run.shopper-session')")),
    ) as { id: string; token: string };
    const stored = (await (
      await page.request.get(`${shop.url}/api/sessions/${session.id}`, {
        headers: { authorization: `Bearer ${session.token}` },
      })
    ).json()) as {
      messages: {
        role: string;
        content: string | { type: string; id?: string; tool_use_id?: string }[];
      }[];
    };
    const blocks = (m: (typeof stored.messages)[number] | undefined) =>
      Array.isArray(m?.content) ? m.content : [];
    expect(stored.messages.length).toBeGreaterThanOrEqual(4);
    stored.messages.forEach((message, i) => {
      expect(message.role).toBe(i % 2 === 0 ? "user" : "assistant");
      const calls = blocks(message)
        .filter((b) => b.type === "tool_use")
        .map((b) => b.id);
      const answered = blocks(stored.messages[i + 1])
        .filter((b) => b.type === "tool_result")
        .map((b) => b.tool_use_id);
      expect(answered).toEqual(calls);
    });
    await context.close();
  });

  it("cart: + and - and remove from the panel; a refused change shows the rule", async () => {
    const { context, page } = await open(DESKTOP);
    await waitForReply(page, await send(page, "add 9 aero trail runners to my cart"));
    const cart = page.getByTestId("cart-panel");
    const line = cart.getByTestId("cart-line");
    await expect.poll(() => text(line.getByTestId("cart-quantity"))).toBe("9");

    await cart.getByRole("button", { name: "Increase quantity of Aero Trail Runner" }).click();
    await expect.poll(() => text(line.getByTestId("cart-quantity"))).toBe("10");
    await cart.getByRole("button", { name: "Increase quantity of Aero Trail Runner" }).click();
    const refusal = cart.getByTestId("cart-error");
    await refusal.waitFor();
    expect(await text(refusal)).toMatch(/10/);
    expect(await text(line.getByTestId("cart-quantity"))).toBe("10");
    await shot(page, "desktop-09-cart-limit");

    await cart.getByRole("button", { name: "Decrease quantity of Aero Trail Runner" }).click();
    await expect.poll(() => text(line.getByTestId("cart-quantity"))).toBe("9");
    expect(await refusal.count()).toBe(0);
    await expect.poll(() => text(cart.getByTestId("cart-total"))).toBe("$801.00");

    await cart.getByRole("button", { name: "Remove Aero Trail Runner from cart" }).click();
    await cart.getByText("Your cart is empty.").waitFor();
    await shot(page, "desktop-10-cart-empty");
    await context.close();
  });

  it("a delegate call (ask_merchant) shows the merchant assistant's answer inside its card", async () => {
    const { context, page } = await open(DESKTOP);
    await waitForReply(
      page,
      await send(page, "ask the merchant when the Aero trail runner is back in stock"),
    );
    const card = lastTurn(page).locator('[data-testid="call-card"][data-tool="ask_merchant"]');
    expect(await card.getByTestId("tool-chip").count()).toBeGreaterThan(0);
    expect(await text(card)).toContain("Aero Trail Runner");
    await shot(page, "desktop-14-ask-merchant");
    await context.close();
  });

  it("phone: chat, cart and timeline are tabs", async () => {
    const { context, page } = await open(PHONE);
    await shot(page, "phone-01-welcome");
    const demo = await send(page, DEMO);
    await page.waitForSelector('[data-testid="tool-chip"]');
    await shot(page, "phone-02-streaming");
    await waitForReply(page, demo);
    await shot(page, "phone-03-chat");
    expect(await page.getByTestId("cart-panel").isVisible()).toBe(false);

    await page.getByRole("tab", { name: /Cart/ }).click();
    await page.getByTestId("cart-panel").waitFor();
    expect(await text(page.getByTestId("cart-total"))).toBe("$103.50");
    await shot(page, "phone-04-cart");

    await page.getByRole("tab", { name: /Timeline/ }).click();
    await page.getByTestId("timeline-round").first().waitFor();
    await shot(page, "phone-05-timeline", 500);

    await page.getByRole("tab", { name: /Chat/ }).click();
    await waitForReply(page, await send(page, "把两件商品加入购物车，然后算一下总价"));
    expect(await text(lastTurn(page).locator(".turn-text").first())).toMatch(/[\u4e00-\u9fff]/);
    await shot(page, "phone-06-chinese");
    await context.close();
  });

  it("merchant: asks for the token, then the merchant assistant with its cards", async () => {
    const { context, page } = await open(DESKTOP, "/merchant");
    const token = page.getByLabel("Merchant token");
    await token.fill("not-the-token");
    await page.getByRole("button", { name: "Open the console" }).click();
    await page.getByText("That merchant token was not accepted.").waitFor();
    await shot(page, "desktop-11-merchant-login");

    await token.fill(TEST_MERCHANT_TOKEN);
    await page.getByRole("button", { name: "Open the console" }).click();
    await composer(page).waitFor();
    await shot(page, "desktop-12-merchant-welcome");
    await waitForReply(page, await send(page, "show the inventory of trail shoes"));
    expect(
      await lastTurn(page)
        .locator('[data-testid="call-card"][data-tool="show_inventory"]')
        .getAttribute("data-state"),
    ).toBe("final");

    // The low-stock card is final after the first round, while the model still writes its summary.
    await send(page, "what is low on stock?");
    const lowStock = lastTurn(page).locator(
      '[data-testid="call-card"][data-tool="low_stock_report"]',
    );
    await expect.poll(() => lowStock.getAttribute("data-state"), { timeout: 15_000 }).toBe("final");
    expect(await text(lowStock)).toContain("Low stock");
    await shot(page, "desktop-13-merchant-low-stock");

    // The token and the session are kept for the tab: a reload goes back to the same console, and
    // the running reply resumes with its final card.
    await page.reload();
    await composer(page).waitFor({ state: "attached" });
    await expect.poll(() => page.getByTestId("user-message").count()).toBe(2);
    await expect.poll(() => lowStock.getAttribute("data-state"), { timeout: 15_000 }).toBe("final");
    await context.close();
  });

  it("no page reported an error", () => {
    expect(pageProblems).toEqual([]);
  });
});
