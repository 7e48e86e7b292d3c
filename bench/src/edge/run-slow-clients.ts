/**
 * Benchmark: slow clients against one shop process, before and after, in one short run.
 *
 * Both runs start the shop from its sources (tsx, SQLite in a temporary directory, the embedded
 * scripted model) with `MAX_CONNECTIONS=200` (the default 900 needs 900 sockets to show the same)
 * and `REQUEST_TIMEOUT_MS=10000`. "before" is the shop of `--before <git rev>` (exported with
 * `git archive`), or, without it, this shop with `MAX_CONNECTIONS_PER_ADDRESS` out of reach;
 * "after" is this shop with its defaults. One chat's checkout waits for Confirm. Then, for
 * `--attack-ms` (15 s):
 *
 * - `slowloris`: 250 sockets from 127.0.0.2, each sending one header line a second, and
 *   reconnecting a second after the shop closes it;
 * - `trickled body`: 20 messages to the waiting chat and 20 to a fresh chat, from 127.0.0.3,
 *   whose body (by content-length) trickles a byte every 500 ms, by clients that ignore the
 *   answer and keep their side open and sending;
 * - `/healthz`: from 127.0.0.1, on a new connection every 200 ms (as a load balancer probes).
 *
 * The table puts the runs side by side; the very last line is one JSON object.
 *
 * Run: `npm run bench:edge:slow --workspace bench -- --before <rev>` (Linux: 127.0.0.x).
 */

import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { percentile } from "../load/load-figures.js";
import { spawnShopProcess, stopChild } from "../load/spawn-shop-process.js";
import { count, describeTally, type Tally } from "./edge-figures.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    "attack-ms": { type: "string", default: "15000" },
    before: { type: "string" },
  },
});
const ATTACK_MS = Number(args["attack-ms"]);
const SLOWLORIS = 250;
const SLOWLORIS_FROM = "127.0.0.2";
const TRICKLES = 20;
const TRICKLE_FROM = "127.0.0.3";
const TRICKLE_MS = 500;
const PROBE_EVERY_MS = 200;
const PROBE_TIMEOUT_MS = 2_000;
const ENV: Record<string, string> = {
  MAX_CONNECTIONS: "200",
  REQUEST_TIMEOUT_MS: "10000",
  RATE_LIMIT_SESSIONS_PER_MINUTE: "1000000",
  RATE_LIMIT_TURNS_PER_MINUTE: "1000000",
  LOG_LEVEL: "warn",
  MERCHANT_TOKEN: "slow-clients-benchmark-merchant-token",
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request on a connection of its own; the response with its body unread. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
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

/** A new chat; with `waiting`, its checkout waits for Confirm until `close`. */
async function chat(port: number, waiting: boolean) {
  const session = JSON.parse(await text(await send(port, "POST", "/api/sessions", {}))) as {
    id: string;
    token: string;
  };
  const auth = { authorization: `Bearer ${session.token}`, "content-type": "application/json" };
  if (!waiting) return { ...session, close: () => {} };
  const added = await send(
    port,
    "POST",
    `/api/sessions/${session.id}/cart/items`,
    auth,
    JSON.stringify({ productId: "p-0001", quantity: 1, size: "US 10", color: "Volt" }),
  );
  if (added.statusCode !== 200) throw new Error(`cart: ${added.statusCode} ${await text(added)}`);
  await text(added);
  const turn = await send(
    port,
    "POST",
    `/api/sessions/${session.id}/messages`,
    auth,
    JSON.stringify({ text: "check out" }),
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    turn.on("data", (chunk) => {
      seen += String(chunk);
      if (seen.includes("event: approval-request")) resolve();
    });
    turn.on("end", () => reject(new Error(`the checkout did not wait: ${seen.slice(-300)}`)));
  });
  return { ...session, close: () => turn.destroy() };
}

/** A raw connection from `from`: its first answer's status, when it came, when it closed. */
interface Raw {
  socket: Socket;
  startedAt: number;
  answeredAt?: number;
  closedAt?: number;
  status?: string;
}

function raw(port: number, from: string, halfOpen = false): Raw {
  const socket = connect({ port, host: "127.0.0.1", localAddress: from, allowHalfOpen: halfOpen });
  const connection: Raw = { socket, startedAt: performance.now() };
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString("latin1");
    if (connection.status === undefined) {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      if (status) {
        connection.status = status;
        connection.answeredAt = performance.now();
      }
    }
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    connection.closedAt = performance.now();
  });
  return connection;
}

