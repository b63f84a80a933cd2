/**
 * Builds what a viewer page embeds (ViewerData) from the text of its input: a native recording (normalized here
 * with createNormalizer), a canonical NDJSON stream, or a capture file (NDJSON envelopes with a `stage`).
 * No Node APIs: the caller reads the file.
 */
import { resolveRawPayloads } from "../normalize/raw-stream.js";
import { createNormalizer, type CanonicalEvent } from "../normalize/normalizer.js";
import { counterIds } from "../normalize/ids.js";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { VERSION } from "../version.js";
import { CAPTURE_STAGES, formatCaptureError, parseCaptureLine, readCapture, type CaptureRecord } from "../capture/capture.js";
import { transcriptView } from "./transcript-view.js";
import { verifierProblems } from "./verifier.js";
import { isRetrying } from "./labels.js";
import type { CaptureSummary, ViewerData, ViewerEvent, ViewerNative, ViewerProblem } from "./types.js";

export type InputKind = "native" | "canonical" | "capture";

export class ViewerInputError extends Error {}

export interface LoadOptions {
  /** The input's surface: normalize it (a native recording), or the native_in stage of a capture. */
  from?: string;
  /** Page title (default: "agentnorm view"). */
  title?: string;
}

const CANONICAL_FIELDS = ["eventId", "sequence", "type", "payload"];

/** What a parsed first record looks like: a capture envelope or fixture record (src/capture/capture.ts), a canonical event, or else a native message. */
export function detectInput(first: unknown): InputKind {
  if (first && typeof first === "object" && !Array.isArray(first)) {
    const o = first as Record<string, unknown>;
    if ((CAPTURE_STAGES as readonly unknown[]).includes(o.stage) && "schemaVersion" in o && "eventType" in o && "payload" in o) return "capture";
    if (CANONICAL_FIELDS.every((k) => k in o)) return "canonical";
  }
  return "native";
}

interface Record_ { value: unknown; line: number }

/** Parse NDJSON (or one JSON array). Unparseable lines are kept as strings (the normalizer reports them). */
function records(text: string): { recs: Record_[]; rawLines?: string[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    try {
      const arr = JSON.parse(text);
      if (Array.isArray(arr)) return { recs: arr.map((value, i) => ({ value, line: i + 1 })) };
    } catch {
      /* fall through: treat as NDJSON */
    }
  }
  const recs: Record_[] = [];
  const rawLines: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, "");
    if (!l.trim()) continue;
    let value: unknown = l;
    try { value = JSON.parse(l); } catch { /* kept as text */ }
    recs.push({ value, line: i + 1 });
    rawLines.push(l);
  }
  return { recs, rawLines };
}

/** Strip raw.payload from an event (it lives in natives[]); only raw's JSON fields are kept (not the normalizer's symbol-keyed source text). */
function compact(e: CanonicalEvent, native: number | undefined): ViewerEvent {
  const { raw, ...rest } = e as any;
  const out: ViewerEvent = { ...rest };
  if (raw) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(raw)) if (k !== "payload") r[k] = raw[k];
    out.raw = r;
  }
  if (native !== undefined) out.native = native;
  return out;
}

function dirOf(v: unknown): string | undefined {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const d = (v as any).dir ?? (v as any).direction;
    if (d === "in" || d === "out") return d;
  }
  return undefined;
}

interface NativeRec { value: unknown; line: number; raw?: string; direction?: "in" | "out"; channel?: string }

/** Normalize native messages with `surface`; every event links to the message behind it. */
function normalizeNatives(recs: NativeRec[], surface: string, natives: ViewerNative[], events: ViewerEvent[]): void {
  const n = createNormalizer({ surface, ids: counterIds(), includeRaw: true });
  const byPayload = new Map<unknown, number>();
  // An event links to the message in its raw.payload when that is a known message (end()'s reports point at
  // earlier ones), else to the message being pushed.
  const add = (out: CanonicalEvent[], idx: number | undefined) => {
    for (const e of out) {
      const p = (e.raw as any)?.payload;
      const k = (p !== null && typeof p === "object" ? byPayload.get(p) : undefined) ?? idx;
      if (k !== undefined) natives[k].events.push(e.sequence);
      events.push(compact(e, k));
    }
  };
  for (const r of recs) {
    const idx = natives.length;
    natives.push({ payload: r.value, line: r.line, ...(r.direction ?? dirOf(r.value) ? { dir: r.direction ?? dirOf(r.value) } : {}), events: [] });
    if (r.value !== null && typeof r.value === "object") byPayload.set(r.value, idx);
    // A line goes through pushLine (which removes capture wrappers like {dir, message}); a capture's native_in
    // message through push with the envelope's direction and channel.
    const out = r.raw !== undefined
      ? n.pushLine(r.raw, { lineNumber: r.line })
      : n.push(r.value, { ...(r.direction ? { direction: r.direction } : {}), capture: { message: r.value, ...(r.direction ? { dir: r.direction, direction: r.direction } : {}), ...(r.channel ? { channel: r.channel } : {}) } });
    // pushLine parses the line again: its payload object (and the message inside a wrapper) is this native too.
    for (const e of out) {
      const p = (e.raw as any)?.payload;
      if (p !== null && typeof p === "object" && !byPayload.has(p)) {
        byPayload.set(p, idx);
        const inner = (p as any).message ?? (p as any).frame;
        if (inner !== null && typeof inner === "object") byPayload.set(inner, idx);
      }
    }
    add(out, idx);
  }
  add(n.end(), undefined);
}

