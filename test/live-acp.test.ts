/**
 * The ACP driver's client side against a stand-in ACP agent (test/support/fake-acp-agent.mjs), which calls the
 * client's methods on a prompt and reports each answer as text: fs confined to cwd (symlinks and `..` resolved),
 * refused when not opted in; terminals run, killed, released, and killed on close; an unknown method refused; an
 * authentication error at start named with the agent's methods; `{ acp: { command } }` and the presets. (The real
 * agents: test/live/acp.test.ts.) Waits are on events and process states, never sleeps.
 */
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, DRIVERS, type ConnectOptions, type LiveSession } from "../src/live/index.js";
import { confinedPath } from "../src/live/drivers/acp.js";
import { groupMembers } from "../src/live/process.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";

const FAKE = join(import.meta.dirname, "support", "fake-acp-agent.mjs");
const P = (e: CanonicalEvent) => e.payload as any;
const posix = process.platform !== "win32";

let root: string;
let work: string;
let s: LiveSession | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
});
function dirs() {
  root = realpathSync(mkdtempSync(join(tmpdir(), "agentnorm-acp-")));
  work = join(root, "work");
  mkdirSync(work);
  writeFileSync(join(work, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(root, "secret.txt"), "outside\n");
  symlinkSync(root, join(work, "up"));
}
async function fake(calls: unknown[], extra: Partial<ConnectOptions> = {}): Promise<LiveSession> {
  return connect({
    agent: { acp: { command: process.execPath, args: [FAKE], env: { FAKE_CALLS: JSON.stringify(calls) } } },
    cwd: work,
    timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
    ...extra,
  });
}
/** The turn's events, and the answers the stand-in reported. */
async function turn(session: LiveSession): Promise<{ events: CanonicalEvent[]; results: any[] }> {
  const { turnId } = await session.prompt("go");
  const events: CanonicalEvent[] = [];
  for await (const e of session.events) {
    events.push(e);
    if (e.type === "turn.completed" && e.turnId === turnId) break;
  }
  const text = events.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("");
  return { events, results: [...text.matchAll(/RESULT (.*)\n/g)].map((m) => JSON.parse(m[1]!)) };
}
const warnings = (events: CanonicalEvent[]) => events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message as string);

