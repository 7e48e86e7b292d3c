/**
 * CPU time and resident memory of another process, read from Linux's /proc (the benchmark's
 * machine): `utime + stime` of /proc/<pid>/stat in clock ticks (100 a second), `VmRSS` of
 * /proc/<pid>/status.
 */

import { readFileSync } from "node:fs";

/** Clock ticks per second (`getconf CLK_TCK`; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) the process used so far, ms. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of the process, bytes. */
export function rssBytesOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = status.match(/^VmRSS:\s+(\d+) kB$/m);
  if (!match?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
