/**
 * Claude Code 2.1.333 and 2.1.337 (Agent SDK 0.3.333 / 0.3.337) recordings, fixtures/recorded/claude-sdk/<version>/
 * (made by `npm run record -- --agent claude-sdk-333` / `claude-sdk-337`, the same scenarios): three forms of each session — `<scenario>.ndjson` (the SDK stream, capture lines),
 * `<scenario>.wire.ndjson` (the stream-json lines between the SDK and the CLI, both directions) and
 * `<scenario>.transcript.ndjson` (the session's transcript) — compared with each other the way the 2.1.62 pairs are
 * (test/claude-transcript.test.ts):
 * - SDK stream vs wire: the same items and turns (the wire adds control frames and host-only state events);
 * - SDK stream vs transcript: the same items (types, order, final text), final assistant text, turns and provider
 *   errors;
 * - the assistant text the deltas rebuild is the text of the recorded assistant messages, once each.
 * GAPS lists the comparisons that differ under today's mapping, per scenario: they are asserted to differ, so a
 * mapping fix fails here until its entry is removed. (The per-recording unmapped kinds are the manifest's knownIssues,
 * test/recorded.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { completedItems } from "./support/streams.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { checkChatEvents, toChatEvents } from "../src/render/chat-event.js";
import { formatFinding, verifyEvents } from "../src/verify/verify.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The recorded versions: each gets every test below (2.1.141, the 0.2 line's last, plays the scenarios it can: not
 *  background-agent, not clear — fixtures/record/scenarios). */
const VERSIONS = ["2.1.141", "2.1.333", "2.1.337"];
const P = (e: CanonicalEvent): any => e.payload as any;

type Check = "items" | "last" | "turns" | "errors" | "text";
/** Comparisons that differ today (mapping gaps the recordings show), by scenario (the same for both versions). */
const GAPS: Record<string, Check[]> = {
  // the background agent's own items are in its own transcript file (subagents/agent-*.jsonl), not in the session's
  "background-agent": ["items"],
  // so are a foreground subagent's (subagent-progress)
  "subagent-progress": ["items"],
  // the /context turn's answer (a <synthetic> message with the command's output): the recorder elides Claude Code's
  // own text in transcripts ("[elided: … chars of Claude Code's own text]"), so the texts differ by construction
  "local-command": ["items", "last"],
};

/** background-agent: how many of the subagent's items start after the turn that spawned it ended — the CLI runs the two
 *  concurrently, so it depends on the run (2.1.333: the subagent's command and answer; 2.1.337: its answer only). */
const LATE_AGENT_ITEMS: Record<string, number> = { "2.1.333": 2, "2.1.337": 1 };

/** Superseded items per scenario (the abandoned partial text of a response cut off mid-stream). */
const SUPERSEDED: Record<string, number> = { "stream-error": 1, "stream-retry": 1 };

/** Claude Code 2.1.141 (the 0.2 line's last) where it differs from 2.1.3xx: the scenarios it does not play, and its own
 *  gaps. A stream broken mid-answer is not retried there: the partial text ends failed, the turn fails with the API
 *  error (a synthetic assistant message) — the transcript keeps only the error, so items and rebuilt texts differ. */
const NOT_PLAYED: Record<string, string[]> = { "2.1.141": ["background-agent", "clear"] };
const VERSION_GAPS: Record<string, Record<string, Check[]>> = { "2.1.141": { "stream-error": ["items", "text"] } };
const VERSION_SUPERSEDED: Record<string, Record<string, number>> = { "2.1.141": { "stream-error": 0 } };

function run(surface: string, file: string) {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
  return { events, captures: lines.map((l) => JSON.parse(l)) };
}
const turns = (ev: CanonicalEvent[]) => ev.filter((e) => e.type === "turn.started" || e.type === "turn.completed").map((e) => (e.type === "turn.completed" ? `completed:${P(e).state}` : "started"));
const errors = (ev: CanonicalEvent[]) => ev.filter((e) => e.type === "runtime.error" && P(e).class === "provider_error" && P(e).message !== "error_during_execution").map((e) => P(e).message);
const lastText = (ev: CanonicalEvent[]) => completedItems(ev).filter((i) => i.type === "assistant_message").map((i) => i.text.assistant_text ?? "").at(-1);
/** Assistant text rebuilt from the deltas, one entry per completed assistant item a UI shows (a superseded item, replaced
 *  by a later one, is not shown). */
