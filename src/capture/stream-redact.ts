/**
 * Streamed text (an item's deltas) redacted across delta boundaries, before the capture lines are written.
 *
 * A secret can arrive in two deltas (`…key sk-ant-api03-ab` + `cdef… ok`), each harmless alone. So each stream (one
 * item's text, thinking, output…) is judged as text, not delta by delta: a delta is **held** until the text it ends in
 * can be judged — until the stream reaches a line end — and then every held delta of that line is redacted together
 * (with up to CONTEXT characters of the stream before it, so `Authorization: Bearer ` + `abc…` or a private key's
 * BEGIN line still count). The redacted line is split back over the deltas it came in: text keeps its delta, a
 * redaction goes to the delta its secret starts in (deltas wholly inside a secret get a piece of the marker, so none
 * becomes empty). The bound: a line longer than LINE_CHARS is judged up to its last space or tab instead, and more
 * than MAX_CHARS held with no space at all is judged as it is. Held deltas are never dropped: the item's end, the
 * turn's end, the stream's end (`flush`) judge what is left.
 *
 * No Node APIs.
 */
import type { Redactor } from "./redact.js";

/** The hold bound: a line end; past LINE_CHARS the last blank; past MAX_CHARS everything held. */
export const STREAM_HOLD = { LINE_CHARS: 1024, MAX_CHARS: 4096, CONTEXT: 1024 } as const;

/** One delta of a stream. `out` is its redacted text once judged (`done`). */
export interface StreamPiece {
  readonly text: string;
  out: string;
  done: boolean;
}

interface Stream {
  /** Judged text before the held deltas (original text, the last CONTEXT characters, starting after a blank). */
  context: string;
  /** A private key block was opened in the judged text and not closed. */
  pemOpen: boolean;
  held: StreamPiece[];
}

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
const lastIndex = (re: RegExp, s: string) => {
  re.lastIndex = 0;
  let at = -1;
  for (let m = re.exec(s); m; m = re.exec(s)) at = m.index;
  return at;
};

export class StreamRedactor {
  private readonly streams = new Map<string, Stream>();
  constructor(private readonly redactor: Redactor) {}

  /** How many deltas are held, over all streams. */
  get held(): number {
    let n = 0;
    for (const s of this.streams.values()) n += s.held.length;
    return n;
  }

  /** A delta of stream `key`; judged now when it ends a line (then `done`), else held. */
  add(key: string, text: string): StreamPiece {
    let s = this.streams.get(key);
    if (!s) this.streams.set(key, (s = { context: "", pemOpen: false, held: [] }));
    const piece: StreamPiece = { text, out: text, done: false };
    s.held.push(piece);
    this.judge(s, false);
    return piece;
  }

  /** Judge everything held in the streams `which` selects (all when omitted): an item, a turn or the capture ended. */
  flush(which?: (key: string) => boolean): void {
    for (const [key, s] of this.streams) {
      if (which && !which(key)) continue;
      this.judge(s, true);
      this.streams.delete(key);
    }
  }

  private judge(s: Stream, all: boolean): void {
    const held = s.held;
    if (!held.length) return;
    let text = "";
    for (const p of held) text += p.text;
    let cut = text.length;
    if (!all && text.length <= STREAM_HOLD.MAX_CHARS) {
      const nl = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
      cut = nl >= 0 ? nl + 1 : 0;
      if (cut === 0 && text.length > STREAM_HOLD.LINE_CHARS) cut = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\t")) + 1;
    }
    // the deltas wholly before the cut are judged; one that straddles it waits with those after it
    let k = 0;
    let end = 0;
    while (k < held.length && end + held[k].text.length <= cut) end += held[k++].text.length;
    if (k === 0) return;
    const judged = held.splice(0, k);
    const released = text.slice(0, end);
    const prefix = s.pemOpen && lastIndex(PEM_BEGIN, s.context) < 0 ? "-----BEGIN PRIVATE KEY-----\n" : "";
    split(this.redactor, prefix + s.context, judged);
    const all2 = s.context + released;
    const b = lastIndex(PEM_BEGIN, all2);
    const e = lastIndex(PEM_END, all2);
    if (b >= 0 || e >= 0) s.pemOpen = b > e;
    s.context = tail(all2, STREAM_HOLD.CONTEXT);
  }
}

/** The last `n` characters of `s`, starting after a blank (so no token is cut in half). */
function tail(s: string, n: number): string {
  if (s.length <= n) return s;
  const t = s.slice(s.length - n);
  const ws = t.search(/\s/);
  return ws >= 0 ? t.slice(ws + 1) : "";
}

/**
 * Redact `context + the pieces' text` and give each piece its part: text by where it came from, a redaction to the
 * piece its span starts in (or the first piece, when it starts in the context); a piece wholly inside a redaction
 * takes one character of that marker, so it is not empty.
 */
export function split(redactor: Redactor, context: string, pieces: StreamPiece[]): void {
  const u = context.length;
  const starts: number[] = [];
  let at = u;
  for (const p of pieces) { starts.push(at); at += p.text.length; }
  const end = at;
  const { tokens } = redactor.redactTracked(context + pieces.map((p) => p.text).join(""));
  const parts: { s: string }[][] = pieces.map(() => []);
  const marks: { part: { s: string }; first: number; last: number }[] = [];
  const pieceAt = (pos: number) => {
    let j = 0;
    while (j + 1 < pieces.length && starts[j + 1] <= pos) j++;
    return j;
  };
  for (const t of tokens) {
    if (!t.mark) {
      const a = Math.max(t.a, u);
      if (t.b <= a) continue;
      for (let j = pieceAt(a); j < pieces.length && starts[j] < t.b; j++) {
        const lo = Math.max(a, starts[j]);
        const hi = Math.min(t.b, j + 1 < pieces.length ? starts[j + 1] : end);
        if (hi > lo) parts[j].push({ s: t.text.slice(lo - t.a, hi - t.a) });
      }
      continue;
    }
    if (t.b <= u && t.a < t.b) continue; // a redaction wholly in the context: written before
    const a = Math.min(Math.max(t.a, u), Math.max(end - 1, u));
    const first = pieceAt(a);
    const part = { s: t.text };
    parts[first].push(part);
    let last = first;
    while (last + 1 < pieces.length && starts[last + 1] < t.b) last++;
    marks.push({ part, first, last });
  }
  for (const m of marks) {
    const needy: number[] = [];
    for (let j = m.first + 1; j <= m.last; j++) if (pieces[j].text !== "" && parts[j].every((p) => p.s === "")) needy.push(j);
    const take = Math.min(needy.length, m.part.s.length - 1);
    if (take <= 0) continue;
    const s = m.part.s;
    m.part.s = s.slice(0, s.length - take);
    for (let i = 0; i < take; i++) parts[needy[i]].push({ s: s[s.length - take + i] });
  }
  pieces.forEach((p, j) => {
    p.out = parts[j].map((x) => x.s).join("");
    p.done = true;
  });
}
