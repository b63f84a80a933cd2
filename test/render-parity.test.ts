/**
 * Live/restored render parity: for every surface with a restored-history form, the live stream of a
 * session and its restored form produce the same accumulator render groups (test/support/render-view.ts: timing and
 * event bookkeeping left out, minted canonical ids renamed by first appearance).
 *
 * What a restored form cannot have, by construction of the provider's history, is named per surface below and
 * removed from the comparison explicitly — each removal is asserted, so a new difference fails the test:
 * - side channels only a live stream carries: token usage (`usage`), permission/question requests, notifications
 *   such as errors (`status`), the turn's cumulative diff (turn/diff/updated) and plan (turn/plan/updated),
 *   session configuration (`mode`: its config comes from a different message in each form);
 * - items or text the provider does not persist, listed per scenario.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator, type AccumulatorSnapshot, type Block } from "../src/render/accumulator.js";
import { defaultBlockFields, renderView } from "./support/render-view.js";
import { LIVE_SHELL } from "./support/codex-live-shell.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const REC = join(ROOT, "fixtures/recorded");

function accumulateLines(surface: string, lines: string[]): AccumulatorSnapshot {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const a = createAccumulator();
  lines.forEach((l, i) => a.applyAll(n.pushLine(l, { lineNumber: i + 1 })));
  a.applyAll(n.end());
  return a.snapshot();
}
function accumulateMessages(surface: string, messages: unknown[]): AccumulatorSnapshot {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const a = createAccumulator();
  for (const m of messages) a.applyAll(n.push(m));
  a.applyAll(n.end());
  return a.snapshot();
}
const readLines = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");

/** Blocks compared: status blocks by level and message (their detail is the provider's own error shape). */
function fields(b: Block): Record<string, unknown> {
  if (b.kind === "status") return { level: b.level, message: b.message };
  return defaultBlockFields(b);
}

/** Remove blocks matching `drop` from a snapshot (in place, steps left empty disappear in the view); returns them. */
function removeBlocks(snap: AccumulatorSnapshot, drop: (b: Block) => boolean): Block[] {
  const removed: Block[] = [];
  const visit = (steps: AccumulatorSnapshot["sessions"][number]["steps"]) => {
    for (const st of steps) {
      st.blocks = st.blocks.filter((b) => (drop(b) ? (removed.push(b), false) : true));
      visit(st.children);
    }
  };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
  return removed;
}

/** The text of every block of a kind, in order. */
function snapshotText(snap: AccumulatorSnapshot, kind: string): string[] {
  const out: string[] = [];
  removeBlocks(snap, (b) => (b.kind === kind && out.push((b as any).text), false));
  return out;
}
/** The user text blocks of a snapshot, in order. */
function userBlocks(snap: AccumulatorSnapshot): any[] {
  const out: any[] = [];
  removeBlocks(snap, (b) => (b.kind === "text" && b.role === "user" && out.push(b), false));
  return out;
}
/** The tool blocks of a snapshot (live objects: a test may edit them before comparing views). */
function toolBlocks(snap: AccumulatorSnapshot): any[] {
  const out: any[] = [];
  removeBlocks(snap, (b) => (b.kind === "tool" && out.push(b), false));
  return out;
}

const view = (snap: AccumulatorSnapshot, omitKinds: string[]) => renderView(snap, { omitKinds, blockFields: fields });

// ───────────────────────────── Codex app-server: live stream vs thread/read ─────────────────────────────

/** The restored form of a recorded app-server session: initialize and the (last) thread/read, request and response. */
function threadReadOnly(lines: string[]): string[] {
  const msg = (l: string) => { const x = JSON.parse(l); return (x.message ?? x) as any; };
  const reads = lines.filter((l) => msg(l).method === "thread/read");
  const lastRead = reads.at(-1);
  const readResponse = lines.filter((l) => msg(l).method === undefined && msg(l).result?.thread?.turns).at(-1);
  const init = lines.filter((l) => msg(l).method === "initialize" || (msg(l).method === undefined && msg(l).result?.userAgent));
  if (!lastRead || !readResponse) return [];
  return [...init, lastRead, readResponse];
}