function canonicalFrom(v: unknown, where: string): CanonicalEvent {
  if (!v || typeof v !== "object" || Array.isArray(v) || typeof (v as any).sequence !== "number" || typeof (v as any).type !== "string") {
    throw new ViewerInputError(`${where}: not a canonical event (needs at least sequence and type)`);
  }
  return v as CanonicalEvent;
}

/** Canonical events (from a stream or a capture's normalized_out); raw.payload becomes a native, shared by consecutive events with the same payload. */
function addCanonical(e: CanonicalEvent, natives: ViewerNative[], events: ViewerEvent[], fallbackNative: number | undefined, state: { lastText?: string; last?: number }): void {
  const p = (e.raw as any)?.payload;
  let k = fallbackNative;
  if (p !== undefined && p !== null) {
    const text = JSON.stringify(p);
    if (state.last !== undefined && text === state.lastText) k = state.last;
    else {
      k = natives.length;
      natives.push({ payload: p, events: [] });
      state.lastText = text;
      state.last = k;
    }
  }
  if (k !== undefined) natives[k].events.push(e.sequence);
  events.push(compact(e, k));
}

export interface LoadedInput {
  kind: InputKind;
  surface?: string;
  events: ViewerEvent[];
  natives: ViewerNative[];
  /** What the input itself says: a capture's redactions (by the event they badge) and its unreadable lines. */
  problems: ViewerProblem[];
  /** A capture's counts, as `agentnorm capture check` reports them. */
  capture?: CaptureSummary;
}

