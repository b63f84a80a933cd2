/**
 * Capture → fixture → replay (fixtures/replay/README.md):
 *  - capturingNormalizer: a normalizer that records every stage (native_in, normalized_out, legacy_out) while it
 *    normalizes (`agentnorm normalize --capture`, the recording converter);
 *  - sanitizeCapture: a capture → a deterministic fixture (no timestamp/captureId, sequences 1..N, canonical ids
 *    and UUIDs renumbered in order of first appearance, createdAt from a fixed clock, raw.payload (and its
 *    stream links payloadRef / payloadShared) dropped from normalized_out since native_in holds it, redaction
 *    applied again). A capture writes normalized_out without raw.payload in the first place: the message is the
 *    native_in record before the events it produced;
 *  - replayFixture: native_in → the normalizer, compared with the fixture's normalized_out (and legacy_out, when
 *    a projection is wired in); or normalized_out → the accumulator hook (src/render/render-hooks.ts), compared with an
 *    expected snapshot. Mismatches come with a readable line diff; `update` gives the rewritten fixture.
 * No Node APIs.
 */
import type { HostEvent } from "../normalize/engine.js";
import { ID_PREFIXES } from "../../generated/canonical.gen.js";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import {
  CAPTURE_SCHEMA_VERSION, nativeEventType, serializeRecord, type CaptureRecord, type CaptureWriter, type FixtureRecord, type Redaction,
} from "./capture.js";
import { StreamRedactor, type StreamPiece } from "./stream-redact.js";
import { counterIds, steppingClock } from "../normalize/ids.js";
import { createNormalizer, type CanonicalEvent, type Direction, type Normalizer } from "../normalize/normalizer.js";
import { unwrapCaptureLine, type NativeMeta } from "./unwrap.js";
import { createRedactor, type RedactOptions, type Redactor } from "./redact.js";
import { accumulatorSnapshot, createLegacyProjection, legacyEventType, type LegacyProjection, type SnapshotFn } from "../render/render-hooks.js";

// ── capture while normalizing ────────────────────────────────────────────────────────────────────────────


export interface CapturingNormalizer {
  /**
   * Capture a message (native_in), normalize it, capture its events (normalized_out, legacy_out). `events` are the
   * message's canonical events; `lines` the capture lines ready to write — which may belong to earlier messages:
   * a message carrying streamed text is held until its text can be judged (src/capture/stream-redact.ts).
   */
  push(message: unknown, meta?: NativeMeta): { events: CanonicalEvent[]; lines: string };
  /** A line that is not JSON: captured as eventType "unparsed_line" with the text as payload, then pushLine'd. */
  pushUnparsed(line: string, lineNumber?: number): { events: CanonicalEvent[]; lines: string };
  /** The stream's end: its events, and every capture line still held. */
  end(): { events: CanonicalEvent[]; lines: string };
  /**
   * An event on the host's behalf (Normalizer.hostEvent: a live session's synthesized turn end, a settled request, a
   * crash): its events captured (normalized_out) in order with the messages' lines, after what is still held.
   */
  host(h: HostEvent): { events: CanonicalEvent[]; lines: string };
}

/** At most this many messages wait behind held streamed text; more, and everything held is judged. */
const MAX_QUEUED = 256;
/** The canonical events that end a turn or a session: every stream still held is judged. */
const ENDS_ALL = new Set(["turn.completed", "turn.aborted", "session.exited", "session.state.changed", "thread.state.changed"]);
/** The fields of a provider message a streamed delta may sit in (its text is found there, by value). */
const DELTA_KEYS = new Set(["delta", "text", "thinking", "content", "chunk", "output", "partial_json", "partialJson", "summary", "reasoning", "message"]);

interface Delta { piece: StreamPiece; paths: (string | number)[][]; event: number; field: "delta" | "partialJson" }
interface Group {
  kind: "native" | "unparsed" | "end" | "host";
  /** kind host: the shadow's events for the same host event. */
  shadowEvents?: CanonicalEvent[];
  message?: unknown;
  line?: string;
  meta: NativeMeta;
  sessionId: string | null;
  turnId: string | null;
  events: CanonicalEvent[];
  deltas: Delta[];
}

/** A canonical event that appends streamed text: its stream key and text. */
function streamOf(e: CanonicalEvent): { key: string; text: string; field: "delta" | "partialJson" } | undefined {
  const p = e.payload as Record<string, any> | undefined;
  if (!p || typeof p !== "object") return undefined;
  const item = `${e.sessionId ?? ""}\u0000${e.itemId ?? ""}\u0000`;
  if (e.type === "content.delta" && typeof p.delta === "string") return { key: `${item}${p.streamKind ?? ""}\u0000${p.contentIndex ?? ""}\u0000${p.summaryIndex ?? ""}`, text: p.delta, field: "delta" };
  if (e.type === "item.updated" && p.data && typeof p.data === "object" && typeof p.data.partialJson === "string") return { key: `${item}partialJson`, text: p.data.partialJson, field: "partialJson" };
  return undefined;
}

/** The paths of the string fields of `message` (under a text-like key) whose value is `text`. */
function findText(message: unknown, text: string): (string | number)[][] {
  const out: (string | number)[][] = [];
  const visit = (v: unknown, path: (string | number)[], depth: number) => {
    if (depth > 12 || out.length > 4 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) { v.forEach((x, i) => visit(x, [...path, i], depth + 1)); return; }
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (typeof x === "string") { if (x === text && DELTA_KEYS.has(k)) out.push([...path, k]); }
      else visit(x, [...path, k], depth + 1);
    }
  };
  visit(message, [], 0);
  return out;
}

