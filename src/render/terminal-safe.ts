/**
 * Text for a terminal: control characters in agent text, tool output, file names and diagnostics are shown, not
 * obeyed. Without this, a delta holding `ESC[2J` clears the screen, `ESC]0;title BEL` sets the window title and a
 * lone `\r` overwrites the line.
 *
 *  - escapeTerminal: C0 controls (except "\n" and "\t" when kept), DEL, C1 controls (U+0080–U+009F, which some
 *    terminals obey as 8-bit escapes), the line/paragraph separators, and invisible characters: every format
 *    character (Unicode category Cf — zero-width space / joiners U+200B–U+200D, marks U+200E/U+200F, the bidirectional
 *    overrides and isolates U+202A–U+202E and U+2066–U+2069, word joiner U+2060, U+FEFF, soft hyphen, the tag
 *    characters U+E0000–U+E007F…), the fillers and joiners that draw nothing (U+034F, U+115F, U+1160, U+17B4, U+17B5,
 *    U+180B–U+180F, U+3164, U+FFA0) and variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) except one emoji/text
 *    presentation selector (U+FE0E/U+FE0F) right after the character it selects → visible escapes (`\e`, `\r`,
 *    `\x07`, `\u009b`, `\u202e`, `\u200b`, `\u{e0041}`…): text that hides something, or reads differently from
 *    what it is, shows what it holds. "\r\n" counts as "\n". With `keepSgr`, SGR sequences (`ESC[…m`, from a tool's
 *    coloured output) that only set colours (30–37, 39, 40–47, 49, 90–97, 100–107, 38/48/58 with 5;n or 2;r;g;b, 59)
 *    and bold / dim / italic / underline (1, 2, 3, 4, 22, 23, 24; 0 and an empty list reset) are kept, and a reset is
 *    added after the text when any was kept; any other SGR (conceal 8, blink 5/6, reverse 7, strike 9, fonts…) is shown
 *    escaped like every other sequence.
 *  - escapeJsonOutput: for JSON text (NDJSON on stdout): JSON already escapes C0; DEL, C1, U+2028/2029 and the
 *    invisible characters above, which JSON allows raw inside strings, become \u escapes (the same JSON value, parsed).
 *  - cutLine / cutLines: a line longer than a width (in characters; kept SGR sequences do not count) is cut, with a
 *    marker saying how much was left out.
 * Pure; no Node APIs.
 */

