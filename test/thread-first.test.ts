/**
 * A thread's thread.started precedes its first turn on every surface: a stream that joins mid-session (an opencode
 * event stream recorded after session.created, a Claude SDK stream whose first message is not system/init) gets
 * the thread started by the runtime before the turn, and the verifier holds every committed recording to it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { verifyEvents } from "../src/verify/verify.js";

const ROOT = join(import.meta.dirname, "..");

describe("the runtime starts a turn's thread first when the stream never did", () => {
  it("opencode: a message of a session whose session.created was never seen", () => {
    const n = createNormalizer({ surface: "opencode", ids: counterIds(), clock: steppingClock() });
    const evs = n.push({ type: "message.updated", properties: { sessionID: "s1", info: { id: "m1", sessionID: "s1", role: "user", time: { created: 1770823841000 }, agent: "build", model: { providerID: "p", modelID: "gpt" } } } });
    const types = evs.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(["thread.started", "turn.started"]);
    expect(evs[0].raw?.rule).toBe("agentnorm#implicit-start");
    expect(evs[0].threadId).toBe(evs[1]!.threadId);
    expect(evs[0].payload).toEqual({ providerThreadId: "s1" });
    // the thread is not started twice when its session.created arrives late
    const late = n.push({ type: "session.created", properties: { sessionID: "s1", info: { id: "s1", slug: "x", projectID: "p", directory: "/w", title: "t", version: "1.18.33", time: { created: 1, updated: 1 } } } });
    expect(late.filter((e) => e.type === "thread.started")).toEqual([]);
    expect(verifyEvents([...evs, ...late]).violations).toEqual([]);
  });

  // Claude's stdio wire and SDK captures: the host's first `user` line comes before system/init, the first message that
  // names the session (an SDK prompt names "", the live claude driver's names the id it chose)
  for (const [form, sessionId] of [["SDK / wire prompt (session_id \"\")", ""], ["live claude driver's prompt (its own session id)", "s1"]] as const) {
    it(`claude: a turn the host's prompt opens before system/init — ${form}: the thread starts first, init gives it its id`, () => {
      const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
      const evs = [
        { type: "control_request", request_id: "1", request: { subtype: "initialize" } },
        { type: "user", message: { role: "user", content: "Hi" }, parent_tool_use_id: null, session_id: sessionId },
        { type: "system", subtype: "init", cwd: "/w", session_id: "s1", tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.333", output_style: "default", skills: [], plugins: [], uuid: "u1" },
        { type: "assistant", message: { id: "msg_1", model: "m", content: [{ type: "text", text: "Hello." }] }, parent_tool_use_id: null, uuid: "u2", session_id: "s1" },
        { type: "result", subtype: "success", is_error: false, duration_ms: 1, duration_api_ms: 1, num_turns: 1, result: "Hello.", session_id: "s1", total_cost_usd: 0, usage: {}, uuid: "u3" },
      ].flatMap((m, i) => n.push(m, { direction: i < 2 ? "out" : "in" }));
      const types = evs.map((e) => e.type);
      expect(types.filter((t) => t === "thread.started")).toEqual(["thread.started"]);
      expect(types.indexOf("thread.started")).toBeLessThan(types.indexOf("turn.started"));
      const thread = evs.find((e) => e.type === "thread.started")!;
      expect(thread.raw?.rule).toBe("agentnorm#implicit-start");
      // every event of the session's thread names that one thread; once system/init said the session, its id is the thread's
      expect(new Set(evs.filter((e) => e.threadId).map((e) => e.threadId))).toEqual(new Set([thread.threadId]));
      expect(evs.find((e) => e.type === "turn.started")!.threadId).toBe(thread.threadId);
      const configured = evs.find((e) => e.type === "session.configured" && e.raw?.rule === "claude-sdk#system-init")!;
      expect(configured.providerRefs?.providerThreadId).toBe("s1");
      expect(evs.filter((e) => e.type === "runtime.warning")).toEqual([]);
      expect(verifyEvents([...evs, ...n.end()]).violations).toEqual([]);
    });
  }

  it("a second session's thread is its own: the runtime's stand-in is adopted once", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
    const init = (sid: string, uuid: string) => ({ type: "system", subtype: "init", cwd: "/w", session_id: sid, tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.333", output_style: "default", skills: [], plugins: [], uuid });
    const evs = [
      n.push({ type: "user", message: { role: "user", content: "Hi" }, parent_tool_use_id: null, session_id: "" }, { direction: "out" }),
      n.push(init("s1", "u1")),
      n.push(init("s2", "u2")),
    ].flat();
    const threads = evs.filter((e) => e.type === "thread.started");
    expect(threads.map((e) => [e.raw?.rule, (e.payload as any).providerThreadId])).toEqual([["agentnorm#implicit-start", undefined], ["claude-sdk#system-init", "s2"]]);
    expect(threads[0].threadId).not.toBe(threads[1].threadId);
  });

  it("a stream that starts its thread first gets no synthesized start", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
    const evs = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8").split("\n").filter(Boolean).flatMap((l) => n.pushLine(l));
    expect(evs.filter((e) => e.raw?.rule === "agentnorm#implicit-start" && e.type === "thread.started")).toEqual([]);
    expect(evs.findIndex((e) => e.type === "thread.started")).toBeLessThan(evs.findIndex((e) => e.type === "turn.started"));
  });
});

describe("every committed Claude wire file starts each turn's thread first (the host's prompt precedes system/init)", () => {
  const dir = join(ROOT, "fixtures/recorded/claude-sdk");
  const files: string[] = [];
  const walk = (d: string) => { for (const f of readdirSync(d, { withFileTypes: true })) f.isDirectory() ? walk(join(d, f.name)) : f.name.endsWith(".wire.ndjson") && files.push(join(d, f.name)); };
  walk(dir);
  it(`${files.length} wire files: every turn.started names a thread that started before it`, () => {
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      const lines = readFileSync(f, "utf8").split("\n").filter(Boolean);
      // the class: the host's first user line comes before system/init
      const first = lines.map((l) => JSON.parse(l)).findIndex((c) => c.message?.type === "user" || (c.message?.type === "system" && c.message.subtype === "init"));
      expect(JSON.parse(lines[first]).message.type, f).toBe("user");
      const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
      const evs = [...lines.flatMap((l) => n.pushLine(l)), ...n.end()];
      const started = new Set<string>();
      for (const e of evs) {
        if (e.type === "thread.started") started.add(e.threadId!);
        if (e.type === "turn.started") expect(e.threadId !== undefined && started.has(e.threadId), `${f} #${e.sequence}`).toBe(true);
      }
      expect(verifyEvents(evs).violations.filter((v) => v.rule === "turn-before-thread"), f).toEqual([]);
    }
  });
});

describe("every committed expected output starts each turn's thread first", () => {
  const files: string[] = [];
  const walk = (d: string) => { for (const f of readdirSync(d, { withFileTypes: true })) f.isDirectory() ? walk(join(d, f.name)) : f.name.endsWith(".expected.ndjson") && files.push(join(d, f.name)); };
  walk(join(ROOT, "fixtures/recorded"));
  it(`${files.length} files, no turn-before-thread finding`, () => {
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const evs = readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      expect(verifyEvents(evs).violations.filter((v) => v.rule === "turn-before-thread"), f).toEqual([]);
    }
  });
});
