/**
 * claude-sdk (Claude Agent SDK SDKMessage stream + canUseTool permissions): whole recorded sessions through the table
 * — our own recordings of Claude Code 2.1.62 via @anthropic-ai/claude-agent-sdk 0.2.62
 * (fixtures/recorded/claude-sdk/<scenario>.ndjson, capture lines {seq, dir, channel?, message}) — plus the tool
 * classification helpers. The rows' single-message behaviour is in the table examples
 * (generated/tests/claude-sdk.examples.test.ts); the exact canonical output of each recording is pinned by
 * test/recorded.test.ts.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";

/** The item type the claude-sdk table gives a tool use block (the tool-name value maps of mappings/claude-sdk.yaml). */
function claudeToolItemType(name: unknown, blockType = "tool_use"): string {
  const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
  const ev = n.push({ type: "assistant", message: { id: "msg_1", content: [{ type: blockType, id: "toolu_1", name, input: {} }] }, parent_tool_use_id: null, uuid: "u1", session_id: "s1" });
  return (ev.find((e) => e.type === "item.started")?.payload as any)?.itemType;
}
/** The request type the claude-sdk table gives a canUseTool permission request for a tool. */
function claudeToolRequestType(toolName: unknown): string {
  const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
  const ev = n.push({ toolName, input: {}, options: { toolUseID: "toolu_1", signal: {} } });
  return (ev.find((e) => e.type === "request.opened")?.payload as any)?.requestType;
}
const CLAUDE_TOOL_ITEM_TYPES: Record<string, string> = {
  Bash: "command_execution", BashOutput: "command_execution", KillShell: "command_execution", KillBash: "command_execution",
  Edit: "file_change", MultiEdit: "file_change", Write: "file_change", NotebookEdit: "file_change",
  WebSearch: "web_search", WebFetch: "web_search", Task: "collab_agent_tool_call", Agent: "collab_agent_tool_call", TodoWrite: "plan",
};
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURES = join(ROOT, "fixtures/recorded/claude-sdk");
const P = (e: CanonicalEvent): any => e.payload as any;
const scenarios = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".ndjson") && !f.includes(".transcript.") && !f.includes(".expected."))
  .map((f) => f.replace(/\.ndjson$/, ""))
  .sort();

interface Run { events: CanonicalEvent[]; end: CanonicalEvent[]; captures: any[] }

function runFile(scenario: string): Run {
  const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(join(FIXTURES, `${scenario}.ndjson`), "utf8").split("\n").filter((l) => l.trim() !== "");
  const events = lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 }));
  const end = n.end();
  return { events: [...events, ...end], end, captures: lines.map((l) => JSON.parse(l)) };
}

const sdkIn = (r: Run) => r.captures.filter((c) => c.dir === "in" && !c.channel).map((c) => c.message);
const of = (r: Run, type: string) => r.events.filter((e) => e.type === type);

