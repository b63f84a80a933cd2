/**
 * The cursor-sdk surface's other forms, on the hand-made fixtures (fixtures/cursor-sdk/{deltas,conversation,mixed},
 * shaped after @cursor/sdk 1.0.32's declarations):
 * - interaction updates (onDelta's `{update}`, or bare): typed tool content per variant, a subagent's updates under its
 *   task call, to-do lists as plan updates, turn-ended → usage and the turn's end;
 * - restored conversations (run.conversation() turns, one a line);
 * - mixed captures (a host logging both onDelta and run.stream()): each text, prompt and tool call once;
 * - live/restored parity: a session as updates and as its conversation renders alike.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { verifyEvents, formatFinding } from "../src/verify/verify.js";
import { createAccumulator, type Block } from "../src/render/accumulator.js";
import { defaultBlockFields, renderView } from "./support/render-view.js";
import { completed, P, runCursorSdk } from "./support/cursor-sdk.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "cursor-sdk");
const lines = (name: string): string[] => readFileSync(join(DIR, name), "utf8").split("\n").filter((l) => l.trim() !== "");
const list = (sub: string) => readdirSync(join(DIR, sub)).filter((f) => f.endsWith(".jsonl")).sort();

const run = runCursorSdk;
const deltas = (events: CanonicalEvent[], kind: string) => events.filter((e) => e.type === "content.delta" && P(e).streamKind === kind).map((e) => P(e).delta).join("");

const SESSIONS = ["edit.jsonl", "error.jsonl", "plain-turn.jsonl", "shell.jsonl", "task.jsonl", "todos.jsonl", "tools.jsonl"];

describe("cursor-sdk fixtures: every form normalizes cleanly", () => {
  it("has the fixtures this test names", () => {
    expect(list("deltas")).toEqual([...SESSIONS, "shell-fields.jsonl", "summary.jsonl"].sort());
    expect(list("conversation")).toEqual([...SESSIONS, "two-turns-and-shell.jsonl"].sort());
    expect(list("mixed")).toEqual(["cancelled.jsonl", "shell.jsonl", "task-lagging-stream.jsonl", "two-runs.jsonl"]);
  });
  for (const sub of ["deltas", "conversation", "mixed"]) {
    for (const f of list(sub)) {
      it(`${sub}/${f}: valid canonical events, a clean verifier, no warnings or errors, every turn ends`, () => {
        const events = run(lines(`${sub}/${f}`));
        for (const e of events) expect(validateCanonicalEvent(e), JSON.stringify(e)).toBe(true);
        expect(verifyEvents(events).violations.map(formatFinding)).toEqual([]);
        // two-runs: its second run ends with status ERROR, a runtime.error by design
        expect(events.filter((e) => e.type.startsWith("runtime.")).map((e) => P(e).message)).toEqual(f === "two-runs.jsonl" ? ["The model provider returned an error"] : []);
        const started = events.filter((e) => e.type === "turn.started").length;
        expect(started).toBeGreaterThan(0);
        expect(events.filter((e) => e.type === "turn.completed")).toHaveLength(started);
      });
    }
  }
});

describe("cursor-sdk interaction updates (onDelta)", () => {
  it("a plain turn: the prompt, reasoning and text deltas, usage from turn-ended, the turn completed", () => {
    const events = run(lines("deltas/plain-turn.jsonl"));
    expect(P(completed(events, "user_message")[0])).toMatchObject({ text: "Say hello" });
    expect(deltas(events, "reasoning_text")).toBe("The user wants a greeting.");
    expect(P(completed(events, "reasoning")[0]).data).toEqual({ thinkingDurationMs: 840 });
    expect(deltas(events, "assistant_text")).toBe("Hello!");
    expect(completed(events, "assistant_message")).toHaveLength(1);
    expect(P(events.find((e) => e.type === "thread.token-usage.updated")).tokenUsage).toMatchObject({ inputTokens: 1200, outputTokens: 12, cachedInputTokens: 800 });
    expect(P(events.find((e) => e.type === "turn.completed"))).toMatchObject({ state: "completed" });
    // the thread is the agent the prompt names
    expect(P(events.find((e) => e.type === "thread.started"))).toMatchObject({ providerThreadId: "agent-5b7e2c10-8a3d-4f61-b2c9-0d1e4f6a7c38" });
  });

  it("shell: command, cwd, exit code, output; the output shell-output-delta streamed is not repeated at completion", () => {
    const events = run(lines("deltas/shell.jsonl"));
    const cmds = completed(events, "command_execution").map(P);
    expect(cmds).toMatchObject([
      { status: "completed", command: "ls", cwd: "/w", exitCode: 0, output: "a.txt\nb.txt\n", durationMs: 31 },
      { status: "completed", command: "false", exitCode: 1 },
    ]);
    expect(events.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output").map((e) => P(e).delta)).toEqual(["a.txt\n", "b.txt\n"]);
    expect(completed(events, "assistant_message")).toHaveLength(2);
  });

  it("edit/write/delete (bare updates): file_change items with files, the edit's diff, the write's streamed arguments", () => {
    const events = run(lines("deltas/edit.jsonl"));
    expect(completed(events, "file_change").map((e) => P(e).files)).toEqual([
      [{ path: "/w/a.py", change: "update", diff: "@@ -1 +1 @@\n-foo = 1\n+bar = 1\n" }],
      [expect.objectContaining({ path: "/w/b.py" })],
      [{ path: "/w/c.py", change: "delete" }],
    ]);
    expect(P(events.find((e) => e.type === "item.updated"))).toMatchObject({ itemType: "file_change", input: { fileText: "print('b')\n" } });
  });

  it("every other tool variant: mcp_tool_call with its server, generateImage an image_view of its file, the rest dynamic_tool_call named by the variant", () => {
    const events = run(lines("deltas/tools.jsonl"));
    expect(P(completed(events, "mcp_tool_call")[0])).toMatchObject({ status: "completed", server: "docs", toolName: "search" });
    expect(completed(events, "dynamic_tool_call").map((e) => P(e).toolName)).toEqual(["grep", "glob", "read", "ls", "readLints", "semSearch", "recordScreen"]);
    expect(P(completed(events, "image_view")[0])).toMatchObject({ status: "completed", toolName: "generateImage", path: "/w/logo.png" });
  });

  it("a subagent task: a collab_agent_tool_call with the subagent's reasoning, tool call and text under it", () => {
    const events = run(lines("deltas/task.jsonl"));
    const task = completed(events, "collab_agent_tool_call");
    expect(task).toHaveLength(1);
    expect(P(task[0])).toMatchObject({ status: "completed", title: "Find the config", toolName: "task" });
    const nested = events.filter((e) => e.parentId !== undefined);
    expect(new Set(nested.map((e) => e.parentId))).toEqual(new Set([task[0].itemId]));
    expect(nested.filter((e) => e.type === "item.started").map((e) => P(e).itemType)).toEqual(["reasoning", "dynamic_tool_call", "assistant_message"]);
    const nestedIds = new Set(nested.map((e) => e.itemId));
    expect(events.filter((e) => e.type === "item.completed" && nestedIds.has(e.itemId))).toHaveLength(3);
    expect(nested.filter((e) => e.type === "content.delta" && P(e).streamKind === "assistant_text").map((e) => P(e).delta).join("")).toBe("It is /w/config.py.");
    // the top-level answer is not under the task
    expect(events.filter((e) => e.type === "content.delta" && P(e).streamKind === "assistant_text" && e.parentId === undefined).map((e) => P(e).delta).join("")).toBe("The config is read in /w/config.py.");
  });

  it("todos and a plan: updateTodos → turn.plan.updated tied to its plan item (cancelled → completed); createPlan → a plan item with its text", () => {
    const events = run(lines("deltas/todos.jsonl"));
    const plans = events.filter((e) => e.type === "turn.plan.updated");
    expect(plans.map((e) => P(e).plan)).toEqual([
      [{ step: "Write the changelog", status: "inProgress" }, { step: "Tag the release", status: "pending" }],
      [{ step: "Write the changelog", status: "completed" }, { step: "Tag the release", status: "completed" }],
    ]);
    expect(plans.every((e) => e.itemId !== undefined)).toBe(true);
    expect(completed(events, "plan").map((e) => [P(e).toolName, P(e).text])).toEqual([["createPlan", "1. Write the changelog\n2. Tag the release"], ["updateTodos", undefined], ["updateTodos", undefined]]);
  });

  it("errors: a failed write and a failed MCP call, with their messages; the turn still completes", () => {
    const events = run(lines("deltas/error.jsonl"));
    expect(P(completed(events, "file_change")[0])).toMatchObject({ status: "failed", error: "EACCES: permission denied" });
    expect(P(completed(events, "mcp_tool_call")[0])).toMatchObject({ status: "failed", error: "MCP server docs is not connected" });
    expect(P(events.find((e) => e.type === "turn.completed"))).toMatchObject({ state: "completed" });
  });

  it("summarizing the conversation: a context_compaction item with the summary, and the summary itself", () => {
    const events = run(lines("deltas/summary.jsonl"));
    expect(P(events.find((e) => e.type === "item.updated"))).toMatchObject({ itemType: "context_compaction", text: "The user asked to rename foo to bar; a.py is done." });
    expect(completed(events, "context_compaction").map((e) => P(e).status)).toEqual(["completed"]);
    expect(P(events.find((e) => e.type === "tool.summary")).summary).toBe("The user asked to rename foo to bar; a.py is done.");
  });

  it("the update kinds carry their own raw source", () => {
    const events = run(lines("deltas/plain-turn.jsonl"));
    expect(new Set(events.map((e) => e.raw?.source))).toEqual(new Set(["cursor.sdk.update"]));
  });

  it("an unknown update type is a warning carrying it, not dropped", () => {
    const events = run([...lines("deltas/plain-turn.jsonl").slice(0, 2), JSON.stringify({ update: { type: "hologram-delta", x: 1 } })]);
    const w = events.filter((e) => e.type === "runtime.warning" && JSON.stringify(e.raw?.payload).includes("hologram-delta"));
    expect(w).toHaveLength(1);
  });
});

describe("cursor-sdk restored conversations (run.conversation())", () => {
  it("two agent turns and a shell command the user ran: three turns, the command with its output", () => {
    const events = run(lines("conversation/two-turns-and-shell.jsonl"));
    expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["completed", "completed", "completed"]);
    expect(completed(events, "user_message").map((e) => P(e).text)).toEqual(["What is in /w?", "Say hello"]);
    expect(completed(events, "command_execution").map(P)).toMatchObject([
      { command: "ls", exitCode: 0, output: "a.txt\nb.txt\n" },
      { command: "git status --short", cwd: "/w", exitCode: 0, output: " M a.py\n" },
    ]);
    // the updates a turn is re-fed as are mapped by the update rows
    expect(events.filter((e) => !String(e.raw?.rule).startsWith("agentnorm#")).every((e) => /^cursor-sdk#update-/.test(String(e.raw?.rule)))).toBe(true);
  });

  it("a restored event carries the conversation line it came from", () => {
    const [line] = lines("conversation/plain-turn.jsonl");
    const events = run([line]);
    expect(events.every((e) => JSON.stringify(e.raw?.payload) === JSON.stringify(JSON.parse(line)))).toBe(true);
  });
});

describe("cursor-sdk mixed captures (onDelta and run.stream() in one file)", () => {
  it("shell: the prompt, each text and each tool call once; usage from the update, the end from the run's status", () => {
    const mixed = run(lines("mixed/shell.jsonl"));
    const alone = run(lines("deltas/shell.jsonl"));
    expect(completed(mixed, "user_message")).toHaveLength(1);
    expect(deltas(mixed, "assistant_text")).toBe(deltas(alone, "assistant_text"));
    expect(deltas(mixed, "command_output")).toBe("a.txt\nb.txt\n");
    expect(completed(mixed, "command_execution").map((e) => e.providerRefs?.providerItemId)).toEqual(["call-sh-1", "call-sh-2"]);
    expect(mixed.filter((e) => e.type === "item.started").length).toBe(alone.filter((e) => e.type === "item.started").length);
    expect(mixed.filter((e) => e.type === "thread.token-usage.updated")).toHaveLength(1);
    expect(mixed.filter((e) => e.type === "turn.started")).toHaveLength(1);
    expect(P(mixed.find((e) => e.type === "turn.completed"))).toMatchObject({ state: "completed", stopReason: "FINISHED", usage: { requestId: "req-91b0" } });
  });

  it("the run stream's copies are ignored and counted, not mapped twice", () => {
    const n = createNormalizer({ surface: "cursor-sdk", ids: counterIds(), clock: steppingClock() });
    for (const l of lines("mixed/shell.jsonl")) n.pushLine(l);
    n.end();
    const stats: any = n.stats();
    const copies = lines("mixed/shell.jsonl").filter((l) => /^\{"type":"(user|assistant|thinking|tool_call|task|usage)"/.test(l)).length;
    expect(copies).toBeGreaterThan(5);
    const byType = Object.entries(stats.ignored as Record<string, number>).filter(([k]) => k.startsWith("cursor-sdk#ignored-message-3:"));
    expect(byType.reduce((a, [, n]) => a + n, 0)).toBe(copies);
    // each key names the type it counts
    expect(byType.map(([k]) => k.split(":")[1]).sort()).toEqual([...new Set(lines("mixed/shell.jsonl").map((l) => JSON.parse(l).type).filter((t: string) => /^(user|assistant|thinking|tool_call|task|usage)$/.test(t)))].sort());
  });

  it("a run-stream message without its run id is an error even in a turn the updates describe, not taken for a copy", () => {
    const bad = JSON.stringify({ type: "assistant", agent_id: "agent-5b7e2c10-8a3d-4f61-b2c9-0d1e4f6a7c38", message: { role: "assistant", content: [{ type: "text", text: "x" }] } });
    const events = run([...lines("deltas/plain-turn.jsonl").slice(0, 3), bad, bad]);
    expect(events.filter((e) => e.type === "runtime.error")).toHaveLength(2);
    expect(events.filter((e) => e.type === "content.delta" && P(e).delta === "x")).toEqual([]);
  });

  it("a stream lagging behind the updates (its status after the first updates): still one turn, the task's nested activity once", () => {
    const mixed = run(lines("mixed/task-lagging-stream.jsonl"));
    const alone = run(lines("deltas/task.jsonl"));
    expect(mixed.filter((e) => e.type === "turn.started")).toHaveLength(1);
    const shape = (es: CanonicalEvent[]) => es.filter((e) => e.type.startsWith("item.") || e.type === "content.delta").map((e) => [e.type, P(e).itemType ?? P(e).streamKind, e.parentId !== undefined]);
    expect(shape(mixed)).toEqual(shape(alone));
  });

  it("two runs of one agent: two turns (the second's updates open a turn of their own), each prompt and call once", () => {
    const events = run(lines("mixed/two-runs.jsonl"));
    expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["completed", "failed"]);
    expect(completed(events, "user_message").map((e) => P(e).text)).toEqual(["Say hello", "Rename foo to bar, add b.py, remove c.py"]);
    expect(completed(events, "file_change")).toHaveLength(3);
    const turnOf = (t: string) => events.find((e) => e.type === "item.completed" && P(e).text === t)?.turnId;
    expect(turnOf("Say hello")).not.toBe(turnOf("Rename foo to bar, add b.py, remove c.py"));
    expect(deltas(events, "assistant_text")).toBe("Hello!Done.");
  });

  it("a cancelled run: the command still running fails with the turn, which is cancelled", () => {
    const events = run(lines("mixed/cancelled.jsonl"));
    expect(P(completed(events, "command_execution")[0])).toMatchObject({ status: "failed" });
    expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["cancelled"]);
    expect(completed(events, "user_message")).toHaveLength(1);
    expect(deltas(events, "assistant_text")).toBe("Let me look.");
  });
});

/** The accumulator's render groups of a stream (test/support/render-view.ts). */
function view(input: string[], omitKinds: string[] = []) {
  const n = createNormalizer({ surface: "cursor-sdk", ids: counterIds(), clock: steppingClock() });
  const a = createAccumulator();
  input.forEach((l, i) => a.applyAll(n.pushLine(l, { lineNumber: i + 1 })));
  a.applyAll(n.end());
  const snap = a.snapshot();
  return { snap, view: renderView(snap, { omitKinds, blockFields: (b: Block) => defaultBlockFields(b) }) };
}
const blockKinds = (snap: any): string[] => {
  const out: string[] = [];
  const visit = (steps: any[]) => { for (const st of steps) { for (const b of st.blocks) out.push(b.kind); visit(st.children); } };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
  return out;
};

