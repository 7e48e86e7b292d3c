/** One shop agent as the server sees it: its name, its prompt and its tools per session. */

import type { ToolExecutor } from "overlap-runtime";
import type { ShopToolContext } from "./tool-context.js";

/** Options of {@link ShopAgent.executor}. */
export interface ShopExecutorOptions {
  /** Leave out the tools that change the shop. */
  readOnly?: boolean;
  /** The lease of the turn the tools run in (see {@link ShopToolContext.lease}). */
  lease?: string;
}

/** One agent: its name (carried by its events), its system prompt, its tools per session. */
export interface ShopAgent {
  name: "shopper" | "merchant";
  system: string;
  /** The agent's tools bound to a session (and the lease of the turn they run in). */
  executor(sessionId: string, options?: ShopExecutorOptions): ToolExecutor<ShopToolContext>;
}
