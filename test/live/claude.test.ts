/**
 * The Claude Code driver (`connect({ agent: "claude" })`) against the real, pinned CLI (Claude Code 2.1.337, the
 * native binary of @anthropic-ai/claude-agent-sdk-linux-x64@0.3.337), offline: scripts/test-live.mjs runs this
 * inside a loopback-only network namespace, the CLI pointed at the scripted Anthropic Messages server
 * (fixtures/record). Every wait is on an event (or a process state), bounded by the test's own timeout — never a sleep.
 *
 * The scenarios of drivers.test.ts — a plain turn (load() renders as live); an approval allowed and one denied; one
 * left pending, then cancel(); an interrupt mid-command; kill -9, then prompt() (restarted with --resume); resume
 * (the option and resume()); a consumer that stops reading; no process of the agent's group after close() — plus
 * what is particular to Claude Code's stdio protocol (each test says which quirk it pins).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connect, LiveError, type LiveSession } from "../../src/live/index.ts";
import { counterIds } from "../../src/normalize/ids.ts";
import { createAccumulator } from "../../src/render/accumulator.ts";
import type { CanonicalEvent } from "../../src/normalize/normalizer.ts";
import type { Frame } from "../../src/live/types.ts";
import { renderView } from "../support/render-view.ts";
import { groupMembers, installed, IN_NETNS, rig, scenario, type Rig } from "./rig.ts";
import { isEnd, P, readUntil, saveFigures, streamed } from "../support/live-events.ts";

const agent = "claude" as const;
const figures: Record<string, unknown> = {};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

afterAll(() => saveFigures(figures));

const text = streamed;
const render = (events: CanonicalEvent[], omit: string[]) => {
  const a = createAccumulator();
  a.applyAll(events);
  return renderView(a.snapshot(), { omitKinds: omit });
};
const warnings = (events: CanonicalEvent[]) => events.filter((e) => e.type === "runtime.warning" || e.type === "runtime.error").map((e) => P(e).message);

const inst = installed(agent);
const skip = !IN_NETNS ? "not inside the test:live network namespace (run npm run test:live)" : inst.error;
if (skip) console.warn(`[live] ${agent}: skipped — ${skip}`);
const suite = skip ? describe.skip : describe;

suite("live claude (Claude Code CLI, stream-json over stdio)", () => {
  let r: Rig | undefined;
  let s: LiveSession | undefined;
  const done = async () => {
    const pid = (s as any)?.pid as number | undefined;
    await s?.close();
    if (pid) expect(groupMembers(pid), "no process of the agent's group is left after close()").toEqual([]);
    await r?.dispose();
    r = undefined;
    s = undefined;
  };
  // a test that failed before its done(): its session is closed all the same (no agent outlives its test)
  afterEach(async () => {
    await s?.close().catch(() => undefined);
    await r?.dispose();
    r = undefined;
    s = undefined;
  });

  it("plain: prompt → turn started → text → completed; load() renders the same as the live session", async () => {
    r = await rig(agent, scenario("plain"), { ids: counterIds() });
    const frames: Frame[] = [];
    const t0 = performance.now();
    s = await connect({ ...r.options, onFrame: (f) => { if (!f.history) frames.push(f); } });
    figures[`${agent}.connectMs`] = Math.round(performance.now() - t0);
    // quirk: the CLI states its session id only in system/init, after the first prompt — the driver chose it
    // (--session-id), so it is known at connect(), and the CLI uses it
    const sid = s.providerSessionId!;
    expect(sid).toMatch(UUID);
    // quirk: the initialize control request goes first and is answered before any prompt
    expect(frames[0]).toMatchObject({ dir: "out", message: { type: "control_request", request: { subtype: "initialize" } } });
    expect(frames.some((f) => f.dir === "in" && (f.message as any).type === "control_response" && (f.message as any).response.request_id === (frames[0].message as any).request_id)).toBe(true);
    const firstEvent = s.events[Symbol.asyncIterator]().next().then(() => performance.now() - t0);
    const prompt = s.prompt(scenario("plain").prompts[0]);
    figures[`${agent}.firstEventMs`] = Math.round(await firstEvent);
    // quirk: nothing comes from the CLI until the model answers; the turn opens on our own user line
    const { turnId } = await prompt;
    expect(turnId).toMatch(/^trn_/);
    const live: CanonicalEvent[] = [];
    await readUntil(s, isEnd(turnId), live);
    expect(P(live.at(-1)!).state).toBe("completed");
    expect(text(live)).toContain("It turns each agent's own event stream into one common, typed stream");
    expect(text(live, "reasoning_text")).toContain("A normalizer maps many provider-specific event formats");
    expect(live.find((e) => e.type === "thread.started")?.providerRefs?.providerThreadId).toBe(sid);
    expect(warnings(live)).toEqual([]);
    // history: the transcript (claude-transcript), in conversation order
    const history = await s.load();
    const omit = ["usage", "permission", "question", "status", "mode", "diff", "plan"];
    expect(render(history, omit)).toEqual(render(live, omit));
    await done();
  });

  it("approvals: can_use_tool allowed, then denied — answered with a control_response; a second answer is refused", async () => {
    r = await rig(agent, scenario("approval"));
    const out: any[] = [];
    s = await connect({ ...r.options, onFrame: (f) => { if (f.dir === "out") out.push(f.message); } });
    const { turnId } = await s.prompt(scenario("approval").prompts[0]);
    const decisions = ["allow_once", "reject_once"] as const;
    const answered: CanonicalEvent[] = [];
    let refused: unknown;
    const events = await readUntil(s, async (e) => {
      if (e.type === "request.opened") {
        expect(s!.pending().map((x) => x.requestId)).toContain(e.requestId);
        await s!.answer(e, { decision: decisions[answered.length] });
        answered.push(e);
        if (answered.length === 1) refused = await s!.answer(e, { decision: "allow_once" }).catch((x) => x);
      }
      return isEnd(turnId)(e);
    });
    expect(answered.length).toBe(2);
    expect(answered.map((e) => P(e).requestType)).toEqual(["command_execution_approval", "command_execution_approval"]);
    expect(refused).toBeInstanceOf(LiveError);
    expect((refused as LiveError).code).toBe("not_pending");
    const resolved = events.filter((e) => e.type === "request.resolved").map((e) => [e.requestId, P(e).decision]);
    expect(resolved).toEqual([[answered[0].requestId, "allow_once"], [answered[1].requestId, "reject_once"]]);
    // the answers went over the wire as control_responses to the CLI's request ids
    const responses = out.filter((m) => m.type === "control_response").map((m) => [m.response.request_id, m.response.response.behavior]);
    expect(responses).toEqual([[answered[0].providerRefs?.providerRequestId, "allow"], [answered[1].providerRefs?.providerRequestId, "deny"]]);
    expect(existsSync(join(r.sandbox.work, "notes.txt")), "the allowed command ran").toBe(true);
    expect(existsSync(join(r.sandbox.work, "README.md")), "the denied command did not").toBe(true);
    expect(P(events.at(-1)!).state).toBe("completed");
    expect(text(events)).toContain("you declined that command");
    expect(s.pending()).toEqual([]);
    await done();
  });

  it("pending + cancel(): the open request is answered (deny + interrupt) and settled, the turn ends, cancel() resolves after it", async () => {
    r = await rig(agent, scenario("approval"));
    const out: any[] = [];
    s = await connect({ ...r.options, onFrame: (f) => { if (f.dir === "out") out.push(f.message); } });
    const { turnId } = await s.prompt(scenario("approval").prompts[0]);
    const before = await readUntil(s, (e) => e.type === "request.opened");
    const opened = before.at(-1)!;
    const cancelled = s.cancel();
    const after = await readUntil(s, isEnd(turnId));
    await cancelled;
    const settled = after.find((e) => e.type === "request.resolved" && e.requestId === opened.requestId);
    expect(settled && P(settled).decision, "the request is settled").toMatch(/^(cancelled|reject_once)$/);
    // the CLI was told natively: a deny that interrupts, then the interrupt control request
    const deny = out.find((m) => m.type === "control_response" && m.response.request_id === opened.providerRefs?.providerRequestId);
    expect(deny?.response.response).toMatchObject({ behavior: "deny", interrupt: true });
    expect(out.some((m) => m.type === "control_request" && m.request.subtype === "interrupt")).toBe(true);
    expect(["interrupted", "cancelled"]).toContain(P(after.at(-1)!).state ?? "aborted");
    // the end is the CLI's own result (no synthesized end, which would come with a warning)
    expect(warnings(after)).toEqual([]);
    expect(s.pending()).toEqual([]);
    await expect(s.answer(opened, { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
    expect(existsSync(join(r.sandbox.work, "notes.txt")), "the pending command never ran").toBe(false);
    // the session goes on: the next prompt is a new turn (the script's next step is the second command: refused)
    const next = await s.prompt("Go on.");
    expect(next.turnId).not.toBe(turnId);
    const more = await readUntil(s, async (e) => {
      if (e.type === "request.opened") await s!.answer(e, { decision: "reject_once" });
      return isEnd(next.turnId)(e);
    });
    expect(P(more.at(-1)!).state).toBe("completed");
    await done();
  });

  it("interrupt mid-command: the interrupt control request; the CLI's own result (error_during_execution) ends the turn as interrupted", async () => {
    const sc = scenario("interrupt");
    r = await rig(agent, { ...sc, approvals: undefined });
    s = await connect(r.options);
    const { turnId } = await s.prompt(sc.prompts[0]);
    // `echo …; sleep 30` is read-only to Claude Code: it runs without a can_use_tool request
    await readUntil(s, (e) => (e.type === "item.started" || e.type === "item.updated") && P(e).itemType === "command_execution" && JSON.stringify(P(e)).includes("sleep 30") && P(e).input !== undefined);
    const t0 = performance.now();
    const cancelled = s.cancel();
    const after = await readUntil(s, isEnd(turnId));
    await cancelled;
    figures[`${agent}.cancelToEndMs`] = Math.round(performance.now() - t0);
    const end = after.at(-1)!;
    expect(end.type === "turn.aborted" || P(end).state === "interrupted").toBe(true);
    // quirk: the turn's end is the CLI's (result error_during_execution, terminal_reason aborted_tools), not the
    // session's synthesized one (which comes with a warning)
    expect(warnings(after)).toEqual([]);
    expect(P(end).errorMessage).toBe("aborted_tools");
    // the next prompt works on the same session
    const next = await s.prompt("Say done.");
    const more = await readUntil(s, isEnd(next.turnId));
    expect(P(more.at(-1)!).state).toBe("completed");
    await done();
  });

  it("kill -9 of the CLI: reported as an exit by signal; the next prompt() restarts it with --resume", async () => {
    const sc = scenario("two-turn");
    r = await rig(agent, sc, { restart: "on-demand" });
    s = await connect(r.options);
    const sid = s.providerSessionId;
    const first = await s.prompt(sc.prompts[0]);
    await readUntil(s, isEnd(first.turnId));
    const pid = (s as any).pid as number;
    const before = groupMembers(pid).length;
    process.kill(-pid, "SIGKILL");
    const crash = await readUntil(s, (e) => e.type === "session.exited");
    const err = crash.find((e) => e.type === "runtime.error");
    expect(P(err!).detail).toEqual({ code: null, signal: "SIGKILL" });
    expect(P(crash.at(-1)!)).toMatchObject({ recoverable: true, exitKind: "error" });
    figures[`${agent}.kill9`] = { groupBefore: before, groupAfter: groupMembers(pid).length };
    expect(groupMembers(pid)).toEqual([]);
    const second = await s.prompt(sc.prompts[1]);
    expect(s.providerSessionId).toBe(sid);
    expect((s as any).pid).not.toBe(pid);
    const events = await readUntil(s, isEnd(second.turnId));
    expect(P(events.at(-1)!).state).toBe("completed");
    // the scripted model answers turn 2 only when the request carries turn 1: the session was resumed
    expect(text(events)).toContain("You asked me to remember 42.");
    await done();
  });

  it("resume: a new connection (the resume option) and an open session (resume()) continue a stored session", async () => {
    const sc = scenario("two-turn");
    r = await rig(agent, sc);
    const first = await connect(r.options);
    const t1 = await first.prompt(sc.prompts[0]);
    await readUntil(first, isEnd(t1.turnId));
    const stored = first.providerSessionId!;
    await first.close();
    // a new process, told to resume: the model is asked with turn 1 in the history; the session keeps its id
    s = await connect({ ...r.options, resume: stored });
    expect(s.providerSessionId).toBe(stored);
    const t2 = await s.prompt(sc.prompts[1]);
    const events = await readUntil(s, isEnd(t2.turnId));
    expect(text(events)).toContain("You asked me to remember 42.");
    expect(events.find((e) => e.type === "thread.started")?.providerRefs?.providerThreadId).toBe(stored);
    await s.close();
    // an open session switched to it: its history loads as the stored session's
    s = await connect(r.options);
    expect(s.providerSessionId).not.toBe(stored);
    await s.resume(stored);
    expect(s.providerSessionId).toBe(stored);
    const history = await s.load();
    expect(history.filter((e) => e.type === "turn.started").length).toBe(2);
    await done();
  });

  it("a consumer that stops reading: the queue stays bounded, the CLI waits, nothing is lost", async () => {
    const long = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} of a long answer.`).join(" ");
    const sc = { ...scenario("plain"), turns: [{ text: long }] };
    r = await rig(agent, sc, { highWater: 20 });
    s = await connect(r.options);
    const { turnId } = await s.prompt(sc.prompts[0]);
    const q = (s as any).events;
    await q.reachesHigh();
    const events = await readUntil(s, isEnd(turnId));
    figures[`${agent}.slowConsumer`] = { highWater: 20, maxHeld: q.maxHeld, events: events.length };
    expect(events.length).toBeGreaterThan(200);
    expect(q.maxHeld, "held events stay near the high-water mark, not the stream's length").toBeLessThan(events.length / 2);
    const seqs = events.map((e) => e.sequence);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
    expect(text(events)).toBe(long);
    await done();
  });
});
