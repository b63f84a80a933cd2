/**
 * raw.payload once per native message in an output stream.
 *
 * In memory, every event a native message produced has that message as raw.payload (the same object: no copy).
 * Written out, that would repeat the message once per event (a delta line that also opens its item would be
 * written twice, each time whole), so a stream writes it once:
 *  - the *holder*, one event of the message's events, keeps raw.payload;
 *  - every other event of that message has raw.payloadRef = the holder's eventId instead (no raw.payload). The
 *    events of one message are adjacent in the stream; the holder may come before or after the events that refer
 *    to it (it is the event that shares the most text with the message, see below, else the first);
 *  - raw.payloadShared: on the holder, long strings (≥ SHARE_MIN characters) of the message that the holder
 *    carries verbatim in its own fields are not written twice: raw.payload has null at their place, and
 *    payloadShared maps that place (a JSON Pointer into raw.payload) to the holder's field (a JSON Pointer into the
 *    event), e.g. {"/params/delta": "/payload/delta"}. So a 50 MB delta is written once, not three times.
 * Readers resolve both (createRawResolver for a stream, resolveRawPayloads for an array): the resolved events are
 * the in-memory form again (raw.payload on every event, no payloadRef / payloadShared).
 * Pure; no Node APIs.
 */
import type { CanonicalEvent } from "./state.js";

/** Strings at least this long are shared between raw.payload and the holder's fields instead of written twice. */
export const SHARE_MIN = 4096;
/** Events a resolver holds while waiting for a holder that comes later (then they pass unresolved). */
const MAX_PENDING = 4096;

type Raw = Record<string, unknown> & { payload?: unknown; payloadRef?: string; payloadShared?: Record<string, string> };

const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
const unesc = (k: string) => k.replace(/~1/g, "/").replace(/~0/g, "~");

/** Long strings of a value, by content → the JSON Pointer of the first place each sits (bounded walk). */
function longStrings(v: unknown, base: string, out: Map<string, string>, budget = { n: 10_000 }, depth = 0): Map<string, string> {
  if (budget.n-- <= 0 || depth > 64) return out;
  if (typeof v === "string") {
    if (v.length >= SHARE_MIN && !out.has(v)) out.set(v, base);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) longStrings(v[i], `${base}/${i}`, out, budget, depth + 1);
  } else if (v && typeof v === "object") {
    for (const k of Object.keys(v)) longStrings((v as Record<string, unknown>)[k], `${base}/${esc(k)}`, out, budget, depth + 1);
  }
  return out;
}

/** A copy of `v` with the strings found in `long` replaced by null; their places → the holder's pointers. */
function stripShared(v: unknown, base: string, long: Map<string, string>, shared: Record<string, string>, depth = 0): unknown {
  if (typeof v === "string") {
    const at = v.length >= SHARE_MIN ? long.get(v) : undefined;
    if (at === undefined) return v;
    shared[base || "/"] = at;
    return null;
  }
  if (!v || typeof v !== "object" || depth > 64) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = stripShared(v[i], `${base}/${i}`, long, shared, depth + 1);
      if (x !== v[i]) (out ??= v.slice())[i] = x;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const x0 = (v as Record<string, unknown>)[k];
    const x = stripShared(x0, `${base}/${esc(k)}`, long, shared, depth + 1);
    if (x !== x0) {
      out ??= copyOwn(v as Record<string, unknown>);
      Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    }
  }
  return out ?? v;
}

function copyOwn(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return out;
}

/** raw's JSON fields (not the normalizer's symbol-keyed source text), in order, without payload. */
function rawFields(raw: Raw): Raw {
  const out: Raw = {};
  for (const k of Object.keys(raw)) if (k !== "payload" && k !== "payloadRef" && k !== "payloadShared") out[k] = raw[k];
  return out;
}

/**
 * One push() batch in its stream form: raw.payload once per native message (see the module comment). Events that
 * need no change are returned as they are; the others are shallow copies (the input is not modified).
 */
export function shareRawPayloads(batch: readonly CanonicalEvent[]): CanonicalEvent[] {
  // Group the batch's events by their message (objects by identity, texts by value).
  let groups: Map<unknown, number[]> | undefined;
  for (let i = 0; i < batch.length; i++) {
    const p = (batch[i].raw as unknown as Raw | undefined)?.payload;
    if (p === undefined || p === null) continue;
    (groups ??= new Map()).set(p, [...(groups.get(p) ?? []), i]);
  }
  if (!groups) return batch as CanonicalEvent[];
  const out = batch.slice();
  for (const [message, idx] of groups) {
    // The holder: the event whose own fields carry the most of the message's long strings.
    let holder = idx[0];
    let long: Map<string, string> | undefined;
    let best = 0;
    for (const i of idx) {
      const mine = longStrings(batch[i].payload, "/payload", new Map());
      if (!mine.size) continue;
      let size = 0;
      for (const s of mine.keys()) size += s.length;
      if (size > best) { best = size; holder = i; long = mine; }
    }
    if (long) {
      const shared: Record<string, string> = {};
      const stripped = stripShared(message, "", long, shared);
      if (Object.keys(shared).length) {
        const e = batch[holder];
        out[holder] = { ...e, raw: { ...rawFields(e.raw as unknown as Raw), payload: stripped, payloadShared: shared } } as CanonicalEvent;
      }
    }
    if (idx.length === 1) continue;
    const ref = batch[holder].eventId;
    for (const i of idx) {
      if (i === holder) continue;
      const e = batch[i];
      out[i] = { ...e, raw: { ...rawFields(e.raw as unknown as Raw), payloadRef: ref } } as CanonicalEvent;
    }
  }
  return out;
}