/** `v` with the value at `path` replaced (objects and arrays along the path copied, the rest shared). */
function setAt(v: unknown, path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  const [k, ...rest] = path;
  if (Array.isArray(v)) { const c = v.slice(); c[k as number] = setAt(v[k as number], rest, value); return c; }
  const o = v as Record<string, unknown>;
  const c: Record<string, unknown> = {};
  for (const key of Object.keys(o)) Object.defineProperty(c, key, { value: key === k ? setAt(o[key], rest, value) : o[key], enumerable: true, writable: true, configurable: true });
  return c;
}

/** An event with its streamed text replaced by the judged piece. */
function withPiece(e: CanonicalEvent, field: "delta" | "partialJson", text: string): CanonicalEvent {
  return setAt(e, field === "delta" ? ["payload", "delta"] : ["payload", "data", "partialJson"], text) as CanonicalEvent;
}

/**
 * A normalizer that records every stage while it normalizes. What it writes is what a replay of the written capture
 * gives: the events it records are those of a second ("shadow") normalizer fed the *redacted* messages — so text
 * the normalizer derives (a title cut to 160 characters, a tool's input parsed from streamed JSON) is derived from
 * redacted text, redact first, then cut — with the ids, times and provider refs of the events the host got. When
 * redaction changes how a message normalizes (another number or kind of events), the host's events are written,
 * redacted, with a note saying so.
 */
