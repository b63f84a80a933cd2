/**
 * Sessions kept apart, item ids reused, every line accounted for, a second answer said as such (issue 31, item 4):
 * properties over real recordings (fixtures/recorded/, fixtures/<surface>/, and the shared dev recordings when
 * present — a visible skip otherwise).
 *
 * - Interleaving: two (or three) recordings of a surface, their lines interleaved at random (test/support/interleave.ts
 *   says exactly how, and what "the same events" means), normalize to one canonical session per recording whose
 *   events equal that recording's own run — no cross-talk in turns, items, variables or the current turn.
 * - Item ids reused in a later turn (Codex): each is a new canonical item; the events equal the original's.
 * - Accounting: every line pushed is counted once in stats().outcomes, for any recording and any mutation of it.
 * - A second answer to a JSON-RPC request is reported as such, naming the id.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SURFACES } from "../generated/surfaces.gen.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds } from "../src/normalize/ids.js";
import { MAX_SESSIONS } from "../src/normalize/sessions.js";
import { devFolder } from "./support/dev-recordings.js";
import { bySession, canon, merge, readRecording, run, separate, toBlocks, type Blocks, type Recording } from "./support/interleave.js";
import { expectVerified } from "./support/verify.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Files under `dir` (relative to the repo) whose name ends with `.ndjson` / `.jsonl` and matches none of `skip`. */
function files(dir: string, skip: RegExp = /\.(expected|transcript|load|messages|wire|rollout)\.|transcript-subagents|server-log/): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).filter((f) => /\.(ndjson|jsonl)$/.test(f) && !skip.test(f)).sort().map((f) => join(abs, f));
}
function dev(folder: string, pattern: RegExp = /\.(ndjson|jsonl)$/): string[] {
  const d = devFolder(folder, `sessions: ${folder}`);
  return d.list(".ndjson", ".jsonl").filter((f) => pattern.test(f)).map((f) => join(d.dir, f));
}

/** The recordings each routed surface is tested with: the repo's own, then the dev ones when present. */
const RECORDINGS: Record<string, { own: string[]; dev: string[] }> = {
  "claude-sdk": { own: [...files("fixtures/recorded/claude-sdk"), ...files("fixtures/recorded/claude-sdk/2.1.333")], dev: dev("claude-wire", /\.sdk\.jsonl$/) },
  "codex-app-server": { own: [...files("fixtures/recorded/codex-app-server"), ...files("fixtures/codex-app-server")], dev: dev("codex-app-server", /^recorded-.*\.ndjson$/) },
  acp: { own: ["", "claude-code", "codex", "gemini"].flatMap((d) => files(join("fixtures/recorded/acp", d))), dev: dev("acp-agents") },
  opencode: { own: files("fixtures/recorded/opencode"), dev: dev("opencode", /^kimaki-/) },
  "cursor-cli": { own: [], dev: dev("cursor") },
  "cursor-sdk": { own: [...files("fixtures/cursor-sdk", /usage-stored/), ...files("fixtures/cursor-sdk/mixed")], dev: [] },
  "opencode-run": { own: [], dev: dev("opencode", /^takopi-/) },
};

const recordingCache = new Map<string, Recording>();
const recording = (file: string): Recording => {
  let r = recordingCache.get(file);
  if (!r) recordingCache.set(file, (r = readRecording(file, file.slice(ROOT.length - 1))));
  return r;
};

const soloCache = new Map<string, unknown[]>();
/** A recording's own run (its kept lines), as compared. */
function solo(surface: string, b: Blocks): unknown[] {
  const key = `${surface}\n${b.kept.join("\n")}`;
  let c = soloCache.get(key);
  if (!c) soloCache.set(key, (c = canon(run(surface, b.kept))));
  return c;
}