function getPointer(v: unknown, ptr: string): unknown {
  if (ptr === "" || ptr === "/") return v;
  let cur: any = v;
  for (const part of ptr.split("/").slice(1)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = cur[unesc(part)];
  }
  return cur;
}

function setPointer(root: unknown, ptr: string, value: unknown): unknown {
  if (ptr === "" || ptr === "/") return value;
  const parts = ptr.split("/").slice(1).map(unesc);
  const walk = (v: unknown, i: number): unknown => {
    if (v === null || typeof v !== "object") return v;
    const k = parts[i];
    const copy: any = Array.isArray(v) ? v.slice() : copyOwn(v as Record<string, unknown>);
    const next = i === parts.length - 1 ? value : walk((v as any)[k], i + 1);
    if (Array.isArray(copy)) copy[Number(k)] = next;
    else Object.defineProperty(copy, k, { value: next, enumerable: true, writable: true, configurable: true });
    return copy;
  };
  return walk(root, 0);
}

/** The holder's full raw.payload (its payloadShared strings put back). */
function fullPayload(e: CanonicalEvent): unknown {
  const raw = e.raw as unknown as Raw;
  let p = raw.payload;
  if (raw.payloadShared && typeof raw.payloadShared === "object") {
    for (const [at, from] of Object.entries(raw.payloadShared)) p = setPointer(p, at, getPointer(e, from));
  }
  return p;
}

function resolved(e: CanonicalEvent, payload: unknown): CanonicalEvent {
  return { ...e, raw: { ...rawFields(e.raw as unknown as Raw), payload } } as CanonicalEvent;
}

export interface RawResolver {
  /** The next event of a stream → the events now resolved (in stream order; an event waiting for its holder is held). */
  push(e: CanonicalEvent): CanonicalEvent[];
  /** The held events (a payloadRef that never resolved stays as it is). */
  end(): CanonicalEvent[];
  /** payloadRefs that named no holder in the stream (so far). */
  unresolved(): number;
}

/** Resolves payloadRef / payloadShared over a stream (src/normalize/raw-stream.ts module comment). */
export function createRawResolver(): RawResolver {
  const holders = new Map<string, unknown>();
  const order: string[] = [];
  const queue: CanonicalEvent[] = [];
  let missing = 0;
  const remember = (id: string, p: unknown) => {
    holders.set(id, p);
    order.push(id);
    if (order.length > MAX_PENDING) holders.delete(order.shift()!);
  };
  const ready = (e: CanonicalEvent) => {
    const ref = (e.raw as unknown as Raw | undefined)?.payloadRef;
    return typeof ref !== "string" || holders.has(ref);
  };
  const settle = (e: CanonicalEvent): CanonicalEvent => {
    const raw = e.raw as Raw | undefined;
    if (!raw || typeof raw !== "object") return e;
    if (typeof raw.payloadRef === "string") {
      if (!holders.has(raw.payloadRef)) { missing++; return e; }
      return resolved(e, holders.get(raw.payloadRef));
    }
    if (raw.payloadShared) return resolved(e, fullPayload(e));
    return e;
  };
  return {
    push(e) {
      const raw = e?.raw as Raw | undefined;
      if (raw && typeof raw === "object" && typeof e.eventId === "string" && raw.payload !== undefined && raw.payloadRef === undefined) remember(e.eventId, fullPayload(e));
      if (!queue.length && ready(e)) return [settle(e)];
      queue.push(e);
      const out: CanonicalEvent[] = [];
      while (queue.length && (ready(queue[0]) || queue.length > MAX_PENDING)) out.push(settle(queue.shift()!));
      return out;
    },
    end() {
      const out = queue.map(settle);
      queue.length = 0;
      return out;
    },
    unresolved: () => missing,
  };
}

/** A whole stream (an array) with payloadRef / payloadShared resolved. */
export function resolveRawPayloads(events: readonly CanonicalEvent[]): CanonicalEvent[] {
  const r = createRawResolver();
  const out: CanonicalEvent[] = [];
  for (const e of events) out.push(...r.push(e));
  out.push(...r.end());
  return out;
}

/** Whether an event carries a stream-form raw link (payloadRef or payloadShared). */
export function hasRawLink(e: unknown): boolean {
  const raw = (e as { raw?: Raw } | null)?.raw;
  return !!raw && typeof raw === "object" && (raw.payloadRef !== undefined || raw.payloadShared !== undefined);
}
