/**
 * The page at `/` until the browser UI lands: it says plainly that the UI is coming, lists the
 * API, and names the model, with a clear notice when it is the embedded scripted model (the
 * product never passes a script off as a language model).
 */

/** The routes the page lists: method, path, what it does. */
export const API_ROUTES: readonly (readonly [string, string, string])[] = [
  ["POST", "/api/sessions", "create a shopper session (returns its id and bearer token)"],
  ["GET", "/api/sessions/:id", "the session, its conversation, whether a reply is running"],
  ["POST", "/api/sessions/:id/messages", '{ "text" } starts a reply, streamed as SSE'],
  ["GET", "/api/sessions/:id/stream", "resume the current or last reply (Last-Event-ID)"],
  ["POST", "/api/sessions/:id/cancel", "stop the running reply"],
  ["GET", "/api/sessions/:id/cart", "the cart: lines, item count, total, limit"],
  ["POST", "/api/sessions/:id/cart/items", '{ "productId", "quantity" } adds to the cart'],
  ["PATCH", "/api/sessions/:id/cart/items/:productId", '{ "quantity" } sets a line (0 removes)'],
  ["DELETE", "/api/sessions/:id/cart/items/:productId", "removes a line"],
  ["POST", "/api/merchant/sessions", "create a merchant session (needs the merchant token)"],
  [
    "*",
    "/api/merchant/sessions/:id/...",
    "the same message, stream and cancel routes, merchant side",
  ],
  ["GET", "/healthz", "health: database, model"],
];

/** The HTML of the home page. */
export function homePage(model: { label: string; scripted: boolean }): string {
  const notice = model.scripted
    ? `<p class="notice"><strong>Scripted model.</strong> No API key is configured, so replies come
from the embedded scripted model: a deterministic script, not a language model. Set
<code>ANTHROPIC_API_KEY</code> (Claude) or <code>OPENAI_BASE_URL</code> (an OpenAI-compatible
server) to talk to a real model.</p>`
    : "";
  const rows = API_ROUTES.map(
    ([method, path, what]) =>
      `<tr><td><code>${escapeHtml(method)}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(what)}</td></tr>`,
  ).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shopping assistant</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
.notice { background: #fff4d6; border: 1px solid #e8c66a; padding: 0.75rem 1rem; border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
td { border-top: 1px solid #ddd; padding: 0.35rem 0.5rem; vertical-align: top; }
code { font-size: 0.9em; }
</style>
</head>
<body>
<h1>Shopping assistant</h1>
<p>The browser interface is coming soon. The API works now.</p>
<p>Model: <code>${escapeHtml(model.label)}</code></p>
${notice}
<h2>API</h2>
<p>Session routes need <code>Authorization: Bearer &lt;token&gt;</code>. Replies stream as
server-sent events; each frame has an <code>id</code> to resume from.</p>
<table>
${rows}
</table>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
