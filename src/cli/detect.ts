/**
 * What an input stream is: canonical events, a capture log, or the native messages of a surface — told from its
 * first lines. The surface is not guessed by a hand-written list of shapes: every surface's generated table
 * (generated/surfaces.gen.ts) normalizes the sample, and the surface whose rows recognise the most messages wins
 * (recognised = mapped by a row, matched silently, or ignored with a reason; not unknown, not malformed). Between
 * surfaces that recognise about as many, the one more sampled messages carry a distinguishing field of (its table's
 * `detect.fields`) wins, then the one that maps more of them to events. When none of that separates the best two,
 * the detection is a tie (`kind: "tie"`): a command asks for --from rather than guess.
 * The confidence is the winner's share of recognised messages; its margin over the runner-up is reported too.
 */
import { SURFACE_NAMES, SURFACES } from "../../generated/surfaces.gen.js";
import { unwrapCaptureLine } from "../capture/unwrap.js";
import { CAPTURE_STAGES } from "../capture/capture.js";
import { counterIds, steppingClock } from "../normalize/ids.js";
import { createNormalizer } from "../normalize/normalizer.js";
import { isLogUpdate, recordLogOf } from "../sessions/record-log.js";

/** Lines looked at. */
export const DETECT_LINES = 64;

/** Recognised counts closer than this share of the sampled messages are a near-tie. */
export const NEAR_TIE = 0.1;

export interface SurfaceScore {
  surface: string;
  /** Sampled messages the surface's rows map, match or ignore with a reason. */
  recognised: number;
  /** Of those, the ones that carry one of the table's distinguishing fields (`detect.fields`). */
  marked: number;
  /** Of those, the ones mapped to events. */
  mapped: number;
  of: number;
}

export interface Detection {
  /** tie: two surfaces recognise (about) as many messages, and nothing tells them apart; `scores` has both first. */
  kind: "canonical" | "capture" | "native" | "tie" | "empty" | "unknown";
  /** native: the best surface. */
  surface?: string;
  /** 0..1: share of the sampled messages the winner (or the canonical / capture shape) recognises. */
  confidence: number;
  /** Messages sampled. */
  sampled: number;
  /** native: the scores, best first. */
  scores?: SurfaceScore[];
}

const CANONICAL_FIELDS = ["eventId", "sequence", "type", "sessionId", "payload"];

function isCanonical(o: any): boolean {
  return !!o && typeof o === "object" && !Array.isArray(o) && CANONICAL_FIELDS.every((k) => k in o) && typeof o.type === "string";
}
function isCapture(o: any): boolean {
  return !!o && typeof o === "object" && !Array.isArray(o) && (CAPTURE_STAGES as readonly unknown[]).includes(o.stage) && "schemaVersion" in o && "eventType" in o;
}

