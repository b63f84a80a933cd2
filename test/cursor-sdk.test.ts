/**
 * The cursor-sdk surface on whole runs: the hand-made fixtures (fixtures/cursor-sdk, shaped after @cursor/sdk 1.0.32's
 * declarations) normalize with a clean verifier, valid canonical events, no warnings, and typed content on the items
 * (commands with exit codes and output, file changes with diffs, MCP calls with their server); status → turn states;
 * usage → token usage; the stored-run wrapper (sdk_message | result | done) gives the same events as bare messages.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { verifyEvents, formatFinding } from "../src/verify/verify.js";
import { completed, P, runCursorSdk } from "./support/cursor-sdk.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "cursor-sdk");
const lines = (name: string): string[] => readFileSync(join(DIR, name), "utf8").split("\n").filter((l) => l.trim() !== "");

const run = runCursorSdk;
const turnEnd = (events: CanonicalEvent[]) => events.filter((e) => e.type === "turn.completed");

describe("cursor-sdk fixtures", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".jsonl")).sort();

  it("has the fixtures this test names", () => {
    expect(files).toEqual(["cancelled.jsonl", "edit.jsonl", "error.jsonl", "mcp.jsonl", "plain-turn.jsonl", "shell.jsonl", "usage-stored-run.jsonl"]);
  });

  for (const f of files) {
    it(`${f}: valid canonical events, a clean verifier, no warnings, one turn that ends`, () => {
      const events = run(lines(f));
      for (const e of events) expect(validateCanonicalEvent(e), JSON.stringify(e)).toBe(true);
      const v = verifyEvents(events);
      expect(v.violations.map(formatFinding)).toEqual([]);
      expect(events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message)).toEqual([]);
      expect(events.filter((e) => e.type === "turn.started")).toHaveLength(1);
      expect(turnEnd(events)).toHaveLength(1);
      expect(completed(events, "user_message")).toHaveLength(1);
    });
  }

  it("a plain turn: the prompt, reasoning and text deltas, usage, completed with the request id", () => {
    const events = run(lines("plain-turn.jsonl"));
    expect(P(completed(events, "user_message")[0]).text).toBe("Say hello");
    const deltas = (kind: string) => events.filter((e) => e.type === "content.delta" && P(e).streamKind === kind).map((e) => P(e).delta).join("");
    expect(deltas("reasoning_text")).toBe("The user wants a greeting.");
    expect(deltas("assistant_text")).toBe("Hello!");
    expect(completed(events, "reasoning")).toHaveLength(1);
    expect(completed(events, "assistant_message")).toHaveLength(1);
    expect(P(events.find((e) => e.type === "thread.token-usage.updated")).tokenUsage).toMatchObject({ inputTokens: 1200, outputTokens: 12, cachedInputTokens: 800, totalTokens: 2012 });
    expect(P(turnEnd(events)[0])).toMatchObject({ state: "completed", usage: { requestId: "req-7c2e" } });
    expect(P(events.find((e) => e.type === "session.configured"))).toMatchObject({ model: "composer-2" });
  });

  it("shell: command_execution items with command, cwd, exit code and output; text before and after is two items", () => {
    const events = run(lines("shell.jsonl"));
    const cmds = completed(events, "command_execution").map(P);
    expect(cmds).toHaveLength(2);
    expect(cmds[0]).toMatchObject({ status: "completed", command: "ls", cwd: "/w", exitCode: 0, output: "a.txt\nb.txt\n", durationMs: 31, toolName: "shell" });
    expect(cmds[1]).toMatchObject({ command: "false", exitCode: 1 });
    expect(events.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output").map((e) => P(e).delta)).toEqual(["a.txt\nb.txt\n"]);
    expect(completed(events, "assistant_message")).toHaveLength(2);
  });

  it("edit/write/delete: file_change items with files (the edit's diff from its result)", () => {
    const files = completed(run(lines("edit.jsonl")), "file_change").map((e) => P(e).files);
    expect(files).toHaveLength(3);
    expect(files[0]).toEqual([{ path: "/w/a.py", change: "update", diff: "@@ -1 +1 @@\n-foo = 1\n+bar = 1\n" }]);
    expect(files[1][0]).toMatchObject({ path: "/w/b.py" });
    expect(files[1][0].diff).toContain("+print('b')");
    expect(files[2]).toEqual([{ path: "/w/c.py", change: "delete" }]);
  });

  it("mcp: an mcp_tool_call with its server and tool; another tool is a dynamic_tool_call with its name", () => {
    const events = run(lines("mcp.jsonl"));
    expect(P(completed(events, "mcp_tool_call")[0])).toMatchObject({ status: "completed", server: "docs", toolName: "search", input: { args: { query: "streams" } } });
    expect(P(completed(events, "dynamic_tool_call")[0])).toMatchObject({ status: "completed", toolName: "grep" });
  });

  it("an error: the failed tool call, a runtime.error and a failed turn", () => {
    const events = run(lines("error.jsonl"));
    expect(P(completed(events, "file_change")[0])).toMatchObject({ status: "failed", error: "EACCES: permission denied" });
    expect(P(events.find((e) => e.type === "runtime.error"))).toMatchObject({ message: "The model provider returned an error" });
    expect(P(turnEnd(events)[0])).toMatchObject({ state: "failed", stopReason: "ERROR" });
  });

  it("a cancelled stored run: the open command fails with the turn, which is cancelled (no error); result and done add nothing", () => {
    const events = run(lines("cancelled.jsonl"));
    expect(P(events.find((e) => e.type === "item.started" && P(e).itemType === "command_execution"))).toMatchObject({ command: "sleep 60" });
    expect(P(completed(events, "command_execution")[0])).toMatchObject({ status: "failed" });
    expect(P(turnEnd(events)[0])).toMatchObject({ state: "cancelled" });
    expect(events.some((e) => e.type === "runtime.error")).toBe(false);
  });

  it("the stored-run wrapper gives the events of the bare messages", () => {
    const wrapped = lines("usage-stored-run.jsonl");
    const bare = wrapped.map((l) => JSON.parse(l)).filter((e) => e.type === "sdk_message").map((e) => JSON.stringify(e.message));
    const strip = (es: CanonicalEvent[]) => es.map((e) => ({ type: e.type, payload: e.payload }));
    const w = run(wrapped);
    expect(strip(w)).toEqual(strip(run(bare)));
    expect(P(w.find((e) => e.type === "tool.summary")).summary).toBe("Summarized the conversation so far");
    expect(P(w.find((e) => e.type === "thread.token-usage.updated")).tokenUsage).toMatchObject({ reasoningTokens: 40, cacheWriteTokens: 512 });
  });

  it("a stored run whose result comes without a status message still ends the turn", () => {
    const wrapped = lines("usage-stored-run.jsonl").filter((l) => !l.includes('"FINISHED"'));
    const events = run(wrapped);
    expect(turnEnd(events).map((e) => P(e).state)).toEqual(["completed"]);
    expect(verifyEvents(events).violations.map(formatFinding)).toEqual([]);
  });
});
