import { describe, expect, it } from "vitest";
import { parseLoadOptions } from "./load-options.js";

describe("parseLoadOptions", () => {
  it("defaults to 1,000 conversations on the compiled shop, or LOAD_CONVERSATIONS", () => {
    expect(parseLoadOptions([])).toEqual({
      conversations: 1000,
      warmup: 20,
      loneTurns: 4,
      build: "dist",
      logLevel: "info",
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
        ],
        { LOAD_CONVERSATIONS: "50" },
      ),
    ).toEqual({
      conversations: 100,
      warmup: 0,
      loneTurns: 3,
      build: "source",
      profileDir: "prof",
      logLevel: "warn",
    });
  });

  it("refuses bad values", () => {
    expect(() => parseLoadOptions(["--conversations", "0"])).toThrow(/--conversations/);
    expect(() => parseLoadOptions(["--lone-turns", "1"])).toThrow(/--lone-turns/);
    expect(() => parseLoadOptions(["--build", "js"])).toThrow(/--build/);
    expect(() => parseLoadOptions(["--fast"])).toThrow(TypeError);
  });
});
