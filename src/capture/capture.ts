/**
 * Capture logs (README "Capture logs, sanitize and replay"): one JSON
 * envelope per line, recording what went through a bridge at three stages —
 *   native_in       the provider message as received (or sent: `direction`),
 *   normalized_out  each canonical event emitted,
 *   legacy_out      each compatibility marker line emitted (when a projection is wired in).
 * Payloads are redacted by default (src/capture/redact.ts) and every redaction is listed in the envelope.
 *
 * A *fixture* is a sanitized capture (sanitizeCapture): the same records without `timestamp` and `captureId`,
 * renumbered sequences and stable ids, so it can be checked in and replayed (src/capture/replay.ts).
 *
 * No Node APIs here (it runs in a browser/webview); file I/O lives in src/cli/commands/capture.ts.
 * JSON Schema: schemas/capture/capture-envelope.schema.json (package export "agentnorm/capture.schema.json").
 */
import { createRedactor, type Redaction, type RedactionKind, type RedactOptions, type Redactor } from "./redact.js";

export const CAPTURE_SCHEMA_VERSION = 1 as const;
export const CAPTURE_STAGES = ["native_in", "normalized_out", "legacy_out"] as const;
export type CaptureStage = (typeof CAPTURE_STAGES)[number];
export type { Redaction, RedactionKind, RedactOptions };

/** The fields shared by capture envelopes and fixture records. */
export interface CaptureRecordBase {
  schemaVersion: typeof CAPTURE_SCHEMA_VERSION;
  /** 1, 2, 3… over the whole capture, across stages, in the order things happened. */
  sequence: number;
  /** Canonical provider ("codex", "claude", "acp", "opencode", "cursor") or the host's provider name. */
  provider: string;
  /** The canonical session id (null before one exists). */
  sessionId: string | null;
  /** The canonical turn id the record belongs to, when known. */
  turnId: string | null;
  stage: CaptureStage;
  /** native_in: the message's method/type ("response"/"error" for JSON-RPC answers); normalized_out: the canonical event type; legacy_out: the marker. */
  eventType: string;
  /** The (redacted) message, canonical event or marker line. */
  payload: unknown;
  /** Every redaction made in this record (JSON Pointer into the record + kind; never the secret). */
  redactions: Redaction[];
  /** Model name, when the host knows it. */
  model?: string;
  /** Where the record came from; for native_in, the agentnorm surface name (used by replay). */
  source?: string;
  notes?: string;
  /** native_in: "in" = from the agent, "out" = from the client (an agentnorm extension of the envelope). */
  direction?: "in" | "out";
  /** native_in: the stream, when the agent has several (opencode: "event" / "http"). */
  channel?: string;
}

/** A capture line as written live. */
export interface CaptureEnvelope extends CaptureRecordBase {
  captureId: string;
  /** ISO 8601 time the record was written. */
  timestamp: string;
}

/** A sanitized fixture line: no timestamp, no captureId. */
export type FixtureRecord = CaptureRecordBase;
export type CaptureRecord = CaptureEnvelope | FixtureRecord;

export interface CaptureWriterOptions {
  provider: string;
  /** Default `source` for every record (e.g. the surface name). */
  source?: string;
  model?: string;
  /** Default: a random id. */
  captureId?: string;
  /** Time source for `timestamp` (epoch ms, Date or ISO string). Default Date.now. */
  clock?: () => number | Date | string;
  /** Redaction options, or false to turn redaction off (not recommended; sanitize redacts again). */
  redact?: RedactOptions | false;
}

export interface RecordMeta {
  sessionId?: string | null;
  turnId?: string | null;
  source?: string;
  model?: string;
  notes?: string;
  direction?: "in" | "out";
  channel?: string;
}

export interface CaptureWriter {
  readonly captureId: string;
  /** The writer's redactor (undefined when redaction is off): capturingNormalizer redacts streamed text with it. */
  readonly redactor?: Redactor;
  /** Build (and redact) the next record. */
  record(stage: CaptureStage, eventType: string, payload: unknown, meta?: RecordMeta): CaptureEnvelope;
  /** The same as one NDJSON line (with the newline). */
  line(stage: CaptureStage, eventType: string, payload: unknown, meta?: RecordMeta): string;
}

function randomId(): string {
  const c = (globalThis as any).crypto;
  if (c?.randomUUID) return c.randomUUID();
  let s = "";
  for (let i = 0; i < 32; i++) s += Math.floor(Math.random() * 16).toString(16);
  return s;
}