/** Merge the recordings (files) by `picks`, and check each session against its recording's own run. */
function checkInterleaving(surface: string, chosen: string[], picks: number[]): void {
  const all: Blocks[] = [];
  const taken = new Set<string>();
  chosen.forEach((file, i) => {
    const r = i === 0 ? recording(file) : separate(surface, recording(file), taken, 1_000_000 * i, String(i + 1));
    const b = toBlocks(surface, r, i === 0);
    for (const k of b.keys) taken.add(k);
    all.push(b);
  });
  const routed = all.filter((b) => b.blocks.length > 0);
  const { lines, from } = merge(all, picks);
  const { sessions, of } = bySession(surface, lines, from, all.length);
  // one canonical session per recording that names one, each the session of its own lines only
  expect(new Set(of.filter((x) => x !== undefined)).size, `${chosen.join(" + ")}: one session per recording`).toBe(routed.filter((b) => b.keys.size > 0).length);
  all.forEach((b, i) => {
    if (!b.blocks.length || of[i] === undefined) return;
    expect(canon(sessions.get(of[i]!) ?? []), `${b.name} interleaved with ${chosen.filter((_, j) => j !== i).join(", ")}`).toEqual(solo(surface, b));
  });
}

describe("sessions interleaved in one stream stay apart", () => {
  for (const [surface, { own, dev: devFiles }] of Object.entries(RECORDINGS)) {
    const list = [...own, ...devFiles];
    (list.length ? it : it.skip)(`${surface}: two recordings interleaved at random → one canonical session each, equal to each recording alone (${own.length} own + ${devFiles.length} dev recordings)`, () => {
      expect(SURFACES[surface as keyof typeof SURFACES].session, `${surface} declares sessions:`).toBeDefined();
      fc.assert(
        fc.property(fc.constantFrom(...list), fc.constantFrom(...list), fc.array(fc.nat(), { minLength: 1, maxLength: 300 }), (a, b, picks) => {
          checkInterleaving(surface, [a, b], picks);
        }),
        { numRuns: 25, seed: 31 },
      );
    });
  }

  it("claude-sdk: three recordings of both CLI versions, every pair order (the stated version stays per session)", () => {
    const [a, b, c] = [files("fixtures/recorded/claude-sdk").find((f) => f.endsWith("/approval.ndjson"))!, files("fixtures/recorded/claude-sdk/2.1.333").find((f) => f.endsWith("/background-agent.ndjson"))!, files("fixtures/recorded/claude-sdk/2.1.333").find((f) => f.endsWith("/question.ndjson"))!];
    fc.assert(fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 300 }), (picks) => checkInterleaving("claude-sdk", [a, b, c], picks)), { numRuns: 15, seed: 7 });
  });

  it("claude-sdk: before (no routing) two interleaved sessions merged into one canonical session and shared a turn; with routing they are two, each verified", () => {
    const A = recording(files("fixtures/recorded/claude-sdk").find((f) => f.endsWith("/two-turn.ndjson"))!);
    const a = toBlocks("claude-sdk", A, true);
    const b = toBlocks("claude-sdk", separate("claude-sdk", recording(files("fixtures/recorded/claude-sdk").find((f) => f.endsWith("/shell.ndjson"))!), a.keys, 0), false);
    const { lines } = merge([a, b], [1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1]);
    const unrouted = run("claude-sdk", lines, { ...SURFACES["claude-sdk"], session: undefined });
    expect(new Set(unrouted.map((e) => e.sessionId)).size).toBe(1);
    const routed = run("claude-sdk", lines);
    const sessions = [...new Set(routed.map((e) => e.sessionId))];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      const evs = routed.filter((e) => e.sessionId === s);
      expect(evs.filter((e) => e.type === "thread.started")).toHaveLength(1);
      expect(evs.filter((e) => e.type === "runtime.warning")).toEqual([]);
    }
    expect(routed.filter((e) => e.type === "turn.started")).toHaveLength(3);
    expectVerified(routed, "two claude sessions interleaved");
  });

  it("a stream of one session keeps the normalizer's session id, with or without ids; each new session id a new canonical session", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds() });
    const a = n.push({ type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null, session_id: "" }, { direction: "out" });
    const b = n.push({ type: "system", subtype: "status", status: "requesting", uuid: "u1", session_id: "s1" });
    const c = n.push({ type: "system", subtype: "status", status: "requesting", uuid: "u2", session_id: "s2" });
    const d = n.push({ type: "system", subtype: "status", status: null, uuid: "u3", session_id: "s1" });
    expect([...a, ...b].every((e) => e.sessionId === n.sessionId)).toBe(true);
    expect(c[0].sessionId).not.toBe(n.sessionId);
    expect(d[0].sessionId).toBe(n.sessionId);
    expect(n.stats().held.sessions).toBe(2);
  });

  it("the client's messages follow the sessions the agent names: a resumed Claude session answering a prompt that names the old id under a new one is one session, one turn", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds() });
    const out = [
      ...n.push({ type: "user", message: { role: "user", content: "go on" }, parent_tool_use_id: null, session_id: "old" }, { direction: "out" }),
      ...n.push({ type: "system", subtype: "init", cwd: "/w", session_id: "new", tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.62", output_style: "default", uuid: "u1" }),
      ...n.push({ type: "result", subtype: "success", is_error: false, duration_ms: 1, duration_api_ms: 1, num_turns: 1, result: "ok", stop_reason: "end_turn", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], uuid: "r1", session_id: "new" }),
      ...n.end(),
    ];
    expect(new Set(out.map((e) => e.sessionId))).toEqual(new Set([n.sessionId]));
    expect(out.filter((e) => e.type === "turn.started")).toHaveLength(1);
    expect(out.filter((e) => e.type === "runtime.warning")).toEqual([]);
  });

  it("a prompt naming a session the stream has not named, while another session is current, is a session of its own: a second session's first prompt, and a resume mid-stream the agent goes on under a new id", () => {
    const init = (sid: string, uuid: string) => ({ type: "system", subtype: "init", cwd: "/w", session_id: sid, tools: [], mcp_servers: [], model: "m", permissionMode: "default", slash_commands: [], apiKeySource: "none", claude_code_version: "2.1.62", output_style: "default", uuid });
    const prompt = (sid: string) => ({ type: "user", message: { role: "user", content: "go" }, parent_tool_use_id: null, session_id: sid });
    const result = (sid: string, uuid: string) => ({ type: "result", subtype: "success", is_error: false, duration_ms: 1, duration_api_ms: 1, num_turns: 1, result: "ok", stop_reason: "end_turn", total_cost_usd: 0, usage: {}, modelUsage: {}, permission_denials: [], uuid, session_id: sid });
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds() });
    const a = [...n.push(prompt("a"), { direction: "out" }), ...n.push(init("a", "u1"))];
    // b's first prompt comes while a is current, before b's init; then a's result, then b's init under the same id
    const b1 = n.push(prompt("b"), { direction: "out" });
    const a2 = n.push(result("a", "r1"));
    const b2 = [...n.push(init("b", "u2")), ...n.push(result("b", "r2"))];
    // c resumes an old session mid-stream: the prompt names the old id, the agent goes on under a new one
    const c = [...n.push(prompt("old"), { direction: "out" }), ...n.push(init("new", "u3")), ...n.push(result("new", "r3"))];
    const ids = (evs: CanonicalEvent[]) => new Set(evs.map((e) => e.sessionId));
    expect(ids([...a, ...a2])).toEqual(new Set([n.sessionId]));
    expect(ids([...b1, ...b2]).size).toBe(1);
    expect(ids([...b1, ...b2]).has(n.sessionId)).toBe(false);
    expect(ids(c).size).toBe(1);
    expect([...ids(c)][0]).not.toBe([...ids(b1)][0]);
    expect(ids(c).has(n.sessionId)).toBe(false);
    for (const evs of [[...a, ...a2], [...b1, ...b2], c]) expect(evs.filter((e) => e.type === "turn.started")).toHaveLength(1);
    expect([...a, ...a2, ...b1, ...b2, ...c].filter((e) => e.type === "runtime.warning")).toEqual([]);
  });

  it("codex-app-server: a subagent's thread (thread.parentThreadId) joins its parent's session; another thread on the connection is a session of its own", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds() });
    const thread = (id: string, parent?: string) => ({ method: "thread/started", params: { thread: { id, preview: "", ephemeral: false, modelProvider: "openai", createdAt: 1, updatedAt: 1, status: { type: "idle" }, path: null, cwd: "/w", cliVersion: "0.171.0", source: "cli", agentNickname: null, agentRole: null, gitInfo: null, name: null, turns: [], ...(parent ? { parentThreadId: parent } : {}) } } });
    const [p] = n.push(thread("t1"));
    const [child] = n.push(thread("t2", "t1"));
    const [other] = n.push(thread("t3"));
    expect(child.sessionId).toBe(p.sessionId);
    expect(other.sessionId).not.toBe(p.sessionId);
  });

  it(`memory: at most ${MAX_SESSIONS} sessions are kept; past that the least recently used is forgotten, said once`, () => {
    const n = createNormalizer({ surface: "cursor-cli", ids: counterIds() });
    const out: CanonicalEvent[] = [];
    for (let i = 0; i < MAX_SESSIONS + 5; i++) out.push(...n.push({ type: "system", subtype: "init", session_id: `s${i}`, model: "m", cwd: "/w", apiKeySource: "login", permissionMode: "default" }));
    expect(n.stats().held.sessions).toBe(MAX_SESSIONS);
    const forgotten = out.filter((e) => e.raw?.rule === "agentnorm#sessions");
    expect(forgotten).toHaveLength(5);
    expect((forgotten[0].payload as any).message).toMatch(/least recently used/);
  });
});

