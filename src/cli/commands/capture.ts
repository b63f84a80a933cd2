/**
 * `agentnorm capture …`: the file side of capture logs (src/capture/capture.ts, src/capture/replay.ts hold the logic).
 *   capture sanitize FILE [-o OUT]          capture → deterministic replay fixture
 *   capture check FILE                      validate every line (line number + field for each problem)
 *   capture convert --from SURFACE FILE     a recording ({seq, dir, channel?, message} lines) → capture envelopes
 */
import { readFileSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { SURFACES, SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { CAPTURE_STAGES, createCaptureWriter, formatCaptureError, readCapture, serializeRecords, type CaptureReadResult } from "../../capture/capture.js";
import type { RedactOptions } from "../../capture/redact.js";
import { convertRecording, sanitizeCapture } from "../../capture/replay.js";
import { parseArgs, UsageError, write } from "./util.js";

export const CAPTURE_USAGE = `capture subcommands:
  capture sanitize FILE [-o OUT] [--no-redact]
                        capture → deterministic fixture: drops timestamp and captureId, renumbers sequences,
                        canonical ids and UUIDs in order of first appearance, fixes createdAt, drops
                        normalized_out raw.payload (native_in holds it), redacts again; stdout unless -o
  capture check FILE    validate every line; problems as FILE:LINE: FIELD: message; exit 1 if any
  capture convert --from SURFACE FILE [-o OUT] [--sanitize]
                        a recording of {seq, dir, channel?, message} lines (fixtures/recorded/) → capture
                        envelopes (native_in + normalized_out, deterministic ids); --sanitize: a fixture
Redaction is on by default: <HOME>=$HOME, <PROJECT>=the current directory, <TMP>=the temp directory.`;

/** Directories the CLI redacts by default. */
export function cliRedactOptions(): RedactOptions {
  return { home: homedir(), project: process.cwd(), tmp: tmpdir() };
}

export function readCaptureFile(file: string): CaptureReadResult | { error: string } {
  try {
    return readCapture(readFileSync(file, "utf8"));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { error: `cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.message}` };
  }
}

async function output(text: string, out: string | undefined): Promise<void> {
  if (out && out !== "-") writeFileSync(out, text);
  else await write(text);
}

export async function capture(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log(CAPTURE_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub === "sanitize" || sub === "check") {
    const f = parseArgs(rest, { o: "value", out: "value", "no-redact": "bool", quiet: "bool" });
    if (f._.length !== 1) throw new UsageError(`capture ${sub} takes one FILE`);
    if (sub === "check" && (f.o || f.out || f["no-redact"])) throw new UsageError(`capture check takes no options`);
    const file = f._[0];
    const r = readCaptureFile(file);
    if ("error" in r) { console.error(`agentnorm: ${r.error}`); return 1; }
    for (const e of r.errors) console.error(formatCaptureError(file, e));
    if (sub === "check") {
      const by = Object.fromEntries(CAPTURE_STAGES.map((s) => [s, r.records.filter((x) => x.stage === s).length]));
      const reds = r.records.reduce((a, x) => a + x.redactions.length, 0);
      const kind = r.records.length && r.records.every((x) => !("captureId" in x)) ? "fixture" : "capture";
      console.error(`agentnorm: ${file}: ${kind}, ${r.records.length} of ${r.lines} line(s) valid (${CAPTURE_STAGES.map((s) => `${s} ${by[s]}`).join(", ")}), ${reds} redaction(s), ${r.errors.length} problem(s)`);
      return r.errors.length ? 1 : 0;
    }
    const fixture = sanitizeCapture(r.records, { redact: f["no-redact"] ? false : cliRedactOptions() });
    await output(serializeRecords(fixture), (f.o ?? f.out) as string | undefined);
    if (!f.quiet) console.error(`agentnorm: ${file}: ${fixture.length} record(s) sanitized${r.errors.length ? `; ${r.errors.length} bad line(s) skipped` : ""}`);
    return r.errors.length ? 1 : 0;
  }
  if (sub === "convert") {
    const f = parseArgs(rest, { from: "value", o: "value", out: "value", sanitize: "bool", "no-redact": "bool" });
    const surface = f.from as string | undefined;
    if (!surface || !Object.hasOwn(SURFACES, surface)) throw new UsageError(`capture convert needs --from SURFACE (one of: ${SURFACE_NAMES.join(", ")})`);
    if (f._.length !== 1) throw new UsageError(`capture convert takes one FILE`);
    let text: string;
    try {
      text = readFileSync(f._[0], "utf8");
    } catch (err) {
      console.error(`agentnorm: cannot read ${f._[0]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return 1;
    }
    const redact = f["no-redact"] ? false as const : cliRedactOptions();
    const writer = createCaptureWriter({ provider: SURFACES[surface].provider, source: surface, redact });
    let out = convertRecording(text, surface, writer);
    if (f.sanitize) out = serializeRecords(sanitizeCapture(readCapture(out).records, { redact }));
    await output(out, (f.o ?? f.out) as string | undefined);
    return 0;
  }
  throw new UsageError(`unknown capture subcommand "${sub}"; subcommands: sanitize, check, convert`);
}
