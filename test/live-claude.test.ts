/**
 * The Claude Code driver's own paths that the real CLI rarely takes, against a stand-in CLI
 * (test/support/fake-claude.mjs): a control request no table opens (answered with an error response, a warning), an
 * interrupt with no `result` after it and one answered with an error (the session's grace ends the turn), an
 * initialize refused (START_FAILED), the command line; and the transcript's conversation order. (The real CLI:
 * test/live/claude.test.ts under npm run test:live.) Waits are on events, never sleeps.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type LiveSession } from "../src/live/index.js";
import { conversationOrder } from "../src/live/drivers/claude.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";
import { P, readUntil } from "./support/live-events.js";

const FAKE = join(import.meta.dirname, "support", "fake-claude.mjs");
const posix = process.platform !== "win32";

function fake(mode: string, extra: { env?: Record<string, string>; model?: string; permissionMode?: string; resume?: string } = {}): Promise<LiveSession> {
  return connect({
    ...extra,
    agent: "claude", bin: FAKE, cwd: tmpdir(),
    env: { FAKE_MODE: mode, ...extra.env },
    timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
  });
}
const until = readUntil;
const end = (turnId: string) => (e: CanonicalEvent) => (e.type === "turn.completed" || e.type === "turn.aborted") && e.turnId === turnId;

describe.skipIf(!posix)("live claude driver (a stand-in CLI)", () => {
  it("the command line: stream-json both ways, stdio permission prompts, partial messages, our session id, model and mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-fake-claude-"));
    const file = join(dir, "args.json");
    const s = await fake("", { env: { FAKE_ARGS_FILE: file }, model: "claude-sonnet-4-6", permissionMode: "acceptEdits" });
    const args = JSON.parse(readFileSync(file, "utf8")) as string[];
    expect(args.slice(0, 8)).toEqual(["--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--permission-prompt-tool", "stdio", "--include-partial-messages"]);
    expect(args.slice(8)).toEqual(["--model", "claude-sonnet-4-6", "--permission-mode", "acceptEdits", "--session-id", s.providerSessionId]);
    // the turn opens on our own user line; the CLI's result ends it
    const { turnId } = await s.prompt("hi");
    const events = await until(s, end(turnId));
    expect(P(events.at(-1)!).state).toBe("completed");
    await s.close();
    // resume: --resume <id> instead of --session-id, and the id is kept
    const r = await fake("", { env: { FAKE_ARGS_FILE: file }, resume: "11111111-2222-4333-8444-555555555555" });
    expect(JSON.parse(readFileSync(file, "utf8")).slice(-2)).toEqual(["--resume", "11111111-2222-4333-8444-555555555555"]);
    expect(r.providerSessionId).toBe("11111111-2222-4333-8444-555555555555");
    await r.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a control request no table opens (hook_callback) is answered with an error response, with a warning", async () => {
    const s = await fake("unknown-request");
    const { turnId } = await s.prompt("hi");
    const events = await until(s, end(turnId));
    const warned = events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message);
    // our error response, reported (by the table) once; then the CLI says it saw it (a system line of the stand-in)
    const refusal = 'the agent asked "hook_callback", which agentnorm does not answer: refused';
    expect(warned).toEqual([refusal, `fake: answer error ${refusal}`]);
    expect(P(events.at(-1)!).state).toBe("completed");
    await s.close();
  });

  it("cancel(): an interrupt the CLI answers but follows with no result — ended here as interrupted after the grace", async () => {
    const s = await fake("silent-interrupt");
    const { turnId } = await s.prompt("hi");
    await until(s, (e) => e.type === "thread.started");
    await s.cancel();
    const events = await until(s, end(turnId));
    expect(P(events.at(-1)!).state).toBe("interrupted");
    expect(events.some((e) => e.type === "runtime.warning" && /no end of the turn/.test(P(e).message))).toBe(true);
    await s.close();
  });

  it("cancel(): a result that comes after the grace period does not end the turn twice; the next prompt is a turn of its own", async () => {
    const s = await fake("late-result");
    const first = await s.prompt("hi");
    await until(s, (e) => e.type === "thread.started");
    await s.cancel();
    const ended = await until(s, end(first.turnId));
    expect(P(ended.at(-1)!).state).toBe("interrupted");
    const second = await s.prompt("again");
    expect(second.turnId).not.toBe(first.turnId);
    const events = await until(s, end(second.turnId));
    expect(events.filter((e) => (e.type === "turn.completed" || e.type === "turn.aborted") && e.turnId === first.turnId), "turn 1 ends once").toEqual([]);
    expect(P(events.at(-1)!).state).toBe("completed");
    expect(events.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("")).toContain("Hello again.");
    await s.close();
  });

  it("cancel(): an interrupt answered with an error response — reported, and the turn still ends", async () => {
    const s = await fake("refuse-interrupt");
    const { turnId } = await s.prompt("hi");
    await until(s, (e) => e.type === "thread.started");
    await s.cancel();
    const events = await until(s, end(turnId));
    const warned = events.filter((e) => e.type === "runtime.warning").map((e) => P(e).message);
    // the CLI's error response (the table's warning), the failed call (the session's), the synthesized end
    expect(warned[0]).toBe("nothing to interrupt");
    expect(warned[1]).toMatch(/the interrupt failed: interrupt: the agent answered with an error: nothing to interrupt/);
    expect(warned[2]).toMatch(/no end of the turn/);
    expect(P(events.at(-1)!).state).toBe("interrupted");
    await s.close();
  });

  it("an initialize answered with an error: connect() rejects with START_FAILED, naming the error", async () => {
    await expect(fake("no-init")).rejects.toMatchObject({ code: "start_failed", message: expect.stringContaining("not today") });
  });
});

describe("claude transcript order", () => {
  it("lines in conversation order (the parentUuid chain), whatever their order in the file; lines without a uuid by time", () => {
    const t = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const lines = [
      { type: "assistant", uuid: "c", parentUuid: "b", timestamp: t(3) },
      { type: "queue-operation", timestamp: t(0) },
      { type: "user", uuid: "b", parentUuid: "a", timestamp: t(2) },
      { type: "user", uuid: "a", parentUuid: null, timestamp: t(1) },
      { type: "assistant", uuid: "d", parentUuid: "c", timestamp: t(4) },
      { type: "last-prompt", timestamp: t(9) },
    ];
    expect(conversationOrder(lines).map((l) => l.uuid ?? l.type)).toEqual(["queue-operation", "a", "b", "c", "d", "last-prompt"]);
  });
});
