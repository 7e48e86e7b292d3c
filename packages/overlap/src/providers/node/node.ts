/**
 * `overlap-runtime/node`: what only Node runs, chosen on purpose. `nodeHttpFetch` is a `fetch` over
 * `node:http` whose responses overlap's adapters read straight from the socket, a fast stream in
 * paced reads (many frames a read), at less CPU per turn than the web-stream read every runtime
 * has. Give it to the client of an adapter: `new Anthropic({ fetch: nodeHttpFetch })`,
 * `new OpenAI({ fetch: nodeHttpFetch })`, `geminiModel({ fetch: nodeHttpFetch, ... })`.
 */

export {
  createNodeHttpFetch,
  DEFAULT_MIN_READ_INTERVAL_MS,
  incomingBodyOf,
  type NodeHttpFetchOptions,
  nodeHttpFetch,
} from "./node-http-fetch.js";
