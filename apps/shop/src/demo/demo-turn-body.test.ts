import { describe, expect, it } from "vitest";
import type { TurnBody } from "../turns/turn-body.js";
import { DemoBook } from "./demo-book.js";
import { currentDemoScope } from "./demo-scope.js";
import { defaultDemoSettings } from "./demo-settings.js";
import { demoTurnBody, hasNoEffect } from "./demo-turn-body.js";

/** A turn body that notes whether it ran inside a demo scope. */
function probe(): { body: TurnBody; scoped: boolean[] } {
  const scoped: boolean[] = [];
  const body: TurnBody = () => async () => {
    await Promise.resolve();
    scoped.push(currentDemoScope() !== undefined);
  };
  return { body, scoped };
}

const turn = (book: DemoBook, body: TurnBody, sessionId: string, agent = "shopper") =>
  demoTurnBody(book, true, body)({ sessionId, agent: { name: agent } } as Parameters<TurnBody>[0])(
    {} as Parameters<ReturnType<TurnBody>>[0],
  );

describe("demoTurnBody", () => {
  it("runs a shopper turn in its demo scope only when a setting has an effect", async () => {
    const book = new DemoBook();
    const { body, scoped } = probe();
    await turn(book, body, "s-plain");
    book.update("s-slow", { serviceLatencyMs: { inventory: 300 } });
    await turn(book, body, "s-slow");
    book.update("s-paced", { tokensPerSecond: 40 });
    await turn(book, body, "s-paced");
    book.update("s-broken", { breakNextReply: "drop" });
    await turn(book, body, "s-broken");
    // Back to the defaults: no scope again.
    book.update("s-slow", { serviceLatencyMs: { inventory: 0 } });
    await turn(book, body, "s-slow");
    await turn(book, body, "s-paced", "merchant");
    expect(scoped).toEqual([false, true, true, true, false, false]);
  });

  it("hasNoEffect: only the defaults have none", () => {
    expect(hasNoEffect(defaultDemoSettings())).toBe(true);
    const base = defaultDemoSettings();
    expect(hasNoEffect({ ...base, tokensPerSecond: 60 })).toBe(false);
    expect(hasNoEffect({ ...base, breakNextReply: "error" })).toBe(false);
    expect(
      hasNoEffect({ ...base, serviceLatencyMs: { ...base.serviceLatencyMs, orders: 1 } }),
    ).toBe(false);
  });
});
