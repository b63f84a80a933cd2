/**
 * The render side (accumulator, chat_event projection, terminal render, viewer cards) reads canonical fields only:
 * never an event's `raw` nor an item's provider-shaped `data`. Checked twice: in the sources (no `.data` / `.raw`
 * access outside comments) and in behaviour (an item whose `data` says something else renders from its typed fields).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import { toChatEvents } from "../src/render/chat-event.js";

const RENDER_SIDE = ["src/render/accumulator.ts", "src/render/chat-event.ts", "src/render/render-text.ts", "src/view/transcript-view.ts", "src/view/labels.ts"];

/** The source without comments and string literals (so docs may still mention the fields). */
function code(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1")
    .replace(/`(?:\\.|[^`\\])*`/g, "``")
    .replace(/"(?:\\.|[^"\\])*"/g, '""');
}

describe("render side reads canonical fields only", () => {
  for (const f of RENDER_SIDE) {
    it(`${f} reads no event raw and no item data`, () => {
      const src = code(f);
      expect(src.match(/\??\.(data|raw)\b(?!\s*:)/g) ?? []).toEqual([]);
      expect(src.match(/\[\s*["'`](data|raw)["'`]\s*\]/g) ?? []).toEqual([]);
    });
  }

  it("the scan finds a read when there is one", () => {
    expect("x = p.data.command".match(/\??\.(data|raw)\b(?!\s*:)/g)).toEqual([".data"]);
    expect("y = e?.raw".match(/\??\.(data|raw)\b(?!\s*:)/g)).toEqual(["?.raw"]);
  });

  const events = [
    { type: "turn.started", payload: {}, turnId: "trn_1" },
    { type: "item.started", turnId: "trn_1", itemId: "itm_1", payload: { itemType: "command_execution", status: "inProgress", command: "ls", data: { command: "rm -rf /", aggregatedOutput: "from data" } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_1", payload: { itemType: "command_execution", status: "completed", command: "ls", exitCode: 0, output: "a.txt\n", data: { aggregatedOutput: "from data", exitCode: 9 } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_2", payload: { itemType: "file_change", status: "completed", files: [{ path: "a.py", change: "update", diff: "@@ -1 +1 @@\n-a\n+b" }], data: { changes: [{ path: "wrong.py", diff: "x" }] } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_3", payload: { itemType: "user_message", status: "completed", text: "hello", data: { content: "from data" } } },
  ].map((e, i) => ({ eventId: `evt_${i + 1}`, schemaVersion: 2, sequence: i + 1, provider: "codex", sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...e }));

  it("the accumulator renders typed fields, not data", () => {
    const a = createAccumulator();
    a.applyAll(events);
    const bl = snapshotBlocks(a.snapshot()) as any[];
    const tool = bl.find((b) => b.blockId === "itm_1:tool");
    expect(tool).toMatchObject({ kind: "tool", command: "ls", exitCode: 0, status: "completed" });
    expect(tool.data).toBeUndefined();
    expect(bl.find((b) => b.blockId === "itm_1:terminal")?.text).toBe("a.txt\n");
    expect(bl.find((b) => b.blockId === "itm_2:diff")?.files).toEqual([{ path: "a.py", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b" }]);
    expect(bl.find((b) => b.blockId === "itm_3:text")?.text).toBe("hello");
  });

  it("the chat_event projection carries typed fields, not data", () => {
    const recs = toChatEvents(events as any);
    const tool = recs.filter((r) => r.kind === "tool" && r.toolCallId === "itm_1").pop()!;
    expect(tool.tool).toMatchObject({ command: "ls", exitCode: 0, result: "a.txt\n" });
    expect(recs.find((r) => r.kind === "diff")?.diff?.files).toEqual([{ path: "a.py", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b" }]);
    expect(recs.find((r) => r.role === "user" && r.phase === "completed")?.text).toBe("hello");
  });
});
