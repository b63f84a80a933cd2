/** `agentnorm normalize`: provider NDJSON (or a JSON array) → canonical NDJSON. */
import { readFileSync } from "node:fs";
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { createNormalizer, serializeEvent, type CanonicalEvent, type Direction } from "../../normalize/normalizer.js";
import { counterIds, steppingClock } from "../../normalize/ids.js";
import { renderTranscript } from "../../render/transcript.js";
import { flushStdout, parseArgs, readLines, stopExitCode, stopRequested, UsageError, write } from "./util.js";
import { closeSync, openSync, writeSync } from "node:fs";
import { SURFACES } from "../../../generated/surfaces.gen.js";
import { createCaptureWriter } from "../../capture/capture.js";
import { capturingNormalizer, type CapturingNormalizer } from "../../capture/replay.js";
import { unwrapCaptureLine } from "../../capture/unwrap.js";
import { cliRedactOptions } from "./capture.js";

export const NORMALIZE_USAGE = `normalize options:
  --from SURFACE        input surface: ${SURFACE_NAMES.join(", ")}
  --direction in|out    direction of every input message (in = from the agent); default: inferred per message
  --directions FILE     one direction per input line (in/out), e.g. a recording's .dir file
  --validate            validate every output event against the canonical JSON Schema (failures → runtime.error)
  --transcript          also print a short human-readable transcript (to stderr)
  --deterministic       counter ids (thr_1, itm_1, …) and a fixed clock, for diffs and fixtures
  --no-raw              leave raw.payload out of the events (raw.source/method/rule stay)
  --quiet               no summary or progress on stderr
  --capture FILE        also write a capture log (native_in, normalized_out, legacy_out when a projection is
                        wired in) to FILE, redacted (<HOME>, <PROJECT>=cwd, <TMP>, keys, tokens, env maps…)
  --no-redact           with --capture: do not redact (the log then holds secrets; sanitize redacts later)

Input lines may be bare messages or capture wrappers {direction|dir|channel, message|frame}.`;

