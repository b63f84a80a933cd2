/**
 * openSession: a stored session's records, read from disk as its restored-history surface expects them (stores.ts
 * says how), normalized into canonical events with the ids the live layer gives the same session.
 */
import { closeSync, openSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { createNormalizer, type CanonicalEvent, type Normalizer } from "../normalize/normalizer.js";
import { storedSessionIds, type IdFactory } from "../normalize/ids.js";
import { ERROR_CODES, InvalidOptionError, SessionStoreError } from "../errors.js";
import { readLineAt, readLines } from "./files.js";
import { linkOrder, type LinkRef } from "../normalize/link-order.js";
import { listSessions, storeRoot, walkPattern, type StoredSession } from "./list.js";
import { SqliteReader } from "./sqlite.js";
import { replayLines } from "./record-log.js";
import { agentSessionEvents } from "./agent.js";
import type { ConnectOptions } from "../live/types.js";
import { SESSION_AGENTS, STORES, linkRef, type FileStore, type LinkStoreOrder, type RecordLog, type SessionAgent, type SqliteStore } from "./stores.js";

export interface OpenOptions {
  /** Where to look for a session named by id (as listSessions' `env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Canonical ids (default: the stored session's — its session and first thread ids derived from agent and provider id, the rest random). */
  ids?: IdFactory;
  /** createdAt where a record carries no time of its own (default: Date.now). */
  clock?: () => number | Date | string;
  /** Keep each record in raw.payload (default true). */
  includeRaw?: boolean;
  /**
   * For a session the agent keeps on its side (listAgentSessions): how to run the agent to read it (bin, env,
   * timeouts, onStderr… as connect's; cwd defaults to the session's).
   */
  connect?: Omit<ConnectOptions, "agent" | "resume">;
}

/**
 * A stored session's canonical events: `ref` is a listed session, or its id — the provider's (`"<agent>:<id>"`, or the
 * bare id, looked up in every store) or the canonical one (`ses_…`). Streams from disk: a file is read line by line
 * up to its size when the read began (a line still being written is left out, with a runtime.warning).
 * Rejects with a SessionStoreError (code session_not_found / session_unreadable).
 */
export async function* openSession(ref: StoredSession | string, options: OpenOptions = {}): AsyncGenerator<CanonicalEvent> {
  if (ref && typeof ref === "object" && ref.origin === "agent") {
    // a session the agent keeps on its side (listAgentSessions): read through the agent
    if (typeof ref.providerSessionId !== "string" || ref.providerSessionId === "") throw new InvalidOptionError("ref", "openSession: ref must be a session listSessions or listAgentSessions returned, or a session id");
    yield* agentSessionEvents(ref, options.connect);
    return;
  }
  const s = await resolveRef(ref, options);
  const spec = STORES[s.agent as SessionAgent];
  const normalizer = createNormalizer({
    surface: spec.surface,
    ids: options.ids ?? storedSessionIds(s.agent, s.providerSessionId),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.includeRaw !== undefined ? { includeRaw: options.includeRaw } : {}),
  });
  const warnings: string[] = [];
  const store = spec.store;
  if (store.kind === "sqlite") yield* sqliteEntries(normalizer, store, s);
  else {
    const files = [s.path, ...childFiles(store, s)];
    for (const file of files) {
      if (store.framing.kind === "record-log") yield* recordLog(normalizer, store.framing, file, warnings);
      else if (store.order.kind === "links") yield* linked(normalizer, store.order, file, warnings);
      else yield* lines(normalizer, file, warnings);
    }
  }
  for (const message of warnings) yield* normalizer.hostEvent({ type: "runtime.warning", payload: { message }, rule: "agentnorm#sessions" });
  yield* normalizer.end();
}

