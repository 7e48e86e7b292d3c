/**
 * The example durable server (examples/durable-server) as its users run it: three processes on
 * one PostgreSQL database, a scripted model (overlap-sim) and an external notification service.
 * Fifty trials each send three simultaneous messages for one chat, one to each process; in most
 * of them the process running the turn is killed (SIGKILL) at a chosen point, and the trial
 * checks what the issue of a crash comes down to: one turn per trial, the notes table equals what
 * the conversation records, no call ran twice, every call is answered, and a client that resumes
 * the stream on another process learns how the turn ended.
 */

import { genericPolicy, type SimRequest, type SimServer, startSim } from "overlap-sim";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertValidConversation } from "../agent/validate-conversation.js";
import type { Message } from "../stream/message.js";
import {
  type ExternalService,
  type ReadEvent,
  readEvents,
  type ServerProcess,
  spawnServer,
  startExternalService,
  stopServer,
} from "./durable-server.testkit.js";
import { testPrefix } from "./durable-store-suite.testkit.js";

const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const CI = process.env.CI === "true";
const TRIALS = Number(process.env.DURABLE_SERVER_TRIALS ?? 50);
/**
 * Where a trial kills the process running its turn, by trial number modulo 10: each of six points
 * in 5 trials of 50 (standby processes take the killed ones' places meanwhile). `accepted`: the
 * moment the message was accepted (202). `journal-held`: the journal's writes wait (a lock held
 * on its table), the calls complete meanwhile, and the process dies while they wait: an external
 * call must not have gone out without a record of it.
 */
const KILLS = [
  "none",
  "before-tools",
  "none",
  "in-tool",
  "accepted",
  "after-tools",
  "none",
  "next-round",
  "journal-held",
  "none",
] as const;
type Kill = (typeof KILLS)[number];

const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const reachable = await admin.query("select 1").then(
  () => true,
  (error: unknown) => {
    if (CI) throw error;
    console.warn(`!!! durable server test SKIPPED: ${DATABASE_URL} unreachable (${error}).`);
    return false;
  },
);

const prefix = testPrefix();
/** Kill hooks of the scripted model, by trial: run before it answers that round's request. */
const modelHooks = new Map<string, { round: 1 | 2; run: () => Promise<void> }>();
let sim: SimServer;
let external: ExternalService;
const servers: ServerProcess[] = [];
/** Started processes that take killed ones' places, so a trial rarely waits for a start. */
const standby: Promise<ServerProcess>[] = [];
let serverEnv: Record<string, string>;

/** The trial a model request belongs to, and which round of its first turn it asks for. */
async function scriptedModel(request: SimRequest) {
  const first = request.messages[0]?.content.find((block) => block.type === "text");
  const trial = first?.type === "text" ? /^(trial-\d+) via/.exec(first.text)?.[1] : undefined;
  const hook = trial ? modelHooks.get(trial) : undefined;
  const round = request.messages.length === 1 ? 1 : request.messages.length === 3 ? 2 : 0;
  if (trial && hook && hook.round === round) {
    modelHooks.delete(trial);
    await hook.run();
  }
  return genericPolicy(request);
}

