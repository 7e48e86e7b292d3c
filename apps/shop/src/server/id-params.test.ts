import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "./app-env.js";
import { handleError } from "./handle-error.js";
import { checkIdParams, isPossibleId } from "./id-params.js";

describe("isPossibleId", () => {
  it("refuses a NUL, a lone surrogate, the empty id and one past the bound; takes the rest", () => {
    for (const bad of ["", "a\u0000b", "\ud800", "x\udc00", "\udbff\udbff", "s".repeat(65)]) {
      expect(isPossibleId(bad, 64), JSON.stringify(bad)).toBe(false);
    }
    for (const good of ["s-0123456789abcdef", "s".repeat(64), "红茶", "🛒", "%ED%A0%80"]) {
      expect(isPossibleId(good, 64), good).toBe(true);
    }
  });
});

describe("checkIdParams", () => {
  it("answers each parameter's own 404 before the handler runs", async () => {
    const app = new Hono<AppEnv>();
    app.onError(handleError);
    let reached = 0;
    app.get("/s/:id/a/:callId/p/:productId/:other", (c) => {
      checkIdParams(c);
      reached++;
      return c.text("ok");
    });
    const codeOf = async (path: string) => {
      const response = await app.request(path);
      if (response.status === 200) return "ok";
      expect(response.status).toBe(404);
      return ((await response.json()) as { error: { code: string } }).error.code;
    };
    expect(await codeOf("/s/s-1/a/call_1/p/p-0001/x")).toBe("ok");
    expect(await codeOf("/s/s%001/a/call_1/p/p-0001/x")).toBe("not_found");
    expect(await codeOf(`/s/s-1/a/${"c".repeat(201)}/p/p-0001/x`)).toBe("approval_not_found");
    expect(await codeOf("/s/s-1/a/call_1/p/p%00/x")).toBe("unknown_product");
    expect(await codeOf(`/s/s-1/a/call_1/p/p-0001/${"x".repeat(201)}`)).toBe("not_found");
    expect(reached).toBe(1);
  });
});
