/**
 * The demo drawer's settings of a shopper session: `GET` and `PUT
 * /api/sessions/:id/demo`, with the session's token. The model's speed and "break the next reply"
 * need the embedded scripted model (`modelControls`); with a real model a `PUT` of either is a
 * 400 that says so, and only the simulated service latency applies.
 */

import type { Hono } from "hono";
import type { ShopStore } from "../db/shop-store.js";
import type { DemoBook, DemoState } from "../demo/demo-book.js";
import {
  DEMO_FAULTS,
  DEMO_SERVICES,
  DemoUpdate,
  MAX_SERVICE_LATENCY_MS,
  MAX_TOKENS_PER_SECOND,
  MIN_TOKENS_PER_SECOND,
  needsModelControls,
} from "../demo/demo-settings.js";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { readJson } from "./read-json.js";
import { requireSession } from "./require-session.js";

/** What `GET` and `PUT` answer. */
export interface DemoAnswer extends DemoState {
  /** True when the model's speed and faults can be set (the embedded scripted model). */
  modelControls: boolean;
  /** The ranges the values must lie in, for the drawer's controls. */
  limits: {
    tokensPerSecond: { min: number; max: number };
    serviceLatencyMs: { max: number };
    services: readonly string[];
    faults: readonly string[];
  };
}

/** Registers the routes. */
export function registerDemoRoutes(
  app: Hono<AppEnv>,
  deps: { store: ShopStore; book: DemoBook; modelControls: boolean },
): void {
  const { book, modelControls } = deps;
  const auth = requireSession(deps.store, "shopper");
  const path = "/api/sessions/:id/demo";
  const answer = (state: DemoState): DemoAnswer => ({
    ...state,
    modelControls,
    limits: {
      tokensPerSecond: { min: MIN_TOKENS_PER_SECOND, max: MAX_TOKENS_PER_SECOND },
      serviceLatencyMs: { max: MAX_SERVICE_LATENCY_MS },
      services: DEMO_SERVICES,
      faults: DEMO_FAULTS,
    },
  });

  app.get(path, auth, (c) => c.json(answer(book.state(c.get("session").id))));

  app.put(path, auth, async (c) => {
    const update = await readJson(c, DemoUpdate);
    if (!modelControls && needsModelControls(update)) {
      throw new HttpError(
        400,
        "scripted_model_only",
        "The model's speed and 'break the next reply' work only with the built-in scripted model; this server talks to a real model. The simulated service latency can still be set.",
      );
    }
    return c.json(answer(book.update(c.get("session").id, update)));
  });
}