describe.skipIf(!reachable)("the example durable server, three processes, kill -9", () => {
  beforeAll(async () => {
    sim = await startSim({
      policy: scriptedModel,
      pacing: { tokensPerSecond: 300, firstTokenMs: 100, jitter: 0.2 },
    });
    external = await startExternalService();
    serverEnv = {
      DATABASE_URL,
      TABLE_PREFIX: prefix,
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_API_KEY: "scripted",
      EXTERNAL_URL: external.url,
      LEASE_TTL_MS: "5000",
      SHUTDOWN_GRACE_MS: "20000",
    };
    servers.push(...(await Promise.all([0, 1, 2].map(() => spawnServer(serverEnv)))));
    standby.push(spawnServer(serverEnv), spawnServer(serverEnv));
  }, 120_000);

  afterAll(async () => {
    const spares = await Promise.all(standby.map((spare) => spare.catch(() => undefined)));
    const all = [...servers, ...spares.filter((spare) => spare !== undefined)];
    await Promise.all(all.map((server) => stopServer(server)));
    await sim?.close();
    await external?.close();
    const { rows } = await admin.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE $1",
      [`${prefix.replace(/_/g, "\\_")}%`],
    );
    for (const { tablename } of rows) await admin.query(`DROP TABLE IF EXISTS "${tablename}"`);
    await admin.end();
  }, 60_000);

  it("answers bad input, unknown chats and routes with clear errors", async () => {
    const url = servers[0]?.url;
    const post = (path: string, body: string, type = "application/json") =>
      fetch(`${url}${path}`, { method: "POST", headers: { "content-type": type }, body });
    const codeOf = async (response: Response) => [
      response.status,
      ((await response.json()) as { error: { code: string } }).error.code,
    ];
    expect(await codeOf(await post("/chats/a/messages", "{"))).toEqual([400, "bad_json"]);
    expect(await codeOf(await post("/chats/a/messages", "{}"))).toEqual([400, "bad_message"]);
    expect(await codeOf(await post("/chats/a/messages", '{"text":"x"}', "text/plain"))).toEqual([
      400,
      "bad_content_type",
    ]);
    expect(await codeOf(await post("/chats/a%20b/messages", '{"text":"x"}'))).toEqual([
      400,
      "bad_chat_id",
    ]);
    expect(await codeOf(await fetch(`${url}/chats/nobody`))).toEqual([404, "unknown_chat"]);
    expect(await codeOf(await post("/chats/%E0%A4%A/messages", '{"text":"x"}'))).toEqual([
      400,
      "bad_chat_id",
    ]);
    expect(await codeOf(await fetch(`${url}/chats/nobody/events`))).toEqual([404, "unknown_chat"]);
    expect(await codeOf(await fetch(`${url}/elsewhere`))).toEqual([404, "not_found"]);
    expect(await codeOf(await fetch(`${url}/chats/a/messages`))).toEqual([
      405,
      "method_not_allowed",
    ]);
  });

  it(`${TRIALS} trials: one turn each, the table equals the conversation, no call twice, every call answered`, async () => {
    const landed: Record<string, number> = {};
    for (let t = 0; t < TRIALS; t++) {
      const kill = KILLS[t % KILLS.length] as Kill;
      const outcome = await runTrial(t, kill);
      landed[`${kill}: ${outcome}`] = (landed[`${kill}: ${outcome}`] ?? 0) + 1;
    }
    // Every external key was requested once, over all trials.
    for (const [key, count] of external.requests) expect(count, key).toBe(1);
    console.log("durable server trials:", landed);
  }, 600_000);

  it("stops gracefully on SIGTERM: the running turn finishes, the process exits 0", async () => {
    const chatId = "graceful-1";
    const server = servers[0] as ServerProcess;
    const text = `${chatId} via 0: call save_note {"text":"kept"} call notify {"message":"kept"}`;
    const response = await fetch(`${server.url}/chats/${chatId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    expect(response.status).toBe(202);
    const { turnId } = (await response.json()) as { turnId: string };
    let exited: Promise<number | null> | undefined;
    const read = await readEvents((servers[1] as ServerProcess).url, chatId, {
      lastEventId: `${turnId}:0`,
      onEvent: ({ event }) => {
        if (event.type === "tool-call" && !exited) exited = stopServer(server, "SIGTERM");
        return false;
      },
    });
    expect(await exited).toBe(0);
    await restart(0);
    const events = read.events.map((e) => e.event);
    expect(events.some((e) => e.type === "error")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "done", stopReason: "end_turn" });
    const { rows } = await admin.query<{ content: string }>(
      `SELECT content FROM ${prefix}messages WHERE conversation_id = $1 ORDER BY seq`,
      [chatId],
    );
    expect(rows.at(-1)?.content).toMatch(/^\[\{"type":"text","text":"Results: /);
    const { rows: notes } = await admin.query(`SELECT 1 FROM ${prefix}notes WHERE chat_id = $1`, [
      chatId,
    ]);
    expect(notes).toHaveLength(1);
  }, 60_000);

  it("cancels a turn from another process: its stream ends, every call is answered", async () => {
    const chatId = "cancel-1";
    const [a, b, c] = servers as [ServerProcess, ServerProcess, ServerProcess];
    let cancelling: Promise<Response> | undefined;
    // The cancel is asked while the external call is at the service.
    external.hold(chatId, async () => {
      cancelling = fetch(`${b.url}/chats/${chatId}/cancel`, { method: "POST" });
      await cancelling;
    });
    const text = `${chatId} via 0: call save_note {"text":"a"} call notify {"message":"b"}`;
    const response = await fetch(`${a.url}/chats/${chatId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    expect(response.status).toBe(202);
    const { turnId } = (await response.json()) as { turnId: string };
    const read = await readEvents(c.url, chatId, { lastEventId: `${turnId}:0` });
    const cancelled = await cancelling;
    expect(cancelled?.status).toBe(200);
    expect(await cancelled?.json()).toEqual({ chatId, cancelled: true });
    expect(read.ended).toBe(true);
    expect(read.events.at(-1)?.event.type).toBe("done");
    const chat = (await (await fetch(`${c.url}/chats/${chatId}`)).json()) as {
      running: boolean;
      messages: Message[];
    };
    expect(chat.running).toBe(false);
    assertValidConversation(chat.messages);
    const next = await postUntilAccepted(b.url, chatId, `${chatId} continues`);
    const end = await readEvents(b.url, chatId, { lastEventId: `${next}:0` });
    expect(end.events.at(-1)?.event).toMatchObject({ type: "done", stopReason: "end_turn" });
  }, 60_000);
});

/** What one trial's resumed reader was told of the turn's end: `done end_turn` or `crashed`. */
async function runTrial(t: number, kill: Kill): Promise<string> {
  const chatId = `trial-${t}`;
  const order = t % 2 === 0 ? ["save_note", "notify"] : ["notify", "save_note"];
  const directive = (tool: string) =>
    tool === "save_note"
      ? `call save_note {"text":"note of ${chatId}"}`
      : `call notify {"message":"hello from ${chatId}"}`;
  const textOf = (slot: number) => `${chatId} via ${slot}: ${order.map(directive).join(" ")}`;
  let victim: number | undefined;
  let victimKnown: (server: ServerProcess) => void = () => {};
  const runner = new Promise<ServerProcess>((resolve) => {
    victimKnown = resolve;
  });
  // Kills the process that runs the turn (once known), never the one that replaces it.
  const killVictim = async () => {
    await stopServer(await runner, "SIGKILL");
  };
  // Holds the round's conversation write (an uncommitted row at the seq it writes), so a kill
  // after the tools' records lands before that write.
  let blocker: pg.PoolClient | undefined;
  if (kill === "journal-held") {
    blocker = await admin.connect();
    await blocker.query("BEGIN");
    await blocker.query(`LOCK TABLE ${prefix}round_journal IN SHARE MODE`);
    external.hold(chatId, killVictim);
  }
  if (kill === "after-tools") {
    blocker = await admin.connect();
    await blocker.query("BEGIN");
    await blocker.query(
      `INSERT INTO ${prefix}messages (conversation_id, seq, role, content) VALUES ($1, 1, 'assistant', '[]')`,
      [chatId],
    );
  }
  if (kill === "before-tools") modelHooks.set(chatId, { round: 1, run: killVictim });
  if (kill === "next-round") modelHooks.set(chatId, { round: 2, run: killVictim });
  if (kill === "in-tool") external.hold(chatId, killVictim);

  // Three messages at once, one to each process: exactly one starts a turn.
  const responses = await Promise.all(
    servers.map((server, slot) =>
      fetch(`${server.url}/chats/${chatId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: textOf(slot) }),
      }),
    ),
  );
  const accepted = responses.flatMap((response, slot) => (response.status === 202 ? [slot] : []));
  expect(accepted, `${chatId}: statuses ${responses.map((r) => r.status)}`).toHaveLength(1);
  victim = accepted[0] as number;
  victimKnown(servers[victim] as ServerProcess);
  // Accepted (202) means stored: the message survives a kill the moment it was accepted.
  if (kill === "accepted") await killVictim();
  const { turnId } = (await (responses[victim] as Response).json()) as { turnId: string };
  for (const [slot, response] of responses.entries()) {
    if (slot === victim) continue;
    expect(response.status).toBe(409);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await response.json()) as { error: { code: string; retryAfterMs: number } };
    expect(body.error.code).toBe("turn_running");
    expect(body.error.retryAfterMs).toBeGreaterThan(0);
  }

  // A client reads the turn on the process that runs it...
  const toolResults = new Set<string>();
  const toolCalls = new Set<string>();
  let scheduled = false;
  const first = await readEvents((await runner).url, chatId, {
    lastEventId: `${turnId}:0`,
    onEvent: ({ event }) => {
      if (event.type === "tool-result") toolResults.add(event.callId);
      if (event.type === "tool-call") toolCalls.add(event.callId);
      // Both calls complete, their journal rows held: the process dies a moment later, unless
      // it sent the external call first (then it died at once, as the service received it).
      if (kill === "journal-held" && toolCalls.size === 2 && !scheduled) {
        scheduled = true;
        setTimeout(() => void killVictim(), 1_000);
      }
      // Without a kill the client leaves in the middle, to resume elsewhere.
      if (kill === "none") return event.type === "tool-call";
      if (kill === "after-tools" && toolResults.size === 2) void killVictim();
      return false;
    },
  });
  if (kill !== "none") {
    await once(await runner);
    await blocker?.query("ROLLBACK");
    blocker?.release();
  }
  // ...and resumes on another process with the last id it got.
  const other = servers[(victim + 1) % servers.length] as ServerProcess;
  const lastId = first.events.at(-1)?.id ?? `${turnId}:0`;
  const restarted = kill === "none" ? undefined : restart(victim);
  // It learns how the turn ended, with no further message (a dead process of this machine is
  // known gone at once; another machine's, once its lease expired).
  const rest = await readEvents(other.url, chatId, { lastEventId: lastId });
  // The chat goes on: a next message is accepted.
  const next = await postUntilAccepted(other.url, chatId, `${chatId} continues`);
  await restarted;
  const end = await readEvents(other.url, chatId, { lastEventId: `${next}:0` });
  expect(end.events.at(-1)?.event.type, `${chatId}: the next turn ends`).toBe("done");

  // The stream: the events read before and after the resume, numbered without gap or repeat,
  // ending with how the turn ended.
  const all = [...first.events, ...rest.events];
  expect(rest.ended).toBe(true);
  expect(
    all.map((e) => e.seq),
    chatId,
  ).toEqual(all.map((_, i) => i + 1));
  expect(all.every((e) => e.id.startsWith(`${turnId}:`))).toBe(true);
  const last = all.at(-1)?.event;
  expect(last?.type, `${chatId}: the resumed stream ends with done`).toBe("done");
  const crashed = all.some((e) => e.event.type === "error" && e.event.code === "turn_crashed");
  if (kill === "none") {
    expect(crashed).toBe(false);
    expect(last?.type === "done" && last.stopReason).toBe("end_turn");
  } else {
    expect(crashed, `${chatId}: a killed turn is reported crashed`).toBe(true);
  }

  if (kill === "before-tools") {
    expect(
      all.filter((e) => e.event.type === "tool-call"),
      chatId,
    ).toEqual([]);
  }
  await checkChat(chatId, kill, textOf(victim));
  return crashed ? "crashed" : `done ${last?.type === "done" ? last.stopReason : "?"}`;
}

/** Waits for a child's exit when it has not happened yet. */
async function once(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  await new Promise((resolve) => server.child.once("exit", resolve));
}

/** Puts a standby process in the killed one's place and starts another standby. */
async function restart(slot: number): Promise<void> {
  const next = standby.shift() as Promise<ServerProcess>;
  standby.push(spawnServer(serverEnv));
  servers[slot] = await next;
}

/** Posts a message, waiting out 409s (as a client honouring Retry-After would); the turn's id. */
async function postUntilAccepted(url: string, chatId: string, text: string): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const response = await fetch(`${url}/chats/${chatId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    if (response.status === 202) return ((await response.json()) as { turnId: string }).turnId;
    expect(response.status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${chatId}: the next message was refused for too long`);
}

const KEY = /idempotency key (ovk_[A-Za-z0-9_-]+)/;

/** The chat's conversation, notes and notifications agree. */
async function checkChat(chatId: string, kill: Kill, winnerText: string): Promise<void> {
  const { rows: turns } = await admin.query(
    `SELECT turn_id FROM ${prefix}turns WHERE conversation_id = $1`,
    [chatId],
  );
  expect(turns, `${chatId}: one turn for the trial, one for the next message`).toHaveLength(2);
  const { rows } = await admin.query<{ role: Message["role"]; content: string }>(
    `SELECT role, content FROM ${prefix}messages WHERE conversation_id = $1 ORDER BY seq`,
    [chatId],
  );
  const messages = rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) }));
  assertValidConversation(messages as Message[]);
  const texts = JSON.stringify(messages);
  expect(texts).toContain(JSON.stringify(winnerText).slice(1, -1));
  expect(texts.match(/ via \d: /g), `${chatId}: only the accepted message is stored`).toHaveLength(
    1,
  );

  // Every tool_use has exactly one tool_result.
  const uses = new Map<string, string>();
  const results = new Map<string, string>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type === "tool_use") uses.set(block.id as string, block.name as string);
      if (block.type === "tool_result") {
        const id = block.tool_use_id as string;
        expect(results.has(id), `${chatId}: one result for ${id}`).toBe(false);
        const content = block.content;
        results.set(id, typeof content === "string" ? content : JSON.stringify(content));
      }
    }
  }
  expect([...results.keys()].sort()).toEqual([...uses.keys()].sort());

  // The notes table holds exactly the notes the conversation says were saved.
  const { rows: notes } = await admin.query<{ idempotency_key: string }>(
    `SELECT idempotency_key FROM ${prefix}notes WHERE chat_id = $1`,
    [chatId],
  );
  const saved: string[] = [];
  const notifiedOrUnknown: string[] = [];
  const sent: string[] = [];
  for (const [id, name] of uses) {
    const text = results.get(id) as string;
    const key = KEY.exec(text)?.[1];
    if (name === "save_note") {
      if (text.startsWith("Saved note ")) saved.push(key as string);
      else expect(text, chatId).toMatch(/^save_note was not run: the server stopped before it ran/);
    } else {
      expect(key, `${chatId}: a notify result names its key: ${text}`).toBeDefined();
      notifiedOrUnknown.push(key as string);
      if (text.startsWith("Notification ")) sent.push(key as string);
      else expect(text, chatId).toMatch(/^notify's outcome is unknown \(idempotency key ovk_/);
    }
  }
  expect(notes.map((note) => note.idempotency_key).sort(), `${chatId}: notes`).toEqual(
    saved.sort(),
  );
  // The service got every notification the conversation says was sent, and nothing the
  // conversation does not name; each key once.
  const received = [...(external.keysByChat.get(chatId) ?? [])];
  for (const key of sent) expect(received, `${chatId}: sent ${key}`).toContain(key);
  for (const key of received) expect(notifiedOrUnknown, `${chatId}: named ${key}`).toContain(key);
  for (const key of received) expect(external.requests.get(key)).toBe(1);

  // Where the kill landed, the conversation says so. Its first round is the trial's (unless the
  // kill came before the model answered: then the next turn answers the message first).
  if (kill === "before-tools" || kill === "journal-held" || kill === "accepted") return;
  const round = ((messages[1]?.content ?? []) as Record<string, unknown>[]).filter(
    (block) => block.type === "tool_use",
  );
  const said = (name: string) =>
    round.filter((block) => block.name === name).map((block) => results.get(block.id as string));
  if (kill === "in-tool") {
    // The call cut off has no known outcome; the other one, if it was complete, ran or not.
    expect(said("notify"), chatId).toEqual([expect.stringMatching(/^notify's outcome is unknown/)]);
    return;
  }
  expect(said("save_note"), chatId).toEqual([expect.stringMatching(/^Saved note /)]);
  expect(said("notify"), chatId).toEqual([expect.stringMatching(/^Notification /)]);
}

export type { ReadEvent };
