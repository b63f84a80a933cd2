/**
 * The live session's guarantees that a well-behaved agent never exercises, against a stand-in Codex app-server that
 * misbehaves on purpose (test/support/fake-app-server.mjs): a turn the agent never ends after an interrupt, an
 * interrupt that hangs, a request no table opens, open requests on close and crash, an exit by code, a grandchild
 * that ignores SIGTERM, a flood of events nobody reads, the host killed by SIGKILL, the capture log's redaction,
 * misuse. (The real agents: npm run test:live.) Waits are on events and process states, never sleeps.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, LiveError, type LiveSession } from "../src/live/index.js";
import { groupMembers } from "../src/live/process.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";
import { P, readUntil } from "./support/live-events.js";

const FAKE = join(import.meta.dirname, "support", "fake-app-server.mjs");
const posix = process.platform !== "win32";

async function fake(mode: string, extra: { env?: Record<string, string>; timeouts?: object; highWater?: number; capture?: string } = {}): Promise<LiveSession> {
  return connect({
    ...extra,
    agent: "codex", bin: FAKE, cwd: tmpdir(),
    env: { FAKE_MODE: mode, ...extra.env },
    timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500, ...extra.timeouts },
  });
}
const until = readUntil;
async function gone(pgid: number): Promise<void> {
  for (let wait = 10; (groupMembers(pgid) ?? []).length; wait = Math.min(wait * 2, 200)) await new Promise((r) => setTimeout(r, wait));
}

describe.skipIf(!posix)("live session guarantees (a misbehaving stand-in agent)", () => {
  it("cancel(): an agent that never ends the turn — ended here as interrupted after the grace period, with a warning", async () => {
    const s = await fake("silent-interrupt");
    const { turnId } = await s.prompt("hi");
    await s.cancel();
    const events = await until(s, (e) => e.type === "turn.completed");
    const warning = events.find((e) => e.type === "runtime.warning" && /no end of the turn/.test(P(e).message));
    expect(warning?.turnId).toBe(turnId);
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", turnId, payload: { state: "interrupted" } });
    // the session goes on
    await expect(s.prompt("again")).resolves.toMatchObject({ turnId: expect.stringMatching(/^trn_/) });
    await s.close();
  });

  it("cancel(): an interrupt that hangs — the agent is stopped, the turn ended, and (restart never) the session ends", async () => {
    const s = await fake("hang-interrupt", { timeouts: { requestMs: 400 } });
    const pid = s.pid!;
    const { turnId } = await s.prompt("hi");
    await s.cancel();
    const events = await until(s, () => false);
    expect(events.some((e) => e.type === "runtime.warning" && /did not answer the interrupt/.test(P(e).message))).toBe(true);
    expect(events.find((e) => e.type === "turn.completed")).toMatchObject({ turnId, payload: { state: "interrupted" } });
    expect(groupMembers(pid) ?? []).toEqual([]);
    await expect(s.prompt("again")).rejects.toMatchObject({ code: "session_closed" });
  });

  it("setModel / setMode (codex): the next turn/start carries the model and the approval policy; a mode that is no policy is refused", async () => {
    const out: any[] = [];
    const s = await connect({
      agent: "codex", bin: FAKE, cwd: tmpdir(), env: { FAKE_MODE: "spam 1" },
      timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
      onFrame: (f) => { if (f.dir === "out") out.push(f.message); },
    });
    const t1 = await s.prompt("one");
    await until(s, (e) => e.type === "turn.completed" && e.turnId === t1.turnId);
    expect(out.find((m) => m.method === "turn/start").params).not.toHaveProperty("model");
    await s.setModel("gpt-5.5");
    await s.setMode("never");
    await expect(s.setMode("yolo")).rejects.toMatchObject({ code: "invalid_option" });
    const t2 = await s.prompt("two");
    await until(s, (e) => e.type === "turn.completed" && e.turnId === t2.turnId);
    expect(out.filter((m) => m.method === "turn/start").at(-1).params).toMatchObject({ model: "gpt-5.5", approvalPolicy: "never" });
    await s.close();
  });

  it("cancel(): an interrupt that hangs, restart on-demand — the agent is stopped, and the next prompt starts it again on the same thread", async () => {
    const s = await connect({
      agent: "codex", bin: FAKE, cwd: tmpdir(), env: { FAKE_MODE: "hang-interrupt" }, restart: "on-demand",
      timeouts: { startMs: 20_000, requestMs: 400, interruptGraceMs: 300, closeGraceMs: 500 },
    });
    const pid = s.pid!;
    const thread = s.providerSessionId;
    const { turnId } = await s.prompt("hi");
    await s.cancel();
    const events = await until(s, (e) => e.type === "turn.completed" && e.turnId === turnId);
    expect(P(events.at(-1)!).state).toBe("interrupted");
    expect(groupMembers(pid) ?? []).toEqual([]);
    const next = await s.prompt("again");
    expect(next.turnId).not.toBe(turnId);
    expect(s.pid).not.toBe(pid);
    expect(s.providerSessionId).toBe(thread);
    await s.close();
  });

  it("a server request no table opens is refused with method-not-found, and a warning says so", async () => {
    const s = await fake("unknown-request");
    await s.prompt("hi");
    const events = await until(s, (e) => e.type === "runtime.warning" && JSON.stringify(e.raw ?? e.payload).includes("fake/answerSeen"));
    expect(events.some((e) => e.type === "runtime.warning" && /does not answer: refused/.test(P(e).message))).toBe(true);
    expect(JSON.stringify(events.at(-1)!.raw)).toContain("-32601");
    await s.close();
  });

  it("close(): an open request is settled as cancelled, the session exits gracefully, answering it afterwards fails", async () => {
    const s = await fake("approval");
    await s.prompt("hi");
    const [opened] = (await until(s, (e) => e.type === "request.opened")).slice(-1);
    expect(s.pending().map((e) => e.requestId)).toEqual([opened.requestId]);
    await s.close();
    const rest = await until(s, () => false);
    expect(rest.find((e) => e.type === "request.resolved")).toMatchObject({ requestId: opened.requestId, payload: { decision: "cancelled" } });
    expect(rest.find((e) => e.type === "session.exited")).toMatchObject({ payload: { exitKind: "graceful" } });
    await expect(s.answer(opened, { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
  });

  it("a crash (SIGKILL) with a request open: settled as cancelled, the exit named by signal; no restart → calls fail with agent_exited", async () => {
    const s = await fake("approval");
    await s.prompt("hi");
    const [opened] = (await until(s, (e) => e.type === "request.opened")).slice(-1);
    process.kill(s.pid!, "SIGKILL");
    const rest = await until(s, () => false);
    expect(rest.find((e) => e.type === "request.resolved")).toMatchObject({ requestId: opened.requestId, payload: { decision: "cancelled" } });
    expect(rest.find((e) => e.type === "runtime.error")).toMatchObject({ payload: { class: "transport_error", detail: { code: null, signal: "SIGKILL" } } });
    expect(rest.find((e) => e.type === "session.exited")).toMatchObject({ payload: { exitKind: "error", recoverable: false } });
    expect(rest.find((e) => e.type === "turn.completed")).toMatchObject({ payload: { state: "failed" } });
    const err = await s.prompt("again").catch((e) => e);
    expect(err).toBeInstanceOf(LiveError);
    expect(["agent_exited", "session_closed"]).toContain(err.code);
  });

  it("an exit by code is reported with the code", async () => {
    const s = await fake("exit-on-turn");
    await s.prompt("hi");
    const rest = await until(s, () => false);
    expect(rest.find((e) => e.type === "runtime.error")).toMatchObject({ payload: { detail: { code: 3, signal: null } } });
  });

  it("close() reaches the whole process group: a grandchild that ignores SIGTERM is gone too", async () => {
    const s = await fake("approval", { env: { FAKE_MODE: "approval", FAKE_GRANDCHILD: "1" } });
    const pid = s.pid!;
    await until(s, (e) => e.type === "thread.started");
    // the agent, its lifeline watcher and the grandchild's shell and sleep
    if (groupMembers(pid)) expect(groupMembers(pid)!.length).toBeGreaterThanOrEqual(3);
    await s.close();
    expect(groupMembers(pid) ?? []).toEqual([]);
  });

  it("a flood nobody reads: the queue stops near its high-water mark (the agent blocks), then every event arrives in order", async () => {
    const s = await fake("spam 20000", { highWater: 50 });
    const { turnId } = await s.prompt("hi");
    const q = (s as any).events;
    await q.reachesHigh();
    const events = await until(s, (e) => e.type === "turn.completed" && e.turnId === turnId);
    expect(events.length).toBeGreaterThan(20_000);
    expect(q.maxHeld).toBeLessThan(5_000);
    const seq = events.map((e) => e.sequence);
    expect(seq).toEqual(seq.map((_, i) => seq[0] + i));
    expect(events.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("")).toBe(Array.from({ length: 20_000 }, (_, i) => `${i} `).join(""));
    await s.close();
  });

  it("the host killed by SIGKILL: the agent's lifeline kills its group", async () => {
    const dist = join(import.meta.dirname, "..", "dist", "pkg", "live.js");
    expect(existsSync(dist), "npm run build first").toBe(true);
    const script = `import { connect } from ${JSON.stringify(dist)};
const s = await connect({ agent: "codex", bin: ${JSON.stringify(FAKE)}, env: { FAKE_MODE: "approval", FAKE_GRANDCHILD: "1" } });
process.stdout.write(String(s.pid) + "\\n");
setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const pid = await new Promise<number>((resolve) => host.stdout!.once("data", (d) => resolve(Number(String(d).trim()))));
    expect(groupMembers(pid)?.length ?? 1).toBeGreaterThan(0);
    host.kill("SIGKILL");
    await gone(pid);
    expect(groupMembers(pid) ?? []).toEqual([]);
  });

  it("capture: native frames both ways and the events, with secrets redacted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-live-cap-"));
    const file = join(dir, "cap.ndjson");
    const secret = "sk-ant-api03-" + "A".repeat(40);
    try {
      const s = await fake("spam 3", { capture: file });
      const { turnId } = await s.prompt(`use the key ${secret}`);
      await until(s, (e) => e.type === "turn.completed" && e.turnId === turnId);
      await s.close();
      const text = readFileSync(file, "utf8");
      const records = text.trim().split("\n").map((l) => JSON.parse(l));
      expect(records.some((r) => r.stage === "native_in" && r.direction === "out" && r.eventType === "turn/start")).toBe(true);
      expect(records.some((r) => r.stage === "native_in" && r.direction === "in" && r.eventType === "turn/started")).toBe(true);
      expect(records.some((r) => r.stage === "normalized_out" && r.eventType === "session.exited")).toBe(true);
      expect(text).not.toContain(secret);
      expect(records.some((r) => r.redactions.length > 0)).toBe(true);
      // the host's events (the session's end) go through the capture in order with the agent's: canonical sequences
      // rise through the file, and the session's end is the last event
      const seqs = records.filter((r) => r.stage === "normalized_out").map((r) => r.payload.sequence);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(records.filter((r) => r.stage === "normalized_out").at(-1).eventType).toBe("session.exited");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an overloaded agent (-32001): the call is retried with backoff, with a warning", async () => {
    const s = await fake("overload");
    const { turnId } = await s.prompt("hi");
    expect(turnId).toMatch(/^trn_/);
    const events = await until(s, (e) => e.type === "turn.started");
    expect(events.some((e) => e.type === "runtime.warning" && /overloaded; retrying \(1\/5\)/.test(P(e).message))).toBe(true);
    await s.close();
  });

  it("signal: aborting it closes the session (the agent stopped, the events ended)", async () => {
    const ac = new AbortController();
    const s = await connect({ agent: "codex", bin: FAKE, cwd: tmpdir(), env: { FAKE_MODE: "approval" }, signal: ac.signal });
    const pid = s.pid!;
    ac.abort();
    await s.closed;
    const rest = await until(s, () => false);
    expect(rest.find((e) => e.type === "session.exited")).toMatchObject({ payload: { exitKind: "graceful" } });
    expect(groupMembers(pid) ?? []).toEqual([]);
  });

  it("misuse: an unknown agent, a missing executable, a second prompt while a turn runs, an answer to no request", async () => {
    await expect(connect({ agent: "nope" as never })).rejects.toMatchObject({ code: "invalid_option" });
    await expect(connect({ agent: "codex", bin: "/nonexistent/codex" })).rejects.toMatchObject({ code: "start_failed" });
    await expect(connect({ agent: "opencode", env: { PATH: "/nonexistent" } })).rejects.toThrow(/not on PATH/);
    const s = await fake("approval");
    await s.prompt("hi");
    await expect(s.prompt("again")).rejects.toMatchObject({ code: "busy" });
    await expect(s.answer("req_unknown", { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
    await s.close();
  });
});
