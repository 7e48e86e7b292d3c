/**
 * Which of the provider's own tools a request offers the model, whatever API it came through, so
 * a policy can search the web only when the client asked for it, as a real model can. Pure.
 */

import type { SimProviderTool, SimRequest } from "./sim-request.js";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The kind of one tool entry of a request's tool list, or undefined for a client tool. */
function kindOf(api: SimRequest["api"], tool: Json): SimProviderTool | undefined {
  const type = typeof tool.type === "string" ? tool.type : "";
  switch (api) {
    case "anthropic":
      // `web_search_20250305`, `code_execution_20250825`...: versioned types, no input_schema.
      if (type.startsWith("web_search_")) return "web_search";
      if (type.startsWith("code_execution_")) return "code_execution";
      return undefined;
    case "responses":
      if (type === "web_search" || type.startsWith("web_search_preview")) return "web_search";
      if (type === "code_interpreter") return "code_execution";
      return undefined;
    case "gemini":
      if ("googleSearch" in tool || "google_search" in tool || "googleSearchRetrieval" in tool) {
        return "web_search";
      }
      if ("codeExecution" in tool || "code_execution" in tool) return "code_execution";
      return undefined;
    case "bedrock": {
      const name = isObject(tool.systemTool) ? tool.systemTool.name : undefined;
      if (name === "nova_grounding") return "web_search";
      if (name === "nova_code_interpreter") return "code_execution";
      return undefined;
    }
    case "openai":
      return undefined;
  }
}

/** The provider tools a (validated) request body offers, each kind once, in request order. */
export function providerToolsOffered(
  api: SimRequest["api"],
  body: Readonly<Record<string, unknown>>,
): SimProviderTool[] {
  const list = api === "bedrock" && isObject(body.toolConfig) ? body.toolConfig.tools : body.tools;
  const kinds = (Array.isArray(list) ? list : [])
    .filter(isObject)
    .flatMap((tool) => kindOf(api, tool) ?? []);
  // Chat Completions searches with the search models' `web_search_options`, not a tool.
  if (api === "openai" && isObject(body.web_search_options)) kinds.push("web_search");
  return [...new Set(kinds)];
}
