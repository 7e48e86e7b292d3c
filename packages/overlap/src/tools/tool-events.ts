/**
 * A turn's AgentEvents typed per tool: over an executor of tools defined with `defineTool`, the
 * `tool-call`, `tool-result` and `ui` events are a union discriminated by `name`, each with its
 * tool's `input` and `output` types. Types only: the events are the same objects at run time.
 */

import type { z } from "zod";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { AnyTool, Tool } from "./define-tool.js";

type Variant<K extends AgentEvent["type"]> = Extract<AgentEvent, { type: K }>;

/** The per-tool events of one tool (none when its name is not a literal). */
type EventsOfTool<T> =
  // biome-ignore lint/suspicious/noExplicitAny: any context.
  T extends Tool<infer S, any, infer O, infer N>
    ? string extends N
      ? never
      :
          | (Omit<Variant<"tool-call">, "name" | "input"> & {
              name: N;
              /** The model's arguments as parsed (`{}` when `dispatch` is `invalid`); checked against the schema when the call runs. */
              input: z.input<S>;
            })
          | (Omit<Variant<"tool-result">, "name" | "output"> & {
              name: N;
              /** What the tool returned as data (see {@link ToolOutcome.output}). */
              output?: O;
            })
          | (Omit<Variant<"ui">, "name"> & { name: N })
    : never;

/** True when every tool of `T` has a literal name (defined with `defineTool` and a literal). */
type AllNamed<T> = [T] extends [{ name: infer N }] ? (string extends N ? false : true) : false;

/**
 * The AgentEvents of a turn whose executor holds the tools `T`: the `tool-call`, `tool-result`
 * and `ui` events discriminated by `name` with each tool's types; plain {@link AgentEvent}s when
 * the tools are not known by name (an executor typed `ToolExecutor<C>`, JSON Schema or MCP tools).
 */
export type AgentEventOf<T extends AnyTool> =
  AllNamed<T> extends true
    ? Exclude<AgentEvent, { type: "tool-call" | "tool-result" | "ui" }> | EventsOfTool<T>
    : AgentEvent;

/** A sink of a turn's events typed per tool (see {@link AgentEventOf}). */
export type AgentEventSinkOf<T extends AnyTool> = (event: AgentEventOf<T>) => void;
