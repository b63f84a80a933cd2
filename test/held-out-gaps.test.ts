/**
 * The held-out gap classes of issue 32 (Deliver 4), each shown by a recording of our own and fixed for the class:
 * the test first checks that the recording has the shape of the class, then what the normalized stream does with it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { toChatEvents } from "../src/render/chat-event.js";
import { formatFinding, verifyEvents } from "../src/verify/verify.js";

const ROOT = join(import.meta.dirname, "..");
const REC = join(ROOT, "fixtures/recorded");
const P = (e: CanonicalEvent): any => e.payload as any;

function run(surface: string, file: string) {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
  return { events, captures: lines.map((l) => JSON.parse(l)), stats: n.stats() };
}
const violations = (events: CanonicalEvent[]) => verifyEvents(events).violations.map(formatFinding);
const rendered = (events: CanonicalEvent[]) => {
  const acc = createAccumulator();
  acc.applyAll(events);
  return { snap: acc.snapshot(), text: renderSnapshotText(acc.snapshot()) };
};
const count = (text: string, part: string) => text.split(part).length - 1;

describe("1. Claude Code 2.1.62 retrying a stream that broke off mid-message (claude-sdk/stream-retry.ndjson)", () => {
  const file = join(REC, "claude-sdk/stream-retry.ndjson");
  const ANSWER = "An overloaded API rejects work it has no capacity for, so the failure is usually temporary. Retrying after a short wait lets the request succeed once the load drops.";

  it("the recording has the class: message A's text deltas, no block or message stop, then an assistant message B carrying the whole answer", () => {
    const msgs = run("claude-sdk", file).captures.filter((c) => c.dir === "in").map((c) => c.message);
    const start = msgs.findIndex((m) => m.type === "stream_event" && m.event.type === "message_start");
    const answer = msgs.findIndex((m) => m.type === "assistant");
    const a = msgs[start].event.message.id;
    expect(msgs[answer].message.id).not.toBe(a);
    expect(msgs[answer].message.content[0].text).toBe(ANSWER);
    const between = msgs.slice(start + 1, answer).map((m) => m.event?.type ?? m.type);
    expect(between).toContain("content_block_delta");
    expect(between.filter((t) => ["content_block_stop", "message_stop"].includes(t))).toEqual([]);
    expect(msgs.some((m) => m.abandoned_blocks !== undefined)).toBe(false);
  });

  for (const [version, f] of [["2.1.62", file], ["2.1.333 (abandoned_blocks)", join(REC, "claude-sdk/2.1.333/stream-retry.ndjson")]] as const) {
    it(`${version}: the abandoned partial ends superseded, the answer renders once`, () => {
      const { events } = run("claude-sdk", f);
      const superseded = events.filter((e) => e.type === "item.completed" && P(e).status === "superseded");
      expect(superseded.map((e) => P(e).itemType)).toEqual(["assistant_message"]);
      const partial = events.filter((e) => e.type === "content.delta" && e.itemId === superseded[0].itemId).map((e) => P(e).delta).join("");
      expect(ANSWER.startsWith(partial) && partial.length > 0 && partial.length < ANSWER.length).toBe(true);
      // the other assistant items: the answer, once
      const shown = events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message" && P(e).status !== "superseded");
      expect(shown.map((e) => P(e).text)).toEqual([ANSWER]);
      expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["completed"]);
      const { snap, text } = rendered(events);
      expect(count(text, "An overloaded API"), text).toBe(1);
      expect(snap.sessions.flatMap((s) => s.turns.flatMap((t) => t.steps)).filter((s) => s.superseded).map((s) => s.itemId)).toEqual([superseded[0].itemId]);
      expect(toChatEvents(events).filter((c) => c.stepId === superseded[0].itemId).at(-1)?.phase).toBe("superseded");
      expect(violations(events)).toEqual([]);
    });
  }
});

/** Each item's fields as a UI knows them: its item.* payloads applied in order (later fields win). */
function items(events: CanonicalEvent[]) {
  const m = new Map<string, Record<string, any>>();
  for (const e of events) if (e.type.startsWith("item.") && e.itemId) m.set(e.itemId, { ...m.get(e.itemId), ...Object.fromEntries(Object.entries(P(e)).filter(([, v]) => v !== undefined)) });
  return [...m.values()];
}
/** The tool calls an ACP recording carries (tool_call / tool_call_update / a permission request's toolCall). */
const acpCalls = (captures: any[]) => captures.filter((c) => c.dir === "in").map((c) => c.message?.params?.update ?? c.message?.params?.toolCall).filter((u) => u?.toolCallId !== undefined);