/**
 * Codex: item ids of later turns renamed to ids of the first turn (a provider numbering items per turn): the k-th item
 * of a type in a later turn takes the id of the k-th item of that type in the first turn, when `pick` says so.
 */
function reuseItemIds(lines: string[], pick: (turn: number, i: number) => boolean): { lines: string[]; ids: Set<string>; reused: number } {
  const turns: Map<string, string[]>[] = [];
  const turnOf = new Map<string, number>();
  const ids = new Set<string>();
  const starts: number[] = [];
  lines.forEach((l, at) => {
    const w = JSON.parse(l);
    const m = w?.message?.method !== undefined ? w.message : w;
    if (m?.method !== "item/started" || typeof m.params?.item?.id !== "string") return;
    const { turnId, item } = m.params;
    ids.add(item.id);
    let t = turnOf.get(turnId);
    if (t === undefined) { turnOf.set(turnId, (t = turns.length)); turns.push(new Map()); starts.push(at); }
    const list = turns[t].get(item.type) ?? [];
    if (!list.includes(item.id)) list.push(item.id);
    turns[t].set(item.type, list);
  });
  let out = lines.slice();
  let reused = 0;
  for (let t = 1; t < turns.length; t++) {
    let i = 0;
    for (const [type, items] of turns[t]) {
      items.forEach((item, k) => {
        const to = turns[0].get(type)?.[k];
        if (to === undefined || !pick(t, i++)) return;
        reused++;
        out = out.map((l, at) => (at >= starts[t] ? l.split(`"${item}"`).join(`"${to}"`) : l));
      });
    }
  }
  return { lines: out, ids, reused };
}

