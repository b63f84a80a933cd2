/**
 * `agentnorm replay FIXTURE`: replay a sanitized capture and compare with what it recorded.
 *   native_in (default when present) → the normalizer → compared with the fixture's normalized_out;
 *   normalized_out → the accumulator hook (src/render/render-hooks.ts) → compared with FIXTURE's .snapshot.json.
 * Exit 0 = matches (or --update wrote it), 1 = mismatch (a diff on stdout) or unreadable input, 2 = usage.
 */
import { readFileSync } from "node:fs";
import { formatCaptureError, serializeRecords, type FixtureRecord } from "../../capture/capture.js";
import { replayFixture, type ReplayMode } from "../../capture/replay.js";
import { readCaptureFile } from "./capture.js";
import { CliError, parseArgs, printHelp, reason, surfaceFlag, UsageError, warn, write, writeOutput } from "./util.js";

export const REPLAY_USAGE = `replay FIXTURE [options]
  --update              rewrite the expectation (native_in: the fixture's normalized_out; normalized_out: the snapshot)
  --from SURFACE        surface for native_in (default: the records' source)
  --stage native_in|normalized_out
                        what to replay (default: native_in when the fixture has any)
  --expected FILE       normalized_out: the expected snapshot (default: FIXTURE with .snapshot.json)
  --quiet               no notes on stderr`;

export function snapshotPath(fixture: string): string {
  return fixture.replace(/(\.fixture)?\.ndjson$/, "") + ".snapshot.json";
}

export async function replay(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { update: "bool", from: "value", stage: "value", expected: "value", quiet: "bool" });
  if (f.help) return printHelp(REPLAY_USAGE);
  surfaceFlag(f);
  if (f._.length !== 1) throw new UsageError(`replay takes one FIXTURE file`);
  const stage = f.stage as string | undefined;
  if (stage !== undefined && stage !== "native_in" && stage !== "normalized_out") throw new UsageError(`--stage must be native_in or normalized_out`);
  const file = f._[0];
  const r = await readCaptureFile(file, "replay");
  if (r.errors.length) {
    for (const e of r.errors.slice(0, 50)) warn(formatCaptureError(file, e));
    throw new CliError(file, `${r.errors.length} problem(s); fix the fixture (or re-run capture sanitize) before replaying`);
  }
  if (!r.records.length) throw new CliError(file, "no records");
  const records = r.records as FixtureRecord[];
  const mode = stage as ReplayMode | undefined;
  const snapFile = (f.expected as string | undefined) ?? snapshotPath(file);
  let expectedSnapshot: unknown;
  const wantsSnapshot = (mode ?? (records.some((x) => x.stage === "native_in") ? "native_in" : "normalized_out")) === "normalized_out";
  if (wantsSnapshot) {
    try {
      expectedSnapshot = JSON.parse(readFileSync(snapFile, "utf8"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new CliError(snapFile, err instanceof SyntaxError ? `not JSON (${err.message})` : `cannot read: ${reason(err)}`);
    }
  }
  const res = replayFixture(records, { mode, surface: f.from as string | undefined, expectedSnapshot, update: !!f.update });
  for (const n of res.notes) if (!f.quiet) warn(`agentnorm: note: ${n}`);
  if (f.update) {
    if (res.mode === "native_in") {
      if (!res.updatedFixture) { warn(res.diff.trimEnd()); return 1; }
      const text = serializeRecords(res.updatedFixture);
      const old = readFileSync(file, "utf8");
      if (old !== text) await writeOutput(text, file);
      warn(`agentnorm: ${file}: ${old !== text ? "updated" : "unchanged"} (${res.compared})`);
    } else {
      const text = JSON.stringify(res.snapshot, null, 2) + "\n";
      let old = "";
      try { old = readFileSync(snapFile, "utf8"); } catch { /* new */ }
      if (old !== text) await writeOutput(text, snapFile);
      warn(`agentnorm: ${snapFile}: ${old !== text ? "updated" : "unchanged"} (${res.compared})`);
    }
    return 0;
  }
  if (res.ok) {
    if (!f.quiet) warn(`agentnorm: ${file}: replay matches (${res.mode}${res.surface ? ` via ${res.surface}` : ""}: ${res.compared})`);
    return 0;
  }
  await write(res.diff);
  warn(`agentnorm: ${file}: replay differs from the fixture (${res.mode}${res.surface ? ` via ${res.surface}` : ""}: ${res.compared}); review, then --update`);
  return 1;
}
