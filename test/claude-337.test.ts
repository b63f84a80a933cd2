/**
 * Claude Agent SDK 0.3.337 / Claude Code 2.1.337, the claude tables' own pin (0.3.333 and 0.2.62 stay covered): what
 * 0.3.337 adds, each named per case with a hand-made message (shapes as our 2.1.337 recordings and the typings have
 * them), and the recordings of fixtures/recorded/claude-sdk/2.1.337 read as a whole (the same scenarios as 2.1.333;
 * their cross-form comparisons are in test/claude-recorded-2.1.3xx.test.ts, their expected outputs in
 * test/recorded.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { verifyEvents, formatFinding } from "../src/verify/verify.js";
import { createCaptureWriter } from "../src/capture/capture.js";

const DIR = join(import.meta.dirname, "../fixtures/recorded/claude-sdk/2.1.337");
const P = (e: CanonicalEvent | undefined): any => e?.payload as any;
const init = (version: string) => ({ type: "system", subtype: "init", claude_code_version: version, session_id: "s1", uuid: "u0", cwd: "/w", tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", output_style: "default", skills: [], plugins: [] });
const prompt = (text: string) => ({ direction: "out" as const, message: { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" } });
const sys = (subtype: string, rest: Record<string, unknown>) => ({ type: "system", subtype, uuid: `u-${subtype}`, session_id: "s1", ...rest });
const result = (rest: Record<string, unknown>) => ({ type: "result", subtype: "success", is_error: false, duration_ms: 5, duration_api_ms: 4, num_turns: 1, result: "", stop_reason: "end_turn", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], uuid: "r1", session_id: "s1", ...rest });
function run(messages: unknown[], options: { upstreamVersion?: string; surface?: string } = {}) {
  const n = createNormalizer({ surface: options.surface ?? "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true, upstreamVersion: options.upstreamVersion });
  const events: CanonicalEvent[] = [];
  for (const m of messages) {
    const w = m as any;
    events.push(...(w && typeof w === "object" && "direction" in w && "message" in w ? n.push(w.message, { direction: w.direction }) : n.push(m)));
  }
  return { n, events, all: [...events, ...n.end()] };
}
const route = { type: "api-request-route", provider: "customEndpoint", credential: "key", sessionId: "s1" };
const userLine = (rest: Record<string, unknown> = {}) => ({ type: "user", parentUuid: null, isSidechain: false, sessionId: "s1", uuid: "u1", version: "2.1.337", promptId: "p1", turnPromptId: "p1", message: { role: "user", content: "Hi" }, ...rest });

describe("0.3.337 is the tables' own version; 2.1.333 and 2.1.62 streams keep theirs", () => {
  it("claude_code_version 2.1.337 (or newer) selects 0.3.337, 2.1.333 selects 0.3.333", () => {
    for (const [stated, pinned] of [["2.1.337", "0.3.337"], ["2.1.400", "0.3.337"], ["2.1.335", "0.3.333"], ["2.1.333", "0.3.333"], ["2.1.62", "0.2.62"]]) {
      expect(run([init(stated)]).n.upstreamVersion(), stated).toBe(pinned);
    }
    expect(run([], { surface: "claude-transcript" }).n.upstreamVersion()).toBe("0.3.337");
  });
});

describe("transcript: api-request-route (one line per model request) is ignored with a reason; its credential reaches no output", () => {
  it("ignored and counted at 0.3.337: no event, no warning", () => {
    const r = run([userLine(), route, route], { surface: "claude-transcript" });
    expect(r.events.filter((e) => e.type.startsWith("runtime."))).toEqual([]);
    expect(r.n.stats().unknown).toBe(0);
    expect(Object.values(r.n.stats().ignored).reduce((a, b) => a + b, 0)).toBe(2);
  });
  it("a stream forced to 0.3.333 (which has no such line) reports it, naming the version", () => {
    const r = run([route], { surface: "claude-transcript", upstreamVersion: "0.3.333" });
    expect(r.events.map((e) => P(e).message)).toEqual(['claude-transcript: no row for line "api-request-route" matched this message (at @anthropic-ai/claude-agent-sdk@0.3.333)']);
  });
  it("the credential's value is in no canonical event (raw included), and a capture of the line redacts it", () => {
    const secretish = { ...route, credential: "login-credential-kind-x" };
    const r = run([userLine(), secretish], { surface: "claude-transcript" });
    expect(JSON.stringify(r.all)).not.toContain("login-credential-kind-x");
    const cap = createCaptureWriter({ provider: "claude", source: "claude-transcript", captureId: "c1", clock: () => 0 });
    const rec = cap.record("native_in", "api-request-route", route, { direction: "in" });
    expect((rec.payload as any).credential).not.toBe("key");
    expect(rec.redactions).toContainEqual(expect.objectContaining({ path: "/payload/credential" }));
    expect((rec.payload as any).provider).toBe("customEndpoint");
  });
  it("user lines with turnPromptId (and the interrupt notice's interruptedByCancel) map as before", () => {
    const r = run([userLine(), userLine({ uuid: "u2", parentUuid: "u1", promptId: "p2", turnPromptId: undefined, interruptedByCancel: true, message: { role: "user", content: [{ type: "text", text: "[Request interrupted by user for tool use]" }] } })], { surface: "claude-transcript" });
    expect(r.events.filter((e) => e.type === "turn.started" || e.type === "turn.completed").map((e) => (e.type === "turn.completed" ? P(e).state : "started"))).toEqual(["started", "interrupted"]);
    expect(r.n.stats().unknown).toBe(0);
  });
});

describe("task_notification (0.3.337): duration_ms, reason unfinished_at_resume, task_type", () => {
  const started = sys("task_started", { task_id: "b1", tool_use_id: "toolu_1", description: "make", task_type: "local_bash" });
  it("a background shell task's run time is the task's durationMs; its final task_updated is progress, the notification ends it with the summary", () => {
    const r = run([init("2.1.337"), prompt("Build."), started, result({}),
      sys("task_updated", { task_id: "b1", patch: { status: "completed", end_time: 1 } }),
      sys("task_notification", { task_id: "b1", tool_use_id: "toolu_1", status: "completed", output_file: "/t/b1", summary: "Background command completed (exit code 0)", duration_ms: 1520 })]);
    const task = r.events.filter((e) => e.type.startsWith("task."));
    expect(task.map((e) => e.type)).toEqual(["task.started", "task.progress", "task.completed"]);
    expect(P(task[2])).toMatchObject({ status: "completed", durationMs: 1520, summary: "Background command completed (exit code 0)" });
    expect(verifyEvents(r.all).violations.map(formatFinding)).toEqual([]);
  });
  it("unfinished_at_resume: a task this stream never saw starts and ends at once, in no turn, with its type and reason", () => {
    const r = run([init("2.1.337"),
      sys("task_notification", { task_id: "a9", tool_use_id: "toolu_9", status: "stopped", reason: "unfinished_at_resume", task_type: "local_agent", output_file: "/t/a9", summary: "Agent did not finish" })]);
    const task = r.events.filter((e) => e.type.startsWith("task."));
    expect(task.map((e) => [e.type, e.turnId])).toEqual([["task.started", undefined], ["task.completed", undefined]]);
    expect(P(task[0])).toMatchObject({ taskType: "local_agent" });
    expect(P(task[1])).toMatchObject({ status: "stopped", reason: "unfinished_at_resume" });
    expect(verifyEvents(r.all).violations.map(formatFinding)).toEqual([]);
  });
});

describe("result (0.3.337): auto_mode_unchecked denials, startup failure reasons", () => {
  it("a success with is_error because auto mode refused actions unchecked completes the turn (result is its final text) and warns, naming them", () => {
    const r = run([init("2.1.337"), prompt("Clean up."), result({ is_error: true, result: "I could not delete build/.", permission_denials: [
      { tool_name: "Bash", tool_use_id: "toolu_1", tool_input: { command: "rm -rf build" }, auto_mode_unchecked: "no_check_in_session" },
      { tool_name: "Edit", tool_use_id: "toolu_2", tool_input: {} },
    ] })]);
    expect(P(r.events.find((e) => e.type === "turn.completed"))).toMatchObject({ state: "completed" });
    expect(r.events.some((e) => e.type === "runtime.error")).toBe(false);
    expect(P(r.events.find((e) => e.type === "runtime.warning")).detail).toEqual({ autoModeUnchecked: [{ toolName: "Bash", toolUseId: "toolu_1", reason: "no_check_in_session" }] });
  });
  it("the same result read as 0.3.333 (no such field there) stays a failed turn", () => {
    const msg = result({ is_error: true, result: "I could not delete build/.", permission_denials: [{ tool_name: "Bash", tool_use_id: "toolu_1", tool_input: {}, auto_mode_unchecked: "no_verdict" }] });
    const r = run([init("2.1.333"), prompt("Clean up."), msg]);
    expect(P(r.events.find((e) => e.type === "turn.completed"))).toMatchObject({ state: "failed" });
  });
  it.each(["resume_target_not_found", "consumer_terms_review_in_terminal", "consumer_terms_accept_on_web", "org_signin_ended"])("startup_failure_reason %s reaches the error's detail", (reason) => {
    const r = run([result({ subtype: "error_during_execution", is_error: true, num_turns: 0, stop_reason: null, errors: ["cannot start"], startup_failure_reason: reason })]);
    expect(P(r.events.find((e) => e.type === "runtime.error"))).toMatchObject({ message: "cannot start", detail: { startupFailureReason: reason } });
  });
});

describe("the Interrupt hook event (0.3.337) and decisionClassification config", () => {
  it("hook_started / hook_response naming Interrupt map like any hook event", () => {
    const r = run([init("2.1.337"), prompt("Wait."),
      sys("hook_started", { hook_id: "h1", hook_name: "Interrupt", hook_event: "Interrupt" }),
      sys("hook_response", { hook_id: "h1", hook_name: "Interrupt", hook_event: "Interrupt", output: "", stdout: "", stderr: "", exit_code: 0, outcome: "success" })]);
    expect(r.events.filter((e) => e.type.startsWith("hook.")).map((e) => [e.type, P(e).hookEvent ?? P(e).outcome])).toEqual([["hook.started", "Interrupt"], ["hook.completed", "success"]]);
  });
  it("a PermissionResult with decisionClassification config (a host's own decision) resolves the request as any answer", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock(), validate: true });
    const ev = [
      ...n.pushLine(JSON.stringify({ seq: 1, dir: "in", channel: "permission", message: { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1", requestId: "r1" } } })),
      ...n.pushLine(JSON.stringify({ seq: 2, dir: "out", channel: "permission", message: { behavior: "allow", updatedInput: { command: "ls" }, decisionClassification: "config", toolUseID: "toolu_1" } })),
    ];
    expect(ev.map((e) => [e.type, P(e).decision])).toEqual([["request.opened", undefined], ["request.resolved", "allow_once"]]);
  });
});

describe("answering with decisionClassification config (0.3.337): the host decided on its own (reply decidedBy: host)", () => {
  const canUseTool = { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1", requestId: "req-1" } };
  const opened = (m: unknown) => run([m]).events.find((e) => e.type === "request.opened")!;
  it("canUseTool and the wire: allow and deny say config; a person's answer (the default) says user_*", async () => {
    const { answerRequest } = await import("../src/answer/answer.js");
    const o = opened(canUseTool);
    expect(answerRequest(o, { decision: "allow_once", decidedBy: "host" }, { claude: "sdk" })).toEqual({ kind: "claude-can-use-tool", result: { behavior: "allow", updatedInput: { command: "ls" }, decisionClassification: "config" } });
    expect(answerRequest(o, { decision: "reject_once", decidedBy: "host", message: "Policy." }, { claude: "sdk" })).toMatchObject({ result: { behavior: "deny", decisionClassification: "config" } });
    expect(answerRequest(o, { decision: "allow_once", decidedBy: "user" }, { claude: "sdk" })).toMatchObject({ result: { decisionClassification: "user_temporary" } });
    const w = opened({ type: "control_request", request_id: "r7", request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_1", permission_suggestions: [] } });
    const a = answerRequest(w, { decision: "allow_once", decidedBy: "host" }, { claude: "wire" }) as any;
    expect(a.message.response.response).toMatchObject({ behavior: "allow", decisionClassification: "config" });
    // 0.2.62's canUseTool passes no requestId: no classification at all, host or not
    const old = opened({ toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1" } });
    expect((answerRequest(old, { decision: "allow_once", decidedBy: "host" }, { claude: "sdk" }) as any).result).not.toHaveProperty("decisionClassification");
  });
  it("toClaudePermissionResult: decidedBy host → config", async () => {
    const { toClaudePermissionResult } = await import("../src/answer/claude-permission.js");
    expect(toClaudePermissionResult({ decision: "allow", input: {}, classify: true, decidedBy: "host" })).toEqual({ behavior: "allow", updatedInput: {}, decisionClassification: "config" });
    expect(toClaudePermissionResult({ decision: "deny", input: {}, classify: true, decidedBy: "host" })).toMatchObject({ behavior: "deny", decisionClassification: "config" });
    expect(toClaudePermissionResult({ decision: "allow_always", input: {}, classify: true })).toMatchObject({ decisionClassification: "user_permanent" });
  });
});

const scenarios = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort() : [];
describe("the 2.1.337 recordings: every form of every scenario normalizes with no unknown line, no warning of ours and a clean verifier", () => {
  it("has the scenarios of 2.1.333", () => {
    const of333 = readdirSync(join(DIR, "../2.1.333")).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort();
    expect(scenarios).toEqual(of333);
    expect(scenarios.length).toBeGreaterThanOrEqual(28);
  });
  for (const s of scenarios) {
    it(s, () => {
      const routes: number[] = [];
      for (const [file, surface] of [[`${s}.ndjson`, "claude-sdk"], [`${s}.wire.ndjson`, "claude-sdk"], [`${s}.transcript.ndjson`, "claude-transcript"], [`${s}.transcript-subagents.ndjson`, "claude-transcript"]] as const) {
        if (!existsSync(join(DIR, file))) continue;
        const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), validate: true });
        const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
        const ev = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
        expect(n.upstreamVersion(), file).toBe("0.3.337");
        expect(n.stats().unknown, file).toBe(0);
        expect(ev.filter((e) => (e.type === "runtime.warning" && e.raw?.rule?.startsWith("agentnorm#")) || (e.type === "runtime.error" && P(e).class === "validation_error")).map((e) => P(e).message), file).toEqual([]);
        expect(verifyEvents(ev).violations.map(formatFinding), file).toEqual([]);
        if (file.endsWith(".transcript.ndjson")) routes.push(lines.filter((l) => JSON.parse(l).message?.type === "api-request-route").length);
      }
      // one route line per model request: every session made at least one
      expect(routes[0]).toBeGreaterThan(0);
    });
  }
});
