/**
 * The canonical envelope: event ids, sequence, createdAt, session, the role ids and providerRefs of the row's
 * entities (fields from the grammar's roles), and raw (the provider message, or its own text via pushLine).
 */
import type { IdKind, ProviderKind, RuntimeEventSource, RuntimeSessionId } from "../../generated/canonical.gen.js";
import { CANONICAL_SCHEMA_VERSION, DATE_TIME_FORMAT, ID_PREFIXES } from "../../generated/canonical.gen.js";
import { ENVELOPE_FIELD, newEvent, REF_FIELD } from "../../generated/grammar.gen.js";
import type { Entity } from "./entities.js";
import { isoTime } from "./iso-time.js";
import type { IdFactory } from "./ids.js";
import type { Role } from "./table-types.js";

/** On raw: the provider's own text of raw.payload when it came through pushLine (a symbol: JSON.stringify skips it). */
export const SOURCE_TEXT = Symbol("agentnorm.sourceText");

/** Per role: WAS_OPEN (open before this row), FRESH (opened by this row), STALE (closed before this row). */
export const WAS_OPEN = 1;
export const FRESH = 2;
export const STALE = 4;

export interface EnvelopeOptions {
  clock: () => number | Date | string;
  ids: IdFactory;
  /** The ids come from the host's factory: each is checked (the built-in factories make valid ids). */
  checkIds?: boolean;
  includeRaw: boolean;
  /** The sequence before the first event's (default 0). */
  sequenceAfter?: number;
}

/** What may follow an id's prefix (the canonical id patterns). */
const ID_TEXT = /^[A-Za-z0-9._:-]+$/;

export class Envelope {
  /** The canonical session of the events built now: the normalizer's own, or the session being mapped (sessions.ts). */
  sessionId: RuntimeSessionId;
  private sequence: number;
  private lastT?: number;
  private lastIso = "";
  /** The message pushLine is pushing, and its source text (raw.payload keeps the provider's own bytes). */
  lineMessage: unknown;
  lineText: string | undefined;
  /** The time the message being mapped carries (the table's `time`), else undefined: the clock gives createdAt. */
  messageTime: string | undefined;
  /** The table's `time` and the message it reads, until the message's first event needs it (then messageTime). */
  private timeFn: ((message: any, cx: any) => string | undefined) | undefined;
  private timeMessage: unknown;
  private timeCx: unknown;
  /** A clock text that is not a date-time, until the normalizer reports it (once). */
  clockProblem: string | undefined;
  private clockReported = false;

  constructor(private readonly o: EnvelopeOptions) {
    this.sequence = o.sequenceAfter ?? 0;
    this.sessionId = this.mint("RuntimeSessionId") as RuntimeSessionId;
  }

  /**
   * Map `message` with its own time (the table's `time`), read when its first event is built (a message with no
   * event never pays for it); else the time in force before it (an outer message's), else the clock. `done()` after.
   */
  timeFrom(time: (message: any, cx: any) => string | undefined, message: unknown, cx: unknown): string | undefined {
    this.settleTime();
    const outer = this.messageTime;
    this.timeFn = time;
    this.timeMessage = message;
    this.timeCx = cx;
    return outer;
  }

  /** The message timeFrom() named is mapped: the time before it is in force again. */
  timeDone(outer: string | undefined): void {
    this.timeFn = undefined;
    this.timeMessage = this.timeCx = undefined;
    this.messageTime = outer;
  }

  private settleTime(): void {
    const f = this.timeFn;
    if (f === undefined) return;
    this.timeFn = undefined;
    const t = f(this.timeMessage, this.timeCx);
    if (t !== undefined) this.messageTime = t;
  }

  mint(kind: IdKind): string {
    const id = this.o.ids(kind);
    // The envelope is built, not validated per event: an id factory of the host's own is checked here.
    if (this.o.checkIds && (typeof id !== "string" || !ID_TEXT.test(id))) throw new TypeError(`ids: the id factory returned ${JSON.stringify(id)} for ${kind}; an id is a non-empty string of A-Z a-z 0-9 . _ : -`);
    return `${ID_PREFIXES[kind]}_${id}`;
  }

  now(): string {
    const t = this.o.clock();
    if (typeof t === "string") {
      if (t === this.lastIso) return t;
      if (DATE_TIME_FORMAT.test(t)) {
        this.lastIso = t;
        this.lastT = undefined;
        return t;
      }
      // Not a date-time: the system clock dates the event, and the normalizer says so once (clockProblem).
      if (!this.clockReported) { this.clockProblem = t; this.clockReported = true; }
      return new Date().toISOString();
    }
    const ms = typeof t === "number" ? t : t.getTime();
    if (ms !== this.lastT) {
      this.lastT = ms;
      this.lastIso = ms >= 0 && ms < 253402300800000 ? isoTime(ms) : new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** The event, envelope first; a row's new entities remember the payload's scalar fields (their state). */
  event(type: string, payload: any, provider: ProviderKind, source: RuntimeEventSource, method: string | undefined, raw: unknown, rule: string, ids: Partial<Record<Role, Entity>>, flags: Partial<Record<Role, number>>, answerOf: Entity["openedIn"]): any {
    if (this.timeFn !== undefined) this.settleTime();
    const ev: any = newEvent(this.mint("EventId"), CANONICAL_SCHEMA_VERSION, ++this.sequence, type, provider, this.sessionId, this.messageTime ?? this.now());
    let refs: Record<string, string> | undefined;
    for (const role in ids) {
      const e = ids[role as Role];
      if (e === undefined) continue;
      const f = ENVELOPE_FIELD[role as Role];
      if (f) ev[f] = e.id;
      const rf = REF_FIELD[role as Role];
      if (rf && e.providerId !== undefined) (refs ??= {})[rf] = e.providerId;
      if (flags[role as Role]! & FRESH) {
        for (const k in payload) {
          const v = payload[k];
          if (v === null || typeof v !== "object") e.state[k] = v;
        }
      }
    }
    // An answer names the turn and item its request was asked in, whichever message answered it (a turn's end
    // settling requests still open from an earlier turn; a reply naming another item): theirs replace the row's.
    const o = answerOf;
    if (o) {
      if (o.turnId !== undefined && ev.turnId !== o.turnId) {
        ev.turnId = o.turnId;
        if (o.providerTurnId !== undefined) (refs ??= {}).providerTurnId = o.providerTurnId;
        else refs = without(refs, "providerTurnId");
      }
      if (o.itemId !== undefined && ev.itemId !== o.itemId) {
        ev.itemId = o.itemId;
        if (o.providerItemId !== undefined) (refs ??= {}).providerItemId = o.providerItemId;
        else refs = without(refs, "providerItemId");
      }
    }
    if (refs) ev.providerRefs = refs;
    ev.payload = payload;
    // includeRaw false: no raw.payload at all (raw.source/method/rule stay)
    if (!this.o.includeRaw) {
      ev.raw = method === undefined ? { source, rule } : { source, method, rule };
      return ev;
    }
    const msg = raw === undefined ? null : raw;
    ev.raw = method === undefined ? { source, rule, payload: msg } : { source, method, rule, payload: msg };
    if (msg === this.lineMessage && this.lineText !== undefined) ev.raw[SOURCE_TEXT] = this.lineText;
    return ev;
  }
}

/** `refs` without `key`; undefined when nothing is left (an event names no empty providerRefs). */
function without(refs: Record<string, string> | undefined, key: string): Record<string, string> | undefined {
  if (refs === undefined) return undefined;
  delete refs[key];
  for (const _ in refs) return refs;
  return undefined;
}
