/**
 * The quick start as a program for Node, Deno and Bun: `<runtime> main.js <base URL>` prints what
 * `runQuickstart` hands it (turn markers, AgentEvents, stop reasons) as one JSON line each. The
 * runtime's own way of reading its arguments is the only difference between them.
 */

import { runQuickstart } from "./quickstart.js";

declare const Deno: { args: string[] } | undefined;

const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2);
const baseURL = args[0];
if (!baseURL) throw new Error("usage: main.js <base URL of the model server>");
await runQuickstart(baseURL, (line) => console.log(JSON.stringify(line)));
