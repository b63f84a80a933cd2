/**
 * agentnorm/sessions on real stores: fixtures/sessions/<agent>/home is each agent's own on-disk history after a
 * recording (two projects, sanitized with the live recording beside it; fixtures/sessions/README.md). Listing (every
 * session, per project, newest first, the store's own locations and environment overrides), opening (the canonical ids,
 * conversation order, subagents), and parity: each stored session renders as its live recording — and Gemini CLI's
 * saved chat as its ACP session/load replay — with every difference named below and asserted.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock, storedSessionId } from "../src/normalize/ids.js";
import { createAccumulator, type AccumulatorSnapshot, type Block } from "../src/render/accumulator.js";
import { listSessions, openSession, type StoredSession } from "../src/sessions/index.js";
import { readTranscript } from "../src/live/drivers/claude.js";
import { defaultBlockFields, renderView } from "./support/render-view.js";
import { verifyEvents, formatFinding } from "../src/verify/verify.js";
import { detectInput } from "../src/cli/detect.js";

const ROOT = join(import.meta.dirname, "..");
const F = join(ROOT, "fixtures", "sessions");
const MANIFEST = JSON.parse(readFileSync(join(F, "manifest.json"), "utf8")) as { recordings: { agent: string; recorder: string; scenario: string; project: string; slot: number; live: string[]; store: string[] }[] };
/** Each agent's store where its own environment variable says. */
const ENV = { HOME: "/nonexistent-home", CODEX_HOME: `${F}/codex/home/.codex`, CLAUDE_CONFIG_DIR: `${F}/claude/home/.claude`, XDG_DATA_HOME: `${F}/opencode/home/.local/share`, GEMINI_CLI_HOME: `${F}/gemini/home` };
const tmp = mkdtempSync(join(tmpdir(), "agentnorm-sessions-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function collect(s: StoredSession | string, env: Record<string, string | undefined> = ENV): Promise<CanonicalEvent[]> {
  const out: CanonicalEvent[] = [];
  for await (const e of openSession(s, { env })) out.push(e);
  return out;
}
const snapshotOf = (events: CanonicalEvent[]): AccumulatorSnapshot => { const a = createAccumulator(); a.applyAll(events); return a.snapshot(); };
const lines = (f: string) => readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== "");
function normalizeFile(surface: string, file: string): CanonicalEvent[] {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  return [...lines(file).flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
}

describe("listSessions on the recorded stores", () => {
  it("lists every recorded session, newest first, with what each store says", async () => {
    const all = await listSessions({ env: ENV });
    expect(all.map((s) => [s.agent, s.cwd, s.title, s.turns])).toEqual([
      ["opencode", "/sandbox/gamma", "Recorded session", 1],
      ["gemini", "/sandbox/alpha", 'Change the greeting in hello.py to "Hello, agentnorm!".', undefined],
      ["gemini", "/sandbox/beta", "Count to three in the shell, slowly.", undefined],
      ["gemini", "/sandbox/alpha", "Remember the number 42.", undefined],
      ["opencode", "/sandbox/beta", "Recorded session", 1],
      ["opencode", "/sandbox/alpha", "Recorded session", 2],
      ["claude", "/sandbox/beta", "Ask an agent to list the files here.", undefined],
      ["claude", "/sandbox/alpha", "Remember the number 42.", undefined],
      ["codex", "/sandbox/beta", "Count to three in the shell, slowly.", undefined],
      ["codex", "/sandbox/alpha", "Remember the number 42.", undefined],
    ]);
    // one per recording (Gemini CLI's empty chat files, opened before any prompt, are not sessions)
    expect(all.length).toBe(MANIFEST.recordings.length);
    for (const s of all) {
      expect(s.problem).toBeUndefined();
      expect(s.sessionId).toBe(storedSessionId(s.agent, s.providerSessionId));
      expect(Date.parse(s.startedAt!)).toBeLessThanOrEqual(Date.parse(s.lastActivityAt!));
      expect(existsSync(s.path)).toBe(true);
    }
    const times = all.map((s) => Date.parse(s.lastActivityAt!));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Object.fromEntries(all.map((s) => [s.agent, [s.surface, s.liveAgent]]))).toEqual({
      codex: ["codex-rollout", "codex"], claude: ["claude-transcript", "claude"], opencode: ["opencode-history", "opencode"], gemini: ["gemini-chat", "gemini"],
    });
    expect(all.find((s) => s.agent === "codex")!.version).toBe("0.171.0");
    expect(all.find((s) => s.agent === "claude")!.version).toBe("2.1.333");
    expect(all.find((s) => s.agent === "opencode")!.version).toBe("1.18.33");
  });

  it("--cwd: exactly that project's sessions, across agents", async () => {
    const alpha = await listSessions({ env: ENV, cwd: "/sandbox/alpha" });
    const beta = await listSessions({ env: ENV, cwd: "/sandbox/beta/" });
    expect(alpha.map((s) => s.agent)).toEqual(["gemini", "gemini", "opencode", "claude", "codex"]);
    expect(beta.map((s) => s.agent)).toEqual(["gemini", "opencode", "claude", "codex"]);
    expect([...alpha, ...beta].every((s) => s.cwd === (alpha.includes(s) ? "/sandbox/alpha" : "/sandbox/beta"))).toBe(true);
    expect(await listSessions({ env: ENV, cwd: "/sandbox/delta" })).toEqual([]);
    // a subagent's child session (opencode's task tool: its session row names its parent) is not a session of its own
    expect((await listSessions({ env: ENV, cwd: "/sandbox/gamma" })).map((s) => [s.agent, s.providerSessionId])).toEqual([["opencode", "ses_010002"]]);
    // the Codex and Claude stores are pruned by what they know of the directory (index, folder name) before any head is read
    expect((await listSessions({ env: ENV, cwd: "/sandbox/alpha", agents: ["claude", "codex"] })).map((s) => s.agent)).toEqual(["claude", "codex"]);
  });

  it("agents, since and limit", async () => {
    expect((await listSessions({ env: ENV, agents: ["opencode"] })).map((s) => s.providerSessionId)).toEqual(["ses_010002", "ses_006002", "ses_005002"]);
    const since = await listSessions({ env: ENV, since: "2026-01-01T05:00:00Z" });
    expect(since.map((s) => s.agent)).toEqual(["opencode", "gemini", "gemini", "gemini", "opencode", "opencode"]);
    expect(await listSessions({ env: ENV, since: new Date("2026-01-01T05:00:00Z"), limit: 2 })).toEqual(since.slice(0, 2));
    await expect(listSessions({ env: ENV, agents: ["cursor" as never] })).rejects.toThrow(/unknown agent "cursor"; agents: codex, claude, opencode, gemini/);
    await expect(listSessions({ env: ENV, since: "yesterday" })).rejects.toThrow(/since must be a date/);
    await expect(listSessions({ env: ENV, limit: -1 })).rejects.toThrow(/limit must be an integer/);
  });

  it("without the overrides, each store is found under HOME where the agent keeps it by default", async () => {
    const home = join(tmp, "home");
    mkdirSync(join(home, ".local", "share"), { recursive: true });
    symlinkSync(`${F}/codex/home/.codex`, join(home, ".codex"));
    symlinkSync(`${F}/claude/home/.claude`, join(home, ".claude"));
    symlinkSync(`${F}/opencode/home/.local/share/opencode`, join(home, ".local", "share", "opencode"));
    symlinkSync(`${F}/gemini/home/.gemini`, join(home, ".gemini"));
    const byHome = await listSessions({ env: { HOME: home } });
    const byEnv = await listSessions({ env: ENV });
    expect(byHome.map((s) => [s.agent, s.providerSessionId, s.lastActivityAt])).toEqual(byEnv.map((s) => [s.agent, s.providerSessionId, s.lastActivityAt]));
    // an agent that stored nothing (no folder) is simply absent
    expect(await listSessions({ env: { HOME: join(tmp, "nobody") } })).toEqual([]);
  });

  it("Claude Code: a project folder cut at 200 characters and hashed (a long working directory) is still that project's", async () => {
    const long = "/sandbox/" + "deep/".repeat(50) + "project";
    const folder = long.replace(/[^A-Za-z0-9]/g, "-").slice(0, 200) + "-1x2y3z";
    const dir = join(tmp, "claude-long", "projects", folder);
    mkdirSync(dir, { recursive: true });
    const src = join(F, "claude/home/.claude/projects/-sandbox-alpha/00000000-0000-4000-8000-000000000bb9.jsonl");
    writeFileSync(join(dir, "00000000-0000-4000-8000-000000000bb9.jsonl"), readFileSync(src, "utf8").split("/sandbox/alpha").join(long));
    const env = { HOME: "/nonexistent", CLAUDE_CONFIG_DIR: join(tmp, "claude-long") };
    expect((await listSessions({ env, cwd: long })).map((s) => [s.cwd, s.title])).toEqual([[long, "Remember the number 42."]]);
    expect(await listSessions({ env, cwd: long + "2" })).toEqual([]);
  });

  it("a file that is not the agent's, a dangling link and a damaged database are listed with a problem, never thrown", async () => {
    const g = join(tmp, "gemini-broken");
    cpSync(`${F}/gemini/home`, g, { recursive: true });
    const chats = join(g, ".gemini", "tmp", "alpha", "chats");
    writeFileSync(join(chats, "session-2026-01-01T10-00-garbage0.jsonl"), "this is not a chat\n");
    symlinkSync(join(chats, "gone.jsonl"), join(chats, "session-2026-01-01T10-00-dangling.jsonl"));
    const listed = await listSessions({ env: { HOME: "/nonexistent", GEMINI_CLI_HOME: g } });
    const problems = listed.filter((s) => s.problem).map((s) => [s.path.split("/").pop(), s.problem]);
    expect(problems.sort((x, y) => String(x[0]).localeCompare(String(y[0])))).toEqual([
      ["session-2026-01-01T10-00-dangling.jsonl", "cannot read: ENOENT"],
      ["session-2026-01-01T10-00-garbage0.jsonl", "not a Gemini CLI session file (no session id in its first 32 KB)"],
    ]);
    expect(listed.filter((s) => !s.problem).length).toBe(3);
    const o = join(tmp, "opencode-broken", "opencode");
    mkdirSync(o, { recursive: true });
    writeFileSync(join(o, "opencode.db"), readFileSync(`${F}/opencode/home/.local/share/opencode/opencode.db`).subarray(0, 4096 + 100));
    const damaged = await listSessions({ env: { HOME: "/nonexistent", XDG_DATA_HOME: join(tmp, "opencode-broken") } });
    expect(damaged).toHaveLength(1);
    expect(damaged[0]).toMatchObject({ agent: "opencode", providerSessionId: "", path: join(o, "opencode.db") });
    expect(damaged[0]!.problem).toMatch(/^cannot read the store: .*opencode\.db: /);
    await expect(collect(damaged[0]!)).rejects.toThrow(/opencode\.db: cannot read the store/);
  });
});

