#!/usr/bin/env node
/**
 * A stand-in for `cursor-agent` (its binary is not on npm, and it needs Cursor's servers): the same process
 * interface — `create-chat` prints a chat id; `--print --output-format stream-json --stream-partial-output
 * --resume ID PROMPT` prints one turn as stream-json lines and exits. The turn is a Cursor CLI recording replayed:
 * FAKE_CURSOR_REPLAY (a .jsonl file of `cursor-agent` output, e.g. one of our dev recordings), its chat id and prompt
 * replaced by this run's; without it, a built-in run in the documented line shapes (init, the prompt, thinking, text
 * as partial output and recap, a shell tool call, result). The chat's turn count is kept in FAKE_CURSOR_STATE (a
 * file), so a second turn answers differently ("turn 2").
 *   FAKE_CURSOR_MODE=hang   after the first tool call starts, wait (until a signal)
 *   FAKE_CURSOR_MODE=crash  exit 1 after the first tool call starts (no result line)
 *   FAKE_CURSOR_MODE=crash-first  the same, in the chat's first turn only
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";

const argv = process.argv.slice(2);
if (argv[0] === "create-chat") {
  process.stdout.write(randomUUID() + "\n");
  process.exit(0);
}
const flag = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
if (!argv.includes("--print") || flag("--output-format") !== "stream-json") {
  process.stderr.write("fake cursor-agent: only --print --output-format stream-json is supported\n");
  process.exit(2);
}
const chat = flag("--resume") ?? randomUUID();
const prompt = argv[argv.length - 1];
const mode = process.env.FAKE_CURSOR_MODE ?? "";
const stateFile = process.env.FAKE_CURSOR_STATE;
const state = stateFile && existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : {};
const turn = (state[chat] ?? 0) + 1;
if (stateFile) writeFileSync(stateFile, JSON.stringify({ ...state, [chat]: turn }));

const S = chat;
const say = (text, extra = {}) => ({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] }, session_id: S, ...extra });
const shell = (subtype, id, command, result) => ({ type: "tool_call", subtype, call_id: id, tool_call: { shellToolCall: { args: { command }, ...(result ? { result } : {}) } }, session_id: S, model_call_id: `m${turn}`, timestamp_ms: 5 });
const partial = (text) => { const out = []; for (let i = 0; i < text.length; i += 5) out.push(say(text.slice(i, i + 5), { timestamp_ms: 1000 + i })); return out; };

function builtin() {
  const first = turn === 1 ? "I'll run the command." : `This is turn ${turn}.`;
  const last = turn === 1 ? "The command printed hello." : "Nothing else to do.";
  return [
    { type: "system", subtype: "init", apiKeySource: "env", cwd: process.cwd(), session_id: S, model: "Auto", permissionMode: "default" },
    { type: "user", message: { role: "user", content: [{ type: "text", text: prompt }] }, session_id: S },
    { type: "thinking", subtype: "delta", text: "Plan", session_id: S, timestamp_ms: 1 },
    { type: "thinking", subtype: "delta", text: "ning", session_id: S, timestamp_ms: 2 },
    { type: "thinking", subtype: "completed", session_id: S, timestamp_ms: 3 },
    ...partial(first),
    say(first, { model_call_id: `m${turn}`, timestamp_ms: 4 }),
    shell("started", `call_${turn}`, "echo hello"),
    shell("completed", `call_${turn}`, "echo hello", { success: { command: "echo hello", exitCode: 0, stdout: "hello\n", stderr: "" } }),
    ...partial(last),
    say(last),
    { type: "result", subtype: "success", duration_ms: 100, duration_api_ms: 100, is_error: false, result: first + last, session_id: S, request_id: `r${turn}` },
  ];
}

function replay(file) {
  let original;
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => {
    const o = JSON.parse(l);
    original ??= o.session_id;
    if (o.session_id === original) o.session_id = S;
    if (o.type === "user") o.message = { role: "user", content: [{ type: "text", text: prompt }] };
    return o;
  });
}

const lines = process.env.FAKE_CURSOR_REPLAY ? replay(process.env.FAKE_CURSOR_REPLAY) : builtin();
process.on("SIGINT", () => process.exit(130));
let i = 0;
const next = () => {
  if (i >= lines.length) return;
  const l = lines[i++];
  process.stdout.write(JSON.stringify(l) + "\n");
  if (l.type === "tool_call" && l.subtype === "started") {
    if (mode === "hang") return setInterval(() => {}, 1000);
    if (mode === "crash" || (mode === "crash-first" && turn === 1)) return process.exit(1);
  }
  setImmediate(next);
};
next();
