/**
 * Conformance against real recorded streams (third-party data, read from ../shared/recordings/dev/ next to the
 * repository, never copied into it): `codex exec --json` / Codex SDK ThreadEvent streams (dev/codex-exec) and Codex
 * rollout files (dev/codex-rollout). Skipped, with a visible notice, when that folder is absent. Only dev/ is read —
 * never acceptance/.
 *
 * Formats (../shared/recordings/README.md): codex-exec *.jsonl are bare ThreadEvent lines, openharness-*.json is a JSON
 * array of them; codex-rollout *.jsonl are bare `{timestamp, type, payload}` lines (Codex 0.40 `agentcmd-*`, and two
 * 0.171.0 `recorded-*` sessions).
 *
 * Asserted: no exception, schema-valid output, strictly increasing sequence, no `unknown` warning for a type the
 * tables map or ignore, no malformed input, and the reconstructed assistant text equal to the recorded final message
 * text (per message, in order).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const P = (e: CanonicalEvent): any => e.payload as any;

interface Run { events: CanonicalEvent[]; end: CanonicalEvent[]; messages: any[]; stats: ReturnType<ReturnType<typeof createNormalizer>["stats"]> }

function read(dir: string, file: string): any[] {
  const text = readFileSync(join(dir, file), "utf8");
  if (file.endsWith(".json")) {
    const arr = JSON.parse(text);
    expect(Array.isArray(arr), `${file} is a JSON array`).toBe(true);
    return arr;
  }
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

function replay(surface: string, messages: any[]): Run {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const events = messages.flatMap((m) => n.push(m));
  const end = n.end();
  return { events: [...events, ...end], end, messages, stats: n.stats() };
}

/** Types a table mentions (rows or ignore entries), for `unknown` warnings. */
function mentioned(surfaces: string[]): Set<string> {
  const out = new Set<string>();
  for (const s of surfaces) {
    const t = SURFACES[s];
    if (!t) continue;
    for (const byType of Object.values(t.rows)) for (const m of Object.keys(byType ?? {})) out.add(m);
    for (const byType of Object.values(t.ignored)) for (const m of Object.keys(byType ?? {})) out.add(m);
  }
  return out;
}

function commonChecks(r: Run, surfaces: string[]): void {
  expect(r.events.length).toBeGreaterThan(0);
  const invalid = r.events.filter((e) => !validateCanonicalEvent(e)).map((e) => `#${e.sequence} ${e.type}`);
  expect(invalid, "schema-valid events").toEqual([]);
  for (let i = 1; i < r.events.length; i++) expect(r.events[i].sequence).toBeGreaterThan(r.events[i - 1].sequence);
  expectVerified(r.events, surfaces.join("+"));
  expect(r.events.filter((e) => e.type === "runtime.error" && /internal error|failed on this message/.test(P(e).message)).map((e) => P(e).message), "no exception").toEqual([]);
  expect(r.events.filter((e) => e.type === "runtime.error" && P(e).class === "validation_error").map((e) => P(e).message), "no malformed input").toEqual([]);
  const known = mentioned(surfaces);
  const unknown = r.events
    .filter((e) => e.type === "runtime.warning" && /unknown|no row|no input wrapper/i.test(P(e).message))
    .filter((e) => { const m = P(e).detail?.method ?? e.raw?.method; return m === undefined || known.has(m); })
    .map((e) => P(e).message);
  expect(unknown, "no unknown warning for a mapped type").toEqual([]);
}

/** assistant_text per assistant_message item, in item.completed order. */
function assistantTexts(events: CanonicalEvent[]): string[] {
  const text = new Map<string, string>();
  const out: string[] = [];
  for (const e of events) {
    if (e.type === "content.delta" && P(e).streamKind === "assistant_text" && e.itemId) text.set(e.itemId, (text.get(e.itemId) ?? "") + P(e).delta);
    if (e.type === "item.completed" && P(e).itemType === "assistant_message" && e.itemId) out.push(text.get(e.itemId) ?? "");
  }
  return out;
}

// ─────────────────────────────────────────── codex-exec ───────────────────────────────────────────
const execDev = devFolder("codex-exec");
const { dir: EXEC_DIR, present: execPresent } = execDev;
const execFiles = execDev.list(".jsonl", ".json");

