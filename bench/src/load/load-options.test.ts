import { describe, expect, it } from "vitest";
import { parseLoadOptions, thinkMsFor } from "./load-options.js";

describe("parseLoadOptions", () => {
  it("defaults to 1,000 conversations on the compiled shop, or LOAD_CONVERSATIONS", () => {
    expect(parseLoadOptions([])).toEqual({
      conversations: 1000,
      mode: { kind: "burst" },
      warmup: 20,
      loneTurns: 4,
      build: "dist",
      logLevel: "info",
      shopNodeOptions: [],
    });
    expect(parseLoadOptions([], { LOAD_CONVERSATIONS: "50" }).conversations).toBe(50);
  });

  it("reads every option; the command line wins over the environment", () => {
    expect(
      parseLoadOptions(
        [
          "--conversations",
          "100",
          "--lone-turns",
          "3",
          "--warmup",
          "0",
          "--build",
          "source",
          "--profile",
          "prof",
          "--log-level",
          "warn",
          "--shop-node-option=--max-semi-space-size=32",
          "--shop-node-option=--heap-growing-percent=50",
        ],
        { LOAD_CONVERSATIONS: "50" },
      ),
    ).toEqual({
      conversations: 100,
      mode: { kind: "burst" },
      warmup: 0,
      loneTurns: 3,
      build: "source",
      profileDir: "prof",
      logLevel: "warn",
      shopNodeOptions: ["--max-semi-space-size=32", "--heap-growing-percent=50"],
    });
  });

  it("selects the open loop with --rate or --think-ms, for 60 s unless --duration-s says", () => {
    expect(parseLoadOptions(["--rate", "100"]).mode).toEqual({
      kind: "open",
      durationMs: 60_000,
      rate: 100,
    });
    expect(parseLoadOptions(["--think-ms", "10000", "--duration-s", "2.5"]).mode).toEqual({
      kind: "open",
      durationMs: 2_500,
      thinkMs: 10_000,
    });
    expect(parseLoadOptions(["--think-ms", "0"]).mode).toMatchObject({ thinkMs: 0 });
  });

  it("refuses an open loop set twice, a duration without one, and bad rates", () => {
    expect(() => parseLoadOptions(["--rate", "10", "--think-ms", "5"])).toThrow(/one of them/);
    expect(() => parseLoadOptions(["--duration-s", "30"])).toThrow(/--rate or --think-ms/);
    expect(() => parseLoadOptions(["--rate", "0"])).toThrow(/--rate/);
    expect(() => parseLoadOptions(["--rate", "fast"])).toThrow(/--rate/);
    expect(() => parseLoadOptions(["--think-ms", "-1"])).toThrow(/--think-ms/);
    expect(() => parseLoadOptions(["--rate", "5", "--duration-s", "0"])).toThrow(/--duration-s/);
  });

  it("refuses a shop node option that is not an option", () => {
    expect(() => parseLoadOptions(["--shop-node-option=max-semi-space-size=32"])).toThrow(
      /--shop-node-option takes a node option/,
    );
  });

  it("derives the think time from the rate: conversations over rate, minus a lone turn", () => {
    // 1,000 conversations at 100 turns/s: each one every 10 s, 2 s of it the turn.
    expect(thinkMsFor(1000, 100, 2000)).toBe(8000);
    expect(thinkMsFor(10, 5, 2000)).toBe(0);
    // 10 conversations of 2 s turns give at most 5 turns/s.
    expect(() => thinkMsFor(10, 6, 2000)).toThrow(/at most 5/);
  });

  it("refuses bad values", () => {
    expect(() => parseLoadOptions(["--conversations", "0"])).toThrow(/--conversations/);
    expect(() => parseLoadOptions(["--lone-turns", "1"])).toThrow(/--lone-turns/);
    expect(() => parseLoadOptions(["--build", "js"])).toThrow(/--build/);
    expect(() => parseLoadOptions(["--fast"])).toThrow(TypeError);
  });
});
