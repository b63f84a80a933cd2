/**
 * Sessions an agent keeps on its own side (listAgentSessions, openSession of one): ACP session/list and session/load,
 * each in a process of its own, against the stand-in ACP agent (test/support/fake-acp-agent.mjs, FAKE_MODE=list), run
 * as the qwen-acp preset (its bin the stand-in's script). The stand-in is copied to a folder of this test's own, so
 * the processes still running from its path after each call can be counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listAgentSessions, openSession, storedSessionId } from "../src/sessions/index.js";
import { connect, LiveError } from "../src/live/index.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";

// the projects' folders (the agent runs in one): made before the sessions name them
const dir = mkdtempSync(join(tmpdir(), "agentnorm-agent-sessions-"));
const ALPHA = join(dir, "alpha"), BETA = join(dir, "beta");
let bin: string;
const SESSIONS = [
  { sessionId: "a1", cwd: ALPHA, title: "Fix the build\nand more", updatedAt: "2026-12-01T10:00:00Z" },
  { sessionId: "a2", cwd: ALPHA, title: "Add tests", updatedAt: "2026-12-03T10:00:00Z" },
  { cwd: ALPHA, title: "no id" },
  { sessionId: "a3", cwd: ALPHA, updatedAt: "2026-12-02T10:00:00Z" },
  { sessionId: "b1", cwd: BETA, title: "Other project", updatedAt: "2026-12-04T10:00:00Z" },
];
const env = (mode: string) => ({ FAKE_MODE: mode, FAKE_SESSIONS: JSON.stringify(SESSIONS) });

/** Processes running the stand-in from this test's folder. */
function running(): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try { if (readFileSync(`/proc/${d}/cmdline`, "utf8").includes(dir)) out.push(Number(d)); } catch { /* gone */ }
  }
  return out;
}

beforeAll(() => {
  mkdirSync(ALPHA);
  mkdirSync(BETA);
  bin = join(dir, "fake-acp-agent.mjs");
  copyFileSync(join(import.meta.dirname, "support", "fake-acp-agent.mjs"), bin);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("listAgentSessions: the agent's own list (ACP session/list)", () => {
  it("lists the cwd's sessions over every page, newest first, with the ids connect({ resume }) gives them; an entry without an id is left out, said", async () => {
    const notes: string[] = [];
    const list = await listAgentSessions({ agent: "qwen-acp", bin, cwd: ALPHA, env: env("list"), onStderr: (l) => notes.push(l) });
    expect(list.map((s) => s.providerSessionId)).toEqual(["a2", "a3", "a1"]);
    expect(list[0]).toMatchObject({ agent: "qwen-acp", liveAgent: "qwen-acp", surface: "acp", origin: "agent", path: "agent:qwen-acp", cwd: ALPHA, title: "Add tests", lastActivityAt: "2026-12-03T10:00:00.000Z", sessionId: storedSessionId("qwen-acp", "a2") });
    expect(list[2]!.title).toBe("Fix the build");
    expect(list[1]!.title).toBeUndefined();
    expect(notes.some((l) => /without an id/.test(l))).toBe(true);
    expect(running()).toEqual([]);
  });

  it("all: every directory's; limit: the newest n", async () => {
    const all = await listAgentSessions({ agent: "qwen-acp", bin, all: true, env: env("list") });
    expect(all.map((s) => s.providerSessionId)).toEqual(["b1", "a2", "a3", "a1"]);
    const one = await listAgentSessions({ agent: "qwen-acp", bin, all: true, limit: 1, env: env("list") });
    expect(one.map((s) => s.providerSessionId)).toEqual(["b1"]);
  });

  it("an agent that names a next page forever: the list stops at 100 pages and says so", async () => {
    const notes: string[] = [];
    const list = await listAgentSessions({ agent: "qwen-acp", bin, cwd: BETA, env: env("list-forever"), onStderr: (l) => notes.push(l) });
    expect(list.length).toBe(1); // the later pages are empty
    expect(notes.some((l) => /more than 100 pages/.test(l))).toBe(true);
    expect(running()).toEqual([]);
  });

  it("an agent whose initialize offers no list: UNSUPPORTED, and no process left", async () => {
    const err = await listAgentSessions({ agent: "qwen-acp", bin, env: env("") }).catch((e) => e);
    expect(err).toBeInstanceOf(LiveError);
    expect(err.code).toBe("unsupported");
    expect(err.message).toMatch(/sessionCapabilities\.list/);
    expect(running()).toEqual([]);
  });

  it("a live agent without a list of its own (its sessions are on disk): UNSUPPORTED, nothing started", async () => {
    const err = await listAgentSessions({ agent: "codex", bin: process.execPath }).catch((e) => e);
    expect(err).toBeInstanceOf(LiveError);
    expect(err.code).toBe("unsupported");
  });
});

describe("openSession of an agent-kept session: read through the agent (session/load), no session opened", () => {
  it("its replay, with the listed canonical id — the id a resumed connection continues", async () => {
    const [s] = await listAgentSessions({ agent: "qwen-acp", bin, cwd: ALPHA, env: env("list") });
    const events: CanonicalEvent[] = [];
    for await (const e of openSession(s!, { connect: { bin, env: env("list") } })) events.push(e);
    expect(events.every((e) => e.sessionId === s!.sessionId)).toBe(true);
    // the stand-in's stored turn: the prompt, and the answer's text
    expect(events.find((e) => e.type === "item.completed" && (e.payload as { itemType?: string }).itemType === "user_message")?.payload).toMatchObject({ title: "Remember 42." });
    expect(events.filter((e) => e.type === "content.delta").map((e) => (e.payload as { delta?: string }).delta)).toEqual(["Noted: 42."]);
    expect(events.find((e) => e.type === "session.started")?.payload).toMatchObject({ resume: { sessionId: s!.providerSessionId, method: "session/load" } });
    expect(running()).toEqual([]);
    // connect({ resume }) continues the same canonical session
    const live = await connect({ agent: "qwen-acp", bin, cwd: ALPHA, env: env("list"), resume: s!.providerSessionId });
    try {
      expect(live.sessionId).toBe(s!.sessionId);
      const loaded = await live.load();
      expect(loaded.every((e) => e.sessionId === s!.sessionId)).toBe(true);
    } finally {
      await live.close();
    }
    expect(running()).toEqual([]);
  });
});