const masked = (events: CanonicalEvent[], ids: Set<string>): unknown[] => {
  const text = JSON.stringify(canon(events));
  let t = text;
  for (const id of ids) t = t.split(`"${id}"`).join(`"<item id>"`);
  return JSON.parse(t);
};

describe("an item id reused in a later turn starts a new item", () => {
  const codex = [...RECORDINGS["codex-app-server"].own, ...RECORDINGS["codex-app-server"].dev].filter((f) => reuseItemIds(recording(f).lines, () => true).reused > 0);

  it("codex two-turn: before, the second answer was dropped ('already ended'); now it is a new item with its own canonical id and text", () => {
    const r = recording(files("fixtures/recorded/codex-app-server").find((f) => f.endsWith("/two-turn.ndjson"))!);
    const { lines } = reuseItemIds(r.lines, () => true);
    const events = run("codex-app-server", lines);
    expect(events.filter((e) => e.type === "runtime.warning").map((e) => (e.payload as any).message)).toEqual([]);
    const answers = events.filter((e) => e.type === "item.completed" && (e.payload as any).itemType === "assistant_message");
    expect(answers).toHaveLength(2);
    expect(new Set(answers.map((e) => e.itemId)).size).toBe(2);
    expect(new Set(answers.map((e) => e.providerRefs?.providerItemId)).size).toBe(1);
    expect(answers.map((e) => e.turnId)[0]).not.toBe(answers[1].turnId);
    expectVerified(events, "codex two-turn with reused item ids");
  });

  (codex.length ? it : it.skip)(`codex-app-server: any reuse of earlier ids in later turns → the same events as the original, provider ids aside (${codex.length} recordings)`, () => {
    fc.assert(
      fc.property(fc.constantFrom(...codex), fc.func(fc.boolean()), (file, pick) => {
        const r = recording(file);
        const t = reuseItemIds(r.lines, (turn, i) => pick(turn, i));
        expect(masked(run("codex-app-server", t.lines), t.ids), file).toEqual(masked(run("codex-app-server", r.lines), t.ids));
      }),
      { numRuns: 30, seed: 31 },
    );
  });

  it("a replayed history (thread/read) after the reuse finds each turn's own item: nothing re-emitted", () => {
    const r = recording(files("fixtures/recorded/codex-app-server").find((f) => f.endsWith("/two-turn.ndjson"))!);
    const { lines } = reuseItemIds(r.lines, () => true);
    const read = lines.find((l) => l.includes('"result":{"thread":') && l.includes('"turns":[{'));
    const events = run("codex-app-server", read ? [...lines, read.replace(/"id":(\d+)/, '"id":9$1')] : lines);
    expect(events.filter((e) => e.type === "item.started")).toHaveLength(run("codex-app-server", lines).filter((e) => e.type === "item.started").length);
  });
});