describe("openSession on the recorded stores", () => {
  it("every listed session opens: the canonical ids of its stored session, a clean stream, every turn ended", async () => {
    for (const s of await listSessions({ env: ENV })) {
      const events = await collect(s);
      expect(events.length, s.path).toBeGreaterThan(0);
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([s.sessionId]));
      expect(events.find((e) => e.threadId)?.threadId).toBe(s.sessionId.replace(/^ses_/, "thr_"));
      expect(verifyEvents(events).violations.map(formatFinding), s.path).toEqual([]);
      expect(events.filter((e) => e.type === "runtime.warning" || e.type === "runtime.error").map((e) => (e.payload as any).message), s.path).toEqual([]);
      // the same session, opened twice, is the same canonical session (event ids are fresh)
      const again = await collect(s.providerSessionId);
      expect(again.map((e) => [e.type, e.sessionId])).toEqual(events.map((e) => [e.type, e.sessionId]));
    }
  });

  it("by id: `<agent>:<provider id>`, the provider id, the canonical id; a missing one is session_not_found", async () => {
    const [s] = await listSessions({ env: ENV, agents: ["claude"], limit: 1 });
    for (const ref of [`claude:${s!.providerSessionId}`, s!.providerSessionId, s!.sessionId]) expect((await collect(ref)).length).toBeGreaterThan(0);
    await expect(collect("claude:00000000-0000-0000-0000-000000000000")).rejects.toMatchObject({ code: "session_not_found", message: expect.stringMatching(/^no stored session "claude:0/) });
  });

  it("Claude Code: the transcript in conversation order, as the live layer's load() reads it; the subagent's file nested under its call", async () => {
    const [s] = await listSessions({ env: ENV, agents: ["claude"], cwd: "/sandbox/beta" });
    // a copy whose lines are in reverse file order: the parent links put them back
    const dir = join(tmp, "claude-shuffled", "projects", "-sandbox-beta");
    cpSync(join(F, "claude/home/.claude/projects/-sandbox-beta"), dir, { recursive: true });
    const file = join(dir, `${s!.providerSessionId}.jsonl`);
    const original = lines(file);
    writeFileSync(file, [...original].reverse().join("\n") + "\n");
    const env = { HOME: "/nonexistent", CLAUDE_CONFIG_DIR: join(tmp, "claude-shuffled") };
    const types = (ev: CanonicalEvent[]) => ev.map((e) => `${e.type}:${(e.payload as any)?.itemType ?? ""}`);
    expect(types(await collect(s!.providerSessionId, env))).toEqual(types(await collect(s!)));
    // the session file's part of it is what the live claude driver's load() reads
    const n = createNormalizer({ surface: "claude-transcript" });
    const viaLoad = [...readTranscript({ CLAUDE_CONFIG_DIR: join(tmp, "claude-shuffled") }, "/sandbox/beta", s!.providerSessionId).frames.flatMap((f) => n.push(f.message)), ...n.end()];
    const mine = await collect(s!.providerSessionId, env);
    expect(types(mine).slice(0, types(viaLoad).length - 1)).toEqual(types(viaLoad).slice(0, -1));
    const agent = mine.find((e) => e.type === "item.completed" && (e.payload as any).itemType === "collab_agent_tool_call")!;
    const nested = mine.filter((e) => e.type === "item.started" && e.parentId === agent.itemId).map((e) => (e.payload as any).itemType);
    expect(nested).toEqual(["user_message", "command_execution", "assistant_message"]);
  });

  it("opencode: a task tool's child session is read with its parent, its items nested under the task tool item", async () => {
    const [s] = await listSessions({ env: ENV, agents: ["opencode"], cwd: "/sandbox/gamma" });
    const events = await collect(s!);
    // one canonical session: the child's entries joined it
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([s!.sessionId]));
    const task = events.find((e) => e.type === "item.completed" && (e.payload as any).itemType === "collab_agent_tool_call")!;
    expect((task.payload as any).toolName).toBe("task");
    const nested = events.filter((e) => e.type === "item.completed" && e.parentId === task.itemId).map((e) => [(e.payload as any).itemType, (e.payload as any).detail ?? (e.payload as any).command ?? (e.payload as any).data?.text]);
    expect(nested).toEqual([
      ["user_message", "Subagent task: list the files in the working directory."],
      ["command_execution", "ls"],
      ["assistant_message", "The directory holds a.txt and b.txt."],
    ]);
    // the parent's own items are not nested; its answer comes after the child's
    const top = events.filter((e) => e.type === "item.completed" && e.parentId === undefined).map((e) => (e.payload as any).itemType);
    expect(top).toEqual(["user_message", "reasoning", "collab_agent_tool_call", "assistant_message"]);
    const order = events.filter((e) => e.type === "item.completed").map((e) => e.itemId);
    expect(order.at(-1)).toBe(events.filter((e) => e.type === "item.completed" && (e.payload as any).itemType === "assistant_message" && e.parentId === undefined)[0]!.itemId);
    // the child alone is not a stored session to open
    await expect(collect("opencode:ses_010077")).rejects.toMatchObject({ code: "session_not_found" });
  });

  it("a transcript still being written: listed, and read up to its last whole line (said with a warning)", async () => {
    const dir = join(tmp, "claude-writing", "projects", "-sandbox-alpha");
    cpSync(join(F, "claude/home/.claude/projects/-sandbox-alpha"), dir, { recursive: true });
    const [s] = await listSessions({ env: ENV, agents: ["claude"], cwd: "/sandbox/alpha" });
    const file = join(dir, `${s!.providerSessionId}.jsonl`);
    appendFileSync(file, '{"parentUuid":"x","type":"user","message":{"role":"user","content":"half');
    const env = { HOME: "/nonexistent", CLAUDE_CONFIG_DIR: join(tmp, "claude-writing") };
    const [writing] = await listSessions({ env });
    expect(writing).toMatchObject({ providerSessionId: s!.providerSessionId, title: s!.title });
    expect(writing!.problem).toBeUndefined();
    const events = await collect(writing!, env);
    const warnings = events.filter((e) => e.type === "runtime.warning").map((e) => (e.payload as any).message);
    expect(warnings).toEqual([`${s!.providerSessionId}.jsonl: its last 72 byte(s) are not a whole line (being written?): read up to its last whole line`]);
    expect(events.filter((e) => e.type !== "runtime.warning").map((e) => e.type)).toEqual((await collect(s!)).map((e) => e.type));
  });

  it("opencode: each message of the database as the entry opencode's own API returns for it (GET /session/{id}/message in the live recording)", async () => {
    for (const s of await listSessions({ env: ENV, agents: ["opencode"] })) {
      const rec = MANIFEST.recordings.find((r) => r.agent === "opencode" && `/sandbox/${r.project}` === s.cwd)!;
      const capture = lines(join(F, "opencode", rec.live[0]!)).map((l) => JSON.parse(l));
      const read = capture.map((c, i) => (c.channel === "http" && c.dir === "out" && c.message.path === `/session/${s.providerSessionId}/message` ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
      const api = capture.slice(read + 1).find((c) => c.channel === "http" && c.dir === "in")!.message.body as any[];
      const entries: unknown[] = [];
      for await (const e of openSession(s, { env: ENV, includeRaw: true })) {
        const raw = (e as any).raw?.payload;
        // (a child session's entries come with its parent's: the API answers them for the child's own id)
        if (raw?.info && raw.info.sessionID === s.providerSessionId && !entries.includes(raw)) entries.push(raw);
      }
      // times aside (the database's rows and the capture's lines are on each their own sanitized clock)
      const untimed = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x) => (k === "time" ? undefined : x)));
      expect(untimed(entries)).toEqual(untimed(api));
    }
  });
});

