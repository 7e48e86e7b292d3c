import { describe, expect, it } from "vitest";
import { namedItems, readRef, readShownRun } from "./read-mention.js";

describe("readShownRun", () => {
  it.each([
    ["the last two", { count: 2, from: "end" }],
    ["first three", { count: 3, from: "start" }],
    ["前两件", { count: 2, from: "start" }],
    ["后面两件", { count: 2, from: "end" }],
    ["最后三款", { count: 3, from: "end" }],
  ])("%s", (text, run) => {
    expect(readShownRun(text)).toEqual(run);
  });

  it("is one from the end for the last one, and no run without a count", () => {
    expect(readShownRun("the last one you showed")).toEqual({ count: 1, from: "end" });
    expect(readShownRun("these")).toBeUndefined();
    expect(readShownRun("the first")).toBeUndefined();
  });
});

describe("readRef", () => {
  it.each([
    ["the lowest price one", { kind: "pick", by: "cheapest" }],
    ["top rated", { kind: "pick", by: "best-rated" }],
    ["评分最高的", { kind: "pick", by: "best-rated" }],
    ["第三个", { kind: "pick", by: "index", index: 2 }],
    ["one", { kind: "one" }],
    ["it", { kind: "it" }],
  ])("%s", (text, ref) => {
    expect(readRef(text)).toEqual(ref);
  });
});

describe("namedItems", () => {
  it("gives a size or colour said after a comma, or before the product, to its product", () => {
    expect(namedItems("the swift road racer in red, size 9")).toEqual([
      { quantity: 1, query: "swift road racer", size: "9", color: "Red" },
    ]);
    expect(namedItems("size 10, volt, aero trail runner")).toEqual([
      { quantity: 1, query: "aero trail runner", size: "10", color: "Volt" },
    ]);
  });

  it("keeps two products apart", () => {
    expect(
      namedItems("the aero trail runner in size 10 in volt and 2 merino wool socks in m"),
    ).toEqual([
      { quantity: 1, query: "aero trail runner", size: "10", color: "Volt" },
      { quantity: 2, query: "merino wool socks", size: "M" },
    ]);
  });
});
