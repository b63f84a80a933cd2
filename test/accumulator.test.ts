/**
 * The render accumulator (src/render/accumulator.ts) against its acceptance criteria, on hand-built canonical
 * streams: every case asserts the render groups (turn → step → block), the block's content and state, and the
 * events that built it.
 */
import { describe, expect, it } from "vitest";
import { createAccumulator, snapshotBlocks, type AccumulatorSnapshot, type Block } from "../src/render/accumulator.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";

/** A tiny canonical stream builder: sequence and eventId count up; ids are given per event. */
function stream(provider: CanonicalEvent["provider"] = "codex") {
  let seq = 0;
  const events: CanonicalEvent[] = [];
  const ev = (type: string, payload: object = {}, ids: Partial<Record<"turnId" | "itemId" | "requestId" | "parentId" | "threadId", string>> = {}) => {
    seq++;
    const e = { eventId: `evt_${seq}`, schemaVersion: 2, sequence: seq, type, provider, sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...ids, payload } as unknown as CanonicalEvent;
    events.push(e);
    return e;
  };
  return { ev, events };
}
function run(events: unknown[]): AccumulatorSnapshot {
  const a = createAccumulator();
  a.applyAll(events);
  return a.snapshot();
}
const blocks = (s: AccumulatorSnapshot) => snapshotBlocks(s);
const byId = (s: AccumulatorSnapshot, id: string) => blocks(s).find((b) => b.blockId === id) as any;
const kinds = (s: AccumulatorSnapshot) => blocks(s).map((b) => b.blockId);

describe("accumulator: text and thinking deltas", () => {
  it("deltas append to their own block only; interleaved items keep separate text", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "reasoning", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "reasoning_text", delta: "Let me " }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "assistant_message", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "assistant_text", delta: "Hel" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "reasoning_text", delta: "think." }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "reasoning_summary_text", delta: "Thinking" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "lo." }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.completed", { itemType: "assistant_message", status: "completed" }, { turnId: "trn_1", itemId: "itm_2" });
    const s = run(events);
    expect(kinds(s)).toEqual(["itm_1:thinking", "itm_2:text"]);
    expect(byId(s, "itm_1:thinking")).toMatchObject({ kind: "thinking", text: "Let me think.", summary: "Thinking", streaming: true, sequences: [2, 3, 6, 7] });
    expect(byId(s, "itm_2:text")).toMatchObject({ kind: "text", role: "assistant", text: "Hello.", streaming: false, sequences: [4, 5, 8, 9], eventIds: ["evt_4", "evt_5", "evt_8", "evt_9"] });
    expect(s.problems).toEqual([]);
  });

  it("a user message arriving whole in its item text is a user text block", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "user_message", status: "inProgress", text: "Fix the bug" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "user_message", status: "completed", text: "Fix the bug" }, { turnId: "trn_1", itemId: "itm_1" });
    expect(byId(run(events), "itm_1:text")).toMatchObject({ role: "user", text: "Fix the bug" });
  });

  it("snapshot text is joined lazily: many small deltas, one string, nothing duplicated", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    for (let i = 0; i < 500; i++) ev("content.delta", { streamKind: "assistant_text", delta: `${i % 10}` }, { turnId: "trn_1", itemId: "itm_1" });
    const a = createAccumulator();
    a.applyAll(events);
    const t1 = (snapshotBlocks(a.snapshot())[0] as any).text;
    const t2 = (snapshotBlocks(a.snapshot())[0] as any).text;
    expect(t1).toBe("0123456789".repeat(50));
    expect(t2).toBe(t1); // snapshot() is repeatable (no consuming the chunks)
  });
});

