/**
 * Benchmark: the shop's HTTP edge under attack, with its bounds out of reach ("before") and with
 * the defaults ("after"), one shop process each, one after the other in one run.
 *
 * The shop runs as `npm start` runs it (the compiled build, SQLite in a temporary directory, the
 * embedded scripted model). One chat has a turn that stays open (checkout waiting for the
 * shopper's approval). Then, from one client, at once:
 *
 * - `streams`: many `GET .../stream` of that one chat with its one token, each on its own socket,
 *   held open to the end of the attack;
 * - `idle connections`: sockets that connect and send nothing;
 * - `slow headers`: a request's headers trickled one byte a second;
 * - `slow bodies`: a message whose body (declared by content-length) is trickled one byte a second;
 * - `aborted uploads`: a message whose body stops halfway, the socket destroyed, over and over;
 * - `connection flood`: two seconds later, more idle connections, past the default cap of 900.
 *
 * Measured during the attack: the shop's resident memory (before, peak, end) and the latency of
 * `/healthz` on a keep-alive connection opened before the attack; per attack, the answers its
 * connections received (a status, `open` when still waiting at the end, `closed` when closed
 * without an answer); afterwards `shop_errors_total` (source http) from `/metrics`. The table
 * puts the two runs side by side; the very last line is one JSON object `{"bench":"edge",...}`.
 *
 * Run: `npm run bench:edge --workspace bench` (options: `--attack-ms N`, `--streams N`,
 * `--build dist|source`). Linux only (/proc).
 */

import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { percentile } from "../load/load-figures.js";
import { rssBytesOf } from "../load/process-usage.js";
import { spawnShopProcess, stopChild } from "../load/spawn-shop-process.js";
import { count, type EdgeRun, edgeTable, httpErrorsOf, type Tally } from "./edge-figures.js";

const ENSURE_BUILD = fileURLToPath(
  new URL("../../../apps/shop/bin/ensure-build.js", import.meta.url),
);
const MERCHANT_TOKEN = "edge-benchmark-merchant-token";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "attack-ms": { type: "string", default: "40000" },
    streams: { type: "string", default: "1000" },
    build: { type: "string", default: "dist" },
  },
});
/** Long enough for the default 30 s request timeout (and 10 s headers timeout) to act. */
const ATTACK_MS = Number(args["attack-ms"]);
const STREAMS = Number(args.streams);
// Together with the streams' 8 and the aborted uploads in flight, under the default cap of 900:
// each bound shows on its own; the flood then goes past the cap.
const IDLE = 400;
const SLOW_HEADERS = 200;
const SLOW_BODIES = 200;
/** Idle connections opened once the others are in place, past the default cap. */
const FLOOD = 300;
const FLOOD_AFTER_MS = 2_000;
/** Aborted uploads in flight at once (they go on for the whole attack). */
const ABORTING = 20;
const TRICKLE_MS = 1_000;
const HEALTH_EVERY_MS = 100;
const RSS_EVERY_MS = 100;
const BUILD = args.build === "source" ? "source" : "dist";

/** "before": every bound set out of reach through the settings; "after": the defaults. */
const BEFORE_ENV: Record<string, string> = {
  MAX_STREAMS_PER_CHAT: "1000000",
  MAX_STREAMS_PER_SHOPPER: "1000000",
  MAX_STREAMS_PER_ADDRESS: "1000000",
  MAX_CONNECTIONS: "1000000",
  HEADERS_TIMEOUT_MS: "600000",
  REQUEST_TIMEOUT_MS: "3600000",
};

const ATTACKS = [
  "streams",
  "idle connections",
  "slow headers",
  "slow bodies",
  "aborted uploads",
  "connection flood",
] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Shop {
  port: number;
}

/** One request on a socket of its own; resolves with the response (its body unread). */
function send(
  shop: Shop,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  agent: Agent | false = false,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: shop.port,
        method,
        path,
        agent,
        headers:
          body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
      },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function text(response: IncomingMessage): Promise<string> {
  let out = "";
  for await (const chunk of response) out += String(chunk);
  return out;
}

async function json<T>(response: IncomingMessage): Promise<T> {
  return JSON.parse(await text(response)) as T;
}

