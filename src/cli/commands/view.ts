/** `agentnorm view`: one self-contained HTML page (transcript, timeline, native message) from a recording, a canonical stream or a capture. */
import { basename } from "node:path";
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { arrayLines, createViewStream, viewerData, ViewerInputError } from "../../view/data.js";
import { cutNotice, sizeText } from "../../view/labels.js";
import { viewerHtmlChunks } from "../../view/html.js";
import { detectInput, DETECT_LINES } from "../detect.js";
import { documentMessages, mayBeDocument } from "../../capture/unwrap.js";
import { valueLines } from "../../normalize/nesting.js";
import { recordLogOf } from "../../sessions/record-log.js";
import { chooseSurface, CliError, intFlag, surfaceLines, labelOf, parseArgs, printHelp, readLines, UsageError, surfaceFlag, warn, writeOutputChunks } from "./util.js";

/** Default cap: MB of input (1 MB = 1,048,576 characters) whose last turns the page shows. */
export const DEFAULT_VIEW_MB = 16;
/** The sample the input kind and surface are told from: the first DETECT_LINES lines, at most this many characters. */
const SAMPLE_CHARS = 1 << 20;
/** FILE:LINE diagnostics printed before only the count is kept. */
const SHOWN = 10;

export const VIEW_USAGE = `view FILE|- [options]
  --from SURFACE        the input is native provider messages of SURFACE (normalized here): ${SURFACE_NAMES.join(", ")}
                        (default: detected; a canonical NDJSON stream or a capture file is recognised as such)
  -o, --out FILE        where to write the page (default: <input name>.html in the current directory; - = stdout)
  --title TEXT          page title
  --max-mb N            the page holds the last turns whose input fits in N MB (default ${DEFAULT_VIEW_MB}); older turns are
                        left out, and the page and the summary say how many, with their events and problems; the
                        input is read as a stream, so memory follows N, not the input's size
  --turns N             at most the last N turns (default: all that fit)
  --quiet               no summary on stderr`;

type Item = { n: number; text: string } | { n: number; over: number };

