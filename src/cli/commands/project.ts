/** `agentnorm project`: a canonical stream (or, with --from, a provider stream) → chat_event records or marker lines. */
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { createNormalizer, type CanonicalEvent } from "../../normalize/normalizer.js";
import { counterIds, steppingClock } from "../../normalize/ids.js";
import { chatEventLine, createChatEventChecker, createChatEventProjector, legacyMarkers, type ChatEvent } from "../../render/chat-event.js";
import { parseArgs, readLines, UsageError, write } from "./util.js";

export const PROJECT_USAGE = `project options:
  --from SURFACE        the input is that surface's provider stream (normalized first); default: canonical NDJSON
  --format chat-event   one chat_event record per line (NDJSON; default)
  --format legacy       the bridge's marker lines: legacy markers ([MESSAGE_START], [CONTENT_DELTA] "…",
                        [THINKING_DELTA] "…", [TOOL_USE] {…}, [TOOL_RESULT] {…}, [MESSAGE_END]) each followed by
                        the [CHAT_EVENT] {json} line of the record it came from`;

const FORMATS: Record<string, (r: ChatEvent) => string> = {
  "chat-event": (r) => JSON.stringify(r) + "\n",
  legacy: (r) => [...legacyMarkers(r), chatEventLine(r)].join("\n") + "\n",
};

export async function project(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", format: "value", help: "bool", h: "bool" });
  if (f.help || f.h) { console.log(PROJECT_USAGE); return 0; }
  const surface = f.from as string | undefined;
  if (surface !== undefined && !(SURFACE_NAMES as readonly string[]).includes(surface)) throw new UsageError(`unknown surface "${surface}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  const format = (f.format as string | undefined) ?? "chat-event";
  const fmt = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (!fmt) throw new UsageError(`unknown --format "${format}"; formats: ${Object.keys(FORMATS).join(", ")}`);
  if (f._.length > 1) throw new UsageError(`project takes one input (FILE or -), got: ${f._.join(" ")}`);
  const file = f._[0];
  const label = !file || file === "-" ? "<stdin>" : file;
  const projector = createChatEventProjector();
  const n = surface ? createNormalizer({ surface, includeRaw: false, ids: counterIds(), clock: steppingClock() }) : undefined;
  // the contract invariants, checked as the records go out (a violation is reported, the record still written)
  const check = createChatEventChecker();
  let violations = 0;
  const emit = async (events: CanonicalEvent[]) => {
    let s = "";
    for (const e of events) {
      for (const r of projector.push(e)) {
        for (const v of check(r)) if (++violations <= 5) console.error(`agentnorm: chat_event contract: ${v}`);
        s += fmt(r);
      }
    }
    if (s) await write(s);
  };
  let lineNo = 0;
  let skipped = 0;
  try {
    for await (const line of readLines(file)) {
      lineNo++;
      if (n) { await emit(n.pushLine(line, { lineNumber: lineNo })); continue; }
      if (line.trim() === "") continue;
      let ev: any;
      try { ev = JSON.parse(line); } catch { ev = undefined; }
      if (!ev || typeof ev !== "object" || typeof ev.type !== "string" || typeof ev.sessionId !== "string") {
        skipped++;
        if (skipped <= 5) console.error(`${label}:${lineNo}: not a canonical event; skipped${skipped === 1 ? " (a provider stream? use --from SURFACE)" : ""}`);
        continue;
      }
      await emit([ev]);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(`agentnorm: cannot read ${label}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.code === "EACCES" ? "permission denied" : e.message}`);
    return 1;
  }
  if (n) await emit(n.end());
  if (skipped > 5) console.error(`agentnorm: ${label}: ${skipped} line(s) skipped`);
  if (violations) console.error(`agentnorm: ${label}: ${violations} chat_event contract violation(s) (the input stream breaks an invariant; see docs/chat-event.md)`);
  return 0;
}
