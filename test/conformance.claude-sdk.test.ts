/**
 * Conformance of the claude-sdk table against real recorded Claude SDK / `claude -p --output-format stream-json`
 * streams (third-party data, read from ../shared/recordings/dev/claude-stream-json next to the repository, never
 * copied into it). Skipped, with a visible notice, when that folder is absent. Only dev/ is read — never acceptance/.
 *
 * Formats (../shared/recordings/README.md): *.jsonl are bare SDKMessage lines; openharness-*.json are JSON documents
 * whose `messages` hold the SDK messages, bare or as `{message, relativeTimestamp, index}` entries (the table's
 * `timed-entry` input wrapper unwraps those).
 *
 * Messages are given to `push()`, not `pushLine()`: pushLine's capture-wrapper detection (src/capture/unwrap.ts
 * `unwrap`) takes any object with a `message` field for a capture line, which strips bare SDK `assistant`/`user`
 * messages down to their API message (reported; see mappings/claude-sdk.yaml).
 *
 * Asserted: schema-valid output, increasing sequence, no exception, no malformed input, no unknown/no-row warning,
 * every item started once and completed once, every turn completed, nothing left open at the end, and the
 * reconstructed assistant text equal to the text of the recorded `assistant` text blocks, each once, in order.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const dev = devFolder("claude-stream-json", "claude-sdk");
const { dir: DIR, present } = dev;
const P = (e: CanonicalEvent): any => e.payload as any;
const files = dev.list(".jsonl", ".json");

/** The input lines of a recording: JSONL lines, or the `messages` of a JSON document. */
function read(file: string): any[] {
  const text = readFileSync(join(DIR, file), "utf8");
  if (file.endsWith(".json")) {
    const doc = JSON.parse(text);
    const messages = Array.isArray(doc) ? doc : doc.messages;
    expect(Array.isArray(messages), `${file} has a messages array`).toBe(true);
    return messages;
  }
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

/** The SDK message of an input line (what the table's input wrappers find). */
const sdk = (x: any): any => (x && x.relativeTimestamp !== undefined && x.message?.type ? x.message : x);

interface Run { events: CanonicalEvent[]; end: CanonicalEvent[]; inputs: any[] }

function replay(inputs: any[]): Run {
  const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
  const events = inputs.flatMap((m) => n.push(m));
  const end = n.end();
  return { events: [...events, ...end], end, inputs };
}

describeDev("conformance: claude-sdk dev recordings (claude-stream-json)", present, DIR, () => {
  it("finds the recordings", () => expect(files.length).toBeGreaterThanOrEqual(1));

  for (const file of files) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = () => (cached ??= replay(read(file)));

      it("replays without an exception; canonical, unknown-free output", () => {
        expect(() => get()).not.toThrow();
        const r = get();
        expect(r.events.length).toBeGreaterThan(0);
        expect(r.events.filter((e) => !validateCanonicalEvent(e)).map((e) => `#${e.sequence} ${e.type}`), "schema-valid").toEqual([]);
        for (let i = 1; i < r.events.length; i++) expect(r.events[i].sequence).toBeGreaterThan(r.events[i - 1].sequence);
        expectVerified(r.events, file);
        expect(r.events.filter((e) => e.type === "runtime.error" && P(e).class === "validation_error").map((e) => P(e).message), "no malformed input").toEqual([]);
        expect(r.events.filter((e) => e.type === "runtime.error" && /internal error|failed on this message/.test(P(e).message)).map((e) => P(e).message), "no exception").toEqual([]);
        expect(r.events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message), "no warning").toEqual([]);
      });

      it("every item starts once and completes once; every turn completes; nothing left open", () => {
        const r = get();
        const count = (type: string) => {
          const m = new Map<string, number>();
          for (const e of r.events) if (e.type === type && e.itemId) m.set(e.itemId, (m.get(e.itemId) ?? 0) + 1);
          return m;
        };
        const started = count("item.started");
        const completed = count("item.completed");
        expect([...started.values()].every((n) => n === 1), "one item.started per item").toBe(true);
        expect([...completed.values()].every((n) => n === 1), "one item.completed per item").toBe(true);
        expect([...started.keys()].sort()).toEqual([...completed.keys()].sort());
        const turnsStarted = r.events.filter((e) => e.type === "turn.started").length;
        const turnsCompleted = r.events.filter((e) => e.type === "turn.completed").length;
        const results = r.inputs.map(sdk).filter((m) => m?.type === "result").length;
        expect(turnsStarted).toBe(results);
        expect(turnsCompleted).toBe(results);
        expect(r.end, "nothing left open at the end").toEqual([]);
      });

      it("reconstructed assistant text = the recorded assistant text blocks, each once, in order", () => {
        const r = get();
        const recorded = r.inputs.map(sdk).filter((m) => m?.type === "assistant").flatMap((m) => (m.message?.content ?? []).filter((b: any) => b?.type === "text").map((b: any) => b.text as string));
        expect(recorded.length).toBeGreaterThan(0);
        const text = new Map<string, string>();
        const out: string[] = [];
        for (const e of r.events) {
          if (e.type === "content.delta" && P(e).streamKind === "assistant_text" && e.itemId) text.set(e.itemId, (text.get(e.itemId) ?? "") + P(e).delta);
          if (e.type === "item.completed" && P(e).itemType === "assistant_message" && e.itemId) out.push(text.get(e.itemId) ?? "");
        }
        expect(out).toEqual(recorded);
        const finals = r.events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message").map((e) => P(e).data?.text);
        expect(finals).toEqual(recorded);
      });
    });
  }
});