/** A provider message's event type, from its structure only (JSON-RPC method, a `type` tag, a response). */
export function nativeEventType(message: unknown): string {
  if (message && typeof message === "object" && !Array.isArray(message)) {
    const m = message as Record<string, unknown>;
    if (typeof m.method === "string") return m.method;
    if (typeof m.type === "string") return typeof m.subtype === "string" ? `${m.type}/${m.subtype}` : m.type;
    if ("error" in m && m.id !== undefined) return "error";
    if ("result" in m && m.id !== undefined) return "response";
    if (typeof m.event === "string") return m.event;
  }
  if (typeof message === "string") return "text";
  return "message";
}

export function createCaptureWriter(options: CaptureWriterOptions): CaptureWriter {
  const captureId = options.captureId ?? randomId();
  const clock = options.clock ?? Date.now;
  const redactor: Redactor | undefined = options.redact === false ? undefined : createRedactor(options.redact ?? {});
  let sequence = 0;
  const time = () => {
    const t = clock();
    return typeof t === "string" ? t : new Date(typeof t === "number" ? t : t.getTime()).toISOString();
  };
  const record = (stage: CaptureStage, eventType: string, payload: unknown, meta: RecordMeta = {}): CaptureEnvelope => {
    const redactions: Redaction[] = [];
    const red = (v: unknown, path: string) => {
      if (!redactor) return v;
      const r = redactor.redact(v, path);
      redactions.push(...r.redactions);
      return r.value;
    };
    const env: CaptureEnvelope = {
      schemaVersion: CAPTURE_SCHEMA_VERSION,
      captureId,
      sequence: ++sequence,
      timestamp: time(),
      provider: options.provider,
      sessionId: meta.sessionId ?? null,
      turnId: meta.turnId ?? null,
      stage,
      eventType: red(eventType, "/eventType") as string,
      payload: undefined,
      redactions,
    };
    env.payload = red(payload, "/payload");
    const model = meta.model ?? options.model;
    const source = meta.source ?? options.source;
    if (model !== undefined) env.model = model;
    if (source !== undefined) env.source = red(source, "/source") as string;
    if (meta.notes !== undefined) env.notes = red(meta.notes, "/notes") as string;
    if (meta.direction !== undefined) env.direction = meta.direction;
    if (meta.channel !== undefined) env.channel = meta.channel;
    return env;
  };
  return {
    captureId,
    redactor,
    record,
    line: (stage, eventType, payload, meta) => serializeRecord(record(stage, eventType, payload, meta)) + "\n",
  };
}

const FIELD_ORDER = ["schemaVersion", "captureId", "sequence", "timestamp", "provider", "source", "model", "sessionId", "turnId", "stage", "eventType", "direction", "channel", "payload", "redactions", "notes"] as const;

/** One record as a JSON line (no newline), fields in a fixed order (so fixtures diff well). */
export function serializeRecord(r: CaptureRecord): string {
  const o: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if ((r as any)[k] !== undefined) o[k] = (r as any)[k];
  return JSON.stringify(o);
}

export function serializeRecords(rs: CaptureRecord[]): string {
  let s = "";
  for (const r of rs) s += serializeRecord(r) + "\n";
  return s;
}

// ── reader ────────────────────────────────────────────────────────────────────────────────────────────────

export interface CaptureError {
  /** 1-based line number in the file. */
  line: number;
  /** The offending field ("" when the line as a whole is bad). */
  field: string;
  message: string;
}

export interface CaptureReadResult {
  records: CaptureRecord[];
  errors: CaptureError[];
  /** Non-empty lines read. */
  lines: number;
}

const REQUIRED: [keyof CaptureEnvelope, (v: unknown) => boolean, string][] = [
  ["schemaVersion", (v) => v === CAPTURE_SCHEMA_VERSION, `must be ${CAPTURE_SCHEMA_VERSION}`],
  ["sequence", (v) => Number.isSafeInteger(v) && (v as number) >= 1, "must be an integer ≥ 1"],
  ["provider", (v) => typeof v === "string" && v.length > 0, "must be a non-empty string"],
  ["sessionId", (v) => v === null || typeof v === "string", "must be a string or null"],
  ["turnId", (v) => v === null || typeof v === "string", "must be a string or null"],
  ["stage", (v) => (CAPTURE_STAGES as readonly unknown[]).includes(v), `must be one of ${CAPTURE_STAGES.join(", ")}`],
  ["eventType", (v) => typeof v === "string" && v.length > 0, "must be a non-empty string"],
  ["redactions", (v) => Array.isArray(v), "must be an array"],
];
const OPTIONAL_STRINGS = ["model", "source", "notes", "channel"] as const;
const ENVELOPE_FIELDS = new Set<string>([...REQUIRED.map((x) => x[0] as string), "payload", "captureId", "timestamp", ...OPTIONAL_STRINGS, "direction"]);

