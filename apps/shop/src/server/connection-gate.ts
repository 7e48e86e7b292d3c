/**
 * Which connections the server takes: the count behind `MAX_CONNECTIONS` and
 * `MAX_CONNECTIONS_PER_ADDRESS`, without sockets (`start-http-server.ts` wires it to them).
 *
 * - At most `max` connections at once, and at most `perAddress` of them from one client address,
 *   so one address holding slow connections (slowloris: a header line now and then) cannot take
 *   every slot.
 * - The last `reserve` slots go only to an address that holds no connection yet: when a few
 *   addresses fill the rest, a health probe from another address still finds a place.
 * - A trusted proxy's connection carries many clients: at its opening it is counted against the
 *   proxy's address without the per-address cap; each request on it then moves it to the client
 *   the request was forwarded for, whose cap applies (a request past it is refused, and its
 *   connection closed). A request the proxy sends for itself (no forwarded client) leaves it
 *   where it is.
 */

/** Options of {@link ConnectionGate}. */
export interface ConnectionGateOptions {
  /** Connections open at once at most. */
  readonly max: number;
  /** Connections one client address may hold at once. */
  readonly perAddress: number;
  /**
   * Of the `max` slots, how many only an address holding none may take; default
   * {@link defaultReserve}.
   */
  readonly reserve?: number;
}

/** One admitted connection. */
export interface ConnectionTicket {
  /** The address it is counted against now. */
  readonly address: string;
  /**
   * Counts the connection against `address` from now on (a request on a proxy's connection was
   * forwarded for that client). False, and nothing changes, when `address` already holds its
   * cap: the caller refuses the request.
   */
  moveTo(address: string): boolean;
  /** The connection closed; idempotent. */
  release(): void;
}

/** Why a connection was refused: the process is full, or its address holds its cap. */
export type Refusal = "server_full" | "address_full";

/** The default reserve: a sixteenth of the slots, from 0 (a tiny cap) to 32. */
export function defaultReserve(max: number): number {
  return Math.min(32, Math.floor(max / 16));
}

/** The counts of open connections, in total and per client address. */
export class ConnectionGate {
  readonly #max: number;
  readonly #perAddress: number;
  readonly #reserve: number;
  readonly #held = new Map<string, number>();
  #open = 0;

  constructor(options: ConnectionGateOptions) {
    this.#max = options.max;
    this.#perAddress = options.perAddress;
    this.#reserve = Math.max(
      0,
      Math.min(options.reserve ?? defaultReserve(options.max), options.max - 1),
    );
  }

  /** Connections open. */
  get open(): number {
    return this.#open;
  }

  /** Connections open from `address`. */
  heldBy(address: string): number {
    return this.#held.get(address) ?? 0;
  }

  /**
   * Takes a new connection from `address`, or says why not. `proxy`: the peer is a trusted proxy,
   * whose connections carry other clients, so the per-address cap waits for their requests.
   */
  admit(address: string, options: { proxy?: boolean } = {}): ConnectionTicket | Refusal {
    const held = this.heldBy(address);
    if (this.#open >= this.#max) return "server_full";
    if (this.#open >= this.#max - this.#reserve && held > 0) {
      return options.proxy !== true && held >= this.#perAddress ? "address_full" : "server_full";
    }
    if (options.proxy !== true && held >= this.#perAddress) return "address_full";
    this.#open++;
    this.#add(address, 1);
    let current = address;
    let released = false;
    return {
      get address() {
        return current;
      },
      moveTo: (next) => {
        if (released || next === current) return true;
        if (this.heldBy(next) >= this.#perAddress) return false;
        this.#add(current, -1);
        this.#add(next, 1);
        current = next;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#open--;
        this.#add(current, -1);
      },
    };
  }

  #add(address: string, delta: number): void {
    const n = this.heldBy(address) + delta;
    // Only addresses holding a connection are kept: the map is as large as what is open.
    if (n > 0) this.#held.set(address, n);
    else this.#held.delete(address);
  }
}
