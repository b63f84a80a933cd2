/**
 * Text for a terminal: control characters in agent text, tool output, file names and diagnostics are shown, not
 * obeyed. Without this, a delta holding `ESC[2J` clears the screen, `ESC]0;title BEL` sets the window title and a
 * lone `\r` overwrites the line.
 *
 *  - escapeTerminal: C0 controls (except "\n" and "\t" when kept), DEL, C1 controls (U+0080–U+009F, which some
 *    terminals obey as 8-bit escapes), the line/paragraph separators and the bidirectional overrides and isolates
 *    (U+202A–U+202E, U+2066–U+2069: text that reads differently from what it is) → visible escapes (`\e`, `\r`,
 *    `\x07`, `\u009b`, `\u202e`…). "\r\n" counts as "\n". With `keepSgr`, SGR colour sequences (`ESC[…m`, from a
 *    tool's coloured output) are kept, and a reset is added after the text when any was kept.
 *  - escapeJsonOutput: for JSON text (NDJSON on stdout): JSON already escapes C0; DEL, C1, U+2028/2029 and the bidi
 *    controls, which JSON allows raw inside strings, become \u escapes (the same JSON value, parsed).
 * Pure; no Node APIs.
 */

const NAMED: Record<string, string> = { "\u001b": "\\e", "\r": "\\r", "\t": "\\t", "\n": "\\n", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\u0000": "\\0" };
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_G = /\r\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SGR = /\u001b\[[0-9;:]*m/g;

export interface EscapeOptions {
  /** Keep "\n" and "\t" (multi-line text); default true. */
  keepNewlines?: boolean;
  /** Keep SGR colour sequences (ESC[…m); default false. */
  keepSgr?: boolean;
}

function visible(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

function escapePart(s: string, keepNewlines: boolean): string {
  return s.replace(UNSAFE_G, (c) => (c === "\r\n" ? (keepNewlines ? "\n" : "\\n") : keepNewlines && (c === "\n" || c === "\t") ? c : visible(c)));
}

/** `s` with every control character that could act on a terminal made visible. */
export function escapeTerminal(s: string, options: EscapeOptions = {}): string {
  if (!UNSAFE.test(s)) return s;
  const keepNewlines = options.keepNewlines !== false;
  if (!options.keepSgr || !s.includes("\u001b[")) return escapePart(s, keepNewlines);
  let out = "";
  let last = 0;
  let kept = false;
  SGR.lastIndex = 0;
  for (let m = SGR.exec(s); m; m = SGR.exec(s)) {
    out += escapePart(s.slice(last, m.index), keepNewlines) + m[0];
    last = m.index + m[0].length;
    kept = true;
  }
  out += escapePart(s.slice(last), keepNewlines);
  // a colour opened in the text ends with each of its lines (clipping a block must not leave it open)
  return kept ? out.replace(/\n/g, "\u001b[0m\n") + "\u001b[0m" : out;
}

/** Whether `s` holds anything escapeTerminal would change. */
export function hasControl(s: string): boolean {
  return UNSAFE.test(s);
}

/** Every string in a JSON-like value escaped (object keys too); other values as they are. A fresh value. */
export function escapeTerminalDeep<T>(v: T, options: EscapeOptions = {}, depth = 0): T {
  if (typeof v === "string") return escapeTerminal(v, options) as T;
  if (!v || typeof v !== "object" || depth > 200) return v;
  if (Array.isArray(v)) return v.map((x) => escapeTerminalDeep(x, options, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    Object.defineProperty(out, escapeTerminal(k, options), { value: escapeTerminalDeep((v as Record<string, unknown>)[k], options, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const JSON_UNSAFE_G = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text with the characters JSON leaves raw but terminals may obey written as \u escapes. */
export function escapeJsonOutput(s: string): string {
  if (!JSON_UNSAFE.test(s)) return s;
  return s.replace(JSON_UNSAFE_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
