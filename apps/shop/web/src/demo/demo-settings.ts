/**
 * The demo drawer's settings as the server keeps them (`GET/PUT /api/sessions/:id/demo`), read
 * defensively, and a small store the drawer, its header button and the timeline share: whether
 * the drawer is open, the session's latest settings, and which calls a simulated latency delayed.
 */

import { errorFromResponse, NETWORK_ERROR } from "overlap-runtime/client";
import { useSyncExternalStore } from "react";
import { ApiError } from "../api/http";
import { type Credentials, isRecord } from "../api/types";
import { SHOPPER, sessionPath } from "../session/endpoints";

export type DemoService = "search" | "inventory" | "cart" | "orders";
export type DemoFault = "drop" | "error" | "invalid-json" | "max-tokens";

export const DEMO_SERVICES: readonly DemoService[] = ["search", "inventory", "cart", "orders"];
export const DEMO_FAULTS: readonly DemoFault[] = ["drop", "error", "invalid-json", "max-tokens"];

/** A call a simulated latency delayed. */
export interface SimulatedCall {
  /** The services whose simulated latency the call waited. */
  services: DemoService[];
  /** Their sum. */
  ms: number;
}

/** One session's demo settings and what they did, as the server answers them. */
export interface DemoState {
  settings: {
    tokensPerSecond: number | null;
    serviceLatencyMs: Record<DemoService, number>;
    breakNextReply: DemoFault | null;
  };
  lastBreak: { fault: DemoFault; at: string } | null;
  simulated: Readonly<Record<string, SimulatedCall>>;
  /** The model obeys speed and faults (the built-in scripted model). */
  modelControls: boolean;
  limits: { tokensPerSecond: { min: number; max: number }; serviceLatencyMs: { max: number } };
}

/** What a `PUT` may change (fields left out keep their value). */
export interface DemoUpdate {
  tokensPerSecond?: number | null;
  serviceLatencyMs?: Partial<Record<DemoService, number>>;
  breakNextReply?: DemoFault | null;
}

const isService = (v: unknown): v is DemoService => DEMO_SERVICES.includes(v as DemoService);
const isFault = (v: unknown): v is DemoFault => DEMO_FAULTS.includes(v as DemoFault);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

/** The server's answer, or `undefined` for a shape this page does not know. */
export function readDemoState(value: unknown): DemoState | undefined {
  if (!isRecord(value) || !isRecord(value.settings) || !isRecord(value.limits)) return undefined;
  const { settings, limits } = value;
  const latency = settings.serviceLatencyMs;
  if (!isRecord(latency) || !DEMO_SERVICES.every((s) => isCount(latency[s]))) return undefined;
  const tps = settings.tokensPerSecond;
  if (tps !== null && !isCount(tps)) return undefined;
  const fault = settings.breakNextReply;
  if (fault !== null && !isFault(fault)) return undefined;
  const simulated: Record<string, SimulatedCall> = {};
  if (isRecord(value.simulated)) {
    for (const [callId, call] of Object.entries(value.simulated)) {
      const services = isRecord(call) && Array.isArray(call.services) ? call.services : [];
      if (isRecord(call) && services.every(isService) && isCount(call.ms)) {
        simulated[callId] = { services: services as DemoService[], ms: call.ms };
      }
    }
  }
  const last = value.lastBreak;
  const tpsLimits = isRecord(limits.tokensPerSecond) ? limits.tokensPerSecond : {};
  const latencyLimits = isRecord(limits.serviceLatencyMs) ? limits.serviceLatencyMs : {};
  return {
    settings: {
      tokensPerSecond: tps,
      serviceLatencyMs: Object.fromEntries(
        DEMO_SERVICES.map((s) => [s, latency[s] as number]),
      ) as Record<DemoService, number>,
      breakNextReply: fault,
    },
    lastBreak:
      isRecord(last) && isFault(last.fault) && typeof last.at === "string"
        ? { fault: last.fault, at: last.at }
        : null,
    simulated,
    modelControls: value.modelControls === true,
    limits: {
      tokensPerSecond: {
        min: isCount(tpsLimits.min) ? tpsLimits.min : 5,
        max: isCount(tpsLimits.max) ? tpsLimits.max : 1000,
      },
      serviceLatencyMs: { max: isCount(latencyLimits.max) ? latencyLimits.max : 5000 },
    },
  };
}

/**
 * Reads (`update` undefined) or changes the session's demo settings.
 * @throws ApiError with a message for people.
 */
export async function demoRequest(
  credentials: Credentials,
  update?: DemoUpdate,
  signal?: AbortSignal,
): Promise<DemoState> {
  let response: Response;
  try {
    response = await fetch(sessionPath(SHOPPER, credentials.id, "demo"), {
      method: update ? "PUT" : "GET",
      headers: {
        accept: "application/json",
        authorization: `Bearer ${credentials.token}`,
        ...(update ? { "content-type": "application/json" } : {}),
      },
      ...(update ? { body: JSON.stringify(update) } : {}),
      ...(signal ? { signal } : {}),
      cache: "no-store",
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, NETWORK_ERROR.code, NETWORK_ERROR.message);
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    throw new ApiError(response.status, error.code, error.message);
  }
  const state = readDemoState(await response.json().catch(() => undefined));
  if (!state) {
    throw new ApiError(
      response.status,
      "unexpected_answer",
      "The server's answer was not understood.",
    );
  }
  return state;
}

/** What the drawer, its button and the timeline share. */
interface DemoShared {
  open: boolean;
  state: DemoState | undefined;
}

let shared: DemoShared = { open: false, state: undefined };
const listeners = new Set<() => void>();

function set(next: Partial<DemoShared>): void {
  shared = { ...shared, ...next };
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The shared demo state (re-renders on change). */
export function useDemoShared(): DemoShared {
  return useSyncExternalStore(subscribe, () => shared);
}

/** Opens or closes the drawer. */
export function setDemoOpen(open: boolean): void {
  if (shared.open !== open) set({ open });
}

/** Keeps the session's latest demo state (the drawer loads it). */
export function setDemoState(state: DemoState | undefined): void {
  set({ state });
}
