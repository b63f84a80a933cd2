/**
 * The event source the stream commands (render, project, verify) share: an input (FILE or stdin) that is canonical
 * NDJSON, a capture log (its normalized_out events) or native provider messages (normalized here, the surface
 * from --from or detected). Malformed and unknown lines are reported as FILE:LINE (the first few, then a count)
 * and tallied for --strict. raw.payloadRef links are resolved (src/normalize/raw-stream.ts).
 */
import { counterIds, steppingClock } from "../../normalize/ids.js";
import { createNormalizer, type CanonicalEvent, type Normalizer } from "../../normalize/normalizer.js";
import { createRawResolver } from "../../normalize/raw-stream.js";
import { CAPTURE_STAGES } from "../../capture/capture.js";
import { chooseSurface, openInput, surfaceLines, warn, type Flags, type Input } from "./util.js";

/** Diagnostics printed per kind before only the count is kept. */
export const SHOWN = 10;

export interface Tally {
  lines: number;
  /** Blank lines (not messages). */
  blank: number;
  /** Lines holding a JSON object (what a message of any surface is; counted where a surface reads the lines). */
  objects: number;
  malformed: number;
  unknown: number;
  shown: number;
  /** --quiet: no FILE:LINE notes (the problems are still counted). */
  quiet: boolean;
  /**
   * The notes of the lines before the first good one, held back: when not one line of the input is good (a wrong
   * --from), the run ends with one line saying so instead of a screen of notes. Undefined once released.
   */
  held?: string[];
}

export function newTally(quiet = false): Tally {
  return { lines: 0, blank: 0, objects: 0, malformed: 0, unknown: 0, shown: 0, quiet, held: [] };
}

/**
 * Native input of which not one line is a message of the surface it was normalized with, though some are JSON
 * objects (messages of something: a wrong --from; an input of nothing but unreadable lines is reported line by line).
 */
export function noneMatched(t: Tally, surface: string | undefined): boolean {
  return !!surface && t.objects > 0 && t.malformed + t.unknown >= t.lines - t.blank;
}

/** Counts a line for the tally: blank, or (by its first character) a JSON object. */
export function countLine(t: Tally, text: string): void {
  t.lines++;
  const c = text.trimStart()[0];
  if (c === undefined) t.blank++;
  else if (c === "{") t.objects++;
}

/** A good line came: the notes held back so far are printed. */
export function release(t: Tally): void {
  if (!t.held) return;
  for (const s of t.held) warn(s);
  t.held = undefined;
}

/** A line's problem: FILE:LINE: what (the first SHOWN of them). */
export function lineProblem(t: Tally, label: string, line: number, what: string): void {
  if (++t.shown > SHOWN || t.quiet) return;
  if (t.held) t.held.push(`${label}:${line}: ${what}`);
  else warn(`${label}:${line}: ${what}`);
}

/**
 * The end-of-run report of the problems, and the verdict (1 = fail): --strict with a problem line, or native input
 * of which not one line is a message of the surface (`surface`: the one normalized with; a wrong --from).
 */
export function finish(t: Tally, label: string, f: Flags, command: string, surface?: string): number {
  const bad = t.malformed + t.unknown;
  const messages = t.lines - t.blank;
  if (noneMatched(t, surface)) {
    warn(`agentnorm: ${label}: none of the ${messages} line(s) is a message of ${surface}${f.from ? " (check --from)" : ""}`);
    return 1;
  }
  release(t);
  if (t.shown > SHOWN && !t.quiet) warn(`agentnorm: ${label}: ${t.shown - SHOWN} more problem line(s) not shown`);
  if (t.lines === 0) warn(`agentnorm: ${label}: empty input (no lines)`);
  else if (t.blank === t.lines) warn(`agentnorm: ${label}: empty input (${t.lines} blank line${t.lines === 1 ? "" : "s"}, no messages)`);
  if (f.strict && bad) {
    warn(`agentnorm: ${label}: --strict: ${t.malformed} malformed and ${t.unknown} unknown line(s)`);
    return 1;
  }
  if (bad && !f.quiet) warn(`agentnorm ${command}: ${label}: ${t.malformed} malformed and ${t.unknown} unknown line(s) (exit 1 with --strict)`);
  return 0;
}

