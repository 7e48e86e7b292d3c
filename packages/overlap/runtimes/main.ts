/**
 * The quick start as a program for Node, Deno and Bun: `<runtime> main.js <base URL>` prints each
 * AgentEvent of the turn as one JSON line, then `{"stopReason": ...}`. The runtime's own way of
 * reading its arguments is the only difference between them.
 */

import { runQuickstart } from "./quickstart.js";

declare const Deno: { args: string[] } | undefined;

const args = typeof Deno !== "undefined" ? Deno.args : process.argv.slice(2);
const baseURL = args[0];
if (!baseURL) throw new Error("usage: main.js <base URL of the model server>");
const stopReason = await runQuickstart(baseURL, (event) => console.log(JSON.stringify(event)));
console.log(JSON.stringify({ stopReason }));