function rebuilt(ev: CanonicalEvent[]): string[] {
  const text = new Map<string, string>();
  const out: string[] = [];
  for (const e of ev) {
    if (e.type === "content.delta" && P(e).streamKind === "assistant_text") text.set(e.itemId!, (text.get(e.itemId!) ?? "") + P(e).delta);
    if (e.type === "item.completed" && P(e).itemType === "assistant_message" && P(e).status !== "superseded") out.push(text.get(e.itemId!) ?? "");
  }
  return out;
}

for (const version of VERSIONS) {
  const DIR = join(ROOT, "fixtures/recorded/claude-sdk", version);

  const scenarios = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort() : [];

  describe(`Claude Code ${version} recordings: SDK stream, wire and transcript of the same sessions`, () => {
    it("has the recorded sessions, each in three forms", () => {
      const all = ["approval", "background-agent", "background-bash", "clear", "compact", "deny-rule", "dont-ask", "edit", "elicitation", "interrupt", "local-command", "plain", "prompt-hook", "refusal", "retry-529", "session-state", "stop-hook", "stream-drop", "stream-error", "tasks"];
      expect(scenarios).toEqual(expect.arrayContaining(all.filter((s) => !(NOT_PLAYED[version] ?? []).includes(s))));
      for (const s of scenarios) for (const f of [`${s}.ndjson`, `${s}.wire.ndjson`]) expect(existsSync(join(DIR, f)), f).toBe(true);
    });
    it("GAPS names recorded scenarios only", () => expect([...Object.keys(GAPS), ...Object.keys(VERSION_GAPS[version] ?? {})].filter((s) => !scenarios.includes(s) && !(NOT_PLAYED[version] ?? []).includes(s))).toEqual([]));

    for (const s of scenarios) {
      describe(s, () => {
        const gaps = VERSION_GAPS[version]?.[s] ?? GAPS[s] ?? [];
        let cache: { live: ReturnType<typeof run>; wire: ReturnType<typeof run>; restored: ReturnType<typeof run> } | undefined;
        const get = () => (cache ??= {
          live: run("claude-sdk", join(DIR, `${s}.ndjson`)),
          wire: run("claude-sdk", join(DIR, `${s}.wire.ndjson`)),
          restored: run("claude-transcript", join(DIR, `${s}.transcript.ndjson`)),
        });
        /** Equal, or — for a listed gap — different (a fix: remove the entry from GAPS). */
        const same = (check: Check, actual: unknown, expected: unknown) => {
          if (gaps.includes(check)) expect(actual, `${s}: "${check}" is listed in GAPS but matches now; remove it`).not.toEqual(expected);
          else expect(actual).toEqual(expected);
        };

        it("SDK stream vs wire: same items and turns", () => {
          const { live, wire } = get();
          expect(completedItems(live.events).length).toBeGreaterThan(0);
          expect(completedItems(wire.events)).toEqual(completedItems(live.events));
          expect(turns(wire.events)).toEqual(turns(live.events));
        });

        it("assistant text: the deltas rebuild each recorded assistant message, once", () => {
          const { live } = get();
          const recorded = live.captures.filter((c) => c.dir === "in" && !c.channel && c.message?.type === "assistant")
            .flatMap((c) => c.message.message.content.filter((b: any) => b.type === "text").map((b: any) => b.text));
          same("text", rebuilt(live.events), recorded);
        });

        it("SDK stream vs transcript: same items, final text, turns and provider errors", () => {
          const { live, restored } = get();
          // a superseded item (a response cut off mid-stream and sent again whole: a UI hides it) is the live stream's
          // only: the transcript keeps the response that replaced it
          const shown = (ev: CanonicalEvent[]) => completedItems(ev).filter((i) => i.status !== "superseded");
          expect(completedItems(live.events).length - shown(live.events).length).toBe(VERSION_SUPERSEDED[version]?.[s] ?? SUPERSEDED[s] ?? 0);
          expect(shown(restored.events)).toEqual(completedItems(restored.events));
          same("items", shown(restored.events), shown(live.events));
          same("last", lastText(restored.events), lastText(live.events));
          same("turns", turns(restored.events), turns(live.events));
          same("errors", errors(restored.events), errors(live.events));
        });
      });
    }
  });

  describe(`${version} stream-error: the answer cut off mid-stream and sent again whole is shown once`, () => {
    const file = join(DIR, "stream-error.ndjson");
    it.skipIf(!existsSync(file) || version === "2.1.141")("the abandoned partial item completes superseded; accumulator, text render and chat events hide it", () => {
      const { events } = run("claude-sdk", file);
      const superseded = events.filter((e) => e.type === "item.completed" && P(e).status === "superseded");
      expect(superseded.map((e) => P(e).itemType)).toEqual(["assistant_message"]);
      const acc = createAccumulator();
      acc.applyAll(events);
      const snap = acc.snapshot();
      const steps = snap.sessions.flatMap((s) => s.turns.flatMap((t) => t.steps));
      expect(steps.filter((s) => s.superseded).map((s) => s.itemId)).toEqual([superseded[0].itemId]);
      const text = renderSnapshotText(snap);
      expect(text.split("A retry repeats").length - 1, text).toBe(1);
      expect(text).toContain("such as an overloaded server.");
      const chat = toChatEvents(events).filter((c) => c.stepId === superseded[0].itemId || c.blockId?.startsWith(superseded[0].itemId + ":"));
      expect(chat.at(-1)?.phase).toBe("superseded");
    });
  });

  describe.skipIf(version !== "2.1.141")(`${version} stream-error: no retry — the cut-off answer ends failed, the API error is shown, the turn fails`, () => {
    it("live: the partial text item completes failed, the error message is one item, the turn fails with it", () => {
      const { events } = run("claude-sdk", join(DIR, "stream-error.ndjson"));
      const answers = events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
      expect(answers.map((e) => P(e).status)).toEqual(["failed", "completed"]);
      expect(P(answers[1]).text).toBe("API Error: scripted stream interruption");
      expect(events.find((e) => e.type === "turn.completed")?.payload).toMatchObject({ state: "failed", errorMessage: "API Error: scripted stream interruption" });
      expect(verifyEvents(events).violations.map(formatFinding)).toEqual([]);
    });
  });

  describe(`${version}: background work outlives its turn (background-agent, background-bash)`, () => {
    for (const [s, tool] of [["background-agent", "collab_agent_tool_call"], ["background-bash", "command_execution"]] as const) {
      for (const [form, surface, file] of [["SDK stream", "claude-sdk", `${s}.ndjson`], ["wire", "claude-sdk", `${s}.wire.ndjson`], ["transcript", "claude-transcript", `${s}.transcript.ndjson`]] as const) {
        it.skipIf(!existsSync(join(DIR, file)))(`${s} (${form}): the tool call stays open past its turn's end until the task completes; late activity keeps its turn and nests under it`, () => {
          const { events } = run(surface, join(DIR, file));
          const v = verifyEvents(events);
          expect(v.violations.map(formatFinding)).toEqual([]);
          const bg = events.filter((e) => e.itemId && e.type.startsWith("item.") && P(e).background === true);
          expect(bg.length).toBeGreaterThan(0);
          const id = bg[0].itemId!;
          const spawn = bg[0].turnId!;
          const end = events.find((e) => e.type === "turn.completed" && e.turnId === spawn)!;
          const done = events.find((e) => e.type === "item.completed" && e.itemId === id)!;
          expect(P(done).itemType).toBe(tool);
          expect(P(done).status).toBe("completed");
          expect(done.sequence).toBeGreaterThan(end.sequence);
          expect(done.turnId).toBe(spawn);
          expect(typeof P(done).output).toBe("string");
          // everything nested under it after the turn's end names the turn that started it
          const late = events.filter((e) => e.parentId === id && e.sequence > end.sequence);
          if (s === "background-agent" && surface === "claude-sdk") expect(late.filter((e) => e.type === "item.started").length).toBe(LATE_AGENT_ITEMS[version]);
          for (const e of late) expect(e.turnId, `#${e.sequence} ${e.type}`).toBe(spawn);
          // the accumulator: the late steps under the background step, in the ended turn; nothing reported open
          const acc = createAccumulator();
          acc.applyAll(events);
          const snap = acc.snapshot();
          expect(snap.problems.filter((p) => p.kind === "open-at-turn-end")).toEqual([]);
          const turn = snap.sessions[0].turns.find((t) => t.turnId === spawn)!;
          const step = turn.steps.find((x) => x.itemId === id)!;
          expect(step.background).toBe(true);
          // (its children: every item nested under it, those that started late among them)
          const nested = [...new Set(events.filter((e) => e.type === "item.started" && e.parentId === id).map((e) => e.itemId))];
          expect(step.children.map((c) => c.itemId).filter(Boolean)).toEqual(nested);
          expect(nested).toEqual(expect.arrayContaining(late.filter((e) => e.type === "item.started").map((e) => e.itemId)));
          // chat events: identity and sequence invariants hold (a step never changes turn)
          expect(checkChatEvents(toChatEvents(events))).toEqual([]);
        });
      }
    }
  });

  /**
   * A turn that stops at its maximum number of turns. No recording shows one, so the pair is made by hand from the
   * failing-tool recording's own lines: the session up to the tool's result, then — live — the `result` the SDK sends
   * when maxTurns is reached (subtype error_max_turns) and — in the transcript — the `max_turns_reached` attachment line
   * Claude Code writes instead of the next model request.
   */
  describe(`${version}: max turns (hand-made from the failing-tool recording's lines)`, () => {
    const live = join(DIR, "failing-tool.ndjson"), restored = join(DIR, "failing-tool.transcript.ndjson");
    it.skipIf(!existsSync(live) || !existsSync(restored))("live and restored: the same items, and the turn fails with error_max_turns in both", () => {
      const lines = (f: string) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== "");
      const msg = (l: string) => JSON.parse(l).message;
      // up to (and with) the tool result, then the end
      const upTo = (ls: string[]) => ls.slice(0, ls.findIndex((l) => msg(l)?.type === "user" && Array.isArray(msg(l).message?.content) && msg(l).message.content[0]?.type === "tool_result") + 1);
      const sdk = upTo(lines(live));
      const session = msg(sdk[1]).session_id;
      sdk.push(JSON.stringify({ seq: 99, dir: "in", message: { type: "result", subtype: "error_max_turns", is_error: true, duration_ms: 10, duration_api_ms: 8, num_turns: 1, stop_reason: null, total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], errors: [], terminal_reason: "max_turns", uuid: "00000000-0000-4000-8000-0000000000ff", session_id: session } }));
      const tr = upTo(lines(restored));
      const last = msg(tr.at(-1)!);
      tr.push(JSON.stringify({ seq: 99, dir: "in", message: { parentUuid: last.uuid, isSidechain: false, attachment: { type: "max_turns_reached" }, type: "attachment", uuid: "00000000-0000-4000-8000-0000000000fe", timestamp: last.timestamp, sessionId: last.sessionId, version: last.version } }));
      const push = (surface: string, ls: string[]) => {
        const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
        return [...ls.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
      };
      const a = push("claude-sdk", sdk), b = push("claude-transcript", tr);
      expect(turns(a)).toEqual(["started", "completed:failed"]);
      expect(turns(b)).toEqual(turns(a));
      expect(a.find((e) => e.type === "turn.completed")!.payload).toMatchObject({ state: "failed", errorMessage: "error_max_turns" });
      expect(b.find((e) => e.type === "turn.completed")!.payload).toMatchObject({ state: "failed", errorMessage: "error_max_turns" });
      expect(errors(b)).toEqual(["error_max_turns"]);
      expect(errors(b)).toEqual(errors(a));
      expect(completedItems(b)).toEqual(completedItems(a));
      for (const ev of [a, b]) {
        expect(verifyEvents(ev).violations.map(formatFinding)).toEqual([]);
        expect(ev.filter((e) => e.raw?.rule === "agentnorm#end" || e.raw?.rule === "agentnorm#unknown")).toEqual([]);
      }
    });
  });

  describe(`${version}: background-agent restored with its subagent's own transcript file`, () => {
    const main = join(DIR, "background-agent.transcript.ndjson"), sub = join(DIR, "background-agent.transcript-subagents.ndjson");
    it.skipIf(!existsSync(main) || !existsSync(sub))("the session file, then subagents/agent-*.jsonl: the subagent's items nest under its Agent call, every turn closes, the verifier is clean", () => {
      const lines = [main, sub].flatMap((f) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== ""));
      const n = createNormalizer({ surface: "claude-transcript", ids: counterIds(), clock: steppingClock() });
      const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
      expect(verifyEvents(events).violations.map(formatFinding)).toEqual([]);
      expect(events.filter((e) => e.raw?.rule === "agentnorm#end")).toEqual([]);
      const agent = events.find((e) => e.type === "item.completed" && P(e).itemType === "collab_agent_tool_call")!;
      expect(completedItems(events).filter((i) => i.nested).map((i) => i.type)).toEqual(["user_message", "command_execution", "assistant_message"]);
      for (const e of events.filter((x) => x.type === "item.started" && x.parentId)) expect(e.parentId).toBe(agent.itemId);
      // read after the session's file, the subagent's lines come after its call completed: they are a turn of their own
      // (the live stream, where they arrive while the call is open, keeps them in the turn that started it)
      expect(turns(events)).toEqual(["started", "completed:completed", "started", "completed:completed", "started", "completed:completed"]);
    });
  });
}