/** Validate one parsed line; returns the problems (empty = a valid capture envelope or fixture record). */
export function validateRecord(o: unknown): { field: string; message: string }[] {
  if (!o || typeof o !== "object" || Array.isArray(o)) return [{ field: "", message: "a capture line must be a JSON object" }];
  const r = o as Record<string, unknown>;
  const errs: { field: string; message: string }[] = [];
  for (const [k, ok, what] of REQUIRED) {
    if (!Object.hasOwn(r, k)) errs.push({ field: k, message: "is missing" });
    else if (!ok(r[k])) errs.push({ field: k, message: `${what} (got ${JSON.stringify(r[k])?.slice(0, 60)})` });
  }
  if (!Object.hasOwn(r, "payload")) errs.push({ field: "payload", message: "is missing" });
  const hasId = Object.hasOwn(r, "captureId");
  const hasTime = Object.hasOwn(r, "timestamp");
  if (hasId && (typeof r.captureId !== "string" || r.captureId === "")) errs.push({ field: "captureId", message: "must be a non-empty string" });
  if (hasTime && (typeof r.timestamp !== "string" || Number.isNaN(Date.parse(r.timestamp)))) errs.push({ field: "timestamp", message: "must be an ISO 8601 date-time" });
  if (hasId !== hasTime) errs.push({ field: hasId ? "timestamp" : "captureId", message: "is missing (a capture line has both captureId and timestamp; a fixture line neither)" });
  for (const k of OPTIONAL_STRINGS) if (Object.hasOwn(r, k) && typeof r[k] !== "string") errs.push({ field: k, message: "must be a string" });
  if (Object.hasOwn(r, "direction") && r.direction !== "in" && r.direction !== "out") errs.push({ field: "direction", message: `must be "in" or "out"` });
  if (Array.isArray(r.redactions)) {
    r.redactions.forEach((x: any, i) => {
      if (!x || typeof x !== "object" || typeof x.path !== "string" || typeof x.kind !== "string") errs.push({ field: `redactions/${i}`, message: "must be {path: string, kind: string}" });
      else if (x.length !== undefined && !Number.isSafeInteger(x.length)) errs.push({ field: `redactions/${i}/length`, message: "must be an integer" });
    });
  }
  for (const k of Object.keys(r)) if (!ENVELOPE_FIELDS.has(k)) errs.push({ field: k, message: "is not an envelope field" });
  return errs;
}

/** Parse one line. Blank lines give neither a record nor an error. */
export function parseCaptureLine(line: string, lineNumber: number): { record?: CaptureRecord; errors: CaptureError[] } {
  if (line.trim() === "") return { errors: [] };
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch (err) {
    return { errors: [{ line: lineNumber, field: "", message: `not JSON (${(err as Error).message})` }] };
  }
  const errs = validateRecord(o);
  if (errs.length) return { errors: errs.map((e) => ({ line: lineNumber, ...e })) };
  return { record: o as CaptureRecord, errors: [] };
}

/**
 * Read a whole capture or fixture. Bad lines are reported (line number + field) and skipped; every good line
 * is kept. A sequence that does not increase is reported too (the record is kept).
 */
export function readCapture(text: string): CaptureReadResult {
  const records: CaptureRecord[] = [];
  const errors: CaptureError[] = [];
  let lines = 0;
  let last = 0;
  const all = text.split("\n");
  for (let i = 0; i < all.length; i++) {
    const line = all[i].endsWith("\r") ? all[i].slice(0, -1) : all[i];
    if (line.trim() === "") continue;
    lines++;
    const r = parseCaptureLine(line, i + 1);
    errors.push(...r.errors);
    if (!r.record) continue;
    if (r.record.sequence <= last) errors.push({ line: i + 1, field: "sequence", message: `${r.record.sequence} does not follow ${last} (kept; sanitize renumbers)` });
    last = Math.max(last, r.record.sequence);
    records.push(r.record);
  }
  return { records, errors, lines };
}

export function formatCaptureError(file: string, e: CaptureError): string {
  return `${file}:${e.line}: ${e.field ? `${e.field}: ` : ""}${e.message}`;
}
