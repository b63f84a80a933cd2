/** `agentnorm view`: one self-contained HTML page (transcript, timeline, native message) from a recording, a canonical stream or a capture. */
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { loadInput, viewerData, ViewerInputError } from "../../view/data.js";
import { viewerHtml } from "../../view/html.js";
import { parseArgs, UsageError, write } from "./util.js";

export const VIEW_USAGE = `view options:
  --from SURFACE        the input is native provider messages of SURFACE (normalized here): ${SURFACE_NAMES.join(", ")}
                        (a canonical NDJSON stream or a capture file is recognised without it)
  -o, --out FILE        where to write the page (default: <input name>.html in the current directory; - = stdout)
  --title TEXT          page title`;

export async function view(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", o: "value", out: "value", title: "value", help: "bool", h: "bool" });
  if (f.help || f.h) { console.log(VIEW_USAGE); return 0; }
  if (f._.length !== 1) throw new UsageError(`view takes one input FILE (or -), got ${f._.length ? f._.join(" ") : "none"}`);
  const from = f.from as string | undefined;
  if (from !== undefined && !(SURFACE_NAMES as readonly string[]).includes(from)) throw new UsageError(`unknown surface "${from}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  const file = f._[0];
  const label = file === "-" ? "<stdin>" : file;
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(`agentnorm: cannot read ${label}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.message}`);
    return 1;
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
    if (err instanceof ViewerInputError) {
      console.error(`agentnorm: ${label}: ${err.message}`);
      return 1;
    }
    throw err;
  }
  if (out === "-") await write(html);
  else {
    try {
      writeFileSync(out, html);
    } catch (err) {
      console.error(`agentnorm: cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return 1;
    }
  }
  console.error(`agentnorm: ${label}: ${summary} → ${out === "-" ? "<stdout>" : out} (${(html.length / 1024).toFixed(0)} KB)`);
  return 0;
}
