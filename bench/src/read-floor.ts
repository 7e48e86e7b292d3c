/**
 * Benchmark: what merely reading a fine-grained stream costs this process, per frame, before any
 * work is done with it: the floor under every system's CPU on that wire.
 *
 * A server in another process writes Messages-API `content_block_delta` frames (arguments, one
 * HTTP chunk per frame, as the scripted model and the API write them) paced as `bench:peers`
 * paces its two sims: `paced` (200 tokens/s, as `long-args-2`) and `fast` (12,000 tokens/s, as
 * `display-64k`).
 * This process reads them several ways, taking turns stream by stream, `process.cpuUsage()`
 * (user + system, every thread) around each stream:
 * - `raw socket`: `node:net`, the bytes counted and dropped: no HTTP parsing at all;
 * - `node:http`: the response read with a no-op `data` listener;
 * - `node:http paused`: left paused, everything buffered read at each `readable`;
 * - `overlap`: `anthropicModel`'s read (the SDK sends the request through `nodeHttpFetch`,
 *   overlap reads the body: frames split, each event parsed), the events dropped;
 * - `overlap unpaced`: the same with `minReadIntervalMs: 0` (every socket read taken at once).
 * Each pacing is read as a short and a long stream; their difference gives the CPU per frame
 * (the fixed cost of a request, such as the SDK building it, cancels out), and what the frames of
 * `long-args-2` (152 paced frames a turn) and `display-64k` (~9,000 fast ones) cost at that rate:
 * compare with the tool runner's whole turn in `bench/README.md`.
 *
 * Run: `node --conditions=overlap-source --import tsx bench/src/read-floor.ts`
 * (`FLOOR_REPS`, default 5 streams per reader and pacing). Prints a table, then one JSON line
 * `{"bench":"read-floor",...}`.
 */

import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { anthropicModel } from "overlap-runtime/anthropic";
import { createNodeHttpFetch, nodeHttpFetch } from "overlap-runtime/node";

const REPS = Math.max(1, Number(process.env.FLOOR_REPS ?? 5) || 5);

const FRAME =
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"abcdefgh"}}\n\n';
const END = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

/**
 * The pacings of `bench:peers`' two sims, whose arguments come in 8-character deltas (2 tokens)
 * with no jitter: `paced` at 200 tokens/s, a frame every 10 ms; `fast` at 12,000 tokens/s, 6
 * frames a millisecond (the timers fire a little late: a little under that rate). Each comes as
 * a short and a long stream: the difference is what frames cost (the fixed cost of a request,
 * e.g. the SDK building it, cancels out).
 */
const PACINGS = {
  "paced-short": { frames: 40, burst: 1, everyMs: 10 },
  "paced-long": { frames: 240, burst: 1, everyMs: 10 },
  "fast-short": { frames: 1_000, burst: 6, everyMs: 1 },
  "fast-long": { frames: 9_000, burst: 6, everyMs: 1 },
} as const;
type Pacing = keyof typeof PACINGS;

/** The server's source, run with `node -e` in its own process: `/<pacing>/...`. */
const SERVER = `
const http = require("node:http");
const PACINGS = ${JSON.stringify(PACINGS)};
const FRAME = ${JSON.stringify(FRAME)};
const END = ${JSON.stringify(END)};
const server = http.createServer((req, res) => {
  const pacing = PACINGS[req.url.split("/")[1]];
  res.writeHead(200, { "content-type": "text/event-stream" });
  let sent = 0;
  let timer;
  const next = () => {
    timer = setTimeout(write, pacing.everyMs);
  };
  const write = () => {
    for (let k = 0; k < pacing.burst && sent < pacing.frames; k++, sent++) res.write(FRAME);
    if (sent >= pacing.frames) res.end(END);
    else next();
  };
  next();
  res.on("close", () => clearTimeout(timer));
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

type Reader = (port: number, pacing: Pacing) => Promise<void>;

const agent = new http.Agent({ keepAlive: true });

const READERS: Record<string, Reader> = {
  "raw socket": (port, pacing) =>
    new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.write(`GET /${pacing} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n`);
      let bytes = 0;
      socket.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      socket.on("error", reject);
      socket.on("close", () => {
        // The response head and the chunk sizes come on top of the frames.
        if (bytes >= PACINGS[pacing].frames * FRAME.length) resolve();
        else reject(new Error(`the raw socket read ${bytes} bytes`));
      });
    }),
  "node:http": (port, pacing) =>
    new Promise((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: `/${pacing}`, agent }, (res) => {
          let bytes = 0;
          res.on("data", (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on("end", () => whole(res, pacing, bytes, resolve, reject));
        })
        .on("error", reject);
    }),
  "node:http paused": (port, pacing) =>
    new Promise((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port, path: `/${pacing}`, agent }, (res) => {
          let bytes = 0;
          res.on("readable", () => {
            for (let chunk = res.read(); chunk !== null; chunk = res.read()) bytes += chunk.length;
          });
          res.on("end", () => whole(res, pacing, bytes, resolve, reject));
        })
        .on("error", reject);
    }),
  overlap: (port, pacing) => overlapRead(port, pacing, nodeHttpFetch),
  "overlap unpaced": (port, pacing) =>
    overlapRead(port, pacing, createNodeHttpFetch({ minReadIntervalMs: 0 })),
};

/** Settles a node:http read: every frame came, with a 200, or the reader measured nothing. */
function whole(
  res: http.IncomingMessage,
  pacing: Pacing,
  bytes: number,
  resolve: () => void,
  reject: (err: Error) => void,
): void {
  if (res.statusCode === 200 && bytes >= PACINGS[pacing].frames * FRAME.length) resolve();
  else reject(new Error(`node:http read ${bytes} bytes with status ${res.statusCode}`));
}

/** One stream read by `anthropicModel`, its events counted and dropped. */
async function overlapRead(port: number, pacing: Pacing, fetch: typeof globalThis.fetch) {
  // A client per stream, as a request of a turn has its own: its cost is the fixed part.
  const client = new Anthropic({
    apiKey: "bench",
    baseURL: `http://127.0.0.1:${port}/${pacing}`,
    fetch,
  });
  const model = anthropicModel({ model: "bench", client });
  let events = 0;
  const request = { messages: [{ role: "user" as const, content: "go" }], tools: [] };
  for await (const batch of model.stream(request, { signal: new AbortController().signal })) {
    events += batch.length;
  }
  if (events < PACINGS[pacing].frames) throw new Error(`overlap read ${events} events`);
}