const NAMED: Record<string, string> = { "\u001b": "\\e", "\r": "\\r", "\t": "\\t", "\n": "\\n", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\u0000": "\\0" };
/** Invisible or direction-changing characters (see above), without the presentation selectors U+FE0E/U+FE0F. */
const INVISIBLE = "\\p{Cf}\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u3164\\uffa0\\ufe00-\\ufe0d\\u{e0100}-\\u{e01ef}";
const CONTROLS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";
/** Anything escapeTerminal may change (a presentation selector is judged by what precedes it). */
const UNSAFE = new RegExp(`[${CONTROLS}${INVISIBLE}\\ufe0e\\ufe0f]`, "u");
const UNSAFE_G = new RegExp(`\\r\\n|[${CONTROLS}${INVISIBLE}]|[\\ufe0e\\ufe0f]+`, "gu");
const SGR = /\u001b\[([0-9;:]*)m/g;

/** An SGR parameter list that only sets colours and bold / dim / italic / underline (or resets). */
export function allowedSgr(params: string): boolean {
  if (params === "") return true;
  const ps = params.split(";");
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (p.includes(":")) {
      // ITU T.416 sub-parameters: 38:5:n, 38:2:[cs]:r:g:b (and 48, 58); 4:0–4:5 (underline styles)
      const sub = p.split(":");
      if (sub[0] === "4") { if (sub.length === 2 && /^[0-5]$/.test(sub[1])) continue; return false; }
      if (!["38", "48", "58"].includes(sub[0])) return false;
      const nums = sub.slice(2);
      if (sub[1] === "5" && nums.length === 1 && byte(nums[0])) continue;
      if (sub[1] === "2" && (nums.length === 3 || nums.length === 4) && nums.slice(-3).every(byte) && (nums.length === 3 || nums[0] === "" || byte(nums[0]))) continue;
      return false;
    }
    if (!/^\d{1,3}$/.test(p)) return false;
    const n = Number(p);
    if (n === 38 || n === 48 || n === 58) {
      // 38;5;n or 38;2;r;g;b
      if (ps[i + 1] === "5" && byte(ps[i + 2])) { i += 2; continue; }
      if (ps[i + 1] === "2" && byte(ps[i + 2]) && byte(ps[i + 3]) && byte(ps[i + 4])) { i += 4; continue; }
      return false;
    }
    if (n <= 4 || n === 22 || n === 23 || n === 24 || (n >= 30 && n <= 37) || n === 39 || (n >= 40 && n <= 47) || n === 49 || n === 59 || (n >= 90 && n <= 97) || (n >= 100 && n <= 107)) continue;
    return false;
  }
  return true;
}
const byte = (s: string | undefined): boolean => s !== undefined && /^\d{1,3}$/.test(s) && Number(s) <= 255;

export interface EscapeOptions {
  /** Keep "\n" and "\t" (multi-line text); default true. */
  keepNewlines?: boolean;
  /** Keep SGR colour sequences (ESC[…m); default false. */
  keepSgr?: boolean;
}

function visible(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** A character that a presentation selector (U+FE0E/U+FE0F) may follow: not a control, not invisible, not a selector. */
const SELECTABLE = new RegExp(`[^${CONTROLS}${INVISIBLE}\\ufe0e\\ufe0f\\s]$`, "u");

function escapePart(s: string, keepNewlines: boolean): string {
  return s.replace(UNSAFE_G, (c: string, at: number) => {
    if (c === "\r\n") return keepNewlines ? "\n" : "\\n";
    if (keepNewlines && (c === "\n" || c === "\t")) return c;
    if (c.charCodeAt(0) === 0xfe0e || c.charCodeAt(0) === 0xfe0f) {
      // one selector right after a visible character selects its presentation (❤️): kept; any other is shown
      const keepFirst = c.length === 1 && at > 0 && SELECTABLE.test(s.slice(Math.max(0, at - 2), at));
      return keepFirst ? c : [...c].map(visible).join("");
    }
    return visible(c);
  });
}

/** `s` with every control character that could act on a terminal, and every invisible character, made visible. */
export function escapeTerminal(s: string, options: EscapeOptions = {}): string {
  if (!UNSAFE.test(s)) return s;
  const keepNewlines = options.keepNewlines !== false;
  if (!options.keepSgr || !s.includes("\u001b[")) return escapePart(s, keepNewlines);
  let out = "";
  let last = 0;
  let kept = false;
  SGR.lastIndex = 0;
  for (let m = SGR.exec(s); m; m = SGR.exec(s)) {
    if (!allowedSgr(m[1])) continue; // escaped with the text around it
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

const JSON_UNSAFE = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${INVISIBLE}\\ufe0e\\ufe0f]`, "u");
const JSON_UNSAFE_G = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${INVISIBLE}]|[\\ufe0e\\ufe0f]+`, "gu");
const SELECTABLE_JSON = new RegExp(`[^\\u0000-\\u009f\\u2028\\u2029${INVISIBLE}\\ufe0e\\ufe0f\\s"\\\\]$`, "u");

/** JSON text with the characters JSON leaves raw but terminals may obey, or that draw nothing, written as \u escapes. */
export function escapeJsonOutput(s: string): string {
  if (!JSON_UNSAFE.test(s)) return s;
  const u = (c: string) => {
    let out = "";
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  };
  return s.replace(JSON_UNSAFE_G, (c: string, at: number) => {
    const sel = c.charCodeAt(0) === 0xfe0e || c.charCodeAt(0) === 0xfe0f;
    return sel && c.length === 1 && at > 0 && SELECTABLE_JSON.test(s.slice(Math.max(0, at - 2), at)) ? c : u(c);
  });
}

/** The marker after a cut line: `… (+N chars)`. */
export function cutMarker(n: number): string {
  return `… (+${n} chars)`;
}

/**
 * `line` cut to `width` characters (code points; SGR sequences ESC[…m do not count and are never split) with
 * cutMarker() after it; a line that fits is returned as it is. When the cut part held an SGR sequence, a reset
 * (ESC[0m) goes before the marker, so no colour is left open.
 */
export function cutLine(line: string, width: number): string {
  if (line.length <= width) return line;
  let shown = 0;
  let i = 0;
  let sgr = false;
  while (i < line.length && shown < width) {
    if (line.charCodeAt(i) === 0x1b && line[i + 1] === "[") {
      const m = /^\u001b\[[0-9;:]*m/.exec(line.slice(i, i + 64));
      if (m) { i += m[0].length; sgr = true; continue; }
    }
    i += line.codePointAt(i)! > 0xffff ? 2 : 1;
    shown++;
  }
  if (i >= line.length) return line;
  // what is left: its characters, without SGR sequences
  let rest = 0;
  for (let j = i; j < line.length;) {
    if (line.charCodeAt(j) === 0x1b && line[j + 1] === "[") {
      const m = /^\u001b\[[0-9;:]*m/.exec(line.slice(j, j + 64));
      if (m) { j += m[0].length; sgr = true; continue; }
    }
    j += line.codePointAt(j)! > 0xffff ? 2 : 1;
    rest++;
  }
  if (rest === 0) return line;
  return line.slice(0, i) + (sgr ? "\u001b[0m" : "") + cutMarker(rest);
}

/** Every line of `text` ("\n"-separated) cut to `width` (cutLine). */
export function cutLines(text: string, width: number): string {
  if (text.length <= width) return text;
  return text.split("\n").map((l) => cutLine(l, width)).join("\n");
}
