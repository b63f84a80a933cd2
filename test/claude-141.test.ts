/**
 * Claude Agent SDK 0.2.141 / Claude Code 2.1.141, the last release of the SDK's 0.2 line, pinned beside 0.2.62: our
 * recordings of it (fixtures/recorded/claude-sdk/2.1.141, the 2.1.3xx scenarios it can play) send kinds 0.2.62 does
 * not have, which the 0.2.62 rows left unmapped. Hand-made messages named per case (shapes as the recordings have
 * them), then every form of every recording. Cross-form and render parity: test/claude-recorded-2.1.3xx.test.ts,
 * test/render-parity.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { formatFinding, verifyEvents } from "../src/verify/verify.js";

const DIR = join(import.meta.dirname, "../fixtures/recorded/claude-sdk/2.1.141");
const P = (e: CanonicalEvent | undefined): any => e?.payload as any;
const init = (version: string) => ({ type: "system", subtype: "init", claude_code_version: version, session_id: "s1", uuid: "u0", cwd: "/w", tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", output_style: "default", skills: [], plugins: [] });
const prompt = (text: string) => ({ direction: "out" as const, message: { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" } });
function run(messages: unknown[], surface = "claude-sdk") {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), validate: true });
  const events: CanonicalEvent[] = [];
  for (const m of messages) {
    const w = m as any;
    events.push(...(typeof w === "string" ? n.pushLine(w) : w && typeof w === "object" && "direction" in w && "message" in w ? n.push(w.message, { direction: w.direction }) : n.push(m)));
  }
  return { n, events, all: [...events, ...n.end()] };
}
const retry = { type: "system", subtype: "api_retry", attempt: 1, max_retries: 3, retry_delay_ms: 0, error_status: 529, error: "rate_limit", uuid: "u1", session_id: "s1" };

describe("2.1.141 streams select 0.2.141, whose rows know the kinds it added to 0.2.62", () => {
  it("claude_code_version 2.1.141 (and up to 2.1.332) selects 0.2.141; 2.1.62 to 2.1.140 keep 0.2.62", () => {
    for (const [stated, pinned] of [["2.1.141", "0.2.141"], ["2.1.200", "0.2.141"], ["2.1.140", "0.2.62"], ["2.1.62", "0.2.62"]]) expect(run([init(stated)]).n.upstreamVersion(), stated).toBe(pinned);
  });
  it("system/api_retry: a warning at 2.1.141; at 2.1.62 (which never sends it) no row knows it", () => {
    expect(run([init("2.1.141"), prompt("Hi"), retry]).events.filter((e) => e.type === "runtime.warning").map((e) => P(e).detail?.retry)).toEqual([true]);
    expect(run([init("2.1.62"), prompt("Hi"), retry]).events.filter((e) => e.type === "runtime.warning").map((e) => e.raw?.rule)).toEqual(["agentnorm#unknown"]);
  });
  it("result terminal_reason aborted_tools (0.2.141 names it) ends the turn interrupted, with no error", () => {
    const r = run([init("2.1.141"), prompt("Wait."), { type: "result", subtype: "error_during_execution", is_error: true, duration_ms: 5, duration_api_ms: 4, num_turns: 1, stop_reason: "tool_use", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], errors: ["[ede_diagnostic] result_type=user"], terminal_reason: "aborted_tools", uuid: "r1", session_id: "s1" }]);
    expect(r.events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["interrupted"]);
    expect(r.events.some((e) => e.type === "runtime.error")).toBe(false);
  });
});

describe("onElicitation of 0.2.141: no request id in its options", () => {
  const call = { seq: 1, dir: "in", channel: "elicitation", message: { request: { serverName: "scripted", message: "Deploy to which environment?", mode: "form", requestedSchema: { type: "object" } }, options: {} } };
  it("opens a question under a key of ours; the answer resolves it; answerRequest builds onElicitation's result", async () => {
    const r = run([JSON.stringify(call)]);
    const opened = r.events.find((e) => e.type === "request.opened")!;
    expect(opened.providerRefs?.providerRequestId).toBe("elicitation:1");
    const { answerRequest } = await import("../src/answer/answer.js");
    expect(answerRequest(opened, { decision: "answered", answers: { environment: "staging" } }, { claude: "sdk" })).toEqual({ kind: "claude-elicitation", result: { action: "accept", content: { environment: "staging" } } });
    const back = run([JSON.stringify(call), JSON.stringify({ seq: 2, dir: "out", channel: "elicitation", message: { action: "accept", content: { environment: "staging" } } }), JSON.stringify({ ...call, seq: 3 })]);
    expect(back.events.filter((e) => e.type.startsWith("request.")).map((e) => [e.type, e.providerRefs?.providerRequestId])).toEqual([["request.opened", "elicitation:1"], ["request.resolved", "elicitation:1"], ["request.opened", "elicitation:2"]]);
  });
});

describe("2.1.141 transcripts", () => {
  const user = (uuid: string, content: unknown, parent: string | null = null) => ({ type: "user", parentUuid: parent, isSidechain: false, sessionId: "s1", uuid, version: "2.1.141", message: { role: "user", content } });
  it("a whole response in one line (thinking and text: after a non-streaming fallback) ends its turn", () => {
    const r = run([user("u1", "Explain."), { type: "assistant", parentUuid: "u1", isSidechain: false, sessionId: "s1", uuid: "u2", version: "2.1.141", message: { id: "m1", role: "assistant", content: [{ type: "thinking", thinking: "Two sentences.", signature: "c2ln" }, { type: "text", text: "A retry repeats a request." }], stop_reason: "end_turn" } }], "claude-transcript");
    expect(r.all.filter((e) => e.type === "turn.completed").map((e) => [P(e).state, P(e).stopReason])).toEqual([["completed", "end_turn"]]);
    expect(r.all.filter((e) => e.raw?.rule === "agentnorm#end")).toEqual([]);
  });
  it("a prompt a hook blocked (no promptSubmitEnding in 2.1.141): a turn with the prompt and the hook's notice", () => {
    const r = run([{ type: "system", subtype: "informational", content: "UserPromptSubmit operation blocked by hook:\nNo secrets.\n\nOriginal prompt: Print the token.", level: "warning", sessionId: "s1", uuid: "u1", version: "2.1.141" }], "claude-transcript");
    expect(r.events.map((e) => e.type)).toEqual(["thread.started", "session.configured", "turn.started", "item.started", "item.completed", "runtime.warning", "turn.completed"]);
    expect(P(r.events.find((e) => e.type === "item.completed")).text).toBe("Print the token.");
  });
  it("attachment and last-prompt lines are ignored (counted), as at 2.1.3xx", () => {
    const r = run([user("u1", "Hi"), { type: "attachment", parentUuid: "u1", isSidechain: false, sessionId: "s1", uuid: "u2", attachment: { type: "skill_listing", content: "…" } }, { type: "last-prompt", lastPrompt: "Hi", sessionId: "s1" }], "claude-transcript");
    expect(r.n.stats().unknown).toBe(0);
    expect(r.events.filter((e) => e.type.startsWith("runtime."))).toEqual([]);
  });
});

const scenarios = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort() : [];
describe("the 2.1.141 recordings: every form of every scenario normalizes at 0.2.141 with no unknown message, no warning of ours and a clean verifier", () => {
  it("has the scenarios 2.1.141 plays: the 2.1.3xx set but background-agent and clear", () => {
    const of333 = readdirSync(join(DIR, "../2.1.333")).filter((f) => f.endsWith(".transcript.ndjson")).map((f) => f.replace(/\.transcript\.ndjson$/, "")).sort();
    expect(scenarios).toEqual(of333.filter((s) => s !== "background-agent" && s !== "clear"));
  });
  for (const s of scenarios) {
    it(s, () => {
      for (const [file, surface] of [[`${s}.ndjson`, "claude-sdk"], [`${s}.wire.ndjson`, "claude-sdk"], [`${s}.transcript.ndjson`, "claude-transcript"]] as const) {
        const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), validate: true });
        const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
        const ev = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
        expect(n.upstreamVersion(), file).toBe("0.2.141");
        expect(n.stats().unknown, file).toBe(0);
        expect(ev.filter((e) => (e.type === "runtime.warning" && e.raw?.rule?.startsWith("agentnorm#")) || (e.type === "runtime.error" && P(e).class === "validation_error")).map((e) => P(e).message), file).toEqual([]);
        expect(verifyEvents(ev).violations.map(formatFinding), file).toEqual([]);
      }
    });
  }
});