/** A chat whose turn waits for the shopper's approval (checkout) until the attack is over. */
async function openChat(shop: Shop): Promise<{ id: string; token: string; close: () => void }> {
  const session = await json<{ id: string; token: string }>(
    await send(shop, "POST", "/api/sessions", {}),
  );
  const auth = { authorization: `Bearer ${session.token}`, "content-type": "application/json" };
  const added = await send(
    shop,
    "POST",
    `/api/sessions/${session.id}/cart/items`,
    auth,
    JSON.stringify({ productId: "p-0001", quantity: 1 }),
  );
  if (added.statusCode !== 200) throw new Error(`cart: ${added.statusCode} ${await text(added)}`);
  await text(added);
  const turn = await send(
    shop,
    "POST",
    `/api/sessions/${session.id}/messages`,
    auth,
    JSON.stringify({ text: "check out" }),
  );
  if (turn.statusCode !== 200) throw new Error(`message: ${turn.statusCode} ${await text(turn)}`);
  // Read until the checkout waits for approval.
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error("no approval-request within 30 s")), 30_000);
    turn.on("data", (chunk) => {
      seen += String(chunk);
      if (seen.includes("event: approval-request")) {
        clearTimeout(timer);
        resolve();
      }
    });
    turn.on("end", () => reject(new Error(`the turn ended without waiting: ${seen.slice(-300)}`)));
  });
  return { ...session, close: () => turn.destroy() };
}

/** A raw connection that records the status of the first answer it receives. */
interface Raw {
  socket: Socket;
  /** The answer's status, `closed` when closed without one, `error:<code>`; undefined: open. */
  outcome(): string | undefined;
}

function raw(shop: Shop, onConnect?: (socket: Socket) => void): Raw {
  const socket = connect(shop.port, "127.0.0.1");
  let received = "";
  let outcome: string | undefined;
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
    outcome ??= /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    outcome ??= `error:${error.code ?? error.message}`;
  });
  socket.on("close", () => {
    outcome ??= "closed";
  });
  if (onConnect) socket.once("connect", () => onConnect(socket));
  return { socket, outcome: () => outcome };
}

/** Writes `bytes` one at a time every `everyMs` while the socket is open and unanswered. */
async function trickle(connection: Raw, bytes: string, everyMs: number, until: () => boolean) {
  for (const byte of bytes) {
    if (until() || connection.outcome() !== undefined || connection.socket.destroyed) return;
    connection.socket.write(byte, "latin1");
    await sleep(everyMs);
  }
}

