/**
 * codex-exec (`codex exec --json` / @openai/codex-sdk ThreadEvent): whole streams through the table — our own
 * recordings (fixtures/recorded/codex-exec/<scenario>.ndjson, capture lines {seq, dir, message}) and hand-built
 * streams covering every event and item type of the pinned SDK types — plus the CLI (`--from codex-exec`).
 * The rows' single-message behaviour is in the table examples (generated/tests/codex-exec.examples.test.ts).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = join(ROOT, "fixtures/recorded/codex-exec");
const P = (e: CanonicalEvent): any => e.payload as any;

function make() {
  return createNormalizer({ surface: "codex-exec", ids: counterIds(), clock: steppingClock() });
}

/** Push bare messages; return every event (end() included) and the normalizer. */
function run(messages: unknown[]) {
  const n = make();
  const events = messages.flatMap((m) => n.push(m));
  const end = n.end();
  return { events: [...events, ...end], end, stats: n.stats() };
}

function runFile(file: string) {
  const n = make();
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  const events = lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 }));
  const end = n.end();
  return { events: [...events, ...end], end, stats: n.stats(), lines };
}

/** Problems of a canonical stream: schema, unknown/malformed input, item lifecycle, text reconstruction. */
function problems(events: CanonicalEvent[]): string[] {
  const out: string[] = [];
  const key = (e: CanonicalEvent) => `${e.turnId}/${e.itemId}`; // item ids are scoped per turn here (see the table header)
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  const text = new Map<string, string>();
  for (const e of events) {
    if (!validateCanonicalEvent(e)) out.push(`#${e.sequence} ${e.type} fails the canonical schema`);
    if (e.type === "runtime.warning") out.push(`#${e.sequence} warning: ${P(e).message}`);
    if (e.type === "runtime.error" && P(e).class === "validation_error") out.push(`#${e.sequence} ${P(e).message}`);
    if (e.type === "item.started") {
      started.set(key(e), (started.get(key(e)) ?? 0) + 1);
      if (completed.has(key(e))) out.push(`#${e.sequence} item.started after its item.completed`);
    }
    if (e.type === "content.delta") {
      if (!started.has(key(e)) || completed.has(key(e))) out.push(`#${e.sequence} content.delta outside its item's lifetime`);
      if (P(e).streamKind === "assistant_text") text.set(key(e), (text.get(key(e)) ?? "") + P(e).delta);
    }
    if (e.type === "item.completed") {
      completed.set(key(e), (completed.get(key(e)) ?? 0) + 1);
      if (!started.has(key(e))) out.push(`#${e.sequence} item.completed without item.started`);
      if (P(e).itemType === "assistant_message" && (text.get(key(e)) ?? "") !== P(e).data?.text) out.push(`#${e.sequence} assistant text differs from the final text`);
    }
  }
  for (const [k, n] of started) if (n !== 1 || completed.get(k) !== 1) out.push(`${k}: started ${n}×, completed ${completed.get(k) ?? 0}×`);
  return out;
}

const scenarios = existsSync(FIXTURES)
  ? readdirSync(FIXTURES).filter((f) => f.endsWith(".ndjson") && !f.endsWith(".rollout.ndjson") && !f.endsWith(".expected.ndjson")).sort()
  : [];

