/** `agentnorm normalize`: provider NDJSON (or a JSON array) → canonical NDJSON. */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { SURFACE_NAMES, SURFACES } from "../../../generated/surfaces.gen.js";
import { createNormalizer, serializeEvent, type CanonicalEvent, type Direction } from "../../normalize/normalizer.js";
import { counterIds, steppingClock } from "../../normalize/ids.js";
import { shareRawPayloads } from "../../normalize/raw-stream.js";
import { renderTranscript } from "../../render/transcript.js";
import { createCaptureWriter } from "../../capture/capture.js";
import { capturingNormalizer, type CapturingNormalizer } from "../../capture/replay.js";
import { unwrapCaptureLine } from "../../capture/unwrap.js";
import { describeDetection } from "../detect.js";
import { cliRedactOptions } from "./capture.js";
import { countLine, finish, lineProblems, newTally, noneMatched, release } from "./source.js";
import { chooseSurface, CliError, surfaceLines, flushStdout, openInput, parseArgs, printHelp, reason, stopExitCode, stopRequested, surfaceFlag, UsageError, warn, write } from "./util.js";

export const NORMALIZE_USAGE = `normalize [FILE|-] [options]   (stdin when no FILE)
  --from SURFACE        input surface (default: detected from the input): ${SURFACE_NAMES.join(", ")}
  --strict              exit 1 when a line is malformed or unknown to the surface's table
  --direction in|out    direction of every input message (in = from the agent); default: inferred per message
  --directions FILE     one direction per input line (in/out), e.g. a recording's .dir file
  --validate            validate every output event against the canonical JSON Schema (failures → runtime.error)
  --transcript          also print a short human-readable transcript (to stderr)
  --deterministic       counter ids (thr_1, itm_1, …) and a fixed clock, for diffs and fixtures
  --no-raw              no raw.payload in the events (raw.source/method/rule stay)
  --quiet               no summary, progress or FILE:LINE notes on stderr
  --capture FILE        also write a capture log (native_in, normalized_out, legacy_out when a projection is
                        wired in) to FILE, redacted (<HOME>, <PROJECT>=cwd, <TMP>, keys, tokens, cookies, env maps…)
  --no-redact           with --capture: do not redact (the log then holds secrets; sanitize redacts later)

Input lines may be bare messages or capture wrappers {direction|dir|channel, message|frame} (with a direction
word, also {dir, m} and {direction, json: "<the message's JSON text>"}); a file that starts
with "[" is read as one JSON array; JSON written over several lines whose lines no surface recognises is read whole:
messages pretty-printed one after another, or one document's top-level "messages" (or "events") array. Each provider message is written out once: the first event it produced (or the
one carrying its text) has it as raw.payload, the others name that event in raw.payloadRef.`;

