import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveWeb, WEB_CONTENT_SECURITY_POLICY, webAssets } from "../server/serve-web.js";

let dir: string;
const INDEX = "<!doctype html><title>app</title>";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-web-"));
  await mkdir(join(dir, "assets"));
  await writeFile(join(dir, "index.html"), INDEX);
  await writeFile(join(dir, "assets", "index-AbC123.js"), "console.log(1)");
  await writeFile(join(dir, "assets", "index-AbC123.css"), "body{}");
  await writeFile(join(dir, "favicon.svg"), "<svg/>");
  await writeFile(join(dir, ".env"), "SECRET=1");
  await writeFile(join(tmpdir(), "serve-web-outside.txt"), "outside");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) =>
  webAssets(dir).respond(new Request(`http://shop.test${path}`, init));

describe("serving the built web app", () => {
  it("answers the app's pages with index.html: no-cache, a strict CSP", async () => {
    for (const path of ["/", "/merchant", "/merchant/", "/index.html"]) {
      const response = await get(path);
      expect(response?.status, path).toBe(200);
      expect(response?.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response?.headers.get("cache-control")).toBe("no-cache");
      expect(response?.headers.get("content-security-policy")).toBe(WEB_CONTENT_SECURITY_POLICY);
      expect(await response?.text()).toBe(INDEX);
    }
  });

  it("answers hashed assets with their type and immutable caching, other files briefly", async () => {
    const js = await get("/assets/index-AbC123.js");
    expect(js?.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js?.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js?.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await get("/assets/index-AbC123.css"))?.headers.get("content-type")).toBe(
      "text/css; charset=utf-8",
    );
    const icon = await get("/favicon.svg");
    expect(icon?.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon?.headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("revalidates with the ETag and answers HEAD without a body", async () => {
    const first = await get("/");
    const etag = first?.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get("/", { headers: { "if-none-match": etag } });
    expect(again?.status).toBe(304);
    expect(await again?.text()).toBe("");
    const head = await get("/assets/index-AbC123.js", { method: "HEAD" });
    expect(head?.status).toBe(200);
    expect(head?.headers.get("content-length")).toBe("14");
    expect(await head?.text()).toBe("");
  });

  it("leaves everything else to the routes after it", async () => {
    for (const path of [
      "/api/sessions",
      "/healthz",
      "/assets/missing.js",
      "/merchant/x",
      "/.env",
      "/assets/../.env",
      "/%2e%2e/serve-web-outside.txt",
      "/..%2fserve-web-outside.txt",
      "/assets/%00.js",
    ]) {
      expect(await get(path), path).toBeUndefined();
    }
    expect(await get("/", { method: "POST" })).toBeUndefined();
    expect(
      await webAssets(join(dir, "no-build")).respond(new Request("http://shop.test/")),
    ).toBeUndefined();
  });

  it("as Hono middleware: serves the app first, passes the API on", async () => {
    const app = new Hono();
    app.use(serveWeb({ dir }));
    app.get("/", (c) => c.text("home page"));
    app.get("/healthz", (c) => c.json({ ok: true }));
    expect(await (await app.request("/")).text()).toBe(INDEX);
    expect(await (await app.request("/healthz")).json()).toEqual({ ok: true });

    const unbuilt = new Hono();
    unbuilt.use(serveWeb({ dir: join(dir, "no-build") }));
    unbuilt.get("/", (c) => c.text("home page"));
    expect(await (await unbuilt.request("/")).text()).toBe("home page");
  });
});
