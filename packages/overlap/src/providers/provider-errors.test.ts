import { describe, expect, it } from "vitest";
import { OverlapError } from "../errors.js";
import { describeError, httpProviderError, providerError, streamCut } from "./provider-errors.js";

class ValidationException extends Error {
  override readonly name = "ValidationException";
}

describe("provider errors, one shape for every adapter", () => {
  it("provider_error keeps the cause and the facts the adapter read", () => {
    const cause = new ValidationException("Expected toolResult blocks\n  hint: see $response");
    const error = providerError(cause, { status: 400, type: "ValidationException" });
    expect(error).toBeInstanceOf(OverlapError);
    expect(error.code).toBe("provider_error");
    expect(error.message).toBe(
      "The model request failed: ValidationException: Expected toolResult blocks",
    );
    expect(error.details).toEqual({ status: 400, type: "ValidationException" });
    expect(error.cause).toBe(cause);
    expect(providerError("socket hang up").details).toEqual({ status: undefined, type: undefined });
  });

  it("an HTTP answer without an SDK error, and a cut stream", () => {
    expect(httpProviderError(429, "quota", undefined)).toMatchObject({
      code: "provider_error",
      message: "The model request failed: 429 quota",
      details: { status: 429, type: "api_error" },
    });
    const reset = new Error("read ECONNRESET");
    expect(streamCut(reset)).toMatchObject({
      code: "stream_interrupted",
      message: "The model stream was cut: read ECONNRESET",
      cause: reset,
    });
    expect(streamCut(undefined, "ended before messageStop").message).toBe(
      "The model stream ended before messageStop.",
    );
  });

  it("describes an error by its first line, named when the name says more than Error", () => {
    expect(describeError(new Error("a\nb"))).toBe("a");
    expect(describeError(new TypeError("bad"))).toBe("TypeError: bad");
    expect(
      describeError(Object.assign(new Error("RateLimitError: slow"), { name: "RateLimitError" })),
    ).toBe("RateLimitError: slow");
    expect(describeError(42)).toBe("42");
  });
});
