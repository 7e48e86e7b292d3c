import { describe, expect, it } from "vitest";
import { merchantNumberQuestion } from "./merchant-numbers.js";

describe("a merchant's numbers", () => {
  it("asks about a number no change can take, naming it as written", () => {
    const cases: Array<[string, string]> = [
      ["restock 2.5 units of the studio yoga mat", "2.5"],
      ["restock the studio yoga mat with -4 units", "-4"],
      ["change the pro jump rope's price to -10", "-10"],
      ["set the price of the headlamp to 0", "0"],
      ["put 0% off on socks", "0%"],
      ["95% off all socks", "95%"],
      ["lower the price of the polar beanie by -10%", "-10%"],
      ["给Studio Yoga Mat补货-5件", "-5"],
    ];
    for (const [text, said] of cases)
      for (const zh of [false, true])
        expect(merchantNumberQuestion(text, zh), text).toContain(said);
  });

  it("lets every number a change can take through", () => {
    for (const text of [
      "restock the studio yoga mat with 15 units",
      "set the price of the polar beanie to 21.99",
      "10% off all jackets",
      "raise the price of the polar beanie by 150%",
      "what is low on stock under 5 units",
      "restock p-0071 to 30",
      "show the last 20 orders",
      "bulk discount for 20 merino wool socks",
    ])
      expect(merchantNumberQuestion(text, false), text).toBeUndefined();
  });
});
