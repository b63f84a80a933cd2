/**
 * listSessions: the sessions each agent stored, found where the agent keeps them (stores.ts), without reading whole
 * files: a directory walk, a stat and a bounded head per file (or the agent's own index table), one table scan for
 * a SQLite store.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { storedSessionId } from "../normalize/ids.js";
import { InvalidOptionError } from "../errors.js";
import type { AcpPreset, LiveAgent } from "../live/types.js";
import { prefixScalars, readHead, readTail } from "./files.js";
import { SqliteReader, type SqlValue } from "./sqlite.js";
import { SESSION_AGENTS, STORES, type FieldTest, type FileStore, type HeadValue, type SessionAgent, type SqliteStore, type StoreSpec } from "./stores.js";

export interface ListOptions {
  /** Only the sessions of this project directory (as the agent recorded it; compared resolved, and by real path). */
  cwd?: string;
  /** Only these agents (default: all). */
  agents?: readonly SessionAgent[];
  /** Only sessions active at or after this time (a Date, epoch ms, or an ISO text). */
  since?: Date | number | string;
  /** At most this many (the newest). */
  limit?: number;
  /** The environment the stores' locations come from (HOME, CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_DATA_HOME, GEMINI_CLI_HOME); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface StoredSession {
  /** The agent whose store holds it; for a session the agent keeps on its side (listAgentSessions), its live name ("acp": a command given as `{ acp }`). */
  agent: SessionAgent | AcpPreset | "acp";
  /** The agent's own id of the session (Codex thread id, Claude Code / Gemini CLI session id, opencode session id); "" when unknown (a problem). */
  providerSessionId: string;
  /** The canonical session id its events carry (storedSessionId: the same for connect({ resume }) of it); "" when unknown. */
  sessionId: string;
  /** The agent's own title, else the first prompt (first line, at most 200 characters). */
  title?: string;
  cwd?: string;
  /** ISO times. */
  startedAt?: string;
  lastActivityAt?: string;
  /** Prompts so far, where the store says so cheaply (opencode). */
  turns?: number;
  /** The surface that reads it (openSession, agentnorm normalize --from). */
  surface: string;
  /** The live agent that continues it: connect({ agent: liveAgent, cwd, resume: providerSessionId }). */
  liveAgent: LiveAgent;
  /** Where it lives: the session file, or the database holding it; `agent:<name>` for a session the agent keeps on its side. */
  path: string;
  /** "agent": listed by the agent itself (listAgentSessions); openSession reads it through the agent. */
  origin?: "agent";
  /** The agent version that wrote it, when the store says. */
  version?: string;
  /** The agent archived it. */
  archived?: boolean;
  /** Why it could not be read (unreadable, not the agent's format): listed, never thrown. */
  problem?: string;
}

const TITLE_MAX = 200;

