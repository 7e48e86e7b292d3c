import { describe, expect, it } from "vitest";
import { ConnectionGate, type ConnectionTicket, defaultReserve } from "./connection-gate.js";

const ticket = (result: ConnectionTicket | string): ConnectionTicket => {
  if (typeof result === "string") throw new Error(`refused: ${result}`);
  return result;
};

describe("ConnectionGate", () => {
  it("caps one address, and never lets the open count pass the total", () => {
    const gate = new ConnectionGate({ max: 10, perAddress: 3, reserve: 0 });
    const a = [1, 2, 3].map(() => ticket(gate.admit("a")));
    expect(gate.admit("a")).toBe("address_full");
    expect(gate.heldBy("a")).toBe(3);
    for (const x of ["b", "b", "b", "c", "c", "c", "d"]) ticket(gate.admit(x));
    expect(gate.open).toBe(10);
    expect(gate.admit("e")).toBe("server_full");
    a[0]?.release();
    a[0]?.release(); // twice counts once
    expect(gate.open).toBe(9);
    expect(gate.heldBy("a")).toBe(2);
    ticket(gate.admit("a"));
    expect(gate.open).toBe(10);
  });

  it("keeps the last slots for addresses holding no connection (a health probe's)", () => {
    const gate = new ConnectionGate({ max: 10, perAddress: 100, reserve: 2 });
    for (let i = 0; i < 8; i++) ticket(gate.admit("attacker"));
    // The attacker is under its own cap, but the rest is the reserve.
    expect(gate.admit("attacker")).toBe("server_full");
    const probe = ticket(gate.admit("probe"));
    expect(gate.admit("probe")).toBe("server_full");
    ticket(gate.admit("other"));
    expect(gate.admit("third")).toBe("server_full");
    probe.release();
    ticket(gate.admit("third"));
  });

  it("counts a trusted proxy's connection against the client of each request on it", () => {
    const gate = new ConnectionGate({ max: 100, perAddress: 2, reserve: 0 });
    // The proxy opens more connections than one address may hold: its clients are many.
    const pooled = [1, 2, 3, 4].map(() => ticket(gate.admit("proxy", { proxy: true })));
    expect(gate.heldBy("proxy")).toBe(4);
    const [p1, p2, p3, p4] = pooled as [
      ConnectionTicket,
      ConnectionTicket,
      ConnectionTicket,
      ConnectionTicket,
    ];
    expect(p1.moveTo("client")).toBe(true);
    expect(p2.moveTo("client")).toBe(true);
    expect(p3.moveTo("client")).toBe(false); // the client holds 2 already
    expect(p3.address).toBe("proxy");
    expect(p3.moveTo("other")).toBe(true);
    expect(gate.heldBy("proxy")).toBe(1);
    expect(gate.heldBy("client")).toBe(2);
    // A connection moves on with its next request; the one it leaves gets its place back.
    expect(p1.moveTo("other")).toBe(true);
    expect(p4.moveTo("client")).toBe(true);
    p2.release();
    p4.release();
    expect(gate.heldBy("client")).toBe(0);
    expect(gate.open).toBe(2);
  });

  it("reserves a sixteenth of the slots, none of a tiny cap, at most 32", () => {
    expect([2, 15, 16, 200, 900, 100_000].map(defaultReserve)).toEqual([0, 0, 1, 12, 32, 32]);
    // The reserve never takes every slot.
    const gate = new ConnectionGate({ max: 2, perAddress: 5, reserve: 10 });
    ticket(gate.admit("a"));
    expect(gate.admit("a")).toBe("server_full");
  });
});
