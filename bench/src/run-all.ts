/**
 * Runs every benchmark of this folder, one after the other. Each module runs its benchmark when
 * imported and prints a table, then one JSON line of figures; a heading line separates them.
 * Run with `npm run bench` at the repository root.
 */

const benchmarks = ["./preview-parse.js", "./round-latency.js", "./load/run-load.js"];

for (const [i, path] of benchmarks.entries()) {
  if (i > 0) console.log("");
  console.log(`=== ${path.replace(/^\.\/|\.js$/g, "")} (${i + 1}/${benchmarks.length}) ===`);
  await import(path);
}
