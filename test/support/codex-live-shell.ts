/**
 * The live EventMsg stream (codex-eventmsg) of the session whose restored rollout is
 * fixtures/recorded/codex-exec/shell.rollout.ndjson (Codex 0.171.0), written by hand with the same ids and texts:
 * item_started / deltas / item_completed for each item, exec_command_* for the command. Shared by the rollout
 * parity tests (test/codex-rollout.test.ts, test/render-parity.test.ts).
 */
const T = "00000000-0000-7000-8000-000000000001";
const U = "00000000-0000-7000-8000-000000000003";
const CMD = "for i in 1 2 3; do echo line $i; sleep 0.4; done";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const ev = (msg: Record<string, unknown>) => ({ id: U, msg });
const userItem = { type: "UserMessage", id: "00000000-0000-7000-8000-000000000004", content: [{ type: "text", text: "Count to three in the shell, slowly.", text_elements: [] }] };
const commandItem = (status: string, extra: Record<string, unknown> = {}) => ({
  type: "CommandExecution", id: "call_000_1", process_id: "47355", command: ["/bin/bash", "-lc", CMD], cwd: "file:///sandbox/work",
  parsed_cmd: [{ type: "unknown", cmd: CMD }], source: "unified_exec_startup", status, ...extra,
});
const usage = (input: number, output: number) => ({ input_tokens: input, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output });

/** The live EventMsg stream of the session whose rollout is fixtures/recorded/codex-exec/shell.rollout.ndjson. */
export const LIVE_SHELL = [
  { id: "", msg: { type: "session_configured", session_id: T, model: "gpt-5.5", model_provider_id: "mock", approval_policy: "never", sandbox_policy: { type: "danger-full-access" }, cwd: "/sandbox/work", history_log_id: 0, history_entry_count: 0 } },
  ev({ type: "task_started", turn_id: U, model_context_window: 258400, collaboration_mode_kind: "default" }),
  ev({ type: "item_started", thread_id: T, turn_id: U, item: userItem, started_at_ms: 1 }),
  ev({ type: "item_completed", thread_id: T, turn_id: U, item: userItem }),
  ev({ type: "item_started", thread_id: T, turn_id: U, item: { type: "Reasoning", id: "rs_000_0", summary_text: [], raw_content: [] }, started_at_ms: 2 }),
  ev({ type: "reasoning_content_delta", thread_id: T, turn_id: U, item_id: "rs_000_0", summary_index: 0, delta: "I'll print three lines" }),
  ev({ type: "reasoning_content_delta", thread_id: T, turn_id: U, item_id: "rs_000_0", summary_index: 0, delta: " with a pause between them." }),
  ev({ type: "item_completed", thread_id: T, turn_id: U, item: { type: "Reasoning", id: "rs_000_0", summary_text: ["I'll print three lines with a pause between them."], raw_content: [] } }),
  ev({ type: "item_started", thread_id: T, turn_id: U, item: commandItem("in_progress"), started_at_ms: 3 }),
  ev({ type: "exec_command_begin", call_id: "call_000_1", turn_id: U, process_id: "47355", command: ["/bin/bash", "-lc", CMD], cwd: "/sandbox/work", parsed_cmd: [{ type: "unknown", cmd: CMD }], source: "unified_exec_startup" }),
  ev({ type: "exec_command_output_delta", call_id: "call_000_1", stream: "stdout", chunk: b64("line 1\n") }),
  ev({ type: "exec_command_output_delta", call_id: "call_000_1", stream: "stdout", chunk: b64("line 2\n") }),
  ev({ type: "exec_command_output_delta", call_id: "call_000_1", stream: "stdout", chunk: b64("line 3\n") }),
  ev({ type: "exec_command_end", call_id: "call_000_1", turn_id: U, process_id: "47355", command: ["/bin/bash", "-lc", CMD], cwd: "/sandbox/work", parsed_cmd: [{ type: "unknown", cmd: CMD }], source: "unified_exec_startup", stdout: "line 1\nline 2\nline 3\n", stderr: "", aggregated_output: "line 1\nline 2\nline 3\n", exit_code: 0, duration: { secs: 1, nanos: 70780180 }, formatted_output: "line 1\nline 2\nline 3\n", status: "completed" }),
  ev({ type: "item_completed", thread_id: T, turn_id: U, item: commandItem("completed", { aggregated_output: "line 1\nline 2\nline 3\n", exit_code: 0, duration: { secs: 1, nanos: 70780180 } }) }),
  ev({ type: "token_count", info: { total_token_usage: usage(1000, 85), last_token_usage: usage(1000, 85), model_context_window: 258400 } }),
  ev({ type: "item_started", thread_id: T, turn_id: U, item: { type: "AgentMessage", id: "msg_001_0", content: [] }, started_at_ms: 4 }),
  ev({ type: "agent_message_content_delta", thread_id: T, turn_id: U, item_id: "msg_001_0", delta: "Done: the command printed " }),
  ev({ type: "agent_message_content_delta", thread_id: T, turn_id: U, item_id: "msg_001_0", delta: "line 1, line 2 and line 3." }),
  ev({ type: "item_completed", thread_id: T, turn_id: U, item: { type: "AgentMessage", id: "msg_001_0", content: [{ type: "Text", text: "Done: the command printed line 1, line 2 and line 3." }] } }),
  ev({ type: "token_count", info: { total_token_usage: usage(2000, 133), last_token_usage: usage(1000, 48), model_context_window: 258400 } }),
  ev({ type: "task_complete", turn_id: U, last_agent_message: "Done: the command printed line 1, line 2 and line 3." }),
];

