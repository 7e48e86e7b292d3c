/**
 * A tool the model's provider runs, in a browser, end to end: the embedded model (over the
 * Messages API wire, as the shop talks to it by default) answers a question about reviews with a
 * web search of six results and a text citing two of them. The page shows the search as its own
 * chip ("Searched the web: 6 results", in Chinese "已搜索网络：6 条结果") and the cited pages as links
 * right under the text they belong to; after a reload, the stored conversation shows the same.
 * On a desktop (1280×800) and a phone (390×844), with screenshots in `test-results/shop-web/`.
 */

import type { SimPolicy, SimScript } from "overlap-sim";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserTestsSkipped, screenshotPath, webTestBed } from "./web-harness.js";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const RESULTS = Array.from({ length: 6 }, (_, i) => ({
  title: `Aero trail runner review ${i + 1}`,
  url: `https://reviews${i + 1}.example/aero-trail-runner`,
}));

/** The search and the cited answer, in the shopper's language. */
function reviewScript(zh: boolean): SimScript {
  return {
    blocks: [
      {
        type: "server_tool_use",
        name: "web_search",
        input: { query: zh ? "Aero 越野跑鞋 评价" : "Aero trail runner reviews" },
      },
      { type: "web_search_tool_result", results: RESULTS },
      {
        type: "text",
        text: zh
          ? "评测者认为 Aero 很轻，抓地力好，但偏窄。"
          : "Reviewers find the Aero light and grippy, though narrow in the toe box.",
        citations: [RESULTS[0]!, RESULTS[3]!].map((r) => ({
          ...r,
          citedText: `${r.title}: light`,
        })),
      },
    ],
  };
}

/** Reviews questions get the search; anything else a plain answer. */
const policy: SimPolicy = (request) => {
  const last = request.messages.findLast((m) => m.role === "user");
  const said = (last?.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
  if (/review|评价/i.test(said)) return reviewScript(/[\u4e00-\u9fff]/.test(said));
  return { blocks: [{ type: "text", text: "Happy to help." }] };
};

const noBrowser = browserTestsSkipped();
const bed = webTestBed({ tokensPerSecond: 400, firstTokenMs: 20 }, 60_000, policy);

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
    zh ? "Aero 越野跑鞋 评价" : "Aero trail runner reviews",
  );
  const sources = reply.getByTestId("citations");
  expect(await sources.getAttribute("aria-label")).toBe(zh ? "来源" : "Sources");
  const links = sources.getByTestId("citation-link");
  expect(await links.count()).toBe(2);
  for (const [i, result] of [RESULTS[0]!, RESULTS[3]!].entries()) {
    const link = links.nth(i);
    expect(await link.getAttribute("href")).toBe(result.url);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await link.textContent()).toContain(result.title);
  }
  // Under the text they cite: the links follow that paragraph, nothing between them.
  const follows = await sources.evaluate((nav) => {
    const before = nav.previousElementSibling;
    return before?.getAttribute("data-source") === "model" ? before.textContent : null;
  });
  expect(follows).toMatch(zh ? /^评测者认为/ : /^Reviewers find the Aero/);
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
        const english = await ask(page, "What do reviews say about the Aero trail runner?");
        await expectSearchShown(english, false);
        await shot(page, `provider-tools-${label}-en`);
        const chinese = await ask(page, "网上对这双鞋评价怎么样？");
        await expectSearchShown(chinese, true);
        await shot(page, `provider-tools-${label}-zh`);
        // A plain answer cites nothing and shows no provider chip.
        const plain = await ask(page, "Thanks!");
        expect(await plain.getByTestId("citations").count()).toBe(0);
        expect(await plain.getByTestId("provider-tool-chip").count()).toBe(0);
        // After a reload the stored conversation shows the same (the earlier turns are read
        // back from the stored messages, the last from the server's event log).
        await page.reload();
        await composer(page).waitFor();
        await expect.poll(() => replies(page).count(), { timeout: 15_000 }).toBe(3);
        await expectSearchShown(replies(page).nth(0), false);
        await expectSearchShown(replies(page).nth(1), true);
        await shot(page, `provider-tools-${label}-reloaded`);
      } finally {
        await context.close();
      }
    });
  }
});