export function capturingNormalizer(n: Normalizer, writer: CaptureWriter, options: { surface: string; legacy?: LegacyProjection | false } = { surface: "" }): CapturingNormalizer {
  const legacy = options.legacy === false ? undefined : options.legacy ?? createLegacyProjection();
  const redactor = writer.redactor;
  const known = !!options.surface && (SURFACE_NAMES as readonly string[]).includes(options.surface);
  const shadow = redactor && known ? createNormalizer({ surface: options.surface, ids: counterIds(), clock: steppingClock(), includeRaw: false }) : undefined;
  const streams = redactor ? new StreamRedactor(redactor) : undefined;
  /** Shadow canonical id → the host's. */
  const idMap = new Map<string, string>();
  const queue: Group[] = [];

  /** The events to record for one message: the shadow's, carrying the host's ids; or the host's (see above). */
  const recorded = (g: Group, shadowEvents: CanonicalEvent[] | undefined): { events: CanonicalEvent[]; note?: string } => {
    const real = g.events.map((e, i) => {
      const d = g.deltas.find((x) => x.event === i);
      return d ? withPiece(e, d.field, d.piece.out) : e;
    });
    if (!shadowEvents) return { events: real };
    if (shadowEvents.length !== real.length || shadowEvents.some((e, i) => e.type !== real[i].type)) {
      return { events: real, note: `redaction changed how this message normalizes (${shadowEvents.length} event(s) from the redacted message, ${real.length} from the message): a replay of this capture differs here` };
    }
    const events = shadowEvents.map((se, i) => {
      const re = real[i] as unknown as Record<string, unknown>;
      const sr = se as unknown as Record<string, unknown>;
      for (const f of ID_FIELDS) if (typeof sr[f] === "string" && typeof re[f] === "string") idMap.set(sr[f] as string, re[f] as string);
      const out = mapStrings(se, (x) => idMap.get(x) ?? x, NOT_CANONICAL) as Record<string, unknown>;
      for (const f of ["eventId", "sequence", "createdAt", ...ID_FIELDS] as const) {
        if (re[f] !== undefined) out[f] = re[f];
        else delete out[f];
      }
      return out as unknown as CanonicalEvent;
    });
    return { events };
  };

  const emitted = (events: CanonicalEvent[], note?: string): string => {
    let s = "";
    for (const e of events) {
      const meta = { sessionId: e.sessionId, turnId: e.turnId ?? null, ...(note ? { notes: note } : {}) };
      // the message is the native_in record before: written once, there (not again in every event's raw)
      const out = e.raw && typeof e.raw === "object" ? { ...e, raw: withoutRawPayload(e.raw as unknown as Record<string, unknown>) } : e;
      s += writer.line("normalized_out", e.type, out, meta);
      if (legacy) for (const l of legacy(out as CanonicalEvent)) s += writer.line("legacy_out", legacyEventType(l), l, { sessionId: e.sessionId, turnId: e.turnId ?? null });
    }
    return s;
  };

  const write = (g: Group): string => {
    if (g.kind === "end") {
      const r = recorded(g, shadow?.end());
      return emitted(r.events, r.note);
    }
    if (g.kind === "host") {
      const r = recorded(g, g.shadowEvents);
      return emitted(r.events, r.note);
    }
    const source = options.surface || undefined;
    if (g.kind === "unparsed") {
      const rec = writer.record("native_in", "unparsed_line", g.line, { sessionId: g.sessionId, turnId: null, source });
      const r = recorded(g, shadow && typeof rec.payload === "string" ? shadow.pushLine(rec.payload) : undefined);
      return serializeRecord(rec) + "\n" + emitted(r.events, r.note);
    }
    let message = g.message;
    for (const d of g.deltas) for (const p of d.paths) message = setAt(message, p, d.piece.out);
    const { direction, channel } = g.meta;
    const rec = writer.record("native_in", nativeEventType(g.message), message, { sessionId: g.sessionId, turnId: g.turnId, source, direction, channel });
    // pushed as replay pushes it (src/capture/replay.ts replayFixture)
    const capture = direction !== undefined || channel !== undefined ? { dir: direction, ...(channel !== undefined ? { channel } : {}), message: rec.payload } : undefined;
    const r = recorded(g, shadow?.push(rec.payload, { direction, capture }));
    return serializeRecord(rec) + "\n" + emitted(r.events, r.note);
  };

  const drain = (): string => {
    let s = "";
    while (queue.length && queue[0].deltas.every((d) => d.piece.done)) s += write(queue.shift()!);
    return s;
  };

  const enqueue = (g: Group): string => {
    if (streams) {
      for (const e of g.events) {
        if (e.type === "item.completed" && e.itemId) streams.flush((k) => k.startsWith(`${e.sessionId ?? ""}\u0000${e.itemId}\u0000`));
        else if (ENDS_ALL.has(e.type)) streams.flush();
      }
    }
    queue.push(g);
    if (streams && queue.length > MAX_QUEUED) streams.flush();
    return drain();
  };

  /** The message's streamed deltas, handed to the stream redactor (held until judged). */
  const deltasOf = (message: unknown, events: CanonicalEvent[]): Delta[] => {
    const out: Delta[] = [];
    if (!streams) return out;
    const claimed = new Set<string>();
    events.forEach((e, i) => {
      const st = streamOf(e);
      if (!st || st.text === "") return;
      const paths = findText(message, st.text).filter((p) => !claimed.has(JSON.stringify(p)));
      if (!paths.length) return; // not found in the message: redacted as a whole (it cannot be split consistently)
      for (const p of paths) claimed.add(JSON.stringify(p));
      out.push({ piece: streams.add(st.key, st.text), paths, event: i, field: st.field });
    });
    return out;
  };

  const turnOf = (events: CanonicalEvent[]) => events.find((e) => e.turnId)?.turnId ?? null;
  return {
    push(message, meta = {}) {
      const events = n.push(message, { direction: meta.direction, capture: meta.capture });
      const lines = enqueue({ kind: "native", message, meta, sessionId: n.sessionId, turnId: turnOf(events), events, deltas: deltasOf(message, events) });
      return { events, lines };
    },
    pushUnparsed(line, lineNumber) {
      const events = n.pushLine(line, { lineNumber });
      const lines = enqueue({ kind: "unparsed", line, meta: {}, sessionId: n.sessionId, turnId: null, events, deltas: [] });
      return { events, lines };
    },
    host(h) {
      const events = n.hostEvent(h);
      // the shadow gets the same host event, in its own ids (so its state follows the session's)
      let shadowEvents: CanonicalEvent[] | undefined;
      if (shadow) {
        const back = (id: string | undefined) => { if (id === undefined) return undefined; for (const [sid, rid] of idMap) if (rid === id) return sid; return id; };
        shadowEvents = shadow.hostEvent({ ...h, threadId: back(h.threadId), turnId: back(h.turnId), requestId: back(h.requestId) });
      }
      const lines = enqueue({ kind: "host", meta: {}, sessionId: n.sessionId, turnId: turnOf(events), events, shadowEvents, deltas: [] });
      return { events, lines };
    },
    end() {
      const events = n.end();
      streams?.flush();
      const lines = enqueue({ kind: "end", meta: {}, sessionId: n.sessionId, turnId: null, events, deltas: [] });
      return { events, lines };
    },
  };
}


/**
 * Our recorder's lines ({seq, dir, channel?, message}, fixtures/record/capture.ts) → capture envelopes, by
 * normalizing them with deterministic ids and a fixed clock. The result is a capture (sanitize it for a fixture).
 */
export function convertRecording(text: string, surface: string, writer: CaptureWriter): string {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  const c = capturingNormalizer(n, writer, { surface });
  let out = "";
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      out += c.pushUnparsed(line, i + 1).lines;
      return;
    }
    const { message, meta } = unwrapCaptureLine(parsed);
    out += c.push(message, meta).lines;
  });
  return out + c.end().lines;
}

// ── canonical ids, sanitize ──────────────────────────────────────────────────────────────────────────────

const CANONICAL_ID = new RegExp(`^(${Object.values(ID_PREFIXES).join("|")})_[A-Za-z0-9][A-Za-z0-9-]*$`);
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const BASE_MS = Date.UTC(2026, 0, 1);

/** The canonical id fields of an event envelope (minted by agentnorm); provider ids live in providerRefs/raw. */
const ID_FIELDS = ["eventId", "sessionId", "threadId", "turnId", "itemId", "requestId", "parentId"] as const;
const NOT_CANONICAL = new Set(["raw", "providerRefs"]);
/** Canonical-id-looking tokens inside text (legacy_out lines carry ids inside their JSON: ids, blockIds "itm_1:text"). */
const CANONICAL_ID_IN_TEXT = new RegExp(`\\b(?:${Object.values(ID_PREFIXES).join("|")})_[A-Za-z0-9][A-Za-z0-9-]*`, "g");

