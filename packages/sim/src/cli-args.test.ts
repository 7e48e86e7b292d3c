import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI_USAGE, DEFAULT_CLI_PORT, parseCliArgs, startupBanner } from "./cli-args.js";

describe("parseCliArgs", () => {
  it("maps the options to server options", () => {
    expect(
      parseCliArgs([
        "--port",
        "0",
        "--tps",
        "120",
        "--first-token-ms",
        "50",
        "--seed",
        "9",
        "--fast",
        "--faults",
        "thinking",
      ]),
    ).toEqual({
      help: false,
      options: {
        port: 0,
        seed: 9,
        faults: "thinking",
        pacing: { tokensPerSecond: 120, firstTokenMs: 50, fast: true },
      },
    });
    expect(parseCliArgs([])).toEqual({
      help: false,
      options: { port: DEFAULT_CLI_PORT, pacing: {} },
    });
    expect(parseCliArgs(["-h"])).toEqual({ help: true });
  });

  it("refuses unknown options and bad numbers", () => {
    expect(() => parseCliArgs(["--bogus"])).toThrow();
    expect(() => parseCliArgs(["--tps", "fast"])).toThrow(/--tps/);
    expect(() => parseCliArgs(["--port", "-1"])).toThrow(/--port/);
  });

  it("the usage names every wire format the server speaks, with its route", () => {
    for (const line of [
      "Anthropic Messages       POST /v1/messages",
      "OpenAI Chat Completions  POST /v1/chat/completions",
      "OpenAI Responses         POST /v1/responses",
      "Gemini                   POST /v1beta/models/{model}:streamGenerateContent?alt=sse",
      "Amazon Bedrock Converse  POST /model/{modelId}/converse-stream",
    ]) {
      expect(CLI_USAGE).toContain(line);
    }
  });

  it("tells how to point the SDKs at the server and that it is scripted", () => {
    const banner = startupBanner("http://127.0.0.1:8317");
    expect(banner).toContain("ANTHROPIC_BASE_URL=http://127.0.0.1:8317\n");
    expect(banner).toContain("OPENAI_BASE_URL=http://127.0.0.1:8317/v1");
    expect(banner).toMatch(/scripted model, not a language model/);
  });
});

describe("overlap-sim", () => {
  it("--help prints the usage, every wire format included, and exits", async () => {
    const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--conditions=overlap-source", "--import", "tsx", cli, "--help"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(out).toBe(CLI_USAGE);
    for (const format of ["Messages", "Chat Completions", "Responses", "Gemini", "Bedrock"]) {
      expect(out).toContain(format);
    }
  });

  it("starts, prints where it listens, and answers", async () => {
    const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--conditions=overlap-source", "--import", "tsx", cli, "--port", "0", "--fast"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(((await response.json()) as { model: string }).model).toBe("scripted-sim");
    } finally {
      child.kill("SIGTERM");
    }
  });
});