/** Read the input text into events and natives. Throws ViewerInputError with a clear reason. */
export function loadInput(text: string, opts: LoadOptions = {}): LoadedInput {
  const { recs, rawLines } = records(text);
  if (!recs.length) throw new ViewerInputError("the input is empty");
  // (a capture is read by its own reader, below, for per-line errors)
  if (opts.from !== undefined && !(SURFACE_NAMES as readonly string[]).includes(opts.from)) {
    throw new ViewerInputError(`unknown surface "${opts.from}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  }
  const kind = detectInput(recs[0].value);
  const events: ViewerEvent[] = [];
  const natives: ViewerNative[] = [];
  if (kind === "canonical") {
    const st = {};
    // a written stream has each message once (raw.payloadRef on the other events of a message): resolved first
    for (const e of resolveRawPayloads(recs.map((r) => canonicalFrom(r.value, `line ${r.line}`)))) addCanonical(e, natives, events, undefined, st);
    return { kind, events, natives, problems: [] };
  }
  if (kind === "capture") return loadCapture(text, opts);
  if (!opts.from) throw new ViewerInputError(`the input looks like native provider messages (not canonical events, not a capture): pass --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
  normalizeNatives(recs.map((r, i) => ({ ...r, raw: rawLines ? rawLines[i] : typeof r.value === "string" ? r.value : JSON.stringify(r.value) })), opts.from, natives, events);
  return { kind, surface: opts.from, events, natives, problems: [] };
}

/**
 * A capture (src/capture/capture.ts): envelopes or sanitized fixture records {schemaVersion, sequence, provider, sessionId,
 * turnId, stage, eventType, payload, redactions, direction?, channel?, source?}. normalized_out payloads are the
 * canonical events; native_in payloads are the provider messages, and each normalized_out event links to the
 * native_in before it (a capture keeps raw.payload there, not in the event). With no normalized_out stage, the
 * native_in messages are normalized with --from (or the records' `source` when it names a surface). Bad lines
 * are reported as errors (line + field), not fatal.
 */
function loadCapture(text: string, opts: LoadOptions): LoadedInput {
  const records: CaptureRecord[] = [];
  const lines = new Map<CaptureRecord, number>();
  const redactions: ViewerProblem[] = [];
  text.split("\n").forEach((l, i) => {
    const x = parseCaptureLine(l.endsWith("\r") ? l.slice(0, -1) : l, i + 1);
    if (x.record) { records.push(x.record); lines.set(x.record, i + 1); }
  });
  // The problems and counts `agentnorm capture check` reports (the same reader).
  const checked = readCapture(text);
  for (const e of checked.errors) redactions.push({ kind: "error", message: `capture ${formatCaptureError("line", e).replace(/^line:/, "line ")}` });
  const capture: CaptureSummary = {
    kind: checked.records.length && checked.records.every((x) => !("captureId" in x)) ? "fixture" : "capture",
    lines: checked.lines,
    records: checked.records.length,
    stages: Object.fromEntries(CAPTURE_STAGES.map((st) => [st, checked.records.filter((x) => x.stage === st).length])),
    redactions: checked.records.reduce((a, x) => a + x.redactions.length, 0),
    problems: checked.errors.length,
  };
  const events: ViewerEvent[] = [];
  const natives: ViewerNative[] = [];
  const hasNormalized = records.some((r) => r.stage === "normalized_out");
  const surface = opts.from ?? records.map((r) => r.source).find((s) => s !== undefined && (SURFACE_NAMES as readonly string[]).includes(s));
  const redactionText = (r: CaptureRecord["redactions"][number]) => `${r.kind} at ${r.path}${r.length !== undefined ? ` (${r.length} chars)` : ""}`;
  // Redactions of a native message badge the first event it produced.
  const nativeRedactions: [number, string][] = [];
  if (!hasNormalized) {
    if (!surface) throw new ViewerInputError(`the capture has no normalized_out stage: pass --from SURFACE to normalize its native_in messages`);
    const nativeRecs = records.filter((r) => r.stage === "native_in");
    normalizeNatives(nativeRecs.map((r) => ({ value: r.payload, line: lines.get(r) ?? r.sequence, ...(r.direction ? { direction: r.direction } : {}), ...(r.channel ? { channel: r.channel } : {}) })), surface, natives, events);
    nativeRecs.forEach((r, i) => { for (const red of r.redactions) nativeRedactions.push([i, `native line ${natives[i].line}: ${redactionText(red)}`]); });
    for (const r of records) if (r.stage !== "native_in") for (const red of r.redactions) redactions.push({ kind: "redaction", message: `${r.stage === "legacy_out" ? "legacy" : "normalized"} line ${lines.get(r)}: ${redactionText(red)}` });
  } else {
    let lastNative: number | undefined;
    const st = {};
    for (const r of records) {
      if (r.stage === "native_in") {
        lastNative = natives.length;
        natives.push({ payload: r.payload, line: lines.get(r), dir: r.direction ?? dirOf(r.payload) ?? "in", events: [] });
        for (const red of r.redactions) nativeRedactions.push([lastNative, `native line ${lines.get(r)}: ${redactionText(red)}`]);
      } else if (r.stage === "normalized_out") {
        const e = canonicalFrom(r.payload, `line ${lines.get(r)}`);
        const before = events.length;
        addCanonical(e, natives, events, lastNative, st);
        for (const red of r.redactions) redactions.push({ kind: "redaction", sequence: events[before].sequence, message: redactionText(red) });
      }
      else if (r.stage === "legacy_out") {
        // The marker protocol derived from the events: nothing to show beyond them, but its redactions are
        // counted (on the event before the line).
        for (const red of r.redactions) redactions.push({ kind: "redaction", ...(events.length ? { sequence: events[events.length - 1].sequence } : {}), message: `legacy line ${lines.get(r)}: ${redactionText(red)}` });
      }
    }
  }
  for (const [k, message] of nativeRedactions) {
    const seq = natives[k].events[0];
    redactions.push({ kind: "redaction", ...(seq !== undefined ? { sequence: seq } : {}), message });
  }
  return { kind: "capture", ...(surface ? { surface } : {}), events, natives, problems: redactions, capture };
}

/** Runtime warnings/errors and unknown passthrough, from the events themselves. */
export function runtimeProblems(events: readonly ViewerEvent[]): ViewerProblem[] {
  const out: ViewerProblem[] = [];
  for (const e of events) {
    if (e.type !== "runtime.warning" && e.type !== "runtime.error") continue;
    const msg = String((e.payload as any)?.message ?? e.type);
    const unknown = e.raw?.rule === "agentnorm#unknown";
    // An error the provider retries (the canonical payload's detail says willRetry) is a warning, not a failure.
    const retrying = e.type === "runtime.error" && isRetrying(e.payload);
    out.push({ kind: unknown ? "unknown" : e.type === "runtime.error" && !retrying ? "error" : "warning", sequence: e.sequence, message: retrying ? `retrying: ${msg}` : msg });
  }
  return out;
}

/** Everything a page embeds. */
export function viewerData(loaded: LoadedInput, opts: LoadOptions = {}): ViewerData {
  const violations = verifierProblems(loaded.events, loaded.natives);
  // Native input is normalized here, so its createdAt are this run's clock: no durations from them.
  const transcript = transcriptView(loaded.events, { timed: loaded.kind !== "native" });
  const provider = loaded.events.find((e) => typeof (e as any).provider === "string") as any;
  return {
    meta: {
      title: opts.title ?? "agentnorm view",
      input: loaded.kind,
      ...(loaded.surface ? { surface: loaded.surface } : {}),
      ...(provider ? { provider: provider.provider } : {}),
      generator: `agentnorm ${VERSION}`,
      verified: true,
      ...(loaded.capture ? { capture: loaded.capture } : {}),
    },
    events: loaded.events,
    natives: loaded.natives,
    transcript,
    problems: [...violations, ...runtimeProblems(loaded.events), ...loaded.problems, ...transcript.repairs.map((r) => ({ kind: "repair" as const, ...r }))],
  };
}