describe("codex-exec: recorded streams (fixtures/recorded/codex-exec)", () => {
  it("has the recordings", () => {
    expect(scenarios).toEqual(expect.arrayContaining(["edit.ndjson", "failing-tool.ndjson", "model-error.ndjson", "plain.ndjson", "shell.ndjson", "two-turn.ndjson"]));
  });

  for (const f of scenarios) {
    it(`${f}: clean stream, one start and one completion per item, exact assistant text, nothing left open`, () => {
      const r = runFile(join(FIXTURES, f));
      expect(problems(r.events)).toEqual([]);
      expect(r.end).toEqual([]);
      expect(r.stats.unknown).toBe(0);
      expect(r.stats.invalid).toBe(0);
      // the recorder's argv line(s): ignored by the input wrapper, counted
      const argv = r.lines.filter((l) => JSON.parse(l).message?.argv).length;
      expect(argv).toBeGreaterThan(0);
      expect(r.stats.ignored["codex-exec#input-recorder-argv"]).toBe(argv);
      // every turn.started has exactly one turn.completed
      const turns = r.events.filter((e) => e.type === "turn.started").map((e) => e.turnId);
      expect(r.events.filter((e) => e.type === "turn.completed").map((e) => e.turnId)).toEqual(turns);
      // the final assistant text of each turn equals the recorded agent_message text
      const recorded = r.lines.map((l) => JSON.parse(l).message).filter((m) => m?.type === "item.completed" && m.item?.type === "agent_message").map((m) => m.item.text);
      const deltas = r.events.filter((e) => e.type === "content.delta" && P(e).streamKind === "assistant_text").map((e) => P(e).delta);
      expect(deltas).toEqual(recorded);
    });
  }

  it("failing-tool: the failed command keeps its exit code and output", () => {
    const r = runFile(join(FIXTURES, "failing-tool.ndjson"));
    const done = r.events.find((e) => e.type === "item.completed" && P(e).itemType === "command_execution")!;
    expect(P(done)).toMatchObject({ status: "failed", title: "/bin/bash -lc 'cat missing.txt'", data: { exit_code: 1 } });
    const output = r.events.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output" && e.itemId === done.itemId);
    expect(output.map((e) => P(e).delta)).toEqual(["cat: missing.txt: No such file or directory\n"]);
  });

  it("model-error: the stream error and turn.failed → runtime.error, turn.completed(failed) + runtime.error", () => {
    const r = runFile(join(FIXTURES, "model-error.ndjson"));
    expect(r.events.map((e) => e.type)).toEqual(["thread.started", "turn.started", "runtime.error", "turn.completed", "runtime.error"]);
    const turn = r.events.find((e) => e.type === "turn.completed")!;
    expect(P(turn)).toMatchObject({ state: "failed", errorMessage: expect.stringContaining("high demand") });
    for (const e of r.events.slice(2)) expect(e.turnId).toBe(turn.turnId);
  });

  it("edit: the file change is one item with its changed path as title", () => {
    const r = runFile(join(FIXTURES, "edit.ndjson"));
    const fc = r.events.filter((e) => e.type.startsWith("item.") && P(e).itemType === "file_change");
    expect(fc.map((e) => [e.type, P(e).status, P(e).title])).toEqual([
      ["item.started", "inProgress", "/sandbox/work/hello.py"],
      ["item.completed", "completed", "/sandbox/work/hello.py"],
    ]);
  });

  it("plain: usage is kept on turn.completed; reasoning text is the reasoning summary", () => {
    const r = runFile(join(FIXTURES, "plain.ndjson"));
    expect(P(r.events.find((e) => e.type === "turn.completed")!)).toMatchObject({ state: "completed", usage: { input_tokens: 1000, output_tokens: 114 } });
    const reasoning = r.events.filter((e) => e.type === "content.delta" && P(e).streamKind === "reasoning_summary_text");
    expect(reasoning.map((e) => P(e).delta)).toEqual([expect.stringContaining("one-sentence definition")]);
  });

  it("two-turn (two `codex exec` runs, item ids restart at item_0): turn 2 keeps all its items", () => {
    const r = runFile(join(FIXTURES, "two-turn.ndjson"));
    const turns = r.events.filter((e) => e.type === "turn.started").map((e) => e.turnId);
    expect(turns).toHaveLength(2);
    expect(r.events.filter((e) => e.type === "thread.started")).toHaveLength(1); // `resume` names the same thread
    const second = r.events.filter((e) => e.turnId === turns[1] && e.type === "item.completed").map((e) => P(e).itemType);
    expect(second).toEqual(["reasoning", "assistant_message"]);
    expect(new Set(r.events.filter((e) => e.turnId).map((e) => e.threadId)).size).toBe(1);
  });
});

