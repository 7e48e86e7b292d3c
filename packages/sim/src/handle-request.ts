/**
 * One request, from the body to the last byte: routing, faults, validation, the policy, then the
 * resolved script paced and encoded in the called API's format.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicDialect } from "./anthropic-dialect.js";
import type { ApiRejection } from "./api-rejection.js";
import { bedrockNotFoundDialect, bedrockRoute } from "./bedrock-dialect.js";
import type { Dialect, EncodeInput } from "./dialect.js";
import { addFaultBlocks, requestFaults, type SimFaults } from "./faults.js";
import { geminiNotFoundDialect, geminiRoute } from "./gemini-dialect.js";
import { IdFactory } from "./id-factory.js";
import { midCallFrameCount } from "./mid-call-cut.js";
import { openaiDialect } from "./openai-dialect.js";
import { type PaceBlock, type Pacing, paceBlocks, requestPacing } from "./pacing.js";
import type { SimPolicy } from "./policy.js";
import { providerToolsOffered } from "./provider-tools-offered.js";
import { requestQuirks, type SimQuirks } from "./quirks.js";
import { requestControls } from "./request-controls.js";
import { type ResolvedBlock, resolveScript } from "./resolve-script.js";
import { responsesDialect } from "./responses-dialect.js";
import { mixSeed, SeededRandom } from "./seeded-random.js";
import { publicHeaders } from "./sim-request.js";
import { SimSpecError } from "./sim-spec-error.js";
import { pause, writeFrames } from "./stream-writer.js";
import { isJsonObject, parseJsonBody } from "./validate-request.js";

/** The largest body accepted, as the Messages API's request size limit. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The server's settled options. */
export interface SimConfig {
  policy: SimPolicy;
  pacing: Pacing;
  faults: SimFaults;
  quirks: SimQuirks;
  seed: number;
  log: (line: string) => void;
}

function routeOf(method: string, path: string): Dialect | undefined {
  if (method !== "POST") return undefined;
  if (path === "/v1/messages") return anthropicDialect;
  if (path === "/v1/chat/completions") return openaiDialect;
  if (path === "/v1/responses") return responsesDialect;
  return undefined;
}

/** Which API an unknown route was meant for: the Anthropic SDK always sends `anthropic-version`. */
function guessDialect(req: IncomingMessage, path: string): Dialect {
  if (path.startsWith("/v1beta/")) return geminiNotFoundDialect;
  if (path.startsWith("/model/")) return bedrockNotFoundDialect;
  if (req.headers["anthropic-version"] !== undefined || req.headers["x-api-key"] !== undefined) {
    return anthropicDialect;
  }
  return path.startsWith("/v1/messages") ? anthropicDialect : openaiDialect;
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  // Read with listeners, not `for await`: a request's body is a chunk or two, and the stream's
  // async iterator costs more than reading them (a noticeable part of a busy sim's time).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (then: () => void) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
      then();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else {
        // As leaving a `for await` early did: the request stream (and its socket) is destroyed.
        settle(() => resolve(undefined));
        req.destroy();
      }
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks).toString("utf8")));
    const onError = (error: Error) => settle(() => reject(error));
    // A client that leaves before the end of its body.
    const onClose = () =>
      settle(() => reject(new Error("The request closed before its body ended.")));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** Answers one request; resolves when the answer is written (or the client left). */