export interface CanonicalIdMapper {
  /** Give a canonical id its number (per prefix, in order of registration) unless it has one. */
  register(id: string): void;
  /** The renumbered id, or the string unchanged when it is not a registered canonical id. */
  map(s: string): string;
}

/**
 * Renumbers canonical ids (`itm_k3j…-1f` → `itm_1`) per prefix in order of first appearance. Only ids seen in
 * an event's own id fields are registered, so provider ids that happen to look canonical (opencode's `ses_…`)
 * are left alone.
 */
export function canonicalIdMapper(): CanonicalIdMapper {
  const map = new Map<string, string>();
  const counters = new Map<string, number>();
  return {
    register(id) {
      if (map.has(id)) return;
      const m = CANONICAL_ID.exec(id);
      if (!m) return;
      const n = (counters.get(m[1]) ?? 0) + 1;
      counters.set(m[1], n);
      map.set(id, `${m[1]}_${n}`);
    },
    map: (s) => map.get(s) ?? s,
  };
}

/** Strings below this depth are left as they are (no stack overflow; redaction already cut deeper input at 256). */
const MAX_MAP_DEPTH = 1000;

function mapStrings(v: unknown, f: (s: string) => string, skipTopKeys?: Set<string>, depth = 0): unknown {
  if (typeof v === "string") return f(v);
  if (depth > MAX_MAP_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, undefined, depth + 1));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      Object.defineProperty(out, f(k), { value: skipTopKeys?.has(k) ? x : mapStrings(x, f, undefined, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

function registerIds(e: unknown, ids: CanonicalIdMapper): void {
  if (!e || typeof e !== "object" || Array.isArray(e)) return;
  for (const k of ID_FIELDS) {
    const v = (e as Record<string, unknown>)[k];
    if (typeof v === "string") ids.register(v);
  }
}

/** An event with its canonical ids renumbered through `ids` (registered from its id fields first). */
function renumberEvent(e: unknown, ids: CanonicalIdMapper): unknown {
  registerIds(e, ids);
  return mapStrings(e, ids.map, NOT_CANONICAL);
}

/**
 * A canonical event in comparable form: canonical ids renumbered through `ids` (shared over a stream; pass
 * undefined to keep them), createdAt dropped (timing only), raw.payload dropped (the provider message is the
 * fixture's native_in).
 */
export function comparableEvent(e: unknown, ids?: CanonicalIdMapper): unknown {
  if (!e || typeof e !== "object" || Array.isArray(e)) return e;
  const out = (ids ? renumberEvent(e, ids) : { ...(e as object) }) as Record<string, unknown>;
  delete out.createdAt;
  const raw = out.raw as Record<string, unknown> | undefined;
  if (raw && typeof raw === "object") out.raw = withoutRawPayload(raw);
  return out;
}

/** raw without the message (payload) and its stream links (payloadRef, payloadShared): native_in holds the message. */
function withoutRawPayload(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(raw)) if (k !== "payload" && k !== "payloadRef" && k !== "payloadShared") out[k] = raw[k];
  return out;
}

export function comparableEvents(events: unknown[]): unknown[] {
  const ids = canonicalIdMapper();
  return events.map((e) => comparableEvent(e, ids));
}

export interface SanitizeOptions {
  /** Redaction options for the second pass (default: the built-in patterns, no directories). false: none. */
  redact?: RedactOptions | false;
}

/**
 * Streamed text across delta boundaries, for a capture read back: the same judgement as capturingNormalizer's
 * (src/capture/stream-redact.ts), over the normalized_out deltas and the native_in message before them; the judged
 * piece replaces the delta in the message, the event and the legacy lines after it. A capture written with
 * redaction on is already judged (its pieces come back unchanged).
 */
function redactStreams(records: CaptureRecord[], redactor: Redactor): CaptureRecord[] {
  const streams = new StreamRedactor(redactor);
  const out = records.slice();
  const jobs: { piece: StreamPiece; text: string; native?: number; paths: (string | number)[][]; event: number; field: "delta" | "partialJson"; legacy: number[] }[] = [];
  let native: number | undefined;
  let claimed = new Set<string>();
  let last: (typeof jobs)[number] | undefined;
  records.forEach((r, i) => {
    if (r.stage === "native_in") { native = i; claimed = new Set(); last = undefined; return; }
    if (r.stage === "legacy_out") { last?.legacy.push(i); return; }
    const e = r.payload as CanonicalEvent;
    if (!e || typeof e !== "object") return;
    if (e.type === "item.completed" && e.itemId) streams.flush((k) => k.startsWith(`${e.sessionId ?? ""}\u0000${e.itemId}\u0000`));
    else if (ENDS_ALL.has(e.type)) streams.flush();
    const st = streamOf(e);
    last = undefined;
    if (!st || st.text === "") return;
    const paths = native === undefined ? [] : findText(records[native].payload, st.text).filter((p) => !claimed.has(JSON.stringify(p)));
    for (const p of paths) claimed.add(JSON.stringify(p));
    last = { piece: streams.add(st.key, st.text), text: st.text, native, paths, event: i, field: st.field, legacy: [] };
    jobs.push(last);
  });
  streams.flush();
  for (const j of jobs) {
    const p = j.piece.out;
    if (p === j.text) continue;
    if (j.native !== undefined) {
      let m = out[j.native].payload;
      for (const path of j.paths) m = setAt(m, path, p);
      out[j.native] = { ...out[j.native], payload: m };
    }
    out[j.event] = { ...out[j.event], payload: withPiece(out[j.event].payload as CanonicalEvent, j.field, p) };
    for (const l of j.legacy) {
      const line = out[l].payload;
      const m = typeof line === "string" ? /^(\[[A-Z_]+\] )(.*)$/s.exec(line) : null;
      if (!m) continue;
      let v: unknown;
      try { v = JSON.parse(m[2]); } catch { continue; }
      const swap = (x: unknown, depth: number): unknown => {
        if (x === j.text) return p;
        if (depth > 16 || !x || typeof x !== "object") return x;
        if (Array.isArray(x)) return x.map((y) => swap(y, depth + 1));
        const o: Record<string, unknown> = {};
        for (const k of Object.keys(x)) Object.defineProperty(o, k, { value: DELTA_KEYS.has(k) || typeof (x as any)[k] === "object" ? swap((x as any)[k], depth + 1) : (x as any)[k], enumerable: true, writable: true, configurable: true });
        return o;
      };
      out[l] = { ...out[l], payload: m[1] + JSON.stringify(swap(v, 0)) };
    }
  }
  return out;
}

/** A capture (or a fixture) → a deterministic fixture. Pure: the same input gives the same bytes. */
export function sanitizeCapture(records: CaptureRecord[], options: SanitizeOptions = {}): FixtureRecord[] {
  const sorted = records.map((r, i) => [r, i] as const).sort((a, b) => a[0].sequence - b[0].sequence || a[1] - b[1]).map((x) => x[0]);
  const redactor = options.redact === false ? undefined : createRedactor(options.redact ?? {});
  let input = sorted;
  if (redactor) {
    // login names seen anywhere in the capture (home paths) count from its first line on
    for (const r of sorted) redactor.learnNames(r.payload);
    input = redactStreams(sorted, redactor);
  }
  const ids = canonicalIdMapper();
  // Pass 1: canonical ids get their numbers from the normalized events' id fields (the order replay mints them in).
  for (const r of sorted) if (r.stage === "normalized_out") registerIds(r.payload, ids);
  const uuids = new Map<string, string>();
  const uuid = (s: string) => s.replace(UUID, (u) => {
    let v = uuids.get(u.toLowerCase());
    if (!v) uuids.set(u.toLowerCase(), (v = `00000000-0000-${/[1-8]/.test(u[14]) ? u[14] : "4"}000-8000-${(uuids.size + 1).toString(16).padStart(12, "0")}`));
    return v;
  });
  const envId = (id: string) => {
    ids.register(id);
    return ids.map(uuid(id));
  };
  let clock = 0;
  let nativeChanged = input.some((r, i) => r !== sorted[i] && r.stage === "native_in");
  const fixture = input.map((r, i): FixtureRecord => {
    let payload: unknown = r.payload;
    const redactions: Redaction[] = r.redactions.map((x) => ({ ...x, path: uuid(x.path) }));
    if (redactor) {
      const rr = redactor.redact(payload, "/payload");
      payload = rr.value;
      if (r.stage === "native_in" && rr.redactions.length) nativeChanged = true;
      const seen = new Set(redactions.map((x) => `${x.path}\u0000${x.kind}`));
      for (const x of rr.redactions) {
        const y = { ...x, path: uuid(x.path) };
        if (!seen.has(`${y.path}\u0000${y.kind}`)) { seen.add(`${y.path}\u0000${y.kind}`); redactions.push(y); }
      }
    }
    payload = mapStrings(payload, uuid);
    if (r.stage === "normalized_out" && payload && typeof payload === "object" && !Array.isArray(payload)) {
      const e = mapStrings(payload, ids.map, NOT_CANONICAL) as Record<string, unknown>;
      if (typeof e.createdAt === "string") e.createdAt = new Date(BASE_MS + clock++).toISOString();
      if (e.raw && typeof e.raw === "object") e.raw = withoutRawPayload(e.raw as unknown as Record<string, unknown>);
      payload = e;
    }
    // legacy_out lines embed the same canonical ids (in [CHAT_EVENT] JSON, [TOOL_USE] ids): renumber those the events registered
    if (r.stage === "legacy_out" && typeof payload === "string") payload = payload.replace(CANONICAL_ID_IN_TEXT, ids.map);
    const out: FixtureRecord = {
      schemaVersion: CAPTURE_SCHEMA_VERSION,
      sequence: i + 1,
      provider: r.provider,
      sessionId: r.sessionId === null ? null : envId(r.sessionId),
      turnId: r.turnId === null ? null : envId(r.turnId),
      stage: r.stage,
      eventType: r.eventType,
      payload,
      redactions,
    };
    for (const k of ["model", "source", "notes", "direction", "channel"] as const) if (r[k] !== undefined) (out as any)[k] = r[k];
    return out;
  });
  // The events were derived from messages that sanitizing has just redacted: derive the redacted parts again
  return nativeChanged ? rederive(fixture) : fixture;
}

/** A marker, or a text cut (`…`): a difference these explain is redaction's, not the normalizer's. */
const REDACTION_TRACE = /<(?:REDACTED:[a-z0-9_]+|HOME|PROJECT|TMP|USER)>|…/;

/**
 * The leaf strings in which `shadow` (an event derived from redacted messages) differs from `recorded` only by
 * redaction (either side holds a marker or a cut): recorded string → shadow string. undefined when they differ in
 * anything else (their shape, a number, a string with no trace of redaction): that is the normalizer's difference,
 * the evidence a fixture keeps.
 */
function redactionSwaps(recorded: unknown, shadow: unknown): Map<string, string> | undefined {
  const swaps = new Map<string, string>();
  const same = (a: unknown, b: unknown, key: string, depth: number): boolean => {
    if (key === "createdAt" || key === "eventId" || key === "sequence") return true;
    if (typeof a === "string" && typeof b === "string") {
      if (a === b || (CANONICAL_ID.test(a) && CANONICAL_ID.test(b))) return true;
      if (!REDACTION_TRACE.test(a) && !REDACTION_TRACE.test(b)) return false;
      swaps.set(a, b);
      return true;
    }
    if (depth > 64 || typeof a !== typeof b || a === null || b === null || typeof a !== "object") return a === b;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a as object).filter((k) => (a as any)[k] !== undefined);
    const kb = new Set(Object.keys(b as object).filter((k) => (b as any)[k] !== undefined));
    if (ka.length !== kb.size || ka.some((k) => !kb.has(k))) return false;
    return ka.every((k) => same((a as any)[k], (b as any)[k], k, depth + 1));
  };
  return same(recorded, shadow, "", 0) ? swaps : undefined;
}

function swapStrings(v: unknown, swaps: Map<string, string>): unknown {
  return mapStrings(v, (s) => swaps.get(s) ?? s);
}

/**
 * Sanitize redacted messages whose events were derived before redaction (a capture written unredacted, or redacted
 * with less known): the fixture's native_in are normalized again, and where an event differs from the recorded one
 * only by redaction, the recorded event takes the derived strings (and the legacy lines after it the same strings).
 * Redact first, then cut: the fixture replays as it will be replayed. Anything else stays as recorded.
 */
function rederive(fixture: FixtureRecord[]): FixtureRecord[] {
  const surface = fixture.find((r) => r.stage === "native_in" && r.source)?.source;
  if (!surface || !(SURFACE_NAMES as readonly string[]).includes(surface)) return fixture;
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  const out = fixture.slice();
  /** Every swap so far: a legacy projection carries strings from earlier events (a tool's first title). */
  const all = new Map<string, string>();
  const apply = (derived: CanonicalEvent[], from: number) => {
    const outs: number[] = [];
    const legacy: number[] = [];
    for (let i = from; i < out.length && out[i].stage !== "native_in"; i++) (out[i].stage === "normalized_out" ? outs : legacy).push(i);
    if (outs.length === derived.length) for (let k = 0; k < outs.length; k++) {
      const rec = out[outs[k]];
      const swaps = redactionSwaps(comparableEvent(rec.payload), comparableEvent(derived[k]));
      if (!swaps?.size) continue;
      out[outs[k]] = { ...rec, payload: swapStrings(rec.payload, swaps) };
      for (const [a, b] of swaps) all.set(a, b);
    }
    if (!all.size) return;
    for (const l of legacy) {
      const line = out[l].payload;
      const m = typeof line === "string" ? /^(\[[A-Z_]+\] )(.*)$/s.exec(line) : null;
      if (!m) continue;
      let v: unknown;
      try { v = JSON.parse(m[2]); } catch { continue; }
      const next = m[1] + JSON.stringify(swapStrings(v, all));
      if (next !== line) out[l] = { ...out[l], payload: next };
    }
  };
  apply([], 0);
  fixture.forEach((r, i) => {
    if (r.stage !== "native_in") return;
    let events: CanonicalEvent[];
    if (r.eventType === "unparsed_line" && typeof r.payload === "string") events = n.pushLine(r.payload);
    else {
      const capture = r.direction !== undefined || r.channel !== undefined ? { dir: r.direction, ...(r.channel !== undefined ? { channel: r.channel } : {}), message: r.payload } : undefined;
      events = n.push(r.payload, { direction: r.direction, capture });
    }
    apply(events, i + 1);
  });
  // the events of the stream's end follow the last native_in's
  const lastNative = fixture.map((r) => r.stage).lastIndexOf("native_in");
  const tailEvents = n.end();
  if (tailEvents.length) {
    const outsAfter = out.slice(lastNative + 1).filter((r) => r.stage === "normalized_out").length;
    if (outsAfter >= tailEvents.length) {
      // the last native's own events come first; the end's are the last ones
      let seen = 0;
      let start = out.length;
      for (let i = out.length - 1; i > lastNative; i--) if (out[i].stage === "normalized_out" && ++seen === tailEvents.length) { start = i; break; }
      apply(tailEvents, start);
    }
  }
  return out;
}

// ── replay ───────────────────────────────────────────────────────────────────────────────────────────────

export type ReplayMode = "native_in" | "normalized_out";

export interface ReplayOptions {
  /** Default: native_in when the fixture has native_in records, else normalized_out. */
  mode?: ReplayMode;
  /** native_in: the surface (default: the `source` of the first native_in record). */
  surface?: string;
  /** normalized_out: the snapshot function (default: the accumulator's snapshot; `eventsSnapshot` compares the events themselves). */
  snapshot?: SnapshotFn;
  /** normalized_out: the expected snapshot (undefined: none recorded yet → a mismatch, run with update). */
  expectedSnapshot?: unknown;
  /** The legacy projection (default: a fresh createLegacyProjection() per pass; false: none, legacy_out left unchecked and kept). */
  legacy?: LegacyProjection | false;
  /** native_in: also build updatedFixture (the fixture rewritten with this replay's output). */
  update?: boolean;
}

export interface ReplayResult {
  mode: ReplayMode;
  surface?: string;
  ok: boolean;
  /** What was compared, for the report: "47 events", "snapshot". */
  compared: string;
  /** A readable diff (expected = fixture, actual = replay) when not ok. */
  diff: string;
  /** native_in with options.update: the fixture rewritten with the replay's output (sanitized). */
  updatedFixture?: FixtureRecord[];
  /** normalized_out: the snapshot the replay produced. */
  snapshot?: unknown;
  /** Notes for the report (e.g. legacy_out not checked). */
  notes: string[];
}

/** The snapshot used for normalized_out replay until the accumulator is wired in: the events, comparable. */
export const eventsSnapshot: SnapshotFn = (events) => comparableEvents(events);

export function replayFixture(records: FixtureRecord[], options: ReplayOptions = {}): ReplayResult {
  const sorted = [...records].sort((a, b) => a.sequence - b.sequence);
  const mode: ReplayMode = options.mode ?? (sorted.some((r) => r.stage === "native_in") ? "native_in" : "normalized_out");
  const notes: string[] = [];
  if (mode === "normalized_out") {
    const events = sorted.filter((r) => r.stage === "normalized_out").map((r) => r.payload as CanonicalEvent);
    const snap = options.snapshot ?? accumulatorSnapshot;
    const snapshot = snap(events);
    if (options.expectedSnapshot === undefined) {
      return { mode, ok: false, compared: "snapshot", diff: "no expected snapshot recorded (run with --update to write it)\n", snapshot, notes };
    }
    const a = snapshotLines(options.expectedSnapshot);
    const b = snapshotLines(snapshot);
    const diff = diffLines(a, b);
    return { mode, ok: diff === "", compared: `snapshot of ${events.length} events`, diff, snapshot, notes };
  }

  const natives = sorted.filter((r) => r.stage === "native_in");
  const surface = options.surface ?? natives.find((r) => r.source)?.source;
  if (!surface || !(SURFACE_NAMES as readonly string[]).includes(surface)) {
    return { mode, surface, ok: false, compared: "nothing", diff: `cannot replay native_in: ${surface ? `unknown surface "${surface}"` : "no surface (give --from SURFACE, or a source on the native_in records)"}; surfaces: ${SURFACE_NAMES.join(", ")}\n`, notes };
  }
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  // The legacy projection keeps per-stream state: a fresh one for each pass over the replayed events.
  const makeLegacy = options.legacy === false ? undefined : options.legacy ? () => options.legacy as LegacyProjection : createLegacyProjection;
  const legacy = makeLegacy?.();
  // The replay, grouped by the native_in record that caused it (for --update), old legacy_out kept in place without a projection.
  const groups: { native?: FixtureRecord; events: CanonicalEvent[]; oldLegacy: FixtureRecord[] }[] = [{ events: [], oldLegacy: [] }];
  for (const r of sorted) {
    if (r.stage === "native_in") {
      const g = { native: r, events: [] as CanonicalEvent[], oldLegacy: [] as FixtureRecord[] };
      groups.push(g);
      if (r.eventType === "unparsed_line" && typeof r.payload === "string") g.events = n.pushLine(r.payload);
      else {
        const capture = r.direction !== undefined || r.channel !== undefined
          ? { dir: r.direction, ...(r.channel !== undefined ? { channel: r.channel } : {}), message: r.payload }
          : undefined;
        g.events = n.push(r.payload, { direction: r.direction, capture });
      }
    } else if (r.stage === "legacy_out") groups[groups.length - 1].oldLegacy.push(r);
  }
  const tail = { events: n.end(), oldLegacy: [] as FixtureRecord[] };
  groups.push(tail);
  const actual = groups.flatMap((g) => g.events);
  const expected = sorted.filter((r) => r.stage === "normalized_out").map((r) => r.payload);
  // Two comparisons: ids as they are (sanitize numbers canonical ids in order of first appearance, the replay
  // in order of minting — the same order in practice, and a missing event then shifts nothing), and ids
  // renumbered on both sides (for normalizers that mint in another order). Equal under either = a match;
  // otherwise the shorter diff is shown.
  const plain = (es: unknown[]) => es.map((e) => JSON.stringify(comparableEvent(e)));
  const renumbered = (es: unknown[]) => comparableEvents(es).map((e) => JSON.stringify(e));
  const d1 = diffLines(plain(expected), plain(actual), "event");
  let diff = d1 === "" ? "" : (() => {
    const d2 = diffLines(renumbered(expected), renumbered(actual), "event");
    return d2 === "" || d2.length < d1.length ? d2 : d1;
  })();
  if (legacy) {
    const want = sorted.filter((r) => r.stage === "legacy_out").map((r) => String(r.payload));
    const got = actual.flatMap((e) => legacy(e));
    // ids as they are, or renumbered on both sides in order of appearance (as for the events above)
    const d = diffLines(want, got, "legacy line") && diffLines(renumberText(want), renumberText(got), "legacy line");
    if (d) diff += `legacy_out:\n${d}`;
  } else if (sorted.some((r) => r.stage === "legacy_out")) {
    notes.push("legacy_out records not checked: no legacy projection (legacy: false)");
  }
  if (!options.update) return { mode, surface, ok: diff === "", compared: `${actual.length} events from ${natives.length} native_in records`, diff, notes };
  // The fixture as it would be with this replay's output.
  const relegacy = makeLegacy?.();
  const rebuilt: CaptureRecord[] = [];
  let seq = 0;
  for (const g of groups) {
    if (g.native) rebuilt.push({ ...g.native, sequence: ++seq });
    for (const e of g.events) {
      const meta = { schemaVersion: CAPTURE_SCHEMA_VERSION, provider: e.provider, ...(g.native?.source ?? natives[0]?.source ? { source: g.native?.source ?? natives[0]?.source } : {}), sessionId: e.sessionId, turnId: e.turnId ?? null, redactions: [] as Redaction[] };
      rebuilt.push({ ...meta, sequence: ++seq, stage: "normalized_out", eventType: e.type, payload: e });
      if (relegacy) for (const l of relegacy(e)) rebuilt.push({ ...meta, sequence: ++seq, stage: "legacy_out", eventType: legacyEventType(l), payload: l });
    }
    if (!relegacy) for (const l of g.oldLegacy) rebuilt.push({ ...l, sequence: ++seq });
  }
  return { mode, surface, ok: diff === "", compared: `${actual.length} events from ${natives.length} native_in records`, diff, updatedFixture: sanitizeCapture(rebuilt), notes };
}

/** Legacy lines with the canonical ids in them renumbered per prefix in order of appearance. */
function renumberText(lines: string[]): string[] {
  const map = new Map<string, string>();
  const counters = new Map<string, number>();
  return lines.map((l) => l.replace(CANONICAL_ID_IN_TEXT, (id) => {
    let v = map.get(id);
    if (!v) {
      const prefix = id.slice(0, id.indexOf("_"));
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      map.set(id, (v = `${prefix}_${n}`));
    }
    return v;
  }));
}

function snapshotLines(v: unknown): string[] {
  return (JSON.stringify(v, null, 2) ?? "undefined").split("\n");
}

// ── diff ─────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * A unified-style line diff (`-` expected, `+` actual, two lines of context), "" when equal. LCS on the part
 * between the common prefix and suffix; falls back to a position-by-position comparison when that is huge.
 */
export function diffLines(expected: string[], actual: string[], unit = "line", maxLines = 80): string {
  let pre = 0;
  while (pre < expected.length && pre < actual.length && expected[pre] === actual[pre]) pre++;
  let suf = 0;
  while (suf < expected.length - pre && suf < actual.length - pre && expected[expected.length - 1 - suf] === actual[actual.length - 1 - suf]) suf++;
  if (pre === expected.length && pre === actual.length) return "";
  const first = pre + 1;
  pre = Math.max(0, pre - 2); // two lines of context
  suf = Math.max(0, suf - 2);
  const a = expected.slice(pre, expected.length - suf);
  const b = actual.slice(pre, actual.length - suf);
  type Op = { op: " " | "-" | "+"; text: string; ai: number; bi: number };
  const ops: Op[] = [];
  if (a.length * b.length <= 4_000_000) {
    const w = b.length + 1;
    const L = new Uint32Array((a.length + 1) * w);
    for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) {
      L[i * w + j] = a[i] === b[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    }
    let i = 0, j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) { ops.push({ op: " ", text: a[i], ai: i, bi: j }); i++; j++; }
      else if (i < a.length && (j === b.length || L[(i + 1) * w + j] >= L[i * w + j + 1])) { ops.push({ op: "-", text: a[i], ai: i, bi: j }); i++; }
      else { ops.push({ op: "+", text: b[j], ai: i, bi: j }); j++; }
    }
  } else {
    for (let k = 0; k < Math.max(a.length, b.length); k++) {
      if (a[k] === b[k]) ops.push({ op: " ", text: a[k], ai: k, bi: k });
      else {
        if (k < a.length) ops.push({ op: "-", text: a[k], ai: k, bi: k });
        if (k < b.length) ops.push({ op: "+", text: b[k], ai: k, bi: k });
      }
    }
  }
  const removed = ops.filter((o) => o.op === "-").length;
  const added = ops.filter((o) => o.op === "+").length;
  const keep = new Set<number>();
  ops.forEach((o, k) => { if (o.op !== " ") for (let d = -2; d <= 2; d++) keep.add(k + d); });
  const lines: string[] = [`${removed} ${unit}(s) only in the fixture (-), ${added} only in the replay (+); first difference at ${unit} ${first}`];
  let last = -2;
  let shown = 0;
  for (let k = 0; k < ops.length && shown < maxLines; k++) {
    if (!keep.has(k)) continue;
    const o = ops[k];
    if (k !== last + 1) lines.push(`@@ ${unit} ${pre + o.ai + 1} (fixture) / ${pre + o.bi + 1} (replay) @@`);
    lines.push(`${o.op} ${o.text.length > 2000 ? o.text.slice(0, 2000) + "…" : o.text}`);
    last = k;
    shown++;
  }
  if (shown >= maxLines) lines.push(`… (diff cut at ${maxLines} lines)`);
  return lines.join("\n") + "\n";
}