describe("codex-exec: every event and item type of @openai/codex-sdk 0.163.0", () => {
  const stream = [
    { type: "thread.started", thread_id: "t1" },
    { type: "turn.started" },
    { type: "item.started", item: { id: "item_0", type: "todo_list", items: [{ text: "Search", completed: false }, { text: "Answer", completed: false }] } },
    { type: "item.completed", item: { id: "item_1", type: "reasoning", text: "**Planning**" } },
    { type: "item.started", item: { id: "item_2", type: "web_search", query: "codex sdk thread events" } },
    { type: "item.completed", item: { id: "item_2", type: "web_search", query: "codex sdk thread events" } },
    { type: "item.updated", item: { id: "item_0", type: "todo_list", items: [{ text: "Search", completed: true }, { text: "Answer", completed: false }] } },
    { type: "item.started", item: { id: "item_3", type: "mcp_tool_call", server: "docs", tool: "lookup", arguments: { q: "ThreadEvent" }, status: "in_progress" } },
    { type: "item.completed", item: { id: "item_3", type: "mcp_tool_call", server: "docs", tool: "lookup", arguments: { q: "ThreadEvent" }, error: { message: "server unavailable" }, status: "failed" } },
    { type: "item.started", item: { id: "item_4", type: "command_execution", command: "bash -lc 'echo hi'", aggregated_output: "", status: "in_progress" } },
    { type: "item.completed", item: { id: "item_4", type: "command_execution", command: "bash -lc 'echo hi'", aggregated_output: "hi\n", exit_code: 0, status: "completed" } },
    { type: "item.completed", item: { id: "item_5", type: "file_change", changes: [{ path: "/w/a.txt", kind: "add" }, { path: "/w/b.txt", kind: "delete" }], status: "completed" } },
    { type: "item.completed", item: { id: "item_6", type: "error", message: "Model metadata not found; using fallback metadata." } },
    { type: "item.completed", item: { id: "item_7", type: "agent_message", text: "Found it: 8 event types." } },
    { type: "item.completed", item: { id: "item_0", type: "todo_list", items: [{ text: "Search", completed: true }, { text: "Answer", completed: true }] } },
    { type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 1 } },
    { type: "turn.started" },
    { type: "error", message: "stream disconnected before completion" },
    { type: "turn.failed", error: { message: "stream disconnected before completion" } },
  ];

  it("maps the whole stream: no warnings, schema-valid, one lifecycle per item, nothing left open", () => {
    const r = run(stream);
    expect(problems(r.events.filter((e) => e.type !== "runtime.error"))).toEqual([]);
    expect(r.end).toEqual([]);
    expect(r.stats.unknown).toBe(0);
    const kinds = r.events.filter((e) => e.type === "item.completed").map((e) => [P(e).itemType, P(e).status]);
    expect(kinds).toEqual([
      ["reasoning", "completed"],
      ["web_search", "completed"],
      ["mcp_tool_call", "failed"],
      ["command_execution", "completed"],
      ["file_change", "completed"],
      ["assistant_message", "completed"],
      ["plan", "completed"],
    ]);
  });

  it("todo_list → turn.plan.updated at start, on each update and at completion", () => {
    const plans = run(stream).events.filter((e) => e.type === "turn.plan.updated").map((e) => P(e).plan.map((s: any) => s.status));
    expect(plans).toEqual([["pending", "pending"], ["completed", "pending"], ["completed", "completed"]]);
  });

  it("an error item → runtime.error on that item; mcp errors are the item's detail", () => {
    const r = run(stream);
    const err = r.events.find((e) => e.type === "runtime.error" && P(e).message.startsWith("Model metadata"))!;
    expect(err.itemId).toMatch(/^itm_/);
    expect(r.events.some((e) => e.type.startsWith("item.") && e.itemId === err.itemId)).toBe(false);
    expect(P(r.events.find((e) => e.type === "item.completed" && P(e).itemType === "mcp_tool_call")!)).toMatchObject({ detail: "server unavailable", title: "docs.lookup" });
  });

  it("every event after thread.started carries the thread; item events carry their turn", () => {
    const r = run(stream);
    const thread = r.events[0].threadId;
    for (const e of r.events) expect(e.threadId, `#${e.sequence} ${e.type}`).toBe(thread);
    for (const e of r.events.filter((x) => x.type.startsWith("item.") || x.type === "content.delta")) expect(e.turnId).toMatch(/^trn_/);
  });

  it("a failed turn: items it left running are completed failed, then turn.completed(failed) + runtime.error", () => {
    const r = run([
      { type: "thread.started", thread_id: "t1" },
      { type: "turn.started" },
      { type: "item.started", item: { id: "item_0", type: "command_execution", command: "sleep 30", aggregated_output: "", status: "in_progress" } },
      { type: "turn.failed", error: { message: "interrupted" } },
    ]);
    expect(r.events.slice(3).map((e) => [e.type, P(e).itemType ?? P(e).state ?? P(e).message])).toEqual([
      ["item.completed", "command_execution"],
      ["turn.completed", "failed"],
      ["runtime.error", "interrupted"],
    ]);
    expect(r.end).toEqual([]);
  });

  it("streams from exec releases before the full Usage type (no cache_write / reasoning counters) are fine", () => {
    const r = run([
      { type: "thread.started", thread_id: "t1" },
      { type: "turn.started" },
      { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "4" } },
      { type: "turn.completed", usage: { input_tokens: 2946, cached_input_tokens: 0, output_tokens: 7 } },
    ]);
    expect(problems(r.events)).toEqual([]);
    expect(P(r.events.at(-1)!)).toEqual({ state: "completed", usage: { input_tokens: 2946, cached_input_tokens: 0, output_tokens: 7 }, tokenUsage: { inputTokens: 2946, cachedInputTokens: 0, outputTokens: 7 } });
  });
});

describe("agentnorm normalize --from codex-exec", () => {
  // The source CLI through tsx: this test runs without a build (a stale dist/ would not know the surface yet).
  function cli(args: string[], input = "") {
    return spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], { cwd: ROOT, encoding: "utf8", input, timeout: 60_000 });
  }

  it("normalizes a capture file and a JSON array (the SDK event-array form)", () => {
    const file = cli(["normalize", "--from", "codex-exec", "--deterministic", "--validate", join(FIXTURES, "shell.ndjson")]);
    expect(file.status, file.stderr).toBe(0);
    const events = file.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.filter((e) => !validateCanonicalEvent(e))).toEqual([]);
    expect(events.map((e) => e.type)).toContain("item.completed");
    expect(file.stderr).toMatch(/: \d+ mapped, \d+ ignored \(1 by an ignore entry, 0 held, \d+ with nothing new\), 0 unknown, 0 malformed, 0 failed schema validation/);

    const array = JSON.stringify([
      { type: "thread.started", thread_id: "t1" },
      { type: "turn.started" },
      { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Hello, world!" } },
      { type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } },
    ], null, "\t");
    const arr = cli(["normalize", "--from", "codex-exec", "--deterministic", "--transcript"], array);
    expect(arr.status, arr.stderr).toBe(0);
    expect(arr.stdout.trim().split("\n").map((l) => JSON.parse(l).type)).toEqual(["thread.started", "turn.started", "item.started", "content.delta", "item.completed", "turn.completed"]);
    expect(arr.stderr).toContain("assistant: Hello, world!");
  });
});