describe("cursor-sdk live/restored parity: a session as interaction updates and as its conversation renders alike", () => {
  // What a conversation cannot have: token usage (turn-ended's usage is not kept in it).
  for (const f of SESSIONS) {
    it(`${f}: same render groups (usage left out: a conversation does not keep it)`, () => {
      const live = view(lines(`deltas/${f}`), ["usage"]);
      const restored = view(lines(`conversation/${f}`), ["usage"]);
      expect(blockKinds(restored.snap)).not.toContain("usage");
      expect(blockKinds(live.snap).filter((k) => k !== "usage").length).toBeGreaterThanOrEqual(3);
      expect(restored.view).toEqual(live.view);
    });
  }
  it("the comparison sees a difference: a conversation missing its subagent's steps does not match", () => {
    const [line] = lines("conversation/task.jsonl");
    const turn = JSON.parse(line);
    delete turn.turn.steps[0].message.result.value.conversationSteps;
    expect(view([JSON.stringify(turn)], ["usage"]).view).not.toEqual(view(lines("deltas/task.jsonl"), ["usage"]).view);
  });
  it("the usage left out is really there live (the removal is not vacuous)", () => {
    expect(blockKinds(view(lines("deltas/plain-turn.jsonl")).snap)).toContain("usage");
  });
});