export async function handleRequest(
  req: IncomingMessage,
  res: ServerResponse,
  config: SimConfig,
  signal: AbortSignal,
): Promise<void> {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://sim");
  const path = url.pathname;
  // Gemini and Bedrock routes carry the model and the streaming mode in the URL.
  const route =
    routeOf(method, path) ??
    geminiRoute(method, path, url.searchParams) ??
    bedrockRoute(method, path);
  const dialect = route ?? guessDialect(req, path);
  const bodyText = await readBody(req);
  const requestSeed = mixSeed(config.seed, `${dialect.api}\n${bodyText ?? ""}`);
  const ids = new IdFactory(new SeededRandom(requestSeed));
  const requestId = dialect.requestId(ids);
  const reject = (rejection: ApiRejection): void => {
    res.writeHead(rejection.status, {
      "content-type": "application/json",
      [dialect.requestIdHeader]: requestId,
      ...dialect.commonHeaders(),
      ...rejection.headers,
    });
    res.end(JSON.stringify(dialect.errorBody(rejection, requestId)));
    config.log(`${method} ${path} ${rejection.status} ${rejection.type}`);
  };

  if (bodyText === undefined) {
    reject({
      status: 413,
      type: "request_too_large",
      message: "Request exceeds the maximum allowed number of bytes.",
    });
    return;
  }
  if (route === undefined) {
    reject(dialect.notFound(method, path));
    return;
  }
  let faults: SimFaults;
  let quirks: SimQuirks;
  let pacing: Pacing;
  try {
    faults = requestFaults(config.faults, header(req, "x-sim-fault"));
    quirks = requestQuirks(config.quirks, header(req, "x-sim-quirk"));
    pacing = requestPacing(config.pacing, header(req, "x-sim-pacing"));
  } catch (error) {
    if (!(error instanceof SimSpecError)) throw error;
    reject({
      status: 400,
      type: "invalid_request_error",
      message: error.message,
      param: null,
      code: null,
    });
    return;
  }
  if (faults.slowFirstByteMs !== undefined && !(await pause(faults.slowFirstByteMs, signal)))
    return;

  const parsed = parseJsonBody(bodyText);
  const requestedModel =
    parsed.ok && isJsonObject(parsed.value) ? String(parsed.value.model ?? "") : "";
  const model = requestedModel.startsWith("scripted-") ? requestedModel : "scripted-sim";
  if (faults.status !== undefined) {
    reject(dialect.statusFault(faults.status, model));
    return;
  }
  if (!parsed.ok) {
    reject(dialect.malformedJson(parsed));
    return;
  }
  const invalid = dialect.validate(parsed.value);
  if (invalid !== undefined) {
    reject(invalid);
    return;
  }
  const body = parsed.value as Record<string, unknown>;
  const requestHeaders = publicHeaders(req.headers);
  const request = dialect.toSimRequest(body, requestHeaders);
  request.providerTools = providerToolsOffered(dialect.api, body);
  Object.assign(request, requestControls(dialect.api, body));

  let script: Awaited<ReturnType<SimPolicy>>;
  try {
    script = await config.policy(request);
  } catch {
    reject(dialect.internalError());
    return;
  }
  const wanted = { ...faults, thinking: faults.thinking === true || dialect.wantsThinking(body) };
  const resolveOptions: Parameters<typeof resolveScript>[1] = {
    api: dialect.api,
    ids,
    invalidJson: faults.invalidJson === true,
    cutInLastToolUse: faults.maxTokens === true,
  };
  if (request.maxTokens !== undefined) resolveOptions.maxTokens = request.maxTokens;
  const resolved = resolveScript(addFaultBlocks(script, wanted, request), resolveOptions);
  const items = paceBlocks(resolved.blocks.map(paceBlock), {
    ...pacing,
    seed: requestSeed ^ 0x5bd1e995,
  });
  const input: EncodeInput = {
    script: resolved,
    items,
    body,
    headers: requestHeaders,
    ids,
    model,
    quirks,
  };
  const headers = { [dialect.requestIdHeader]: requestId, ...dialect.commonHeaders() };
  const outcome = request.stream
    ? await sendStream(req, res, dialect, input, headers, faults, signal)
    : await sendWhole(res, dialect, input, headers, signal);
  config.log(`${method} ${path} 200 ${outcome} ${resolved.stopReason}`);
}

/** Streams the answer; returns how the stream ended. */
async function sendStream(
  req: IncomingMessage,
  res: ServerResponse,
  dialect: Dialect,
  input: EncodeInput,
  headers: Record<string, string>,
  faults: SimFaults,
  signal: AbortSignal,
): Promise<string> {
  const frames = dialect.streamFrames(input);
  const midCall =
    faults.errorMidCall === true || faults.dropMidCall === true
      ? midCallFrameCount(dialect, input)
      : undefined;
  res.writeHead(200, {
    "content-type": dialect.streamContentType ?? "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
  res.flushHeaders();
  // Paced frames are small: without this, Nagle's algorithm would batch them.
  req.socket.setNoDelay(true);
  const ending = await writeFrames(res, frames, {
    signal,
    errorAfter: faults.errorMidCall === true ? (midCall ?? faults.errorAfter) : faults.errorAfter,
    errorFrame: dialect.streamErrorFrame,
    dropAfter: faults.dropMidCall === true ? (midCall ?? faults.dropAfter) : faults.dropAfter,
  });
  return `stream ${ending}`;
}

/** Sends the whole answer when its generation would have finished (the stream faults do not apply). */
async function sendWhole(
  res: ServerResponse,
  dialect: Dialect,
  input: EncodeInput,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<string> {
  if (!(await pause(input.items.at(-1)?.atMs ?? 0, signal))) return "json aborted";
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(dialect.responseBody(input)));
  return "json";
}

function paceBlock(block: ResolvedBlock): PaceBlock {
  switch (block.type) {
    case "text":
      return { kind: "text", content: block.text };
    case "thinking":
      return { kind: "text", content: block.thinking };
    case "tool_use":
    case "server_tool_use":
    case "code_execution":
      return { kind: "args", content: block.args };
    case "web_search_tool_result":
    case "code_execution_result":
      return { kind: "whole", content: "" };
  }
}
