import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressBytes, parseTrustProxy, type TrustProxy } from "../parse-trust-proxy.js";
import { formatAddress, forwardedClient, trustsPeer } from "./trust-proxy.js";

const hops = (n: number): TrustProxy => ({ hops: n });
const list = (value: string): TrustProxy => parseTrustProxy(value);

describe("forwardedClient with a number of hops", () => {
  it("one hop: the socket's peer is the proxy, the client is the header's last entry", () => {
    expect(forwardedClient("10.0.0.5", "203.0.113.7", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5", "198.51.100.1, 203.0.113.7", hops(1))).toBe("203.0.113.7");
  });

  it("never trusts spoofed entries on the left", () => {
    // The client wrote "1.1.1.1, 2.2.2.2" itself; our one proxy appended the address it saw.
    const header = "1.1.1.1, 2.2.2.2, 203.0.113.7";
    expect(forwardedClient("10.0.0.5", header, hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5", header, hops(2))).toBe("2.2.2.2");
  });

  it("two hops: the entry the outer proxy wrote", () => {
    expect(forwardedClient("10.0.0.5", "203.0.113.7, 10.0.0.9", hops(2))).toBe("203.0.113.7");
  });

  it("too few entries for the hops: the leftmost one", () => {
    expect(forwardedClient("10.0.0.5", "203.0.113.7", hops(3))).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5", undefined, hops(2))).toBe("10.0.0.5");
    expect(forwardedClient("10.0.0.5", "", hops(2))).toBe("10.0.0.5");
  });

  it("zero hops: the socket's address, whatever the header says", () => {
    expect(forwardedClient("203.0.113.7", "1.1.1.1", hops(0))).toBe("203.0.113.7");
  });

  it("a garbage entry ends the walk at the hop that wrote it", () => {
    for (const garbage of [
      "unknown",
      "",
      "  ",
      "not an ip",
      "999.1.1.1",
      "1.2.3",
      "_hidden",
      "::g",
    ]) {
      expect(forwardedClient("10.0.0.5", garbage, hops(1)), garbage).toBe("10.0.0.5");
      expect(forwardedClient("10.0.0.5", `203.0.113.7, ${garbage}`, hops(2)), garbage).toBe(
        "10.0.0.5",
      );
      expect(
        forwardedClient("10.0.0.5", `${garbage}, 203.0.113.7, 10.0.0.9`, hops(2)),
        garbage,
      ).toBe("203.0.113.7");
      expect(forwardedClient("10.0.0.5", `203.0.113.7, ${garbage}, 10.0.0.9`, hops(3))).toBe(
        "10.0.0.9",
      );
    }
  });

  it("drops ports, brackets and zones", () => {
    expect(forwardedClient("10.0.0.5", "203.0.113.7:51234", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5", "[2001:db8::7]:443", hops(1))).toBe("2001:db8::7");
    expect(forwardedClient("10.0.0.5", "[2001:db8::7]", hops(1))).toBe("2001:db8::7");
    expect(forwardedClient("10.0.0.5", "fe80::1%eth0", hops(1))).toBe("fe80::1");
    // A port after a bare IPv6 address cannot be told apart from its last group.
    expect(forwardedClient("10.0.0.5", "2001:db8::7:443", hops(1))).toBe("2001:db8::7:443");
  });

  it("answers IPv6 and IPv4-mapped addresses in their canonical form", () => {
    expect(forwardedClient("::ffff:10.0.0.5", "2001:DB8:0:0:0:0:0:7", hops(1))).toBe("2001:db8::7");
    expect(forwardedClient("::ffff:10.0.0.5", "::ffff:203.0.113.7", hops(1))).toBe("203.0.113.7");
    expect(forwardedClient("::ffff:10.0.0.5", undefined, hops(1))).toBe("10.0.0.5");
    expect(forwardedClient("::1", "1.1.1.1", hops(0))).toBe("::1");
  });

  it("undefined when the socket's address is not an address (no socket: a test)", () => {
    expect(forwardedClient(undefined, "203.0.113.7", hops(1))).toBeUndefined();
    expect(forwardedClient("local", "203.0.113.7", hops(1))).toBeUndefined();
  });
});

describe("forwardedClient with a list of proxies", () => {
  it("skips every trusted address from the right, stops at the first other one", () => {
    const trust = list("10.0.0.0/8");
    expect(forwardedClient("10.0.0.5", "203.0.113.7, 10.1.2.3", trust)).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.5", "1.1.1.1, 203.0.113.7, 10.1.2.3", trust)).toBe(
      "203.0.113.7",
    );
  });

  it("a spoofed proxy address on the left does not help: the walk stopped before it", () => {
    const trust = list("10.0.0.0/8");
    expect(forwardedClient("10.0.0.5", "10.9.9.9, 203.0.113.7", trust)).toBe("203.0.113.7");
  });

  it("a request that did not come through a trusted proxy keeps its socket address", () => {
    const trust = list("10.0.0.1");
    expect(forwardedClient("203.0.113.7", "1.1.1.1", trust)).toBe("203.0.113.7");
    expect(forwardedClient("10.0.0.2", "1.1.1.1", trust)).toBe("10.0.0.2");
  });

  it("every hop trusted: the leftmost one", () => {
    const trust = list("10.0.0.0/8");
    expect(forwardedClient("10.0.0.5", "10.0.0.7, 10.0.0.6", trust)).toBe("10.0.0.7");
    expect(forwardedClient("10.0.0.5", undefined, trust)).toBe("10.0.0.5");
  });

  it("matches IPv4 ranges on IPv4-mapped socket addresses and entries, and the reverse", () => {
    expect(forwardedClient("::ffff:10.0.0.5", "203.0.113.7", list("10.0.0.0/8"))).toBe(
      "203.0.113.7",
    );
    expect(forwardedClient("10.0.0.5", "::ffff:10.0.0.6, 203.0.113.7", list("10.0.0.0/8"))).toBe(
      "203.0.113.7",
    );
    expect(forwardedClient("10.0.0.5", "203.0.113.7", list("::ffff:10.0.0.0/104"))).toBe(
      "203.0.113.7",
    );
    expect(forwardedClient("10.0.0.5", "203.0.113.7", list("::ffff:10.0.0.5"))).toBe("203.0.113.7");
  });

  it("IPv6 proxies and networks", () => {
    const trust = list("2001:db8:1::/48, fd00::1");
    expect(forwardedClient("fd00::1", "2001:db8:ffff::9, 2001:db8:1:2::3", trust)).toBe(
      "2001:db8:ffff::9",
    );
    expect(forwardedClient("fd00::2", "2001:db8:ffff::9", trust)).toBe("fd00::2");
    // An IPv4 network never matches a native IPv6 address.
    expect(forwardedClient("::a00:5", "203.0.113.7", list("10.0.0.0/8"))).toBe("::a00:5");
  });

  it("names: loopback, linklocal, uniquelocal", () => {
    expect(forwardedClient("127.0.0.1", "203.0.113.7", list("loopback"))).toBe("203.0.113.7");
    expect(forwardedClient("::1", "203.0.113.7", list("loopback"))).toBe("203.0.113.7");
    expect(forwardedClient("172.20.0.3", "203.0.113.7", list("uniquelocal"))).toBe("203.0.113.7");
    expect(forwardedClient("172.32.0.3", "203.0.113.7", list("uniquelocal"))).toBe("172.32.0.3");
    expect(forwardedClient("fe80::9", "203.0.113.7", list("LinkLocal"))).toBe("203.0.113.7");
  });

  it("prefix edges: /0 trusts all, partial bytes", () => {
    expect(forwardedClient("203.0.113.7", "1.2.3.4", list("0.0.0.0/0"))).toBe("1.2.3.4");
    const trust = list("172.16.0.0/12");
    expect(forwardedClient("172.31.255.255", "1.2.3.4", trust)).toBe("1.2.3.4");
    expect(forwardedClient("172.15.255.255", "1.2.3.4", trust)).toBe("172.15.255.255");
    // Bits after the prefix are ignored: 10.0.0.1/8 is 10.0.0.0/8.
    expect(forwardedClient("10.200.0.1", "1.2.3.4", list("10.0.0.1/8"))).toBe("1.2.3.4");
  });

  it("a garbage entry ends the walk at the trusted hop that wrote it", () => {
    const trust = list("10.0.0.0/8");
    expect(forwardedClient("10.0.0.5", "203.0.113.7, garbage", trust)).toBe("10.0.0.5");
    expect(forwardedClient("10.0.0.5", "garbage, 203.0.113.7", trust)).toBe("203.0.113.7");
  });
});

describe("addresses", () => {
  it("formats canonical IPv6 (RFC 5952): lower case, the longest zero run as ::", () => {
    const cases: Array<[string, string]> = [
      ["2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
      ["::", "::"],
      ["::1", "::1"],
      ["1::", "1::"],
      ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
      ["::ffff:1.2.3.4", "1.2.3.4"],
      ["::FFFF:0102:0304", "1.2.3.4"],
      ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"],
    ];
    for (const [input, expected] of cases) {
      const bytes = addressBytes(input);
      expect(bytes, input).toBeDefined();
      expect(formatAddress(bytes!), input).toBe(expected);
    }
  });

  it("reads back what it formats (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        const bytes = addressBytes(ip);
        expect(bytes).toBeDefined();
        expect(addressBytes(formatAddress(bytes!))).toEqual(bytes);
      }),
    );
  });

  it("whatever the header holds, the client is the socket's address or one of the entries", () => {
    const entry = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.string({ maxLength: 8 }).filter((s) => !s.includes(",")),
    );
    fc.assert(
      fc.property(
        fc.ipV4(),
        fc.array(entry, { maxLength: 6 }),
        fc.nat({ max: 8 }),
        (socket, entries, n) => {
          const client = forwardedClient(socket, entries.join(","), hops(n));
          const known = [socket, ...entries]
            .map((e) => addressBytes(e.trim()))
            .filter((b) => b !== undefined)
            .map((b) => formatAddress(b));
          expect(known).toContain(client);
          // Entries left of the hops trusted are never read: changing them changes nothing.
          const kept = entries.slice(Math.max(0, entries.length - n));
          const spoofed = ["6.6.6.6", ...entries.slice(0, entries.length - kept.length)];
          if (entries.length > n) {
            expect(forwardedClient(socket, [...spoofed, ...kept].join(","), hops(n))).toBe(client);
          }
        },
      ),
    );
  });
});

describe("trustsPeer", () => {
  it("is the first hop of the walk: any peer with hops, a listed one with a list", () => {
    expect(trustsPeer("10.0.0.5", hops(1))).toBe(true);
    expect(trustsPeer("10.0.0.5", hops(0))).toBe(false);
    expect(trustsPeer("10.0.0.5", list("10.0.0.0/8"))).toBe(true);
    expect(trustsPeer("::ffff:10.0.0.5", list("10.0.0.0/8"))).toBe(true);
    expect(trustsPeer("192.168.1.1", list("10.0.0.0/8"))).toBe(false);
    expect(trustsPeer(undefined, hops(1))).toBe(false);
    expect(trustsPeer("not an address", hops(1))).toBe(false);
  });
});
