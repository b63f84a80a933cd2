/** `agentnorm render`: a canonical stream (or, with --from, a provider stream) → the accumulated transcript. */
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { createNormalizer } from "../../normalize/normalizer.js";
import { counterIds, steppingClock } from "../../normalize/ids.js";
import { createAccumulator } from "../../render/accumulator.js";
import { renderSnapshotText } from "../../render/render-text.js";
import { parseArgs, readLines, UsageError, write } from "./util.js";

export const RENDER_USAGE = `render options:
  --from SURFACE        the input is that surface's provider stream (normalized first); default: canonical NDJSON
  --json                print the accumulator snapshot (JSON) instead of the text view
  --color / --no-color  force colour on or off (default: on when stdout is a TTY and NO_COLOR is not set)
  --thinking N          characters of thinking shown before it is collapsed (default 120)
  --lines N             lines of tool output / diff per block (default 12)`;

export async function render(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", json: "bool", color: "bool", "no-color": "bool", thinking: "value", lines: "value", help: "bool", h: "bool" });
  if (f.help || f.h) { console.log(RENDER_USAGE); return 0; }
  const surface = f.from as string | undefined;
  if (surface !== undefined && !(SURFACE_NAMES as readonly string[]).includes(surface)) throw new UsageError(`unknown surface "${surface}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  if (f._.length > 1) throw new UsageError(`render takes one input (FILE or -), got: ${f._.join(" ")}`);
  const num = (name: string): number | undefined => {
    if (f[name] === undefined) return undefined;
    const n = Number(f[name]);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
    return n;
  };
  const thinkingChars = num("thinking");
  const maxLines = num("lines");
  const file = f._[0];
  const label = !file || file === "-" ? "<stdin>" : file;
  const acc = createAccumulator({ eventLog: false });
  const n = surface ? createNormalizer({ surface, includeRaw: false, ids: counterIds(), clock: steppingClock() }) : undefined;
  let lineNo = 0;
  let malformed = 0;
  try {
    for await (const line of readLines(file)) {
      lineNo++;
      if (n) { acc.applyAll(n.pushLine(line, { lineNumber: lineNo })); continue; }
      if (line.trim() === "") continue;
      let ev: unknown;
      try { ev = JSON.parse(line); } catch (err) {
        malformed++;
        console.error(`${label}:${lineNo}: not JSON (${(err as Error).message}); skipped`);
        continue;
      }
      acc.apply(ev);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(`agentnorm: cannot read ${label}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.code === "EACCES" ? "permission denied" : e.message}`);
    return 1;
  }
  if (n) acc.applyAll(n.end());
  const snap = acc.snapshot();
  if (f.json) { await write(JSON.stringify(snap, null, 2) + "\n"); return 0; }
  const color = f["no-color"] ? false : f.color ? true : !!process.stdout.isTTY && !process.env.NO_COLOR;
  await write(renderSnapshotText(snap, { color, thinkingChars, maxLines }));
  if (!n && snap.eventCount === 0 && lineNo > 0) console.error(`agentnorm: ${label}: no canonical events (is it a provider stream? use --from SURFACE)`);
  if (malformed) console.error(`agentnorm: ${label}: ${malformed} malformed line(s) skipped`);
  return 0;
}