/** Detect from sample lines (blank lines ignored; a JSON array input may be given as its parsed elements). */
export function detectInput(lines: string[]): Detection {
  const sample: { text: string; value: unknown; json: boolean }[] = [];
  for (const l of lines) {
    const text = l.trim();
    if (text === "") continue;
    let value: unknown;
    let json = true;
    try { value = JSON.parse(text); } catch { json = false; }
    sample.push({ text, value, json });
    if (sample.length >= DETECT_LINES) break;
  }
  if (!sample.length) return { kind: "empty", confidence: 0, sampled: 0 };
  const n = sample.length;
  const canonical = sample.filter((s) => isCanonical(s.value)).length;
  const capture = sample.filter((s) => isCapture(s.value)).length;
  if (canonical / n >= 0.5 && canonical >= capture) return { kind: "canonical", confidence: canonical / n, sampled: n };
  if (capture / n >= 0.5) return { kind: "capture", confidence: capture / n, sampled: n };
  const scores: SurfaceScore[] = [];
  for (const surface of SURFACE_NAMES) {
    const norm = createNormalizer({ surface, includeRaw: false, ids: counterIds(), clock: steppingClock() });
    let before = norm.stats();
    let recognised = 0;
    let mapped = 0;
    let marked = 0;
    const fields = SURFACES[surface]!.detectFields ?? [];
    // a surface whose files are a record log (Gemini CLI's chat files): its set and rewind records are its own
    // (the CLI replays them, surfaceLines), not lines for the table
    const log = recordLogOf(surface);
    let updates = 0;
    for (const s of sample) {
      if (log && isLogUpdate(s.value, log)) { updates++; continue; }
      norm.pushLine(s.text);
      const after = norm.stats();
      const unknown = after.unknown - before.unknown;
      const invalid = after.invalid - before.invalid;
      if (unknown === 0 && invalid === 0 && s.json) {
        recognised++;
        if (after.events > before.events) mapped++;
        if (fields.length && carries(s.value, fields)) marked++;
      }
      before = after;
    }
    // (counted only beside records the table recognises: such a line alone makes no chat)
    if (recognised > 0) recognised += updates;
    scores.push({ surface, recognised, marked, mapped, of: n });
  }
  // Most recognised first; then most carrying a distinguishing field; then most mapped to events (a surface that
  // ignores a message knows less of it than one that maps it); then the table order (stable).
  scores.sort((a, b) => b.recognised - a.recognised || b.marked - a.marked || b.mapped - a.mapped);
  const best = scores[0];
  if (!best || best.recognised === 0) return { kind: "unknown", confidence: 0, sampled: n, scores };
  const next = scores[1];
  if (next && next.recognised > 0 && undecided(best, next, n)) {
    // a near-tie on recognised messages: the distinguishing fields, else the mapped messages, must separate them
    if (next.marked > best.marked) scores.splice(0, 2, next, best);
  }
  const [first, second] = scores;
  const tie = !!second && second.recognised > 0 && undecided(first, second, n) && first.marked === second.marked && (first.recognised !== second.recognised || first.mapped === second.mapped);
  return { kind: tie ? "tie" : "native", surface: first.surface, confidence: first.recognised / n, sampled: n, scores };
}

/** Recognised counts within NEAR_TIE of the sample of each other. */
function undecided(a: SurfaceScore, b: SurfaceScore, n: number): boolean {
  return Math.abs(a.recognised - b.recognised) < Math.max(1, NEAR_TIE * n);
}

/** The message (the line, or the message in its capture wrapper) has one of the fields at its top level. */
function carries(value: unknown, fields: readonly string[]): boolean {
  const has = (o: unknown) => !!o && typeof o === "object" && !Array.isArray(o) && fields.some((f) => Object.hasOwn(o, f));
  return has(value) || has(unwrapCaptureLine(value).message);
}

/** "codex-app-server (64 of 64 sampled lines recognised; runner-up codex-exec: 3)". */
export function describeDetection(d: Detection): string {
  const pct = `${Math.round(d.confidence * 100)}%`;
  if (d.kind === "canonical") return `canonical events (${pct} of ${d.sampled} sampled line(s))`;
  if (d.kind === "capture") return `a capture log (${pct} of ${d.sampled} sampled line(s))`;
  if (d.kind === "empty") return "empty";
  if (d.kind === "tie") {
    const [a, b] = d.scores!;
    return `a tie between ${a.surface} and ${b.surface} (${a.recognised} and ${b.recognised} of ${d.sampled} sampled line(s) recognised; nothing in them tells the two apart)`;
  }
  if (d.kind === "unknown") return `no known surface (none of ${SURFACE_NAMES.length} surfaces recognises any of ${d.sampled} sampled line(s))`;
  const [best, next] = d.scores!;
  // a near-tie decided by the distinguishing fields (or by the messages mapped): said, with the counts
  const how = next && undecided(best, next, d.sampled)
    ? best.marked !== next.marked ? `, told apart by the fields each table names in detect.fields (${best.marked} line(s) carry ${best.surface}'s, ${next.marked} ${next.surface}'s)` : `, told apart by the messages mapped to events (${best.mapped} vs ${next.mapped})`
    : "";
  return `${best.surface} native messages (confidence ${pct}: ${best.recognised} of ${d.sampled} sampled line(s) recognised${next ? `; runner-up ${next.surface}: ${next.recognised}${how}` : ""})`;
}
