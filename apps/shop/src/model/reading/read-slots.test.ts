import { describe, expect, it } from "vitest";
import {
  readAnyColor,
  readAttributes,
  readCategory,
  readClearCart,
  readListPicks,
  readPreference,
  readSideBySide,
  readSize,
  readSizeFix,
  readSuperlative,
} from "./read-slots.js";

describe("slot readers", () => {
  it("positions in the list shown, with a colour per position", () => {
    expect(readListPicks("add the first two in size 10")?.indexes).toEqual([0, 1]);
    expect(readListPicks("前两双都要10码，颜色随便")?.indexes).toEqual([0, 1]);
    expect(readListPicks("the second one in a 9")?.indexes).toEqual([1]);
    const both = readListPicks("把第一双和第二双都加入购物车，都要10码，第一双白色，第二双黑色");
    expect(both?.indexes).toEqual([0, 1]);
    expect([...(both?.colors ?? [])]).toEqual([
      [0, "White"],
      [1, "Black"],
    ]);
    expect(readListPicks("add the aero trail runner")).toBeUndefined();
  });

  it("any colour, side by side, superlatives", () => {
    for (const t of ["any colour", "whichever color", "colour doesn't matter", "颜色随便"])
      expect(readAnyColor(t), t).toBe(true);
    expect(readAnyColor("in charcoal")).toBe(false);
    expect(readSideBySide("put the first two side by side")).toBe(true);
    expect(readSuperlative("cheapest pair of running shoes")).toBe("cheapest");
    expect(readSuperlative("which sleeping pad has the best reviews")).toBe("best-rated");
    expect(readSuperlative("最便宜的露营椅")).toBe("cheapest");
    expect(readSuperlative("show me running shoes")).toBeUndefined();
  });

  it("clearing the whole cart, not one line, and not when told not to", () => {
    for (const t of ["nuke the whole cart", "wipe my basket", "清空购物车", "empty everything"])
      expect(readClearCart(t), t).toBe(true);
    for (const t of ["remove the socks", "don't empty my cart", "remove everything but the jacket"])
      expect(readClearCart(t), t).toBe(false);
  });

  it("sizes: said, corrected, stated as a preference", () => {
    expect(readSize("in a 10, any colour")).toBe("10");
    expect(readSize("add 2 pairs of socks")).toBeUndefined();
    expect(readSizeFix("I meant a 10, not a 9")).toBe("10");
    expect(readSizeFix("不是9码，是10码")).toBe("10");
    expect(readPreference("I'm a size 10")).toEqual({ size: "10" });
    expect(readPreference("my budget is $80 tops")).toEqual({ maxPriceCents: 8000 });
    expect(readPreference("我的预算是100块")).toEqual({ maxPriceCents: 10000 });
    expect(readPreference("show me boots")).toBeUndefined();
  });

  it("categories and attributes", () => {
    expect(readCategory("waterproof hiking boots")).toBe("Hiking Boots");
    expect(readCategory("trail running shoes")).toBe("Running Shoes");
    expect(readCategory("which one is top rated")).toBeUndefined();
    expect(readCategory("boots and jackets")).toBeUndefined();
    expect(readAttributes("waterproof trail shoes")).toEqual(["waterproof", "trail"]);
    expect(readAttributes("防水的登山鞋")).toEqual(["waterproof"]);
  });
});
