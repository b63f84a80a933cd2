#!/usr/bin/env node
/**
 * A stand-in for the Claude Code CLI in stream-json mode (`--input-format stream-json --output-format stream-json
 * --permission-prompt-tool stdio`), for the Claude driver's paths a well-behaved CLI rarely takes
 * (test/live-claude.test.ts). Lines shaped like Claude Code 2.1.337's; the mode comes from FAKE_MODE:
 *   unknown-request   after a prompt, the CLI asks the host a control request no table opens (hook_callback) and
 *                     reports the host's answer as a system line; then ends the turn
 *   silent-interrupt  the interrupt is answered, but no `result` follows
 *   refuse-interrupt  the interrupt is answered with an error response
 *   late-result       the interrupt is answered, its `result` (error_during_execution) comes 1 s later (after the
 *                     session's grace period in the tests)
 *   no-init           the initialize request is answered with an error
 * It writes its command line to FAKE_ARGS_FILE when set.
 */
import { createInterface } from "node:readline";
import { writeFileSync } from "node:fs";

const mode = process.env.FAKE_MODE ?? "";
const args = process.argv.slice(2);
if (process.env.FAKE_ARGS_FILE) writeFileSync(process.env.FAKE_ARGS_FILE, JSON.stringify(args));
const at = (flag) => { const i = args.indexOf(flag); return i >= 0 ? args[i + 1] : undefined; };
const sid = at("--session-id") ?? at("--resume") ?? "00000000-0000-4000-8000-000000000000";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let n = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;

function answer(text) {
  send({ type: "assistant", message: { id: `msg_${n}`, type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: null }, parent_tool_use_id: null, session_id: sid, uuid: uuid() });
  send({ type: "result", subtype: "success", is_error: false, result: text, stop_reason: "end_turn", num_turns: 1, duration_ms: 1, duration_api_ms: 1, total_cost_usd: 0, usage: { input_tokens: 1, output_tokens: 1 }, session_id: sid, uuid: uuid() });
}

let lateResult = false;
createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.type === "control_request") {
    const sub = m.request?.subtype;
    if (sub === "initialize" && mode === "no-init") return send({ type: "control_response", response: { subtype: "error", request_id: m.request_id, error: "not today" } });
    if (sub === "interrupt" && mode === "late-result") {
      // the interrupted turn's result, late: after the host ended the turn itself
      setTimeout(() => send({ type: "result", subtype: "error_during_execution", is_error: true, num_turns: 1, duration_ms: 1, duration_api_ms: 1, total_cost_usd: 0, usage: { input_tokens: 1, output_tokens: 0 }, session_id: sid, uuid: uuid(), terminal_reason: "aborted_tools" }), 1000);
    }
    if (sub === "interrupt" && mode === "refuse-interrupt") return send({ type: "control_response", response: { subtype: "error", request_id: m.request_id, error: "nothing to interrupt" } });
    send({ type: "control_response", response: { subtype: "success", request_id: m.request_id, response: sub === "initialize" ? { commands: [], models: [] } : {} } });
    return;
  }
  if (m.type === "control_response") {
    // the host's answer to our request
    send({ type: "system", subtype: "informational", content: `fake: answer ${m.response?.subtype} ${m.response?.error ?? ""}`, session_id: sid, uuid: uuid() });
    if (mode === "unknown-request") answer("Done.");
    return;
  }
  if (m.type === "user") {
    if (mode === "late-result" && lateResult) {
      lateResult = false;
      answer("Hello again.");
      return;
    }
    if (mode === "late-result") { lateResult = true; send({ type: "system", subtype: "init", cwd: process.cwd(), session_id: sid, tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.337", output_style: "default", uuid: uuid() }); send({ type: "stream_event", event: { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 0 } } }, parent_tool_use_id: null, session_id: sid, uuid: uuid() }); return; }
    send({ type: "system", subtype: "init", cwd: process.cwd(), session_id: sid, tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.337", output_style: "default", uuid: uuid() });
    if (mode === "unknown-request") send({ type: "control_request", request_id: "fake-req-1", request: { subtype: "hook_callback", callback_id: "hook_0", input: {} } });
    else if (mode === "silent-interrupt" || mode === "refuse-interrupt") send({ type: "stream_event", event: { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], usage: { input_tokens: 1, output_tokens: 0 } } }, parent_tool_use_id: null, session_id: sid, uuid: uuid() });
    else answer("Hello.");
  }
});
process.stdin.on("end", () => process.exit(0));
