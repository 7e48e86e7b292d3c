import { describe, expect, it } from "vitest";
import { DEFAULT_SCRIPTED_MODEL_PORT, parseScriptedModelArgs } from "./scripted-model-args.js";

describe("parseScriptedModelArgs", () => {
  it("defaults: port 8318 on 127.0.0.1, the embedded model's pacing", () => {
    expect(parseScriptedModelArgs([])).toEqual({
      help: false,
      port: DEFAULT_SCRIPTED_MODEL_PORT,
      host: "127.0.0.1",
      pacing: {},
    });
  });

  it("reads --port, --host, --tps, --first-token-ms, --fast and --help", () => {
    expect(
      parseScriptedModelArgs([
        "--port",
        "0",
        "--host",
        "0.0.0.0",
        "--tps",
        "200",
        "--first-token-ms",
        "10",
        "--fast",
      ]),
    ).toEqual({
      help: false,
      port: 0,
      host: "0.0.0.0",
      pacing: { tokensPerSecond: 200, firstTokenMs: 10, fast: true },
    });
    expect(parseScriptedModelArgs(["-h"])).toEqual({ help: true });
  });

  it("refuses unknown options and bad numbers", () => {
    expect(() => parseScriptedModelArgs(["--speed", "3"])).toThrow(TypeError);
    expect(() => parseScriptedModelArgs(["--port", "http"])).toThrow(/--port/);
    expect(() => parseScriptedModelArgs(["--port", "70000"])).toThrow(/--port/);
    expect(() => parseScriptedModelArgs(["--port", "1.5"])).toThrow(/--port/);
    expect(() => parseScriptedModelArgs(["--tps", "0"])).toThrow(/--tps/);
    expect(() => parseScriptedModelArgs(["--first-token-ms", "-1"])).toThrow(/--first-token-ms/);
  });
});
