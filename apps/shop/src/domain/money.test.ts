import { describe, expect, it } from "vitest";
import { dollarsToCents, formatCents, isCents } from "./money.js";

describe("money", () => {
  it("formats cents as dollars with separators", () => {
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(8_900)).toBe("$89.00");
    expect(formatCents(1_450)).toBe("$14.50");
    expect(formatCents(500_000)).toBe("$5,000.00");
    expect(formatCents(123_456_789)).toBe("$1,234,567.89");
    expect(formatCents(-1_050)).toBe("-$10.50");
  });

  it("converts decimal dollars to cents, rounding to the nearest cent", () => {
    expect(dollarsToCents(89)).toBe(8_900);
    expect(dollarsToCents(14.5)).toBe(1_450);
    expect(dollarsToCents(0.1 + 0.2)).toBe(30);
    expect(dollarsToCents(1.005)).toBe(101);
    expect(dollarsToCents(-1)).toBeUndefined();
    expect(dollarsToCents(Number.NaN)).toBeUndefined();
    expect(dollarsToCents(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it("recognises whole, non-negative cents", () => {
    expect(isCents(0)).toBe(true);
    expect(isCents(1_450)).toBe(true);
    expect(isCents(14.5)).toBe(false);
    expect(isCents(-1)).toBe(false);
    expect(isCents("100")).toBe(false);
  });
});
