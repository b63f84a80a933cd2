/**
 * `agentnorm capture …`: the file side of capture logs (src/capture/capture.ts, src/capture/replay.ts hold the logic).
 *   capture sanitize FILE [-o OUT]          capture → deterministic replay fixture
 *   capture check FILE                      validate every line (line number + field for each problem)
 *   capture convert [--from SURFACE] FILE   a recording ({seq, dir, channel?, message} lines) → capture envelopes
 */
import { machineRedactOptions } from "../../capture/machine.js";
import { SURFACES, SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { CAPTURE_STAGES, createCaptureWriter, formatCaptureError, readCapture, serializeRecords, type CaptureReadResult } from "../../capture/capture.js";
import type { RedactOptions } from "../../capture/redact.js";
import { convertRecording, sanitizeCapture } from "../../capture/replay.js";
import { describeDetection, detectInput } from "../detect.js";
import { chooseSurface, CliError, labelOf, parseArgs, printHelp, readText, surfaceFlag, UsageError, warn, writeOutput } from "./util.js";

export const CAPTURE_USAGE = `capture sanitize|check|convert …
  capture sanitize FILE [-o OUT] [--no-redact] [--quiet]
                        capture → deterministic fixture: drops timestamp and captureId, renumbers sequences,
                        canonical ids and UUIDs in order of first appearance, fixes createdAt, drops
                        normalized_out raw.payload (native_in holds it), redacts again; stdout unless -o
  capture check FILE    validate every line; problems as FILE:LINE: FIELD: message; exit 1 if any
  capture convert [--from SURFACE] FILE [-o OUT] [--sanitize] [--no-redact]
                        a recording of {seq, dir, channel?, message} lines (fixtures/recorded/) → capture
                        envelopes (native_in + normalized_out, deterministic ids); --sanitize: a fixture;
                        the surface is detected unless --from names it
Redaction is on by default: <HOME>=$HOME, <PROJECT>=the current directory, <TMP>=the temp directory, <USER>=your
login name; secrets (keys and tokens by shape, secret-named fields and assignments, random-looking assignment values,
cookies and auth headers, URL credentials, passwords given as command flags, .netrc/.pgpass lines, private keys,
base64-wrapped credentials, env values) in every stage and in free text, streamed text judged across deltas
(docs/capture.md lists every class).`;

/** What the CLI redacts by default: the home, current and temp directories, and the login name. */
export function cliRedactOptions(): RedactOptions {
  return machineRedactOptions(process.cwd());
}

/**
 * Read FILE as a capture log or fixture. CliError when it cannot be read, is empty, or is not a capture at all (then
 * one line saying what it looks like, not one error per line).
 */
export async function readCaptureFile(file: string, command: string): Promise<CaptureReadResult> {
  const label = labelOf(file);
  const text = await readText(file, command);
  if (text.trim() === "") throw new CliError(label, "empty input (no capture records)");
  const d = detectInput(text.slice(0, 1 << 20).split("\n"));
  if (d.kind !== "capture") {
    throw new CliError(label, `not a capture log: the input looks like ${describeDetection(d)}${d.kind === "native" ? ` (capture convert --from ${d.surface} turns a recording into a capture)` : ""}`);
  }
  return readCapture(text);
}

export async function capture(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h" || sub === "help") return printHelp(CAPTURE_USAGE);
  if (sub === undefined) throw new UsageError(`capture needs a subcommand: sanitize, check or convert\n\n${CAPTURE_USAGE}`);
  if (sub === "sanitize" || sub === "check") {
    const f = parseArgs(rest, { o: "value", out: "value", "no-redact": "bool", quiet: "bool" });
    if (f.help) return printHelp(CAPTURE_USAGE);
    if (f._.length !== 1) throw new UsageError(`capture ${sub} takes one FILE`);
    if (sub === "check" && (f.o || f.out || f["no-redact"])) throw new UsageError(`capture check takes no options`);
    const file = f._[0];
    const label = labelOf(file);
    const r = await readCaptureFile(file, `capture ${sub}`);
    const shown = r.errors.slice(0, 50);
    for (const e of shown) warn(formatCaptureError(label, e));
    if (r.errors.length > shown.length) warn(`agentnorm: ${label}: ${r.errors.length - shown.length} more problem(s) not shown`);
    if (sub === "check") {
      const by = Object.fromEntries(CAPTURE_STAGES.map((s) => [s, r.records.filter((x) => x.stage === s).length]));
      const reds = r.records.reduce((a, x) => a + x.redactions.length, 0);
      const kind = r.records.length && r.records.every((x) => !("captureId" in x)) ? "fixture" : "capture";
      warn(`agentnorm: ${label}: ${kind}, ${r.records.length} of ${r.lines} line(s) valid (${CAPTURE_STAGES.map((s) => `${s} ${by[s]}`).join(", ")}), ${reds} redaction(s), ${r.errors.length} problem(s)`);
      return r.errors.length ? 1 : 0;
    }
    const fixture = sanitizeCapture(r.records, { redact: f["no-redact"] ? false : cliRedactOptions() });
    await writeOutput(serializeRecords(fixture), (f.o ?? f.out) as string | undefined);
    if (!f.quiet) warn(`agentnorm: ${label}: ${fixture.length} record(s) sanitized${r.errors.length ? `; ${r.errors.length} bad line(s) skipped` : ""}`);
    return r.errors.length ? 1 : 0;
  }
  if (sub === "convert") {
    const f = parseArgs(rest, { from: "value", o: "value", out: "value", sanitize: "bool", "no-redact": "bool", quiet: "bool" });
    if (f.help) return printHelp(CAPTURE_USAGE);
    const from = surfaceFlag(f);
    if (f._.length !== 1) throw new UsageError(`capture convert takes one FILE`);
    const label = labelOf(f._[0]);
    const text = await readText(f._[0], "capture convert");
    if (text.trim() === "") throw new CliError(label, "empty input (nothing to convert)");
    const detection = detectInput(text.slice(0, 1 << 20).split("\n"));
    if (!from && (detection.kind === "canonical" || detection.kind === "capture")) throw new CliError(label, `not a recording of provider messages: the input is ${describeDetection(detection)}`);
    const surface = chooseSurface({ label, detection, lines: (async function* () {})() }, from, { quiet: !!f.quiet })!;
    if (!surface || !Object.hasOwn(SURFACES, surface)) throw new UsageError(`capture convert needs --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
    const redact = f["no-redact"] ? false as const : cliRedactOptions();
    const writer = createCaptureWriter({ provider: SURFACES[surface].provider, source: surface, redact });
    let out = convertRecording(text, surface, writer);
    if (f.sanitize) out = serializeRecords(sanitizeCapture(readCapture(out).records, { redact }));
    await writeOutput(out, (f.o ?? f.out) as string | undefined);
    return 0;
  }
  throw new UsageError(`unknown capture subcommand "${sub}"; subcommands: sanitize, check, convert`);
}
