import { describe, expect, it } from "vitest";
import { generateCatalog } from "../domain/catalog.js";
import { catalogIndex, ProductIndex, type Resolution } from "./product-resolver.js";
import { editDistance, singular, wordSimilarity, wordsOf } from "./text-match.js";
import { chineseToEnglish } from "./zh-lexicon.js";

const index = catalogIndex();
const name = (r: Resolution) =>
  r.kind === "found"
    ? r.product.name
    : r.kind === "ambiguous"
      ? r.candidates.map((p) => p.name)
      : (r.closest?.name ?? null);

describe("text matching", () => {
  it("counts typos, transpositions included, and gives up early", () => {
    expect(editDistance("runer", "runner")).toBe(1);
    expect(editDistance("trial", "trail")).toBe(1);
    expect(editDistance("sokcs", "socks")).toBe(1);
    expect(editDistance("kettlebel", "kettlebell")).toBe(1);
    expect(editDistance("abc", "xyzxyz", 2)).toBe(3);
  });

  it("folds case, accents, full-width forms and plurals", () => {
    expect(wordsOf("Ａｅｒｏ Trail RUNNERS")).toEqual(["aero", "trail", "runner"]);
    expect(wordsOf("Café batteries boxes")).toEqual(["cafe", "battery", "box"]);
    expect(singular("glasses")).toBe("glass");
    expect(singular("dumbbells")).toBe("dumbbell");
  });

  it("scores exact words over prefixes over typos, and numbers only exactly", () => {
    expect(wordSimilarity("merino", "merino")).toBe(1);
    expect(wordSimilarity("meri", "merino")).toBeGreaterThan(wordSimilarity("merrino", "merino"));
    expect(wordSimilarity("merrino", "merino")).toBeGreaterThan(0.6);
    expect(wordSimilarity("10", "100")).toBe(0);
    expect(wordSimilarity("tent", "vest")).toBe(0);
  });

  it("turns Chinese product words into the catalog's English ones, longest first", () => {
    expect(chineseToEnglish("美利奴羊毛袜").replace(/\s+/g, " ").trim()).toBe("merino wool socks");
    expect(chineseToEnglish("Aero越野跑鞋").replace(/\s+/g, " ").trim()).toBe(
      "Aero trail running shoes",
    );
  });
});

describe("the product resolver", () => {
  it.each([
    ["aero trail runer", "Aero Trail Runner"],
    ["the aero trial runners", "Aero Trail Runner"],
    ["wool socks", "Merino Wool Socks"],
    ["merino sokcs", "Merino Wool Socks"],
    ["swift racer", "Swift Road Racer"],
    ["stridewell runner", "Aero Trail Runner"],
    ["sumit ultra", "Summit Ultra Trail"],
    ["velocity carbon", "Velocity Carbon Elite"],
    ["carbon shoes", "Velocity Carbon Elite"],
    ["美利奴羊毛袜", "Merino Wool Socks"],
    ["Aero越野跑鞋", "Aero Trail Runner"],
    ["meadow tent", "Meadow 2-Person Tent"],
  ])("finds %s", (query, expected) => {
    const r = index.resolve(query);
    expect(r.kind).toBe("found");
    expect(name(r)).toBe(expected);
  });

  it("does not let the Aero Headband win a mention of the Aero trail runner", () => {
    const [first, second] = index.score("aero trail runer");
    expect(first?.product.name).toBe("Aero Trail Runner");
    expect(first!.score - second!.score).toBeGreaterThan(0.25);
  });

  it("is ambiguous when several products fit about equally", () => {
    expect(index.resolve("basecamp tent")).toMatchObject({ kind: "ambiguous", total: 2 });
    expect(name(index.resolve("basecamp tent"))).toEqual(
      expect.arrayContaining(["Basecamp Family Tent", "Basecamp 2-Person Tent"]),
    );
    expect(index.resolve("aero")).toMatchObject({ kind: "ambiguous", total: 4 });
    const zebra = index.resolve("zebra trail runner");
    expect(zebra).toMatchObject({ kind: "ambiguous", unmatched: ["zebra"] });
  });

  it("finds nothing in a weak match, and offers the closest", () => {
    expect(index.resolve("merino hat")).toMatchObject({
      kind: "none",
      closest: { name: "Merino Wool Socks" },
    });
    expect(index.resolve("flux capacitor").kind).toBe("none");
    expect(index.resolve("")).toEqual({ kind: "none" });
  });

  it("resolves among a few products (the cart) and prefers what the conversation is about", () => {
    const inCart = ["p-0002", "p-0001"];
    expect(name(index.resolve("the socks", { among: inCart }))).toBe("Merino Wool Socks");
    expect(name(index.resolve("sokcs", { among: inCart }))).toBe("Merino Wool Socks");
    expect(index.resolve("the socks", { among: ["p-0002", "p-0105"] }).kind).toBe("ambiguous");
    expect(name(index.resolve("nimbus", { prefer: ["p-0173"] }))).toBe("Nimbus Trail Shoe");
  });

  it("answers a mention asked again with the same frozen resolution, per options", () => {
    const fresh = new ProductIndex(generateCatalog());
    const first = fresh.resolve("zebra trail runner");
    expect(fresh.resolve("zebra trail runner")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.kind === "ambiguous" && Object.isFrozen(first.candidates)).toBe(true);
    expect(first.kind === "ambiguous" && Object.isFrozen(first.unmatched)).toBe(true);
    // Other options are another question: the cart's socks against the whole catalog's.
    expect(fresh.resolve("the socks", { among: ["p-0002", "p-0105"] }).kind).toBe("ambiguous");
    expect(name(fresh.resolve("the socks", { among: ["p-0002", "p-0001"] }))).toBe(
      "Merino Wool Socks",
    );
    expect(name(fresh.resolve("nimbus", { prefer: ["p-0173"] }))).toBe("Nimbus Trail Shoe");
    expect(fresh.resolve("nimbus", { prefer: ["p-0173"] })).not.toBe(fresh.resolve("nimbus"));
    // The same answers as an index that never cached anything.
    const other = new ProductIndex(generateCatalog());
    for (const query of ["zebra trail runner", "nimbus", "merino hat", ""]) {
      expect(fresh.resolve(query)).toEqual(other.resolve(query));
    }
  });

  it("lists every product a description covers", () => {
    const trail = index.matchAll("trail shoes");
    expect(trail).toHaveLength(12);
    expect(trail.every((p) => p.category === "Running Shoes" && p.tags.includes("trail"))).toBe(
      true,
    );
    expect(index.matchAll("越野跑鞋").map((p) => p.id)).toEqual(trail.map((p) => p.id));
    expect(index.matchAll("socks").every((p) => p.category === "Socks")).toBe(true);
  });

  it("fixes typos for a search that matches words exactly, keeping the rest", () => {
    expect(index.correct("trial runers")).toBe("trail runners");
    expect(index.correct("running shoes")).toBe("running shoes");
    expect(index.correct("merino sokcs")).toBe("merino socks");
  });
});
