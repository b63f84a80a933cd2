/**
 * Builds what a viewer page embeds (ViewerData) from the text of its input: a native recording (normalized here
 * with createNormalizer), a canonical NDJSON stream, or a capture file (NDJSON envelopes with a `stage`).
 * No Node APIs: the caller reads the file.
 */
import { createNormalizer, type CanonicalEvent } from "../normalizer.js";
import { counterIds } from "../ids.js";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { VERSION } from "../version.js";
import { transcriptView } from "./transcript-view.js";
import { verifierProblems } from "./verifier.js";
import type { ViewerData, ViewerEvent, ViewerNative, ViewerProblem } from "./types.js";

export type InputKind = "native" | "canonical" | "capture";

export class ViewerInputError extends Error {}

export interface LoadOptions {
  /** The input's surface: normalize it (a native recording), or the native_in stage of a capture. */
  from?: string;
  /** Page title (default: "agentnorm view"). */
  title?: string;
}

const CAPTURE_FIELDS = ["captureId", "stage", "schemaVersion"];
const CANONICAL_FIELDS = ["eventId", "sequence", "type", "payload"];

/** What a parsed first record looks like. */
export function detectInput(first: unknown): InputKind {
  if (first && typeof first === "object" && !Array.isArray(first)) {
    if (CAPTURE_FIELDS.every((k) => k in first)) return "capture";
    if (CANONICAL_FIELDS.every((k) => k in first)) return "canonical";
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

/** Strip raw.payload from an event (it lives in natives[]). */
function compact(e: CanonicalEvent, native: number | undefined): ViewerEvent {
  const { raw, ...rest } = e as any;
  const out: ViewerEvent = { ...rest };
  if (raw) {
    const { payload: _p, ...r } = raw;
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

/** Normalize native messages with `surface`; every event links to the message behind it. */
function normalizeNatives(recs: Record_[], rawLines: string[] | undefined, surface: string, natives: ViewerNative[], events: ViewerEvent[]): void {
  const n = createNormalizer({ surface, ids: counterIds(), includeRaw: true });
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
  const byPayload = new Map<unknown, number>();
  recs.forEach((r, i) => {
    const idx = natives.length;
    natives.push({ payload: r.value, line: r.line, dir: dirOf(r.value), events: [] });
    if (r.value !== null && typeof r.value === "object") byPayload.set(r.value, idx);
    // pushLine also removes capture wrappers ({dir, message}); records from a JSON array or a capture go through it too.
    const out = n.pushLine(rawLines ? rawLines[i] : typeof r.value === "string" ? r.value : JSON.stringify(r.value), { lineNumber: r.line });
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
  });
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
  /** Redactions listed by a capture, per event sequence (or undefined: the stream as a whole). */
  redactions: ViewerProblem[];
}

/** Read the input text into events and natives. Throws ViewerInputError with a clear reason. */
export function loadInput(text: string, opts: LoadOptions = {}): LoadedInput {
  const { recs, rawLines } = records(text);
  if (!recs.length) throw new ViewerInputError("the input is empty");
  if (opts.from !== undefined && !(SURFACE_NAMES as readonly string[]).includes(opts.from)) {
    throw new ViewerInputError(`unknown surface "${opts.from}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  }
  const kind = detectInput(recs[0].value);
  const events: ViewerEvent[] = [];
  const natives: ViewerNative[] = [];
  const redactions: ViewerProblem[] = [];
  if (kind === "canonical") {
    const st = {};
    for (const r of recs) addCanonical(canonicalFrom(r.value, `line ${r.line}`), natives, events, undefined, st);
    return { kind, events, natives, redactions };
  }
  if (kind === "capture") return loadCapture(recs, opts, redactions);
  if (!opts.from) throw new ViewerInputError(`the input looks like native provider messages (not canonical events, not a capture): pass --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
  normalizeNatives(recs, rawLines, opts.from, natives, events);
  return { kind, surface: opts.from, events, natives, redactions };
}

function redactionText(r: unknown): string {
  if (typeof r === "string") return r;
  if (r && typeof r === "object") {
    const o = r as any;
    const what = o.kind ?? o.type ?? o.rule ?? "redacted";
    const where = o.path ?? o.field ?? o.pointer;
    return `${what}${where !== undefined ? ` at ${Array.isArray(where) ? where.join(".") : where}` : ""}${o.length !== undefined ? ` (${o.length} chars)` : ""}`;
  }
  return JSON.stringify(r);
}

/**
 * A capture: envelopes {schemaVersion, captureId, sequence, timestamp, provider, sessionId, turnId, stage,
 * eventType, payload, redactions}. normalized_out payloads are the canonical events; native_in payloads are the
 * provider messages (each normalized_out event links to the native_in before it). With no normalized_out stage,
 * the native_in messages are normalized with --from (or the envelope's `source` when it names a surface).
 */
function loadCapture(recs: Record_[], opts: LoadOptions, redactions: ViewerProblem[]): LoadedInput {
  const events: ViewerEvent[] = [];
  const natives: ViewerNative[] = [];
  const hasNormalized = recs.some((r) => (r.value as any)?.stage === "normalized_out");
  const surface = opts.from ?? recs.map((r) => (r.value as any)?.source).find((s) => (SURFACE_NAMES as readonly string[]).includes(s));
  if (!hasNormalized) {
    if (!surface) throw new ViewerInputError(`the capture has no normalized_out stage: pass --from SURFACE to normalize its native_in messages`);
    const nativeRecs = recs.filter((r) => (r.value as any)?.stage === "native_in").map((r) => ({ value: (r.value as any).payload, line: r.line, env: r.value as any }));
    normalizeNatives(nativeRecs, undefined, surface, natives, events);
    nativeRecs.forEach((r, i) => {
      for (const red of r.env.redactions ?? []) {
        const seqs = natives[i].events;
        redactions.push({ kind: "redaction", sequence: seqs[0], message: `native line ${r.line}: ${redactionText(red)}` });
      }
    });
    return { kind: "capture", surface, events, natives, redactions };
  }
  let lastNative: number | undefined;
  const st = {};
  for (const r of recs) {
    const env = r.value as any;
    if (!env || typeof env !== "object") throw new ViewerInputError(`line ${r.line}: not a capture envelope`);
    const reds: unknown[] = Array.isArray(env.redactions) ? env.redactions : [];
    if (env.stage === "native_in") {
      lastNative = natives.length;
      natives.push({ payload: env.payload, line: r.line, dir: dirOf(env.payload) ?? "in", events: [] });
      for (const red of reds) redactions.push({ kind: "redaction", message: `native line ${r.line}: ${redactionText(red)}`, sequence: -1 - lastNative });
    } else if (env.stage === "normalized_out") {
      const e = canonicalFrom(env.payload, `line ${r.line}`);
      const before = events.length;
      addCanonical(e, natives, events, lastNative, st);
      const seq = events[before].sequence;
      for (const red of reds) redactions.push({ kind: "redaction", sequence: seq, message: redactionText(red) });
    }
    // legacy_out lines are the marker protocol derived from the events: nothing to show beyond the events.
  }
  // Redactions of a native message badge the first event it produced.
  for (const red of redactions) {
    if (red.sequence !== undefined && red.sequence < 0) {
      const seqs = natives[-1 - red.sequence].events;
      red.sequence = seqs.length ? seqs[0] : undefined;
    }
  }
  return { kind: "capture", surface, events, natives, redactions };
}

/** Runtime warnings/errors and unknown passthrough, from the events themselves. */
export function runtimeProblems(events: readonly ViewerEvent[]): ViewerProblem[] {
  const out: ViewerProblem[] = [];
  for (const e of events) {
    if (e.type !== "runtime.warning" && e.type !== "runtime.error") continue;
    const msg = String((e.payload as any)?.message ?? e.type);
    const unknown = e.raw?.rule === "agentnorm#unknown";
    out.push({ kind: unknown ? "unknown" : e.type === "runtime.error" ? "error" : "warning", sequence: e.sequence, message: msg });
  }
  return out;
}

/** Everything a page embeds. */
export function viewerData(loaded: LoadedInput, opts: LoadOptions = {}): ViewerData {
  const violations = verifierProblems(loaded.events);
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
      verified: violations !== undefined,
    },
    events: loaded.events,
    natives: loaded.natives,
    transcript,
    problems: [...(violations ?? []), ...runtimeProblems(loaded.events), ...loaded.redactions, ...transcript.repairs.map((r) => ({ kind: "repair" as const, ...r }))],
  };
}