/** The sessions stored for `cwd` (or all), newest activity first. */
export async function listSessions(options: ListOptions = {}): Promise<StoredSession[]> {
  const o = checkOptions(options);
  const out: StoredSession[] = [];
  for (const agent of o.agents) {
    const spec = STORES[agent];
    const root = storeRoot(spec, o.env);
    if (root === undefined || !existsSync(root)) continue;
    if (spec.store.kind === "files") listFiles(spec, spec.store, root, o, out);
    else listSqlite(spec, spec.store, root, o, out);
  }
  const since = o.since;
  const kept = out.filter((s) => since === undefined || s.problem !== undefined || (s.lastActivityAt !== undefined && Date.parse(s.lastActivityAt) >= since));
  // one entry per session: a session in two files (Gemini CLI rewrites a resumed chat into a new file) is its newest
  const seen = new Map<string, StoredSession>();
  const time = (s: StoredSession) => (s.lastActivityAt ? Date.parse(s.lastActivityAt) : 0);
  kept.sort((a, b) => time(b) - time(a) || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const result: StoredSession[] = [];
  for (const s of kept) {
    if (s.providerSessionId !== "" && !s.problem) {
      const k = `${s.agent}\u0000${s.providerSessionId}`;
      if (seen.has(k)) continue;
      seen.set(k, s);
    }
    result.push(s);
  }
  return o.limit !== undefined ? result.slice(0, o.limit) : result;
}

interface Checked { cwd?: string[]; agents: readonly SessionAgent[]; since?: number; limit?: number; env: Readonly<Record<string, string | undefined>> }

function checkOptions(o: ListOptions): Checked {
  if (!o || typeof o !== "object") throw new InvalidOptionError("options", "listSessions: options must be an object");
  const agents = o.agents ?? SESSION_AGENTS;
  if (!Array.isArray(agents)) throw new InvalidOptionError("agents", "listSessions: agents must be a list");
  for (const a of agents) if (!(SESSION_AGENTS as readonly string[]).includes(a)) throw new InvalidOptionError("agents", `listSessions: unknown agent ${JSON.stringify(a)}; agents: ${SESSION_AGENTS.join(", ")}`);
  let since: number | undefined;
  if (o.since !== undefined) {
    since = o.since instanceof Date ? o.since.getTime() : typeof o.since === "number" ? o.since : Date.parse(o.since);
    if (!Number.isFinite(since)) throw new InvalidOptionError("since", `listSessions: since must be a date, epoch ms or an ISO time, got ${JSON.stringify(o.since)}`);
  }
  if (o.limit !== undefined && !(Number.isInteger(o.limit) && o.limit >= 0)) throw new InvalidOptionError("limit", `listSessions: limit must be an integer ≥ 0, got ${JSON.stringify(o.limit)}`);
  if (o.cwd !== undefined && typeof o.cwd !== "string") throw new InvalidOptionError("cwd", "listSessions: cwd must be a path");
  const env = o.env ?? process.env;
  return { agents, since, limit: o.limit, env, ...(o.cwd !== undefined ? { cwd: sameDirs(o.cwd) } : {}) };
}

/** A directory as it may have been recorded: resolved, and its real path (symlinks). */
function sameDirs(dir: string): string[] {
  const out = [resolve(dir)];
  try { const r = realpathSync(dir); if (!out.includes(r)) out.push(r); } catch { /* not here: compared as given */ }
  return out;
}

const matchesCwd = (o: Checked, cwd: string | undefined) => o.cwd === undefined || (cwd !== undefined && o.cwd.includes(resolve(cwd)));

/** The store's root directory under `env` (undefined: no rule applies). */
export function storeRoot(spec: StoreSpec, env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const r of spec.root) {
    if (r.env !== undefined) {
      const v = env[r.env];
      if (v) return r.sub ? join(v, r.sub) : v;
    } else if (r.home !== undefined) {
      return join(env.HOME || homedir(), r.home);
    }
  }
  return undefined;
}

// ───────────────────────────── file stores ─────────────────────────────

function segmentRegex(seg: string): RegExp {
  return new RegExp("^" + seg.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$");
}

/** Files matching `pattern`'s segments under `root`; `filter(depth, dir name)` may prune a folder. */
export function walkPattern(root: string, pattern: string, filter?: (segment: number, name: string, path: string) => boolean): string[] {
  const segs = pattern.split("/");
  const out: string[] = [];
  const walk = (dir: string, i: number) => {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    let names: string[];
    if (!seg.includes("*")) names = [seg];
    else {
      try { names = readdirSync(dir); } catch { return; }
      const re = segmentRegex(seg);
      names = names.filter((n) => re.test(n)).sort();
    }
    for (const n of names) {
      const p = join(dir, n);
      if (filter && !filter(i, n, p)) continue;
      if (last) out.push(p);
      else walk(p, i + 1);
    }
  };
  walk(root, 0);
  return out;
}

/** Is this field value what the test asks? */
function passes(v: unknown, t: FieldTest): boolean {
  if (typeof t === "string") return v !== undefined && v !== null && typeof v !== "object" && String(v) === t;
  if ("in" in t) return v !== undefined && v !== null && typeof v !== "object" && t.in.includes(String(v));
  return t.exists ? v !== undefined && v !== null : v === undefined || v === null;
}

export function getPath(o: unknown, path: string): unknown {
  let v: any = o;
  for (const k of path.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = v[k];
  }
  return v;
}

/** A string as is; a list's text blocks (`{type: "text", text}` or `{text}`) joined. */
export function textOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    const parts = v.filter((b) => b && typeof b === "object" && typeof b.text === "string" && (b.type === undefined || b.type === "text" || b.type === "input_text")).map((b) => b.text as string);
    return parts.length ? parts.join("") : undefined;
  }
  return undefined;
}

/** The literal texts a line must contain to pass `where` (a cheap test before parsing it). */
function needles(where: HeadValue["where"]): string[] {
  const out: string[] = [];
  for (const [k, t] of Object.entries(where ?? {})) {
    const key = k.split(".").pop()!;
    if (typeof t === "string") out.push(JSON.stringify(t));
    else if (!("in" in t) && t.exists) out.push(JSON.stringify(key));
  }
  return out;
}