/** Every recording the tests know, with its surface. */
function everyRecording(): [string, string][] {
  const out: [string, string][] = [];
  for (const [surface, { own, dev: d }] of Object.entries(RECORDINGS)) for (const f of [...own, ...d]) out.push([surface, f]);
  for (const f of files("fixtures/recorded/codex-exec", /\.(expected|rollout)\.|server-log/)) out.push(["codex-exec", f]);
  for (const f of files("fixtures/recorded/codex-exec", /^(?!.*\.rollout\.)/)) out.push(["codex-rollout", f]);
  for (const f of files("fixtures/recorded/claude-sdk", /^(?!.*\.transcript\.)/)) out.push(["claude-transcript", f]);
  for (const f of files("fixtures/recorded/opencode", /^(?!.*\.messages\.)/)) out.push(["opencode-history", f]);
  for (const f of files("fixtures/claude-permission")) out.push(["claude-permission", f]);
  for (const f of dev("codex-eventmsg")) out.push(["codex-eventmsg", f]);
  return out;
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

describe("every line is accounted for", () => {
  const all = everyRecording();

  it(`each recording: mapped + ignored + silent + held + unknown + malformed + blank = lines (${all.length} recordings)`, () => {
    for (const [surface, file] of all) {
      const r = recording(file);
      const n = createNormalizer({ surface, ids: counterIds() });
      for (const l of r.lines) n.pushLine(l);
      n.end();
      const s = n.stats();
      expect(sum(s.outcomes), `${surface} ${file}: ${JSON.stringify(s.outcomes)}`).toBe(r.lines.length);
      expect(s.outcomes.blank).toBe(0);
    }
  });

  it("any mutation of a recording (lines dropped, repeated, swapped, blank, not JSON, not an object, garbage objects): the counts still sum to the lines", () => {
    const junk = fc.constantFrom("", "   ", "not json", "[]", "42", "null", "{}", '{"type":"nope"}', '{"method":"nope","params":{}}', '{"id":77,"result":{}}', '{"seq":1,"dir":"in","message":{}}');
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.array(fc.tuple(fc.nat(), fc.constantFrom("drop", "dup", "swap", "junk")), { maxLength: 12 }), junk, ([surface, file], ops, j) => {
        const lines = recording(file).lines.slice();
        for (const [at, op] of ops) {
          const i = lines.length ? at % lines.length : 0;
          if (op === "drop") lines.splice(i, 1);
          else if (op === "dup") lines.splice(i, 0, lines[i] ?? j);
          else if (op === "swap" && i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]];
          else lines.splice(i, 0, j);
        }
        const n = createNormalizer({ surface, ids: counterIds() });
        let pushed = 0;
        for (const l of lines) { n.pushLine(l); pushed++; }
        n.end();
        expect(sum(n.stats().outcomes), `${surface} ${file}`).toBe(pushed);
      }),
      { numRuns: 60, seed: 31 },
    );
  });

  it("CLI normalize: the summary accounts for every line (lines that produced no event are counted as ignored, held or silent)", () => {
    const file = files("fixtures/recorded/claude-sdk").find((f) => f.endsWith("/approval.ndjson"))!;
    const lines = recording(file).lines.length;
    const r = spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), "normalize", "--from", "claude-sdk", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const m = /(\d+) line\(s\): (\d+) mapped, (\d+) ignored \((\d+) by an ignore entry, (\d+) held, (\d+) with nothing new\), (\d+) unknown, (\d+) malformed/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const [, total, mapped, ignored, byEntry, held, silent, unknown, malformed] = m!.map(Number);
    expect(total).toBe(lines);
    expect(mapped + ignored + unknown + malformed).toBe(total);
    expect(byEntry + held + silent).toBe(ignored);
    expect(silent).toBeGreaterThan(0); // the stream events that only set variables (before: counted nowhere)
  });
});

