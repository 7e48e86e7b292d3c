/**
 * The "How it works" drawer in a browser: its controls change what the next replies
 * do. A simulated latency on the shop's services shows on the timeline, labelled "simulated", with
 * the time saved said in a sentence; "break the next reply" (a dropped connection, invalid tool
 * JSON) shows the repair in words under the reply, and the next message works. The real shop
 * (SQLite, the embedded scripted model, the built web app) through Debian's Chromium; screenshots
 * of the open drawer at 390x844 and 1280x800.
 */

import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, webTestBed } from "./web-harness.js";

const noBrowser = browserTestsSkipped();

/** Three tools in one reply: two adds (cart) and the total (cart). */
const THREE_CALLS =
  "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total";

const bed = webTestBed({ tokensPerSecond: 120, firstTokenMs: 60, jitter: 0 }, 120_000);
const pageProblems: string[] = [];

async function open(
  width: number,
  height: number,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await bed.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  await page.goto(bed.shop.url);
  await expect.poll(() => composer(page).isEnabled(), { timeout: 15_000 }).toBe(true);
  return { context, page };
}

const composer = (page: Page) => page.getByRole("textbox", { name: "Message" });
const replies = (page: Page) => page.getByTestId("assistant-turn");
const drawer = (page: Page) => page.getByTestId("demo-drawer");

async function openDrawer(page: Page): Promise<void> {
  await page.getByTestId("demo-open").click();
  await drawer(page).waitFor();
  // The settings are loaded: the controls are there.
  await drawer(page).getByTestId("demo-latency-search").waitFor();
  // Measured and pictured once it has slid in (a string: it runs in the page); only the drawer's own
  // animations count: the page's (a streaming indicator, a transition that restarts) may never end.
  await expect
    .poll(() =>
      page.evaluate(
        "document.querySelector('[data-testid=demo-drawer]')?.getAnimations({ subtree: true }).filter((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity).length ?? 0",
      ),
    )
    .toBe(0);
}

async function closeDrawer(page: Page): Promise<void> {
  await page.keyboard.press("Escape");
  await drawer(page).waitFor({ state: "detached" });
}

/** Moves a slider with the keyboard to `value` (from its minimum, `steps` steps) and waits for the save. */
async function slide(page: Page, testId: string, steps: number): Promise<void> {
  const slider = drawer(page).getByTestId(testId);
  await slider.focus();
  await slider.press("Home");
  for (let i = 0; i < steps; i++) await slider.press("ArrowRight");
  await expect.poll(() => slider.getAttribute("data-pending"), { timeout: 5_000 }).toBeNull();
}

async function arm(page: Page, fault: string): Promise<void> {
  await openDrawer(page);
  // A click, not check(): the choice is shown checked once the server has taken it, which
  // check() (wanting the state at once) reads as a click that did nothing on a slow machine.
  await drawer(page).getByTestId(`demo-fault-${fault}`).click();
  await expect
    .poll(() => drawer(page).getByTestId("demo-break-status").textContent(), { timeout: 5_000 })
    .toMatch(/^Armed/);
  await closeDrawer(page);
}

/** Sends `text` and waits for its reply to finish; returns the reply. */
async function ask(page: Page, text: string) {
  const before = await replies(page).count();
  await composer(page).fill(text);
  await composer(page).press("Enter");
  const reply = replies(page).nth(before);
  await expect.poll(() => reply.getAttribute("data-done"), { timeout: 30_000 }).toBe("true");
  return reply;
}

