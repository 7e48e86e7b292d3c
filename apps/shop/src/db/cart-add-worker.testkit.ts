/**
 * A separate OS process for the cross-process lock test: opens its own store on the database it
 * is given, says `ready`, waits for `go` on stdin (so that several workers start together), runs
 * its cart additions concurrently through `withCart`, prints the results as one JSON line and
 * exits. Run with `node --conditions=overlap-source --import tsx cart-add-worker.testkit.ts '<json>'`.
 */

import { createInterface } from "node:readline";
import { addInFirstVariant } from "../domain/test-products.testkit.js";
import { type OpenStoreOptions, openStore } from "./open-store.js";

/** The worker's one argument, as JSON. */
export interface CartAddWorkerArgs {
  target: Pick<OpenStoreOptions, "databaseUrl" | "sqliteFile" | "pgSchema">;
  sessionId: string;
  adds: { productId: string; quantity: number }[];
}

/** One line of the worker's output per add, in the order of `adds`. */
export type CartAddWorkerResult = { ok: true } | { ok: false; code: string };

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? "{}") as CartAddWorkerArgs;
  const store = await openStore({ ...args.target });
  try {
    const lines = createInterface({ input: process.stdin });
    const go = new Promise<void>((resolve) => {
      lines.on("line", (line) => {
        if (line.trim() === "go") resolve();
      });
    });
    process.stdout.write("ready\n");
    await go;
    lines.close();
    const results = await Promise.all(
      args.adds.map(({ productId, quantity }) =>
        store.withCart(args.sessionId, async (cart, tx) =>
          addInFirstVariant(cart, await tx.getProduct(productId), quantity, tx.rules),
        ),
      ),
    );
    const summary: CartAddWorkerResult[] = results.map((r) =>
      r.ok ? { ok: true } : { ok: false, code: r.code },
    );
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
