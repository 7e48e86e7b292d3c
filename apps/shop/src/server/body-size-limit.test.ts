import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bodySizeLimit } from "./body-size-limit.js";

/** An app answering 413 over 8 bytes, and echoing what a POST's route reads. */
function app() {
  const hono = new Hono();
  hono.use(bodySizeLimit({ maxSize: 8, onError: (c) => c.text("too large", 413) }));
  hono.post("/", async (c) => c.text(`read ${await c.req.text()}`));
  hono.get("/", (c) => c.text("got"));
  return hono;
}

describe("bodySizeLimit", () => {
  it("judges a body by its content-length: over the limit refused, within it read by the route", async () => {
    const over = await app().request("/", {
      method: "POST",
      body: "123456789",
      headers: { "content-length": "9" },
    });
    expect(over.status).toBe(413);
    const within = await app().request("/", {
      method: "POST",
      body: "12345678",
      headers: { "content-length": "8" },
    });
    expect(await within.text()).toBe("read 12345678");
  });

  it("counts a body sent without a content-length (chunked), as Hono's bodyLimit does", async () => {
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
    const over = await app().request("/", {
      method: "POST",
      body: chunked("123456789"),
      duplex: "half",
    } as RequestInit);
    expect(over.status).toBe(413);
    const within = await app().request("/", {
      method: "POST",
      body: chunked("1234"),
      duplex: "half",
    } as RequestInit);
    expect(await within.text()).toBe("read 1234");
  });

  it("lets a GET through", async () => {
    expect(await (await app().request("/")).text()).toBe("got");
  });
});
