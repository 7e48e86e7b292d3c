import { describe, expect, it } from "vitest";
import { OverlapError } from "../errors.js";
import {
  describeError,
  httpProviderError,
  providerError,
  retryAfterMsOf,
  streamCut,
} from "./provider-errors.js";

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

describe("categories and Retry-After", () => {
  it("an SDK error's status, type and headers give the category and the wait", () => {
    const sdk = Object.assign(new Error("429 rate limited"), {
      status: 429,
      headers: new Headers({ "retry-after": "7" }),
    });
    const error = providerError(sdk, { status: 429, type: "rate_limit_error" });
    expect(error).toMatchObject({ category: "rate_limited", retryAfterMs: 7000 });
    const aiSdk = Object.assign(new Error("Overloaded"), {
      responseHeaders: { "retry-after-ms": "250" },
    });
    expect(providerError(aiSdk, { status: 529 })).toMatchObject({
      category: "overloaded",
      retryAfterMs: 250,
    });
    expect(httpProviderError(401, "API key not valid", "UNAUTHENTICATED").category).toBe(
      "authentication",
    );
    expect(providerError(new Error("Missing API key"))).toMatchObject({
      category: "authentication",
      retryAfterMs: undefined,
    });
    expect(streamCut(undefined).category).toBe("network");
  });

  it("reads retry-after-ms, seconds and an HTTP date", () => {
    expect(retryAfterMsOf({ "retry-after-ms": "120", "retry-after": "9" })).toBe(120);
    expect(retryAfterMsOf(new Headers({ "retry-after": "2" }))).toBe(2000);
    const at = new Date(Date.now() + 5000).toUTCString();
    expect(retryAfterMsOf({ "retry-after": at })).toBeGreaterThan(3000);
    expect(retryAfterMsOf({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMsOf(undefined)).toBeUndefined();
  });
});
