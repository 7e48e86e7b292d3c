/**
 * A stand-in for the external notification service, for trying the example by hand: it applies
 * each `Idempotency-Key` once and answers a repeated request with the first one's answer.
 * `node external-service.mjs` listens on EXTERNAL_PORT (default 3100).
 */

import { createServer } from "node:http";

const sent = new Map(); // idempotency key -> notification
const server = createServer(async (req, res) => {
  if (req.method !== "POST" || req.url !== "/notifications") {
    res.writeHead(404).end();
    return;
  }
  const key = req.headers["idempotency-key"];
  let body = "";
  for await (const chunk of req) body += chunk;
  if (typeof key !== "string" || key === "") {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "Idempotency-Key is required" }));
    return;
  }
  let request;
  try {
    request = JSON.parse(body);
  } catch {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "the body is not JSON" }));
    return;
  }
  let notification = sent.get(key);
  if (!notification) {
    notification = { id: `n${sent.size + 1}`, ...request };
    sent.set(key, notification);
    console.log(`notification ${notification.id}: ${notification.message}`);
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(notification));
});
server.listen(Number(process.env.EXTERNAL_PORT ?? 3100), "127.0.0.1", () => {
  console.log(`Notification service: http://127.0.0.1:${server.address().port}`);
});
