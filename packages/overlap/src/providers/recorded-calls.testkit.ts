/**
 * Where each client call of a recorded response ends, read off the recording's own frames (SSE
 * frames, or the AWS event stream's messages) independently of the adapters: for each call, in
 * the order its block starts, the frame holding its end-of-call signal. A call whose signal is
 * not in the body's last frame can start while the response is still arriving.
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { REALSTREAMS_DIR } from "./realstreams.testkit.js";

/** The wire formats of the recordings (`manifest.json`'s `format`). */
export type RecordedFormat = "anthropic" | "chat" | "responses" | "gemini" | "bedrock";

/** A recorded response and where its calls end. */
export interface RecordedResponse {
  name: string;
  body: Uint8Array;
  /** Per client call, in block order: the index of the frame with its end-of-call signal. */
  callEnds: number[];
  /** How many frames the body has. */
  frames: number;
}

type Json = Record<string, unknown>;

/** Every recorded response of `format` (fixtures/ and formats/), with its calls' ends. */
export function recordedResponses(format: RecordedFormat): RecordedResponse[] {
  const out: RecordedResponse[] = [];
  for (const folder of ["fixtures", "formats"]) {
    const manifest = resolve(REALSTREAMS_DIR, folder, "manifest.json");
    if (!existsSync(manifest)) continue;
    const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
      format: string;
      responses: string[];
    }>;
    for (const entry of entries) {
      if (entry.format !== format) continue;
      for (const response of entry.responses) {
        const body = new Uint8Array(readFileSync(resolve(REALSTREAMS_DIR, folder, response)));
        const frames = format === "bedrock" ? awsMessages(body) : sseFrames(body);
        out.push({
          name: `${folder}/${response}`,
          body,
          callEnds: CALL_ENDS[format](frames),
          frames: frames.length,
        });
      }
    }
  }
  return out;
}

/** The calls of a response that end before its last frame. */
export function earlyCalls(response: RecordedResponse): number[] {
  return response.callEnds.flatMap((end, k) => (end < response.frames - 1 ? [k] : []));
}

/** The data of each SSE frame (JSON when it parses), with its event name. */
function sseFrames(body: Uint8Array): Array<{ event?: string; data: unknown }> {
  const text = new TextDecoder().decode(body);
  return text
    .split(/\r\n\r\n|\n\n|\r\r/)
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const lines = frame.split(/\r\n|\n|\r/);
      const event = lines
        .find((l) => l.startsWith("event:"))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      let parsed: unknown = data;
      try {
        parsed = JSON.parse(data);
      } catch {
        // [DONE], comments: kept as text
      }
      return event === undefined ? { data: parsed } : { event, data: parsed };
    });
}

/** The JSON payload of each AWS event stream message, as `{ [event-type]: payload }`. */
function awsMessages(body: Uint8Array): Array<{ data: unknown }> {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: Array<{ data: unknown }> = [];
  for (let at = 0; at + 12 <= body.length; ) {
    const total = view.getUint32(at);
    const headersLength = view.getUint32(at + 4);
    let h = at + 12;
    let type = "";
    while (h < at + 12 + headersLength) {
      const nameLength = body[h] as number;
      const name = new TextDecoder().decode(body.subarray(h + 1, h + 1 + nameLength));
      h += 2 + nameLength;
      const length = view.getUint16(h);
      const value = new TextDecoder().decode(body.subarray(h + 2, h + 2 + length));
      if (name === ":event-type") type = value;
      h += 2 + length;
    }
    const payload = new TextDecoder().decode(
      body.subarray(at + 12 + headersLength, at + total - 4),
    );
    let parsed: unknown = payload;
    try {
      parsed = JSON.parse(payload);
    } catch {
      // an exception's text
    }
    out.push({ data: { [type]: parsed } });
    at += total;
  }
  return out;
}

const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type Frames = Array<{ event?: string; data: unknown }>;

/** Per format: each client call's end frame, in block order. */
const CALL_ENDS: Record<RecordedFormat, (frames: Frames) => number[]> = {
  anthropic(frames) {
    const open = new Map<number, number>();
    const ends: number[] = [];
    frames.forEach(({ data }, i) => {
      if (!isJson(data)) return;
      const block = data.content_block;
      if (data.type === "content_block_start" && isJson(block) && block.type === "tool_use") {
        open.set(Number(data.index), ends.push(-1) - 1);
      } else if (data.type === "content_block_stop" && open.has(Number(data.index))) {
        ends[open.get(Number(data.index)) as number] = i;
        open.delete(Number(data.index));
      }
    });
    return ends;
  },
  chat(frames) {
    // A call ends when a later index starts, or at the finish_reason.
    const ends: number[] = [];
    const byIndex = new Map<number, number>();
    const closeBefore = (index: number, i: number) => {
      for (const [at, k] of byIndex) {
        if (at < index && ends[k] === -1) ends[k] = i;
      }
    };
    frames.forEach(({ data }, i) => {
      if (!isJson(data) || !Array.isArray(data.choices)) return;
      const choice = data.choices[0] as Json | undefined;
      const delta = choice?.delta;
      const calls = isJson(delta) && Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const call of calls as Json[]) {
        const index = Number(call.index ?? 0);
        if (!byIndex.has(index)) {
          closeBefore(index, i);
          byIndex.set(index, ends.push(-1) - 1);
        }
      }
      if (choice?.finish_reason) closeBefore(Number.POSITIVE_INFINITY, i);
    });
    return ends.map((end) => (end === -1 ? frames.length - 1 : end));
  },
  responses(frames) {
    const open = new Map<number, number>();
    const ends: number[] = [];
    frames.forEach(({ data }, i) => {
      if (!isJson(data)) return;
      const item = data.item;
      const index = Number(data.output_index);
      if (data.type === "response.output_item.added" && isJson(item)) {
        if (item.type === "function_call") open.set(index, ends.push(-1) - 1);
      } else if (
        (data.type === "response.function_call_arguments.done" ||
          data.type === "response.output_item.done") &&
        open.has(index)
      ) {
        ends[open.get(index) as number] = i;
        open.delete(index);
      }
    });
    return ends;
  },
  gemini(frames) {
    const ends: number[] = [];
    let streaming: number | undefined;
    frames.forEach(({ data }, i) => {
      const candidates = isJson(data) && Array.isArray(data.candidates) ? data.candidates : [];
      const content = (candidates[0] as Json | undefined)?.content;
      const parts = isJson(content) && Array.isArray(content.parts) ? content.parts : [];
      for (const part of parts as Json[]) {
        const call = part.functionCall;
        if (!isJson(call)) continue;
        if (streaming === undefined) {
          const k = ends.push(-1) - 1;
          if (call.willContinue === true) streaming = k;
          else ends[k] = i;
        } else if (call.willContinue !== true) {
          ends[streaming] = i;
          streaming = undefined;
        }
      }
    });
    return ends;
  },
  bedrock(frames) {
    const open = new Map<number, number>();
    const ends: number[] = [];
    frames.forEach(({ data }, i) => {
      if (!isJson(data)) return;
      const start = data.contentBlockStart;
      const stop = data.contentBlockStop;
      if (isJson(start) && isJson(start.start) && isJson(start.start.toolUse)) {
        if (start.start.toolUse.type !== "server_tool_use") {
          open.set(Number(start.contentBlockIndex), ends.push(-1) - 1);
        }
      } else if (isJson(stop) && open.has(Number(stop.contentBlockIndex))) {
        ends[open.get(Number(stop.contentBlockIndex)) as number] = i;
        open.delete(Number(stop.contentBlockIndex));
      }
    });
    return ends;
  },
};