// ───────────────────────────── parity with the live recordings ─────────────────────────────

/** The surface of each recorder's live stream. */
const LIVE_SURFACE: Record<string, string> = { "codex-app-server": "codex-app-server", "claude-sdk-333": "claude-sdk", opencode: "opencode", "gemini-acp": "acp" };
/**
 * Side channels only a live stream has, by construction of every agent's history: token usage, permission and
 * question requests, status notices, session configuration (`mode`), background task cards; and the turn's cumulative
 * diff, which a restored form rebuilds differently (compared as file changes of the tools instead).
 */
const OMIT = ["usage", "permission", "question", "status", "mode", "task", "diff"];
const fields = (b: Block): Record<string, unknown> => (b.kind === "status" ? { level: b.level, message: b.message } : defaultBlockFields(b));
const view = (snap: AccumulatorSnapshot) => renderView(snap, { omitKinds: OMIT, blockFields: fields });
const line = (b: any) => `${b.kind} ${String(b.text ?? b.message ?? b.title ?? "").replace(/\s+/g, " ").trim().slice(0, 90)}`;
function removeBlocks(snap: AccumulatorSnapshot, drop: (b: Block) => boolean): string[] {
  const removed: string[] = [];
  const visit = (steps: AccumulatorSnapshot["sessions"][number]["steps"]) => {
    for (const st of steps) {
      st.blocks = st.blocks.filter((b) => (drop(b) ? (removed.push(line(b)), false) : true));
      visit(st.children);
    }
  };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
  return removed;
}

