/**
 * Structured output: the turn's final answer as an object of a zod schema or a JSON Schema. The loop sends the
 * schema with every round (`ModelRequest.output`); each adapter asks its provider for it the way
 * the provider offers (a JSON schema response format, or a forced answer tool whose input streams
 * as the answer's text: see `outputThroughTool`), so the final assistant message's text is the
 * JSON. Here that text is read back and validated.
 */

import { z } from "zod";
import { OverlapError } from "../errors.js";
import type { Message } from "../stream/message.js";
import {
  type JsonObject,
  type JsonObjectSchema,
  jsonSchemaValidator,
} from "../tools/define-json-schema-tool.js";
import type { ToolInputSchema } from "../tools/define-tool.js";
import { isZodSchema } from "../tools/tool-definition-checks.js";

/**
 * The schemas a turn's output may have: a zod object (optionally piped into a transform), or a
 * JSON Schema of an object, checked with ajv as JSON Schema tools' inputs are.
 */
export type OutputSchema = ToolInputSchema | JsonObjectSchema;

/** The type of a turn's `output` for the schema given (unknown when none was). */
export type OutputOf<S> = [S] extends [never]
  ? unknown
  : S extends z.ZodType
    ? z.output<S>
    : S extends JsonObjectSchema
      ? JsonObject
      : unknown;

/** What a turn with `output` needs: the format its requests carry and the answer's validator. */
export interface TurnOutput {
  format: ModelOutputFormat;
  /** Validates the parsed answer (a JSON Schema is held by an ajv-backed zod schema). */
  validator: z.ZodType;
}

/** What a request asks of the model's answer: a JSON object of this schema. */
export interface ModelOutputFormat {
  /** A name for the format (`final_answer`): the response format's or the answer tool's. */
  name: string;
  /** What the answer is, for the model. */
  description: string;
  /** The JSON Schema (an object schema) the answer's JSON must follow. */
  schema: Record<string, unknown>;
}

/**
 * The name of the tool that carries the answer on providers without a JSON schema mode
 * (Anthropic, Bedrock); no tool of the executor may have it while a turn asks for output.
 */
export const OUTPUT_TOOL_NAME = "final_answer";

/**
 * The format a request carries for a schema, and its validator; throws `invalid_tool_definition`
 * for a schema that is not of an object or cannot be compiled.
 */
export function turnOutputOf(schema: OutputSchema): TurnOutput {
  if (!isZodSchema(schema)) {
    const json = schema as JsonObjectSchema;
    if (typeof json !== "object" || json === null || json.type !== "object") {
      throw new OverlapError(
        "invalid_tool_definition",
        'The output JSON Schema must be an object schema ({ type: "object", properties: {...} }).',
      );
    }
    const validator = jsonSchemaValidator("output", json);
    const { $schema: _dialect, ...rest } = json;
    return { format: formatOf(structuredClone(rest)), validator };
  }
  return { format: outputFormatOf(schema as ToolInputSchema), validator: schema as z.ZodType };
}

/** The format a request carries for a zod schema; throws `invalid_tool_definition` for an unusable one. */
export function outputFormatOf(schema: ToolInputSchema): ModelOutputFormat {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new OverlapError(
      "invalid_tool_definition",
      `The output schema cannot be turned into JSON Schema (${why}); simplify it.`,
      { cause: error },
    );
  }
  delete json.$schema;
  if (json.type !== "object") {
    throw new OverlapError(
      "invalid_tool_definition",
      "The output schema must be a zod object schema (z.object({...})).",
    );
  }
  return formatOf(json);
}

function formatOf(schema: Record<string, unknown>): ModelOutputFormat {
  return {
    name: OUTPUT_TOOL_NAME,
    description: "The final answer, as a JSON object of this schema.",
    schema,
  };
}

/** The validated output of a turn, or the `output_invalid` error saying why there is none. */
export type OutputReading<O> = { output: O } | { error: OverlapError };

/**
 * Reads the final answer of a turn from its last assistant message: its last non-blank text block (where
 * an answer tool's input lands), else all its text, as JSON (a Markdown code fence around it is
 * allowed), validated by `schema`. Failure is `output_invalid` with the raw text and the issues.
 */
export function readOutput<S extends z.ZodType>(
  messages: readonly Message[],
  schema: S,
): OutputReading<z.output<S>> {
  const last = messages.at(-1);
  // Some providers end with an empty text part (Gemini's signature carrier): not the answer.
  const texts =
    last?.role === "assistant"
      ? last.content.flatMap((block) =>
          block.type === "text" && block.text.trim() !== "" ? [block.text] : [],
        )
      : [];
  const candidates = [...new Set([texts.at(-1), texts.join("")])].filter(
    (text): text is string => text !== undefined && text.trim() !== "",
  );
  let issues: unknown = "The model's last message holds no text.";
  for (const text of candidates) {
    const parsed = parseJson(text);
    if (!parsed.ok) {
      issues = "The model's answer is not JSON.";
      continue;
    }
    const checked = schema.safeParse(parsed.value);
    if (checked.success) return { output: checked.data as z.output<S> };
    issues = checked.error.issues;
  }
  const text = texts.join("");
  return {
    error: new OverlapError(
      "output_invalid",
      "The model's final answer does not match the output schema.",
      { details: { text, issues } },
    ),
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced?.[1] ?? text) };
  } catch {
    return { ok: false };
  }
}
