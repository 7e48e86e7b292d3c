/**
 * The scripted model servers of `bench/peers`, in their own process: one overlap-sim per pacing
 * (`paced`: the latency scenarios; `fast-args`: the 64 KiB argument; `faults`: the fault
 * matrix), all with the same seed, no jitter and fixed delta sizes (the same schedule for every
 * system: see `SIM_PACING`), and the bench's policy. Prints one line
 * `@@sim {"paced":url,...}` once listening; stops when its standard input closes or on SIGTERM.
 */

import { startSim } from "overlap-sim";
import { benchPolicy } from "./bench-policy.js";
import { SIM_DELTA_CHARS, SIM_JITTER, SIM_PACING, SIM_SEED, type SimKind } from "./scenarios.js";

async function main(): Promise<void> {
  const policy = benchPolicy();
  const servers = await Promise.all(
    (Object.keys(SIM_PACING) as SimKind[]).map(async (kind) => {
      const sim = await startSim({
        policy,
        seed: SIM_SEED,
        pacing: {
          ...SIM_PACING[kind],
          jitter: SIM_JITTER,
          textDeltaChars: SIM_DELTA_CHARS.text,
          argDeltaChars: SIM_DELTA_CHARS.args,
        },
      });
      return [kind, sim] as const;
    }),
  );
  const urls = Object.fromEntries(servers.map(([kind, sim]) => [kind, sim.url]));
  process.stdout.write(`@@sim ${JSON.stringify(urls)}\n`);
  const stop = async () => {
    await Promise.all(servers.map(([, sim]) => sim.close()));
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.stdin.on("end", stop);
  process.stdin.resume();
}

await main();
