/**
 * Conformance against real recorded `cursor-agent --print --output-format stream-json` runs (third-party data, read
 * from ../shared/recordings/dev/cursor/ next to the repository, never copied into it). Skipped, with a visible notice,
 * when that folder is absent. Only dev/ is read — never acceptance/.
 *
 * The files are bare stdout lines (no capture wrapper); pushLine would remove a {ts, channel, message} wrapper anyway.
 * None of them was recorded with --stream-partial-output: test/cursor-cli.test.ts derives partial-output streams from
 * them and checks those give the same text.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";

const SURFACE = "cursor-cli";
const dev = devFolder("cursor", SURFACE);
const { dir: DIR, present } = dev;
const files = dev.list(".jsonl", ".ndjson");
const MAPPED = new Set(["system", "user", "assistant", "thinking", "tool_call", "result"]);

interface Run { events: CanonicalEvent[]; lines: any[]; unknown: number; invalid: number }

function replay(file: string): Run {
  const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock(), validate: true });
  const text = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
  const events: CanonicalEvent[] = [];
  text.forEach((l, i) => events.push(...n.pushLine(l, { lineNumber: i + 1 })));
  events.push(...n.end());
  return { events, lines: text.map((l) => JSON.parse(l)), unknown: n.stats().unknown, invalid: n.stats().invalid };
}

const P = (e: CanonicalEvent): any => e.payload as any;
const textOf = (content: any): string => (Array.isArray(content) ? content.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("") : "");

/** Per item: the text its content.delta events delivered for a stream kind, in item order. */
function itemTexts(events: CanonicalEvent[], stream: string): string[] {
  const m = new Map<string, string>();
  for (const e of events) if (e.type === "content.delta" && P(e).streamKind === stream) m.set(e.itemId!, (m.get(e.itemId!) ?? "") + P(e).delta);
  return [...m.values()];
}

describeDev(`conformance: ${SURFACE} dev recordings`, present, DIR, () => {

  it("finds the recordings", () => expect(files.length).toBeGreaterThanOrEqual(1));

  for (const file of files) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = (): Run => (cached ??= replay(file));

      it("replays without an exception; every event is canonical (validate: true); sequence strictly increases", () => {
        expect(() => get()).not.toThrow();
        const { events, invalid } = get();
        expect(events.length).toBeGreaterThan(0);
        expect(invalid).toBe(0);
        expect(events.filter((e) => !validateCanonicalEvent(e)).map((e) => `#${e.sequence} ${e.type}`)).toEqual([]);
        expect(events.filter((e) => e.type === "runtime.error").map((e) => P(e).message)).toEqual([]);
        for (let i = 1; i < events.length; i++) expect(events[i].sequence).toBeGreaterThan(events[i - 1].sequence);
      });

      it("no unknown: every line type is a mapped one, and none falls through", () => {
        const { lines, unknown, events } = get();
        expect(lines.filter((l) => !MAPPED.has(l.type)).map((l) => l.type)).toEqual([]);
        expect(unknown).toBe(0);
        expect(events.filter((e) => (e as any).raw?.rule === "agentnorm#unknown")).toEqual([]);
      });

      it("concatenated chunks equal each message: one assistant item per segment with its text; thinking deltas = the reasoning item; all text = result.result", () => {
        const { lines, events } = get();
        const segments = lines.filter((l) => l.type === "assistant").map((l) => textOf(l.message.content));
        expect(itemTexts(events, "assistant_text")).toEqual(segments);
        const thinking = lines.filter((l) => l.type === "thinking" && l.subtype === "delta").map((l) => l.text).join("");
        expect(itemTexts(events, "reasoning_text").join("")).toBe(thinking);
        const result = lines.find((l) => l.type === "result");
        if (result) expect(segments.join("")).toBe(result.result);
        // every text item is started once and completed once
        const textItems = new Set(events.filter((e) => e.type === "content.delta").map((e) => e.itemId));
        for (const id of textItems) {
          expect(events.filter((e) => e.itemId === id && e.type === "item.started")).toHaveLength(1);
          expect(events.filter((e) => e.itemId === id && e.type === "item.completed")).toHaveLength(1);
        }
      });

      it("every tool call is started and closed with its status; no permission or item is left open; the turn completes", () => {
        const { lines, events } = get();
        const calls = new Set(lines.filter((l) => l.type === "tool_call").map((l) => l.call_id));
        const started = events.filter((e) => e.type === "item.started" && /ToolCall$/.test(P(e).data?.kind ?? ""));
        expect(new Set(started.map((e) => (e.providerRefs as any)?.providerItemId))).toEqual(calls);
        const done = events.filter((e) => e.type === "item.completed" && calls.has((e.providerRefs as any)?.providerItemId));
        expect(done).toHaveLength(calls.size);
        expect(done.every((e) => P(e).itemType === "command_execution" && P(e).status === "completed" && P(e).data.kind === "shellToolCall")).toBe(true);
        expect(events.filter((e) => e.type === "request.resolved").length).toBe(events.filter((e) => e.type === "request.opened").length);
        expect(events.filter((e) => (e as any).raw?.rule === "agentnorm#end").map((e) => P(e).message)).toEqual([]);
        expect(events.filter((e) => e.type === "turn.started")).toHaveLength(1);
        expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["completed"]);
        // closeOpen completed nothing: every item was closed by its own line
        expect(events.filter((e) => e.type === "item.completed" && /run ended/.test(P(e).detail ?? ""))).toEqual([]);
      });
    });
  }
});