describe("accumulator: tool lifecycle", () => {
  it("interleaved tools render from lifecycle state and keep their position when they complete", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "npm test", command: "npm test" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "dynamic_tool_call", status: "inProgress", title: "Read", toolName: "Read", input: { path: "a.ts" } }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "command_output", delta: "ok 1\n" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "dynamic_tool_call", status: "completed", title: "Read", toolName: "Read", input: { path: "a.ts" }, output: "export {}" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "assistant_text", delta: "While the tests run…" }, { turnId: "trn_1", itemId: "itm_3" });
    ev("content.delta", { streamKind: "command_output", delta: "ok 2\n" }, { turnId: "trn_1", itemId: "itm_1" });
    // the cumulative snapshot of the command arrives after later text: it must not move the card below the text
    ev("item.completed", { itemType: "command_execution", status: "failed", title: "npm test", command: "npm test", exitCode: 1 }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "rm -rf /" }, { turnId: "trn_1", itemId: "itm_4" });
    ev("item.completed", { itemType: "command_execution", status: "declined", title: "rm -rf /" }, { turnId: "trn_1", itemId: "itm_4" });
    const s = run(events);
    expect(kinds(s)).toEqual(["itm_1:tool", "itm_1:terminal", "itm_2:tool", "itm_3:text", "itm_4:tool"]);
    expect(byId(s, "itm_1:tool")).toMatchObject({ status: "failed", title: "npm test", command: "npm test", exitCode: 1, sequences: [2, 8] }); // output deltas went to the terminal block only
    expect(byId(s, "itm_1:terminal")).toMatchObject({ text: "ok 1\nok 2\n", streaming: false, sequences: [4, 7] });
    expect(byId(s, "itm_2:tool")).toMatchObject({ status: "completed", toolName: "Read", input: { path: "a.ts" }, result: "export {}" });
    expect(byId(s, "itm_4:tool").status).toBe("declined");
  });

  it("a tool is pending until it starts, running while in progress; an update after completion does not reopen it", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("request.opened", { requestType: "command_execution_approval", detail: "npm i" }, { turnId: "trn_1", itemId: "itm_1", requestId: "req_1" });
    ev("item.updated", { itemType: "command_execution" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "command_execution", status: "completed" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.updated", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" });
    const a = createAccumulator();
    const statuses: unknown[] = [];
    for (const e of events) {
      a.apply(e);
      statuses.push(blocks(a.snapshot()).map((b: any) => `${b.kind}:${b.status ?? b.state}`).join(" "));
    }
    expect(statuses).toEqual([
      "",
      "permission:open", // the request names the item before it exists: no tool card yet
      "permission:open tool:running", // the update creates the card; the open request is linked to it
      "permission:open tool:completed",
      "permission:open tool:completed", // a late update does not reopen it
    ]);
    const s = a.snapshot();
    expect(byId(s, "itm_1:tool").awaitingRequests).toEqual(["req_1:request"]);
    expect(s.problems.map((p) => p.kind)).toEqual(["update-after-completion"]);
  });

  it("nested activity hangs under its parent step (parentId), in order", () => {
    const { ev, events } = stream("claude");
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "collab_agent_tool_call", status: "inProgress", title: "Task" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("task.started", { taskId: "tsk_1", description: "explore the repo", taskType: "local_agent" }, { turnId: "trn_1", parentId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls" }, { turnId: "trn_1", itemId: "itm_2", parentId: "itm_1" });
    ev("task.progress", { taskId: "tsk_1", description: "listing", lastToolName: "Bash" }, { turnId: "trn_1", parentId: "itm_1" });
    ev("item.completed", { itemType: "command_execution", status: "completed", title: "ls" }, { turnId: "trn_1", itemId: "itm_2", parentId: "itm_1" });
    ev("task.completed", { taskId: "tsk_1", status: "completed", summary: "done" }, { turnId: "trn_1", parentId: "itm_1" });
    ev("item.completed", { itemType: "collab_agent_tool_call", status: "completed", title: "Task" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "Explored." }, { turnId: "trn_1", itemId: "itm_3" });
    const s = run(events);
    const steps = s.sessions[0].turns[0].steps;
    expect(steps.map((x) => x.stepId)).toEqual(["itm_1", "itm_3"]);
    expect(steps[0].blocks.map((b) => b.blockId)).toEqual(["itm_1:tool", "tsk_1:task"]);
    expect(steps[0].children.map((x) => [x.stepId, x.parentId])).toEqual([["itm_2", "itm_1"]]);
    expect(byId(s, "tsk_1:task")).toMatchObject({ status: "completed", description: "explore the repo", progress: ["listing"], lastToolName: "Bash", summary: "done", sequences: [3, 5, 7] });
    expect(s.problems).toEqual([]);
  });
});