export async function normalize(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", direction: "value", directions: "value", validate: "bool", transcript: "bool", deterministic: "bool", "no-raw": "bool", quiet: "bool", capture: "value", "no-redact": "bool", help: "bool", h: "bool" });
  if (f.help || f.h) { console.log(NORMALIZE_USAGE); return 0; }
  const surface = f.from as string | undefined;
  if (!surface) throw new UsageError(`normalize needs --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
  if (!(SURFACE_NAMES as readonly string[]).includes(surface)) throw new UsageError(`unknown surface "${surface}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
  if (f._.length > 1) throw new UsageError(`normalize takes one input (FILE or -), got: ${f._.join(" ")}`);
  const direction = f.direction as string | undefined;
  if (direction !== undefined && direction !== "in" && direction !== "out") throw new UsageError(`--direction must be "in" or "out"`);
  const file = f._[0];
  const label = !file || file === "-" ? "<stdin>" : file;
  let directions: (Direction | undefined)[] | undefined;
  if (typeof f.directions === "string") {
    try {
      directions = readFileSync(f.directions, "utf8").split("\n").map((l) => (l.trim() === "in" ? "in" : l.trim() === "out" ? "out" : undefined));
    } catch (err) {
      console.error(`agentnorm: cannot read ${f.directions}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return 1;
    }
  }
  const n = createNormalizer({
    surface,
    validate: !!f.validate,
    includeRaw: !f["no-raw"],
    ...(f.deterministic ? { ids: counterIds(), clock: steppingClock() } : {}),
  });
  // --capture: every input message and output event also goes to a capture log (src/capture/capture.ts).
  let captureFd: number | undefined;
  let cap: CapturingNormalizer | undefined;
  if (typeof f.capture === "string") {
    try {
      captureFd = openSync(f.capture, "w");
    } catch (err) {
      console.error(`agentnorm: cannot write ${f.capture}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return 1;
    }
    const writer = createCaptureWriter({ provider: SURFACES[surface].provider, source: surface, redact: f["no-redact"] ? false : cliRedactOptions() });
    cap = capturingNormalizer(n, writer, { surface });
  } else if (f["no-redact"]) throw new UsageError(`--no-redact only applies with --capture FILE`);
  const captured = (r: { events: CanonicalEvent[]; lines: string }): CanonicalEvent[] => {
    writeSync(captureFd!, r.lines);
    return r.events;
  };
  const pushLine = (line: string, lineNumber: number, dir: Direction | undefined): CanonicalEvent[] => {
    if (!cap) return n.pushLine(line, { lineNumber, direction: dir });
    if (line.trim() === "") return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return captured(cap.pushUnparsed(line, lineNumber));
    }
    const { message, meta } = unwrapCaptureLine(parsed);
    return captured(cap.push(message, { ...meta, direction: dir ?? meta.direction }));
  };
  const push = (message: unknown, dir: Direction | undefined): CanonicalEvent[] =>
    cap ? captured(cap.push(message, { direction: dir })) : n.push(message, { direction: dir });
  const keep: CanonicalEvent[] | undefined = f.transcript ? [] : undefined;
  const quiet = !!f.quiet;
  const started = Date.now();
  let lineNo = 0;
  let lastProgress = started;
  let invalidOut = 0;
  const emit = async (events: CanonicalEvent[]) => {
    if (!events.length) return;
    let s = "";
    for (const e of events) {
      s += serializeEvent(e) + "\n";
      if (keep) keep.push(e);
      if (e.type === "runtime.error" && (e.payload as any).class === "validation_error" && (e.payload as any).message?.includes("does not match the canonical schema")) invalidOut++;
    }
    await write(s);
  };
  try {
    let arrayText: string | undefined;
    for await (const line of readLines(file)) {
      lineNo++;
      if (arrayText !== undefined || (lineNo === 1 && line.trimStart().startsWith("["))) {
        arrayText = (arrayText ?? "") + line + "\n";
        continue;
      }
      const events = pushLine(line, lineNo, (direction as Direction | undefined) ?? directions?.[lineNo - 1]);
      for (const e of events) {
        if (e.type === "runtime.error" && (e.payload as any).class === "validation_error" && (e.payload as any).detail?.line === lineNo) {
          console.error(`${label}:${lineNo}: ${(e.payload as any).message.replace(/^line \d+: /, "")}`);
        }
      }
      await emit(events);
      if (!quiet && lineNo % 100_000 === 0 && Date.now() - lastProgress > 1000) {
        lastProgress = Date.now();
        console.error(`agentnorm: ${lineNo.toLocaleString("en")} lines…`);
      }
    }
    if (arrayText !== undefined) {
      let arr: unknown;
      try {
        arr = JSON.parse(arrayText);
      } catch (err) {
        console.error(`${label}: input starts with "[" but is not a valid JSON array (${(err as Error).message})`);
        return 1;
      }
      if (!Array.isArray(arr)) { console.error(`${label}: expected a JSON array`); return 1; }
      for (let i = 0; i < arr.length; i++) await emit(push(arr[i], (direction as Direction | undefined) ?? directions?.[i]));
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(`agentnorm: cannot read ${label}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.code === "EACCES" ? "permission denied" : e.message}`);
    return 1;
  }
  if (stopRequested()) {
    // stopped by a signal: what was written is whole lines; flush it and say where the input stopped
    if (captureFd !== undefined) closeSync(captureFd);
    await flushStdout();
    console.error(`agentnorm: ${label}: stopped by ${stopRequested()} after line ${lineNo}`);
    return stopExitCode();
  }
  await emit(cap ? captured(cap.end()) : n.end());
  if (captureFd !== undefined) closeSync(captureFd);
  if (keep) process.stderr.write("\n" + renderTranscript(keep));
  if (!quiet) {
    const s = n.stats();
    const ignored = Object.values(s.ignored).reduce((a, b) => a + b, 0);
    console.error(`agentnorm: ${label}: ${s.messages} message(s) → ${s.events} event(s); ${ignored} ignored by rule, ${s.unknown} unknown, ${s.invalid} malformed${f.validate ? `, ${invalidOut} failed schema validation` : ""} (${Date.now() - started} ms)`);
  }
  return 0;
}
