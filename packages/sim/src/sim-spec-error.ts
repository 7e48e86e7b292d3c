/** A malformed `x-sim-fault` / `x-sim-quirk` value (or the same option in the config). */
export class SimSpecError extends Error {
  override readonly name = "SimSpecError";
}

/** One `name[=value]` item of a comma-separated spec. */
export interface SpecItem {
  name: string;
  value?: string;
}

/** Splits `a, b=1 ,c` into items; blank items are skipped, names are lower-cased. */
export function parseSpecList(spec: string | undefined): SpecItem[] {
  if (spec === undefined) return [];
  return spec
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const eq = part.indexOf("=");
      if (eq < 0) return { name: part.toLowerCase() };
      return { name: part.slice(0, eq).trim().toLowerCase(), value: part.slice(eq + 1).trim() };
    });
}