async function resolveRef(ref: StoredSession | string, o: OpenOptions): Promise<StoredSession> {
  if (ref && typeof ref === "object") {
    if (!(SESSION_AGENTS as readonly string[]).includes(ref.agent) || typeof ref.path !== "string" || typeof ref.providerSessionId !== "string") {
      throw new InvalidOptionError("ref", "openSession: ref must be a session listSessions returned, or a session id");
    }
    if (ref.problem !== undefined) throw new SessionStoreError(ERROR_CODES.SESSION_UNREADABLE, `${ref.path}: ${ref.problem}`);
    return ref;
  }
  if (typeof ref !== "string" || ref === "") throw new InvalidOptionError("ref", "openSession: ref must be a session listSessions returned, or a session id");
  const found = await findSession(ref, o.env);
  if (!found) throw new SessionStoreError(ERROR_CODES.SESSION_NOT_FOUND, `no stored session "${ref}" (looked in the stores of ${SESSION_AGENTS.join(", ")})`);
  if (found.problem !== undefined) throw new SessionStoreError(ERROR_CODES.SESSION_UNREADABLE, `${found.path}: ${found.problem}`);
  return found;
}

/** A listed session by `<agent>:<provider id>`, provider id, canonical id, or a unique prefix of one of them. */
export async function findSession(ref: string, env?: OpenOptions["env"]): Promise<StoredSession | undefined> {
  const colon = ref.indexOf(":");
  const agent = colon > 0 && (SESSION_AGENTS as readonly string[]).includes(ref.slice(0, colon)) ? (ref.slice(0, colon) as SessionAgent) : undefined;
  const id = agent ? ref.slice(colon + 1) : ref;
  const all = await listSessions({ ...(agent ? { agents: [agent] } : {}), ...(env ? { env } : {}) });
  const exact = all.filter((s) => s.providerSessionId === id || s.sessionId === id);
  if (exact.length) return exact[0];
  const prefixed = all.filter((s) => id.length >= 4 && (s.providerSessionId.startsWith(id) || s.sessionId.startsWith(id)));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** The session's subagent files (store.children), sorted. */
function childFiles(store: FileStore, s: StoredSession): string[] {
  if (!store.children) return [];
  const dir = join(dirname(s.path), store.children.dir.replace("{id}", s.providerSessionId));
  return walkPattern(dir, store.children.file);
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (e) {
    throw new SessionStoreError(ERROR_CODES.SESSION_UNREADABLE, `${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
}

const partialNote = (file: string, bytes: number) => `${basename(file)}: its last ${bytes} byte(s) are not a whole line (being written?): read up to its last whole line`;

/** One record per line, in file order. */
async function* lines(n: Normalizer, file: string, warnings: string[]): AsyncGenerator<CanonicalEvent> {
  let lineNumber = 0;
  for await (const l of readLines(file, sizeOf(file), (bytes) => warnings.push(partialNote(file, bytes)))) {
    lineNumber++;
    if (l.text.trim() === "") continue;
    yield* n.pushLine(l.text, { lineNumber });
  }
}

/**
 * Records linked by parent ids (Claude Code appends them asynchronously: the file's order can differ from the
 * conversation's), read in conversation order: a first pass keeps only each line's place, id, parents and time;
 * the second reads the lines in order. The tree of parent links is walked depth-first (children in file order; lines
 * no walk reaches after it, in file order); lines without an id go before the first tree line later than them.
 */
async function* linked(n: Normalizer, order: LinkStoreOrder, file: string, warnings: string[]): AsyncGenerator<CanonicalEvent> {
  const refs: (LinkRef & { offset: number; length: number; line: number })[] = [];
  let lineNumber = 0;
  for await (const l of readLines(file, sizeOf(file), (bytes) => warnings.push(partialNote(file, bytes)))) {
    lineNumber++;
    if (l.text.trim() === "") continue;
    let v: any;
    try { v = JSON.parse(l.text); } catch { v = undefined; }
    refs.push({ offset: l.offset, length: l.length, line: lineNumber, ...linkRef(v, order) });
  }
  const fd = openSync(file, "r");
  try {
    for (const i of linkOrder(refs)) { const r = refs[i]!; yield* n.pushLine(readLineAt(fd, r.offset, r.length), { lineNumber: r.line }); }
  } finally {
    closeSync(fd);
  }
}

/**
 * A record log (stores.ts RecordLog): replayed to the session it says at its end — memory holds the session's
 * messages, since a later record may replace or remove any of them — then the header and the messages, in order.
 */
async function* recordLog(n: Normalizer, log: RecordLog, file: string, warnings: string[]): AsyncGenerator<CanonicalEvent> {
  const { replayed, others } = await replayLines(log, readLines(file, sizeOf(file), (bytes) => warnings.push(partialNote(file, bytes))));
  if (others.length) warnings.push(`${basename(file)}: ${others.length} line(s) are not records of this log (not JSON, or of no known kind): left out`);
  const { header, messages } = replayed;
  yield* n.push(header);
  for (const m of messages) yield* n.push(m.message);
}

/**
 * A SQLite store's session: its messages in order, each with its parts (an entry per message); with `children`, its
 * child sessions' messages among them, in the same order.
 */
async function* sqliteEntries(n: Normalizer, store: SqliteStore, s: StoredSession): AsyncGenerator<CanonicalEvent> {
  let db: SqliteReader;
  try {
    db = SqliteReader.open(s.path);
  } catch (e) {
    throw new SessionStoreError(ERROR_CODES.SESSION_UNREADABLE, (e as Error).message, { cause: e });
  }
  try {
    const m = store.messages, p = store.parts;
    const parseJson = (v: unknown): Record<string, unknown> => { try { const o = JSON.parse(String(v)); return o && typeof o === "object" && !Array.isArray(o) ? o : {}; } catch { return {}; } };
    let msgs: Record<string, unknown>[];
    const parts = new Map<string, Record<string, unknown>[]>();
    try {
      // the session, and (store.children) its child sessions and theirs
      const sessions = new Set([s.providerSessionId]);
      const parent = store.sessions.columns.parent;
      if (store.children && parent) {
        const kids = new Map<string, string[]>();
        for (const r of db.rows(store.sessions.table, [store.sessions.columns.id, parent])) {
          const id = r[store.sessions.columns.id], of = r[parent];
          if (typeof id === "string" && typeof of === "string" && of !== "") kids.set(of, [...(kids.get(of) ?? []), id]);
        }
        for (const id of sessions) for (const k of kids.get(id) ?? []) sessions.add(k);
      }
      msgs = [];
      for (const r of db.rows(m.table, [m.id, m.session, m.json, ...m.order.filter((c) => c !== m.id)])) if (sessions.has(r[m.session] as string)) msgs.push(r);
      const key = (r: Record<string, unknown>) => m.order.map((c) => r[c]);
      msgs.sort((a, b) => { const ka = key(a), kb = key(b); for (let i = 0; i < ka.length; i++) { if (ka[i]! < kb[i]!) return -1; if (ka[i]! > kb[i]!) return 1; } return 0; });
      for (const r of db.rows(p.table, [p.id, p.message, p.session, p.json])) {
        if (!sessions.has(r[p.session] as string)) continue;
        const list = parts.get(r[p.message] as string) ?? [];
        list.push(r);
        parts.set(r[p.message] as string, list);
      }
    } catch (e) {
      throw new SessionStoreError(ERROR_CODES.SESSION_UNREADABLE, (e as Error).message, { cause: e });
    }
    const { sessionKey, messageKey } = store.entry;
    for (const r of msgs) {
      const mid = r[m.id] as string;
      const sid = r[m.session] as string;
      const ps = (parts.get(mid) ?? []).sort((a, b) => (String(a[p.id]) < String(b[p.id]) ? -1 : 1));
      const info = { id: mid, [sessionKey]: sid, ...parseJson(r[m.json]) };
      const entryParts = ps.map((x) => ({ id: x[p.id], [sessionKey]: sid, [messageKey]: mid, ...parseJson(x[p.json]) }));
      yield* n.push({ info, parts: entryParts });
    }
  } finally {
    db.close();
  }
}

export { storeRoot };
