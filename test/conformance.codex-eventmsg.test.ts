/**
 * Conformance of the codex-eventmsg table against real recorded Codex EventMsg streams (third-party data, read from
 * ../shared/recordings/dev/ next to the repository, never copied into it). Skipped, with a visible notice, when that
 * folder is absent. Only dev/ is read — never acceptance/.
 *
 * - dev/codex-eventmsg/*.jsonl: a TUI session log ({ts, dir, kind, payload}; kind "codex_event" carries {id, msg},
 *   every other kind is the TUI's own activity) and bare {id, msg} lines mixed with non-JSON log lines. Each line goes
 *   through pushLine, as the CLI does: the table's input wrappers unwrap them, non-JSON lines become counted warnings.
 * - dev/codex-rollout/*.jsonl: only their event_msg lines (the payload is an EventMsg) are this table's concern; the
 *   other line types are skipped by the table's rollout-other wrapper (the codex-rollout table maps them).
 *
 * Asserted: no exception; every event is canonical (schema) and sequenced; no `unknown` warning for a type the table
 * maps or ignores; no validation error; turns and items open and close once; and the assistant text rebuilt from the
 * content.delta stream equals the text of every recorded final message (agent_message, and the turn's
 * last_agent_message), i.e. no text is lost or emitted twice.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent, type NormalizerStats } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const SURFACE = "codex-eventmsg";
const eventmsgDev = devFolder("codex-eventmsg", SURFACE);
const rolloutDev = devFolder("codex-rollout", `${SURFACE} (rollout event_msg lines)`);
const { dir: EVENTMSG_DIR, present } = eventmsgDev;
const ROLLOUT_DIR = rolloutDev.dir;
const eventmsgFiles = eventmsgDev.list(".jsonl", ".ndjson");
const rolloutFiles = present ? rolloutDev.list(".jsonl", ".ndjson") : [];

/** One input line as the recording has it, and the EventMsg inside it (if any). */
interface Line { text: string; json: unknown; isJson: boolean; msg?: any; submission?: string }

function readLines(file: string): Line[] {
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((text) => {
    let json: any;
    try { json = JSON.parse(text); } catch { return { text, json: undefined, isJson: false }; }
    if (json?.kind === "codex_event") return { text, json, isJson: true, msg: json.payload?.msg, submission: String(json.payload?.id) };
    if (json?.type === "event_msg") return { text, json, isJson: true, msg: json.payload };
    if (json?.msg !== undefined && json?.kind === undefined) return { text, json, isJson: true, msg: json.msg, submission: String(json.id) };
    return { text, json, isJson: true };
  });
}

interface Run { lines: Line[]; perLine: CanonicalEvent[][]; events: CanonicalEvent[]; endEvents: CanonicalEvent[]; stats: NormalizerStats }

function replay(file: string): Run {
  const lines = readLines(file);
  const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
  const perLine = lines.map((l, i) => n.pushLine(l.text, { lineNumber: i + 1 }));
  const endEvents = n.end();
  return { lines, perLine, events: [...perLine.flat(), ...endEvents], endEvents, stats: n.stats() };
}

const P = (e: CanonicalEvent): any => e.payload as any;

/** Types the table maps or ignores (any kind). */
function mentionedTypes(): Set<string> {
  const t = SURFACES[SURFACE];
  const out = new Set<string>();
  for (const byType of Object.values(t.rows)) for (const m of Object.keys(byType ?? {})) out.add(m);
  for (const byType of Object.values(t.ignored)) for (const m of Object.keys(byType ?? {})) out.add(m);
  return out;
}

