/** `agentnorm verify`: check a canonical NDJSON stream against the grammar (src/verify/verify.ts). */
import { SURFACE_NAMES } from "../../../generated/surfaces.gen.js";
import { createVerifier, formatFinding, VERIFY_RULES, type VerifyFinding } from "../../verify/verify.js";
import { finish, newTally, openSource } from "./source.js";
import { flushStdout, parseArgs, printHelp, stopExitCode, stopRequested, surfaceFlag, UsageError, warn, write } from "./util.js";

export const VERIFY_USAGE = `verify [FILE|-] [options]   (stdin when no FILE)
  --from SURFACE        the input is that surface's provider stream: normalize it, then verify the result;
                        default: detected (canonical NDJSON, a capture log, or one of: ${SURFACE_NAMES.join(", ")})
  --strict              also exit 1 when a line is malformed or unknown (not only on a violation)
  --json                the findings as NDJSON on stdout ({severity, rule, reason, sequence, eventId, type, line})
  --no-warnings         report violations only
  --quiet               no summary or FILE:LINE notes of unreadable lines on stderr
  --rules               list the rules and exit

Exit codes: 0 = no violation (warnings allowed), 1 = at least one violation (or unreadable input, or --strict).`;

export async function verify(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { from: "value", json: "bool", "no-warnings": "bool", quiet: "bool", rules: "bool", strict: "bool" });
  if (f.help) return printHelp(VERIFY_USAGE);
  if (f.rules) {
    const width = Math.max(...Object.keys(VERIFY_RULES).map((k) => k.length)) + 2;
    await write(Object.entries(VERIFY_RULES).map(([k, v]) => `${k.padEnd(width)}${v}`).join("\n") + "\n");
    return 0;
  }
  surfaceFlag(f);
  if (f._.length > 1) throw new UsageError(`verify takes one input (FILE or -), got: ${f._.join(" ")}`);
  const json = !!f.json;
  const warnings = !f["no-warnings"];
  const tally = newTally(!!f.quiet);
  const src = await openSource(f._[0], f, tally, { command: "verify", anyObject: true });
  const label = src.input.label;
  const v = createVerifier();
  let violations = 0;
  let warned = 0;
  const report = async (found: VerifyFinding[]) => {
    let out = "";
    for (const x of found) {
      if (x.severity === "violation") violations++;
      else { warned++; if (!warnings) continue; }
      if (json) out += JSON.stringify(x) + "\n";
      else warn(`${label}${x.line !== undefined ? `:${x.line}` : ""}: ${formatFinding(x)}`);
    }
    if (out) await write(out);
  };
  for await (const b of src.batches) {
    if (src.normalizer) {
      for (const e of b.events) await report(v.push(e, b.line || undefined));
      continue;
    }
    const value = b.value as any;
    if (value && typeof value === "object" && typeof value.malformed === "string" && Object.keys(value).length === 1) await report(v.malformed(b.line, value.malformed));
    else await report(v.push(value, b.line));
  }
  if (stopRequested()) {
    await flushStdout();
    warn(`agentnorm: ${label}: stopped by ${stopRequested()}`);
    return stopExitCode();
  }
  await report(v.end());
  if (!f.quiet) warn(`agentnorm: ${label}: ${v.count} event(s) verified; ${violations} violation(s), ${warned} warning(s)`);
  const strict = finish(tally, label, { ...f, quiet: true }, "verify", src.surface);
  return violations > 0 ? 1 : strict;
}