/**
 * What a store keeps differently from what the live session showed, per recording (`<agent> <project>.<scenario>`);
 * each removal asserts what it removes, so a new difference — or a fixed one — fails the test.
 */
const DIFFS: Record<string, (live: AccumulatorSnapshot, stored: AccumulatorSnapshot) => void> = {
  // the subagent's own file (subagents/agent-*.jsonl) holds its prompt, which the live stream does not show; read after
  // the session's file, its lines open a turn of their own, empty (its items nest under the Agent call of turn 1)
  "claude beta.background-agent": (_live, stored) => {
    expect(removeBlocks(stored, (b) => b.kind === "text" && b.role === "user" && b.text.startsWith("Subagent task:"))).toEqual(["text Subagent task: list the files in the working directory."]);
    const turns = stored.sessions[0]!.turns;
    expect(turns.map((t) => t.steps.length)).toEqual([expect.any(Number), expect.any(Number), 0]);
    turns.pop();
  },
  // Codex 0.171 streamed only "line 2" and "line 3" live (the rollout's output has all three); the rollout keeps the
  // call's own tool name and arguments, which the app-server's item does not carry
  "codex beta.shell": (live, stored) => {
    expect(terminalText(stored)).toEqual(["line 1\nline 2\nline 3\n"]);
    expect(terminalText(live)).toEqual(["line 2\nline 3\n"]);
    removeBlocks(live, (b) => b.kind === "terminal");
    removeBlocks(stored, (b) => b.kind === "terminal");
    expect(dropFields(stored, "tool", ["toolName", "input"])).toEqual(['toolName "exec_command"', 'input {"cmd":"for i in 1 2 3; do echo line $i; sleep 0.4; done","yield_time_ms":10000}']);
  },
  // the chat keeps each call's arguments, which Gemini CLI's live ACP tool calls do not carry (the live command comes
  // from the call's title: the same)
  "gemini beta.shell": (live, stored) => {
    expect(dropFields(stored, "tool", ["input"])).toEqual(['input {"command":"for i in 1 2 3; do echo line $i; sleep 0.4; done","description":"Run: for i in 1 2 3; do echo line $i; sleep 0.4; done"}']);
    const command = ['command "for i in 1 2 3; do echo line $i; sleep 0.4; done"'];
    expect(dropFields(live, "tool", ["command"])).toEqual(command);
    expect(dropFields(stored, "tool", ["command"])).toEqual(command);
  },
  "gemini alpha.edit": (_live, stored) => {
    expect(dropFields(stored, "tool", ["input"])).toEqual(['input {"file_path":"/sandbox/alpha/hello.py","instruction":"Replace \\"Hello, world!\\" with \\"Hello, agentnorm!\\".","old_string":"Hello, world!","new_string":"Hello, agentnorm!"}']);
  },
};
function eachBlock(snap: AccumulatorSnapshot, f: (b: Block) => void): void {
  const visit = (steps: AccumulatorSnapshot["sessions"][number]["steps"]) => { for (const st of steps) { st.blocks.forEach(f); visit(st.children); } };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
}
const terminalText = (snap: AccumulatorSnapshot) => { const out: string[] = []; eachBlock(snap, (b) => { if (b.kind === "terminal") out.push((b as any).text); }); return out; };
/** Remove these fields from the blocks of a kind; returns them as `field value` lines. */
function dropFields(snap: AccumulatorSnapshot, kind: string, keys: string[]): string[] {
  const out: string[] = [];
  eachBlock(snap, (b) => { if (b.kind !== kind) return; for (const k of keys) if ((b as any)[k] !== undefined) { out.push(`${k} ${JSON.stringify((b as any)[k])}`); delete (b as any)[k]; } });
  return out;
}

