import { describe, expect, it } from "vitest";
import { PHRASE_STEPS, readPhrases } from "./phrase-steps.js";
import { readSaid } from "./said.js";

/** The names of the steps that read a request (the first one wins). */
function readers(raw: string): string[] {
  const said = readSaid(raw);
  return PHRASE_STEPS.filter(([, step]) => step(said) !== undefined).map(([name]) => name);
}

describe("the phrase steps", () => {
  it("are tried in this order", () => {
    expect(PHRASE_STEPS.map(([name]) => name)).toEqual([
      "webLookup",
      "checkout",
      "buyIt",
      "orders",
      "askMerchant",
      "keepOnly",
      "correction",
      "whichShown",
      "clearCart",
      "compare",
      "remove",
      "cartChange",
      "wanting",
      "declinedAdd",
      "add",
      "viewCart",
      "total",
      "availability",
      "attribute",
      "details",
      "search",
      "greeting",
      "thanks",
      "onlyPick",
      "catalogOverview",
      "changeIt",
      "bareProduct",
    ]);
  });

  // Each case is read by more than one step: the order decides, and these pin why it matters.
  const cases: Array<[said: string, first: string, kind: string, also: string]> = [
    // Placing an order is irreversible: "buy … now" is a checkout, never an add.
    ["buy them now", "checkout", "checkout", "add"],
    // "don't add the socks" names an add: the refusal is read first, and nothing is added.
    ["don't add the socks", "declinedAdd", "declined", "add"],
    // "only keep the jacket … remove the rest": one line kept, not one removed.
    ["only keep the jacket and remove the rest", "keepOnly", "keep-only", "remove"],
    // Emptying the cart removes everything: before a removal of one line.
    ["remove everything from my cart", "clearCart", "clear-cart", "remove"],
    // A product picked by name and size is wanted, not searched for.
    ["i want the aero trail runner in size 10", "wanting", "add", "search"],
    // A question about a product's stock and size is not a search for products.
    ["do you have the aero in size 10", "availability", "availability", "search"],
    // "thanks, add the socks" asks for something: the add before the thanks.
    ["thanks, add the socks", "add", "add", "thanks"],
    // "is it in stock" asks about stock, not about a product's facts.
    ["is the storm waterproof trail runner in stock", "availability", "availability", "attribute"],
    // Adding with a total is an add, not a total question.
    ["add the aero trail runner and tell me the total", "add", "add", "total"],
  ];
  for (const [said, first, kind, also] of cases)
    it(`"${said}" is read by ${first} before ${also}`, () => {
      const names = readers(said);
      expect(names[0]).toBe(first);
      expect(names).toContain(also);
      expect(readPhrases(said).kind).toBe(kind);
    });
});
