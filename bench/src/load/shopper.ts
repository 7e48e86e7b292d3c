/**
 * One shopper over real HTTP (node:http, a socket of its own per request): creates a session,
 * sends a message and reads the turn's SSE stream to its end. Each shopper may use its own local
 * address (127.0.0.x), as shoppers on their own machines would, so the per-address session limit
 * applies per shopper and not to the whole benchmark.
 */

import { request as httpRequest, type IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { SseDecoder } from "../../../packages/overlap/src/sse/sse-decoder.js";
import { dispatchDelays, type RoundEndTimings, type TurnRecord } from "./load-figures.js";

/** Where a shopper connects from and to. */
export interface ShopperEndpoint {
  port: number;
  /** The local address to connect from (any of 127.0.0.0/8 on Linux). */
  localAddress: string;
}

/** A session as `POST /api/sessions` returns it. */
export interface ShopperSession {
  id: string;
  token: string;
}

function send(
  endpoint: ShopperEndpoint,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: endpoint.port,
        localAddress: endpoint.localAddress,
        method,
        path,
        headers:
          body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
        agent: false,
      },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function readText(response: IncomingMessage): Promise<string> {
  let text = "";
  response.setEncoding("utf8");
  for await (const chunk of response) text += chunk;
  return text;
}

/** Creates a shopper session. */
export async function createSession(endpoint: ShopperEndpoint): Promise<ShopperSession> {
  const response = await send(endpoint, "POST", "/api/sessions", {});
  const text = await readText(response);
  if (response.statusCode !== 201) {
    throw new Error(`POST /api/sessions: ${response.statusCode} ${text.slice(0, 200)}`);
  }
  return JSON.parse(text) as ShopperSession;
}

/** Sends `text` and reads the turn's stream to its end; never throws (failures are records). */
export async function runTurn(
  endpoint: ShopperEndpoint,
  session: ShopperSession,
  text: string,
): Promise<TurnRecord> {
  const startedAt = performance.now();
  let events = 0;
  let done = false;
  let error: string | undefined;
  const delays: number[] = [];
  let running: { callId: string; atMs: number }[] = [];
  try {
    const response = await send(
      endpoint,
      "POST",
      `/api/sessions/${session.id}/messages`,
      { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
      JSON.stringify({ text }),
    );
    if (response.statusCode !== 200) {
      const body = await readText(response);
      throw new Error(`POST messages: ${response.statusCode} ${body.slice(0, 200)}`);
    }
    // Only the events the figures need are parsed; the rest are counted.
    const decoder = new SseDecoder((frame) => {
      if (frame.event === undefined) return;
      events++;
      switch (frame.event) {
        case "tool-status": {
          const event = JSON.parse(frame.data) as { callId: string; status: string; atMs: number };
          if (event.status === "running") running.push({ callId: event.callId, atMs: event.atMs });
          break;
        }
        case "round-end": {
          const event = JSON.parse(frame.data) as { timings: RoundEndTimings };
          delays.push(...dispatchDelays(running, event.timings));
          running = [];
          break;
        }
        case "done": {
          const event = JSON.parse(frame.data) as { stopReason: string };
          if (event.stopReason === "end_turn") done = true;
          else error ??= `done with ${event.stopReason}`;
          break;
        }
        case "error": {
          const event = JSON.parse(frame.data) as { code: string; message: string };
          error ??= `error event ${event.code}: ${event.message}`;
          break;
        }
      }
    });
    response.setEncoding("utf8");
    for await (const chunk of response) decoder.push(chunk as string);
    decoder.end();
    if (!done) error ??= "the stream ended without done";
  } catch (caught) {
    error ??= caught instanceof Error ? caught.message : String(caught);
  }
  const latencyMs = performance.now() - startedAt;
  return error === undefined
    ? { ok: true, latencyMs, events, dispatchDelaysMs: delays }
    : { ok: false, error, latencyMs, events, dispatchDelaysMs: delays };
}