const APP_SERVER_OMIT = ["usage", "permission", "question", "status", "mode"];
/**
 * Per-scenario differences that are Codex's own (what thread/read persists):
 * - `notPersisted`: command items thread/read does not return — a declined command (approval) and the command the
 *   interrupt abandoned (interrupt); live they render as declined / failed cards;
 * - `lostLiveOutput`: terminal text the live stream never delivered (shell: Codex 0.171 sent outputDelta for
 *   "line 2" and "line 3" only; thread/read's aggregatedOutput has all three lines).
 */
const APP_SERVER_DIFFS: Record<string, { notPersisted?: string[]; lostLiveOutput?: string[] }> = {
  approval: { notPersisted: ["declined /bin/bash -lc 'rm README.md'"] },
  interrupt: { notPersisted: ["failed /bin/bash -lc 'echo waiting; sleep 30; echo done'"] },
  shell: { lostLiveOutput: ["line 1\n"] },
};

function appServerParity(file: string, scenario: string) {
  const lines = readLines(file);
  const live = accumulateLines("codex-app-server", lines);
  const restored = accumulateLines("codex-app-server", threadReadOnly(lines));
  expect(restored.sessions[0]?.turns.length, "the restored form has turns").toBeGreaterThan(0);
  // the turn's cumulative diff and the turn's plan are live-only notifications (thread/read has neither)
  removeBlocks(live, (b) => (b.kind === "diff" && b.scope === "turn") || (b.kind === "plan" && b.blockId.startsWith("trn_")));
  const diffs = APP_SERVER_DIFFS[scenario] ?? {};
  const gone = removeBlocks(live, (b) => b.kind === "tool" && (diffs.notPersisted ?? []).includes(`${b.status} ${b.title}`));
  expect(gone.map((b: any) => `${b.status} ${b.title}`)).toEqual(diffs.notPersisted ?? []);
  // terminal text: the live chunks must be the end of the restored output; what is missing is listed
  const term = (s: AccumulatorSnapshot) => removeBlocks(s, (b) => b.kind === "terminal").map((b: any) => b.text as string);
  const lt = term(live), rt = term(restored);
  expect(lt.length).toBe(rt.length);
  const lost = rt.map((r, i) => (r.endsWith(lt[i]) ? r.slice(0, r.length - lt[i].length) : `MISMATCH ${JSON.stringify(lt[i])} vs ${JSON.stringify(r)}`)).filter((x) => x !== "");
  expect(lost).toEqual(diffs.lostLiveOutput ?? []);
  expect(view(restored, APP_SERVER_OMIT)).toEqual(view(live, APP_SERVER_OMIT));
}

describe("render parity: codex-app-server live stream vs thread/read of the same session", () => {
  const dir = join(REC, "codex-app-server");
  const scenarios = existsSync(dir) ? readdirSync(dir).filter((f) => /^[a-z-]+\.ndjson$/.test(f)).map((f) => f.replace(/\.ndjson$/, "")).sort() : [];
  it("has the recorded sessions", () => expect(scenarios.length).toBeGreaterThanOrEqual(9));
  for (const s of scenarios) it(`${s}: same render groups`, () => appServerParity(join(dir, `${s}.ndjson`), s));
  it("the hand-made approval-session fixture (the README demo): same render groups, declined command included", () => {
    appServerParity(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "approval-session");
  });
});

// ───────────────────────────── Claude: live SDK stream vs the on-disk transcript ─────────────────────────────

/**
 * The transcript has no SDK-only messages: system/init (session config → `mode`), stream usage and `result`
 * (`usage`, and the error a `result` reports), permission exchanges (`permission` / `question`).
 * Per scenario: interrupt — the SDK's `result` says error_during_execution (live-only status line).
 */
const CLAUDE_OMIT = ["usage", "mode", "permission", "question"];
const CLAUDE_LIVE_ONLY_STATUS: Record<string, string[]> = { interrupt: ["error_during_execution"] };

