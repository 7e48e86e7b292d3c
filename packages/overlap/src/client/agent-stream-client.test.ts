import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { encodeAgentEvent } from "../sse/sse-encoder.js";
import { sseResponseBody } from "../sse/sse-response-body.js";
import { type LoggedEvent, TurnEventLog } from "../sse/turn-event-log.js";
import { buildTurnEvents, EXAMPLE_SCRIPT, turnScriptArb } from "./__fixtures__/turn-script.js";
import { type AgentState, addUserMessage, initialAgentState } from "./agent-state.js";
import {
  AgentStreamClient,
  type AgentStreamClientOptions,
  CONNECTION_LOST,
  NETWORK_ERROR,
  TURN_LOST,
} from "./agent-stream-client.js";
import { reduceAgentEvent } from "./reduce-agent-event.js";

const TEXT = "我想买红茶";
const utf8 = new TextEncoder();

/** How a fake connection ends early: a clean close, a reset, or a close in the middle of a frame. */
type DropMode = "close" | "error" | "mid-frame";

interface Connection {
  kind: "send" | "resume";
  /** The `Last-Event-ID` the client sent. */
  lastEventId: string | undefined;
  /** Ids of the frames written completely. */
  written: string[];
}

interface FakeServerOptions {
  /** Events per connection before it drops; `undefined`: never drops. */
  dropAfter?: number | undefined;
  mode?: DropMode;
  /** Appends the events one by one while clients read, instead of logging the whole turn first. */
  live?: boolean;
  heartbeatMs?: number;
  /** Replays this many events before the one asked for (a server with overlapping ranges). */
  overlap?: number;
}

/** The shop server's stream routes, reduced to a real TurnEventLog and sseResponseBody. */
class FakeServer {
  readonly connections: Connection[] = [];
  log: TurnEventLog | undefined;
  readonly #events: readonly AgentEvent[];
  readonly #options: FakeServerOptions;
  #turns = 0;

  constructor(events: readonly AgentEvent[], options: FakeServerOptions = {}) {
    this.#events = events;
    this.#options = options;
  }

