/**
 * The quick start as a Cloudflare Worker (run by workerd): `GET /?model=<base URL>` runs it and
 * answers with what `runQuickstart` hands it (turn markers, AgentEvents, stop reasons) as one JSON
 * line each, as main.ts prints them. The worker fetches the model server like any program would.
 */

import { runQuickstart } from "./quickstart.js";

export default {
  async fetch(request: Request): Promise<Response> {
    const baseURL = new URL(request.url).searchParams.get("model");
    if (!baseURL) return new Response("usage: GET /?model=<base URL>\n", { status: 400 });
    const lines: string[] = [];
    await runQuickstart(baseURL, (line) => lines.push(JSON.stringify(line)));
    return new Response(`${lines.join("\n")}\n`, {
      headers: { "content-type": "application/x-ndjson" },
    });
  },
};
