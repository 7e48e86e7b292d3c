/**
 * Which model the shop talks to (B7, B8): Claude when `ANTHROPIC_API_KEY` is set, an
 * OpenAI-compatible server when `OPENAI_BASE_URL` (or `OPENAI_API_KEY`) is set, otherwise the
 * embedded scripted model, started in-process and reached over HTTP through the very same
 * Anthropic adapter, so the code path is the one a real key would take.
 */

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ModelClient } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { openaiChatModel } from "overlap-runtime/openai";
import { type Pacing, type SimPolicy, startSim } from "overlap-sim";

/** The model the shop uses, and how to describe it honestly to users. */
export interface ShopModel {
  model: ModelClient;
  /** What the UI shows: the model name, e.g. "claude-sonnet-4-5" or "scripted-shop". */
  label: string;
  provider: "anthropic" | "openai" | "scripted";
  /** True for the embedded scripted model: the UI shows a badge saying so. */
  scripted: boolean;
  /** Stops the embedded server, if any. */
  close(): Promise<void>;
}

/** Options of {@link modelFromEnv}. */
export interface ModelFromEnvOptions {
  env?: NodeJS.ProcessEnv;
  /** The scripted model's policy (the shop's own). */
  policy: SimPolicy;
  /** The scripted model's pacing; by default it paces like a real model. */
  pacing?: Partial<Pacing>;
}

/** Picks and opens the model from the environment. */
export async function modelFromEnv(options: ModelFromEnvOptions): Promise<ShopModel> {
  const env = options.env ?? process.env;
  if (env.ANTHROPIC_API_KEY) {
    const model = env.MODEL ?? "claude-sonnet-4-5";
    return {
      model: anthropicModel({
        client: new Anthropic({
          apiKey: env.ANTHROPIC_API_KEY,
          baseURL: env.ANTHROPIC_BASE_URL ?? null,
        }),
        model,
      }),
      label: model,
      provider: "anthropic",
      scripted: false,
      close: async () => {},
    };
  }
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    const model = env.MODEL ?? "gpt-4o-mini";
    const client = new OpenAI({
      apiKey: env.OPENAI_API_KEY ?? "not-needed",
      baseURL: env.OPENAI_BASE_URL ?? null,
    });
    return {
      model: openaiChatModel({ client, model }),
      label: model,
      provider: "openai",
      scripted: false,
      close: async () => {},
    };
  }
  const sim = await startSim({
    policy: options.policy,
    ...(options.pacing ? { pacing: options.pacing } : {}),
  });
  const label = "scripted-shop";
  return {
    // maxRetries 0: the embedded server is local; a failure is a fault to show, not to hide.
    model: anthropicModel({
      client: new Anthropic({ apiKey: "scripted", baseURL: sim.url, maxRetries: 0 }),
      model: label,
    }),
    label,
    provider: "scripted",
    scripted: true,
    close: () => sim.close(),
  };
}
