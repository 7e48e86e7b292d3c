/**
 * Browser test support: builds the web app when its build is missing or older than its sources,
 * starts the whole shop in-process (SQLite in a temporary directory, the embedded scripted model
 * with the given pacing, the real app, the built web app in front of it) on a free port, and
 * launches the system's Chromium through playwright-core. Not used by the product.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Pacing } from "overlap-sim";
import pino from "pino";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { createShopAgents } from "../agents/shop-agents.js";
import { openStore } from "../db/open-store.js";
import type { ShopStore } from "../db/shop-store.js";
import { modelFromEnv } from "../model/model-from-env.js";
import { shopPolicy } from "../model/shop-policy.js";
import { createApp } from "../server/create-app.js";
import { startHttpServer } from "../server/start-http-server.js";
import { ensureWebBuild, WEB_DIR } from "../server/web-build.js";

export { ensureWebBuild, WEB_DIR };

import { TEST_MERCHANT_TOKEN } from "../server/test-shop.testkit.js";

export { TEST_MERCHANT_TOKEN };

/** Where screenshots go: `test-results/` at the repository root (git-ignored). */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL("../../../../test-results/shop-web", import.meta.url),
);

/** A running shop serving the web app. */
export interface WebShop {
  url: string;
  store: ShopStore;
  close(): Promise<void>;
}

/**
 * Starts the shop on a free port (`createApp`, which serves the built web app), with the
 * embedded model paced as given and SQLite in a fresh temporary directory.
 */
export async function startWebShop(options: { pacing: Partial<Pacing> }): Promise<WebShop> {
  const dir = await mkdtemp(join(tmpdir(), "shop-e2e-"));
  const store = await openStore({ dataDir: dir });
  const model = await modelFromEnv({ env: {}, policy: shopPolicy, pacing: options.pacing });
  const agents = createShopAgents({ store, model: model.model });
  const shop = createApp({
    store,
    agents,
    model,
    merchantToken: TEST_MERCHANT_TOKEN,
    logger: pino({ level: "silent" }),
  });
  const http = await startHttpServer((request) => shop.app.fetch(request), { port: 0 });
  return {
    url: http.url,
    store,
    async close() {
      const stopped = http.close({ graceMs: 1_000 });
      await shop.drain();
      await stopped;
      await model.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The system Chromium (`CHROMIUM_PATH`, default Debian's `/usr/bin/chromium`; never a browser
 * download of a test tool's own) and the flags that keep it quiet and offline.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * True when the browser tests cannot run here (no Chromium at CHROMIUM_PATH) and are to be
 * skipped, with a loud warning; under CI=true a missing browser is never a skip, the tests fail.
 */
export function browserTestsSkipped(): boolean {
  if (existsSync(CHROMIUM_PATH) || process.env.CI === "true") return false;
  console.warn(
    `\n!!! Browser tests SKIPPED: ${CHROMIUM_PATH} is missing (apt-get install chromium, or set CHROMIUM_PATH; CI=true makes this a failure).\n`,
  );
  return true;
}
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** The shop and the browser of one browser test file, set once its `beforeAll` has run. */
export interface WebTestBed {
  readonly shop: WebShop;
  readonly browser: Browser;
}

/**
 * Starts the web build check, the shop (with `pacing`) and Chromium in the file's `beforeAll`, and
 * closes them in its `afterAll`; nothing starts when the browser tests are skipped.
 */
export function webTestBed(pacing: Partial<Pacing>, timeoutMs = 120_000): WebTestBed {
  let shop: WebShop | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (browserTestsSkipped()) return;
    const [, started, launched] = await Promise.all([
      ensureWebBuild(),
      startWebShop({ pacing }),
      launchBrowser(),
    ]);
    shop = started;
    browser = launched;
  }, timeoutMs);
  afterAll(async () => {
    await browser?.close();
    await shop?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("The web test bed is used before its beforeAll ran.");
    return value;
  };
  return {
    get shop() {
      return started(shop);
    },
    get browser() {
      return started(browser);
    },
  };
}

/** The path of a screenshot named `name` (the directory is created). */
export async function screenshotPath(name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}

/** The chat's message box, named in the page's language ("Message" or 消息). */
export const messageBox = (page: Page) => page.getByRole("textbox", { name: /Message|消息/ });

/** Sends `text` with Enter; returns the number (1-based) of the reply it starts. */
export async function sendMessage(page: Page, text: string): Promise<number> {
  const before = await page.getByTestId("assistant-turn").count();
  await messageBox(page).fill(text);
  await messageBox(page).press("Enter");
  return before + 1;
}

/** Waits until reply number `count` has ended (its own `done`) and the message box is usable. */
export async function waitForReply(page: Page, count: number, timeoutMs = 20_000): Promise<void> {
  const replies = page.getByTestId("assistant-turn");
  await expect.poll(() => replies.count(), { timeout: timeoutMs }).toBeGreaterThanOrEqual(count);
  await expect
    .poll(() => replies.nth(count - 1).getAttribute("data-done"), { timeout: timeoutMs })
    .toBe("true");
  await expect.poll(() => messageBox(page).isEnabled(), { timeout: 10_000 }).toBe(true);
}
