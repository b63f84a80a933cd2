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
import { ID_PREFIXES } from "../../generated/canonical.gen.js";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import {
  CAPTURE_SCHEMA_VERSION, nativeEventType, type CaptureRecord, type CaptureWriter, type FixtureRecord, type Redaction,
} from "./capture.js";
import { counterIds, steppingClock } from "../normalize/ids.js";
import { createNormalizer, type CanonicalEvent, type Direction, type Normalizer } from "../normalize/normalizer.js";
import { unwrapCaptureLine, type NativeMeta } from "./unwrap.js";
import { createRedactor, type RedactOptions } from "./redact.js";
import { accumulatorSnapshot, createLegacyProjection, legacyEventType, type LegacyProjection, type SnapshotFn } from "../render/render-hooks.js";

// ── capture while normalizing ────────────────────────────────────────────────────────────────────────────


export interface CapturingNormalizer {
  /** Capture a message (native_in), normalize it, capture its events (normalized_out, legacy_out). */
  push(message: unknown, meta?: NativeMeta): { events: CanonicalEvent[]; lines: string };
  /** A line that is not JSON: captured as eventType "unparsed_line" with the text as payload, then pushLine'd. */
  pushUnparsed(line: string, lineNumber?: number): { events: CanonicalEvent[]; lines: string };
  end(): { events: CanonicalEvent[]; lines: string };
}

export function capturingNormalizer(n: Normalizer, writer: CaptureWriter, options: { surface: string; legacy?: LegacyProjection | false } = { surface: "" }): CapturingNormalizer {
  const legacy = options.legacy === false ? undefined : options.legacy ?? createLegacyProjection();
  const emitted = (events: CanonicalEvent[]): string => {
    let s = "";
    for (const e of events) {
      const meta = { sessionId: e.sessionId, turnId: e.turnId ?? null };
      // the message is the native_in record before: written once, there (not again in every event's raw)
      const out = e.raw && typeof e.raw === "object" ? { ...e, raw: withoutRawPayload(e.raw as unknown as Record<string, unknown>) } : e;
      s += writer.line("normalized_out", e.type, out, meta);
      if (legacy) for (const l of legacy(e)) s += writer.line("legacy_out", legacyEventType(l), l, meta);
    }
    return s;
  };
  const turnOf = (events: CanonicalEvent[]) => events.find((e) => e.turnId)?.turnId ?? null;
  return {
    push(message, meta = {}) {
      const events = n.push(message, { direction: meta.direction, capture: meta.capture });
      const head = writer.line("native_in", nativeEventType(message), message, {
        sessionId: n.sessionId, turnId: turnOf(events), source: options.surface || undefined, direction: meta.direction, channel: meta.channel,
      });
      return { events, lines: head + emitted(events) };
    },
    pushUnparsed(line, lineNumber) {
      const events = n.pushLine(line, { lineNumber });
      const head = writer.line("native_in", "unparsed_line", line, { sessionId: n.sessionId, turnId: null, source: options.surface || undefined });
      return { events, lines: head + emitted(events) };
    },
    end() {
      const events = n.end();
      return { events, lines: emitted(events) };
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

/** A capture (or a fixture) → a deterministic fixture. Pure: the same input gives the same bytes. */
export function sanitizeCapture(records: CaptureRecord[], options: SanitizeOptions = {}): FixtureRecord[] {
  const sorted = records.map((r, i) => [r, i] as const).sort((a, b) => a[0].sequence - b[0].sequence || a[1] - b[1]).map((x) => x[0]);
  const redactor = options.redact === false ? undefined : createRedactor(options.redact ?? {});
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
  return sorted.map((r, i): FixtureRecord => {
    let payload: unknown = r.payload;
    const redactions: Redaction[] = r.redactions.map((x) => ({ ...x, path: uuid(x.path) }));
    if (redactor) {
      const rr = redactor.redact(payload, "/payload");
      payload = rr.value;
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
    const d = diffLines(want, got, "legacy line");
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
