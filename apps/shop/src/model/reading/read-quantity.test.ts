import { describe, expect, it } from "vitest";
import { LINE_LIMIT, quantityQuestion, readQuantity } from "./read-quantity.js";

describe("the quantity slot", () => {
  it("reads the number as written and says what the cart cannot take", () => {
    expect(readQuantity("add -3 of the charcoal wool socks in size M")).toEqual({
      said: "-3",
      value: -3,
      problem: "negative",
    });
    expect(readQuantity("add 2.5 of the socks")?.problem).toBe("fraction");
    expect(readQuantity("add 0 of the pro jump rope")?.problem).toBe("zero");
    expect(readQuantity("add 1000000 of the socks")?.problem).toBe("over");
    expect(readQuantity("加0双美利奴羊毛袜，M码")?.problem).toBe("zero");
    expect(readQuantity("1000 个 aero headband")?.said).toBe("1000");
    expect(readQuantity("add 3 socks")).toEqual({ said: "3", value: 3 });
    expect(readQuantity(`add ${LINE_LIMIT} socks`)?.problem).toBeUndefined();
    expect(readQuantity(`add ${LINE_LIMIT + 1} socks`)?.problem).toBe("over");
  });

  it("does not read sizes, prices, ids or numbers inside names as quantities", () => {
    for (const text of [
      "add the aero trail runner in size 10",
      "make that an 11",
      "I meant a 10, not a 9",
      "把10码荧光绿的Aero越野跑鞋加入购物车",
      "waterproof boots under 150",
      "running shoes for $80",
      "100块以下的跑鞋",
      "add p-0063",
      "show me the meadow 2-person tent",
    ])
      expect(readQuantity(text), text).toBeUndefined();
  });

  it("asks with the number as said, never another one", () => {
    for (const said of ["-3", "-1", "0", "2.5", "0.5", "11", "40", "1000000"]) {
      const q = readQuantity(`add ${said} polar beanies`);
      expect(q?.said, said).toBe(said);
      for (const zh of [false, true]) {
        const reply = quantityQuestion(q!, zh);
        expect(reply).toContain(said);
        expect(reply).toContain(String(LINE_LIMIT));
      }
    }
  });
});