  readonly send = async (_text: string, _signal: AbortSignal): Promise<Response> => {
    // Turn ids are unique, as the server's are: event ids never repeat across turns.
    const log = new TurnEventLog(`t${++this.#turns}`);
    this.log = log;
    if (this.#options.live) {
      void (async () => {
        for (const event of this.#events) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          log.append(event);
        }
        log.close();
      })();
    } else {
      for (const event of this.#events) log.append(event);
      log.close();
    }
    return this.#respond("send", undefined);
  };

  readonly resume = async (lastEventId: string | undefined, _signal: AbortSignal) => {
    if (!this.log) return new Response(null, { status: 204 });
    return this.#respond("resume", lastEventId);
  };

  /** Every logged event, once the turn is over. */
  async logged(): Promise<LoggedEvent[]> {
    const all: LoggedEvent[] = [];
    for await (const entry of this.log!.read()) all.push(entry);
    return all;
  }

  async #respond(kind: Connection["kind"], lastEventId: string | undefined): Promise<Response> {
    const log = this.log!;
    const connection: Connection = { kind, lastEventId, written: [] };
    this.connections.push(connection);
    const { dropAfter, mode = "close", overlap = 0 } = this.#options;
    let from = lastEventId;
    if (overlap > 0 && lastEventId !== undefined) {
      const position = Math.max(0, log.positionAfter(lastEventId) - overlap);
      from = position === 0 ? undefined : `${log.turnId}:${position}`;
    }
    if (mode === "mid-frame" && dropAfter !== undefined) {
      // A proxy cutting the connection inside a frame: k whole frames, then half of the next.
      const entries: LoggedEvent[] = [];
      for await (const entry of log.read(from)) entries.push(entry);
      const whole = entries.slice(0, dropAfter);
      let text = whole.map((e) => encodeAgentEvent(e.event, e.id)).join("");
      const cut = entries[dropAfter];
      if (cut) text += encodeAgentEvent(cut.event, cut.id).slice(0, 40);
      connection.written.push(...whole.map((e) => e.id));
      return new Response(utf8.encode(text), { status: 200 });
    }
    const entries = async function* (signal: AbortSignal): AsyncGenerator<LoggedEvent> {
      let n = 0;
      for await (const entry of log.read(from, signal)) {
        if (dropAfter !== undefined && n >= dropAfter) {
          if (mode === "error") throw new Error("connection reset");
          return;
        }
        n++;
        connection.written.push(entry.id);
        yield entry;
      }
    };
    const body = sseResponseBody(entries, { heartbeatMs: this.#options.heartbeatMs ?? 15_000 });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  }
}

function clientFor(
  server: Pick<AgentStreamClientOptions, "send" | "resume">,
  options: Partial<AgentStreamClientOptions> = {},
): AgentStreamClient {
  return new AgentStreamClient({
    send: server.send,
    resume: server.resume,
    retry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    sleep: async () => {},
    ...options,
  });
}

/** The state an uninterrupted read of the whole turn gives. */
function uninterrupted(logged: readonly LoggedEvent[], start = initialAgentState()): AgentState {
  return logged.reduce(reduceAgentEvent, addUserMessage(start, TEXT));
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

const exampleEvents = buildTurnEvents(EXAMPLE_SCRIPT).events;

describe("AgentStreamClient", () => {
  it("sends, reads the turn into the state, and settles at its own done", async () => {
    const server = new FakeServer(exampleEvents);
    const states: AgentState[] = [];
    const client = clientFor(server, { onState: (s) => states.push(s) });
    await client.send(TEXT);
    expect(client.state).toEqual(uninterrupted(await server.logged()));
    expect(client.state.running).toBe(false);
    expect(client.reading).toBe(false);
    expect(server.connections).toHaveLength(1);
    expect(states[0]?.turns).toEqual([{ role: "user", text: TEXT }]);
    expect(states[0]?.running).toBe(true);
  });

  for (const mode of ["close", "error", "mid-frame"] as const) {
    it(`reconnects with Last-Event-ID after a drop (${mode}) after every k, exactly once`, async () => {
      for (let k = 1; k <= exampleEvents.length; k++) {
        const server = new FakeServer(exampleEvents, { dropAfter: k, mode });
        const client = clientFor(server);
        await client.send(TEXT);
        const logged = await server.logged();
        expect(client.state, `k=${k}`).toEqual(uninterrupted(logged));
        expect(client.state.error).toBeUndefined();
        let delivered: string | undefined;
        for (const connection of server.connections) {
          if (connection.kind === "resume") {
            if (mode === "error") {
              // A reset may discard frames still queued: the client asks from what it applied.
              const asked = logged.findIndex((e) => e.id === connection.lastEventId);
              expect(asked).toBeLessThanOrEqual(logged.findIndex((e) => e.id === delivered));
            } else {
              expect(connection.lastEventId, `k=${k}`).toBe(delivered);
            }
          }
          delivered = connection.written.at(-1) ?? delivered;
        }
        if (k < exampleEvents.length && mode !== "error") {
          expect(server.connections.length).toBe(Math.ceil(exampleEvents.length / k));
        }
      }
    });
  }

  it("follows a live turn with heartbeats through repeated drops", async () => {
    const server = new FakeServer(exampleEvents, { dropAfter: 7, live: true, heartbeatMs: 2 });
    const client = clientFor(server);
    await client.send(TEXT);
    expect(client.state).toEqual(uninterrupted(await server.logged()));
    expect(server.connections.length).toBeGreaterThan(exampleEvents.length / 7);
  });

  it("drops what an overlapping replay sends twice", async () => {
    const server = new FakeServer(exampleEvents, { dropAfter: 5, overlap: 3 });
    const client = clientFor(server);
    await client.send(TEXT);
    expect(client.state).toEqual(uninterrupted(await server.logged()));
  });

  it("ends like an uninterrupted read for random turns and drop points", async () => {
    await fc.assert(
      fc.asyncProperty(
        turnScriptArb,
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom<DropMode>("close", "error", "mid-frame"),
        async (script, k, mode) => {
          const events = buildTurnEvents(script).events;
          const server = new FakeServer(events, { dropAfter: k, mode });
          const client = clientFor(server);
          await client.send(TEXT);
          expect(client.state).toEqual(uninterrupted(await server.logged()));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives up with connection_lost after the attempts in a row that bring nothing", async () => {
    const server = new FakeServer(exampleEvents, { dropAfter: 4 });
    const asked: (string | undefined)[] = [];
    const delays: number[] = [];
    const client = new AgentStreamClient({
      send: server.send,
      resume: async (lastEventId) => {
        asked.push(lastEventId);
        throw new TypeError("Failed to fetch");
      },
      retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 500 },
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => 1,
    });
    await client.send(TEXT);
    expect(asked).toEqual(["t1:4", "t1:4", "t1:4", "t1:4"]);
    expect(delays).toEqual([100, 200, 400, 500]);
    expect(client.state.error).toEqual(CONNECTION_LOST);
    expect(client.state.running).toBe(false);
    expect(client.reading).toBe(false);
  });

  it("retries a 5xx while reconnecting, and stops at a 4xx", async () => {
    const server = new FakeServer(exampleEvents, { dropAfter: 10 });
    let failures = 1;
    const flaky = clientFor({
      send: server.send,
      resume: async (id, signal) =>
        failures-- > 0 ? new Response("<html>", { status: 502 }) : server.resume(id, signal),
    });
    await flaky.send(TEXT);
    // After the 502, one resume dropped after 10 more events: the flaky attempt did not count.
    expect(flaky.state).toEqual(uninterrupted(await server.logged()));

    const gone = clientFor({
      send: new FakeServer(exampleEvents, { dropAfter: 3 }).send,
      resume: async () => json(401, { error: { code: "unauthorized", message: "Sign in again." } }),
    });
    await gone.send(TEXT);
    expect(gone.state.error).toEqual({ code: "unauthorized", message: "Sign in again." });
    expect(gone.state.running).toBe(false);
  });

  it("reports turn_lost when the server forgot the turn while reconnecting (204)", async () => {
    const server = new FakeServer(exampleEvents, { dropAfter: 3 });
    const client = clientFor({
      send: server.send,
      resume: async () => new Response(null, { status: 204 }),
    });
    await client.send(TEXT);
    expect(client.state.error).toEqual(TURN_LOST);
  });

  it("shows the server's masked message for an HTTP error, and a sentence of ours otherwise", async () => {
    const busy = clientFor({
      send: async () =>
        json(409, {
          error: { code: "turn_running", message: "A reply is still being written." },
        }),
      resume: async () => new Response(null, { status: 204 }),
    });
    await busy.send(TEXT);
    expect(busy.state.error).toEqual({
      code: "turn_running",
      message: "A reply is still being written.",
    });
    expect(busy.state.running).toBe(false);
    expect(busy.state.turns).toEqual([{ role: "user", text: TEXT }]);

    const broken = clientFor({
      send: async () => new Response("<h1>Bad gateway</h1>", { status: 500 }),
      resume: async () => new Response(null, { status: 204 }),
    });
    await broken.send(TEXT);
    expect(broken.state.error?.code).toBe("http_500");
    expect(broken.state.error?.message).not.toContain("<h1>");
  });

  it("reports network_error when the message could not be sent, without sending it twice", async () => {
    let sends = 0;
    const client = clientFor({
      send: async () => {
        sends++;
        throw new TypeError("Failed to fetch");
      },
      resume: async () => new Response(null, { status: 204 }),
    });
    await client.send(TEXT);
    expect(sends).toBe(1);
    expect(client.state.error).toEqual(NETWORK_ERROR);
    expect(client.state.running).toBe(false);
  });

  it("resumeIfRunning: nothing on 204, the running turn otherwise, nothing twice", async () => {
    const idle = clientFor(new FakeServer(exampleEvents));
    const before = idle.state;
    await idle.resumeIfRunning();
    expect(idle.state).toBe(before);

    // A page load while a turn runs: a fresh client follows it from its start.
    const server = new FakeServer(exampleEvents, { live: true });
    const tab = clientFor(server);
    const sending = tab.send(TEXT);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const reloaded = clientFor(server);
    await reloaded.resumeIfRunning();
    await sending;
    const logged = await server.logged();
    expect(reloaded.state).toEqual(logged.reduce(reduceAgentEvent, initialAgentState()));
    expect(server.connections[1]?.lastEventId).toBeUndefined();

    // Resuming a finished turn from its last id reads nothing new and shows no error.
    const finished = clientFor(server, { initialState: reloaded.state });
    await finished.resumeIfRunning();
    expect(server.connections[2]?.lastEventId).toBe(logged.at(-1)?.id);
    expect(finished.state).toBe(reloaded.state);
  });

  it("stop() ends local reading; resuming continues without duplicates", async () => {
    const server = new FakeServer(exampleEvents, { live: true });
    const client = clientFor(server);
    const sending = client.send(TEXT);
    await new Promise((resolve) => setTimeout(resolve, 15));
    client.stop();
    await sending;
    expect(client.state.running).toBe(false);
    expect(client.reading).toBe(false);
    const stoppedAt = client.state.lastEventId;
    await client.resumeIfRunning();
    expect(server.connections[1]?.lastEventId).toBe(stoppedAt);
    expect(client.state).toEqual(uninterrupted(await server.logged()));
  });

  it("ignores a send while a turn is being read", async () => {
    const server = new FakeServer(exampleEvents, { live: true });
    const client = clientFor(server);
    const first = client.send(TEXT);
    await client.send("second");
    await first;
    expect(client.state.turns.filter((t) => t.role === "user")).toHaveLength(1);
    expect(server.connections).toHaveLength(1);
  });

  it("is a store: subscribe and getState, as useSyncExternalStore needs", async () => {
    const client = clientFor(new FakeServer(exampleEvents));
    const getState = client.getState;
    let calls = 0;
    const unsubscribe = client.subscribe(() => {
      calls++;
      expect(getState()).toBe(client.state);
    });
    await client.send(TEXT);
    expect(calls).toBeGreaterThan(exampleEvents.length);
    unsubscribe();
    const seen = calls;
    await client.send("again");
    expect(calls).toBe(seen);
  });
});
