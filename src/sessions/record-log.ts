/**
 * Replaying a record log (stores.ts RecordLog: Gemini CLI's chat files) to the session it says at its end: a header
 * record, message records (added, or replacing the message of the same key in its place), `set` records (fields of
 * the session replaced; `list` among them replaces every message) and `rewind` records (that message and every later
 * one removed). One replay for agentnorm/sessions' openSession and for the CLI reading such a file. Each record is
 * given with a tag of the caller's (its line); the result keeps the tags. No Node APIs.
 */
import { SESSION_AGENTS, STORES, type RecordLog } from "./stores.js";

/** The record log the store of a surface's sessions is (Gemini CLI's chat files), if it is one. */
export function recordLogOf(surface: string | undefined): RecordLog | undefined {
  for (const a of SESSION_AGENTS) {
    const { surface: of, store } = STORES[a];
    if (of === surface && store.kind === "files" && store.framing.kind === "record-log") return store.framing;
  }
  return undefined;
}

/** A record that changes the session without being a message or the header: a `set` or a `rewind` record. */
export function isLogUpdate(r: unknown, log: RecordLog): boolean {
  return isObject(r) && (typeof r[log.rewind] === "string" || isObject(r[log.set]));
}

export interface Replayed<T> {
  /** The session's fields: the header record's, then what `set` records changed (without `list`). */
  header: Record<string, unknown>;
  /** The tag of the header record (the first one), if there was one. */
  headerTag?: T;
  /** The session's messages in order, each with the tag of the record that last set it (`listed`: one of its list's). */
  messages: { message: Record<string, unknown>; tag?: T; listed?: boolean }[];
  /** Records the log applied that are no message: `set` and `rewind` records. */
  applied: number;
  /** Message records a later record replaced or removed. */
  superseded: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

export class RecordLogReplay<T> {
  private header: Record<string, unknown> = {};
  private headerTag?: T;
  private readonly messages = new Map<string, { message: Record<string, unknown>; tag?: T; listed?: boolean }>();
  private applied = 0;
  private superseded = 0;

  constructor(private readonly log: RecordLog) {}

  /** One record of the log; false when it is none of the log's kinds (the caller says so). */
  add(r: unknown, tag?: T): boolean {
    const log = this.log;
    if (!isObject(r)) return false;
    if (typeof r[log.rewind] === "string") {
      this.applied++;
      let found = false;
      for (const k of [...this.messages.keys()]) {
        if (k === r[log.rewind]) found = true;
        if (found) { this.messages.delete(k); this.superseded++; }
      }
      if (!found) { this.superseded += this.messages.size; this.messages.clear(); }
    } else if (typeof r[log.key] === "string") {
      if (this.messages.has(r[log.key] as string)) this.superseded++;
      this.messages.set(r[log.key] as string, { message: r, tag });
    } else if (isObject(r[log.set])) {
      this.applied++;
      const set = r[log.set] as Record<string, unknown>;
      if (Array.isArray(set[log.list])) { this.superseded += this.messages.size; this.messages.clear(); this.addAll(set[log.list], tag); }
      const { [log.list]: _, ...rest } = set;
      this.header = { ...this.header, ...rest };
    } else if (log.header.every((k) => typeof r[k] === "string")) {
      const { [log.list]: list, ...rest } = r;
      this.header = { ...this.header, ...rest };
      this.headerTag ??= tag;
      this.addAll(list, tag);
    } else return false;
    return true;
  }

  /** A record's list of messages (a header's, a `set`'s): each with that record's tag. */
  private addAll(list: unknown, tag: T | undefined): void {
    if (Array.isArray(list)) for (const m of list) if (isObject(m) && typeof m[this.log.key] === "string") this.messages.set(m[this.log.key] as string, { message: m, tag, listed: true });
  }

  result(): Replayed<T> {
    return { header: this.header, headerTag: this.headerTag, messages: [...this.messages.values()], applied: this.applied, superseded: this.superseded };
  }
}

/**
 * A log's lines replayed (blank lines skipped): the session it ends with, each message tagged with the line that last
 * set it, and the lines that are no record of the log (not JSON, or of no kind it knows), in order.
 */
export async function replayLines<L extends { text: string }>(log: RecordLog, lines: AsyncIterable<L>): Promise<{ replayed: Replayed<L>; others: L[] }> {
  const replay = new RecordLogReplay<L>(log);
  const others: L[] = [];
  for await (const l of lines) {
    if (l.text.trim() === "") continue;
    let r: unknown;
    try { r = JSON.parse(l.text); } catch { others.push(l); continue; }
    if (!replay.add(r, l)) others.push(l);
  }
  return { replayed: replay.result(), others };
}
