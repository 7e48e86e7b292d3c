import { describe, expect, it } from "vitest";
import { OverlapError } from "../errors.js";
import { errorCategoryOf, isRetryableCategory } from "./error-category.js";

describe("errorCategoryOf", () => {
  it("reads the status first, then each provider's error type, then the words", () => {
    const table: [Parameters<typeof errorCategoryOf>[0], string | undefined][] = [
      [{ status: 401, type: "authentication_error" }, "authentication"],
      [{ status: 403 }, "authentication"],
      [{ status: 429, type: "rate_limit_error" }, "rate_limited"],
      [{ type: "RESOURCE_EXHAUSTED" }, "rate_limited"],
      [{ type: "ThrottlingException" }, "rate_limited"],
      [{ status: 529, type: "overloaded_error" }, "overloaded"],
      [{ type: "overloaded_error" }, "overloaded"],
      [{ status: 503 }, "overloaded"],
      [
        { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" },
        "context_too_long",
      ],
      [{ status: 400, type: "context_length_exceeded" }, "context_too_long"],
      [
        { type: "ValidationException", message: "Input is too long for requested model." },
        "context_too_long",
      ],
      [{ status: 400, message: "tools.0.name: String should match pattern" }, "bad_request"],
      [{ status: 404, message: "model: claude-x not found" }, "bad_request"],
      [{ status: 500, type: "api_error" }, "server"],
      [{ status: 408 }, "network"],
      [{ name: "APIConnectionError", message: "Connection error." }, "network"],
      [{ name: "TypeError", message: "fetch failed" }, "network"],
      [{ message: "read ECONNRESET" }, "network"],
      [
        { message: "Could not resolve authentication method. Expected the apiKey to be set." },
        "authentication",
      ],
      [{ message: "boom" }, undefined],
    ];
    for (const [facts, category] of table)
      expect(errorCategoryOf(facts), JSON.stringify(facts)).toBe(category);
  });

  it("retries only what waiting can fix", () => {
    expect(
      ["rate_limited", "overloaded", "server", "network"].every((c) =>
        isRetryableCategory(c as never),
      ),
    ).toBe(true);
    expect(
      ["authentication", "bad_request", "context_too_long", undefined].some((c) =>
        isRetryableCategory(c as never),
      ),
    ).toBe(false);
  });

  it("the public message says which failure, never the provider's words", () => {
    const key = new OverlapError("provider_error", "401 invalid x-api-key sk-secret", {
      category: "authentication",
    });
    const limit = new OverlapError("provider_error", "429 org quota", {
      category: "rate_limited",
      retryAfterMs: 20_000,
    });
    expect(key.publicMessage).not.toBe(limit.publicMessage);
    expect(key.publicMessage).toMatch(/credentials/);
    expect(limit.publicMessage).toBe(
      "The model service is receiving too many requests; try again in 20 s.",
    );
    expect(`${key.publicMessage}${limit.publicMessage}`).not.toMatch(/sk-secret|quota/);
    expect(new OverlapError("provider_error", "x").publicMessage).toBe(
      "The model service is unavailable right now.",
    );
  });
});
