/** `agentnorm view`: one self-contained HTML page (transcript, timeline, native message) from a recording, a canonical stream or a capture. */
import { basename } from "node:path";
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { loadInput, viewerData, ViewerInputError } from "../../view/data.js";
import { viewerHtml } from "../../view/html.js";
import { detectInput } from "../detect.js";
import { chooseSurface, CliError, labelOf, parseArgs, printHelp, readText, surfaceFlag, UsageError, warn, writeOutput } from "./util.js";

export const VIEW_USAGE = `view FILE|- [options]
  --from SURFACE        the input is native provider messages of SURFACE (normalized here): ${SURFACE_NAMES.join(", ")}
                        (default: detected; a canonical NDJSON stream or a capture file is recognised as such)
  -o, --out FILE        where to write the page (default: <input name>.html in the current directory; - = stdout)
  --title TEXT          page title
  --quiet               no summary on stderr`;

export async function view(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", o: "value", out: "value", title: "value", quiet: "bool" });
  if (f.help) return printHelp(VIEW_USAGE);
  if (f._.length !== 1) throw new UsageError(`view takes one input FILE (or -), got ${f._.length ? f._.join(" ") : "none"}`);
  let from = surfaceFlag(f);
  const file = f._[0];
  const label = labelOf(file);
  const text = await readText(file, "view");
  if (text.trim() === "") throw new CliError(label, "empty input (nothing to view)");
  // lines that are not JSON: named as FILE:LINE like every other command does (the page counts them too)
  if (!text.trimStart().startsWith("[")) {
    let bad = 0;
    text.split("\n").forEach((l, i) => {
      if (l.trim() === "") return;
      try { JSON.parse(l); } catch (err) { if (++bad <= 10) warn(`${label}:${i + 1}: not valid JSON (${(err as Error).message})`); }
    });
    if (bad > 10) warn(`agentnorm: ${label}: ${bad - 10} more line(s) not valid JSON`);
  }
  const sample = text.slice(0, 1 << 20).split("\n");
  const detection = detectInput(sample);
  if (detection.kind === "native" || detection.kind === "unknown" || from) {
    from = chooseSurface({ label, detection, lines: (async function* () {})() }, from, { quiet: !!f.quiet }) ?? from;
  }
  const out = (f.o ?? f.out ?? (file === "-" ? "-" : basename(file).replace(/\.(nd)?jsonl?$/i, "") + ".html")) as string;
  const title = (f.title as string | undefined) ?? `agentnorm view — ${basename(label)}`;
  let html: string;
  let summary: string;
  try {
    const loaded = loadInput(text, { from, title });
    const data = viewerData(loaded, { from, title });
    html = viewerHtml(data);
    const byKind: Record<string, number> = {};
    for (const p of data.problems) byKind[p.kind] = (byKind[p.kind] ?? 0) + 1;
    summary = `${loaded.kind} input, ${data.events.length} event(s), ${data.natives.length} native message(s), ${data.transcript.turns.length} turn(s); problems: ${Object.entries(byKind).map(([k, n]) => `${n} ${k}`).join(", ") || "none"}${data.meta.verified ? "" : " (not verified)"}`;
  } catch (err) {
    if (err instanceof ViewerInputError) throw new CliError(label, err.message);
    throw err;
  }
  await writeOutput(html, out);
  if (!f.quiet) warn(`agentnorm: ${label}: ${summary} → ${out === "-" ? "<stdout>" : out} (${(html.length / 1024).toFixed(0)} KB)`);
  return 0;
}