describe.runIf(posix)("ACP driver: client methods", () => {
  it("confinedPath: cwd and below; `..`, symlinks out and absolute paths elsewhere are outside", () => {
    dirs();
    expect(confinedPath(work, join(work, "a.txt"))).toBe(join(work, "a.txt"));
    expect(confinedPath(work, join(work, "new", "deep", "b.txt"))).toBe(join(work, "new", "deep", "b.txt"));
    expect(confinedPath(work, "a.txt")).toBe(join(work, "a.txt"));
    expect(confinedPath(work, join(work, "..", "secret.txt"))).toBeUndefined();
    expect(confinedPath(work, join(work, "up", "secret.txt"))).toBeUndefined();
    expect(confinedPath(work, join(work, "up", "work", "a.txt"))).toBe(join(work, "a.txt"));
    expect(confinedPath(work, "/etc/passwd")).toBeUndefined();
    expect(confinedPath(work, work + "x/a.txt")).toBeUndefined();
    expect(confinedPath(work, 42)).toBeUndefined();
  });

  it("fs opted in: reads and writes inside cwd; a path outside (by .., by a symlink) is refused with a JSON-RPC error and a runtime.warning", async () => {
    dirs();
    s = await fake([
      { method: "fs/read_text_file", params: { path: "$cwd/a.txt", line: 2, limit: 1 } },
      { method: "fs/write_text_file", params: { path: "$cwd/sub/b.txt", content: "made" } },
      { method: "fs/read_text_file", params: { path: "$cwd/missing.txt" } },
      { method: "fs/write_text_file", params: { path: "$cwd/../evil.txt", content: "x" } },
      { method: "fs/read_text_file", params: { path: "$cwd/up/secret.txt" } },
    ], { acp: { fs: true } });
    const { events, results } = await turn(s);
    expect(results[0]).toMatchObject({ method: "fs/read_text_file", result: { content: "two\n" } });
    expect(results[1]).toMatchObject({ method: "fs/write_text_file", result: {} });
    expect(readFileSync(join(work, "sub", "b.txt"), "utf8")).toBe("made");
    expect(results[2]).toMatchObject({ error: { code: -32002 } });
    expect(results[3]).toMatchObject({ error: { code: -32602 } });
    expect(results[4]).toMatchObject({ error: { code: -32602 } });
    expect(existsSync(join(root, "evil.txt"))).toBe(false);
    const w = warnings(events);
    expect(w.filter((m) => /outside the session's directory/.test(m)).length).toBe(2);
    expect(w.some((m) => /does not answer/.test(m)), "served, not refused").toBe(false);
  });

  it("fs and terminal not opted in: initialize declares neither; the agent's calls are refused (method not found) with a warning", async () => {
    dirs();
    const frames: any[] = [];
    s = await fake([
      { method: "fs/write_text_file", params: { path: "$cwd/a.txt", content: "x" } },
      { method: "terminal/create", params: { command: "true" } },
    ], { onFrame: (f) => frames.push(f) });
    const { events, results } = await turn(s);
    const init = frames.find((f) => f.dir === "out" && f.message.method === "initialize").message;
    expect(init.params.clientCapabilities).toEqual({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
    expect(results.map((r) => r.error?.code)).toEqual([-32601, -32601]);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(warnings(events).filter((m) => /does not answer: refused/.test(m)).length).toBe(2);
  });

  it("cursor-acp: Cursor's cursor/* requests open canonical requests answered through the tables (ask_question answered, create_plan accepted); an unknown cursor/* request is refused", async () => {
    dirs();
    const calls = [
      { method: "cursor/ask_question", params: { toolCallId: "t1", title: "Database", questions: [{ id: "q1", prompt: "Which database?", options: [{ id: "pg", label: "Postgres" }, { id: "my", label: "MySQL" }], allowMultiple: false }] } },
      { method: "cursor/create_plan", params: { toolCallId: "t2", name: "Add auth", overview: "JWT login", plan: "# Plan", todos: [{ id: "a", content: "Add route", status: "pending" }] } },
      { method: "cursor/frobnicate", params: {} },
    ];
    // the preset's command line (cursor-agent acp), its program the stand-in
    s = await connect({ agent: "cursor-acp", bin: FAKE, cwd: work, env: { FAKE_CALLS: JSON.stringify(calls) }, timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 } });
    const { turnId } = await s.prompt("go");
    const events: CanonicalEvent[] = [];
    for await (const e of s.events) {
      events.push(e);
      if (e.type === "request.opened") {
        if (P(e).detail === "Database") await s.answer(e, { decision: "answered", answers: { q1: "pg" } });
        else await s.answer(e, { decision: "allow_once" });
      }
      if (e.type === "turn.completed" && e.turnId === turnId) break;
    }
    const text = events.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("");
    const results = [...text.matchAll(/RESULT (.*)\n/g)].map((m) => JSON.parse(m[1]!));
    expect(results.map((r) => [r.method, r.result ?? r.error?.code])).toEqual([
      ["cursor/ask_question", { outcome: { outcome: "answered", answers: [{ questionId: "q1", selectedOptionIds: ["pg"] }] } }],
      ["cursor/create_plan", { outcome: { outcome: "accepted" } }],
      ["cursor/frobnicate", -32601],
    ]);
    expect(events.filter((e) => e.type === "request.resolved").map((e) => P(e).decision)).toEqual(["answered", "allow_once"]);
    expect(events.some((e) => e.type === "turn.plan.updated")).toBe(true);
    expect(warnings(events).some((m) => /cursor\/frobnicate/.test(m))).toBe(true);
  });

  it("an unknown client method is refused even with every capability", async () => {
    dirs();
    s = await fake([{ method: "x/unknown", params: {} }], { acp: { fs: true, terminal: true } });
    const { events, results } = await turn(s);
    expect(results[0]).toMatchObject({ error: { code: -32601 } });
    expect(warnings(events).some((m) => /"x\/unknown".*refused/.test(m))).toBe(true);
  });

  it("terminals: output collected, kill ends the command (its group), release frees it; one left running dies with the session", async () => {
    dirs();
    s = await fake([
      { method: "terminal/create", params: { command: "echo hi; sleep 30" } },
      { method: "terminal/output", params: { terminalId: "$term" }, until: "hi" },
      { method: "terminal/kill", params: { terminalId: "$term" } },
      { method: "terminal/wait_for_exit", params: { terminalId: "$term" } },
      { method: "terminal/release", params: { terminalId: "$term" } },
      { method: "terminal/output", params: { terminalId: "$term" } },
      { method: "terminal/create", params: { command: "sh", args: ["-c", "echo pid=$$; exec sleep 30"], outputByteLimit: 1000 } },
      { method: "terminal/output", params: { terminalId: "$term" }, until: "pid=" },
    ], { acp: { terminal: true } });
    const { results } = await turn(s);
    expect(results[0]).toMatchObject({ result: { terminalId: expect.any(String) } });
    expect(results[1].result.output).toBe("hi\n");
    expect(results[1].result.exitStatus).toBeUndefined();
    expect(results[3]).toMatchObject({ result: { exitCode: null, signal: expect.stringMatching(/^SIG(TERM|KILL)$/) } });
    expect(results[5]).toMatchObject({ error: { code: -32602 } });
    const pid = Number(/pid=(\d+)/.exec(results[7].result.output)![1]);
    expect(groupMembers(pid)).toContain(pid);
    await s.close();
    s = undefined;
    expect(groupMembers(pid), "the terminal left running is killed on close").toEqual([]);
  });

  it("resume by session/load: the replay stays out of the live stream (the tap sees it as history); load() reads it from a second process", async () => {
    dirs();
    const frames: any[] = [];
    s = await fake([], { resume: "s1", onFrame: (f) => frames.push(f) });
    expect(s.providerSessionId).toBe("s1");
    const { events } = await turn(s);
    const texts = events.filter((e) => e.type === "content.delta").map((e) => P(e).delta);
    expect(texts.join("")).not.toContain("Noted");
    expect(events.filter((e) => e.type === "item.completed" && P(e).itemType === "user_message").map((e) => P(e).text)).toEqual(["go"]);
    expect(frames.filter((f) => f.history && f.message.method === "session/update").length).toBe(2);
    const pid = s.pid!;
    const history = await s.load();
    expect(history.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("")).toBe("Noted: 42.");
    expect(history.filter((e) => e.type === "content.delta" || (e.type === "item.completed" && P(e).itemType === "user_message")).map((e) => JSON.stringify(P(e)))).toEqual([expect.stringContaining("Remember 42."), expect.stringContaining("Noted: 42.")]);
    expect(s.pid, "load() used another process; the session's own runs on").toBe(pid);
  });

  it("a load() that fails: rejected with the agent's error, and the frames it exchanged still reach the onFrame tap (history: true)", async () => {
    dirs();
    const frames: any[] = [];
    s = await connect({
      agent: { acp: { command: process.execPath, args: [FAKE], env: { FAKE_MODE: "load-fails" } } }, cwd: work,
      timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
      onFrame: (f) => frames.push(f),
    });
    await expect(s.load("stored-1")).rejects.toMatchObject({ code: "agent_error" });
    const history = frames.filter((f) => f.history);
    expect(history.map((f) => f.message.method ?? (f.message.error ? "error" : "result"))).toEqual(["initialize", "result", "session/load", "session/update", "session/update", "error"]);
  });

  it("an agent that answers session/cancel late: the session ends the turn after the grace; the late answer does not end it again, and the next prompt is a turn of its own", async () => {
    dirs();
    s = await connect({
      agent: { acp: { command: process.execPath, args: [FAKE], env: { FAKE_MODE: "late-cancel" } } }, cwd: work,
      timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
    });
    const first = await s.prompt("one");
    const ends = (t: string) => (e: CanonicalEvent) => (e.type === "turn.completed" || e.type === "turn.aborted") && e.turnId === t;
    const seen: CanonicalEvent[] = [];
    for await (const e of s.events) { seen.push(e); if (e.type === "content.delta") break; }
    await s.cancel();
    for await (const e of s.events) { seen.push(e); if (ends(first.turnId)(e)) break; }
    expect(P(seen.at(-1)!).state).toBe("interrupted");
    const second = await s.prompt("two");
    expect(second.turnId).not.toBe(first.turnId);
    const after: CanonicalEvent[] = [];
    for await (const e of s.events) { after.push(e); if (ends(second.turnId)(e)) break; }
    expect(after.filter(ends(first.turnId)), "turn 1 ends once").toEqual([]);
    expect(P(after.at(-1)!).state).toBe("completed");
  });

  it("authentication: initialize offers authMethods and session/new fails -32000 → START_FAILED naming the methods", async () => {
    dirs();
    await expect(fake([], { env: { FAKE_MODE: "auth" } })).rejects.toMatchObject({ code: "start_failed", message: expect.stringMatching(/authentication.*login \(Log in with a browser\)/) });
  });

  it("setModel / setMode: of several config options in a category, the one named after it (Cline's provider sits in `model` too)", async () => {
    dirs();
    const frames: any[] = [];
    s = await fake([], { env: { FAKE_MODE: "config-options" }, onFrame: (f: any) => frames.push(f) } as any);
    await s.setModel("m2");
    await s.setMode("plan");
    const sent = frames.filter((f) => f.dir === "out" && f.message.method === "session/set_config_option").map((f) => [f.message.params.configId, f.message.params.value]);
    expect(sent).toEqual([["model", "m2"], ["mode", "plan"]]);
  });

  it("the presets: each an ACP driver (surface acp), by its command line", () => {
    for (const name of ["opencode-acp", "gemini", "codex-acp", "claude-code-acp", "claude-agent-acp", "qwen-acp", "copilot-acp", "cline-acp", "cursor-acp"] as const) {
      expect(DRIVERS[name]).toMatchObject({ surface: "acp", provider: "acp" });
    }
    expect(DRIVERS["cursor-acp"].command).toBe("cursor-agent");
  });

  it("the object form is checked: a command is required", async () => {
    await expect(connect({ agent: { acp: { command: "" } } } as ConnectOptions)).rejects.toMatchObject({ code: "invalid_option" });
    await expect(connect({ agent: { acp: {} } } as unknown as ConnectOptions)).rejects.toMatchObject({ code: "invalid_option" });
  });
});
