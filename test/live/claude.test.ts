/**
 * The two Claude Code drivers against the real, pinned programs, offline: `agent: "claude"` (the CLI's stream-json
 * control protocol; Claude Code 2.1.337, the native binary of @anthropic-ai/claude-agent-sdk-linux-x64@0.3.337) and
 * `agent: "claude-sdk"` (the Agent SDK 0.3.337's query(), driving the same Claude Code): scripts/test-live.mjs runs this
 * inside a loopback-only network namespace, the CLI pointed at the scripted Anthropic Messages server
 * (fixtures/record). Every wait is on an event (or a process state), bounded by the test's own timeout — never a sleep.
 *
 * The scenarios of drivers.test.ts — a plain turn (load() renders as live); an approval allowed and one denied; one
 * left pending, then cancel(); an interrupt mid-command; kill -9, then prompt() (restarted with --resume); resume
 * (the option and resume()); a consumer that stops reading; no process of the agent's group after close() — plus
 * what is particular to Claude Code's stdio protocol (each test says which quirk it pins).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, LiveError, type LiveSession } from "../../src/live/index.ts";
import { counterIds } from "../../src/normalize/ids.ts";
import { createAccumulator } from "../../src/render/accumulator.ts";
import type { CanonicalEvent } from "../../src/normalize/normalizer.ts";
import type { Frame } from "../../src/live/types.ts";
import { renderView } from "../support/render-view.ts";
import { groupMembers, installed, IN_NETNS, rig, scenario, type Rig } from "./rig.ts";
import { isEnd, P, readUntil, saveFigures, streamed } from "../support/live-events.ts";

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

/** The answers that went to Claude Code natively: [request id, behavior, interrupt] — wire control_responses (claude) or the SDK callbacks' results (claude-sdk). */
const nativeAnswers = (agent: string, out: Frame[]) => agent === "claude"
  ? out.filter((f) => (f.message as any).type === "control_response").map((f) => [(f.message as any).response.request_id, (f.message as any).response.response.behavior, (f.message as any).response.response.interrupt])
  : out.filter((f) => f.channel === "permission").map((f) => [(f.message as any).toolUseID, (f.message as any).behavior, (f.message as any).interrupt]);

