/**
 * Conformance of the claude-transcript table against real Claude Code on-disk transcripts (third-party data, read from
 * ../shared/recordings/dev/claude-transcript next to the repository, never copied into it), plus the transcript of our
 * own recorded wire session (dev/claude-wire/*.transcript.jsonl). Skipped, with a visible notice, when the folder is
 * absent. Only dev/ is read — never acceptance/.
 *
 * Asserted per file: no exception, schema-valid output, no malformed input, no unknown line (every line type of the
 * table is mapped or ignored), every item started once and completed at most once, the reconstructed text of the last
 * assistant item equal to the text of the last assistant text line, and every tool item closed — except a tool use
 * the file never answers (no tool_result line anywhere: the session was cut off while the tool was pending), which
 * end() must then report as still open, together with its unterminated turn (see mappings/claude-transcript.yaml:
 * transcripts of CLIs that do not record stop reasons have no end marker for their last turn).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { DEV_BASE, devFolder } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const dev = devFolder("claude-transcript");
const wire = devFolder("claude-wire", "claude-transcript (claude-wire)");
const present = dev.present;
const P = (e: CanonicalEvent): any => e.payload as any;
const files = present
  ? [...dev.list(".jsonl").map((f) => join(dev.dir, f)), ...wire.list(".transcript.jsonl").map((f) => join(wire.dir, f))]
  : [];

(present ? describe : describe.skip)("conformance: claude-transcript dev recordings", () => {
  it("has the recordings", () => expect(files.length).toBeGreaterThanOrEqual(4));

  for (const file of files) {
    it(relative(DEV_BASE, file), () => {
      const text = readFileSync(file, "utf8");
      const lines = text.split("\n").filter((l) => l.trim() !== "");
      const parsed = lines.map((l) => JSON.parse(l));
      const n = createNormalizer({ surface: "claude-transcript", ids: counterIds(), clock: steppingClock() });
      let events: CanonicalEvent[] = [];
      expect(() => { events = lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })); }).not.toThrow();
      const end = n.end();
      const stats = n.stats();
      const all = [...events, ...end];

      // valid output, nothing malformed, nothing unknown; warnings only from end()
      expect(all.filter((e) => !validateCanonicalEvent(e)).map((e) => e.type)).toEqual([]);
      expect(stats.invalid).toBe(0);
      expect(stats.unknown).toBe(0);
      expect(events.filter((e) => e.type === "runtime.warning" || (e.type === "runtime.error" && P(e).class !== "provider_error")).map((e) => JSON.stringify(e.payload))).toEqual([]);
      for (let i = 1; i < all.length; i++) expect(all[i].sequence).toBeGreaterThan(all[i - 1].sequence);
      expectVerified(all, file);

      // items: started once, completed at most once
      const started = new Map<string, number>();
      const completed = new Map<string, string>();
      for (const e of events) {
        if (e.type === "item.started") started.set(e.itemId!, (started.get(e.itemId!) ?? 0) + 1);
        if (e.type === "item.completed") {
          expect(completed.has(e.itemId!), `item ${e.itemId} completed twice`).toBe(false);
          completed.set(e.itemId!, P(e).itemType);
        }
      }
      for (const [id, c] of started) expect(c, `item ${id} started ${c} times`).toBe(1);

      // every tool item closed, unless the file never answers its tool use (then end() reports it)
      const answered = new Set(parsed.flatMap((l) => (Array.isArray(l.message?.content) ? l.message.content : []).filter((b: any) => b?.type === "tool_result").map((b: any) => b.tool_use_id)));
      const toolUses = parsed.flatMap((l) => (l.type === "assistant" && Array.isArray(l.message?.content) ? l.message.content : []).filter((b: any) => b?.type === "tool_use").map((b: any) => b.id as string));
      const unanswered = toolUses.filter((id) => !answered.has(id));
      const openAtEnd = end.filter((e) => P(e).detail?.role === "item").map((e) => P(e).detail.providerId);
      expect(openAtEnd.sort()).toEqual([...unanswered].sort());
      expect(end.filter((e) => P(e).detail?.role === "request")).toEqual([]);
      expect(end.filter((e) => P(e).detail?.role === "turn").length).toBeLessThanOrEqual(1);
      if (unanswered.length > 0) expect(end.filter((e) => P(e).detail?.role === "turn").length).toBe(1);
      // items: every completed item was started
      for (const id of completed.keys()) expect(started.has(id), `item ${id} completed without start`).toBe(true);

      // reconstructed text of the last assistant item = the last assistant text line
      const lastLine = [...parsed].reverse().find((l) => l.type === "assistant" && l.message?.content?.[0]?.type === "text");
      const texts = new Map<string, string>();
      let lastAssistant: string | undefined;
      for (const e of events) {
        if (e.type === "content.delta" && P(e).streamKind === "assistant_text") texts.set(e.itemId!, (texts.get(e.itemId!) ?? "") + P(e).delta);
        if (e.type === "item.completed" && P(e).itemType === "assistant_message" && !e.parentId) lastAssistant = texts.get(e.itemId!) ?? "";
      }
      expect(lastLine).toBeDefined();
      expect(lastAssistant).toBe(lastLine.message.content[0].text);
    });
  }
});