describe("a stored session renders as its live recording", () => {
  for (const rec of MANIFEST.recordings) {
    const name = `${rec.agent} ${rec.project}.${rec.scenario}`;
    it(name, async () => {
      const [s] = (await listSessions({ env: ENV, agents: [rec.agent as never], cwd: `/sandbox/${rec.project}` })).filter((x) => rec.store.some((f) => x.path.endsWith(f.replace(/^home\//, ""))));
      expect(s, "the recording's session is listed").toBeDefined();
      const stored = snapshotOf(await collect(s!));
      const live = snapshotOf(normalizeFile(LIVE_SURFACE[rec.recorder]!, join(F, rec.agent, rec.live[0]!)));
      DIFFS[name]?.(live, stored);
      expect(view(stored)).toEqual(view(live));
    });
  }
  it("the differences name recordings only", () => {
    expect(Object.keys(DIFFS).filter((k) => !MANIFEST.recordings.some((r) => `${r.agent} ${r.project}.${r.scenario}` === k))).toEqual([]);
  });
});

/**
 * Gemini CLI's saved chat against its own ACP session/load replay of the same session (the `.load` recording: a second
 * Gemini CLI process loading it). The gemini-chat table re-feeds each message as the session/update the replay sends,
 * except where it shows what the live session showed (mappings/gemini-chat.yaml): the replay's session context and
 * tool results as user messages, and its tool titles (the tool's display name) — each asserted here.
 */
const userText = (b: Block) => b.kind === "text" && b.role === "user";
/** The replay's session context (a user message before the first turn), which the chat table leaves out. */
const dropContext = (load: AccumulatorSnapshot) => expect(removeBlocks(load, (b) => userText(b) && (b as any).text.startsWith("<session_context>")).map((l) => l.slice(0, 22))).toEqual(["text <session_context>"]);
/** Tool blocks: the replay's title (the tool's display name) and the chat's (the live one), and the arguments only the chat has. */
function toolTitles(load: AccumulatorSnapshot, stored: AccumulatorSnapshot, titles: [string, string][], storedOnly: string[]): void {
  const tools = (snap: AccumulatorSnapshot) => { const out: any[] = []; eachBlock(snap, (b) => { if (b.kind === "tool") out.push(b); }); return out; };
  expect(tools(load).map((b) => b.title)).toEqual(titles.map(([l]) => l));
  expect(tools(stored).map((b) => b.title)).toEqual(titles.map(([, c]) => c));
  for (const b of tools(load)) delete b.title;
  for (const b of tools(stored)) delete b.title;
  expect(dropFields(stored, "tool", ["command", "input"]).map((l) => l.split(" ")[0])).toEqual(storedOnly);
}
const LOAD_DIFFS: Record<string, (load: AccumulatorSnapshot, stored: AccumulatorSnapshot) => void> = {
  "alpha.two-turn": (load) => dropContext(load),
  "beta.shell": (load, stored) => {
    dropContext(load);
    // the tool's result, which Gemini CLI records as the user's next message, replayed as user text
    expect(removeBlocks(load, (b) => userText(b) && (b as any).text.startsWith("[Function Response:"))).toEqual(["text [Function Response: run_shell_command]"]);
    toolTitles(load, stored, [["Shell", "for i in 1 2 3; do echo line $i; sleep 0.4; done"]], ["command", "input"]);
  },
  "alpha.edit": (load, stored) => {
    dropContext(load);
    expect(removeBlocks(load, (b) => userText(b) && (b as any).text.startsWith("[Function Response:"))).toEqual(["text [Function Response: replace]"]);
    toolTitles(load, stored, [["Edit", "hello.py: Hello, world! => Hello, agentnorm!"]], ["input"]);
  },
};

describe("Gemini CLI: a saved chat renders as its session/load replay", () => {
  for (const rec of MANIFEST.recordings.filter((r) => r.agent === "gemini")) {
    const name = `${rec.project}.${rec.scenario}`;
    it(name, async () => {
      const [s] = (await listSessions({ env: ENV, agents: ["gemini"], cwd: `/sandbox/${rec.project}` })).filter((x) => rec.store.some((f) => x.path.endsWith(f.replace(/^home\//, ""))));
      const stored = snapshotOf(await collect(s!));
      const load = snapshotOf(normalizeFile("acp", join(F, "gemini", rec.live.find((f) => f.endsWith(".load.ndjson"))!)));
      LOAD_DIFFS[name]?.(load, stored);
      expect(view(stored)).toEqual(view(load));
    });
  }
});

describe("gemini-chat pushed record by record (createNormalizer; the CLI replays a chat file first: test/record-log.test.ts)", () => {
  it("a chat file is told apart by the CLI's detection; any other JSON is not taken for a chat", () => {
    const chat = lines(join(F, "gemini/home/.gemini/tmp/beta/chats/session-2026-01-01T08-00-00001f41.jsonl"));
    expect(detectInput(chat)).toMatchObject({ kind: "native", surface: "gemini-chat" });
    expect(detectInput(['{"foo":1}', '{"bar":2,"id":"x"}', '{"$set":{"a":1}}'])).toMatchObject({ kind: "unknown" });
    expect(detectInput(['{"$set":{"a":1}}', '{"$rewindTo":"x"}'])).toMatchObject({ kind: "unknown" });
  });
  it("its messages map in file order; the log's $set records are reported, not applied", () => {
    const file = join(F, "gemini/home/.gemini/tmp/beta/chats/session-2026-01-01T08-00-00001f41.jsonl");
    const events = normalizeFile("gemini-chat", file);
    const sets = lines(file).filter((l) => l.startsWith('{"$set"')).length;
    expect(events.filter((e) => e.type === "runtime.warning" && /no input wrapper/.test((e.payload as any).message))).toHaveLength(sets);
    expect(events.filter((e) => e.type === "item.completed").map((e) => (e.payload as any).itemType)).toEqual(["user_message", "reasoning", "assistant_message", "command_execution"]);
  });
});
