/**
 * A system's child process as the orchestrator drives it: spawned once, announces itself
 * (`@@ready`, or `@@failed` with the error), then answers one command at a time (`@@peers`).
 * Anything else it prints is kept (the last few KiB) to explain a failure.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { PeerCommand } from "./child-kit.js";

export interface ReadyInfo {
  system: string;
  node: string;
  versions: Record<string, string>;
}

type Pending = {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
};

/** Distributes a command without its `id` over the union. */
type CommandBody = PeerCommand extends infer C
  ? C extends PeerCommand
    ? Omit<C, "id">
    : never
  : never;

export class PeerProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #output = "";
  #exit: string | undefined;
  readonly ready: Promise<ReadyInfo>;

  constructor(command: string, args: readonly string[], cwd: string, readyTimeoutMs: number) {
    this.#child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "pipe"], env: process.env });
    let settleReady!: { resolve: (r: ReadyInfo) => void; reject: (e: Error) => void };
    this.ready = new Promise<ReadyInfo>((resolve, reject) => {
      settleReady = { resolve, reject };
    });
    const readyTimer = setTimeout(
      () => settleReady.reject(new Error(`not ready within ${readyTimeoutMs} ms${this.#tail()}`)),
      readyTimeoutMs,
    );
    const lines = createInterface({ input: this.#child.stdout });
    lines.on("line", (line) => {
      const match = /^@@(\w+) (.*)$/.exec(line);
      if (!match) {
        this.#keep(`${line}\n`);
        return;
      }
      const [, kind, json] = match;
      const value = JSON.parse(json!) as Record<string, unknown>;
      if (kind === "ready") {
        clearTimeout(readyTimer);
        settleReady.resolve(value as unknown as ReadyInfo);
      } else if (kind === "failed") {
        clearTimeout(readyTimer);
        settleReady.reject(new Error(String(value.error)));
      } else if (kind === "peers") {
        const pending = this.#pending.get(Number(value.id));
        if (pending) {
          clearTimeout(pending.timer);
          this.#pending.delete(Number(value.id));
          pending.resolve(value);
        }
      }
    });
    this.#child.stderr.on("data", (chunk: Buffer) => this.#keep(chunk.toString("utf8")));
    this.#child.on("error", (error) =>
      this.#fail(`could not start: ${error.message}`, settleReady),
    );
    this.#child.on("exit", (code, signal) =>
      this.#fail(`exited (${signal ?? `code ${code}`})`, settleReady),
    );
    // A child that dies mid-write must not crash the orchestrator.
    this.#child.stdin.on("error", () => {});
  }

  #keep(text: string): void {
    this.#output = (this.#output + text).slice(-4096);
  }

  #tail(): string {
    const lines = this.#output.trim().split("\n").slice(-6).join(" | ");
    return lines === "" ? "" : `: ${lines}`;
  }

  #fail(why: string, ready: { reject: (e: Error) => void }): void {
    if (this.#exit !== undefined) return;
    this.#exit = why;
    const error = new Error(`${why}${this.#tail()}`);
    ready.reject(error);
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }

  get exited(): string | undefined {
    return this.#exit;
  }

  /** Sends one command; resolves with the child's answer (rejects on timeout or exit). */
  request(command: CommandBody, timeoutMs: number): Promise<Record<string, unknown>> {
    if (this.#exit !== undefined) return Promise.reject(new Error(this.#exit));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no answer to ${command.cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.#child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
    });
  }

  /** Asks the child to exit; kills it (by its pid) if it has not after `graceMs`. */
  async stop(graceMs = 3000): Promise<void> {
    if (this.#exit !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.stdin.write(`${JSON.stringify({ id: 0, cmd: "exit" })}\n`);
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