/** One run: a shop started with `env`, attacked for {@link ATTACK_MS}, measured, stopped. */
async function run(label: string, env: Record<string, string>): Promise<EdgeRun> {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-edge-"));
  const shop = await spawnShopProcess({
    build: BUILD,
    env: {
      DATA_DIR: dataDir,
      MERCHANT_TOKEN,
      LOG_LEVEL: "warn",
      RATE_LIMIT_SESSIONS_PER_MINUTE: "1000000",
      RATE_LIMIT_TURNS_PER_MINUTE: "1000000",
      ...env,
    },
  });
  const pid = shop.child.pid as number;
  try {
    const chat = await openChat(shop);
    const auth = `authorization: Bearer ${chat.token}\r\n`;
    const messages = `/api/sessions/${chat.id}/messages`;

    // /healthz on one keep-alive connection opened before the attack.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await text(await send(shop, "GET", "/healthz", {}, undefined, agent));
    const healthMs: number[] = [];
    const health: Tally = {};
    let stopped = false;
    const prober = (async () => {
      while (!stopped) {
        const started = performance.now();
        try {
          const response = await send(shop, "GET", "/healthz", {}, undefined, agent);
          await text(response);
          healthMs.push(performance.now() - started);
          count(health, String(response.statusCode));
        } catch (error) {
          count(health, `error:${(error as NodeJS.ErrnoException).code ?? "?"}`);
        }
        await sleep(HEALTH_EVERY_MS);
      }
    })();
    const rssBeforeBytes = rssBytesOf(pid);
    let rssPeakBytes = rssBeforeBytes;
    const sampler = setInterval(() => {
      rssPeakBytes = Math.max(rssPeakBytes, rssBytesOf(pid));
    }, RSS_EVERY_MS);
    const startedAt = performance.now();
    const over = () => stopped || performance.now() - startedAt >= ATTACK_MS;

    const attacks: Record<string, Tally> = Object.fromEntries(ATTACKS.map((a) => [a, {}]));
    const held: Array<{ destroy: () => void }> = [];

    // Streams first: all of one chat, one token, each on its own socket, held open.
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        try {
          const response = await send(shop, "GET", `/api/sessions/${chat.id}/stream`, {
            authorization: `Bearer ${chat.token}`,
          });
          held.push(response);
          response.resume();
          return String(response.statusCode);
        } catch (error) {
          return `error:${(error as NodeJS.ErrnoException).code ?? "?"}`;
        }
      }),
    );
    for (const status of streams) count(attacks.streams as Tally, status);

    // Then the slow ones, all at once.
    const idle = Array.from({ length: IDLE }, () => raw(shop));
    const slowHeaders = Array.from({ length: SLOW_HEADERS }, () => {
      const connection = raw(shop, () => {
        void trickle(
          connection,
          `GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ${"a".repeat(200)}\r\n\r\n`,
          TRICKLE_MS,
          over,
        );
      });
      return connection;
    });
    const body = JSON.stringify({ text: `show me running shoes ${"x".repeat(2_000)}` });
    const slowBodies = Array.from({ length: SLOW_BODIES }, () => {
      const connection = raw(shop, (socket) => {
        socket.write(
          `POST ${messages} HTTP/1.1\r\nhost: x\r\n${auth}content-type: application/json\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\n\r\n`,
        );
        void trickle(connection, body, TRICKLE_MS, over);
      });
      return connection;
    });
    // Aborted uploads, over and over until the attack is over.
    const aborting = Array.from({ length: ABORTING }, async () => {
      while (!over()) {
        const connection = raw(shop);
        await new Promise<void>((resolve) => {
          connection.socket.once("connect", () => {
            connection.socket.write(
              `POST ${messages} HTTP/1.1\r\nhost: x\r\n${auth}content-type: application/json\r\n` +
                `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, body.length / 2)}`,
              () => resolve(),
            );
          });
          connection.socket.once("close", () => resolve());
        });
        await sleep(20);
        count(attacks["aborted uploads"] as Tally, connection.outcome() ?? "aborted");
        connection.socket.destroy();
      }
    });

    await sleep(FLOOD_AFTER_MS);
    const flood = Array.from({ length: FLOOD }, () => raw(shop));

    while (!over()) await sleep(100);
    stopped = true;
    await Promise.all(aborting);
    for (const [name, connections] of [
      ["idle connections", idle],
      ["slow headers", slowHeaders],
      ["slow bodies", slowBodies],
      ["connection flood", flood],
    ] as const) {
      for (const connection of connections) {
        count(attacks[name] as Tally, connection.outcome() ?? "open");
      }
    }
    const rssEndBytes = rssBytesOf(pid);
    clearInterval(sampler);
    await prober;
    for (const connection of [...idle, ...slowHeaders, ...slowBodies, ...flood]) {
      connection.socket.destroy();
    }
    for (const response of held) response.destroy();
    chat.close();
    agent.destroy();
    await sleep(500);

    const metrics = await send(shop, "GET", "/metrics", {
      authorization: `Bearer ${MERCHANT_TOKEN}`,
    });
    const errors = httpErrorsOf(await text(metrics));
    return {
      label,
      env,
      attacks,
      rssBeforeBytes,
      rssPeakBytes: Math.max(rssPeakBytes, rssEndBytes),
      rssEndBytes,
      healthMs,
      health,
      errors,
    };
  } finally {
    await stopChild(shop.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (BUILD === "dist") {
  // What `npm start` does first: compile the shop when its build is missing or stale.
  const build = spawnSync(process.execPath, [ENSURE_BUILD], { stdio: "inherit" });
  if (build.status !== 0) throw new Error("could not compile the shop");
}
const runs = [
  await run("before (bounds out of reach)", BEFORE_ENV),
  await run("after (defaults)", {}),
];
console.log(
  `shop: ${BUILD === "dist" ? "compiled JavaScript" : "sources through tsx"}, SQLite, embedded scripted model; attack ${ATTACK_MS / 1000} s from 127.0.0.1: ${STREAMS} streams of one chat with one token, ${IDLE} idle connections, ${SLOW_HEADERS} slow headers and ${SLOW_BODIES} slow bodies (a byte a second), aborted uploads ${ABORTING} at a time, then a flood of ${FLOOD} idle connections`,
);
console.log(edgeTable(runs, ATTACKS));
console.log(
  JSON.stringify({
    bench: "edge",
    attackMs: ATTACK_MS,
    runs: runs.map(({ healthMs, ...run }) => ({
      ...run,
      healthP50Ms: Math.round(percentile(healthMs, 50) * 10) / 10,
      healthP99Ms: Math.round(percentile(healthMs, 99) * 10) / 10,
    })),
  }),
);
