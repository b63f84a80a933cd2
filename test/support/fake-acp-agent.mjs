#!/usr/bin/env node
/**
 * A stand-in ACP agent for test/live-acp.test.ts: ACP v1 over stdio, scripted by FAKE_MODE. On session/prompt it
 * calls the client's methods listed in FAKE_CALLS (JSON: [{method, params}], `$cwd` replaced by its cwd; a
 * terminal's `$term` by the last terminalId), reports each answer as an agent_message_chunk `RESULT <json>`, then
 * ends the turn. session/load replays a stored turn ("Remember 42." / "Noted: 42."). FAKE_MODE=auth: initialize offers authMethods and session/new fails with -32000;
 * FAKE_MODE=config-options: session/new offers config options, two of them in the `model` category.
 * FAKE_MODE=load-fails: session/load replays, then fails. FAKE_MODE=late-cancel: a prompt waits for session/cancel and
 * is answered (stopReason cancelled) 1 s after it; the next prompt is answered at once. FAKE_MODE=list: initialize offers
 * sessionCapabilities.list; session/list pages through FAKE_SESSIONS (JSON list, two a page, filtered by the request's
 * cwd); FAKE_MODE=list-forever: every page names a next one.
 */
import { createInterface } from "node:readline";

const mode = process.env.FAKE_MODE ?? "";
const calls = JSON.parse(process.env.FAKE_CALLS ?? "[]");
let nextId = 100;
const waiting = new Map();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
const call = (method, params) => new Promise((resolve) => { const id = nextId++; waiting.set(id, resolve); send({ id, method, params }); });
const say = (sessionId, text) => send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });

let pendingPrompt;
let prompts = 0;
async function prompt(msg) {
  const sessionId = msg.params.sessionId;
  if (mode === "late-cancel" && prompts++ === 0) {
    say(sessionId, "Working…");
    pendingPrompt = msg;
    return;
  }
  let term;
  for (const c of calls) {
    const params = JSON.parse(JSON.stringify(c.params ?? {}).replaceAll("$cwd", process.cwd()).replaceAll("$term", term ?? ""));
    // terminal/output polls until the output has `until`
    for (;;) {
      const answer = await call(c.method, { sessionId, ...params });
      if (answer.result?.terminalId) term = answer.result.terminalId;
      if (c.until && !(answer.result?.output ?? "").includes(c.until)) continue;
      say(sessionId, `RESULT ${JSON.stringify({ method: c.method, ...answer, id: undefined, jsonrpc: undefined })}\n`);
      break;
    }
  }
  send({ id: msg.id, result: { stopReason: "end_turn" } });
}

/** FAKE_MODE=config-options: the session's options, two in the `model` category (a provider and a model, as Cline's). */
const CONFIG_OPTIONS = [
  { id: "provider", name: "Provider", category: "model", type: "select", currentValue: "p1", options: [{ value: "p1", name: "P1" }, { value: "p2", name: "P2" }] },
  { id: "model", name: "Model", category: "model", type: "select", currentValue: "m1", options: [{ value: "m1", name: "M1" }, { value: "m2", name: "M2" }] },
  { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "act", options: [{ value: "plan", name: "Plan" }, { value: "act", name: "Act" }] },
];

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === undefined) { waiting.get(msg.id)?.(msg); waiting.delete(msg.id); return; }
  switch (msg.method) {
    case "initialize":
      return send({ id: msg.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true, ...(mode.startsWith("list") ? { sessionCapabilities: { list: {} } } : {}) }, authMethods: mode === "auth" ? [{ id: "login", name: "Log in with a browser" }] : [], agentInfo: { name: "fake", version: "0" } } });
    case "session/new":
      if (mode === "auth") return send({ id: msg.id, error: { code: -32000, message: "Authentication required" } });
      if (mode === "config-options") return send({ id: msg.id, result: { sessionId: "s1", configOptions: CONFIG_OPTIONS } });
      return send({ id: msg.id, result: { sessionId: "s1" } });
    case "session/set_config_option":
      if (mode !== "config-options") return send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
      // a provider change is refused, as Cline 3.0.65 refuses it when its provider comes from the environment
      if (msg.params.configId === "provider") return send({ id: msg.id, error: { code: -32602, message: "Invalid params: Cannot change provider" } });
      return send({ id: msg.id, result: { configOptions: CONFIG_OPTIONS } });
    case "session/load": {
      // the stored session's history, replayed before the answer
      const sessionId = msg.params.sessionId;
      send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "Remember 42." } } } });
      say(sessionId, "Noted: 42.");
      if (mode === "load-fails") return send({ id: msg.id, error: { code: -32603, message: "Internal error", data: { details: "the stored session is broken" } } });
      return send({ id: msg.id, result: {} });
    }
    case "session/list": {
      if (!mode.startsWith("list")) return send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
      const all = JSON.parse(process.env.FAKE_SESSIONS ?? "[]").filter((x) => msg.params?.cwd === undefined || x.cwd === msg.params.cwd);
      const at = Number(msg.params?.cursor ?? 0);
      const next = mode === "list-forever" || at + 2 < all.length ? String(at + 2) : undefined;
      return send({ id: msg.id, result: { sessions: all.slice(at, at + 2), ...(next !== undefined ? { nextCursor: next } : {}) } });
    }
    case "session/prompt":
      return void prompt(msg);
    case "session/cancel":
      if (mode === "late-cancel" && pendingPrompt) {
        const m = pendingPrompt;
        pendingPrompt = undefined;
        setTimeout(() => send({ id: m.id, result: { stopReason: "cancelled" } }), 1000);
      }
      return;
    default:
      if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  }
});
