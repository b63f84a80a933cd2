/**
 * Conformance against real opencode streams (third-party data, read from ../shared/recordings/dev/opencode/ next to
 * the repository, never copied into it). Skipped, with a visible notice, when that folder is absent. Only dev/ is
 * read — never acceptance/.
 *
 * - kimaki-*.jsonl: kimaki's captures of opencode 1.2.15 server events, `{timestamp, threadId, projectDirectory,
 *   event}` (the table's `kimaki` input wrapper unwraps them) → surface opencode. Some end mid-turn (the capture
 *   stopped): whatever is open then must be reported by end(), never dropped silently.
 * - takopi-opencode-run-json-*.jsonl: `opencode run --format json` output → surface opencode-run.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";

const dev = devFolder("opencode");
const { dir: DIR, present } = dev;
const files = dev.list(".jsonl", ".ndjson");
const surfaceOf = (f: string) => (/opencode-run/.test(f) ? "opencode-run" : "opencode");
const P = (e: CanonicalEvent): any => e.payload as any;

function replay(file: string) {
  const n = createNormalizer({ surface: surfaceOf(file), ids: counterIds(), clock: steppingClock(), validate: true });
  const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
  const messages = lines.map((l) => JSON.parse(l));
  const events: CanonicalEvent[] = [];
  let threw: unknown;
  try {
    lines.forEach((l, i) => events.push(...n.pushLine(l, { lineNumber: i + 1 })));
  } catch (err) {
    threw = err;
  }
  const end = n.end();
  return { events: [...events, ...end], end, stats: n.stats(), messages, threw };
}

/** The final text of every text part in the input (the last snapshot of each part id), by part id. */
function finalTexts(messages: any[], surface: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of messages) {
    const ev = surface === "opencode-run" ? (m.type === "text" ? { type: "message.part.updated", properties: { part: m.part } } : undefined) : (m.event ?? m);
    const part = ev?.type === "message.part.updated" ? ev.properties.part : undefined;
    if (part?.type === "text" && typeof part.text === "string") out.set(part.id, part.text);
  }
  return out;
}

/** Ids of the text parts of assistant messages that finished (time.end) in the input. */
function finishedAssistantTexts(messages: any[], surface: string): Set<string> {
  const user = new Set<string>();
  const out = new Set<string>();
  for (const m of messages) {
    const ev = surface === "opencode-run" ? (m.type === "text" ? { type: "message.part.updated", properties: { part: m.part } } : undefined) : (m.event ?? m);
    if (ev?.type === "message.updated" && ev.properties.info.role === "user") user.add(ev.properties.info.id);
    const part = ev?.type === "message.part.updated" ? ev.properties.part : undefined;
    if (part?.type === "text" && part.time?.end !== undefined && !user.has(part.messageID)) out.add(part.id);
  }
  return out;
}

describeDev("conformance: opencode dev recordings", present, DIR, () => {

  it("finds the recordings (kimaki server events and an opencode run capture)", () => {
    expect(files.filter((f) => surfaceOf(f) === "opencode").length).toBeGreaterThanOrEqual(1);
    expect(files.filter((f) => surfaceOf(f) === "opencode-run").length).toBeGreaterThanOrEqual(1);
  });

  for (const file of files) {
    describe(file, () => {
      const r = replay(file);
      const surface = surfaceOf(file);

      it("replays without exceptions, every event valid, nothing unknown or malformed", () => {
        expect(r.threw).toBeUndefined();
        expect(r.events.length).toBeGreaterThan(0);
        expect(r.events.filter((e) => !validateCanonicalEvent(e)).map((e) => e.type)).toEqual([]);
        expect(r.stats.unknown).toBe(0);
        expect(r.stats.invalid).toBe(0);
        expect(r.events.filter((e) => e.type === "runtime.error" && P(e).class === "validation_error")).toEqual([]);
        expect(r.events.filter((e) => e.type === "runtime.warning" && /unknown|no row|waiting/.test(P(e).message)).map((e) => P(e).message)).toEqual([]);
      });

      // opencode trims trailing whitespace off a text part when it ends (the streamed deltas keep it), so the streamed
      // text may end in whitespace the final snapshot lacks; nothing else may differ.
      it("the text of each assistant item equals the final text of its part (up to the trailing whitespace opencode trims); user text never becomes assistant text", () => {
        const finals = finalTexts(r.messages, surface);
        const text = new Map<string, string>();
        const byItem = new Map<string, string>();
        for (const e of r.events) {
          if (e.type === "content.delta" && P(e).streamKind === "assistant_text") text.set(e.itemId!, (text.get(e.itemId!) ?? "") + P(e).delta);
          if (e.type === "item.completed" && P(e).itemType === "assistant_message") byItem.set(e.itemId!, P(e).data?.id);
        }
        expect([...byItem.values()].sort()).toEqual([...finishedAssistantTexts(r.messages, surface)].sort());
        for (const [item, partId] of byItem) {
          const streamed = text.get(item) ?? "";
          const final = finals.get(partId)!;
          expect(streamed.trimEnd(), `part ${partId}`).toBe(final.trimEnd());
          expect(streamed.startsWith(final), `part ${partId}: the final text is a prefix of what streamed`).toBe(true);
        }
        const userTexts = new Set(r.events.filter((e) => e.type === "item.completed" && P(e).itemType === "user_message").map((e) => P(e).detail));
        for (const t of text.values()) expect(userTexts.has(t)).toBe(false);
      });

      it("every tool item and permission is closed, or reported open by end() when the capture stopped mid-turn", () => {
        const open = new Set<string>();
        const requests = new Set<string>();
        for (const e of r.events) {
          if (e.type === "item.started") open.add(e.itemId!);
          if (e.type === "item.completed") open.delete(e.itemId!);
          if (e.type === "request.opened") requests.add(e.requestId!);
          if (e.type === "request.resolved") requests.delete(e.requestId!);
        }
        const reported = new Set<string>(r.end.map((e) => (e.itemId ?? e.requestId) as string | undefined).filter((x): x is string => !!x));
        for (const id of [...open, ...requests]) expect(reported.has(id), `${id} still open and not reported`).toBe(true);
        const turnOpen = r.end.some((e) => P(e).detail?.role === "turn");
        if (!turnOpen) expect(r.end).toEqual([]);
      });
    });
  }
});
