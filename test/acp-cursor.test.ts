/**
 * Cursor's ACP extensions on the `acp` surface, over a whole session: the `cursor/*` methods between ordinary ACP
 * messages (our dev recordings of `agent acp` contain none of them, so the session is written here from the
 * documented shapes — see schemas/upstream/cursor-acp/2026-11-30/PROVENANCE.md), and the helpers behind the rows.
 */
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { acpUnifiedDiff } from "../mappings/helpers/acp.js";
import { cursorTodos } from "../mappings/helpers/cursor.js";

const S = "088f421f-134a-480f-9442-f07000d809d4";
const upd = (update: object) => ({ direction: "in" as const, message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update } } });
const inn = (message: object) => ({ direction: "in" as const, message: { jsonrpc: "2.0", ...message } });
const out = (message: object) => ({ direction: "out" as const, message: { jsonrpc: "2.0", ...message } });

const SESSION = [
  out({ id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } }),
  inn({ id: 1, result: { sessionId: S } }),
  out({ id: 2, method: "session/prompt", params: { sessionId: S, prompt: [{ type: "text", text: "Plan and build auth" }] } }),
  upd({ sessionUpdate: "tool_call", toolCallId: "tc-q", title: "Ask question", kind: "other", status: "pending" }),
  inn({ id: 0, method: "cursor/ask_question", params: { toolCallId: "tc-q", title: "Auth", questions: [{ id: "q1", prompt: "Which method?", options: [{ id: "jwt", label: "JWT" }, { id: "session", label: "Sessions" }], allowMultiple: false }] } }),
  out({ id: 0, result: { outcome: { outcome: "answered", answers: [{ questionId: "q1", selectedOptionIds: ["jwt"] }] } } }),
  upd({ sessionUpdate: "tool_call_update", toolCallId: "tc-q", status: "completed" }),
  inn({ id: 1, method: "cursor/create_plan", params: { toolCallId: "tc-p", name: "JWT auth", overview: "Add JWT login", plan: "# Plan", todos: [{ id: "a", content: "Add route", status: "pending" }, { id: "b", content: "Test", status: "pending" }] } }),
  out({ id: 1, result: { outcome: { outcome: "accepted" } } }),
  inn({ method: "cursor/update_todos", params: { toolCallId: "tc-t", merge: true, todos: [{ id: "a", content: "Add route", status: "in_progress" }] } }),
  upd({ sessionUpdate: "tool_call", toolCallId: "tc-task", title: "Task", kind: "other", status: "pending" }),
  inn({ method: "cursor/task", params: { toolCallId: "tc-task", description: "Explore auth code", prompt: "find it", subagentType: "explore", agentId: "ag-1", durationMs: 4200 } }),
  upd({ sessionUpdate: "tool_call_update", toolCallId: "tc-task", status: "completed" }),
  upd({ sessionUpdate: "tool_call", toolCallId: "tc-e", title: "Edit auth.ts", kind: "edit", status: "pending" }),
  upd({ sessionUpdate: "tool_call_update", toolCallId: "tc-e", status: "completed", content: [{ type: "diff", path: "/w/auth.ts", oldText: "x\n", newText: "y\n" }] }),
  inn({ method: "cursor/generate_image", params: { toolCallId: "tc-img", description: "a logo", filePath: "/w/logo.png" } }),
  inn({ method: "cursor/brand_new", params: { x: 1 } }),
  inn({ id: 2, result: { stopReason: "end_turn" } }),
];

function run() {
  const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock(), validate: true });
  const events: CanonicalEvent[] = [];
  for (const m of SESSION) events.push(...n.push(m.message, { direction: m.direction }));
  events.push(...n.end());
  return { events, stats: n.stats() };
}
const P = (e: CanonicalEvent): any => e.payload as any;
const rule = (e: CanonicalEvent): string => (e as any).raw?.rule;