/** The head's lines, parsed once each, on demand. */
class HeadLines {
  private parsed = new Map<number, unknown>();
  constructor(readonly lines: string[], readonly partial: string | undefined) {}
  get(i: number): unknown {
    if (!this.parsed.has(i)) {
      let v: unknown;
      try { v = JSON.parse(this.lines[i]!); } catch { v = undefined; }
      this.parsed.set(i, v);
    }
    return this.parsed.get(i);
  }
  /** The first value a rule gives (rules in order); `fromEnd`: the last line's that has one. */
  value(rules: readonly HeadValue[] | undefined, fromEnd = false): unknown {
    for (let i = 0; i < (rules?.length ?? 0); i++) {
      const v = this.one(rules![i]!, fromEnd);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  private one(r: HeadValue, fromEnd: boolean): unknown {
    const need = needles(r.where);
    for (let k = 0; k < this.lines.length; k++) {
      const i = fromEnd ? this.lines.length - 1 - k : k;
      const text = this.lines[i]!;
      if (!need.every((n) => text.includes(n))) continue;
      const line = this.get(i);
      if (line === undefined || !Object.entries(r.where ?? {}).every(([p, t]) => passes(getPath(line, p), t))) continue;
      const v = pick(getPath(line, r.path), r);
      if (v !== undefined) return v;
    }
    // a line too long for the head: its start
    const text = this.lines.length === 0 ? this.partial : undefined;
    if (r.prefix && text !== undefined && need.every((n) => text.includes(n))) {
      const where = Object.keys(r.where ?? {});
      const got = prefixScalars(text, [...where, r.path]);
      if (Object.entries(r.where ?? {}).every(([p, t]) => passes(got.get(p), t))) return pick(got.get(r.path), r);
    }
    return undefined;
  }
}

function pick(v: unknown, r: HeadValue): unknown {
  if (r.text) {
    const t = textOf(v);
    if (t === undefined) return undefined;
    const s = t.trim();
    if (s === "" || (r.skipPrefixes ?? []).some((p) => s.startsWith(p))) return undefined;
    return s;
  }
  if (typeof v === "string" && (r.skipPrefixes ?? []).some((p) => v.trim().startsWith(p))) return undefined;
  return v === null ? undefined : v;
}

/** A title: its first line, at most TITLE_MAX characters. */
function titleText(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const line = v.trim().split("\n")[0]!.trim();
  if (!line) return undefined;
  return line.length > TITLE_MAX ? line.slice(0, TITLE_MAX - 1) + "…" : line;
}

/** An ISO time from an ISO text, epoch ms or epoch seconds. */
function isoTime(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) return new Date(v < 1e11 ? v * 1000 : v).toISOString();
  if (typeof v === "bigint") return isoTime(Number(v));
  if (typeof v === "string" && v) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  return undefined;
}

interface IndexRow { cwd?: string; title?: string; startedAt?: string; updatedAt?: string; version?: string; archived?: boolean; child: boolean }

/** The agent's own index table (its newest version), by session id; undefined when there is none or it cannot be read. */
function readIndex(store: FileStore, root: string): Map<string, IndexRow> | undefined {
  const ix = store.index;
  if (!ix) return undefined;
  const re = segmentRegex(ix.file);
  let names: string[];
  try { names = readdirSync(root).filter((n) => re.test(n)); } catch { return undefined; }
  const version = (n: string) => Number(/(\d+)/.exec(n)?.[1] ?? 0);
  const file = names.sort((a, b) => version(b) - version(a))[0];
  if (!file) return undefined;
  let db: SqliteReader | undefined;
  try {
    db = SqliteReader.open(join(root, file));
    const t = db.table(ix.table);
    if (!t) return undefined;
    const c = ix.columns;
    const cols = [c.id, c.cwd, ...(c.title ?? []), c.startedMs, c.updatedMs, c.version, c.archived, c.parent].filter((x): x is string => x !== undefined && t.columns.includes(x));
    const out = new Map<string, IndexRow>();
    for (const r of db.rows(ix.table, cols)) {
      const id = r[c.id];
      if (typeof id !== "string") continue;
      const str = (k: string | undefined) => (k !== undefined && typeof r[k] === "string" && r[k] !== "" ? (r[k] as string) : undefined);
      out.set(id, {
        cwd: str(c.cwd),
        title: (c.title ?? []).map(str).find((x) => x !== undefined),
        startedAt: c.startedMs ? isoTime(r[c.startedMs]) : undefined,
        updatedAt: c.updatedMs ? isoTime(r[c.updatedMs]) : undefined,
        version: str(c.version),
        archived: c.archived !== undefined && r[c.archived] !== undefined ? Number(r[c.archived]) !== 0 && r[c.archived] !== null : undefined,
        child: c.parent !== undefined && str(c.parent) !== undefined,
      });
    }
    return out;
  } catch {
    return undefined; // the index is an optimisation: the files are read instead
  } finally {
    db?.close();
  }
}

function listFiles(spec: StoreSpec, store: FileStore, root: string, o: Checked, out: StoredSession[]): void {
  const base = { agent: spec.agent, surface: spec.surface, liveAgent: spec.liveAgents[0]! };
  const index = readIndex(store, root);
  // the project folder's directory (read once per folder)
  const projectDirs = new Map<string, string | undefined>();
  const projectDir = (folder: string): string | undefined => {
    if (projectDirs.has(folder)) return projectDirs.get(folder);
    let dir: string | undefined;
    if (store.cwd.projectFile) {
      try { dir = readFileSync(join(folder, store.cwd.projectFile.file), "utf8").trim() || undefined; } catch { dir = undefined; }
    }
    projectDirs.set(folder, dir);
    return dir;
  };
  const projectSegment = store.cwd.projectFile?.segment ?? store.cwd.projectHash?.segment ?? store.cwd.slug?.segment;
  const hashes = o.cwd?.map((d) => createHash("sha256").update(d).digest("hex"));
  const slugs = store.cwd.slug && o.cwd?.map((d) => d.replace(store.cwd.slug!.replace, store.cwd.slug!.with));
  // prune project folders that cannot be the requested directory's
  const filter = o.cwd === undefined || projectSegment === undefined ? undefined : (seg: number, name: string, path: string) => {
    if (seg !== projectSegment) return true;
    if (slugs) {
      const max = store.cwd.slug!.max;
      return slugs.some((s) => s === name || (max !== undefined && s.length > max && name.startsWith(s.slice(0, max) + "-")));
    }
    const dir = projectDir(path);
    if (dir !== undefined) return matchesCwd(o, dir);
    return store.cwd.projectHash !== undefined && hashes!.includes(name);
  };
  for (const { pattern, archived } of store.files) {
    for (const path of walkPattern(root, pattern, filter)) {
      const entry = listFile(spec, store, root, path, index, projectSegment !== undefined ? folderOf(root, path, projectSegment) : undefined, projectDir, o);
      if (entry === undefined) continue;
      out.push({ ...base, ...entry, ...(archived && !entry.problem ? { archived: true } : {}) });
    }
  }
}

/** The folder of `path` at segment `n` of its path under `root`. */
function folderOf(root: string, path: string, n: number): string {
  const rel = path.slice(root.length + 1).split("/");
  return join(root, ...rel.slice(0, n + 1));
}

type Entry = Omit<StoredSession, "agent" | "surface" | "liveAgent">;

function listFile(spec: StoreSpec, store: FileStore, root: string, path: string, index: Map<string, IndexRow> | undefined, folder: string | undefined, projectDir: (f: string) => string | undefined, o: Checked): Entry | undefined {
  const nameId = store.id.name ? store.id.name.exec(basename(path))?.[1] : undefined;
  const problem = (why: string): Entry => ({ providerSessionId: nameId ?? "", sessionId: nameId ? storedSessionId(spec.agent, nameId) : "", path, problem: why });
  let stat;
  try { stat = statSync(path); } catch (e) { return problem(`cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`); }
  if (!stat.isFile()) return undefined;
  let lastActivityAt = new Date(stat.mtimeMs).toISOString();
  // the agent's index knows it: no head to read
  const known = nameId !== undefined ? index?.get(nameId) : undefined;
  if (known && known.cwd !== undefined) {
    if (known.child) return undefined;
    if (!matchesCwd(o, known.cwd)) return undefined;
    return {
      providerSessionId: nameId!, sessionId: storedSessionId(spec.agent, nameId!), path, cwd: known.cwd,
      ...(known.title !== undefined ? { title: titleText(known.title) } : {}),
      ...(known.startedAt ? { startedAt: known.startedAt } : {}),
      lastActivityAt: known.updatedAt ?? lastActivityAt,
      ...(known.version ? { version: known.version } : {}),
      ...(known.archived ? { archived: true } : {}),
    };
  }
  let head: HeadLines;
  let whole: boolean;
  try {
    const h = readHead(path, store.headBytes);
    head = new HeadLines(h.lines, h.partial);
    whole = h.stat.size <= store.headBytes;
  } catch (e) {
    return problem(`cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (head.value(store.skip) !== undefined) return undefined;
  const id = nameId ?? (head.value(store.id.head) as string | undefined);
  if (typeof id !== "string" || id === "") {
    return { ...problem(head.lines.length === 0 && head.partial === undefined ? "empty file" : `not a ${spec.product} session file (no session id in its first ${store.headBytes / 1024} KB)`), lastActivityAt };
  }
  let cwd = head.value(store.cwd.head) as string | undefined;
  if (typeof cwd !== "string" && folder !== undefined) cwd = projectDir(folder);
  if (typeof cwd !== "string" && folder !== undefined && store.cwd.projectHash && o.cwd) {
    const name = basename(folder);
    cwd = o.cwd.find((d) => createHash("sha256").update(d).digest("hex") === name);
  }
  if (!matchesCwd(o, typeof cwd === "string" ? cwd : undefined)) return undefined;
  const started = isoTime(head.value(store.started));
  const title = titleText(known?.title ?? head.value(store.title));
  if (store.skipUntitled && whole && title === undefined) return undefined;
  if (store.updated) {
    let tail: HeadLines = head;
    if (!whole) { try { tail = new HeadLines(readTail(path, stat.size, store.headBytes / 4), undefined); } catch { /* the modification time, then */ } }
    const updated = isoTime(tail.value(store.updated, true));
    if (updated) lastActivityAt = updated;
  }
  const version = head.value(store.version);
  return {
    providerSessionId: id,
    sessionId: storedSessionId(spec.agent, id),
    path,
    ...(typeof cwd === "string" ? { cwd } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(started ? { startedAt: started } : {}),
    lastActivityAt,
    ...(typeof version === "string" ? { version } : {}),
  };
}

// ───────────────────────────── SQLite stores ─────────────────────────────

function listSqlite(spec: StoreSpec, store: SqliteStore, root: string, o: Checked, out: StoredSession[]): void {
  const path = join(root, store.file);
  if (!existsSync(path)) return;
  const base = { agent: spec.agent, surface: spec.surface, liveAgent: spec.liveAgents[0]!, path };
  let db: SqliteReader | undefined;
  try {
    db = SqliteReader.open(path);
    const c = store.sessions.columns;
    const t = db.table(store.sessions.table);
    if (!t) throw new Error(`no table "${store.sessions.table}"`);
    const cols = Object.values(c).filter((x): x is string => x !== undefined && t.columns.includes(x));
    const found: StoredSession[] = [];
    for (const r of db.rows(store.sessions.table, cols)) {
      const id = r[c.id];
      if (typeof id !== "string" || id === "") continue;
      if (c.parent && typeof r[c.parent] === "string" && r[c.parent] !== "") continue; // a subagent's session: its parent's
      const cwd = typeof r[c.cwd] === "string" ? (r[c.cwd] as string) : undefined;
      if (!matchesCwd(o, cwd)) continue;
      const title = c.title ? titleText(r[c.title]) : undefined;
      const started = c.startedMs ? isoTime(r[c.startedMs]) : undefined;
      const updated = c.updatedMs ? isoTime(r[c.updatedMs]) : undefined;
      found.push({
        ...base,
        providerSessionId: id,
        sessionId: storedSessionId(spec.agent, id),
        ...(cwd !== undefined ? { cwd } : {}),
        ...(title !== undefined ? { title } : {}),
        ...(started ? { startedAt: started } : {}),
        ...(updated ? { lastActivityAt: updated } : {}),
        ...(c.version && typeof r[c.version] === "string" ? { version: r[c.version] as string } : {}),
        ...(c.archived && r[c.archived] !== null && r[c.archived] !== undefined ? { archived: true } : {}),
      });
    }
    if (store.turns && found.length) {
      const byId = new Map(found.map((s) => [s.providerSessionId, s]));
      const m = store.messages;
      const needle = `${JSON.stringify(store.turns.field)}:${JSON.stringify(store.turns.equals)}`;
      for (const s of found) s.turns = 0;
      for (const r of db.rows(m.table, [m.session, m.json])) {
        const s = byId.get(r[m.session] as string);
        const data = r[m.json];
        if (!s || typeof data !== "string" || !data.includes(needle)) continue;
        try { if (String((JSON.parse(data) as Record<string, unknown>)[store.turns.field]) === store.turns.equals) s.turns!++; } catch { /* not JSON: not a prompt */ }
      }
    }
    out.push(...found);
  } catch (e) {
    out.push({ ...base, providerSessionId: "", sessionId: "", problem: `cannot read the store: ${oneLine(e)}` });
  } finally {
    db?.close();
  }
}

const oneLine = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0]!;

export type { SqlValue };
