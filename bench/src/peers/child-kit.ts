/**
 * What every system's child process shares in `bench/peers` (Node 20 and Node 22 alike, so no
 * dependencies beyond Node's own modules):
 *
 * - the tools' one implementation ({@link benchTool}): sleeps its nominal `ms` (honouring an
 *   AbortSignal when the system gives one), cart writes serialized by a per-session lock inside
 *   the tool, every run recorded (entered, work started, ended, completed or aborted);
 * - the wire tap ({@link tappedFetch}): every system's HTTP goes through it, so the harness sees
 *   the same things for all of them, at the process's door, before any SDK parses a byte: when
 *   each request was sent (and which tool results it carried), its status, and when each call's
 *   arguments were complete on the wire (Anthropic `content_block_stop`; Chat Completions the
 *   last argument chunk of the call), when the stream ended, how many frames it had. It also
 *   injects the fault header into the next request only, when asked;
 * - the command loop ({@link runPeerChild}): the orchestrator sends one JSON command per line on
 *   standard input (`turn`, `fault`, `exit`); the child answers each with one `@@peers` line.
 *
 * Times are epoch milliseconds with sub-millisecond precision (`performance.timeOrigin +
 * performance.now()`), comparable across the processes of one machine.
 */

import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { BENCH_TOOLS, GO_ON, RESULT_MARKER, resultText, scenarioPrompt } from "./scenarios.js";

export const now = (): number => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// What a turn leaves behind

/** One tool run, as the tool itself saw it. */
export interface ToolRun {
  op: string;
  name: string;
  /** The system called the tool. */
  start: number;
  /** The tool's work began (after the cart lock, for cart writes). */
  workStart?: number;
  end?: number;
  completed: boolean;
  aborted: boolean;
}

/** One HTTP request, as the wire tap saw it. */
export interface WireRequest {
  sentAt: number;
  path: string;
  fault?: string;
  /** The `done:<op>` markers (tool results) in the request body. */
  markers: string[];
  /** Role of the request's last message (`assistant`: a prefill). */
  lastRole?: string;
  status?: number;
  headersAt?: number;
  /** Frames (SSE events or chunks) of the streamed answer. */
  frames: number;
  /** Per call, in stream order: when its arguments were complete on the wire. */
  stops: number[];
  /** The end of the stream (`message_stop`, `[DONE]`); absent when it never came. */
  streamEnd?: number;
  lastByte?: number;
  /** An error event in the stream. */
  errorEvent: boolean;
  /** The connection failed (dropped) while reading. */
  readFailed?: string;
}

class Recorder {
  requests: WireRequest[] = [];
  runs: ToolRun[] = [];
  /** Fault header for the next request only. */
  nextFault: string | undefined;
  reset(): void {
    this.requests = [];
    this.runs = [];
    this.nextFault = undefined;
  }
}

export const recorder = new Recorder();

// ---------------------------------------------------------------------------------------------
// The tools

const locks = new Map<string, Promise<void>>();

/** Runs `fn` holding the lock of `key` (FIFO). */
async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  locks.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(key) === tail) locks.delete(key);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error("aborted"));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

const LOCKED = new Set(BENCH_TOOLS.filter((t) => t.locked).map((t) => t.name));

/**
 * The one implementation of every bench tool, whatever the system: `input` as the system hands
 * it over (an object, or the JSON text). Resolves to the result text `done:<op> <name> ok`.
 */
export async function benchTool(name: string, input: unknown, signal?: AbortSignal) {
  const args = (typeof input === "string" ? JSON.parse(input) : input) as Record<string, unknown>;
  const op = String(args.op);
  const ms = Number(args.ms);
  const run: ToolRun = { op, name, start: now(), completed: false, aborted: false };
  recorder.runs.push(run);
  const work = async () => {
    run.workStart = now();
    await sleep(ms, signal);
  };
  try {
    if (LOCKED.has(name)) await withLock(String(args.session ?? "default"), work);
    else await work();
    run.completed = true;
    return resultText(name, op);
  } catch (error) {
    run.aborted = true;
    throw error;
  } finally {
    run.end = now();
  }
}

// ---------------------------------------------------------------------------------------------
// The wire tap

function bodyText(body: unknown): string {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
  return "";
}