describe("accumulator: diffs, permissions, questions, plans, todos", () => {
  it("file change diffs (item scope) and the turn diff (turn scope, replaced in place)", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "file_change", status: "inProgress", title: "a.ts", files: [{ path: "/w/a.ts", change: "update", diff: "@@ -1 +1 @@\n-a\n+b\n" }] }, { turnId: "trn_1", itemId: "itm_1" });
    ev("turn.diff.updated", { unifiedDiff: "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-a\n+b\n" }, { turnId: "trn_1" });
    ev("item.completed", { itemType: "file_change", status: "completed", title: "a.ts", files: [{ path: "/w/a.ts", change: "update", diff: "@@ -1 +1 @@\n-a\n+b\n" }] }, { turnId: "trn_1", itemId: "itm_1" });
    ev("turn.diff.updated", { unifiedDiff: "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/b.ts\n+++ b/b.ts\n@@ -0,0 +1 @@\n+c\n" }, { turnId: "trn_1" });
    // a completion without a start; a move; a new file
    ev("item.completed", { itemType: "file_change", status: "completed", files: [{ path: "/w/c.py", change: "move", movePath: "/w/e.py", diff: "@@ -1 +1 @@\n-x\n+y\n" }] }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.started", { itemType: "file_change", status: "inProgress", files: [{ path: "/w/d.md", change: "add", diff: "@@ -0,0 +1 @@\n+q\n" }] }, { turnId: "trn_1", itemId: "itm_3" });
    const s = run(events);
    expect(kinds(s)).toEqual(["itm_1:tool", "itm_1:diff", "trn_1:diff", "itm_2:tool", "itm_2:diff", "itm_3:tool", "itm_3:diff"]);
    expect(byId(s, "itm_1:diff")).toMatchObject({ scope: "item", files: [{ path: "/w/a.ts", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b\n" }] });
    expect(byId(s, "trn_1:diff")).toMatchObject({ scope: "turn", files: [{ path: "a.ts" }, { path: "b.ts" }], sequences: [3, 5] });
    expect(byId(s, "itm_2:diff").files).toEqual([{ path: "/w/c.py", kind: "move", movePath: "/w/e.py", diff: "@@ -1 +1 @@\n-x\n+y\n" }]);
    expect(byId(s, "itm_3:diff").files).toEqual([{ path: "/w/d.md", kind: "add", diff: "@@ -0,0 +1 @@\n+q\n" }]);
    expect(s.problems.map((p) => p.kind)).toEqual(["completion-without-start"]);
  });

  it("permission requests are open then resolved, tied to their tool; questions keep questions and answers", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "npm i" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("request.opened", { requestType: "command_execution_approval", detail: "npm i", args: { options: ["allow_once", "reject_once"] } }, { turnId: "trn_1", itemId: "itm_1", requestId: "req_1" });
    const a = createAccumulator();
    a.applyAll(events);
    expect(byId(a.snapshot(), "req_1:request")).toMatchObject({ kind: "permission", state: "open", requestType: "command_execution_approval", args: { options: ["allow_once", "reject_once"] } });
    expect(byId(a.snapshot(), "itm_1:tool").awaitingRequests).toEqual(["req_1:request"]);
    const more = [
      ev("request.resolved", { requestType: "command_execution_approval", decision: "allow_once" }, { turnId: "trn_1", itemId: "itm_1", requestId: "req_1" }),
      ev("user-input.requested", { questions: [{ id: "q", question: "Which language?" }] }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_2" }),
      ev("request.opened", { requestType: "tool_user_input" }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_2" }),
      ev("user-input.resolved", { answers: { q: "Go" } }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_2" }),
      ev("request.resolved", { requestType: "tool_user_input" }, { turnId: "trn_1", itemId: "itm_2", requestId: "req_2" }),
    ];
    a.applyAll(more);
    const s = a.snapshot();
    expect(byId(s, "req_1:request")).toMatchObject({ state: "resolved", decision: "allow_once", sequences: [3, 4] });
    expect(byId(s, "itm_1:tool").awaitingRequests).toEqual([]);
    expect(byId(s, "req_2:request")).toMatchObject({ kind: "question", state: "resolved", questions: [{ id: "q", question: "Which language?" }], answers: { q: "Go" }, sequences: [5, 6, 7, 8] });
    expect(blocks(s).filter((b) => b.kind === "question")).toHaveLength(1);
    expect(s.problems).toEqual([]);
  });

  it("plan updates replace the turn's plan in place; a to-do list item's checklist is a todo block", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("turn.plan.updated", { explanation: null, plan: [{ step: "read", status: "inProgress" }, { step: "edit", status: "pending" }] }, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "Reading." }, { turnId: "trn_1", itemId: "itm_1" });
    ev("turn.plan.updated", { explanation: "halfway", plan: [{ step: "read", status: "completed" }, { step: "edit", status: "inProgress" }] }, { turnId: "trn_1" });
    ev("item.started", { itemType: "plan", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("turn.plan.updated", { plan: [{ step: "a", status: "pending" }] }, { turnId: "trn_1", itemId: "itm_2" });
    ev("turn.plan.updated", { plan: [{ step: "a", status: "completed" }] }, { turnId: "trn_1", itemId: "itm_2" });
    const s = run(events);
    expect(kinds(s)).toEqual(["trn_1:plan", "itm_1:text", "itm_2:plan"]);
    expect(byId(s, "trn_1:plan")).toMatchObject({ kind: "plan", explanation: "halfway", updates: 2, steps: [{ step: "read", status: "completed" }, { step: "edit", status: "inProgress" }] });
    expect(byId(s, "itm_2:plan")).toMatchObject({ kind: "todo", updates: 2, steps: [{ step: "a", status: "completed" }] });
  });
});

describe("accumulator: terminal output, usage, mode, task and status", () => {
  it("terminal output is its own block beside its tool card, referencing the tool's step", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "command_output", delta: "$ ls\n" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls" }, { turnId: "trn_1", itemId: "itm_1" });
    expect(byId(run(events.slice(0, 2)), "itm_1:tool").status).toBe("pending"); // output before the start: a pending card
    const s = run(events);
    const step = s.sessions[0].turns[0].steps[0];
    expect(step.blocks.map((b) => [b.blockId, b.kind])).toEqual([["itm_1:tool", "tool"], ["itm_1:terminal", "terminal"]]);
    expect(byId(s, "itm_1:tool").status).toBe("running");
    // the delta came first: the tool card was created pending for it, then started in place (reported)
    expect(s.problems.map((p) => p.kind)).toEqual(["late-start"]);
  });

  it("a command's output its start carried (restored history) shows when the completion does not repeat it, once when it does", () => {
    const { ev, events } = stream("acp");
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls", output: "a.txt\nb/" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "command_execution", status: "completed" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls", output: "c.txt" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.completed", { itemType: "command_execution", status: "completed", output: "c.txt" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "ls", output: "d.txt" }, { turnId: "trn_1", itemId: "itm_3" });
    ev("content.delta", { streamKind: "command_output", delta: "streamed" }, { turnId: "trn_1", itemId: "itm_3" });
    ev("item.completed", { itemType: "command_execution", status: "completed" }, { turnId: "trn_1", itemId: "itm_3" });
    const s = run(events);
    expect(byId(s, "itm_1:terminal")).toMatchObject({ text: "a.txt\nb/" });
    expect(byId(s, "itm_2:terminal")).toMatchObject({ text: "c.txt" });
    expect(byId(s, "itm_3:terminal")).toMatchObject({ text: "streamed" }); // what was streamed stands
    expect(byId(run(events.slice(0, 2)), "itm_1:terminal")).toBeUndefined(); // until the completion: left to it
  });

  it("a terminal the item names (terminalId, e.g. ACP) is a terminal block carrying it", () => {
    const { ev, events } = stream("acp");
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "make", terminalId: "term_7" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.completed", { itemType: "command_execution", status: "completed", title: "make" }, { turnId: "trn_1", itemId: "itm_1" });
    const s = run(events);
    expect(kinds(s)).toEqual(["itm_1:tool", "itm_1:terminal"]);
    expect(byId(s, "itm_1:terminal")).toMatchObject({ terminalId: "term_7", text: "", streaming: false, sequences: [2] }); // closed by the completion, which does not name it
  });

  it("usage is one block per turn, updated in place; mode changes are blocks; statuses are blocks at their position", () => {
    const { ev, events } = stream("acp");
    ev("session.configured", { config: { modes: { currentModeId: "ask" } }, mode: "ask" });
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("thread.token-usage.updated", { usage: { used: 10 } }, { turnId: "trn_1" });
    ev("session.configured", { config: { currentModeId: "code" }, mode: "code" });
    ev("runtime.warning", { message: "slow" }, { turnId: "trn_1" });
    ev("thread.token-usage.updated", { usage: { used: 25 } }, { turnId: "trn_1" });
    ev("turn.completed", { state: "completed", stopReason: "end_turn" }, { turnId: "trn_1" });
    ev("runtime.error", { message: "connection lost", class: "transport_error" });
    const s = run(events);
    const sess = s.sessions[0];
    expect(sess.steps.flatMap((x) => x.blocks.map((b) => [b.kind, (b as any).mode ?? (b as any).message]))).toEqual([["mode", "ask"], ["status", "connection lost"]]);
    expect(sess.turns[0].steps.flatMap((x) => x.blocks.map((b) => b.kind))).toEqual(["usage", "mode", "status"]);
    expect(sess.turns[0]).toMatchObject({ state: "completed", stopReason: "end_turn", usage: { used: 25 } });
    expect(byId(s, "trn_1:usage")).toMatchObject({ usage: { used: 25 }, updates: 2, sequences: [3, 6] });
    expect(byId(s, "evt_4:mode").mode).toBe("code");
    expect(sess.config).toEqual({ modes: { currentModeId: "ask" }, currentModeId: "code" });
  });

  it("canonical token counts: the usage block, the turn and the session carry tokenUsage; a usage without counts has none", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("thread.token-usage.updated", { usage: { used: 10, size: 100 } }, { turnId: "trn_1" });
    expect(byId(run(events), "trn_1:usage").tokens).toBeUndefined();
    ev("thread.token-usage.updated", { usage: { total: { input: 5 } }, tokenUsage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } }, { turnId: "trn_1" });
    ev("turn.completed", { state: "completed", tokenUsage: { inputTokens: 6, outputTokens: 3 } }, { turnId: "trn_1" });
    const s = run(events);
    expect(byId(s, "trn_1:usage")).toMatchObject({ tokens: { inputTokens: 5, outputTokens: 2, totalTokens: 7 }, updates: 2 });
    expect(s.sessions[0].tokens).toEqual({ inputTokens: 5, outputTokens: 2, totalTokens: 7 });
    expect(s.sessions[0].turns[0].tokens).toEqual({ inputTokens: 6, outputTokens: 3 });
  });

  it("turns and their end states; the event log links every event to its blocks", () => {
    const { ev, events } = stream();
    ev("session.started", {});
    ev("turn.started", { model: "m1" }, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "a" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("turn.completed", { state: "interrupted" }, { turnId: "trn_1" });
    ev("turn.started", {}, { turnId: "trn_2" });
    ev("turn.aborted", { reason: "user" }, { turnId: "trn_2" });
    const s = run(events);
    expect(s.sessions[0].turns.map((t) => [t.turnId, t.index, t.state, t.sequences])).toEqual([["trn_1", 1, "interrupted", [2, 4]], ["trn_2", 2, "aborted", [5, 6]]]);
    expect(s.sessions[0].turns[0].model).toBe("m1");
    expect(s.events!.map((r) => [r.sequence, r.turnId ?? null, r.blockIds])).toEqual([[1, null, []], [2, "trn_1", []], [3, "trn_1", ["itm_1:text"]], [4, "trn_1", []], [5, "trn_2", []], [6, "trn_2", []]]);
  });
});

describe("accumulator: ordering by identity and sequence; repairs are deterministic and reported", () => {
  it("a late text delta for an earlier item goes to that item, not to the latest block", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "First " }, { turnId: "trn_1", itemId: "itm_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_2" });
    ev("content.delta", { streamKind: "assistant_text", delta: "Second" }, { turnId: "trn_1", itemId: "itm_3" });
    ev("content.delta", { streamKind: "assistant_text", delta: "part." }, { turnId: "trn_1", itemId: "itm_1" });
    const s = run(events);
    expect(blocks(s).map((b: Block) => [b.blockId, (b as any).text ?? (b as any).status])).toEqual([["itm_1:text", "First part."], ["itm_2:tool", "running"], ["itm_3:text", "Second"]]);
  });

  it("orphans: completion without start, resolve without open, task without start, unknown parent, unknown turn", () => {
    const { ev, events } = stream();
    ev("item.completed", { itemType: "command_execution", status: "completed", title: "ls" }, { turnId: "trn_9", itemId: "itm_1" });
    ev("request.resolved", { requestType: "command_execution_approval", decision: "accept" }, { turnId: "trn_9", requestId: "req_1" });
    ev("task.completed", { taskId: "tsk_1", status: "failed" }, { turnId: "trn_9" });
    ev("item.started", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_9", itemId: "itm_2", parentId: "itm_7" });
    const s = run(events);
    expect(s.problems.map((p) => [p.kind, p.sequence])).toEqual([["completion-without-start", 1], ["turn-without-start", 1], ["resolve-without-open", 2], ["task-without-start", 3], ["unknown-parent", 4]]);
    expect(s.sessions[0].turns.map((t) => [t.turnId, t.implicit])).toEqual([["trn_9", true]]);
    expect(byId(s, "itm_1:tool").status).toBe("completed");
    expect(byId(s, "req_1:request").state).toBe("resolved");
    expect(byId(s, "tsk_1:task").status).toBe("failed");
    const parent = s.sessions[0].turns[0].steps.find((x) => x.stepId === "itm_7")!;
    expect(parent).toMatchObject({ implicit: true, children: [{ stepId: "itm_2" }] });
  });

  it("duplicates are ignored, out-of-order sequences applied where they land, garbage never throws", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "a" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "assistant_text", delta: "b" }, { turnId: "trn_1", itemId: "itm_1" });
    const a = createAccumulator();
    a.apply(events[0]);
    a.apply(events[2]);
    a.apply(events[1]);
    a.apply(events[1]);
    expect(() => { a.apply(null); a.apply({ type: 5 }); a.apply("x"); a.apply({ ...events[2], eventId: "evt_x", sequence: 9, type: "item.completed", payload: null }); a.apply({ ...events[2], eventId: "evt_y", sequence: 10, type: "no.such.type" }); }).not.toThrow();
    const s = a.snapshot();
    expect(byId(s, "itm_1:text").text).toBe("ba");
    expect(s.problems.map((p) => p.kind)).toEqual(["out-of-order", "duplicate-event", "invalid-event", "invalid-event", "invalid-event", "unknown-event-type"]);
    // an event type this version does not know (a later contract version's) is skipped and reported, not rendered
    expect(s.problems.at(-1)?.message).toContain("no.such.type");
    expect(blocks(s).some((b) => b.kind === "status" && (b as any).message.includes("no.such.type"))).toBe(false);
    expect(s.eventCount).toBe(5);
  });

  it("the same stream gives the same snapshot (deterministic), and a JSON round-trip changes nothing (plain JSON)", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("content.delta", { streamKind: "command_output", delta: "x" }, { itemId: "itm_1" });
    ev("item.completed", { itemType: "command_execution", status: "completed" }, { itemId: "itm_1" });
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" });
    const a = run(events);
    expect(run(events)).toEqual(a);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });

  it("subscribers get each change with the blocks it touched, until they unsubscribe", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_1" });
    ev("item.started", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("content.delta", { streamKind: "command_output", delta: "x" }, { turnId: "trn_1", itemId: "itm_1" });
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" });
    const a = createAccumulator();
    const seen: [number, string[], string | undefined][] = [];
    const off = a.subscribe((c) => seen.push([c.sequence, c.blockIds, c.turnId]));
    a.apply(events[0]);
    a.apply(events[1]);
    a.apply(events[2]);
    off();
    a.apply(events[3]);
    expect(seen).toEqual([[1, [], "trn_1"], [2, ["itm_1:tool"], "trn_1"], [3, ["itm_1:terminal"], "trn_1"]]);
    expect(a.snapshot().problems.map((p) => p.kind)).toEqual(["open-at-turn-end"]);
  });
});