function commonChecks(get: () => Run): void {
  it("replays without an exception; every event is canonical; sequence strictly increases", () => {
    let run: Run | undefined;
    expect(() => { run = get(); }).not.toThrow();
    expect(run!.events.length).toBeGreaterThan(0);
    const bad = run!.events.filter((e) => !validateCanonicalEvent(e)).map((e) => {
      validateCanonicalEvent(e);
      return `#${e.sequence} ${e.type}: ${JSON.stringify((validateCanonicalEvent as any).errors)}`;
    });
    expect(bad).toEqual([]);
    for (let i = 1; i < run!.events.length; i++) expect(run!.events[i].sequence).toBeGreaterThan(run!.events[i - 1].sequence);
    expect(run!.events.filter((e) => e.type === "runtime.error").map((e) => P(e).message)).toEqual([]);
    expectVerified(run!.events);
  });

  it("no 'unknown' for a type the table maps or ignores; non-JSON lines are counted warnings", () => {
    const mentioned = mentionedTypes();
    const { events, lines, stats } = get();
    const unknownMapped = events
      .filter((e) => e.type === "runtime.warning" && e.raw?.rule === "agentnorm#unknown")
      .filter((e) => P(e).detail?.method === undefined || mentioned.has(P(e).detail.method))
      .map((e) => `#${e.sequence} ${P(e).message}`);
    expect(unknownMapped).toEqual([]);
    const nonJson = lines.filter((l) => !l.isJson).length;
    expect(events.filter((e) => e.raw?.rule === "agentnorm#non-json")).toHaveLength(nonJson);
    expect(stats.unknown).toBe(nonJson);
    expect(stats.invalid).toBe(0);
  });

  it("every started turn completes once; items start and complete once; nothing is left open", () => {
    const { events, endEvents } = get();
    const turns = events.filter((e) => e.type === "turn.started");
    for (const s of turns) expect(events.filter((e) => e.type === "turn.completed" && e.turnId === s.turnId), `completions of ${s.turnId}`).toHaveLength(1);
    const started = events.filter((e) => e.type === "item.started");
    for (const s of started) {
      expect(started.filter((x) => x.itemId === s.itemId), `starts of ${s.itemId}`).toHaveLength(1);
      expect(events.filter((e) => e.type === "item.completed" && e.itemId === s.itemId), `completions of ${s.itemId} (${P(s).itemType})`).toHaveLength(1);
    }
    expect(endEvents.map((e) => P(e).message)).toEqual([]);
  });

  it("assistant text rebuilt from the deltas equals every recorded final message, exactly once", () => {
    const { events, lines, perLine } = get();
    const text = new Map<string, string>();
    for (const e of events) if (e.type === "content.delta" && P(e).streamKind === "assistant_text") {
      expect(e.itemId, `#${e.sequence} assistant text belongs to an item`).toMatch(/^itm_/);
      text.set(e.itemId!, (text.get(e.itemId!) ?? "") + P(e).delta);
    }
    const finals = events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
    // one assistant item per recorded final message (agent_message; 0.171: item_completed AgentMessage)
    const recorded = lines.filter((l) => l.msg?.type === "agent_message" || (l.msg?.type === "item_completed" && l.msg.item?.type === "AgentMessage"));
    expect(finals).toHaveLength(recorded.length);
    recorded.forEach((l, i) => {
      const want: string = l.msg.type === "agent_message" ? l.msg.message : l.msg.item.content.map((c: any) => c.text).join("");
      expect(text.get(finals[i].itemId!) ?? "", `assistant text of recorded message #${i + 1}`).toBe(want);
    });
    // the text of each turn's last message is the turn's last_agent_message
    lines.forEach((done, i) => {
      if (!(done.msg?.type === "task_complete" || done.msg?.type === "turn_complete") || typeof done.msg.last_agent_message !== "string") return;
      const completed = perLine[i].find((e) => e.type === "turn.completed");
      expect(completed, "the turn.completed of this task_complete").toBeDefined();
      const last = finals.filter((f) => f.turnId === completed!.turnId && f.sequence < completed!.sequence).pop();
      expect(last, `an assistant message in turn ${completed!.turnId}`).toBeDefined();
      expect(text.get(last!.itemId!)).toBe(done.msg.last_agent_message);
    });
  });
}

describeDev(`conformance: ${SURFACE} dev recordings`, present, EVENTMSG_DIR, () => {

  it("finds the recordings", () => {
    expect(eventmsgFiles.length).toBeGreaterThanOrEqual(1);
  });

  for (const file of eventmsgFiles) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = (): Run => (cached ??= replay(join(EVENTMSG_DIR, file)));
      commonChecks(get);

      it("every line is either an agent event, a counted TUI/log line, or a non-JSON warning", () => {
        const { lines, stats, perLine } = get();
        const tuiOther = lines.filter((l) => l.isJson && (l.json as any)?.kind !== undefined && (l.json as any)?.kind !== "codex_event").length;
        expect(stats.ignored[`${SURFACE}#input-tui-other`] ?? 0).toBe(tuiOther);
        // every agent event produced events of this table, or its type is deliberately ignored
        const t = SURFACES[SURFACE];
        const ignoredType = (type: string) => Object.values(t.ignored).some((byType) => byType?.[type] !== undefined);
        const silent = lines
          .map((l, i) => ({ l, i }))
          .filter(({ l, i }) => l.msg !== undefined && !ignoredType(l.msg.type) && !perLine[i].some((e) => e.raw?.rule?.startsWith(`${SURFACE}#`)))
          .map(({ l, i }) => `line ${i + 1}: ${l.msg.type}`);
        expect(lines.some((l) => l.msg !== undefined)).toBe(true);
        expect(silent).toEqual([]);
      });
    });
  }

  for (const file of rolloutFiles) {
    describe(`codex-rollout/${file} (event_msg lines)`, () => {
      let cached: Run | undefined;
      const get = (): Run => (cached ??= replay(join(ROLLOUT_DIR, file)));
      commonChecks(get);

      it("the other rollout lines are skipped by the rollout-other wrapper, and counted", () => {
        const { lines, stats } = get();
        const other = lines.filter((l) => l.isJson && (l.json as any)?.type !== "event_msg").length;
        expect(stats.ignored[`${SURFACE}#input-rollout-other`] ?? 0).toBe(other);
      });
    });
  }
});
