/**
 * `agentnorm bridge` (dist/pkg/cli.js, as a host runs it) against the real Codex app-server and opencode serve:
 * the protocol (ready, ack with the turn id, answers by canonical requestId, a bad command answered with an error
 * naming the field while the session goes on, load), and its exits — stdin EOF, the parent's death, and kill -9 of
 * the bridge itself — each leaving no process behind. Waits are on lines and process states, never sleeps.
 */
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { groupMembers, installed, IN_NETNS, rig, scenario, type Rig } from "./rig.ts";

const CLI = join(process.cwd(), "dist/pkg/cli.js");
type Line = { kind: "chat" | "bridge"; o: any };

class BridgeProc {
  readonly proc: ChildProcess;
  readonly lines: Line[] = [];
  readonly junk: string[] = [];
  private waiters: { pred: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];
  readonly exited: Promise<number | null>;
  constructor(r: Rig, extra: string[] = [], opts: { detached?: boolean } = {}) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...r.options.env })) if (v !== undefined) env[k] = v;
    env.PATH = `${process.env.PATH}`;
    this.proc = spawn(process.execPath, [CLI, "bridge", "--agent", r.options.agent as string, "--cwd", r.options.cwd!, "--bin", r.options.bin!, ...extra], { env, stdio: ["pipe", "pipe", "pipe"], detached: opts.detached });
    let buf = "";
    this.proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = /^\[(CHAT_EVENT|BRIDGE)\] (.*)$/.exec(text);
        if (!m) { this.junk.push(text); continue; }
        const line: Line = { kind: m[1] === "BRIDGE" ? "bridge" : "chat", o: JSON.parse(m[2]) };
        this.lines.push(line);
        for (const w of [...this.waiters]) if (w.pred(line)) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(line); }
      }
    });
    this.proc.stderr!.resume();
    this.exited = new Promise((r) => this.proc.on("exit", (code) => r(code)));
  }
  send(o: unknown): void { this.proc.stdin!.write(JSON.stringify(o) + "\n"); }
  sendRaw(s: string): void { this.proc.stdin!.write(s + "\n"); }
  /** The first line (already seen or coming) matching `pred`. */
  wait(pred: (l: Line) => boolean): Promise<Line> {
    const seen = this.lines.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  control(type: string, id?: string) { return this.wait((l) => l.kind === "bridge" && l.o.type === type && (id === undefined || l.o.id === id)); }
  reply(id: string) { return this.wait((l) => l.kind === "bridge" && (l.o.type === "ack" || l.o.type === "error") && l.o.id === id); }
}

/** Resolves when no process of group `pgid` is left (polls /proc: the group dies asynchronously after its owner). */
async function groupGone(pgid: number): Promise<void> {
  for (let wait = 10; groupMembers(pgid).length; wait = Math.min(wait * 2, 200)) await new Promise((r) => setTimeout(r, wait));
}
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