describe("3. Gemini CLI over ACP: a shell call's command only in its title; an edit without a diff", () => {
  for (const s of ["shell", "approval", "failing-tool", "interrupt"]) {
    it(`gemini/${s}: every command item has its command — the title of a call that sends no rawInput`, () => {
      const { events, captures } = run("acp", join(REC, `acp/gemini/${s}.ndjson`));
      const execute = acpCalls(captures).filter((u) => u.kind === "execute");
      expect(execute.length).toBeGreaterThan(0);
      expect(execute.filter((u) => u.rawInput !== undefined)).toEqual([]); // the class: no rawInput, the command only in the title
      const commands = items(events).filter((i) => i.itemType === "command_execution");
      expect(commands.length).toBeGreaterThan(0);
      for (const c of commands) {
        expect(c.command, JSON.stringify(c.title)).toBeTypeOf("string");
        expect(execute.map((u) => u.title)).toContain(c.command);
      }
      expect(violations(events)).toEqual([]);
    });
  }

  it("gemini/shell.load: a replayed call's title names the tool (\"Shell\"), not the command: no command is made up", () => {
    const { events, captures } = run("acp", join(REC, "acp/gemini/shell.load.ndjson"));
    expect(acpCalls(captures).map((u) => [u.kind, u.title, u.rawInput])).toEqual([["execute", "Shell", undefined]]);
    const [c] = items(events).filter((i) => i.itemType === "command_execution");
    expect(c.title).toBe("Shell");
    expect(c.command).toBeUndefined();
  });

  it("gemini/edit-miss: an edit that failed (no diff) names its file from the call's locations", () => {
    const { events, captures } = run("acp", join(REC, "acp/gemini/edit-miss.ndjson"));
    const edits = acpCalls(captures).filter((u) => u.kind === "edit");
    // the class: no diff content anywhere, no rawInput; the file only in `locations`
    expect(edits.flatMap((u) => (u.content ?? []).filter((x: any) => x.type === "diff"))).toEqual([]);
    expect(edits.filter((u) => u.rawInput !== undefined)).toEqual([]);
    expect(edits[0].locations).toEqual([{ path: "/sandbox/work/hello.py" }]);
    const changes = items(events).filter((i) => i.itemType === "file_change");
    expect(changes.map((i) => [i.status, i.files])).toEqual([["failed", [{ path: "/sandbox/work/hello.py", change: "update" }]]]);
    const { text } = rendered(events);
    expect(text).toContain("hello.py");
    expect(violations(events)).toEqual([]);
  });
});

describe("5. Codex ACP loaded sessions: a replayed tool call names no kind (acp/codex/*.load.ndjson)", () => {
  for (const s of ["shell", "approval", "failing-tool", "interrupt", "plan"]) {
    it(`codex/${s}.load: every dynamic tool call has a toolName (ACP's default kind, other)`, () => {
      const { events, captures } = run("acp", join(REC, `acp/codex/${s}.load.ndjson`));
      const kindless = acpCalls(captures).filter((u) => u.sessionUpdate === "tool_call" && u.kind === undefined);
      expect(kindless.length).toBeGreaterThan(0);
      const dynamic = items(events).filter((i) => i.itemType === "dynamic_tool_call");
      expect(dynamic.length).toBe(kindless.length);
      expect(dynamic.map((i) => i.toolName)).toEqual(kindless.map(() => "other"));
      // the function the replay names stays the title
      expect(dynamic.map((i) => i.title)).toEqual(kindless.map((u) => u.title));
    });
  }
});

describe("6. Claude Code 2.1.333 subagent and tool-progress sessions: item events name their turn or parent (claude-sdk/2.1.333/subagent-progress)", () => {
  const dir = join(REC, "claude-sdk/2.1.333");
  const orphans = (events: CanonicalEvent[]) => events.filter((e) => (e.itemId !== undefined || e.type.startsWith("item.") || e.type.startsWith("task.") || e.type.startsWith("tool.")) && !e.turnId && !e.parentId).map((e) => `#${e.sequence} ${e.type} ${e.raw?.rule}`);

  it("the recording has the class: foreground tasks (a subagent, its command, a main-thread command) whose notification comes before the call's tool_result; tool_progress", () => {
    const msgs = run("claude-sdk", join(dir, "subagent-progress.ndjson")).captures.filter((c) => c.dir === "in" && !c.channel).map((c) => c.message);
    const started = msgs.filter((m) => m.type === "system" && m.subtype === "task_started");
    expect(started.map((m) => [m.task_type, m.is_backgrounded])).toEqual([["local_agent", false], ["local_bash", false], ["local_bash", false]]);
    for (const t of started) {
      const note = msgs.findIndex((m) => m.subtype === "task_notification" && m.tool_use_id === t.tool_use_id);
      const result = msgs.findIndex((m) => m.type === "user" && m.message.content[0]?.tool_use_id === t.tool_use_id);
      expect(note).toBeGreaterThan(-1);
      expect(note).toBeLessThan(result);
    }
    expect(msgs.filter((m) => m.type === "tool_progress").length).toBeGreaterThan(0);
  });

  for (const [form, surface, file] of [["SDK stream", "claude-sdk", "subagent-progress.ndjson"], ["wire", "claude-sdk", "subagent-progress.wire.ndjson"], ["transcript", "claude-transcript", "subagent-progress.transcript.ndjson"]] as const) {
    it(`${form}: no item, task or tool event lacks both turnId and parentId; each command completes with its own output`, () => {
      const { events } = run(surface, join(dir, file));
      expect(orphans(events)).toEqual([]);
      const commands = items(events).filter((i) => i.itemType === "command_execution");
      expect(commands.map((c) => [c.status, c.output])).toEqual(form === "transcript" ? [["completed", "build done"]] : [["completed", "check done"], ["completed", "build done"]]);
      expect(violations(events)).toEqual([]);
    });
  }

  it("the subagent's command completes under its Agent call, in the turn", () => {
    const { events } = run("claude-sdk", join(dir, "subagent-progress.ndjson"));
    const agent = events.find((e) => e.type === "item.started" && P(e).itemType === "collab_agent_tool_call")!;
    const check = events.filter((e) => e.type === "item.completed" && P(e).itemType === "command_execution");
    expect(check.map((e) => [e.parentId, e.turnId])).toEqual([[agent.itemId, agent.turnId], [undefined, agent.turnId]]);
  });

  for (const s of ["background-agent", "background-bash"]) {
    it(`${s}: background work's completion names its thread and the turn that started it`, () => {
      const { events } = run("claude-sdk", join(dir, `${s}.ndjson`));
      expect(orphans(events)).toEqual([]);
      const done = events.filter((e) => e.type === "item.completed" && e.raw?.rule === "claude-sdk#step-background-completed");
      expect(done.length).toBe(1);
      const started = events.find((e) => e.type === "item.started" && e.itemId === done[0].itemId)!;
      expect([done[0].threadId, done[0].turnId]).toEqual([started.threadId, started.turnId]);
    });
  }
});