function lastMessageRole(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { messages?: Array<{ role?: string }> };
    return parsed.messages?.at(-1)?.role;
  } catch {
    return undefined;
  }
}

/** Reads a copy of a streamed answer as it arrives, noting the moments the bound needs. */
/**
 * Reads the tapped copy of a streamed answer: `chunk` for each piece as it is read, then `end`
 * (with the read's failure, if it failed). Frames are split on blank lines and noted in `record`.
 */
function wireWatcher(record: WireRequest) {
  const decoder = new TextDecoder();
  let buffer = "";
  const anthropicCalls = new Map<number, number>();
  const chatLastArgs = new Map<number, number>();
  const frame = (text: string, at: number) => {
    record.frames++;
    if (text.startsWith("event:")) {
      const name = text.slice(6, text.indexOf("\n")).trim();
      if (name === "content_block_start") {
        if (text.includes('"tool_use"')) {
          const index = Number(/"index":(\d+)/.exec(text)?.[1]);
          anthropicCalls.set(index, anthropicCalls.size);
        }
      } else if (name === "content_block_stop") {
        const index = Number(/"index":(\d+)/.exec(text)?.[1]);
        const call = anthropicCalls.get(index);
        if (call !== undefined) record.stops[call] = at;
      } else if (name === "message_stop") {
        record.streamEnd = at;
      } else if (name === "error") {
        record.errorEvent = true;
      }
      return;
    }
    // Chat Completions: `data: {chunk}` or `data: [DONE]`.
    const data = text.startsWith("data:") ? text.slice(5).trim() : "";
    if (data === "[DONE]") {
      record.streamEnd ??= at;
      return;
    }
    if (data.startsWith('{"error"')) {
      record.errorEvent = true;
      return;
    }
    if (data.includes('"tool_calls"')) {
      const chunk = JSON.parse(data) as {
        choices?: Array<{ delta?: { tool_calls?: Array<{ index: number }> } }>;
      };
      for (const call of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
        chatLastArgs.set(call.index, at);
      }
    }
  };
  return {
    chunk(value: Uint8Array): void {
      const at = now();
      record.lastByte = at;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const cut = buffer.indexOf("\n\n");
        if (cut < 0) break;
        const text = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (text.trim() !== "") frame(text, at);
      }
    },
    end(error?: unknown): void {
      if (error !== undefined) {
        record.readFailed = error instanceof Error ? error.message : String(error);
      }
      for (const [index, at] of [...chatLastArgs].sort((a, b) => a[0] - b[0])) {
        record.stops[index] = at;
      }
    },
  };
}

async function watchStream(stream: ReadableStream<Uint8Array>, record: WireRequest) {
  const watcher = wireWatcher(record);
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      watcher.chunk(value);
    }
    watcher.end();
  } catch (error) {
    watcher.end(error);
  }
}

/**
 * Watches a Node response body (from overlap's `nodeHttpFetch`) beside its reader: one more
 * listener on the same pieces, no copy of the stream, so the system under test keeps its own
 * read of the socket. The reader keeps the body paused and reads it at each `readable`; a `data`
 * listener added before that would set the body flowing and could take pieces it never sees, so
 * the tap's listener is added once the reader's is (with a `readable` listener present, `data`
 * is emitted for what the reader reads).
 */
function watchIncoming(incoming: IncomingMessage, record: WireRequest) {
  const watcher = wireWatcher(record);
  let over = false;
  const end = (error?: unknown) => {
    if (over) return;
    over = true;
    watcher.end(error);
  };
  const listen = () => incoming.on("data", (chunk: Buffer) => watcher.chunk(chunk));
  if (incoming.listenerCount("readable") > 0) listen();
  else {
    const onNewListener = (event: string | symbol) => {
      if (event !== "readable") return;
      incoming.off("newListener", onNewListener);
      // `newListener` comes before the listener is added.
      queueMicrotask(listen);
    };
    incoming.on("newListener", onNewListener);
  }
  incoming.once("end", () => end());
  incoming.once("error", (error) => end(error));
  incoming.once("close", () => end(incoming.complete ? undefined : "the connection closed"));
}

/**
 * A `fetch` that records every request and a copy of every streamed answer (see the module
 * comment). Give it to each SDK as its fetch (or as `globalThis.fetch` where it has no option).
 */