export async function normalize(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", direction: "value", directions: "value", validate: "bool", transcript: "bool", deterministic: "bool", "no-raw": "bool", quiet: "bool", capture: "value", "no-redact": "bool", strict: "bool" });
  if (f.help) return printHelp(NORMALIZE_USAGE);
  const from = surfaceFlag(f);
  if (f._.length > 1) throw new UsageError(`normalize takes one input (FILE or -), got: ${f._.join(" ")}`);
  const direction = f.direction as string | undefined;
  if (direction !== undefined && direction !== "in" && direction !== "out") throw new UsageError(`--direction must be "in" or "out"`);
  if (f["no-redact"] && typeof f.capture !== "string") throw new UsageError(`--no-redact only applies with --capture FILE`);
  const file = f._[0];
  let directions: (Direction | undefined)[] | undefined;
  if (typeof f.directions === "string") {
    try {
      directions = readFileSync(f.directions, "utf8").split("\n").map((l) => (l.trim() === "in" ? "in" : l.trim() === "out" ? "out" : undefined));
    } catch (err) {
      throw new CliError(f.directions, `cannot read: ${reason(err)}`);
    }
  }
  const input = await openInput(file, "normalize");
  const label = input.label;
  const d = input.detection;
  if (!from && (d.kind === "canonical" || d.kind === "capture")) {
    throw new CliError(label, `the input is ${describeDetection(d)}, not provider messages: nothing to normalize (render, project, verify and view read it as it is${d.kind === "capture" ? "; replay re-normalizes a capture's native_in" : ""})`);
  }
  const surface = d.kind === "empty" && !from ? undefined : chooseSurface(input, from, { quiet: !!f.quiet });
  const tally = newTally(!!f.quiet);
  if (!surface) {
    // empty input: nothing to do
    for await (const line of input.lines) {
      tally.lines++;
      if (line.text.trim() === "") tally.blank++;
    }
    return finish(tally, label, f, "normalize");
  }
  const includeRaw = !f["no-raw"];
  const n = createNormalizer({
    surface,
    validate: !!f.validate,
    includeRaw,
    ...(f.deterministic ? { ids: counterIds(), clock: steppingClock() } : {}),
  });
  // --capture: every input message and output event also goes to a capture log (src/capture/capture.ts).
  let captureFd: number | undefined;
  let cap: CapturingNormalizer | undefined;
  if (typeof f.capture === "string") {
    try {
      captureFd = openSync(f.capture, "w");
    } catch (err) {
      throw new CliError(f.capture, `cannot write: ${reason(err)}`);
    }
    const writer = createCaptureWriter({ provider: SURFACES[surface].provider, source: surface, redact: f["no-redact"] ? false : cliRedactOptions() });
    cap = capturingNormalizer(n, writer, { surface });
  }
  const captured = (r: { events: CanonicalEvent[]; lines: string }): CanonicalEvent[] => {
    try {
      writeSync(captureFd!, r.lines);
    } catch (err) {
      throw new CliError(f.capture as string, `cannot write: ${reason(err)}`);
    }
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
  const keep: CanonicalEvent[] | undefined = f.transcript ? [] : undefined;
  const quiet = !!f.quiet;
  const started = Date.now();
  let lastProgress = started;
  let invalidOut = 0;
  let lineNo = 0;
  const emit = async (events: CanonicalEvent[]) => {
    if (!events.length) return;
    let s = "";
    for (const e of includeRaw ? shareRawPayloads(events) : events) s += serializeEvent(e) + "\n";
    for (const e of events) {
      if (keep) keep.push(e);
      if (e.type === "runtime.error" && (e.payload as any).class === "validation_error" && (e.payload as any).message?.includes("does not match the canonical schema")) invalidOut++;
    }
    await write(s);
  };
  const problems = lineProblems(n, tally, label);
  const closeCapture = () => { if (captureFd !== undefined) { closeSync(captureFd); captureFd = undefined; } };
  try {
    for await (const { text, n: line } of surfaceLines(input, surface, quiet)) {
      lineNo = line;
      countLine(tally, text);
      const events = pushLine(text, line, (direction as Direction | undefined) ?? directions?.[line - 1]);
      problems.check(events, line);
      await emit(events);
      if (!quiet && line % 100_000 === 0 && Date.now() - lastProgress > 1000) {
        lastProgress = Date.now();
        warn(`agentnorm: ${line.toLocaleString("en")} lines…`);
      }
    }
    if (stopRequested()) {
      // stopped by a signal: what was written is whole lines; flush it and say where the input stopped
      closeCapture();
      await flushStdout();
      warn(`agentnorm: ${label}: stopped by ${stopRequested()} after line ${lineNo}`);
      return stopExitCode();
    }
    await emit(cap ? captured(cap.end()) : n.end());
    await flushStdout();
  } finally {
    closeCapture();
  }
  if (noneMatched(tally, surface)) return finish(tally, label, f, "normalize", surface);
  release(tally);
  if (keep) warn("\n" + renderTranscript(keep));
  if (!quiet) {
    const s = n.stats();
    // every input line once: it produced events, was ignored (by an ignore entry, held for later, or matched with
    // nothing new to emit), or is unknown / malformed (a runtime event says so); blank lines apart
    const o = s.outcomes;
    const blank = Math.max(0, tally.lines - (o.mapped + o.ignored + o.held + o.silent + o.unknown + o.malformed));
    const ignored = o.ignored + o.held + o.silent;
    warn(`agentnorm: ${label}: ${s.messages} message(s) → ${s.events} event(s); ${tally.lines} line(s): ${o.mapped} mapped, ${ignored} ignored (${o.ignored} by an ignore entry, ${o.held} held, ${o.silent} with nothing new), ${o.unknown} unknown, ${o.malformed} malformed${blank ? `, ${blank} blank` : ""}${f.validate ? `, ${invalidOut} failed schema validation` : ""} (${Date.now() - started} ms)`);
  }
  return finish(tally, label, { ...f, quiet: true }, "normalize", surface);
}
