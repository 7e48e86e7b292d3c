/**
 * The quick start as a Cloudflare Worker (run by workerd): `GET /?model=<base URL>` runs the turn
 * and answers with each AgentEvent as one JSON line, then `{"stopReason": ...}`, as main.ts
 * prints them. The worker fetches the model server like any program would.
 */

import { runQuickstart } from "./quickstart.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const baseURL = new URL(request.url).searchParams.get("model");
    if (!baseURL) return new Response("usage: GET /?model=<base URL>\n", { status: 400 });
    const lines: string[] = [];
    const stopReason = await runQuickstart(baseURL, (event) => lines.push(JSON.stringify(event)));
    lines.push(JSON.stringify({ stopReason }));
    return new Response(`${lines.join("\n")}\n`, {
      headers: { "content-type": "application/x-ndjson" },
    });
  },
};
