import { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/** A logger for tests, with what it wrote. */
export interface CapturedLog {
  logger: Logger;
  /** Each line written, as written (JSON text). */
  lines: string[];
  /** Each line written, parsed. */
  records: Record<string, unknown>[];
}

/** A pino logger at `level` whose lines are kept, as text and parsed, instead of printed. */
export function capturedLog(level: pino.Level = "info"): CapturedLog {
  const lines: string[] = [];
  const records: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        const line = String(chunk);
        lines.push(line);
        records.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { logger, lines, records };
}
