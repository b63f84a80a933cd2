/**
 * The viewer's input, read line by line (`agentnorm view` streams its file through this; loadInput() gives it a
 * whole text). Three kinds of input — native provider messages (normalized here), a canonical NDJSON stream, a
 * capture log — become the events and provider messages one page shows.
 *
 * Bounded: the page holds the input lines of the last turns that fit in `maxBytes` characters (and at most
 * `maxTurns` turns, when given). Turns are left out whole, oldest first; the stream's preamble (what comes before
 * its first turn: the session's setup) stays when it takes no more than an eighth of the budget; a single turn
 * larger than the budget keeps its first line (its turn.started) and its last lines, the rest of it is left out.
 * What is left out is counted (turns, events, messages, characters, and the problems among them) in `cut`, which
 * the page and the CLI show. Memory therefore follows the budget, not the stream: one line at a time, plus what the
 * page keeps, plus the normalizer's open state.
 *
 * No input throws anything but ViewerInputError: a line that nests deeper than MAX_NESTING is reported (line and
 * reason) and not parsed, a line longer than the reader keeps is reported by the caller (oversize), a line that is
 * not JSON or not an event is a problem on the page. No Node APIs.
 */
import { createRawResolver } from "../normalize/raw-stream.js";
import { createNormalizer, type CanonicalEvent, type Normalizer } from "../normalize/normalizer.js";
import { counterIds } from "../normalize/ids.js";
import { TOO_DEEP, textNestsDeeper } from "../normalize/nesting.js";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { CAPTURE_STAGES, formatCaptureError, parseCaptureLine, type CaptureRecord } from "../capture/capture.js";
import { isRetrying, sizeText } from "./labels.js";
import type { CaptureSummary, ProblemKind, ViewerCut, ViewerEvent, ViewerNative, ViewerProblem } from "./types.js";

export type InputKind = "native" | "canonical" | "capture";

export class ViewerInputError extends Error {}

export interface LoadOptions {
  /** The input's surface: normalize it (a native recording), or the native_in stage of a capture. */
  from?: string;
  /** Page title (default: "agentnorm view"). */
  title?: string;
}

export interface StreamOptions extends LoadOptions {
  /** Input characters the page holds: the last turns that fit (default: no limit). */
  maxBytes?: number;
  /** At most this many turns, the last ones (default: no limit). */
  maxTurns?: number;
  /** Told about every input line with a problem, as it is read (for FILE:LINE diagnostics). */
  onLineProblem?: (line: number, message: string) => void;
}

export interface LoadedInput {
  kind: InputKind;
  surface?: string;
  events: ViewerEvent[];
  natives: ViewerNative[];
  /** What the input itself says: a capture's redactions (by the event they badge), its unreadable lines, lines that are not JSON or not events. */
  problems: ViewerProblem[];
  /** A capture's counts, as `agentnorm capture check` reports them. */
  capture?: CaptureSummary;
  /** Set when the page leaves part of the stream out (maxBytes / maxTurns). */
  cut?: ViewerCut;
  /** A native input: every line pushed, by what became of it (the normalizer's outcomes, the whole input). */
  outcomes?: { mapped: number; ignored: number; silent: number; held: number; unknown: number; malformed: number; blank: number };
}

export interface ViewStream {
  /** One input line (without its "\n"; a "\r" before it and a byte order mark at the start are dropped here too). */
  line(text: string, lineNumber: number): void;
  /** A line the reader did not keep: longer than it reads (`chars` characters). */
  oversize(lineNumber: number, chars: number): void;
  /** End of input: what the page shows. Throws ViewerInputError when there is nothing to show, or a surface is needed. */
  end(): LoadedInput;
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

/** Strip raw.payload from an event (it lives in natives[]); only raw's JSON fields are kept (not the normalizer's symbol-keyed source text). */
function compact(e: CanonicalEvent): ViewerEvent {
  const { raw, ...rest } = e as any;
  const out: ViewerEvent = { ...rest };
  if (raw) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(raw)) if (k !== "payload") r[k] = raw[k];
    out.raw = r;
  }
  return out;
}