describe("4. ACP usage_update (used / size): a canonical context-window reading (acp/codex/*.ndjson)", () => {
  it("codex/plain: the usage_update becomes context {usedTokens, windowTokens}; accumulator, chat events and the text render carry it", () => {
    const { events, captures } = run("acp", join(REC, "acp/codex/plain.ndjson"));
    const updates = captures.filter((c) => c.message?.params?.update?.sessionUpdate === "usage_update").map((c) => c.message.params.update);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((u) => typeof u.used === "number" && typeof u.size === "number" && u.inputTokens === undefined)).toBe(true);
    const usage = events.filter((e) => e.type === "thread.token-usage.updated");
    expect(usage.map((e) => P(e).context)).toEqual(updates.map((u) => ({ usedTokens: u.used, windowTokens: u.size })));
    const last = updates.at(-1);
    const { snap, text } = rendered(events);
    expect(snap.sessions[0].context).toEqual({ usedTokens: last.used, windowTokens: last.size });
    const block = snap.sessions.flatMap((s) => s.turns.flatMap((t) => t.steps.flatMap((st) => st.blocks))).find((b) => b.kind === "usage") as any;
    expect(block.context).toEqual({ usedTokens: last.used, windowTokens: last.size });
    expect(text).toContain(`context ${last.used} of ${last.size} tokens`);
    expect(toChatEvents(events).filter((c) => c.kind === "usage").map((c) => c.context)).toEqual(usage.map((e) => P(e).context));
    expect(violations(events)).toEqual([]);
  });

  it("a reading without a window, and values that are no token counts", () => {
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
    const upd = (update: object) => n.push({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "usage_update", ...update } } }).find((e) => e.type === "thread.token-usage.updated")!;
    expect(P(upd({ used: 900 })).context).toEqual({ usedTokens: 900 });
    expect(P(upd({ used: 900, size: -1 })).context).toEqual({ usedTokens: 900 });
    expect(P(upd({ used: "lots", size: 1000 })).context).toBeUndefined();
    expect(P(upd({ used: 1.5, size: 1000 })).usage).toEqual({ used: 1.5, size: 1000 });
  });
});

describe("7. Cursor SDK shell-output-delta carrying stdout / stderr fields (fixtures/cursor-sdk/deltas/shell-fields.jsonl)", () => {
  const file = join(ROOT, "fixtures/cursor-sdk/deltas/shell-fields.jsonl");
  it("the fixture has the class: no event.case, the output in stdout / stderr fields", () => {
    const shell = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).update).filter((u) => u.type === "shell-output-delta");
    expect(shell.every((u) => u.event?.case === undefined)).toBe(true);
    expect(shell.filter((u) => "stdout" in u || "stderr" in u || "stdout" in u.event || "stderr" in u.event).length).toBe(4);
  });

  it("every output field streams into the command (stdout, then stderr), nothing unknown; start and exit say nothing", () => {
    const { events, stats } = run("cursor-sdk", file);
    expect(stats.unknown).toBe(0);
    expect(events.filter((e) => e.type.startsWith("runtime."))).toEqual([]);
    const out = events.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output");
    expect(out.map((e) => P(e).delta)).toEqual(["cc -o app main.c\n", "main.c:3: warning: unused variable\n", "built app\n", "1 warning\n"]);
    const cmd = items(events).find((i) => i.itemType === "command_execution")!;
    expect(out.every((e) => e.itemId === out[0].itemId)).toBe(true);
    expect([cmd.command, cmd.exitCode, cmd.status]).toEqual(["make", 0, "completed"]);
    expect(violations(events)).toEqual([]);
  });
});
