/**
 * The live drivers against the real, pinned agents (Codex 0.171.0 app-server, opencode 1.18.33 serve), offline:
 * scripts/test-live.mjs runs this inside a loopback-only network namespace, each agent pointed at the scripted model
 * server (fixtures/record). Every wait is on an event (or a process state), bounded by the test's own timeout —
 * never a sleep.
 *
 * Per driver: a plain turn; an approval allowed and one denied; one left pending, then cancel(); an interrupt
 * mid-command; kill -9 of the agent, then prompt() (restarted, resumed); load() renders as the live session did; a
 * consumer that stops reading (bounded queue, nothing lost); close() leaves no process of the agent's group.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connect, LiveError, type LiveSession } from "../../src/live/index.ts";
import { counterIds } from "../../src/normalize/ids.ts";
import { createAccumulator } from "../../src/render/accumulator.ts";
import type { CanonicalEvent } from "../../src/normalize/normalizer.ts";
import { renderView } from "../support/render-view.ts";
import { groupMembers, installed, IN_NETNS, rig, scenario, type Rig } from "./rig.ts";
import { isEnd, P, readUntil, saveFigures, streamed } from "../support/live-events.ts";

const AGENTS = ["codex", "opencode"] as const;
const figures: Record<string, unknown> = {};

afterAll(() => saveFigures(figures));

const text = streamed;
const render = (events: CanonicalEvent[], omit: string[]) => {
  const a = createAccumulator();
  a.applyAll(events);
  return renderView(a.snapshot(), { omitKinds: omit });
};

for (const agent of AGENTS) {
  const inst = installed(agent);
  const skip = !IN_NETNS ? "not inside the test:live network namespace (run npm run test:live)" : inst.error;
  if (skip) console.warn(`[live] ${agent}: skipped — ${skip}`);
  const suite = skip ? describe.skip : describe;

  suite(`live ${agent}`, () => {
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
      const t0 = performance.now();
      s = await connect(r.options);
      figures[`${agent}.connectMs`] = Math.round(performance.now() - t0);
      const firstEvent = s.events[Symbol.asyncIterator]().next().then(() => performance.now() - t0);
      const prompt = s.prompt(scenario("plain").prompts[0]);
      figures[`${agent}.firstEventMs`] = Math.round(await firstEvent);
      const { turnId } = await prompt;
      expect(turnId).toMatch(/^trn_/);
      const live: CanonicalEvent[] = [];
      await readUntil(s, isEnd(turnId), live);
      expect(P(live.at(-1)!).state).toBe("completed");
      expect(text(live)).toContain("It turns each agent's own event stream into one common, typed stream");
      // live events are schema-valid and nothing was unknown
      expect(live.filter((e) => e.type === "runtime.warning" || e.type === "runtime.error").map((e) => P(e).message)).toEqual([]);
      const history = await s.load();
      const omit = ["usage", "permission", "question", "status", "mode", "diff", "plan"];
      expect(render(history, omit)).toEqual(render(live, omit));
      await done();
    });

    it("approvals: one allowed, one denied — answered over the agent's transport; a second answer is refused", async () => {
      r = await rig(agent, scenario("approval"));
      s = await connect(r.options);
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
      expect(refused).toBeInstanceOf(LiveError);
      expect((refused as LiveError).code).toBe("not_pending");
      const resolved = events.filter((e) => e.type === "request.resolved").map((e) => [e.requestId, P(e).decision]);
      expect(resolved).toEqual([[answered[0].requestId, "allow_once"], [answered[1].requestId, "reject_once"]]);
      expect(existsSync(join(r.sandbox.work, "notes.txt")), "the allowed command ran").toBe(true);
      expect(existsSync(join(r.sandbox.work, "README.md")), "the denied command did not").toBe(true);
      expect(s.pending()).toEqual([]);
      await done();
    });

    it("pending + cancel(): the open request is settled as cancelled, the turn ends, cancel() resolves after it", async () => {
      r = await rig(agent, scenario("approval"));
      s = await connect(r.options);
      const { turnId } = await s.prompt(scenario("approval").prompts[0]);
      const before = await readUntil(s, (e) => e.type === "request.opened");
      const opened = before.at(-1)!;
      const cancelled = s.cancel();
      const after = await readUntil(s, isEnd(turnId));
      await cancelled;
      const settled = after.find((e) => e.type === "request.resolved" && e.requestId === opened.requestId);
      expect(settled && P(settled).decision, "the request is settled").toMatch(/^(cancelled|reject_once)$/);
      expect(["interrupted", "cancelled"]).toContain(P(after.at(-1)!).state ?? "aborted");
      expect(s.pending()).toEqual([]);
      await expect(s.answer(opened, { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
      expect(existsSync(join(r.sandbox.work, "notes.txt")), "the pending command never ran").toBe(false);
      await done();
    });

    it("interrupt mid-command: cancel() while the command runs ends the turn as interrupted", async () => {
      const sc = scenario("interrupt");
      r = await rig(agent, { ...sc, approvals: undefined });
      s = await connect(r.options);
      const { turnId } = await s.prompt(sc.prompts[0]);
      await readUntil(s, (e) => (e.type === "item.started" || e.type === "item.updated") && P(e).itemType === "command_execution" && JSON.stringify(P(e)).includes("sleep 30"));
      const t0 = performance.now();
      const cancelled = s.cancel();
      const after = await readUntil(s, isEnd(turnId));
      await cancelled;
      figures[`${agent}.cancelToEndMs`] = Math.round(performance.now() - t0);
      const end = after.at(-1)!;
      expect(end.type === "turn.aborted" || P(end).state === "interrupted").toBe(true);
      // the next prompt works on the same session
      const next = await s.prompt("Say done.");
      await readUntil(s, isEnd(next.turnId));
      await done();
    });

    it("kill -9 of the agent: reported as an exit by signal; the next prompt() restarts it and resumes the session", async () => {
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
      const events = await readUntil(s, isEnd(second.turnId));
      expect(P(events.at(-1)!).state).toBe("completed");
      // the scripted model answers turn 2 only when the request carries turn 1: the session was resumed
      expect(text(events)).toContain("You asked me to remember 42.");
      await done();
    });

    if (agent === "opencode") it("a dropped event stream: reconnected and reconciled — the render equals the stored history's, no text lost or doubled", async () => {
      const long = Array.from({ length: 60 }, (_, i) => `Part ${i} of the answer.`).join(" ");
      const sc = { ...scenario("plain"), turns: [{ reasoning: "Think first.", text: long }] };
      r = await rig(agent, sc, { ids: counterIds() });
      s = await connect(r.options);
      const { turnId } = await s.prompt(sc.prompts[0]);
      const live = await readUntil(s, (e) => e.type === "content.delta" && P(e).streamKind === "assistant_text");
      (s as any).driver.dropEvents();
      await readUntil(s, isEnd(turnId), live);
      const warned = live.filter((e) => e.type === "runtime.warning").map((e) => P(e).message);
      expect(warned.some((m) => /dropped|reconnect/.test(m)), "the drop is reported").toBe(true);
      const history = await s.load();
      const omit = ["usage", "permission", "question", "status", "mode", "diff", "plan"];
      expect(render(history, omit)).toEqual(render(live.filter((e) => e.type !== "runtime.warning"), omit));
      const answers = live.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
      expect(answers.length).toBe(1);
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
      // a new process, told to resume: the model is asked with turn 1 in the history
      s = await connect({ ...r.options, resume: stored });
      expect(s.providerSessionId).toBe(stored);
      const t2 = await s.prompt(sc.prompts[1]);
      const events = await readUntil(s, isEnd(t2.turnId));
      expect(text(events)).toContain("You asked me to remember 42.");
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

    it("a consumer that stops reading: the queue stays bounded, the agent waits, nothing is lost", async () => {
      const long = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} of a long answer.`).join(" ");
      const sc = { ...scenario("plain"), turns: [{ text: long }] };
      r = await rig(agent, sc, { highWater: 20 });
      s = await connect(r.options);
      const { turnId } = await s.prompt(sc.prompts[0]);
      const q = (s as any).events;
      // nobody reads: wait until the queue asked the agent to pause (an event-driven condition, checked as events queue)
      await q.reachesHigh();
      // the agent finishes streaming into the model connection while we do not read; then read everything
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