export function tappedFetch(
  inner: typeof fetch = globalThis.fetch,
  /**
   * The Node response behind a `Response` of `inner`, where the system reads that directly
   * (overlap's `incomingBodyOf` with its `nodeHttpFetch`): the tap then listens to the same
   * pieces and hands the system its own `Response`, instead of a copy of the web stream.
   */
  nodeBodyOf: (response: Response) => IncomingMessage | undefined = () => undefined,
): typeof fetch {
  const tapped = async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const record: WireRequest = {
      sentAt: now(),
      path: new URL(url).pathname,
      markers: [...new Set([...bodyText(init?.body).matchAll(RESULT_MARKER)].map((m) => m[1]!))],
      frames: 0,
      stops: [],
      errorEvent: false,
    };
    const lastRole = lastMessageRole(bodyText(init?.body));
    if (lastRole !== undefined) record.lastRole = lastRole;
    let requestInit = init;
    // The fault goes to the first request of the conversation (not to the agent SDK CLI's
    // system-role first attempt, which the scripted model rejects before streaming anything).
    const fault = lastRole === "system" ? undefined : recorder.nextFault;
    if (fault !== undefined) {
      recorder.nextFault = undefined;
      record.fault = fault;
      const headers = new Headers(init?.headers);
      headers.set("x-sim-fault", fault);
      requestInit = { ...init, headers };
    }
    recorder.requests.push(record);
    if (process.env.PEERS_DEBUG_BODIES) process.stderr.write(`${bodyText(init?.body)}\n`);
    const response = await inner(input, requestInit);
    record.status = response.status;
    record.headersAt = now();
    if (!response.body || !(response.headers.get("content-type") ?? "").includes("event-stream")) {
      return response;
    }
    const incoming = nodeBodyOf(response);
    if (incoming) {
      watchIncoming(incoming, record);
      return response;
    }
    const [mine, theirs] = response.body.tee();
    void watchStream(mine, record);
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return tapped as typeof fetch;
}

// ---------------------------------------------------------------------------------------------
// The systems and the command loop

/** What a system's turn hands back: its final text and the conversation an app keeps. */
export interface PeerTurn {
  text: string;
  /** The conversation to continue from, in the system's own message shape. */
  history: unknown[];
  /** Why the turn failed, when it did (the system's own error). */
  error?: string;
}

/** One system under test, as its child process drives it. */
export interface PeerSystem {
  name: string;
  /** Package versions, for the report. */
  versions: Record<string, string>;
  /**
   * One user turn: `prompt` after `history`, every tool round, the final answer. Settles with
   * the error (never rejects) when the system fails, keeping what its documented API leaves.
   * `url` is the scripted model's base URL (Anthropic style: no `/v1`).
   */
  turn(args: {
    url: string;
    history: unknown[];
    prompt: string;
    signal: AbortSignal;
  }): Promise<PeerTurn>;
}

/** One measured turn. */
export interface TurnRecord {
  scenario: string;
  t0: number;
  tEnd: number;
  cpuMs: number;
  text: string;
  error?: string;
  requests: WireRequest[];
  runs: ToolRun[];
}

export type TurnOutcome = "ok" | "error" | "hang";

/** One cell of the fault matrix: the faulty turn, then "go on". */
export interface FaultRecord {
  fault: string;
  first: { outcome: TurnOutcome; error?: string };
  second?: { outcome: TurnOutcome; error?: string; text?: string };
  requests: WireRequest[];
  runs: ToolRun[];
}

export type PeerCommand =
  | { id: number; cmd: "turn"; scenario: string; url: string }
  | { id: number; cmd: "fault"; scenario: string; url: string; fault: string; timeoutMs: number }
  | { id: number; cmd: "exit" };

export function emit(kind: string, value: unknown): void {
  process.stdout.write(`@@${kind} ${JSON.stringify(value)}\n`);
}

function message(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : "";
    return `${error.name}: ${error.message}${cause}`.slice(0, 400);
  }
  return String(error).slice(0, 400);
}

