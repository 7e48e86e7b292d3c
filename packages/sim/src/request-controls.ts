/**
 * What a request asks of the answer's form, whatever API it came through: the tool choice and a
 * JSON schema the text must follow, so a policy answers as a real model must (a forced tool is
 * called, `none` calls nothing, JSON mode writes JSON). Pure.
 */

import type { SimRequest, SimToolChoice } from "./sim-request.js";

/** The tool choice and the JSON output schema of a request. */
export interface SimRequestControls {
  /** Absent: the API's default, `auto`. */
  toolChoice?: SimToolChoice;
  /**
   * The JSON Schema the answer's text must follow (Chat `response_format`, Responses
   * `text.format`, Gemini `responseMimeType: application/json` with its schema, Messages API
   * `output_config.format`); `{}` for JSON without a schema. Absent: free text.
   */
  outputSchema?: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The controls of a (validated) request body in the API's own fields. */
export function requestControls(
  api: SimRequest["api"],
  body: Readonly<Record<string, unknown>>,
): SimRequestControls {
  const out: SimRequestControls = {};
  const toolChoice = toolChoiceOf(api, body);
  if (toolChoice !== undefined) out.toolChoice = toolChoice;
  const outputSchema = outputSchemaOf(api, body);
  if (outputSchema !== undefined) out.outputSchema = outputSchema;
  return out;
}

function toolChoiceOf(api: SimRequest["api"], body: Json): SimToolChoice | undefined {
  switch (api) {
    case "anthropic": {
      const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
      if (choice?.type === "tool" && typeof choice.name === "string") return { name: choice.name };
      if (choice?.type === "any") return "required";
      return choice?.type === "none" ? "none" : choice?.type === "auto" ? "auto" : undefined;
    }
    case "openai":
    case "responses": {
      const choice = body.tool_choice;
      if (choice === "auto" || choice === "none" || choice === "required") return choice;
      if (!isObject(choice)) return undefined;
      const fn = isObject(choice.function) ? choice.function : choice;
      return typeof fn.name === "string" ? { name: fn.name } : undefined;
    }
    case "gemini": {
      const config = isObject(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
      if (!isObject(config)) return undefined;
      const names = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
      if (config.mode === "ANY") {
        return names.length === 1 && typeof names[0] === "string" ? { name: names[0] } : "required";
      }
      return config.mode === "NONE" ? "none" : config.mode === "AUTO" ? "auto" : undefined;
    }
    case "bedrock": {
      const choice = isObject(body.toolConfig) ? body.toolConfig.toolChoice : undefined;
      if (!isObject(choice)) return undefined;
      if (isObject(choice.tool) && typeof choice.tool.name === "string") {
        return { name: choice.tool.name };
      }
      return isObject(choice.any) ? "required" : isObject(choice.auto) ? "auto" : undefined;
    }
  }
}

function outputSchemaOf(api: SimRequest["api"], body: Json): Json | undefined {
  switch (api) {
    case "anthropic": {
      const format = isObject(body.output_config) ? body.output_config.format : undefined;
      return isObject(format) && format.type === "json_schema"
        ? schemaOf(format.schema)
        : undefined;
    }
    case "openai": {
      const format = isObject(body.response_format) ? body.response_format : undefined;
      if (format?.type === "json_object") return {};
      if (format?.type !== "json_schema") return undefined;
      return schemaOf(isObject(format.json_schema) ? format.json_schema.schema : undefined);
    }
    case "responses": {
      const format = isObject(body.text) ? body.text.format : undefined;
      if (!isObject(format)) return undefined;
      if (format.type === "json_object") return {};
      return format.type === "json_schema" ? schemaOf(format.schema) : undefined;
    }
    case "gemini": {
      const config = isObject(body.generationConfig) ? body.generationConfig : {};
      if (config.responseMimeType !== "application/json") return undefined;
      return schemaOf(config.responseJsonSchema ?? config.responseSchema);
    }
    case "bedrock":
      return undefined;
  }
}

function schemaOf(value: unknown): Json {
  return isObject(value) ? value : {};
}