function dirOf(v: unknown): string | undefined {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const d = (v as any).dir ?? (v as any).direction;
    if (d === "in" || d === "out") return d;
  }
  return undefined;
}

const isEvent = (v: unknown): v is CanonicalEvent => !!v && typeof v === "object" && !Array.isArray(v) && typeof (v as any).sequence === "number" && typeof (v as any).type === "string";

/** A capture with no normalized_out record in its first this-many characters (or records) is shown by normalizing its native_in messages. */
const CAPTURE_DECIDE_CHARS = 1 << 20;
const CAPTURE_DECIDE_RECORDS = 1000;
/** The stream's preamble (before its first turn) stays when it takes at most this share of the budget. */
const PREAMBLE_SHARE = 8;
/** What a too-deep line shows in the native pane: its start. */
const DEEP_SHOWN = 256;

/** One input message (or a group of canonical events sharing one) with the events it gave: what the page keeps or leaves out whole. */
interface Unit {
  chars: number;
  natives: ViewerNative[];
  events: ViewerEvent[];
  problems: ViewerProblem[];
  /** Input line it starts at (when known). */
  line?: number;
  /** It holds a turn.started: it starts a turn. */
  turn: boolean;
  turnId?: string;
}


/** The units of the preamble, or of one turn (`first`: the unit that started it). */
interface Segment { first?: Unit; rest: Deque<Unit>; chars: number }

/** An array with O(1) shift (compacted when half of it is shifted out). */
class Deque<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  get length(): number { return this.items.length - this.head; }
  push(x: T): void { this.items.push(x); }
  last(): T { return this.items[this.items.length - 1] as T; }
  shift(): T {
    const x = this.items[this.head] as T;
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) { this.items = this.items.slice(this.head); this.head = 0; }
    return x;
  }
  *[Symbol.iterator](): Generator<T> { for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T; }
}