describe.skipIf(noBrowser)("the How it works drawer", { timeout: 120_000 }, () => {
  it("'See the early start' sets the stock check and names the request that shows the saving", async () => {
    const { context, page } = await open(1280, 800);
    await openDrawer(page);
    const request = (await drawer(page).getByTestId("demo-preset-request").textContent()) ?? "";
    expect(request).toBe(THREE_CALLS);
    await drawer(page).getByTestId("demo-preset").click();
    await expect
      .poll(() => drawer(page).getByTestId("demo-preset").textContent(), { timeout: 10_000 })
      .toContain("(set)");
    expect(await drawer(page).textContent()).toContain("300 ms simulated");
    await page.screenshot({ path: await screenshotPath("demo-00-preset-1280x800") });
    await closeDrawer(page);

    await ask(page, request);
    const round = page.getByTestId("timeline").getByTestId("timeline-round").first();
    // The first add's stock check ran while the model still wrote the rest: time was saved, and
    // the waiting bar (the cart's calls one after another) says as much as the figure.
    await expect.poll(() => round.getByTestId("saved").count(), { timeout: 15_000 }).toBe(1);
    const saved = Number(await round.getByTestId("saved").getAttribute("data-saved-ms"));
    expect(saved).toBeGreaterThan(0);
    expect(await round.getByTestId("round-explained").textContent()).toMatch(
      /waiting for the reply would have taken [\d.]+ (ms|s) longer\.$/,
    );
    await context.close();
  });

  it("simulated latency shows on the timeline, labelled, with the time saved in words", async () => {
    const { context, page } = await open(1280, 800);
    await openDrawer(page);
    expect(await drawer(page).textContent()).toContain("Demonstration");
    // Inventory 300 ms (6 steps of 50), search 400 ms (8 steps), the model slowed to 20 tokens/s
    // (3 steps of 5): the adds check stock (300 ms each) while the model still writes the total.
    await slide(page, "demo-latency-inventory", 6);
    await slide(page, "demo-latency-search", 8);
    await slide(page, "demo-speed", 3);
    const shown = (await drawer(page).textContent()) ?? "";
    expect(shown).toContain("300 ms simulated");
    expect(shown).toContain("400 ms simulated");
    expect(shown).toContain("20 tokens/s");
    await page.screenshot({ path: await screenshotPath("demo-01-drawer-1280x800") });
    await closeDrawer(page);

    await ask(page, THREE_CALLS);
    const timeline = page.getByTestId("timeline");
    const chips = timeline.getByTestId("simulated-chip");
    // The two adds waited the inventory; the total (cart only) did not.
    await expect.poll(() => chips.count(), { timeout: 10_000 }).toBe(2);
    expect(await chips.first().textContent()).toBe("300 ms simulated");
    expect(await timeline.getByTestId("timeline-simulated").textContent()).toBe(
      "Demonstration: 2 calls waited a simulated latency (Inventory); the times above include those waits.",
    );
    // The saving as measured, said in a sentence, never more than the round-end timings say.
    const round = timeline.getByTestId("timeline-round").first();
    const saved = Number(await round.getByTestId("saved").getAttribute("data-saved-ms"));
    expect(saved).toBeGreaterThan(0);
    expect(await round.getByTestId("round-explained").textContent()).toMatch(
      /before the reply ended; waiting for the reply would have taken [\d.]+ (ms|s) longer\.$/,
    );
    await page.screenshot({ path: await screenshotPath("demo-02-timeline-simulated") });

    // A search is labelled too.
    await ask(page, "show me running shoes under 100");
    await expect
      .poll(() => timeline.getByTestId("simulated-chip").first().textContent(), { timeout: 10_000 })
      .toBe("400 ms simulated");
    await page.screenshot({ path: await screenshotPath("demo-02b-timeline-search") });
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("a dropped connection: the repair in words, then a reply that works", async () => {
    const { context, page } = await open(1280, 800);
    await arm(page, "drop");
    const broken = await ask(page, THREE_CALLS);
    const note = broken.getByTestId("repair-note");
    await note.waitFor();
    expect(await note.getAttribute("data-cause")).toBe("dropped");
    const said = (await note.textContent()) ?? "";
    expect(said).toContain("The connection to the model dropped in the middle of this reply.");
    expect(await note.getByTestId("repair-not-run").textContent()).toMatch(
      /^Answered as not run: .*Cart total/,
    );
    expect(said).toContain("The conversation is intact");
    await page.screenshot({ path: await screenshotPath("demo-03-repair-drop") });
    // The fault was used once: the drawer says so and nothing is armed.
    await openDrawer(page);
    expect(await drawer(page).getByTestId("demo-break-status").textContent()).toMatch(
      /^The last broken reply: drop the connection\. Nothing is armed now\./,
    );
    await closeDrawer(page);

    const next = await ask(page, "what is in my cart?");
    expect(await next.getByTestId("turn-error").count()).toBe(0);
    expect(await next.getByTestId("repair-note").count()).toBe(0);
    expect(((await next.textContent()) ?? "").length).toBeGreaterThan(10);
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("invalid tool JSON: the call is answered as not run and the reply goes on", async () => {
    const { context, page } = await open(1280, 800);
    await arm(page, "invalid-json");
    const broken = await ask(page, THREE_CALLS);
    const note = broken.getByTestId("repair-note");
    await note.waitFor();
    expect(await note.getAttribute("data-cause")).toBe("invalid_json");
    expect(await note.getByTestId("repair-kept").textContent()).toMatch(/^Kept their result: /);
    expect(await note.getByTestId("repair-not-run").textContent()).toMatch(
      /^Answered as not run: Cart total/,
    );
    expect(await note.textContent()).toContain("The model was told, and the reply went on.");
    expect(await broken.getByTestId("turn-error").count()).toBe(0);
    await page.screenshot({ path: await screenshotPath("demo-04-repair-invalid-json") });

    const next = await ask(page, "thanks!");
    expect(await next.getByTestId("repair-note").count()).toBe(0);
    expect(pageProblems).toEqual([]);
    await context.close();
  });

  it("fits a phone: the open drawer is whole at 390x844", async () => {
    const { context, page } = await open(390, 844);
    await openDrawer(page);
    const box = await drawer(page).boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390.5);
    await page.screenshot({ path: await screenshotPath("demo-05-drawer-390x844") });
    const close = drawer(page).getByRole("button", { name: "Close" });
    const closeBox = await close.boundingBox();
    expect(closeBox!.x + closeBox!.width).toBeLessThanOrEqual(390);
    for (const id of ["demo-latency-search", "demo-speed", "demo-fault-drop"]) {
      const control = drawer(page).getByTestId(id);
      await control.scrollIntoViewIfNeeded();
      const b = await control.boundingBox();
      expect(b!.x).toBeGreaterThanOrEqual(0);
      expect(b!.x + b!.width, id).toBeLessThanOrEqual(390);
    }
    await page.getByTestId("demo-fault-drop").scrollIntoViewIfNeeded();
    await page.screenshot({ path: await screenshotPath("demo-06-drawer-390x844-faults") });
    await close.click();
    await drawer(page).waitFor({ state: "detached" });
    expect(pageProblems).toEqual([]);
    await context.close();
  });
});