/**
 * Per input line: was it malformed or unknown to the table (the normalizer's counters moved)? Reported as
 * FILE:LINE with the runtime event's message. The counters are read only when the line gave a runtime event.
 */
export function lineProblems(n: Normalizer, tally: Tally, label: string): { check(events: CanonicalEvent[], line: number): void } {
  let invalid = 0;
  let unknown = 0;
  return {
    check(events, line) {
      let e: CanonicalEvent | undefined;
      for (const x of events) if (x.type === "runtime.error" || x.type === "runtime.warning") { e = x; break; }
      if (!e) {
        if (events.length) release(tally);
        return;
      }
      const s = n.stats();
      if (s.invalid > invalid) tally.malformed++;
      else if (s.unknown > unknown) tally.unknown++;
      else return;
      invalid = s.invalid;
      unknown = s.unknown;
      lineProblem(tally, label, line, String((e.payload as any)?.message ?? "not mapped").replace(/^line \d+: /, ""));
    },
  };
}

export interface Source {
  input: Input;
  surface?: string;
  normalizer?: Normalizer;
  /** Each batch of events with the input line it came from (the end-of-stream batch: line 0). */
  batches: AsyncGenerator<{ events: CanonicalEvent[]; line: number; value?: unknown }>;
}

export interface SourceOptions {
  command: string;
  /** verify: canonical lines that are JSON but not event-shaped are passed on (the verifier reports them). */
  anyObject?: boolean;
  /** Keep raw.payload on normalized events (default false). */
  includeRaw?: boolean;
}

const eventShaped = (v: any): boolean => !!v && typeof v === "object" && !Array.isArray(v) && typeof v.type === "string" && typeof v.sequence === "number";

export async function openSource(file: string | undefined, f: Flags, tally: Tally, o: SourceOptions): Promise<Source> {
  const input = await openInput(file, o.command);
  const surface = chooseSurface(input, f.from as string | undefined, { quiet: !!f.quiet });
  const label = input.label;
  const n = surface ? createNormalizer({ surface, includeRaw: !!o.includeRaw, ids: counterIds(), clock: steppingClock() }) : undefined;
  const capture = !surface && input.detection.kind === "capture";
  const resolver = createRawResolver();
  const problems = n ? lineProblems(n, tally, label) : undefined;
  async function* batches() {
    for await (const { text, n: line } of surfaceLines(input, surface, !!f.quiet)) {
      countLine(tally, text);
      if (n) {
        const events = n.pushLine(text, { lineNumber: line });
        problems!.check(events, line);
        yield { events, line };
        continue;
      }
      if (text.trim() === "") continue;
      let v: any;
      try {
        v = JSON.parse(text);
      } catch (err) {
        tally.malformed++;
        if (!o.anyObject) lineProblem(tally, label, line, `not valid JSON (${(err as Error).message})`);
        else yield { events: [], line, value: { malformed: `not valid JSON (${(err as Error).message})` } };
        continue;
      }
      if (capture) {
        if (!v || typeof v !== "object" || !(CAPTURE_STAGES as readonly unknown[]).includes(v.stage)) {
          tally.malformed++;
          lineProblem(tally, label, line, "not a capture record");
          continue;
        }
        if (v.stage !== "normalized_out") continue;
        v = v.payload;
      }
      if (!eventShaped(v)) {
        if (o.anyObject) { yield { events: [], line, value: v }; continue; }
        tally.malformed++;
        lineProblem(tally, label, line, "not a canonical event (no type or sequence)");
        continue;
      }
      release(tally);
      const resolved = resolver.push(v as CanonicalEvent);
      yield { events: resolved, line, value: v };
    }
    const rest = resolver.end();
    if (resolver.unresolved()) {
      // a written stream cut apart (or edited): the message those events came from is not in the input
      tally.malformed += resolver.unresolved();
      warn(`agentnorm: ${label}: ${resolver.unresolved()} event(s) name a raw.payloadRef holder that is not in the input (their raw.payload stays out)`);
    }
    if (n) yield { events: [...rest, ...n.end()], line: 0 };
    else if (rest.length) yield { events: rest, line: 0 };
  }
  return { input, surface, normalizer: n, batches: batches() };
}
