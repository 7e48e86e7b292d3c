/**
 * Test support for the example durable server (examples/durable-server): its processes, a
 * stand-in for the external notification service that counts what it receives, and an SSE
 * reader that keeps every event with its id.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { AgentEvent } from "../protocol/agent-event.js";
import { decodeSseStream } from "../sse/decode-sse-stream.js";

const SERVER = fileURLToPath(new URL("../../examples/durable-server/server.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** One process of the example server. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote, for a failure's message. */
  output: () => string;
}

/** Starts the example server on a free port (from its sources); resolves once it listens. */
export function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) {
    if (/^(ANTHROPIC|OPENAI)_/.test(name)) delete clean[name];
  }
  const child = spawn(
    process.execPath,
    ["--conditions=overlap-source", "--import", "tsx", SERVER],
    { cwd: ROOT, env: { ...clean, ...env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  const output = () => out;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Durable agent server: (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child, output });
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}): ${out}`));
    });
  });
}

/** Signals a server process and waits until it is gone (reaped: its pid no longer exists). */
export async function stopServer(
  server: ServerProcess,
  signal: NodeJS.Signals = "SIGKILL",
): Promise<number | null> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const gone = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill(signal);
  const [code] = await gone;
  return code;
}

/** The stand-in notification service: what it was sent, by idempotency key. */
export interface ExternalService {
  url: string;
  /** How many requests came with each key. */
  readonly requests: Map<string, number>;
  /** The keys each chat's requests carried. */
  readonly keysByChat: Map<string, Set<string>>;
  /** Awaited before answering a request of `chatId` (once): where a test kills the caller. */
  hold(chatId: string, onRequest: () => Promise<void>): void;
  close(): Promise<void>;
}

/** Starts the notification service: each key's effect applied once, a repeat answered the same. */
export async function startExternalService(): Promise<ExternalService> {
  const requests = new Map<string, number>();
  const keysByChat = new Map<string, Set<string>>();
  const sent = new Map<string, { id: string }>();
  const holds = new Map<string, () => Promise<void>>();
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const key = String(req.headers["idempotency-key"] ?? "");
    const { chatId } = JSON.parse(body) as { chatId: string };
    requests.set(key, (requests.get(key) ?? 0) + 1);
    const keys = keysByChat.get(chatId) ?? new Set<string>();
    keys.add(key);
    keysByChat.set(chatId, keys);
    let notification = sent.get(key);
    if (!notification) {
      notification = { id: `n${sent.size + 1}` };
      sent.set(key, notification);
    }
    const hold = holds.get(chatId);
    holds.delete(chatId);
    await hold?.();
    if (res.destroyed) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(notification));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    keysByChat,
    hold: (chatId, onRequest) => holds.set(chatId, onRequest),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An event of a turn's stream, with its SSE id (`<turnId>:<seq>`). */
export interface ReadEvent {
  id: string;
  seq: number;
  event: AgentEvent;
}

/** What reading a chat's event stream gave. */
export interface StreamRead {
  status: number;
  events: ReadEvent[];
  /** True when the stream ended cleanly (the server closed it after the turn ended). */
  ended: boolean;
}

/**
 * Reads `GET /chats/:id/events` (after `lastEventId` when given) until the stream ends, fails,
 * `stop` returns true for an event (the client then disconnects) or `timeoutMs` passes.
 */
export async function readEvents(
  url: string,
  chatId: string,
  options: {
    lastEventId?: string;
    onEvent?: (event: ReadEvent) => boolean | undefined;
    timeoutMs?: number;
  } = {},
): Promise<StreamRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 60_000);
  const events: ReadEvent[] = [];
  let status = 0;
  let ended = false;
  try {
    const response = await fetch(`${url}/chats/${chatId}/events`, {
      headers: options.lastEventId ? { "last-event-id": options.lastEventId } : {},
      signal: controller.signal,
    });
    status = response.status;
    if (!response.ok || !response.body) return { status, events, ended };
    for await (const frame of decodeSseStream(response.body)) {
      if (!frame.event || frame.id === undefined) continue;
      const seq = Number(frame.id.slice(frame.id.lastIndexOf(":") + 1));
      const read = { id: frame.id, seq, event: JSON.parse(frame.data) as AgentEvent };
      events.push(read);
      if (options.onEvent?.(read)) {
        controller.abort();
        return { status, events, ended };
      }
    }
    ended = true;
  } catch {
    // A connection the server's death cut, or the timeout: what was read is returned.
  } finally {
    clearTimeout(timer);
  }
  return { status, events, ended };
}
