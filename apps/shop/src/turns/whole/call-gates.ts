/**
 * What keeps the whole path from overlapping: the CLI asks for a call as soon as its block is
 * complete (it runs tools while the model streams), so every call it asks for waits at a gate
 * that opens only when the response holding the call has ended.
 */

/** Holds a call until the end of its response: `true` runs it, `false` never does. */
export interface Gate {
  promise: Promise<boolean>;
  opened: boolean;
  open(run: boolean): void;
}

function gate(): Gate {
  let resolve!: (run: boolean) => void;
  const promise = new Promise<boolean>((r) => {
    resolve = r;
  });
  const g: Gate = {
    promise,
    opened: false,
    open: (run) => {
      g.opened = true;
      resolve(run);
    },
  };
  return g;
}

/** The gates of one turn's calls, by call id. */
export class CallGates {
  readonly #gates = new Map<string, Gate>();

  /**
   * The gate of `callId`, made by whichever comes first: the CLI asking for the call, or the end
   * of the response that holds it.
   */
  of(callId: string): Gate {
    let g = this.#gates.get(callId);
    if (!g) {
      g = gate();
      this.#gates.set(callId, g);
    }
    return g;
  }

  /** The turn is over: calls still waiting for their response's end never start. */
  closeAll(): void {
    for (const g of this.#gates.values()) g.open(false);
  }
}