describe("acp: a Cursor session with extension methods", () => {
  const { events, stats } = run();

  it("no unknown, no invalid, every event canonical; nothing left open", () => {
    expect(stats.unknown).toBe(0);
    expect(stats.invalid).toBe(0);
    expect(events.filter((e) => !validateCanonicalEvent(e)).map((e) => e.type)).toEqual([]);
    expect(events.filter((e) => rule(e) === "agentnorm#end").map((e) => P(e).message)).toEqual([]);
  });

  it("every cursor/* message is mapped by its row; the unlisted one becomes a warning with the raw message", () => {
    const byMethod = new Map<string, Set<string>>();
    for (const e of events) {
      const m = (e as any).raw?.method;
      if (typeof m === "string" && m.startsWith("cursor/")) byMethod.set(m, (byMethod.get(m) ?? new Set()).add(rule(e)));
    }
    expect(Object.fromEntries([...byMethod].map(([m, r]) => [m, [...r].sort()]))).toEqual({
      "cursor/ask_question": ["acp#cursor-ask-question", "acp#cursor-ask-question-answer"],
      "cursor/create_plan": ["acp#cursor-create-plan", "acp#cursor-create-plan-answer"],
      "cursor/update_todos": ["acp#cursor-update-todos"],
      "cursor/task": ["acp#cursor-task-completed"],
      "cursor/generate_image": ["acp#cursor-generate-image"],
      "cursor/brand_new": ["acp#extension-notification"],
    });
    const w = events.find((e) => rule(e) === "acp#extension-notification")!;
    expect(w.type).toBe("runtime.warning");
    expect((w as any).raw.payload).toEqual(SESSION[16].message);
  });

  it("raw.source: Cursor's own methods (and the answers to its requests) say cursor.acp.*, every other ACP message acp.*", () => {
    const sources = new Map<string, Set<string>>();
    for (const e of events) {
      const raw = (e as any).raw;
      if (raw.source === "agentnorm.runtime") continue;
      const key = String(raw.method).startsWith("cursor/") && raw.rule !== "acp#extension-notification" ? "cursor" : String(raw.method);
      sources.set(key, (sources.get(key) ?? new Set()).add(raw.source));
    }
    expect([...sources.get("cursor")!].sort()).toEqual(["cursor.acp.notification", "cursor.acp.request", "cursor.acp.response"]);
    for (const [m, s] of sources) if (m !== "cursor") expect([...s].every((x) => x.startsWith("acp.")), `${m}: ${[...s]}`).toBe(true);
    expect([...(sources.get("session/update") ?? [])]).toEqual(["acp.notification"]);
  });

  it("the question and the plan are requests answered in the stream; their ids link to the turn and tool call", () => {
    const opened = events.filter((e) => e.type === "request.opened");
    const resolved = events.filter((e) => e.type === "request.resolved");
    expect(opened.map((e) => e.requestId)).toEqual(resolved.map((e) => e.requestId));
    expect(resolved.map((e) => P(e).decision)).toEqual(["answered", "allow_once"]);
    expect(resolved.map((e) => P(e).resolution.outcome.outcome)).toEqual(["answered", "accepted"]);
    const toolQ = events.find((e) => e.type === "item.started" && P(e).title === "Ask question")!;
    expect(opened[0].itemId).toBe(toolQ.itemId);
    expect(opened[0].turnId).toBe(toolQ.turnId);
    expect(P(events.find((e) => e.type === "user-input.resolved")!).answers).toEqual({ q1: ["jwt"] });
    expect(P(events.find((e) => e.type === "user-input.resolved")!).data).toEqual({ outcome: "answered", answers: [{ questionId: "q1", selectedOptionIds: ["jwt"] }] });
  });

  it("create_plan then a merging update_todos: the turn's plan is the whole merged list", () => {
    const plans = events.filter((e) => e.type === "turn.plan.updated").map((e) => P(e).plan);
    expect(plans).toEqual([
      [{ step: "Add route", status: "pending" }, { step: "Test", status: "pending" }],
      [{ step: "Add route", status: "inProgress" }, { step: "Test", status: "pending" }],
    ]);
  });

  it("cursor/task: a task started and completed, nested under the tool call that ran it", () => {
    const taskTool = events.find((e) => e.type === "item.started" && P(e).title === "Task")!;
    const t = events.filter((e) => e.type.startsWith("task."));
    expect(t.map((e) => e.type)).toEqual(["task.started", "task.completed"]);
    expect(t.every((e) => (e as any).parentId === taskTool.itemId)).toBe(true);
    expect(P(t[0]).taskId).toBe(P(t[1]).taskId);
  });

  it("an edit's diff updates the turn's diff; the generated image is an item", () => {
    const d = events.filter((e) => e.type === "turn.diff.updated");
    expect(d.map((e) => P(e).unifiedDiff)).toEqual(["--- a/w/auth.ts\n+++ b/w/auth.ts\n@@ -1,1 +1,1 @@\n-x\n+y\n"]);
    expect(d[0].turnId).toBe(events.find((e) => e.type === "turn.started")!.turnId);
    expect(events.filter((e) => e.type === "item.completed" && P(e).itemType === "image_view").map((e) => P(e).detail)).toEqual(["/w/logo.png"]);
  });
});

describe("acp: Cursor helpers", () => {
  it("cursorTodos replaces, or merges by id keeping order and appending new ids", () => {
    const a = [{ id: "a", content: "A", status: "pending" }, { id: "b", content: "B", status: "pending" }];
    expect(cursorTodos(a, [{ id: "c", content: "C" }], false)).toEqual([{ id: "c", content: "C" }]);
    expect(cursorTodos(a, [{ id: "b", status: "completed" }, { id: "c", content: "C" }], true)).toEqual([
      { id: "a", content: "A", status: "pending" }, { id: "b", content: "B", status: "completed" }, { id: "c", content: "C" },
    ]);
    expect(cursorTodos(undefined, [{ id: "x" }], true)).toEqual([{ id: "x" }]);
    expect(cursorTodos(a, "nope", false)).toEqual([]);
  });
  it("acpUnifiedDiff: whole-file hunks appended to the turn's diff; no diff block leaves it as it was", () => {
    expect(acpUnifiedDiff(undefined, [{ type: "content", content: { type: "text", text: "x" } }])).toBeUndefined();
    expect(acpUnifiedDiff("prev\n", [{ type: "terminal", terminalId: "t" }])).toBe("prev\n");
    expect(acpUnifiedDiff(undefined, [{ type: "diff", path: "a.txt", oldText: "1\n2\n", newText: "1\n3\n" }])).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-1\n-2\n+1\n+3\n");
    expect(acpUnifiedDiff(undefined, [{ type: "diff", path: "/gone.txt", oldText: "z", newText: "" }])).toBe("--- a/gone.txt\n+++ b/gone.txt\n@@ -1,1 +0,0 @@\n-z\n");
  });
});