async function startServer(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (line: Buffer) => resolve(Number(String(line).trim())));
    child.once("exit", (code) => reject(new Error(`the frame server exited (${code})`)));
  });
  return { port, stop: () => child.kill() };
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

const server = await startServer();
/** Per reader: CPU µs of a stream of each pacing (mean of `REPS`). */
const perStream: Record<string, Record<Pacing, number>> = {};
try {
  const names = Object.keys(READERS);
  for (const name of names) perStream[name] = {} as Record<Pacing, number>;
  for (const pacing of Object.keys(PACINGS) as Pacing[]) {
    for (const name of names) await READERS[name]!(server.port, pacing); // warm-up
    // The readers take turns, stream by stream: a machine busy for a while weighs on all alike.
    const total: Record<string, number> = {};
    for (let rep = 0; rep < REPS; rep++) {
      for (const name of names) {
        const before = cpuMicros();
        await READERS[name]!(server.port, pacing);
        total[name] = (total[name] ?? 0) + cpuMicros() - before;
      }
    }
    for (const name of names) perStream[name]![pacing] = total[name]! / REPS;
  }
} finally {
  server.stop();
  agent.destroy();
}

/** CPU µs per frame between the short and the long stream of one pacing, and what is left fixed. */
function split(row: Record<Pacing, number>, kind: "paced" | "fast") {
  const short = PACINGS[`${kind}-short`];
  const long = PACINGS[`${kind}-long`];
  const frame = (row[`${kind}-long`] - row[`${kind}-short`]) / (long.frames - short.frames);
  return { frame, fixed: row[`${kind}-short`] - frame * short.frames };
}

const LONG_ARGS_FRAMES = 152;
const DISPLAY_FRAMES = 8_994;
const pad = (s: string, n: number) => s.padStart(n);
console.log(
  `\nCPU of reading a fine-grained stream (${REPS} streams each): µs per frame and per request,` +
    `\nand what a turn's frames cost at that rate (long-args-2: ${LONG_ARGS_FRAMES} paced frames, ` +
    `display-64k: ${DISPLAY_FRAMES} fast ones)\n`,
);
console.log(
  `${"reader".padEnd(18)}${pad("paced µs/frame", 16)}${pad("fast µs/frame", 15)}${pad("µs/request", 12)}` +
    `${pad("long-args-2 ms", 16)}${pad("display-64k ms", 16)}`,
);
const figures: Record<
  string,
  { pacedFrameMicros: number; fastFrameMicros: number; requestMicros: number }
> = {};
for (const [name, row] of Object.entries(perStream)) {
  const paced = split(row, "paced");
  const fast = split(row, "fast");
  const fixed = (paced.fixed + fast.fixed) / 2;
  figures[name] = {
    pacedFrameMicros: paced.frame,
    fastFrameMicros: fast.frame,
    requestMicros: fixed,
  };
  console.log(
    `${name.padEnd(18)}${pad(paced.frame.toFixed(1), 16)}${pad(fast.frame.toFixed(2), 15)}` +
      `${pad(fixed.toFixed(0), 12)}` +
      `${pad(((paced.frame * LONG_ARGS_FRAMES) / 1000).toFixed(1), 16)}` +
      `${pad(((fast.frame * DISPLAY_FRAMES) / 1000).toFixed(1), 16)}`,
  );
}
console.log(
  JSON.stringify({ bench: "read-floor", reps: REPS, perStreamMicros: perStream, figures }),
);