for (const agent of ["codex", "opencode"] as const) {
  const skip = !IN_NETNS ? "not inside the test:live network namespace (run npm run test:live)" : !existsSync(CLI) ? "dist/pkg/cli.js is not built (npm run build)" : installed(agent).error;
  if (skip) console.warn(`[live] bridge ${agent}: skipped — ${skip}`);
  (skip ? describe.skip : describe)(`agentnorm bridge --agent ${agent}`, () => {
    let r: Rig | undefined;
    let b: BridgeProc | undefined;
    afterEach(async () => {
      if (b && b.proc.exitCode === null && b.proc.signalCode === null) { b.proc.kill("SIGKILL"); await b.exited; }
      await r?.dispose();
      r = b = undefined;
    });

    it("ready → prompt (ack with turnId) → permission answered by requestId → turn completed; a bad command gets an error naming its field; load; close", async () => {
      r = await rig(agent, scenario("approval"));
      const capture = join(r.sandbox.root, "capture.ndjson");
      b = new BridgeProc(r, ["--capture", capture]);
      const ready = (await b.control("ready")).o;
      expect(ready).toMatchObject({ protocol: 1, agent });
      expect(typeof ready.pid).toBe("number");
      b.send({ id: "bad", cmd: "answer", requestId: "req_nope", decision: "maybe" });
      expect((await b.reply("bad")).o).toMatchObject({ type: "error", field: "decision" });
      b.sendRaw("this is not json");
      await b.wait((l) => l.kind === "bridge" && l.o.type === "error" && l.o.field === "(line)");
      b.send({ id: "1", cmd: "prompt", text: scenario("approval").prompts[0] });
      const ack = (await b.reply("1")).o;
      expect(ack.type).toBe("ack");
      expect(ack.turnId).toMatch(/^trn_/);
      const decisions = ["allow_once", "reject_once"];
      for (let i = 0; i < 2; i++) {
        const perm = (await b.wait((l) => l.kind === "chat" && l.o.kind === "permission" && l.o.phase === "started" && !b!.lines.some((x) => x.o.id === `a${l.o.permission.requestId}`))).o;
        const id = `a${perm.permission.requestId}`;
        b.send({ id: `p${i}`, cmd: "pending" });
        expect((await b.reply(`p${i}`)).o.requests.map((x: any) => x.requestId)).toContain(perm.permission.requestId);
        b.send({ id, cmd: "answer", requestId: perm.permission.requestId, decision: decisions[i] });
        expect((await b.reply(id)).o.type).toBe("ack");
      }
      const end = (await b.wait((l) => l.kind === "chat" && l.o.kind === "status" && l.o.status?.scope === "turn" && l.o.turnId === ack.turnId && l.o.phase !== "started")).o;
      expect(end.status.state).toBe("completed");
      b.send({ id: "p", cmd: "ping" });
      expect((await b.reply("p")).o).toMatchObject({ type: "ack", pong: true });
      b.send({ id: "l", cmd: "load" });
      const loaded = (await b.reply("l")).o;
      expect(loaded.type).toBe("ack");
      expect(loaded.records).toBeGreaterThan(0);
      b.send({ id: "c", cmd: "close" });
      const exit = (await b.control("exit")).o;
      expect(exit).toMatchObject({ code: 0 });
      expect(await b.exited).toBe(0);
      expect(b.lines.at(-1)!.o, "exit is the last line").toMatchObject({ type: "exit" });
      expect(b.lines.some((l) => l.o.type === "ack" && l.o.id === "c"), "close is acknowledged (before exit)").toBe(true);
      expect(b.junk, "stdout holds only marker lines").toEqual([]);
      expect(groupMembers(ready.pid)).toEqual([]);
      // --capture: the native messages both ways and the canonical events
      const records = readFileSync(capture, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(records.some((x) => x.stage === "native_in" && x.direction === "out")).toBe(true);
      expect(records.some((x) => x.stage === "native_in" && x.direction === "in")).toBe(true);
      expect(records.filter((x) => x.stage === "normalized_out" && x.eventType === "request.resolved").length).toBe(2);
    });

    it("stdin EOF: the bridge closes the session, says exit, and leaves no process", async () => {
      r = await rig(agent, scenario("plain"));
      b = new BridgeProc(r);
      const { pid } = (await b.control("ready")).o;
      b.proc.stdin!.end();
      expect((await b.control("exit")).o.code).toBe(0);
      expect(await b.exited).toBe(0);
      await groupGone(pid);
      expect(alive(pid)).toBe(false);
    });

    it("kill -9 of the bridge: the agent's process group dies with it", async () => {
      r = await rig(agent, scenario("plain"));
      b = new BridgeProc(r, [], { detached: true });
      const { pid } = (await b.control("ready")).o;
      const before = { bridge: groupMembers(b.proc.pid!).length, agent: groupMembers(pid).length };
      process.kill(b.proc.pid!, "SIGKILL");
      await b.exited;
      await groupGone(pid);
      await groupGone(b.proc.pid!);
      expect(groupMembers(pid)).toEqual([]);
      expect(groupMembers(b.proc.pid!)).toEqual([]);
      console.log(`[live] bridge ${agent} kill -9: processes before — bridge group ${before.bridge}, agent group ${before.agent}; after — 0, 0`);
    });

    it("the parent's death: the bridge exits and stops the agent", async () => {
      r = await rig(agent, scenario("plain"));
      const parent = spawn("sleep", ["600"], { stdio: "ignore" });
      b = new BridgeProc(r, ["--parent-pid", String(parent.pid)]);
      const { pid } = (await b.control("ready")).o;
      parent.kill("SIGKILL");
      const exit = (await b.control("exit")).o;
      expect(exit.reason).toMatch(/parent process/);
      expect(await b.exited).toBe(0);
      await groupGone(pid);
      expect(alive(pid)).toBe(false);
    });
  });
}
