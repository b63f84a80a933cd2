/** `agentnorm render`: a stream (canonical, a capture's normalized_out, or provider messages) → the accumulated transcript. */
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { createAccumulator } from "../../render/accumulator.js";
import { DEFAULT_RENDER_WIDTH, renderSnapshotText } from "../../render/render-text.js";
import { finish, newTally, openSource } from "./source.js";
import { intFlag, parseArgs, printHelp, surfaceFlag, UsageError, warn, write } from "./util.js";

export const RENDER_USAGE = `render [FILE|-] [options]   (stdin when no FILE)
  --from SURFACE        the input is that surface's provider stream (normalized first); default: detected
                        (canonical NDJSON, a capture log, or one of: ${SURFACE_NAMES.join(", ")})
  --strict              exit 1 when a line is malformed or unknown
  --json                print the accumulator snapshot (JSON) instead of the text view
  --color / --no-color  force colour on or off (default: on when stdout is a TTY and NO_COLOR is not set); with
                        colour on, the SGR codes in tool output that set colours or bold/dim/italic/underline are
                        kept; every other SGR (conceal, blink, reverse…) and control character, and every invisible
                        character (zero-width, bidi, U+FEFF…), is shown escaped (\\e[8m, \\r, \\u200b…), never sent
                        to the terminal
  --width N             characters per output line; a longer line is cut and ends with "… (+N chars)"
                        (default ${DEFAULT_RENDER_WIDTH})
  --thinking N          characters of thinking shown before it is collapsed (default 120)
  --lines N             lines of tool output / diff per block (default 12)
  --quiet               no notes on stderr`;

export async function render(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", json: "bool", color: "bool", "no-color": "bool", thinking: "value", lines: "value", width: "value", strict: "bool", quiet: "bool" });
  if (f.help) return printHelp(RENDER_USAGE);
  surfaceFlag(f);
  if (f._.length > 1) throw new UsageError(`render takes one input (FILE or -), got: ${f._.join(" ")}`);
  if (f.color && f["no-color"]) throw new UsageError(`--color and --no-color exclude each other`);
  const thinkingChars = intFlag(f, "thinking");
  const maxLines = intFlag(f, "lines");
  const width = intFlag(f, "width");
  const tally = newTally(!!f.quiet);
  const src = await openSource(f._[0], f, tally, { command: "render" });
  const acc = createAccumulator({ eventLog: false });
  for await (const b of src.batches) acc.applyAll(b.events);
  const snap = acc.snapshot();
  if (f.json) await write(JSON.stringify(snap, null, 2) + "\n");
  else {
    const color = f["no-color"] ? false : f.color ? true : !!process.stdout.isTTY && !process.env.NO_COLOR;
    await write(renderSnapshotText(snap, { color, thinkingChars, maxLines, width }));
    if (snap.eventCount === 0 && tally.lines > 0 && !f.quiet) warn(`agentnorm: ${src.input.label}: no canonical events`);
  }
  return finish(tally, src.input.label, f, "render", src.surface);
}