describe("claude-sdk recordings", () => {
  it("finds the recordings", () => {
    expect(scenarios).toEqual(expect.arrayContaining(["approval", "edit", "failing-tool", "interrupt", "model-error", "plain", "question", "shell", "two-turn"]));
  });

  for (const scenario of scenarios) {
    describe(scenario, () => {
      let cached: Run | undefined;
      const get = () => (cached ??= runFile(scenario));

      it("replays clean: schema-valid, no warning, no malformed input, nothing left open", () => {
        const r = get();
        expect(r.events.filter((e) => !validateCanonicalEvent(e)).map((e) => `#${e.sequence} ${e.type}`)).toEqual([]);
        expect(of(r, "runtime.warning").map((e) => P(e).message)).toEqual([]);
        expect(of(r, "runtime.error").filter((e) => P(e).class === "validation_error").map((e) => P(e).message)).toEqual([]);
        expect(r.end).toEqual([]);
      });

      it("assistant text: deltas rebuild each assistant message exactly, once, and the last one is the result text", () => {
        const r = get();
        const recorded = sdkIn(r).filter((m) => m.type === "assistant").flatMap((m) => m.message.content.filter((b: any) => b.type === "text").map((b: any) => b.text));
        const text = new Map<string, string>();
        const rebuilt: string[] = [];
        for (const e of r.events) {
          if (e.type === "content.delta" && P(e).streamKind === "assistant_text") text.set(e.itemId!, (text.get(e.itemId!) ?? "") + P(e).delta);
          // a superseded item (a response cut off mid-stream and retried: stream-retry) is not shown: the retry's is
          if (e.type === "item.completed" && P(e).itemType === "assistant_message" && P(e).status !== "superseded") {
            rebuilt.push(text.get(e.itemId!) ?? "");
            expect(P(e).data.text).toBe(text.get(e.itemId!));
          }
        }
        expect(rebuilt).toEqual(recorded);
        const results = sdkIn(r).filter((m) => m.type === "result" && typeof m.result === "string");
        if (results.length) expect(rebuilt.at(-1)).toBe(results.at(-1).result);
      });

      it("reasoning text: thinking deltas rebuild each thinking block", () => {
        const r = get();
        const recorded = sdkIn(r).filter((m) => m.type === "assistant").flatMap((m) => m.message.content.filter((b: any) => b.type === "thinking").map((b: any) => b.thinking));
        const text = new Map<string, string>();
        for (const e of of(r, "content.delta")) if (P(e).streamKind === "reasoning_text") text.set(e.itemId!, (text.get(e.itemId!) ?? "") + P(e).delta);
        expect([...text.values()]).toEqual(recorded);
      });

      it("every item starts once and completes once; every tool item is closed by its tool_result", () => {
        const r = get();
        const started = of(r, "item.started").map((e) => e.itemId);
        const completed = of(r, "item.completed").map((e) => e.itemId);
        expect(new Set(started).size).toBe(started.length);
        expect(new Set(completed).size).toBe(completed.length);
        expect([...started].sort()).toEqual([...completed].sort());
        const toolUses = sdkIn(r).filter((m) => m.type === "assistant").flatMap((m) => m.message.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id));
        const toolItems = of(r, "item.completed").filter((e) => e.providerRefs?.providerItemId?.startsWith("toolu_"));
        expect(toolItems.map((e) => e.providerRefs!.providerItemId).sort()).toEqual([...toolUses].sort());
        for (const e of toolItems) expect(e.raw?.rule).toBe("claude-sdk#user-tool-result");
      });

      it("every permission request is opened once and resolved once, with the decision we sent", () => {
        const r = get();
        const asked = r.captures.filter((c) => c.channel === "permission" && c.dir === "in");
        const answered = r.captures.filter((c) => c.channel === "permission" && c.dir === "out").map((c) => c.message.behavior);
        const opened = of(r, "request.opened");
        const resolved = of(r, "request.resolved");
        expect(opened.length).toBe(asked.length);
        // the provider's word stays in resolution; the decision is canonical
        expect(resolved.map((e) => P(e).resolution.behavior)).toEqual(answered);
        expect(resolved.map((e) => P(e).decision)).toEqual(resolved.map((e) => (P(e).resolution.behavior === "deny" ? "reject_once" : P(e).requestType === "tool_user_input" ? "answered" : "allow_once")));
        expect(resolved.map((e) => e.requestId)).toEqual(opened.map((e) => e.requestId));
        opened.forEach((e, i) => {
          expect(P(e).requestType).toBe(claudeToolRequestType(asked[i].message.toolName));
          expect(e.providerRefs?.providerRequestId).toBe(asked[i].message.options.toolUseID);
          expect(P(resolved[i]).requestType).toBe(P(e).requestType);
        });
      });

      it("one turn per result, opened by the prompt we sent", () => {
        const r = get();
        const prompts = r.captures.filter((c) => c.dir === "out" && !c.channel).length;
        const results = sdkIn(r).filter((m) => m.type === "result").length;
        expect(of(r, "turn.started").length).toBe(results);
        expect(of(r, "turn.completed").length).toBe(results);
        expect(prompts).toBe(results);
        for (const e of of(r, "turn.started")) expect(e.raw?.rule).toBe("claude-sdk#user-message");
      });
    });
  }

  it("two-turn: two turns, each with its own prompt and answer", () => {
    const r = runFile("two-turn");
    const turns = of(r, "turn.started").map((e) => e.turnId);
    expect(turns).toHaveLength(2);
    expect(new Set(turns).size).toBe(2);
    expect(of(r, "turn.completed").map((e) => [e.turnId, P(e).state])).toEqual(turns.map((t) => [t, "completed"]));
    const users = of(r, "item.completed").filter((e) => P(e).itemType === "user_message").map((e) => e.turnId);
    expect(users).toEqual(turns);
    const answers = of(r, "item.completed").filter((e) => P(e).itemType === "assistant_message").map((e) => [e.turnId, P(e).data.text]);
    expect(answers).toEqual([[turns[0], "Noted: 42."], [turns[1], "You asked me to remember 42."]]);
  });

  it("interrupt: the turn ends interrupted, the cut-off command failed", () => {
    const r = runFile("interrupt");
    expect(of(r, "turn.completed").map((e) => P(e).state)).toEqual(["interrupted"]);
    const bash = of(r, "item.completed").filter((e) => P(e).itemType === "command_execution");
    expect(bash.map((e) => P(e).status)).toEqual(["failed"]);
  });

  it("model-error: the turn fails with the API error, reported as a runtime.error", () => {
    const r = runFile("model-error");
    const done = of(r, "turn.completed");
    expect(done.map((e) => P(e).state)).toEqual(["failed"]);
    expect(P(done[0]).errorMessage).toMatch(/^API Error: 500/);
    expect(of(r, "runtime.error").map((e) => [P(e).class, P(e).message.slice(0, 14)])).toEqual([["provider_error", "API Error: 500"]]);
  });

  it("failing-tool: is_error completes the command item as failed, with the output as its output and error", () => {
    const r = runFile("failing-tool");
    const bash = of(r, "item.completed").filter((e) => P(e).itemType === "command_execution");
    expect(bash.map((e) => P(e).status)).toEqual(["failed"]);
    expect(P(bash[0]).error).toMatch(/No such file or directory/);
    expect(P(bash[0]).output).toMatch(/No such file or directory/);
  });

  it("approval: allow then deny; the denied command fails", () => {
    const r = runFile("approval");
    expect(of(r, "request.resolved").map((e) => [P(e).requestType, P(e).decision])).toEqual([
      ["command_execution_approval", "allow_once"],
      ["command_execution_approval", "reject_once"],
    ]);
    expect(of(r, "item.completed").filter((e) => P(e).itemType === "command_execution").map((e) => P(e).status)).toEqual(["completed", "failed"]);
  });

  it("edit and question: edit tools ask for file_change_approval, AskUserQuestion is tool_user_input", () => {
    expect(of(runFile("edit"), "request.opened").map((e) => P(e).requestType)).toEqual(["file_change_approval"]);
    expect(of(runFile("question"), "request.opened").map((e) => P(e).requestType)).toEqual(["tool_user_input", "file_change_approval"]);
  });
});