describe("accumulator: retainTurns bounds memory by open state", () => {
  /** `turns` complete turns in one session: a session-level status between turns, per turn a tool with a request,
   *  a text delta, a task and a turn plan. */
  function longSession(turns: number) {
    const { ev, events } = stream();
    ev("session.started", {});
    for (let i = 1; i <= turns; i++) {
      const ids = { turnId: `trn_${i}`, threadId: `thr_${i}` };
      ev("runtime.warning", { message: `between ${i}` }, { threadId: `thr_${i}` });
      ev("turn.started", {}, ids);
      ev("item.started", { itemType: "command_execution", status: "inProgress" }, { ...ids, itemId: `itm_${i}a` });
      ev("request.opened", { requestType: "command_execution_approval" }, { ...ids, itemId: `itm_${i}a`, requestId: `req_${i}` });
      ev("request.resolved", { requestType: "command_execution_approval", decision: "accept" }, { ...ids, itemId: `itm_${i}a`, requestId: `req_${i}` });
      ev("item.completed", { itemType: "command_execution", status: "completed" }, { ...ids, itemId: `itm_${i}a` });
      ev("task.started", { taskId: `tsk_${i}` }, ids);
      ev("task.completed", { taskId: `tsk_${i}` }, ids);
      ev("turn.plan.updated", { plan: [{ step: "x", status: "completed" }] }, ids);
      ev("content.delta", { streamKind: "assistant_text", delta: `answer ${i}` }, { ...ids, itemId: `itm_${i}b` });
      ev("turn.completed", { state: "completed" }, ids);
    }
    return { ev, events };
  }
  const PER_TURN = 11;

  it("without retainTurns nothing is retired and the snapshot has no `retired` field (today's behaviour)", () => {
    const a = createAccumulator();
    a.applyAll(longSession(5).events);
    const s = a.snapshot();
    expect(s.retired).toBeUndefined();
    expect(s.sessions[0].turns).toHaveLength(5);
    expect(a.stats()).toMatchObject({ turns: 5, turnIndex: 5, seqIds: 1 + 5 * PER_TURN, tombstones: 0 });
  });

  it("keeps the N most recent ended turns; they equal the same turns without retiring; counts what it dropped", () => {
    const { events } = longSession(10);
    const full = run(events);
    const a = createAccumulator({ retainTurns: 3 });
    a.applyAll(events);
    const s = a.snapshot();
    expect(s.sessions[0].turns.map((t) => [t.turnId, t.index])).toEqual([["trn_8", 8], ["trn_9", 9], ["trn_10", 10]]);
    expect(s.sessions[0].turns).toEqual(full.sessions[0].turns.slice(7));
    // session-level records go with the turn they followed: the status after turn 8 began is kept, the one between
    // turns 7 and 8 went with turn 7
    expect(s.sessions[0].steps.map((st) => (st.blocks[0] as any).message)).toEqual(["between 9", "between 10"]);
    expect(s.sessions[0].threadIds).toEqual(full.sessions[0].threadIds); // pruned only when the thread map doubles
    // session.started and the statuses before turns 1..8 (session level), and turns 1..7
    expect(s.retired).toEqual({ turns: 7, events: 1 + 8 + 7 * (PER_TURN - 1), sessionSteps: 8, problems: 0 });
    expect(s.eventCount).toBe(full.eventCount);
    // the event log keeps only what is retained (compacted lazily; the retained part equals the full log's tail)
    const retainedSeqs = new Set([...s.sessions[0].turns.flatMap((t) => t.sequences), ...blocks(s).flatMap((b) => b.sequences)]);
    expect(s.events!.filter((r) => retainedSeqs.has(r.sequence))).toEqual(full.events!.filter((r) => retainedSeqs.has(r.sequence)));
    expect(s.problems).toEqual([]);
  });

  it("the internal maps shrink: sizes after 1000 turns equal those after 20 (no map keyed by ids grows)", () => {
    const { events } = longSession(1000);
    const a = createAccumulator({ retainTurns: 4, eventLog: false });
    a.applyAll(events.slice(0, 1 + 20 * PER_TURN));
    const small = a.stats();
    a.applyAll(events.slice(1 + 20 * PER_TURN));
    const large = a.stats();
    for (const k of ["turnIndex", "stepIndex", "blockIndex", "requestTool", "seqIds", "tombstones"] as const) expect([k, large[k]]).toEqual([k, small[k]]);
    expect(large.turnIndex).toBe(4);
    expect(large.seqIds).toBe(4 * (PER_TURN - 1) + 3); // the 4 retained turns' events + the statuses after the oldest of them began
    expect(large.turns).toBeLessThanOrEqual(2 * 4 + 17); // retired turn objects are compacted away
    expect(large.sessionSteps).toBeLessThan(140);
    expect(large.threadIds).toBeLessThan(140);
    expect(large.eventLog).toBe(0);
    const full = createAccumulator({ eventLog: false });
    full.applyAll(events);
    expect(full.stats()).toMatchObject({ turnIndex: 1000, seqIds: 1 + 1000 * PER_TURN });
    // with the event log on, it is bounded too
    const logged = createAccumulator({ retainTurns: 4 });
    logged.applyAll(events);
    expect(logged.stats().eventLog).toBeLessThan(2 * 4096);
    expect(logged.snapshot().retired!.events).toBe(1 + 1000 * PER_TURN - (4 * (PER_TURN - 1) + 3));
  });

  it("late events for retired turns/items/requests/tasks are ignored and reported, creating nothing", () => {
    // 12 turns, 2 retained: turns 1..10 retired; the ids of the 8 most recently retired (3..10) are remembered
    const { ev, events } = longSession(12);
    const late = [
      ev("content.delta", { streamKind: "assistant_text", delta: "late" }, { itemId: "itm_4b" }),
      ev("item.updated", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_3", itemId: "itm_3a" }),
      ev("request.resolved", { requestType: "command_execution_approval" }, { requestId: "req_5" }),
      ev("task.progress", { taskId: "tsk_6", description: "x" }, {}),
      ev("turn.completed", { state: "failed" }, { turnId: "trn_10" }),
    ];
    const a = createAccumulator({ retainTurns: 2 });
    a.applyAll(events.slice(0, -late.length));
    const before = a.stats();
    const turnsBefore = a.snapshot().sessions[0].turns;
    const changes = late.map((e) => a.apply(e));
    // an out-of-order replay of a retired event (its sequence is not remembered any more) is reported too
    const replay = a.apply(events[3]);
    expect([...changes, replay]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    const s = a.snapshot();
    expect(s.problems.map((p) => [p.kind, p.sequence])).toEqual([...late.map((e) => ["retired-event", e.sequence]), ["retired-event", 4]]);
    expect(s.problems[0].message).toContain("item itm_4b");
    expect(s.problems[5].message).toContain("at or below the retired events");
    expect(a.stats()).toEqual({ ...before, problems: 6 });
    expect(s.sessions[0].turns).toEqual(turnsBefore);
    // with the default (unlimited) accumulator the same late delta lands in its item
    const full = run(events);
    expect(byId(full, "itm_4b:text").text).toBe("answer 4late");
  });

  it("a turn retired longer ago than the remembered window is repaired like a never-seen one (documented limit)", () => {
    const { ev, events } = longSession(12);
    const late = ev("content.delta", { streamKind: "assistant_text", delta: "late" }, { turnId: "trn_1", itemId: "itm_1b" });
    const a = createAccumulator({ retainTurns: 2 });
    a.applyAll(events);
    const s = a.snapshot();
    expect(s.problems.map((p) => [p.kind, p.sequence])).toEqual([["turn-without-start", late.sequence]]);
    expect(s.sessions[0].turns.map((t) => [t.turnId, t.implicit, t.state])).toEqual([["trn_11", false, "completed"], ["trn_12", false, "completed"], ["trn_1", true, "running"]]);
    expect(a.stats().tombstones).toBeGreaterThan(0);
  });

  it("running turns are never retired; a duplicate of a retained event is still a duplicate", () => {
    const { ev, events } = stream();
    ev("turn.started", {}, { turnId: "trn_open" });
    for (let i = 1; i <= 5; i++) {
      ev("turn.started", {}, { turnId: `trn_${i}` });
      ev("turn.completed", {}, { turnId: `trn_${i}` });
    }
    const a = createAccumulator({ retainTurns: 1 });
    a.applyAll(events);
    expect(a.apply(events[events.length - 1])).toBeUndefined();
    const s = a.snapshot();
    expect(s.sessions[0].turns.map((t) => [t.turnId, t.state])).toEqual([["trn_open", "running"], ["trn_5", "completed"]]);
    expect(s.problems.map((p) => p.kind)).toEqual(["duplicate-event"]);
    expect(s.retired).toMatchObject({ turns: 4 });
  });

  it("problems are bounded too (retainProblems), counting what was dropped", () => {
    const a = createAccumulator({ retainProblems: 3 });
    for (let i = 0; i < 100; i++) a.apply({ bad: i });
    const s = a.snapshot();
    expect(s.problems).toHaveLength(3);
    expect(s.problems[2].message).toContain('"bad":99');
    expect(s.retired).toEqual({ turns: 0, events: 0, sessionSteps: 0, problems: 97 });
    expect(a.stats().problems).toBeLessThanOrEqual(2 * 3 + 16);
  });
});
