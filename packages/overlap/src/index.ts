/**
 * overlap: start each tool call the moment its arguments are complete, while the model is still
 * generating, with every tool run exactly once, results in call order and a valid conversation.
 */
export {
  type ParseToolInputResult,
  parseToolInput,
  type ToolInput,
} from "./json/parse-tool-input.js";
