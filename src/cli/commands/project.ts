/** `agentnorm project`: a stream (canonical, a capture's normalized_out, or provider messages) → chat_event records or marker lines. */
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import type { CanonicalEvent } from "../../normalize/normalizer.js";
import { chatEventLine, createChatEventChecker, createChatEventProjector, legacyMarkers, type ChatEvent } from "../../render/chat-event.js";
import { finish, newTally, openSource } from "./source.js";
import { parseArgs, printHelp, surfaceFlag, UsageError, warn, write } from "./util.js";

export const PROJECT_USAGE = `project [FILE|-] [options]   (stdin when no FILE)
  --from SURFACE        the input is that surface's provider stream (normalized first); default: detected
                        (canonical NDJSON, a capture log, or one of: ${SURFACE_NAMES.join(", ")})
  --strict              exit 1 when a line is malformed or unknown
  --format chat-event   one chat_event record per line (NDJSON; default)
  --format legacy       the bridge's marker lines: legacy markers ([MESSAGE_START], [CONTENT_DELTA] "…",
                        [THINKING_DELTA] "…", [TOOL_USE] {…}, [TOOL_RESULT] {…}, [MESSAGE_END]) each followed by
                        the [CHAT_EVENT] {json} line of the record it came from
  --quiet               no notes on stderr`;

const FORMATS: Record<string, (r: ChatEvent) => string> = {
  "chat-event": (r) => JSON.stringify(r) + "\n",
  legacy: (r) => [...legacyMarkers(r), chatEventLine(r)].join("\n") + "\n",
};

export async function project(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", format: "value", strict: "bool", quiet: "bool" });
  if (f.help) return printHelp(PROJECT_USAGE);
  surfaceFlag(f);
  const format = (f.format as string | undefined) ?? "chat-event";
  const fmt = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (!fmt) throw new UsageError(`unknown --format "${format}"; formats: ${Object.keys(FORMATS).join(", ")}`);
  if (f._.length > 1) throw new UsageError(`project takes one input (FILE or -), got: ${f._.join(" ")}`);
  const tally = newTally(!!f.quiet);
  const src = await openSource(f._[0], f, tally, { command: "project" });
  const label = src.input.label;
  const projector = createChatEventProjector();
  // the contract invariants, checked as the records go out (a violation is reported, the record still written)
  const check = createChatEventChecker();
  let violations = 0;
  const emit = async (events: CanonicalEvent[]) => {
    let s = "";
    for (const e of events) {
      for (const r of projector.push(e)) {
        for (const v of check(r)) if (++violations <= 5) warn(`agentnorm: chat_event contract: ${v}`);
        s += fmt(r);
      }
    }
    if (s) await write(s);
  };
  for await (const b of src.batches) await emit(b.events);
  if (violations) warn(`agentnorm: ${label}: ${violations} chat_event contract violation(s) (the input stream breaks an invariant; see docs/chat-event.md)`);
  return finish(tally, label, f, "project", src.surface);
}