describe("a second answer to a request is reported as such", () => {
  it("codex-app-server: an approval answered twice → 'second answer to request id …', not 'unknown request id'", () => {
    const r = recording(files("fixtures/recorded/codex-app-server").find((f) => f.endsWith("/approval.ndjson"))!);
    const i = r.lines.findIndex((l) => /"dir":"out","message":\{"id":\d+,"result":\{"decision"/.test(l));
    expect(i).toBeGreaterThan(0);
    const lines = [...r.lines.slice(0, i + 1), r.lines[i], ...r.lines.slice(i + 1)];
    const events = run("codex-app-server", lines);
    const warnings = events.filter((e) => e.type === "runtime.warning").map((e) => [(e.payload as any).message, e.raw?.rule]);
    const id = JSON.parse(r.lines[i]).message.id;
    expect(warnings).toEqual([[`second answer to request id ${id} (item/commandExecution/requestApproval): that request was already answered; this answer is not mapped`, "agentnorm#answered-twice"]]);
    // the first answer resolved the request once
    expect(events.filter((e) => e.type === "request.resolved")).toHaveLength(run("codex-app-server", r.lines).filter((e) => e.type === "request.resolved").length);
  });

  it("acp: a client request's answer repeated by the agent → second answer; an id never asked → unknown request id", () => {
    const n = createNormalizer({ surface: "acp", ids: counterIds() });
    n.push({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }, { direction: "out" });
    n.push({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1, agentCapabilities: {} } }, { direction: "in" });
    const again = n.push({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1, agentCapabilities: {} } }, { direction: "in" });
    expect(again.map((e) => (e.payload as any).message)).toEqual(["second answer to request id 1 (initialize): that request was already answered; this answer is not mapped"]);
    const unknown = n.push({ jsonrpc: "2.0", id: 5, result: {} }, { direction: "in" });
    expect(unknown.map((e) => (e.payload as any).message)).toEqual(["response to unknown request id 5"]);
    // an id used again for a new request is that request's
    n.push({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } }, { direction: "out" });
    const answered = n.push({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } }, { direction: "in" });
    expect(answered.filter((e) => e.type === "runtime.warning")).toEqual([]);
  });
});
