import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message, ToolResultBlock, ToolUseBlock } from "../stream/message.js";
import type { ToolOutcome } from "../tools/tool-outcome.js";
import { MISSING_RESULT_TEXT } from "./repair-conversation.js";
import {
  NOT_RUN_AFTER_RESTART,
  notRunAfterRestartText,
  type RecordedCall,
  restoreRound,
  type StoredCall,
} from "./restore-round.js";
import { validateConversation } from "./validate-conversation.js";

const block = (id: string, name = "add_to_cart", input: Record<string, unknown> = {}) =>
  ({ type: "tool_use", id, name, input }) as ToolUseBlock;
const entry = (id: string, index: number, round = 1, name = "add_to_cart"): StoredCall => ({
  round,
  index,
  block: block(id, name, { productId: `p-${id}` }),
});
const outcome = (id: string, text: string, isError = false): ToolOutcome => ({
  callId: id,
  name: "add_to_cart",
  status: isError ? "error" : "ok",
  resultText: text,
  events: [],
  isError,
});
const recorded = (e: StoredCall, text: string, isError = false): RecordedCall => ({
  call: e,
  outcome: outcome(e.block.id, text, isError),
});

describe("restoreRound", () => {
  it("puts a crashed round's calls back: recorded ones with their outcome, the rest as not run", () => {
    const stored: Message[] = [{ role: "user", content: "add shoes and socks, then the total" }];
    const shoes = entry("toolu_a", 1);
    const socks = entry("toolu_b", 2);
    const total = entry("toolu_c", 3, 1, "cart_total");
    const restored = restoreRound(stored, {
      journaled: [total, socks, shoes],
      recorded: [recorded(shoes, "Added 1 × Aero Trail Runner.")],
    });
    expect(restored.from).toBe(1);
    expect(restored.restored).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
    expect(restored.messages[0]).toBe(stored[0]);
    expect(restored.messages.slice(1)).toEqual([
      { role: "assistant", content: [shoes.block, socks.block, total.block] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "Added 1 × Aero Trail Runner." },
          {
            type: "tool_result",
            tool_use_id: "toolu_b",
            content: notRunAfterRestartText("add_to_cart"),
            is_error: true,
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_c",
            content: notRunAfterRestartText("cart_total"),
            is_error: true,
          },
        ],
      },
    ]);
    expect(notRunAfterRestartText("cart_total")).toContain(NOT_RUN_AFTER_RESTART);
    expect(validateConversation(restored.messages)).toEqual([]);
  });

  it("restores a call the ledger recorded even when its journal write never landed", () => {
    const stored: Message[] = [{ role: "user", content: "add socks" }];
    const socks = entry("toolu_b", 2);
    const restored = restoreRound(stored, {
      journaled: [],
      recorded: [recorded(socks, "Socks are out of stock.", true)],
    });
    expect(restored.messages.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_b",
          content: "Socks are out of stock.",
          is_error: true,
        },
      ],
    });
  });

  it("ignores calls the conversation already holds, and restores nothing twice", () => {
    const a = entry("toolu_a", 1);
    const stored: Message[] = [
      { role: "user", content: "add shoes" },
      { role: "assistant", content: [a.block] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "ok" }] },
    ];
    const none = restoreRound(stored, { journaled: [a], recorded: [recorded(a, "ok")] });
    expect(none).toEqual({ messages: stored, from: 3, restored: [] });
    const b = entry("toolu_b", 1, 2);
    const once = restoreRound(stored, { journaled: [a, b], recorded: [] });
    expect(once.restored).toEqual(["toolu_b"]);
    const again = restoreRound(once.messages, { journaled: [a, b], recorded: [] });
    expect(again.restored).toEqual([]);
    expect(again.messages).toEqual(once.messages);
  });

  it("joins a stored assistant message left by pause_turn, answering its calls", () => {
    const stored: Message[] = [
      { role: "user", content: "search then add" },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
        ],
      },
    ];
    const a = entry("toolu_a", 2, 2);
    const restored = restoreRound(stored, { journaled: [a], recorded: [] });
    expect(restored.from).toBe(1);
    expect(restored.messages).toHaveLength(3);
    expect(restored.messages[1]?.content).toHaveLength(3);
    expect(validateConversation(restored.messages)).toEqual([]);
  });

  it("uses the host's text for calls without a record when it cannot promise they did not run", () => {
    const restored = restoreRound(
      [{ role: "user", content: "go" }],
      { journaled: [entry("toolu_a", 0)], recorded: [] },
      { notRunText: () => MISSING_RESULT_TEXT },
    );
    const results = restored.messages.at(-1)?.content as ToolResultBlock[];
    expect(results[0]?.content).toBe(MISSING_RESULT_TEXT);
  });

  it("property: every lost call answered exactly once, in call order, real outcome iff recorded, valid", () => {
    const ids = fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 0, maxLength: 12 });
    const scenario = fc
      .record({
        // Calls of earlier, stored rounds (some of them also journaled or recorded: stale rows).
        storedCalls: fc.array(ids, { maxLength: 3 }),
        lost: ids,
        trailingAssistant: fc.boolean(),
        flags: fc.array(
          fc.record({ journal: fc.boolean(), record: fc.boolean(), err: fc.boolean() }),
          {
            minLength: 60,
            maxLength: 60,
          },
        ),
        // Block indexes of the lost calls: any distinct values, so call order is not input order.
        indexes: fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { minLength: 40, maxLength: 40 }),
      })
      .map((s) => {
        const seen = new Set<number>();
        const storedRounds = s.storedCalls.map((round) =>
          round.filter((n) => !seen.has(n) && seen.add(n)),
        );
        const lost = s.lost.filter((n) => !seen.has(n));
        return { ...s, storedRounds, lost };
      });
    fc.assert(
      fc.property(scenario, ({ storedRounds, lost, trailingAssistant, flags, indexes }) => {
        const id = (n: number) => `toolu_${n}`;
        const messages: Message[] = [{ role: "user", content: "hello" }];
        const stale: StoredCall[] = [];
        storedRounds.forEach((round, r) => {
          if (round.length === 0) return;
          const blocks = round.map((n, i) => {
            stale.push({ round: r + 1, index: i, block: block(id(n)) });
            return block(id(n));
          });
          messages.push({ role: "assistant", content: [{ type: "text", text: "ok" }, ...blocks] });
          messages.push({
            role: "user",
            content: round.map((n) => ({
              type: "tool_result",
              tool_use_id: id(n),
              content: "old",
            })),
          });
        });
        if (trailingAssistant) {
          messages.push({ role: "assistant", content: [{ type: "text", text: "paused" }] });
        }
        const entries = lost.map((n, i) => ({ round: 9, index: indexes[i]!, block: block(id(n)) }));
        const journaled: StoredCall[] = [];
        const records: RecordedCall[] = [];
        entries.forEach((e, i) => {
          const f = flags[i]!;
          if (f.journal || !f.record) journaled.push(e);
          if (f.record) records.push(recorded(e, `real ${e.block.id}`, f.err));
        });
        // Stale rows of stored calls: present in the conversation, never restored.
        const input = {
          journaled: [...journaled.reverse(), ...stale],
          recorded: [...records, ...stale.map((e) => recorded(e, "stale"))],
        };
        const out = restoreRound(messages, input);

        expect(validateConversation(out.messages)).toEqual([]);
        for (let i = 0; i < out.from; i++) expect(out.messages[i]).toBe(messages[i]);
        const expectedOrder = [...entries].sort((a, b) => a.index - b.index).map((e) => e.block.id);
        expect(out.restored).toEqual(expectedOrder);
        const uses = out.messages.flatMap((m) =>
          m.role === "assistant" ? m.content.filter((b) => b.type === "tool_use") : [],
        );
        const results = out.messages.flatMap((m) =>
          m.role === "user" && Array.isArray(m.content)
            ? m.content.filter((b) => b.type === "tool_result")
            : [],
        );
        for (const e of entries) {
          expect(uses.filter((b) => b.id === e.block.id)).toHaveLength(1);
          const answers = results.filter((b) => b.tool_use_id === e.block.id);
          expect(answers).toHaveLength(1);
          const record = records.find((r) => r.call.block.id === e.block.id);
          if (record) {
            expect(answers[0]?.content).toBe(record.outcome.resultText);
            expect(answers[0]?.is_error === true).toBe(record.outcome.isError);
          } else {
            expect(answers[0]).toMatchObject({
              content: notRunAfterRestartText("add_to_cart"),
              is_error: true,
            });
          }
        }
        // Restoring again adds nothing.
        expect(restoreRound(out.messages, input).restored).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