export async function view(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", o: "value", out: "value", title: "value", quiet: "bool", "max-mb": "value", turns: "value" });
  if (f.help) return printHelp(VIEW_USAGE);
  if (f._.length !== 1) throw new UsageError(`view takes one input FILE (or -), got ${f._.length ? f._.join(" ") : "none"}`);
  let from = surfaceFlag(f);
  const maxBytes = (intFlag(f, "max-mb") ?? DEFAULT_VIEW_MB) * (1 << 20);
  const maxTurns = intFlag(f, "turns");
  const file = f._[0];
  const label = labelOf(file);
  const out = (f.o ?? f.out ?? (file === "-" ? "-" : basename(file).replace(/\.(nd)?jsonl?$/i, "") + ".html")) as string;
  // a page of HTML is no use on a terminal: stdin in with no -o would write it there
  if (out === "-" && f.o === undefined && f.out === undefined && process.stdout.isTTY) throw new CliError("<stdout>", "is a terminal: view writes an HTML page; give -o FILE (or -o - to write it to stdout anyway)", 2);

  // The input as a stream of lines; a line longer than the cap cannot be shown, so it is not kept (only counted).
  let over: number | undefined;
  const src = readLines(file, "view", { maxLineChars: maxBytes, onOversize: (_n, chars) => { over = chars; } });
  async function* items(): AsyncGenerator<Item> {
    let n = 0;
    for await (const text of src) {
      n++;
      if (over !== undefined) { yield { n, over }; over = undefined; }
      else yield { n, text };
    }
  }
  const input = items();
  // The sample: the first lines, for what the input is (canonical, capture, or which surface).
  const head: Item[] = [];
  let nonBlank = 0;
  let sampled = 0;
  let ended = false;
  while (nonBlank < DETECT_LINES && sampled <= SAMPLE_CHARS) {
    const r = await input.next();
    if (r.done) { ended = true; break; }
    head.push(r.value);
    if ("text" in r.value && r.value.text.trim() !== "") { nonBlank++; sampled += r.value.text.length; }
    if ("over" in r.value) nonBlank++;
  }
  if (nonBlank === 0) throw new CliError(label, "empty input (nothing to view)");
  let rest: AsyncIterable<Item> | Iterable<Item> = input;
  let lines = head;
  /** The rest of the input, read whole up to the cap (`tooLarge`: what the error says the input is); undefined when a line was over the cap. */
  const readWhole = async (tooLarge: string): Promise<{ all: Item[]; text: string | undefined }> => {
    const all = [...head];
    let total = head.reduce((a, x) => a + ("text" in x ? x.text.length + 1 : x.over), 0);
    for await (const x of input) {
      total += "text" in x ? x.text.length + 1 : x.over;
      if (total > maxBytes) throw new CliError(label, tooLarge.replace("%MB", String(maxBytes >> 20)));
      all.push(x);
    }
    rest = [];
    return { all, text: all.some((x) => "over" in x) ? undefined : all.map((x) => ("text" in x ? x.text : "")).join("\n") };
  };
  const numbered = (texts: string[]) => texts.map((text, i) => ({ n: i + 1, text }));
  const detect = () => detectInput(lines.slice(0, 4 * DETECT_LINES).flatMap((x) => ("text" in x ? [x.text] : [])));
  // One JSON array (a document, not NDJSON): read whole, up to the cap; its elements are the messages, numbered 1…N.
  const first = head.find((x): x is { n: number; text: string } => "text" in x && x.text.trim() !== "");
  if (first && first.text.trimStart().startsWith("[")) {
    const { all, text } = await readWhole(`starts with "[" (one JSON array) and is larger than --max-mb %MB: a JSON array is read whole; give NDJSON (one message per line, e.g. jq -c '.[]'), or a larger --max-mb`);
    const elements = text === undefined ? undefined : arrayLines(text);
    lines = elements ? numbered(elements) : all;
  }
  let detection = detect();
  if (detection.kind === "unknown" && first && rest === input && mayBeDocument(first.text, ended && nonBlank === 1)) {
    // JSON written over several lines — pretty-printed messages, or one document holding the stream ({…, "messages":
    // [ … ]}): read whole, up to the cap; the messages are numbered 1…N. Anything else stays the lines it is.
    const { all, text } = await readWhole(`is JSON written over several lines, larger than --max-mb %MB: such an input is read whole; give NDJSON (one message per line), or a larger --max-mb`);
    const held = text === undefined ? undefined : documentMessages(text);
    lines = held ? numbered(valueLines(held)) : all;
    if (held) detection = detect();
  }
  if (detection.kind === "native" || detection.kind === "tie" || detection.kind === "unknown" || from) {
    from = chooseSurface({ label, detection, lines: (async function* () {})() }, from, { quiet: !!f.quiet }) ?? from;
  }
  if (recordLogOf(from) && rest === input) {
    // a record log (Gemini CLI's chat file): replayed to the session it ends with, as every command reads it
    const { all } = await readWhole(`is a record log larger than --max-mb %MB: such a file is read whole; give a larger --max-mb`);
    const texts = all.filter((x): x is { n: number; text: string } => "text" in x);
    const replayed: Item[] = all.filter((x) => "over" in x);
    for await (const x of surfaceLines({ label, detection, lines: (async function* () { yield* texts; })() }, from, !!f.quiet)) replayed.push(x);
    lines = replayed;
  }
  const title = (f.title as string | undefined) ?? `agentnorm view — ${basename(label)}`;
  let problemLines = 0;
  let messages = 0;
  let objects = 0;
  const notes: string[] = [];
  let data: ReturnType<typeof viewerData>;
  let summary: string;
  try {
    const s = createViewStream({
      from, title, maxBytes, ...(maxTurns !== undefined ? { maxTurns } : {}),
      // lines with a problem: named as FILE:LINE like every other command does (the page counts them too)
      // (held until the end: when not one line is a message of the surface, one line says so instead)
      onLineProblem: (line, message) => { if (++problemLines <= SHOWN && !f.quiet) notes.push(`${label}:${line}: ${message}`); },
    });
    const push = (x: Item) => {
      if ("over" in x || x.text.trim() !== "") messages++;
      if ("text" in x && x.text.trimStart().startsWith("{")) objects++;
      return "text" in x ? s.line(x.text, x.n) : s.oversize(x.n, x.over);
    };
    for (const x of lines) push(x);
    for await (const x of rest) push(x);
    const loaded = s.end();
    const o = loaded.outcomes;
    if (o && from && objects > 0 && o.mapped + o.ignored + o.silent + o.held === 0) throw new CliError(label, `none of the ${messages} line(s) is a message of ${from}${f.from ? " (check --from)" : ""}`);
    for (const n of notes) warn(n);
    data = viewerData(loaded, { from, title });
    const byKind: Record<string, number> = {};
    for (const p of data.problems) byKind[p.kind] = (byKind[p.kind] ?? 0) + 1;
    summary = `${loaded.kind} input, ${data.events.length} event(s), ${data.natives.length} native message(s), ${data.transcript.turns.length} turn(s); problems: ${Object.entries(byKind).map(([k, n]) => `${n} ${k}`).join(", ") || "none"}${data.meta.verified ? "" : " (not verified)"}`;
    if (loaded.cut) summary += `; ${cutNotice(loaded.cut)}`;
  } catch (err) {
    if (err instanceof ViewerInputError) throw new CliError(label, err.message);
    throw err;
  }
  if (problemLines > SHOWN) warn(`agentnorm: ${label}: ${problemLines - SHOWN} more line(s) with problems (counted on the page)`);
  // the page is written piece by piece (its data member by member), never held as one string
  const size = await writeOutputChunks(viewerHtmlChunks(data), out);
  if (!f.quiet) warn(`agentnorm: ${label}: ${summary} → ${out === "-" ? "<stdout>" : out} (${sizeText(size)})`);
  return 0;
}
