/**
 * Structured output for providers without a JSON schema mode (Anthropic, Bedrock): the answer is
 * asked for as the input of a tool (`final_answer`, its input schema the output schema) that the
 * model is made to call, and that call comes back as text. The conversation then holds the
 * answer as a plain text block (the JSON), never as a call that would need a result, and the
 * JSON streams as text deltas like any answer.
 */

import type { ModelClient, ModelRequest } from "../agent/model-client.js";
import type { ToolChoice } from "../agent/tool-choice.js";
import type { StreamEvent } from "../stream/stream-event.js";

/** Options of {@link outputThroughTool}. */
export interface OutputThroughToolOptions {
  /**
   * Whether the provider may be made to call a tool this request. False (e.g. Claude with
   * extended thinking, which accepts only `auto`) leaves the choice to the model: the answer
   * tool is offered and described, but the model may still answer in text.
   */
  mayForce?: (request: ModelRequest) => boolean;
}

/**
 * A client that answers a request with `output` through an answer tool: the tool is added after
 * the request's tools and the tool choice set (the answer tool forced when the round has no other
 * tools or the choice was `none`; else `required`, so the model calls a tool or answers; a tool
 * the caller forced stays forced), and the answer tool's block streams as a text block. Requests
 * without `output` pass unchanged.
 */
export function outputThroughTool(
  client: ModelClient,
  options: OutputThroughToolOptions = {},
): ModelClient {
  return {
    ...(client.label === undefined ? {} : { label: client.label }),
    ...(client.provider === undefined ? {} : { provider: client.provider }),
    stream(request, streamOptions) {
      const output = request.output;
      if (output === undefined) return client.stream(request, streamOptions);
      const { output: _, ...rest } = request;
      const answerTool = {
        name: output.name,
        description: output.description,
        input_schema: output.schema,
      };
      const mayForce = options.mayForce?.(request) ?? true;
      const toolChoice = mayForce ? answerChoice(request, output.name) : request.toolChoice;
      const rewritten: ModelRequest = {
        ...rest,
        tools: [...request.tools, answerTool],
        ...(toolChoice === undefined ? {} : { toolChoice }),
      };
      return answerAsText(client.stream(rewritten, streamOptions), output.name);
    },
  };
}

function answerChoice(request: ModelRequest, name: string): ToolChoice {
  const choice = request.toolChoice;
  if (typeof choice === "object") return choice;
  if (choice === "none" || request.tools.length === 0) return { type: "tool", toolName: name };
  return "required";
}

/** The stream with the answer tool's block as a text block (its input JSON as text deltas). */
async function* answerAsText(
  source: AsyncIterable<readonly StreamEvent[]>,
  name: string,
): AsyncGenerator<readonly StreamEvent[]> {
  const translator = new AnswerToolText(name);
  for await (const batch of source) yield batch.map((event) => translator.push(event));
}

/**
 * Rewrites one response's events: the answer tool's `tool_use` start becomes a text start, its
 * `input_json_delta`s text deltas, and a `tool_use` stop reason `end_turn` when the answer was
 * the only call (a round that also called the executor's tools goes on as a tool round).
 */
export class AnswerToolText {
  private readonly answers = new Set<number>();
  private otherCalls = false;

  constructor(private readonly name: string) {}

  push(event: StreamEvent): StreamEvent {
    switch (event.type) {
      case "content_block_start": {
        const block = event.content_block;
        if (block.type !== "tool_use") return event;
        if (block.name !== this.name) {
          this.otherCalls = true;
          return event;
        }
        this.answers.add(event.index);
        return { ...event, content_block: { type: "text", text: "" } };
      }
      case "content_block_delta":
        if (!this.answers.has(event.index) || event.delta.type !== "input_json_delta") return event;
        return { ...event, delta: { type: "text_delta", text: event.delta.partial_json } };
      case "message_delta":
        if (event.delta.stop_reason !== "tool_use" || this.answers.size === 0 || this.otherCalls) {
          return event;
        }
        return { ...event, delta: { ...event.delta, stop_reason: "end_turn" } };
      default:
        return event;
    }
  }
}
