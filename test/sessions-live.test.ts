/**
 * A stored session and the live session that resumes it are one canonical session: openSession (agentnorm/sessions)
 * and connect({ resume }) (agentnorm/live) give the same session and thread ids, and with `sequenceAfter` the live
 * events continue the history's sequence, so one accumulator shows the history and the new turns as one session.
 * The live side is the stand-in Claude Code CLI (test/support/fake-claude.mjs); the history a recorded store.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connect } from "../src/live/index.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { storedSessionId, storedSessionIds } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { listSessions, openSession } from "../src/sessions/index.js";
import { P, readUntil } from "./support/live-events.js";

const FAKE = join(import.meta.dirname, "support", "fake-claude.mjs");
const F = join(import.meta.dirname, "..", "fixtures", "sessions");
const ENV = { HOME: "/nonexistent-home", CLAUDE_CONFIG_DIR: `${F}/claude/home/.claude` };

describe.skipIf(process.platform === "win32")("a stored session, then the live session resuming it", () => {
  it("the same canonical session and thread; the live events continue the history's sequence in one accumulator", async () => {
    const [stored] = await listSessions({ env: ENV, agents: ["claude"], cwd: "/sandbox/alpha" });
    const history: CanonicalEvent[] = [];
    for await (const e of openSession(stored!, { env: ENV })) history.push(e);
    const acc = createAccumulator();
    acc.applyAll(history);
    const last = history.at(-1)!.sequence;
    const s = await connect({
      agent: stored!.liveAgent, bin: FAKE, cwd: tmpdir(), env: { FAKE_MODE: "" },
      resume: stored!.providerSessionId, sequenceAfter: last,
      timeouts: { startMs: 20_000, requestMs: 5_000, interruptGraceMs: 300, closeGraceMs: 500 },
    });
    try {
      expect(s.sessionId).toBe(stored!.sessionId);
      const { turnId } = await s.prompt("And now?");
      const live = await readUntil(s, (e) => e.type === "turn.completed" && e.turnId === turnId);
      expect(new Set(live.map((e) => e.sessionId))).toEqual(new Set([stored!.sessionId]));
      expect(live[0]!.sequence).toBe(last + 1);
      const historyThread = history.find((e) => e.threadId)!.threadId;
      expect(live.filter((e) => e.threadId).every((e) => e.threadId === historyThread)).toBe(true);
      acc.applyAll(live);
      const snap = acc.snapshot();
      expect(snap.problems).toEqual([]);
      expect(snap.sessions).toHaveLength(1);
      expect(snap.sessions[0]!.turns.map((t) => t.state)).toEqual(["completed", "completed", "completed"]);
      expect(P(live.at(-1)!).state).toBe("completed");
    } finally {
      await s.close();
    }
  });

  it("storedSessionIds: the stored session's id and first thread id, everything else fresh", () => {
    const ids = storedSessionIds("claude", "abc");
    const n = createNormalizer({ surface: "claude-transcript", ids });
    expect(n.sessionId).toBe(storedSessionId("claude", "abc"));
    expect(storedSessionId("claude", "abc")).toMatch(/^ses_[0-9a-f]{16}$/);
    expect(storedSessionId("claude", "abc")).not.toBe(storedSessionId("codex", "abc"));
    expect(ids("ThreadId")).toBe(storedSessionId("claude", "abc").slice(4));
    expect(ids("ThreadId")).not.toBe(ids("ThreadId"));
    expect(() => createNormalizer({ surface: "claude-transcript", sequenceAfter: -1 })).toThrow(/sequenceAfter must be an integer ≥ 0/);
  });
});