/** Runs a turn with a deadline: a turn that does not settle in time is a hang. */
async function bounded(
  system: PeerSystem,
  args: { url: string; history: unknown[]; prompt: string },
  timeoutMs: number,
): Promise<{ outcome: TurnOutcome; turn?: PeerTurn; error?: string }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"hang">((resolve) => {
    timer = setTimeout(() => resolve("hang"), timeoutMs);
  });
  try {
    const settled = await Promise.race([
      system.turn({ ...args, signal: controller.signal }).then(
        (turn) => ({ turn }),
        (error: unknown) => ({ thrown: message(error) }),
      ),
      deadline,
    ]);
    if (settled === "hang") {
      controller.abort(new Error("bench timeout"));
      return { outcome: "hang", error: `no answer within ${timeoutMs} ms` };
    }
    if ("thrown" in settled) return { outcome: "error", error: `threw ${settled.thrown}` };
    const turn = settled.turn;
    return turn.error === undefined
      ? { outcome: "ok", turn }
      : { outcome: "error", turn, error: turn.error };
  } finally {
    clearTimeout(timer);
  }
}

/** Lets the tap's readers and late tool runs finish before the records are read. */
const settle = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

async function measuredTurn(system: PeerSystem, scenario: string, url: string) {
  recorder.reset();
  // Garbage of earlier turns is not this turn's cost (children run with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const t0 = now();
  const result = await bounded(
    system,
    { url, history: [], prompt: scenarioPrompt(scenario) },
    60_000,
  );
  const tEnd = now();
  const used = process.cpuUsage(cpu);
  await settle();
  const record: TurnRecord = {
    scenario,
    t0,
    tEnd,
    cpuMs: (used.user + used.system) / 1000,
    text: result.turn?.text ?? "",
    requests: recorder.requests,
    runs: recorder.runs,
  };
  if (result.error !== undefined) record.error = result.error;
  return record;
}

async function faultTurn(
  system: PeerSystem,
  command: Extract<PeerCommand, { cmd: "fault" }>,
): Promise<FaultRecord> {
  recorder.reset();
  recorder.nextFault = command.fault;
  const prompt = scenarioPrompt(command.scenario);
  const first = await bounded(system, { url: command.url, history: [], prompt }, command.timeoutMs);
  const record: FaultRecord = {
    fault: command.fault,
    first: { outcome: first.outcome },
    requests: recorder.requests,
    runs: recorder.runs,
  };
  if (first.error !== undefined) record.first.error = first.error;
  if (first.outcome !== "hang") {
    // Whatever the system kept (or nothing but the prompt), then the user says "go on".
    const history = first.turn?.history ?? [];
    await settle(50);
    const second = await bounded(
      system,
      { url: command.url, history, prompt: GO_ON },
      command.timeoutMs,
    );
    record.second = { outcome: second.outcome };
    if (second.error !== undefined) record.second.error = second.error;
    if (second.turn) record.second.text = second.turn.text;
  }
  await settle(100);
  record.requests = recorder.requests;
  record.runs = recorder.runs;
  return record;
}

/**
 * The child's main loop: announces the system (`@@ready`), then runs one command per input line
 * and answers each with `@@peers {id, ...}`, until `exit` or the end of its input.
 */
export async function runPeerChild(load: () => Promise<PeerSystem>): Promise<void> {
  let system: PeerSystem;
  try {
    system = await load();
  } catch (error) {
    emit("failed", { error: message(error) });
    process.exitCode = 1;
    return;
  }
  emit("ready", { system: system.name, node: process.version, versions: system.versions });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const command = JSON.parse(line) as PeerCommand;
    if (command.cmd === "exit") break;
    try {
      if (command.cmd === "turn") {
        emit("peers", {
          id: command.id,
          turn: await measuredTurn(system, command.scenario, command.url),
        });
      } else {
        emit("peers", { id: command.id, fault: await faultTurn(system, command) });
      }
    } catch (error) {
      emit("peers", { id: command.id, error: message(error) });
    }
  }
  lines.close();
  // Sockets kept alive by SDKs would hold the process open.
  process.exit(0);
}

/**
 * The installed version of package `name` as seen from the module at `from` (its
 * `import.meta.url`): the nearest `package.json` of that name above its resolved entry point
 * (some packages do not export `./package.json`).
 */
export function packageVersion(name: string, from: string): string {
  try {
    let dir = dirname(createRequire(from).resolve(name));
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === name) return pkg.version ?? "?";
      } catch {
        // no package.json here
      }
      const up = dirname(dir);
      if (up === dir) return "?";
      dir = up;
    }
  } catch {
    return "?";
  }
}
