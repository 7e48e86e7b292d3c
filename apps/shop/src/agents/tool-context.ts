/**
 * What every shop tool receives as `ctx.context`: the session it acts on, the store, and the lease
 * of the turn it runs in. A file of its own so the tools and the agents that list them both point
 * down to it.
 */

import type { ShopStore } from "../db/shop-store.js";

/** What every shop tool receives as `ctx.context`. */
export interface ShopToolContext {
  sessionId: string;
  store: ShopStore;
  /**
   * The turn whose lease the tools' turn holds: every effect checks it in its transaction, so a
   * turn another instance took over changes nothing more. Absent outside a leased turn.
   */
  lease?: string;
}