export function createViewStream(opts: StreamOptions = {}): ViewStream {
  if (opts.from !== undefined && !(SURFACE_NAMES as readonly string[]).includes(opts.from)) {
    throw new ViewerInputError(`unknown surface "${opts.from}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  }
  const maxBytes = opts.maxBytes ?? Infinity;
  const maxTurns = opts.maxTurns ?? Infinity;
  let kind: InputKind | undefined;
  let surface: string | undefined;
  let lines = 0;

  // ── the window: the preamble (units before the first turn) and one segment per turn (the unit that started it,
  // then the rest). Deques, so leaving out the oldest is O(1) however long the stream.
  const pre: Segment = { rest: new Deque(), chars: 0 };
  const turns = new Deque<Segment>();
  let open: Unit | undefined;
  let keptChars = 0;
  let turnsSeen = 0;
  const left = { units: 0, turns: 0, events: 0, natives: 0, chars: 0, lastLine: 0, problems: {} as Partial<Record<ProblemKind, number>> };
  /** The shown turn (or the preamble) whose events after its first unit were left out, and how many. */
  let partial: { seg: Segment; events: number } | undefined;
  /** Which native an event was made from (turned into an index at the end). */
  const nativeOf = new WeakMap<ViewerEvent, ViewerNative>();
  /** Problems that badge the first event of a native (a native_in record's redactions). */
  const badgeOf = new WeakMap<ViewerProblem, ViewerNative>();
  let lastSeq: number | undefined;

  const leave = (u: Unit) => {
    left.units++;
    left.events += u.events.length;
    left.natives += u.natives.length;
    left.chars += u.chars;
    if (u.line !== undefined) left.lastLine = Math.max(left.lastLine, u.line);
    for (const p of runtimeProblems(u.events)) left.problems[p.kind] = (left.problems[p.kind] ?? 0) + 1;
    for (const p of u.problems) left.problems[p.kind] = (left.problems[p.kind] ?? 0) + 1;
    keptChars -= u.chars;
  };
  const leaveSegment = (seg: Segment) => {
    if (seg.first) leave(seg.first);
    while (seg.rest.length) leave(seg.rest.shift());
    seg.chars = 0;
    if (partial?.seg === seg) partial = undefined;
  };
  const dropTurn = () => { leaveSegment(turns.shift()); left.turns++; };
  /** Leave out what does not fit, oldest first (see the module comment). */
  const enforce = () => {
    for (;;) {
      if (turns.length > maxTurns) { dropTurn(); continue; }
      if (keptChars <= maxBytes) return;
      if (pre.rest.length && pre.chars > maxBytes / PREAMBLE_SHARE) { leaveSegment(pre); continue; }
      if (turns.length > 1) { dropTurn(); continue; }
      // the last turn (or, with none, the preamble) alone is too big: leave out its oldest units, keeping the one
      // that started the turn and the newest
      const seg = turns.length ? turns.last() : pre;
      if (seg.rest.length <= 1) return; // one unit larger than the cap: it is what there is to show
      const u = seg.rest.shift();
      seg.chars -= u.chars;
      leave(u);
      partial = { seg, events: (partial?.seg === seg ? partial.events : 0) + u.events.length };
    }
  };
  const close = () => {
    if (!open) return;
    const u = open;
    open = undefined;
    if (u.turn) { turnsSeen++; turns.push({ first: u, rest: new Deque(), chars: u.chars }); }
    else {
      const seg = turns.length ? turns.last() : pre;
      seg.rest.push(u);
      seg.chars += u.chars;
    }
    enforce();
  };
  const unit = (n: number, line?: number): Unit => {
    close();
    open = { chars: n, natives: [], events: [], problems: [], turn: false, ...(line !== undefined ? { line } : {}) };
    keptChars += n;
    return open;
  };
  const current = (): Unit => open ?? unit(0);
  const addChars = (n: number) => { current().chars += n; keptChars += n; };
  const addEvent = (e: CanonicalEvent, native: ViewerNative | undefined) => {
    const u = current();
    const v = compact(e);
    if (native) { nativeOf.set(v, native); native.events.push(v.sequence); }
    u.events.push(v);
    lastSeq = v.sequence;
    if (v.type === "turn.started") { u.turn = true; u.turnId ??= v.turnId; }
  };
  const problem = (p: ViewerProblem) => { current().problems.push(p); };
  const badge = (native: ViewerNative, message: string) => {
    const p: ViewerProblem = { kind: "redaction", message };
    badgeOf.set(p, native);
    current().problems.push(p);
  };

  // ── native messages, normalized here; an event links to the message in its raw.payload when that is a known one
  // (end()'s reports point at earlier ones), else to the message being pushed
  let normalizer: Normalizer | undefined;
  const byPayload = new WeakMap<object, ViewerNative>();
  const startNormalizer = (s: string) => {
    surface = s;
    normalizer = createNormalizer({ surface: s, ids: counterIds(), includeRaw: true });
  };
  const addNormalized = (out: CanonicalEvent[], fallback: ViewerNative | undefined) => {
    for (const e of out) {
      const p = (e.raw as any)?.payload;
      addEvent(e, (p !== null && typeof p === "object" ? byPayload.get(p) : undefined) ?? fallback);
    }
  };
  /** A line goes through pushLine (which removes capture wrappers like {dir, message}); a capture's native_in message through push with the envelope's direction and channel. */
  const pushNative = (value: unknown, line: number, n: number, raw: string | undefined, direction?: "in" | "out", channel?: string): ViewerNative => {
    const u = unit(n, line);
    const d = direction ?? dirOf(value);
    const native: ViewerNative = { payload: value, line, ...(d ? { dir: d } : {}), events: [] };
    u.natives.push(native);
    if (value !== null && typeof value === "object") byPayload.set(value, native);
    const out = raw !== undefined
      ? normalizer!.pushLine(raw, { lineNumber: line })
      : normalizer!.push(value, { ...(direction ? { direction } : {}), capture: { message: value, ...(direction ? { dir: direction, direction } : {}), ...(channel ? { channel } : {}) } });
    // pushLine parses the line again: its payload object (and the message inside a wrapper) is this native too
    for (const e of out) {
      const p = (e.raw as any)?.payload;
      if (p !== null && typeof p === "object" && !byPayload.has(p)) {
        byPayload.set(p, native);
        const inner = (p as any).message ?? (p as any).frame;
        if (inner !== null && typeof inner === "object") byPayload.set(inner, native);
      }
    }
    addNormalized(out, native);
    return native;
  };

  // ── canonical events (a stream, or a capture's normalized_out): raw.payload becomes a native, shared by
  // consecutive events with the same payload; in a stream each message (or event without one) is a unit
  const resolver = createRawResolver();
  let lastPayloadText: string | undefined;
  let lastPayloadNative: ViewerNative | undefined;
  const addCanonical = (e: CanonicalEvent, fallback: ViewerNative | undefined, line?: number) => {
    const p = (e.raw as any)?.payload;
    let native = fallback;
    const stream = kind === "canonical";
    if (p !== undefined && p !== null) {
      const text = JSON.stringify(p);
      if (lastPayloadNative && text === lastPayloadText) native = lastPayloadNative;
      else {
        native = { payload: p, events: [] };
        (stream ? unit(0, line) : current()).natives.push(native);
        lastPayloadText = text;
        lastPayloadNative = native;
      }
      if (stream && !open) unit(0, line);
    } else if (stream) unit(0, line);
    addEvent(e, native);
  };

  // ── a capture, read line by line like `agentnorm capture check` (the same reader); normalized_out events, or its
  // native_in messages normalized here when it has no normalized_out stage
  const capture: CaptureSummary = { kind: "fixture", lines: 0, records: 0, stages: Object.fromEntries(CAPTURE_STAGES.map((s) => [s, 0])), redactions: 0, problems: 0 };
  let captureIds = 0;
  let lastSequence = 0;
  let captureMode: "normalized" | "native" | undefined;
  let pending: { r: CaptureRecord; line: number; n: number }[] = [];
  let pendingChars = 0;
  let lastNative: ViewerNative | undefined;
  const redactionText = (r: CaptureRecord["redactions"][number]) => `${r.kind} at ${r.path}${r.length !== undefined ? ` (${r.length} chars)` : ""}`;
  const captureError = (line: number, field: string, message: string) => {
    capture.problems++;
    const p: ViewerProblem = { kind: "error", message: `capture ${formatCaptureError("line", { line, field, message }).replace(/^line:/, "line ")}` };
    problem(p);
    opts.onLineProblem?.(line, `${field ? `${field}: ` : ""}${message}`);
  };
  const decideCapture = (mode: "normalized" | "native") => {
    captureMode = mode;
    if (mode === "native") {
      const s = opts.from ?? pending.map((p) => p.r.source).find((x) => x !== undefined && (SURFACE_NAMES as readonly string[]).includes(x));
      if (!s) throw new ViewerInputError(`the capture has no normalized_out stage: pass --from SURFACE to normalize its native_in messages`);
      startNormalizer(s);
    } else if (opts.from) surface = opts.from;
    const held = pending;
    pending = [];
    pendingChars = 0;
    for (const p of held) captureRecord(p.r, p.line, p.n);
  };
  const captureRecord = (r: CaptureRecord, line: number, n: number) => {
    if (captureMode === undefined) {
      pending.push({ r, line, n });
      pendingChars += n;
      if (r.stage === "normalized_out") decideCapture("normalized");
      else if (pendingChars > CAPTURE_DECIDE_CHARS || pending.length > CAPTURE_DECIDE_RECORDS) decideCapture("native");
      return;
    }
    if (r.stage === "native_in") {
      if (captureMode === "native") {
        const native = pushNative(r.payload, line, n, undefined, r.direction, r.channel);
        for (const red of r.redactions) badge(native, `native line ${line}: ${redactionText(red)}`);
        return;
      }
      lastNative = { payload: r.payload, line, dir: r.direction ?? dirOf(r.payload) ?? "in", events: [] };
      unit(n, line).natives.push(lastNative);
      for (const red of r.redactions) badge(lastNative, `native line ${line}: ${redactionText(red)}`);
      return;
    }
    addChars(n);
    const stage = r.stage === "legacy_out" ? "legacy" : "normalized";
    if (captureMode === "native") {
      for (const red of r.redactions) problem({ kind: "redaction", message: `${stage} line ${line}: ${redactionText(red)}` });
      return;
    }
    if (r.stage === "normalized_out") {
      if (!isEvent(r.payload)) {
        problem({ kind: "error", message: `line ${line}: not a canonical event (needs at least sequence and type)` });
        opts.onLineProblem?.(line, "payload: not a canonical event (needs at least sequence and type)");
        return;
      }
      addCanonical(r.payload, lastNative, line);
      for (const red of r.redactions) problem({ kind: "redaction", sequence: r.payload.sequence, message: redactionText(red) });
      return;
    }
    // legacy_out: the marker protocol derived from the events: nothing to show beyond them, but its redactions are
    // counted (on the event before the line)
    for (const red of r.redactions) problem({ kind: "redaction", ...(lastSeq !== undefined ? { sequence: lastSeq } : {}), message: `legacy line ${line}: ${redactionText(red)}` });
  };

  return {
    line(text, n) {
      if (text.endsWith("\r")) text = text.slice(0, -1);
      if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === "") return;
      lines++;
      const deep = textNestsDeeper(text);
      let value: unknown = text;
      let json = false;
      if (deep) opts.onLineProblem?.(n, TOO_DEEP);
      else {
        try {
          value = JSON.parse(text);
          json = true;
        } catch (err) {
          if (kind !== "capture") opts.onLineProblem?.(n, `not valid JSON (${(err as Error).message})`);
        }
      }
      if (kind === undefined) {
        kind = detectInput(json ? value : undefined);
        if (kind === "native") {
          if (!opts.from) throw new ViewerInputError(`the input looks like native provider messages (not canonical events, not a capture): pass --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
          startNormalizer(opts.from);
        }
      }
      if (kind === "native") {
        // the normalizer reports a line that is not JSON or nests too deep (a runtime.error on the page); the
        // native pane shows the start of a too-deep line
        pushNative(deep ? `${text.slice(0, DEEP_SHOWN)}… (${text.length} characters; ${TOO_DEEP})` : value, n, text.length, text);
        return;
      }
      if (kind === "canonical") {
        if (!json || !isEvent(value)) {
          unit(text.length, n);
          const why = deep ? TOO_DEEP : !json ? "not valid JSON" : "not a canonical event (needs at least sequence and type)";
          problem({ kind: "error", message: `line ${n}: ${why}` });
          if (json) opts.onLineProblem?.(n, why);
          return;
        }
        for (const e of resolver.push(value)) addCanonical(e, undefined, n);
        addChars(text.length);
        return;
      }
      // a capture
      capture.lines++;
      if (deep) { addChars(text.length); captureError(n, "", TOO_DEEP); return; }
      const x = parseCaptureLine(text, n);
      for (const e of x.errors) captureError(n, e.field, e.message);
      if (!x.record) { addChars(text.length); return; }
      const r = x.record;
      capture.records++;
      capture.stages[r.stage] = (capture.stages[r.stage] ?? 0) + 1;
      capture.redactions += r.redactions.length;
      if ("captureId" in r) captureIds++;
      if (r.sequence <= lastSequence) captureError(n, "sequence", `${r.sequence} does not follow ${lastSequence} (kept; sanitize renumbers)`);
      lastSequence = Math.max(lastSequence, r.sequence);
      captureRecord(r, n, text.length);
    },
    oversize(n, length) {
      lines++;
      const why = `${length.toLocaleString("en")} characters, more than ${Number.isFinite(maxBytes) ? `the page's cap (${sizeText(maxBytes)})` : "a line the page reads"}: left out`;
      if (kind === "capture") { capture.lines++; capture.problems++; }
      problem({ kind: "error", message: `line ${n}: ${why}` });
      opts.onLineProblem?.(n, why);
    },
    end() {
      if (kind === undefined) throw new ViewerInputError(lines ? "no line could be read (every line is longer than the page reads)" : "the input is empty");
      if (kind === "capture" && captureMode === undefined) decideCapture(pending.some((p) => p.r.stage === "normalized_out") ? "normalized" : "native");
      if (kind === "canonical") {
        for (const e of resolver.end()) addCanonical(e, undefined);
        if (resolver.unresolved()) problem({ kind: "error", message: `${resolver.unresolved()} event(s) name a raw.payloadRef holder that is not in the input (their raw.payload stays out)` });
      }
      if (normalizer) {
        const out = normalizer.end();
        if (out.length) { unit(0); addNormalized(out, undefined); }
      }
      close();
      // What the page keeps, in order: natives numbered, events linked to them (a link to a native left out goes).
      const units: Unit[] = [...pre.rest];
      for (const seg of turns) {
        units.push(seg.first!);
        for (const u of seg.rest) units.push(u);
      }
      const natives: ViewerNative[] = [];
      const events: ViewerEvent[] = [];
      const index = new Map<ViewerNative, number>();
      for (const u of units) for (const nv of u.natives) { index.set(nv, natives.length); natives.push(nv); }
      for (const u of units) for (const e of u.events) {
        const k = index.get(nativeOf.get(e)!);
        if (k !== undefined) e.native = k;
        events.push(e);
      }
      if (left.units) {
        const kept = new Set(events.map((e) => e.sequence));
        for (const nv of natives) nv.events = nv.events.filter((s) => kept.has(s));
      }
      // A native's redactions badge the first event it produced (listed after the other problems).
      const problems: ViewerProblem[] = [];
      const badges: ViewerProblem[] = [];
      for (const u of units) for (const p of u.problems) {
        const nv = badgeOf.get(p);
        if (!nv) { problems.push(p); continue; }
        const seq = nv.events[0];
        badges.push(seq !== undefined ? { kind: p.kind, sequence: seq, message: p.message } : p);
      }
      const out: LoadedInput = { kind, ...(surface ? { surface } : {}), events, natives, problems: [...problems, ...badges] };
      if (normalizer && kind === "native") out.outcomes = normalizer.stats().outcomes;
      if (kind === "capture") out.capture = { ...capture, kind: capture.records && captureIds === 0 ? "fixture" : "capture" };
      if (left.units) {
        const fromLine = units.find((u) => u.line !== undefined && u.line > left.lastLine)?.line;
        out.cut = {
          ...(Number.isFinite(maxBytes) ? { maxBytes } : {}),
          ...(Number.isFinite(maxTurns) ? { maxTurns } : {}),
          lines,
          ...(fromLine !== undefined ? { fromLine } : {}),
          turns: { total: turnsSeen, shown: turns.length },
          left: { turns: left.turns, events: left.events, natives: left.natives, chars: left.chars, problems: left.problems },
          ...(partial ? { partial: { ...(partial.seg.first?.turnId ? { turnId: partial.seg.first.turnId } : {}), events: partial.events } } : {}),
        };
      }
      return out;
    },
  };
}