for (const agent of ["claude", "claude-sdk"] as const) {
const inst = installed(agent);
const skip = !IN_NETNS ? "not inside the test:live network namespace (run npm run test:live)" : inst.error;
if (skip) console.warn(`[live] ${agent}: skipped — ${skip}`);
const suite = skip ? describe.skip : describe;

suite(`live ${agent} (${agent === "claude" ? "Claude Code CLI, stream-json over stdio" : "the Agent SDK's query()"})`, () => {
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
    if (agent === "claude") {
      // quirk: the initialize control request goes first and is answered before any prompt
      expect(frames[0]).toMatchObject({ dir: "out", message: { type: "control_request", request: { subtype: "initialize" } } });
      expect(frames.some((f) => f.dir === "in" && (f.message as any).type === "control_response" && (f.message as any).response.request_id === (frames[0].message as any).request_id)).toBe(true);
    } else {
      // the SDK's own initialize exchange stays inside it: the frames are the SDK's messages, none before a prompt
      expect(frames).toEqual([]);
    }
    let first: CanonicalEvent | undefined;
    const firstEvent = s.events[Symbol.asyncIterator]().next().then((r) => { first = r.value as CanonicalEvent; return performance.now() - t0; });
    const prompt = s.prompt(scenario("plain").prompts[0]);
    figures[`${agent}.firstEventMs`] = Math.round(await firstEvent);
    // quirk: nothing comes from the CLI until the model answers; the turn opens on our own user line
    const { turnId } = await prompt;
    expect(turnId).toMatch(/^trn_/);
    const live: CanonicalEvent[] = first ? [first] : [];
    await readUntil(s, isEnd(turnId), live);
    expect(P(live.at(-1)!).state).toBe("completed");
    expect(text(live)).toContain("It turns each agent's own event stream into one common, typed stream");
    expect(text(live, "reasoning_text")).toContain("A normalizer maps many provider-specific event formats");
    // the thread starts first, before the turn our prompt opened (the runtime starts it: the CLI names the session only
    // in system/init, which then gives the same thread its provider id)
    expect(live.findIndex((e) => e.type === "thread.started")).toBeLessThan(live.findIndex((e) => e.type === "turn.started"));
    expect(live.filter((e) => e.type === "thread.started").length).toBe(1);
    expect(new Set(live.filter((e) => e.threadId).map((e) => e.threadId)).size).toBe(1);
    expect(live.find((e) => e.threadId && e.providerRefs?.providerThreadId)?.providerRefs?.providerThreadId).toBe(sid);
    expect(warnings(live)).toEqual([]);
    // history: the transcript (claude-transcript), in conversation order
    const history = await s.load();
    const omit = ["usage", "permission", "question", "status", "mode", "diff", "plan"];
    expect(render(history, omit)).toEqual(render(live, omit));
    await done();
  });

  it("approvals: can_use_tool allowed, then denied — answered natively (a control_response / the canUseTool result); a second answer is refused", async () => {
    r = await rig(agent, scenario("approval"));
    const out: Frame[] = [];
    s = await connect({ ...r.options, onFrame: (f) => { if (f.dir === "out") out.push(f); } });
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
    // the answers went natively, to the requests' own ids (the CLI's request ids / the SDK's tool use ids)
    expect(nativeAnswers(agent, out).map((a) => a.slice(0, 2))).toEqual([[answered[0].providerRefs?.providerRequestId, "allow"], [answered[1].providerRefs?.providerRequestId, "deny"]]);
    expect(existsSync(join(r.sandbox.work, "notes.txt")), "the allowed command ran").toBe(true);
    expect(existsSync(join(r.sandbox.work, "README.md")), "the denied command did not").toBe(true);
    expect(P(events.at(-1)!).state).toBe("completed");
    expect(text(events)).toContain("you declined that command");
    expect(s.pending()).toEqual([]);
    await done();
  });

  it("pending + cancel(): the open request is answered (deny + interrupt) and settled, the turn ends, cancel() resolves after it", async () => {
    r = await rig(agent, scenario("approval"));
    const out: Frame[] = [];
    s = await connect({ ...r.options, onFrame: (f) => { if (f.dir === "out") out.push(f); } });
    const { turnId } = await s.prompt(scenario("approval").prompts[0]);
    const before = await readUntil(s, (e) => e.type === "request.opened");
    const opened = before.at(-1)!;
    const cancelled = s.cancel();
    const after = await readUntil(s, isEnd(turnId));
    await cancelled;
    const settled = after.find((e) => e.type === "request.resolved" && e.requestId === opened.requestId);
    expect(settled && P(settled).decision, "the request is settled").toMatch(/^(cancelled|reject_once)$/);
    // Claude Code was told natively: a deny that interrupts (then, on the wire, the interrupt control request)
    expect(nativeAnswers(agent, out)).toContainEqual([opened.providerRefs?.providerRequestId, "deny", true]);
    if (agent === "claude") expect(out.some((f) => (f.message as any).type === "control_request" && (f.message as any).request.subtype === "interrupt")).toBe(true);
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
    expect(events.find((e) => e.threadId && e.providerRefs?.providerThreadId)?.providerRefs?.providerThreadId).toBe(stored);
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

  it("setMode(acceptEdits): the edit that would ask runs without a request; setModel is accepted", async () => {
    const sc = scenario("edit");
    r = await rig(agent, sc);
    s = await connect(r.options);
    await s.setMode("acceptEdits");
    await s.setModel("claude-sonnet-4-6");
    const { turnId } = await s.prompt(sc.prompts[0]);
    const events = await readUntil(s, isEnd(turnId));
    expect(events.filter((e) => e.type === "request.opened"), "acceptEdits: no permission asked for the edit").toEqual([]);
    expect(P(events.at(-1)!).state).toBe("completed");
    expect(readFileSync(join(r.sandbox.work, "hello.py"), "utf8")).toContain("Hello, agentnorm!");
    await done();
  });

  it("a question (AskUserQuestion): answered with the user's choice, which the model receives", async () => {
    const sc = scenario("question");
    r = await rig(agent, sc);
    s = await connect(r.options);
    const { turnId } = await s.prompt(sc.prompts[0]);
    const asked: CanonicalEvent[] = [];
    const events = await readUntil(s, async (e) => {
      if (e.type === "request.opened") {
        asked.push(e);
        if (P(e).requestType === "tool_user_input") await s!.answer(e, { decision: "answered", answers: { "Which language should the script use?": "Python" } });
        else await s!.answer(e, { decision: "allow_once" });
      }
      return isEnd(turnId)(e);
    });
    expect(asked[0] && P(asked[0]).requestType).toBe("tool_user_input");
    expect(P(events.at(-1)!).state).toBe("completed");
    expect(text(events)).toContain("You chose Python");
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
}

// The host's way: agentnorm and the SDK installed side by side in an app's node_modules; connect() imports the SDK
// itself (no claudeSdk.module). The built package is copied there, the pinned SDK linked beside it.
const sdkInst = installed("claude-sdk");
const sdkSkip = !IN_NETNS ? "not inside the test:live network namespace" : sdkInst.error;
(sdkSkip ? describe.skip : describe)("live claude-sdk: the SDK loaded lazily from the host's node_modules", () => {
  it("a host app with agentnorm and @anthropic-ai/claude-agent-sdk installed: connect({ agent: \"claude-sdk\" }) finds the SDK, a turn completes", async () => {
    const r = await rig("claude-sdk", scenario("plain"));
    const app = join(r.sandbox.root, "app");
    try {
      const nm = join(app, "node_modules");
      mkdirSync(join(nm, "agentnorm", "dist"), { recursive: true });
      cpSync(join(process.cwd(), "dist", "pkg"), join(nm, "agentnorm", "dist", "pkg"), { recursive: true });
      writeFileSync(join(nm, "agentnorm", "package.json"), JSON.stringify({ name: "agentnorm", type: "module", exports: { "./live": "./dist/pkg/live.js" } }));
      symlinkSync(join(sdkInst.dir!, "node_modules", "@anthropic-ai"), join(nm, "@anthropic-ai"));
      writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }));
      const { claudeSdk: _module, onStderr: _l, ...plain } = r.options as any;
      const host = `
        import { connect } from "agentnorm/live";
        const o = JSON.parse(process.env.AGENTNORM_TEST_OPTIONS);
        const s = await connect(o);
        const { turnId } = await s.prompt(process.env.AGENTNORM_TEST_PROMPT);
        let text = "";
        for await (const e of s.events) {
          if (e.type === "content.delta") text += e.payload.delta;
          if (e.type === "turn.completed" && e.turnId === turnId) { console.log(JSON.stringify({ state: e.payload.state, text })); break; }
        }
        await s.close();`;
      writeFileSync(join(app, "host.mjs"), host);
      const env = { ...process.env, AGENTNORM_TEST_OPTIONS: JSON.stringify({ ...plain, env: Object.fromEntries(Object.entries(plain.env).filter(([, v]) => v !== undefined)) }), AGENTNORM_TEST_PROMPT: scenario("plain").prompts[0] };
      const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, ["host.mjs"], { cwd: app, env, timeout: 120_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout))));
      const res = JSON.parse(out.trim().split("\n").pop()!);
      expect(res.state).toBe("completed");
      expect(res.text).toContain("It turns each agent's own event stream into one common, typed stream");
    } finally {
      await r.dispose();
    }
  });
});
