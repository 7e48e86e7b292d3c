import { describe, expect, it } from "vitest";
import { countOf } from "./count-words.js";

describe("countOf", () => {
  it("is singular for exactly one, plural otherwise (zero included)", () => {
    expect(countOf(1, "item")).toBe("1 item");
    expect(countOf("1", "order")).toBe("1 order");
    expect(countOf(0, "item")).toBe("0 items");
    expect(countOf(2, "line")).toBe("2 lines");
    expect(countOf(3, "day")).toBe("3 days");
    expect(countOf(2, "product card")).toBe("2 product cards");
    expect(countOf(1, "unit", "units")).toBe("1 unit");
  });
});
