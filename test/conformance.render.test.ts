/**
 * The render side over real third-party recordings (../shared/recordings/dev/, read in place, never copied; skipped
 * with a notice when absent): every recording is normalized, accumulated and projected to chat_event records.
 * Asserted: the accumulator takes every event without throwing and repairs only what a recording explains (captures
 * that start mid-session: a turn or item seen without its start), every chat_event record is schema-valid and the
 * record stream keeps the contract invariants, and the terminal view renders something.
 */
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent, type Direction } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { checkChatEvents, toChatEvents, type ChatEvent } from "../src/render/chat-event.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { devFolder } from "./support/dev-recordings.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
type AjvClass = typeof import("ajv").default;
const AjvCtor: AjvClass = (Ajv as unknown as { default?: AjvClass }).default ?? (Ajv as unknown as AjvClass);
const validate = new AjvCtor({ strict: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(join(ROOT, "schemas/chat-event.schema.json"), "utf8")));

/** dev/ folder → surface; the files each surface's own conformance test replays as whole sessions. */
const FOLDERS: { folder: string; surface: string; files: (name: string) => boolean }[] = [
  { folder: "acp", surface: "acp", files: (f) => f.endsWith(".jsonl") },
  { folder: "claude-stream-json", surface: "claude-sdk", files: (f) => f.endsWith(".jsonl") },
  { folder: "claude-transcript", surface: "claude-transcript", files: (f) => f.endsWith(".jsonl") },
  { folder: "codex-app-server", surface: "codex-app-server", files: (f) => f.endsWith(".jsonl") || /^recorded-.*\.ndjson$/.test(f) },
  { folder: "codex-eventmsg", surface: "codex-eventmsg", files: (f) => f.endsWith(".jsonl") },
  { folder: "codex-exec", surface: "codex-exec", files: (f) => f.endsWith(".jsonl") },
  { folder: "codex-rollout", surface: "codex-rollout", files: (f) => f.endsWith(".jsonl") },
];
/**
 * Captures of frames that start mid-session (codex-commitmsg-*): their first turn/items were not captured. The frames
 * come from several threads, and some name none: those belong to the thread of the frame before them, so an item
 * whose start named no thread can start again in its own thread (late-start).
 */
/** Excerpts (codex commit-message frames) and harness snapshots that do not record the prompt (claude-agent-acp's). */
const MID_SESSION = /^(codex-commitmsg-|claude-agent-acp-scenario-)/;

function replay(dir: string, file: string, surface: string): CanonicalEvent[] {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  const dirFile = join(dir, file.replace(/\.ndjson$/, ".dir"));
  const dirs = file.endsWith(".ndjson") && existsSync(dirFile) ? readFileSync(dirFile, "utf8").split("\n").map((d) => d.trim()) : [];
  const out: CanonicalEvent[] = [];
  readFileSync(join(dir, file), "utf8").split("\n").forEach((l, i) => {
    if (l.trim() === "") return;
    const d = dirs[i];
    out.push(...n.pushLine(l, { lineNumber: i + 1, direction: d === "in" || d === "out" ? (d as Direction) : undefined }));
  });
  out.push(...n.end());
  return out;
}

for (const { folder, surface, files } of FOLDERS) {
  const dev = devFolder(folder, `render (${folder})`);
  const list = dev.list(".jsonl", ".ndjson").filter(files);
  (dev.present ? describe : describe.skip)(`render conformance: dev/${folder} (${surface})`, () => {
    it("has recordings", () => expect(list.length).toBeGreaterThan(0));
    for (const f of list) {
      it(f, () => {
        const events = replay(dev.dir, f, surface);
        expect(events.length).toBeGreaterThan(0);
        const acc = createAccumulator();
        acc.applyAll(events);
        const snap = acc.snapshot();
        expect(snap.eventCount).toBe(events.length);
        const allowed = MID_SESSION.test(f) ? ["turn-without-start", "completion-without-start", "late-start"] : [];
        expect(snap.problems.filter((p) => !allowed.includes(p.kind)).map((p) => `${p.kind}: ${p.message}`)).toEqual([]);
        const recs = toChatEvents(events);
        expect(recs.filter((r) => !validate(r)).map((r) => `#${(r as ChatEvent).sequence} ${(r as ChatEvent).kind}/${(r as ChatEvent).phase}`)).toEqual([]);
        expect(checkChatEvents(recs)).toEqual([]);
        expect(renderSnapshotText(snap).length).toBeGreaterThan(0);
      });
    }
  });
}