describeDev("conformance: codex-exec dev recordings", execPresent, EXEC_DIR, () => {
  it("finds the recordings", () => expect(execFiles.length).toBeGreaterThanOrEqual(1));

  for (const file of execFiles) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = () => (cached ??= replay("codex-exec", read(EXEC_DIR, file)));

      it("replays without an exception; canonical, unknown-free output", () => {
        expect(() => get()).not.toThrow();
        commonChecks(get(), ["codex-exec"]);
        expect(get().stats.unknown).toBe(0);
      });

      it("reconstructed assistant text = the recorded agent_message texts, each once", () => {
        const recorded = get().messages.filter((m) => m.type === "item.completed" && m.item?.type === "agent_message").map((m) => m.item.text);
        expect(recorded.length).toBeGreaterThan(0);
        expect(assistantTexts(get().events)).toEqual(recorded);
        const finals = get().events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message").map((e) => P(e).data.text);
        expect(finals).toEqual(recorded);
      });

      it("every item starts once and completes once; every turn completes; nothing left open", () => {
        const started = get().events.filter((e) => e.type === "item.started").map((e) => e.itemId);
        const completed = get().events.filter((e) => e.type === "item.completed").map((e) => e.itemId);
        expect(new Set(started).size).toBe(started.length);
        expect([...completed].sort()).toEqual([...started].sort());
        const turns = get().events.filter((e) => e.type === "turn.started").map((e) => e.turnId);
        expect(get().events.filter((e) => e.type === "turn.completed").map((e) => e.turnId)).toEqual(turns);
        expect(get().end).toEqual([]);
      });
    });
  }
});

// ─────────────────────────────────────────── codex-rollout ───────────────────────────────────────────
const rolloutDev = devFolder("codex-rollout");
const { dir: ROLLOUT_DIR, present: rolloutPresent } = rolloutDev;
const hasEventMsg = SURFACES["codex-eventmsg"] !== undefined;
if (rolloutPresent && !hasEventMsg) console.warn("[conformance] codex-rollout: the codex-eventmsg table does not exist yet — event_msg lines cannot be mapped, rollout conformance skipped");
const rolloutFiles = rolloutDev.list(".jsonl");

/** The assistant messages a rollout records: response_item assistant messages (every version writes them), in order. */
function recordedAssistantMessages(lines: any[]): string[] {
  return lines
    .filter((l) => l.type === "response_item" && l.payload?.type === "message" && l.payload.role === "assistant")
    .map((l) => (l.payload.content ?? []).filter((c: any) => c?.type === "output_text").map((c: any) => c.text).join(""));
}

(rolloutPresent && hasEventMsg ? describe : describe.skip)("conformance: codex-rollout dev recordings", () => {
  if (!rolloutPresent || !hasEventMsg) {
    it.skip(!rolloutPresent ? `recordings folder absent (${ROLLOUT_DIR})` : "codex-eventmsg table missing", () => {});
    return;
  }
  it("finds the recordings", () => expect(rolloutFiles.length).toBeGreaterThanOrEqual(1));

  for (const file of rolloutFiles) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = () => (cached ??= replay("codex-rollout", read(ROLLOUT_DIR, file)));

      it("replays without an exception; canonical, unknown-free output", () => {
        expect(() => get()).not.toThrow();
        commonChecks(get(), ["codex-rollout", "codex-eventmsg"]);
      });

      it("restored assistant text = the recorded assistant messages, each exactly once, in order", () => {
        const recorded = recordedAssistantMessages(get().messages);
        expect(recorded.length).toBeGreaterThan(0);
        expect(assistantTexts(get().events)).toEqual(recorded);
        // 0.171 also records the turn's final message on task_complete
        const last = get().messages.filter((l) => l.type === "event_msg" && l.payload?.type === "task_complete" && typeof l.payload.last_agent_message === "string").map((l) => l.payload.last_agent_message);
        for (const text of last) expect(assistantTexts(get().events)).toContain(text);
      });

      it("no item completes twice; every tool call of the file is one item", () => {
        const completed = get().events.filter((e) => e.type === "item.completed").map((e) => e.itemId);
        expect(completed.filter((id) => id !== undefined).length).toBe(new Set(completed.filter((id) => id !== undefined)).size);
        const calls = new Set(get().messages.filter((l) => l.type === "response_item" && /^(function_call|custom_tool_call|local_shell_call)$/.test(l.payload?.type)).map((l) => l.payload.call_id));
        const toolItems = get().events.filter((e) => e.type === "item.completed" && e.providerRefs?.providerItemId !== undefined && calls.has(e.providerRefs.providerItemId));
        expect(toolItems.length).toBe(calls.size);
      });
    });
  }
});
