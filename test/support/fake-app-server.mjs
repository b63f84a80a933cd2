#!/usr/bin/env node
/**
 * A stand-in for `codex app-server --listen stdio://` that misbehaves on purpose, for the live session's
 * guarantees that a well-behaved agent never exercises (test/live-session.test.ts). JSON-RPC lines without the
 * "jsonrpc" field, shaped like Codex 0.171.0's. The mode comes from FAKE_MODE:
 *   silent-interrupt  turn/interrupt is answered, but the turn never ends (no turn/completed)
 *   hang-interrupt    turn/interrupt is never answered
 *   unknown-request   after turn/start, the agent asks the client an unknown method (expects an error back)
 *   approval          after turn/start, an approval request (left open: close/crash settle it)
 *   exit-on-turn      the process exits with code 3 right after turn/start is answered
 *   spam N            turn/start is followed by N agentMessage deltas and turn/completed
 *   overload          the first turn/start is refused as overloaded (-32001), the next one accepted
 * Every mode answers initialize, thread/start, thread/resume, turn/start and thread/read.
 * It also starts a grandchild (`sleep 600`, SIGTERM ignored) when FAKE_GRANDCHILD=1: a stop must reach the group.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const mode = process.env.FAKE_MODE ?? "";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const thread = { id: "thr-fake-1", preview: "", modelProvider: "mock", createdAt: 1767225600, updatedAt: 1767225600, path: null, cwd: process.cwd(), cliVersion: "0.171.0", source: "appServer", gitInfo: null, turns: [] };
let turnN = 0;
let currentTurn;
let overloaded = false;

if (process.env.FAKE_GRANDCHILD === "1") {
  spawn("sh", ["-c", "trap '' TERM; sleep 600"], { stdio: "ignore" });
}
process.on("SIGTERM", () => { if (mode !== "ignore-term") process.exit(0); });

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.method === undefined) {
    // the client's answer to our request
    if (mode === "unknown-request") send({ method: "fake/answerSeen", params: { id: m.id, error: m.error ?? null } });
    return;
  }
  switch (m.method) {
    case "initialize":
      return send({ id: m.id, result: { userAgent: "fake/0.171.0", codexHome: "/tmp/fake", platformFamily: "unix", platformOs: "linux" } });
    case "initialized":
      return;
    case "thread/start":
    case "thread/resume":
      send({ id: m.id, result: { thread, model: "gpt-5.5", modelProvider: "mock", cwd: process.cwd(), approvalPolicy: "on-request", sandbox: { type: "workspaceWrite" }, reasoningEffort: null } });
      return send({ method: "thread/started", params: { thread } });
    case "thread/read":
      return send({ id: m.id, result: { thread: { ...thread, turns: [] } } });
    case "turn/start": {
      if (mode === "overload" && !overloaded) {
        overloaded = true;
        return send({ id: m.id, error: { code: -32001, message: "Server overloaded; retry later." } });
      }
      currentTurn = { id: `turn-${process.pid}-${++turnN}`, items: [], status: "inProgress", error: null };
      send({ id: m.id, result: { turn: currentTurn } });
      send({ method: "turn/started", params: { threadId: thread.id, turn: currentTurn } });
      if (mode === "exit-on-turn") setTimeout(() => process.exit(3), 10);
      if (mode === "unknown-request") send({ id: 900, method: "item/fake/unheardOf", params: { threadId: thread.id, turnId: currentTurn.id } });
      if (mode === "approval") send({ id: 901, method: "item/commandExecution/requestApproval", params: { threadId: thread.id, turnId: currentTurn.id, itemId: "call-1", command: "rm -rf build", cwd: process.cwd(), reason: null } });
      if (mode.startsWith("spam")) {
        const n = Number(mode.split(" ")[1] ?? 100);
        const item = { type: "agentMessage", id: "msg-1", text: "" };
        send({ method: "item/started", params: { threadId: thread.id, turnId: currentTurn.id, item } });
        for (let i = 0; i < n; i++) send({ method: "item/agentMessage/delta", params: { threadId: thread.id, turnId: currentTurn.id, itemId: "msg-1", delta: `${i} ` } });
        send({ method: "item/completed", params: { threadId: thread.id, turnId: currentTurn.id, item: { ...item, text: Array.from({ length: n }, (_, i) => `${i} `).join("") } } });
        send({ method: "turn/completed", params: { threadId: thread.id, turn: { ...currentTurn, status: "completed" } } });
      }
      return;
    }
    case "turn/interrupt":
      if (mode === "hang-interrupt") return;
      send({ id: m.id, result: {} });
      if (mode !== "silent-interrupt") send({ method: "turn/completed", params: { threadId: thread.id, turn: { ...currentTurn, status: "interrupted" } } });
      return;
    default:
      if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: `fake: ${m.method}` } });
  }
});
