/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and prints where the time went: self time
 * per function (name, file:line), and self time per file, the top `TOP` (default 40) of each.
 * A companion of `cpu-turn.ts`.
 *
 * Run: `node bench/src/cpu-profile-top.ts <file.cpuprofile> [TOP]` (Node strips the types of a
 * `.ts` file given directly only from 22.6 on; on Node 20 use `node --import tsx ...`).
 */

import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const path = process.argv[2];
if (!path) throw new Error("usage: cpu-profile-top <file.cpuprofile> [top]");
const top = Number(process.argv[3] ?? 40) || 40;
const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;

// Self time per node: each sample's delta goes to the node sampled.
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "~/")
    .replace(/.*\/packages\//, "packages/")
    .replace(/.*\/bench\//, "bench/");

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  total += us;
  const file = shortUrl(frame.url) || "(native)";
  const fn = `${frame.functionName || "(anonymous)"}  ${file}:${frame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byFile.set(file, (byFile.get(file) ?? 0) + us);
}

function print(title: string, map: Map<string, number>): void {
  console.log(`\n${title}`);
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, us] of rows) {
    console.log(
      `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`,
    );
  }
}

console.log(`total sampled ${(total / 1000).toFixed(1)} ms`);
print("self time by function", byFunction);
print("self time by file", byFile);
