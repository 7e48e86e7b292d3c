/**
 * The local declarations of the AI SDK's specification against the installed `@ai-sdk/provider`:
 * a provider's model, stream parts and options are accepted where overlap takes them, and the
 * prompt and tools overlap builds are the specification's, so a model of any provider package
 * receives them as its own.
 */

import type * as Spec from "@ai-sdk/provider";
import { describe, expectTypeOf, it } from "vitest";
import type * as Local from "./language-model-v3.js";

describe("the local LanguageModelV3 declarations", () => {
  it("accept the specification's model, stream parts, usage and finish reasons", () => {
    expectTypeOf<Spec.LanguageModelV3>().toExtend<Local.LanguageModelV3>();
    expectTypeOf<Spec.LanguageModelV3StreamPart>().toExtend<Local.LanguageModelV3StreamPart>();
    expectTypeOf<Spec.LanguageModelV3StreamResult>().toExtend<Local.LanguageModelV3StreamResult>();
    expectTypeOf<Spec.LanguageModelV3Usage>().toExtend<Local.LanguageModelV3Usage>();
    expectTypeOf<Spec.LanguageModelV3FinishReason>().toExtend<Local.LanguageModelV3FinishReason>();
    expectTypeOf<Spec.SharedV3ProviderMetadata>().toExtend<Local.SharedV3ProviderMetadata>();
    expectTypeOf<Spec.LanguageModelV3Prompt>().toExtend<Local.LanguageModelV3Prompt>();
    expectTypeOf<Spec.LanguageModelV3CallOptions>().toExtend<Local.LanguageModelV3CallOptions>();
  });

  it("build what the specification takes: the prompt, its parts, the tools, the call options", () => {
    expectTypeOf<Local.LanguageModelV3Prompt>().toExtend<Spec.LanguageModelV3Prompt>();
    expectTypeOf<Local.LanguageModelV3ToolResultOutput>().toExtend<Spec.LanguageModelV3ToolResultOutput>();
    expectTypeOf<Local.LanguageModelV3FunctionTool>().toExtend<Spec.LanguageModelV3FunctionTool>();
    expectTypeOf<Local.LanguageModelV3CallOptions>().toExtend<Spec.LanguageModelV3CallOptions>();
  });
});