/** What one run measured. */
interface SlowRun {
  label: string;
  probes: Tally;
  probeMs: number[];
  slowloris: Tally;
  slowlorisHeld: number;
  trickled: Record<"waiting" | "fresh", { answers: Tally; open: number; closeS: number[] }>;
}

async function run(label: string, env: Record<string, string>, sourceEntry?: string) {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-slow-"));
  const shop = await spawnShopProcess({
    build: "source",
    env: { DATA_DIR: dataDir, ...ENV, ...env },
    ...(sourceEntry ? { sourceEntry } : {}),
  });
  try {
    const waiting = await chat(shop.port, true);
    const fresh = await chat(shop.port, false);
    const startedAt = performance.now();
    const over = () => performance.now() - startedAt >= ATTACK_MS;

    // Slowloris: a header line a second, reconnecting a second after each close.
    const slowloris: Tally = {};
    const current: Raw[] = [];
    const loris = Array.from({ length: SLOWLORIS }, async (_, i) => {
      // The trickled bodies connect first: the slowloris is not to refuse them at the door.
      await sleep(1_000);
      while (!over()) {
        const connection = raw(shop.port, SLOWLORIS_FROM);
        current[i] = connection;
        connection.socket.once("connect", () => {
          connection.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n");
        });
        while (!over() && connection.closedAt === undefined) {
          await sleep(1_000);
          if (connection.closedAt === undefined) connection.socket.write("x-slow: a\r\n");
        }
        if (connection.closedAt === undefined) break;
        count(slowloris, connection.status ?? "closed");
        await sleep(1_000);
      }
    });

    // Trickled bodies by clients that ignore the answer.
    const trickled = { waiting: [] as Raw[], fresh: [] as Raw[] };
    const body = JSON.stringify({ text: `show me running shoes ${"x".repeat(200)}` });
    const trickles = (["waiting", "fresh"] as const).flatMap((which) =>
      Array.from({ length: TRICKLES }, async () => {
        const target = which === "waiting" ? waiting : fresh;
        const connection = raw(shop.port, TRICKLE_FROM, true);
        trickled[which].push(connection);
        await new Promise((resolve) => connection.socket.once("connect", resolve));
        connection.socket.write(
          `POST /api/sessions/${target.id}/messages HTTP/1.1\r\nhost: x\r\n` +
            `authorization: Bearer ${target.token}\r\ncontent-type: application/json\r\n` +
            `content-length: ${body.length}\r\n\r\n`,
        );
        connection.startedAt = performance.now();
        for (const byte of body) {
          if (over() || connection.closedAt !== undefined) break;
          connection.socket.write(byte);
          await sleep(TRICKLE_MS);
        }
      }),
    );

    // /healthz on a new connection every 200 ms.
    const probes: Tally = {};
    const probeMs: number[] = [];
    await sleep(2_000); // the attack in place first
    while (!over()) {
      const probe = raw(shop.port, "127.0.0.1");
      probe.socket.once("connect", () =>
        probe.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
      );
      const deadline = performance.now() + PROBE_TIMEOUT_MS;
      while (probe.status === undefined && probe.closedAt === undefined) {
        if (performance.now() > deadline) break;
        await sleep(5);
      }
      if (probe.status === "200" && probe.answeredAt) {
        probeMs.push(probe.answeredAt - probe.startedAt);
      }
      count(probes, probe.status ?? (probe.closedAt ? "closed" : "no answer in 2 s"));
      probe.socket.destroy();
      await sleep(PROBE_EVERY_MS);
    }
    await Promise.all([...loris, ...trickles]);
    const slowlorisHeld = current.filter(
      (c) => c !== undefined && c.closedAt === undefined && c.status === undefined,
    ).length;
    const result: SlowRun = {
      label,
      probes,
      probeMs,
      slowloris,
      slowlorisHeld,
      trickled: {
        waiting: summarise(trickled.waiting),
        fresh: summarise(trickled.fresh),
      },
    };
    for (const c of [...current, ...trickled.waiting, ...trickled.fresh]) c?.socket.destroy();
    waiting.close();
    return result;
  } finally {
    await stopChild(shop.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

function summarise(connections: readonly Raw[]) {
  const answers: Tally = {};
  for (const c of connections) count(answers, c.status ?? (c.closedAt ? "closed" : "none"));
  return {
    answers,
    open: connections.filter((c) => c.closedAt === undefined).length,
    closeS: connections.flatMap((c) =>
      c.closedAt === undefined ? [] : [(c.closedAt - c.startedAt) / 1000],
    ),
  };
}

/** The shop of `rev`, exported beside this repository's dependencies; its `src/main.ts`. */
async function exportShop(rev: string): Promise<{ entry: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "bench-slow-before-"));
  // Only the server's sources (its web app is not served here): piped, not buffered.
  execFileSync(
    "sh",
    ["-c", 'git -C "$ROOT" archive "$REV" apps/shop/src apps/shop/package.json | tar -x -C "$DIR"'],
    { env: { ...process.env, ROOT, REV: rev, DIR: dir }, stdio: "inherit" },
  );
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return { entry: join(dir, "apps/shop/src/main.ts"), dir };
}

const seconds = (values: readonly number[]) =>
  values.length === 0
    ? "-"
    : `${percentile([...values], 50).toFixed(1)} / ${Math.max(...values).toFixed(1)} s`;

const before = args.before ? await exportShop(args.before) : undefined;
let runs: SlowRun[];
try {
  runs = [
    before
      ? await run(`before (${args.before})`, {}, before.entry)
      : await run("before (per-address cap out of reach)", {
          MAX_CONNECTIONS_PER_ADDRESS: "1000000",
        }),
    await run("after (defaults)", {}),
  ];
} finally {
  if (before) await rm(before.dir, { recursive: true, force: true });
}
const rows: Array<[string, (r: SlowRun) => string]> = [
  ["/healthz, new connection every 200 ms (127.0.0.1)", (r) => describeTally(r.probes)],
  [
    "/healthz p50 / p99 (answered 200)",
    (r) =>
      r.probeMs.length === 0
        ? "-"
        : `${percentile(r.probeMs, 50).toFixed(1)} / ${percentile(r.probeMs, 99).toFixed(1)} ms`,
  ],
  [
    `slowloris from ${SLOWLORIS_FROM}: answers (with reconnects)`,
    (r) => describeTally(r.slowloris),
  ],
  ["slowloris: connections the shop holds at the end", (r) => String(r.slowlorisHeld)],
  [
    "trickled body, chat waiting for Confirm: answers",
    (r) => describeTally(r.trickled.waiting.answers),
  ],
  ["... still open at the end", (r) => String(r.trickled.waiting.open)],
  ["... first byte to close, p50 / max", (r) => seconds(r.trickled.waiting.closeS)],
  ["trickled body, fresh chat: answers", (r) => describeTally(r.trickled.fresh.answers)],
  ["... still open at the end", (r) => String(r.trickled.fresh.open)],
  ["... first byte to close, p50 / max", (r) => seconds(r.trickled.fresh.closeS)],
];
console.log(
  `shop from sources (tsx), SQLite, embedded scripted model; MAX_CONNECTIONS=200, REQUEST_TIMEOUT_MS=10000; attack ${ATTACK_MS / 1000} s: ${SLOWLORIS} slowloris sockets from ${SLOWLORIS_FROM}, ${TRICKLES}+${TRICKLES} trickled bodies from ${TRICKLE_FROM} (a byte every ${TRICKLE_MS} ms, clients ignoring the answer)`,
);
console.log(`| | ${runs.map((r) => r.label).join(" | ")} |`);
console.log(`|---|${runs.map(() => "---").join("|")}|`);
for (const [name, cell] of rows) console.log(`| ${name} | ${runs.map(cell).join(" | ")} |`);
console.log(
  JSON.stringify({
    bench: "edge-slow-clients",
    attackMs: ATTACK_MS,
    runs: runs.map(({ probeMs, trickled, ...r }) => ({
      ...r,
      probeP50Ms: probeMs.length ? Math.round(percentile(probeMs, 50) * 10) / 10 : null,
      trickled: Object.fromEntries(
        Object.entries(trickled).map(([which, t]) => [
          which,
          {
            answers: t.answers,
            open: t.open,
            closeP50S: t.closeS.length ? Math.round(percentile(t.closeS, 50) * 10) / 10 : null,
          },
        ]),
      ),
    })),
  }),
);