describe("claude tool classification helpers", () => {
  it("tool item types: the lookup table, MCP names first, dynamic_tool_call otherwise", () => {
    for (const [name, type] of Object.entries(CLAUDE_TOOL_ITEM_TYPES)) expect(claudeToolItemType(name)).toBe(type);
    expect(["Bash", "BashOutput", "KillShell"].map((n) => claudeToolItemType(n))).toEqual(["command_execution", "command_execution", "command_execution"]);
    expect(["Edit", "MultiEdit", "Write", "NotebookEdit"].map((n) => claudeToolItemType(n))).toEqual(Array(4).fill("file_change"));
    expect(["WebSearch", "WebFetch"].map((n) => claudeToolItemType(n))).toEqual(["web_search", "web_search"]);
    expect(["Task", "Agent"].map((n) => claudeToolItemType(n))).toEqual(["collab_agent_tool_call", "collab_agent_tool_call"]);
    expect(claudeToolItemType("TodoWrite")).toBe("plan");
    expect(claudeToolItemType("mcp__docs__search")).toBe("mcp_tool_call");
    expect(claudeToolItemType("mcp__Bash__x")).toBe("mcp_tool_call");
    expect(claudeToolItemType("search", "mcp_tool_use")).toBe("mcp_tool_call");
    expect(claudeToolItemType("web_search", "server_tool_use")).toBe("web_search");
    expect(["Read", "Glob", "Grep", "AskUserQuestion", "constructor", "__proto__"].map((n) => claudeToolItemType(n))).toEqual(Array(6).fill("dynamic_tool_call"));
    expect(claudeToolItemType(undefined)).toBe("dynamic_tool_call");
  });

  it("permission request types: command and edit tools ask for approval of their kind", () => {
    expect(["Bash", "BashOutput", "KillShell"].map((n) => claudeToolRequestType(n))).toEqual(Array(3).fill("command_execution_approval"));
    expect(["Edit", "MultiEdit", "Write", "NotebookEdit"].map((n) => claudeToolRequestType(n))).toEqual(Array(4).fill("file_change_approval"));
    expect(claudeToolRequestType("AskUserQuestion")).toBe("tool_user_input");
    expect(["Read", "WebFetch", "Task", "TodoWrite", "mcp__x__Bash", "toString", 42].map((n) => claudeToolRequestType(n))).toEqual(Array(7).fill("unknown"));
  });
});