describe("render parity: claude-sdk live stream vs claude-transcript of the same session", () => {
  const dir = join(REC, "claude-sdk");
  const scenarios = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort() : [];
  it("has the recorded pairs", () => expect(scenarios.length).toBeGreaterThanOrEqual(9));
  for (const s of scenarios) {
    it(`${s}: same render groups`, () => {
      const live = accumulateLines("claude-sdk", readLines(join(dir, `${s}.ndjson`)));
      const restored = accumulateLines("claude-transcript", readLines(join(dir, `${s}.transcript.ndjson`)));
      const only = CLAUDE_LIVE_ONLY_STATUS[s] ?? [];
      const gone = removeBlocks(live, (b) => b.kind === "status" && only.includes(b.message));
      expect(gone.map((b: any) => b.message)).toEqual(only);
      expect(view(restored, CLAUDE_OMIT)).toEqual(view(live, CLAUDE_OMIT));
    });
  }
});

// ───────────────────────────── Codex rollout: live EventMsg stream vs the rollout file ─────────────────────────────

describe("render parity: codex-eventmsg live stream vs codex-rollout of the same session", () => {
  it("shell: same render groups; the command output is a terminal block in both forms", () => {
    const live = accumulateMessages("codex-eventmsg", LIVE_SHELL);
    const restored = accumulateLines("codex-rollout", readLines(join(REC, "codex-exec/shell.rollout.ndjson")));
    // The rollout keeps no exec output deltas: the restored command's terminal text is its item's whole output.
    const terminal = (s: AccumulatorSnapshot) => snapshotText(s, "terminal");
    expect(terminal(live)).toEqual(["line 1\nline 2\nline 3\n"]);
    expect(terminal(restored)).toEqual(terminal(live));
    // What the rollout persisted differently: the 0.171 item's duration is 0 (live: the exec_command_end's)
    const durations = (s: AccumulatorSnapshot) => toolBlocks(s).map((b) => { const d = b.durationMs; delete b.durationMs; return d; });
    expect(durations(live)).toEqual([1071]);
    expect(durations(restored)).toEqual([0]);
    // What only the rollout says: the model's function call (its tool name and arguments); EventMsg exec events have neither
    const call = (s: AccumulatorSnapshot) => toolBlocks(s).map((b) => { const c = [b.toolName, b.input]; delete b.toolName; delete b.input; return c; });
    expect(call(live)).toEqual([[undefined, undefined]]);
    expect(call(restored)).toEqual([["exec_command", { cmd: "for i in 1 2 3; do echo line $i; sleep 0.4; done", yield_time_ms: 10000 }]]);
    // session_configured (live) and turn_context (rollout) configure the session differently: `mode` left out
    expect(view(restored, ["usage", "mode"])).toEqual(view(live, ["usage", "mode"]));
  });
});

// ───────────────────────────── ACP: live session/prompt stream vs session/load ─────────────────────────────

/**
 * `<scenario>.load.ndjson` is a second `opencode acp` process answering session/load for the recorded session: opencode
 * replays the history as session/update notifications (user_message_chunk, agent_thought_chunk, agent_message_chunk,
 * tool_call with its final status) before it answers; the acp table groups the replay into one turn per user message.
 * Differences by construction of that replay:
 * - turn states: the history keeps no stop reason, so every replayed turn is `completed`; live, the interrupted turn is
 *   cancelled and the model-error turn failed (named per scenario below);
 * - user prompts: live they are the session/prompt request's user_message item; the replay sends them as
 *   user_message_chunk → user_message items; both render as the prompts sent, in order;
 * - side channels only the live connection carries: usage, permission requests, status lines, and config (`mode`:
 *   available commands and config options come from different messages in each form).
 * Anything else — text, reasoning, tool cards (declined, failed, cancelled ones included), terminal output, diffs, turn
 * grouping — must render the same.
 */
const ACP_OMIT = ["usage", "permission", "question", "status", "mode"];
const ACP_LIVE_TURN_STATES: Record<string, string[]> = { interrupt: ["cancelled"], "model-error": ["failed"] };

