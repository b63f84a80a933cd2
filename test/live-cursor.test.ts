/**
 * The Cursor CLI driver (connect({ agent: "cursor" })) against a stand-in `cursor-agent` with the same process
 * interface (test/support/fake-cursor-agent.mjs): the real binary is not on npm and needs Cursor's servers. The
 * stand-in prints the documented stream-json lines, or replays one of our Cursor CLI dev recordings when present.
 * One process per turn, the chat carried by --resume; cancel stops the turn's process; a turn that dies without its
 * result is a crash; no history, no requests. Waits are on events and process states, never sleeps.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type LiveSession } from "../src/live/index.js";
import { groupMembers } from "../src/live/process.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { P, readUntil, streamed } from "./support/live-events.js";

const ROOT = join(import.meta.dirname, "..");
const FAKE = join(import.meta.dirname, "support", "fake-cursor-agent.mjs");
const DEV = join(ROOT, "..", "shared", "recordings", "dev", "cursor", "cursorhack-direct-sleep.jsonl");
const posix = process.platform !== "win32";

const until = readUntil;
const endOf = (turnId: string) => (e: CanonicalEvent) => (e.type === "turn.completed" || e.type === "turn.aborted") && e.turnId === turnId;
const text = streamed;

describe.skipIf(!posix)("live cursor (stand-in cursor-agent)", () => {
  const dirs: string[] = [];
  const state = () => {
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-cursor-"));
    dirs.push(dir);
    return join(dir, "state.json");
  };
  afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
  const open = (env: Record<string, string> = {}, extra: object = {}) => connect({ agent: "cursor", bin: FAKE, cwd: tmpdir(), env: { FAKE_CURSOR_STATE: state(), ...env }, timeouts: { interruptGraceMs: 300, requestMs: 5000 }, ...extra });

  it("a turn per process, the chat carried by --resume: text once (partial output and recap), the tool's output, a second turn on the same chat", async () => {
    const s = await open();
    expect(s.providerSessionId).toMatch(/^[0-9a-f-]{36}$/);
    const t1 = await s.prompt("Run echo hello");
    const e1 = await until(s, endOf(t1.turnId));
    expect(P(e1.at(-1)!).state).toBe("completed");
    expect(text(e1)).toBe("I'll run the command.The command printed hello.");
    const tool = e1.find((e) => e.type === "item.completed" && P(e).itemType === "command_execution");
    expect(tool && P(tool).status).toBe("completed");
    expect(e1.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output").map((e) => P(e).delta).join("")).toBe("hello\n");
    const t2 = await s.prompt("And now?");
    expect(t2.turnId).not.toBe(t1.turnId);
    const e2 = await until(s, endOf(t2.turnId));
    expect(text(e2)).toBe("This is turn 2.Nothing else to do.");
    expect(e2.filter((e) => e.type === "thread.started")).toEqual([]);
    await s.close();
  });

  it("cancel(): the turn's process is stopped and the turn ended as interrupted, with a warning; the next turn works", async () => {
    const s = await open({ FAKE_CURSOR_MODE: "hang" });
    const { turnId } = await s.prompt("Sleep");
    await until(s, (e) => e.type === "item.started" && P(e).itemType === "command_execution");
    const pid = s.pid!;
    await s.cancel();
    const rest = await until(s, endOf(turnId));
    expect(rest.some((e) => e.type === "runtime.warning" && /no end of the turn/.test(P(e).message))).toBe(true);
    expect(P(rest.at(-1)!).state).toBe("interrupted");
    for (let wait = 10; (groupMembers(pid) ?? []).length; wait *= 2) await new Promise((r) => setTimeout(r, wait));
    expect(groupMembers(pid) ?? []).toEqual([]);
    await s.close();
  });

  it("a turn that dies without its result is a crash; restart on-demand goes on with the same chat", async () => {
    const s = await open({ FAKE_CURSOR_MODE: "crash-first" }, { restart: "on-demand" });
    const chat = s.providerSessionId;
    await s.prompt("Run it");
    const crash = await until(s, (e) => e.type === "session.exited");
    expect(crash.find((e) => e.type === "runtime.error")).toMatchObject({ payload: { detail: { code: 1, signal: null } } });
    expect(P(crash.at(-1)!)).toMatchObject({ recoverable: true });
    expect(crash.find((e) => e.type === "turn.completed")).toMatchObject({ payload: { state: "failed" } });
    // the command the crash cut off ends with its turn (failed), before the turn's end
    const cut = crash.findIndex((e) => e.type === "item.completed" && P(e).itemType === "command_execution");
    expect(cut).toBeGreaterThan(-1);
    expect(P(crash[cut]).status).toBe("failed");
    expect(cut).toBeLessThan(crash.findIndex((e) => e.type === "turn.completed"));
    const t2 = await s.prompt("Again");
    expect(s.providerSessionId).toBe(chat);
    const e2 = await until(s, endOf(t2.turnId));
    expect(text(e2)).toBe("This is turn 2.Nothing else to do.");
    await s.close();
  });

  it("no history and no requests: load() and answer() say so", async () => {
    const s = await open();
    await expect(s.load()).rejects.toThrow(/no way to read a chat's history/);
    await expect(s.answer("req_x", { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
    await s.close();
  });

  it.skipIf(!existsSync(DEV))("replays a real Cursor CLI recording through the driver: the same canonical events as the file read directly", async () => {
    const s = await open({ FAKE_CURSOR_REPLAY: DEV });
    const prompt = JSON.parse(readFileSync(DEV, "utf8").split("\n").find((l) => l.includes('"type":"user"'))!).message.content[0].text;
    const { turnId } = await s.prompt(prompt);
    const live = await until(s, endOf(turnId));
    await s.close();
    const n = createNormalizer({ surface: "cursor-cli" });
    const direct = readFileSync(DEV, "utf8").split("\n").flatMap((l) => n.pushLine(l));
    const shape = (es: CanonicalEvent[]) => es.map((e) => `${e.type}:${P(e)?.itemType ?? ""}:${P(e)?.streamKind ?? ""}:${P(e)?.delta ?? ""}:${P(e)?.state ?? ""}`);
    expect(shape(live)).toEqual(shape(direct));
  });
  if (!existsSync(DEV)) console.warn(`[live cursor] the dev recording ${DEV} is absent: its replay test is skipped`);

  it("agentnorm bridge --agent cursor: ready, model and mode commands (mode: unsupported), a prompt's chat events, close", async () => {
    const cli = join(ROOT, "dist", "pkg", "cli.js");
    expect(existsSync(cli), "npm run build first").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-cursor-bridge-"));
    try {
      const b = spawn(process.execPath, [cli, "bridge", "--agent", "cursor", "--bin", FAKE, "--cwd", dir], { env: { ...process.env, FAKE_CURSOR_STATE: join(dir, "s.json") }, stdio: ["pipe", "pipe", "inherit"] });
      const lines: any[] = [];
      let buf = "";
      const seen = new Promise<void>((resolve) => b.stdout!.setEncoding("utf8").on("data", (d: string) => {
        buf += d;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const l = buf.slice(0, i); buf = buf.slice(i + 1);
          const m = /^\[(CHAT_EVENT|BRIDGE)\] (.*)$/.exec(l);
          lines.push(m ? { kind: m[1], o: JSON.parse(m[2]) } : { kind: "junk", o: l });
          const last = lines.at(-1)!;
          if (last.kind === "BRIDGE" && last.o.type === "ready") {
            b.stdin!.write(JSON.stringify({ id: "m1", cmd: "model", model: "gpt-5" }) + "\n");
            b.stdin!.write(JSON.stringify({ id: "m2", cmd: "mode", mode: "plan" }) + "\n");
            b.stdin!.write(JSON.stringify({ id: "m3", cmd: "model" }) + "\n");
            b.stdin!.write(JSON.stringify({ id: "1", cmd: "prompt", text: "hi" }) + "\n");
          }
          if (last.kind === "CHAT_EVENT" && last.o.kind === "status" && last.o.status?.scope === "turn" && last.o.phase !== "started") b.stdin!.write(JSON.stringify({ id: "2", cmd: "close" }) + "\n");
          if (last.kind === "BRIDGE" && last.o.type === "exit") resolve();
        }
      }));
      await seen;
      expect(await new Promise((r) => b.on("exit", r))).toBe(0);
      expect(lines.filter((l) => l.kind === "junk")).toEqual([]);
      expect(lines.some((l) => l.kind === "CHAT_EVENT" && l.o.kind === "text" && l.o.phase === "delta")).toBe(true);
      expect(lines.find((l) => l.kind === "BRIDGE" && l.o.type === "ack" && l.o.id === "1")?.o.turnId).toMatch(/^trn_/);
      const reply = (id: string) => lines.find((l) => l.kind === "BRIDGE" && (l.o.type === "ack" || l.o.type === "error") && l.o.id === id)?.o;
      expect(reply("m1")).toMatchObject({ type: "ack", cmd: "model" });
      expect(reply("m2")).toMatchObject({ type: "error", cmd: "mode", code: "unsupported" });
      expect(reply("m3")).toMatchObject({ type: "error", cmd: "model", field: "model" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
