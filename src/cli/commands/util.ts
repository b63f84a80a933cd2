/**
 * Shared CLI plumbing: argument parsing, errors, input reading (files, stdin, detection), safe diagnostics and
 * back-pressured stdout writes. Every command goes through it, so they all behave the same:
 *  - errors are one line, `agentnorm: <what>: <why>` (no stack trace for anything the user can fix);
 *  - exit codes: 0 = done, 1 = failed (unreadable input, write error, a check failed, --strict problems),
 *    2 = usage error, 128+n = stopped by signal n;
 *  - lines are split on "\n" only (a "\r" before it is dropped; a lone "\r" is text), so FILE:LINE is the same line
 *    in every command;
 *  - diagnostics escape control and invisible characters (src/render/terminal-safe.ts), so hostile input cannot drive
 *    the terminal or hide text, and are cut at DIAGNOSTIC_WIDTH characters a line.
 */
import { closeSync, createReadStream, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { cutLines, escapeJsonOutput, escapeTerminal } from "../../render/terminal-safe.js";
import { describeDetection, detectInput, DETECT_LINES, type Detection } from "../detect.js";
import { valueLines } from "../../normalize/nesting.js";
import { documentMessages, mayBeDocument } from "../../capture/unwrap.js";
import { recordLogOf, replayLines } from "../../sessions/record-log.js";

export class UsageError extends Error {}

/** A user-facing failure: printed as `agentnorm: <what>: <why>`, exit `code` (default 1). */
export class CliError extends Error {
  constructor(readonly what: string, readonly why: string, readonly code = 1) {
    super(`${what}: ${why}`);
  }
}

export interface Flags { _: string[]; [k: string]: string | boolean | string[] }

/** `--help`/`-h` are accepted by every command (the spec does not need to list them). */
export function parseArgs(argv: string[], spec: Record<string, "bool" | "value">): Flags {
  const out: Flags = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-" || !a.startsWith("-")) { out._.push(a); continue; }
    if (a === "--") { out._.push(...argv.slice(i + 1)); break; }
    const [name, inline] = a.replace(/^--?/, "").split(/=(.*)/s, 2);
    if (name === "help" || name === "h") { out.help = true; continue; }
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option ${a}${suggest(name, Object.keys(spec))}`);
    if (kind === "bool") out[name] = true;
    else {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`option --${name} needs a value`);
      out[name] = v;
    }
  }
  return out;
}

/** `; did you mean --x?` for the closest option (edit distance ≤ 2, or a prefix of one), else "". */
export function suggest(name: string, options: string[]): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    const d = o.startsWith(name) && name.length >= 2 ? 1 : distance(name, o);
    if (d < bestD) { best = o; bestD = d; }
  }
  return best !== undefined && bestD <= (best.length >= 4 ? 2 : 1) ? `; did you mean --${best}?` : "";
}

/** Edit distance (insert, delete, replace, swap two neighbours). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let before = prev;
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.length];
}

/** Help text: stdout, exit 0 (only when asked for). */
export function printHelp(text: string): number {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
  return 0;
}

/** Characters per diagnostic line on stderr; a longer one (a quoted 200k-character value) is cut with a marker. */
export const DIAGNOSTIC_WIDTH = 2000;

/** One diagnostic line on stderr, control and invisible characters escaped, cut at DIAGNOSTIC_WIDTH. */
export function warn(s: string): void {
  process.stderr.write(cutLines(escapeTerminal(s, { keepNewlines: true }), DIAGNOSTIC_WIDTH) + "\n");
}

/** An OS error → plain words. */
export function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOENT": return "no such file or directory";
    case "EISDIR": return "is a directory";
    case "ENOTDIR": return "a part of the path is not a directory";
    case "EACCES": case "EPERM": return "permission denied";
    case "ENOSPC": return "no space left on device";
    case "EROFS": return "read-only file system";
    case "EMFILE": case "ENFILE": return "too many open files";
    case "EFBIG": return "file too large";
    case "EIO": return "input/output error";
    case "EPIPE": return "the reader closed the pipe";
    default: return (e?.message ?? String(err)).replace(/^[A-Z]+: /, "");
  }
}

export const labelOf = (file: string | undefined): string => (!file || file === "-" ? "<stdin>" : file);

/** --from, checked. */
export function surfaceFlag(f: Flags): string | undefined {
  const s = f.from as string | undefined;
  if (s !== undefined && !(SURFACE_NAMES as readonly string[]).includes(s)) throw new UsageError(`unknown surface "${s}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  return s;
}

/** A positive integer option. */
export function intFlag(f: Flags, name: string): number | undefined {
  if (f[name] === undefined) return undefined;
  const n = Number(f[name]);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer (got "${String(f[name])}")`);
  return n;
}

/**
 * Stopping on a signal (SIGINT / SIGTERM / SIGHUP): the commands stop reading at the next line, write what they have
 * (whole lines only: every write is a batch of complete lines, and pending writes are flushed), and exit 128+n.
 * A second signal exits at once.
 */
const SIGNALS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
let stopSignal: NodeJS.Signals | undefined;
/**
 * Called on a stop signal: each wakes a read waiting for input. (Not a promise that every read races against: a
 * never-settled promise keeps every race's result — each chunk read — reachable, and memory would grow with the input.)
 */
const stopHooks = new Set<() => void>();
export function handleSignals(): void {
  for (const sig of Object.keys(SIGNALS) as NodeJS.Signals[]) {
    process.on(sig, () => {
      if (stopSignal) process.exit(128 + SIGNALS[stopSignal]!);
      stopSignal = sig;
      for (const wake of stopHooks) wake();
    });
  }
}
/** The signal that asked the command to stop, if any. */
export const stopRequested = (): NodeJS.Signals | undefined => stopSignal;
/** Exit code for a stop: 128 + the signal's number. */
export const stopExitCode = (): number => 128 + (stopSignal ? SIGNALS[stopSignal]! : 0);
/** Resolves when everything written to stdout so far has been handed to the OS. */
export function flushStdout(): Promise<void> {
  return new Promise((res, rej) => process.stdout.write("", (err) => (err ? rej(err) : res())));
}

/** Check that FILE can be read as a stream of lines (exists, is not a directory). */
function checkInputFile(file: string): void {
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    throw new CliError(file, reason(err));
  }
  if (st.isDirectory()) throw new CliError(file, "is a directory (give a file)");
}

let ttyHinted = false;
/** Reading from a terminal: say so (the command would otherwise wait silently). */
export function ttyHint(command: string): void {
  if (ttyHinted || !process.stdin.isTTY) return;
  ttyHinted = true;
  warn(`agentnorm ${command}: reading NDJSON from the terminal (end with Ctrl-D); give a FILE, or see agentnorm ${command} --help`);
}

/**
 * Binary input (an image, an archive, a core file): more than 10% of the first 8 KB are control characters other
 * than tab / newline / carriage return, or undecodable bytes. (A NUL or a stray byte in a text line is not binary:
 * that line is reported as malformed.)
 */
function looksBinary(sample: string): boolean {
  const s = sample.slice(0, 8192);
  if (s.length < 8) return false;
  let bad = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) bad++;
  }
  return bad > s.length * 0.1;
}

/** Magic numbers of the compressed formats a log is often kept in: what binary input is, when it is one of them. */
const COMPRESSED: readonly [string, readonly number[], string][] = [
  ["gzip", [0x1f, 0x8b], "gzip -dc"],
  ["zstd", [0x28, 0xb5, 0x2f, 0xfd], "zstd -dc"],
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], "xz -dc"],
  ["bzip2", [0x42, 0x5a, 0x68], "bzip2 -dc"],
  ["zip", [0x50, 0x4b, 0x03, 0x04], "unzip -p"],
];

/** "binary data, not NDJSON text", naming the compression and how to read it when the first bytes say which. */
export function binaryInputMessage(first: Uint8Array | undefined, file: string | undefined, command: string): string {
  const hit = first && COMPRESSED.find(([, magic]) => magic.every((b, i) => first[i] === b));
  if (!hit) return "binary data, not NDJSON text";
  const name = file && file !== "-" ? shellWord(file) : "FILE";
  return `${hit[0]}-compressed data, not NDJSON text (decompress it first: ${hit[2]} ${name} | agentnorm ${command || "COMMAND"} -)`;
}

/** A file name as one shell word (quoted when it holds anything but plain characters). */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface ReadLinesOptions {
  /**
   * A line longer than this (in UTF-16 units) is not kept: its parts are dropped as they arrive, `onOversize` is told
   * its number and length, and an empty line is yielded in its place (so line numbers stay right). Default: no limit.
   */
  maxLineChars?: number;
  onOversize?: (line: number, chars: number) => void;
}

/**
 * The lines of FILE (or stdin for undefined / "-"), split on "\n" only; a "\r" before the "\n" is dropped, and so is
 * a UTF-8 byte order mark (U+FEFF) at the very start of the input. Throws CliError for a missing file, a directory,
 * binary data or a read error.
 */
export async function* readLines(file: string | undefined, command = "", options: ReadLinesOptions = {}): AsyncGenerator<string> {
  const stdin = !file || file === "-";
  if (!stdin) checkInputFile(file!);
  else ttyHint(command);
  const label = labelOf(file);
  const input = stdin ? process.stdin : createReadStream(file!);
  const decoder = new StringDecoder("utf8");
  const max = options.maxLineChars ?? Infinity;
  let parts: string[] = [];
  /** Characters of the current line so far (kept in `parts`, or dropped once past `max`). */
  let partial = 0;
  let lineNo = 0;
  /** The input's first bytes (a compressed file is named by them). */
  let firstBytes: Buffer | undefined;
  const it = input[Symbol.asyncIterator]();
  // a stop signal ends the wait for the next chunk (see stopHooks)
  let interrupt: (() => void) | undefined;
  const hook = () => interrupt?.();
  stopHooks.add(hook);
  const next = () => new Promise<IteratorResult<unknown>>((res, rej) => {
    interrupt = () => res({ done: true, value: undefined });
    it.next().then(res, rej);
  });
  let first = true;
  const take = (s: string): string => {
    lineNo++;
    return s.endsWith("\r") ? s.slice(0, -1) : s;
  };
  const oversize = (chars: number): string => {
    lineNo++;
    options.onOversize?.(lineNo, chars);
    return "";
  };
  try {
    for (;;) {
      if (stopSignal) return;
      const r = await next();
      interrupt = undefined;
      if (r.done) break;
      let chunk = typeof r.value === "string" ? r.value : decoder.write(r.value as Buffer);
      if (first && firstBytes === undefined && typeof r.value !== "string") firstBytes = r.value as Buffer;
      if (first) {
        if (chunk === "") continue; // a chunk that ends inside the first character
        first = false;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1); // a byte order mark is not part of the first line
        if (looksBinary(chunk)) throw new CliError(label, binaryInputMessage(firstBytes, file, command));
      }
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf("\n", start);
        if (nl < 0) break;
        const piece = chunk.slice(start, nl);
        if (partial + piece.length > max) yield oversize(partial + piece.length);
        else yield take(parts.length ? (parts.push(piece), parts.join("")) : piece);
        parts = [];
        partial = 0;
        if (stopSignal) return;
        start = nl + 1;
      }
      if (start < chunk.length) {
        const piece = chunk.slice(start);
        partial += piece.length;
        if (partial > max) parts = [];
        else parts.push(piece);
      }
    }
    if (stopSignal) return;
    const tail = decoder.end();
    partial += tail.length;
    if (partial > max) yield oversize(partial);
    else {
      const rest = parts.join("") + tail;
      if (rest !== "") yield take(rest);
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(label, `cannot read: ${reason(err)}`);
  } finally {
    stopHooks.delete(hook);
    if (!stdin) (input as ReturnType<typeof createReadStream>).destroy();
  }
}

/** A whole input (FILE or stdin) as text; CliError when it cannot be read or is binary. */
export async function readText(file: string | undefined, command = ""): Promise<string> {
  let s = "";
  const parts: string[] = [];
  for await (const l of readLines(file, command)) parts.push(l);
  s = parts.join("\n");
  return parts.length ? s + "\n" : s;
}

export interface Input {
  label: string;
  detection: Detection;
  /** The lines with their 1-based numbers (the sampled lines first, then the rest of the input). */
  lines: AsyncGenerator<{ text: string; n: number }>;
}

/** Open an input, read its first lines and detect what it is (src/cli/detect.ts). */
export async function openInput(file: string | undefined, command: string): Promise<Input> {
  const label = labelOf(file);
  const src = readLines(file, command);
  const head: string[] = [];
  let nonBlank = 0;
  let ended = false;
  while (nonBlank < DETECT_LINES) {
    const r = await src.next();
    if (r.done) { ended = true; break; }
    head.push(r.value);
    if (r.value.trim() !== "") nonBlank++;
  }
  const first = head.find((l) => l.trim() !== "");
  const rest = async () => {
    const parts = [...head];
    for await (const l of src) parts.push(l);
    return parts;
  };
  if (first !== undefined && first.trimStart().startsWith("[")) {
    // one JSON array (pretty-printed or not): its elements are the messages, numbered 1…N
    let arr: unknown;
    try {
      arr = JSON.parse((await rest()).join("\n"));
    } catch (err) {
      throw new CliError(label, `starts with "[" but is not a JSON array (${(err as Error).message})`);
    }
    if (!Array.isArray(arr)) throw new CliError(label, `starts with "[" but is not a JSON array`);
    return elementsInput(label, arr);
  }
  const detection = detectInput(head);
  if (first !== undefined && detection.kind === "unknown" && mayBeDocument(first, ended && nonBlank === 1)) {
    // No reader recognises the input, and it starts with "{" as JSON written over several lines would: pretty-printed
    // (its first line is no JSON value of its own), or the input's only line. Messages pretty-printed one after
    // another (`jq .` of a log) are the messages; one document holding the stream (a test harness's recording,
    // {…, "messages": [ … ]}) gives its array; else the lines as they are.
    const parts = await rest();
    const held = documentMessages(parts.join("\n"));
    if (held) return elementsInput(label, held);
    async function* again() {
      for (let n = 0; n < parts.length; n++) yield { text: parts[n], n: n + 1 };
    }
    return { label, detection, lines: again() };
  }
  async function* lines() {
    let n = 0;
    for (const text of head) yield { text, n: ++n };
    for await (const text of src) yield { text, n: ++n };
  }
  return { label, detection, lines: lines() };
}

/** An input of JSON values (an array's elements): each is a line, numbered 1…N, and detection reads the first ones. */
function elementsInput(label: string, values: unknown[]): Input {
  const texts = valueLines(values);
  async function* elements() {
    for (let i = 0; i < texts.length; i++) yield { text: texts[i], n: i + 1 };
  }
  return { label, detection: detectInput(texts.slice(0, DETECT_LINES)), lines: elements() };
}

/**
 * The lines a surface maps, in the order it maps them: the input's, or for a surface whose files are a record log
 * (recordLogOf), the log replayed to the session it says at its end, as agentnorm/sessions opens it — lines that are
 * no record first (reported at their numbers as any line is), then the session's header and its messages, each at
 * the line of the record that last set it. The input is read whole first. Says (unless quiet) what the log changed.
 */
export function surfaceLines(input: Input, surface: string | undefined, quiet: boolean): AsyncGenerator<{ text: string; n: number }> {
  const log = recordLogOf(surface);
  if (!log) return input.lines;
  return (async function* () {
    const { replayed, others } = await replayLines(log, input.lines);
    const { header, headerTag, messages, applied, superseded } = replayed;
    if (!quiet && (applied || superseded)) warn(`agentnorm: ${input.label}: a record log: ${applied} record(s) applied to the session (fields set, a rewind), ${superseded} message record(s) replaced or removed by later ones; the session the log ends with is mapped`);
    yield* others;
    if (headerTag) yield { text: JSON.stringify(header), n: headerTag.n };
    for (const m of messages) yield m.tag && !m.listed ? m.tag : { text: JSON.stringify(m.message), n: m.tag?.n ?? headerTag?.n ?? 1 };
  })();
}

/**
 * The surface to normalize with: --from, else the detected one. Says what was detected (and when --from disagrees
 * with the input, what the input looks like). Throws CliError when a native input's surface cannot be told.
 */
export function chooseSurface(input: Input, from: string | undefined, opts: { quiet?: boolean } = {}): string | undefined {
  const d = input.detection;
  if (from) {
    if ((d.kind === "native" || d.kind === "tie") && d.surface !== from) {
      const given = d.scores!.find((s) => s.surface === from)!;
      if (given.recognised < d.scores![0].recognised) warn(`agentnorm: ${input.label}: --from ${from} recognises ${given.recognised} of ${d.sampled} sampled line(s); the input looks like ${describeDetection(d)}`);
    } else if (d.kind === "canonical" || d.kind === "capture") {
      warn(`agentnorm: ${input.label}: --from ${from} given, but the input looks like ${describeDetection(d)}`);
    }
    return from;
  }
  if (d.kind === "tie") throw new CliError(input.label, `cannot tell the surface: ${describeDetection(d)}; give --from SURFACE`);
  if (d.kind === "native") {
    if (d.confidence < 0.5) throw new CliError(input.label, `cannot tell the surface: the best guess is ${describeDetection(d)}; give --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
    if (!opts.quiet) warn(`agentnorm: ${input.label}: detected ${describeDetection(d)}; --from SURFACE overrides`);
    return d.surface;
  }
  if (d.kind === "unknown") throw new CliError(input.label, `not canonical events, not a capture log, and ${describeDetection(d)}; give --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
  return undefined;
}

export function write(s: string): Promise<void> | void {
  if (!process.stdout.write(escapeJsonOutput(s))) return new Promise((res) => process.stdout.once("drain", () => res()));
}

/** Write a whole output to FILE (or stdout for undefined / "-"); a failure is a CliError naming the file. */
export async function writeOutput(text: string, out: string | undefined): Promise<void> {
  if (out && out !== "-") {
    try {
      writeFileSync(out, text);
    } catch (err) {
      throw new CliError(out, `cannot write: ${reason(err)}`);
    }
  } else await write(text);
}

/**
 * Write an output given in pieces to FILE (or stdout for undefined / "-") without joining it (a large page is never
 * one string); pieces are batched into writes of about 1 MB. Returns the characters written; a failure is a
 * CliError naming the file.
 */
export async function writeOutputChunks(chunks: Iterable<string>, out: string | undefined): Promise<number> {
  const toFile = !!out && out !== "-";
  let fd: number | undefined;
  let written = 0;
  let batch: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!batch.length) return;
    const s = batch.join("");
    batch = [];
    size = 0;
    if (fd === undefined) await write(s);
    else {
      const buf = Buffer.from(s, "utf8");
      for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
    }
  };
  try {
    if (toFile) fd = openSync(out!, "w");
    for (const c of chunks) {
      batch.push(c);
      size += c.length;
      written += c.length;
      if (size >= 1 << 20) await flush();
    }
    await flush();
  } catch (err) {
    if (!toFile || err instanceof CliError) throw err;
    throw new CliError(out!, `cannot write: ${reason(err)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return written;
}