describe("render parity: acp live session/prompt stream vs session/load of the same session", () => {
  const dir = join(REC, "acp");
  const scenarios = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".load.ndjson")).map((f) => f.replace(/\.load\.ndjson$/, "")).sort() : [];
  it("has the recorded pairs", () => expect(scenarios.length).toBeGreaterThanOrEqual(8));
  for (const s of scenarios) {
    it(`${s}: same render groups`, () => {
      const liveLines = readLines(join(dir, `${s}.ndjson`));
      const loadLines = readLines(join(dir, `${s}.load.ndjson`));
      expect(loadLines.some((l) => JSON.parse(l).message?.method === "session/load"), "the restored form is a session/load").toBe(true);
      const live = accumulateLines("acp", liveLines);
      const restored = accumulateLines("acp", loadLines);
      // user prompts: replayed as user_message items carrying the prompts the live connection sent
      const prompts = liveLines.map((l) => JSON.parse(l).message).filter((m) => m.method === "session/prompt").map((m) => m.params.prompt.map((p: any) => p.text).join(""));
      // user prompts: live, the session/prompt request's user_message item; restored, the replayed user_message_chunk
      const userText = (snap: AccumulatorSnapshot) => userBlocks(snap).map((b: any) => b.text);
      expect(userText(restored)).toEqual(prompts);
      expect(userText(live)).toEqual(prompts);
      // turn states: the replayed turns are all completed; the live ones as named
      const states = (snap: AccumulatorSnapshot) => snap.sessions.flatMap((x) => x.turns.map((t) => t.state));
      expect(states(restored)).toEqual(prompts.map(() => "completed"));
      expect(states(live)).toEqual(ACP_LIVE_TURN_STATES[s] ?? prompts.map(() => "completed"));
      const v = (snap: AccumulatorSnapshot) => view(snap, ACP_OMIT).map((x) => ({ ...x, turns: x.turns.map((t) => ({ ...t, state: "(compared above)" })) }));
      expect(v(restored)).toEqual(v(live));
    });
  }
});

// ───────────────────────────── opencode: live /event stream vs session.messages ─────────────────────────────

/**
 * session.messages has no permission/question requests, session status lines, usage or config; everything else must
 * render the same. Per scenario: interrupt — the live stream ends the killed command with the abort (failed, titled
 * by its tool, before its input was final) while the stored part says completed with the full command as title.
 */
const OPENCODE_OMIT = ["usage", "permission", "question", "status", "mode"];
const OPENCODE_TOOL_DIFFS: Record<string, { live: string; restored: string }> = {
  interrupt: { live: "failed bash", restored: "completed echo waiting; sleep 30; echo done" },
};

describe("render parity: opencode live /event stream vs session.messages of the same session", () => {
  const dir = join(REC, "opencode");
  const scenarios = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".messages.ndjson")).map((f) => f.replace(/\.messages\.ndjson$/, "")).sort() : [];
  it("has the recorded pairs", () => expect(scenarios.length).toBeGreaterThanOrEqual(9));
  for (const s of scenarios) {
    it(`${s}: same render groups`, () => {
      const live = accumulateLines("opencode", readLines(join(dir, `${s}.ndjson`)));
      const restored = accumulateLines("opencode-history", readLines(join(dir, `${s}.messages.ndjson`)));
      const d = OPENCODE_TOOL_DIFFS[s];
      if (d) {
        // the one named difference: compare the tool card's status and title, then leave them out
        const card = (snap: AccumulatorSnapshot) => {
          const tools: any[] = [];
          removeBlocks(snap, (b) => (b.kind === "tool" && tools.push(b), false));
          return tools.map((b) => `${b.status} ${b.title}`);
        };
        expect(card(live)).toEqual([d.live]);
        expect(card(restored)).toEqual([d.restored]);
        const neutral = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === "status" && typeof x === "string" && /^(failed|completed)$/.test(x)) || k === "title" || k === "detail" ? undefined : x));
        expect(neutral(view(restored, OPENCODE_OMIT))).toEqual(neutral(view(live, OPENCODE_OMIT)));
        return;
      }
      expect(view(restored, OPENCODE_OMIT)).toEqual(view(live, OPENCODE_OMIT));
    });
  }
});
