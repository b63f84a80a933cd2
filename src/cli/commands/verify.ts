/** `agentnorm verify`: check a canonical NDJSON stream against the grammar (src/verify/verify.ts). */
import { createVerifier, formatFinding, VERIFY_RULES, type VerifyFinding } from "../../verify/verify.js";
import { flushStdout, parseArgs, readLines, stopExitCode, stopRequested, UsageError, write } from "./util.js";

export const VERIFY_USAGE = `verify options:
  --json                the findings as NDJSON on stdout ({severity, rule, reason, sequence, eventId, type, line})
  --no-warnings         report violations only
  --quiet               no summary on stderr
  --rules               list the rules and exit

Exit codes: 0 = no violation (warnings allowed), 1 = at least one violation (or unreadable input).`;

export async function verify(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { json: "bool", "no-warnings": "bool", quiet: "bool", rules: "bool", help: "bool", h: "bool" });
  if (f.help || f.h) { console.log(VERIFY_USAGE); return 0; }
  if (f.rules) {
    const width = Math.max(...Object.keys(VERIFY_RULES).map((k) => k.length)) + 2;
    await write(Object.entries(VERIFY_RULES).map(([k, v]) => `${k.padEnd(width)}${v}`).join("\n") + "\n");
    return 0;
  }
  if (f._.length > 1) throw new UsageError(`verify takes one input (FILE or -), got: ${f._.join(" ")}`);
  const file = f._[0];
  const label = !file || file === "-" ? "<stdin>" : file;
  const json = !!f.json;
  const warnings = !f["no-warnings"];
  const v = createVerifier();
  let violations = 0;
  let warned = 0;
  let lineNo = 0;
  const report = async (found: VerifyFinding[]) => {
    let out = "";
    for (const x of found) {
      if (x.severity === "violation") violations++;
      else { warned++; if (!warnings) continue; }
      if (json) out += JSON.stringify(x) + "\n";
      else process.stderr.write(`${label}: ${formatFinding(x)}\n`);
    }
    if (out) await write(out);
  };
  try {
    for await (const line of readLines(file)) {
      lineNo++;
      const text = line.trim();
      if (text === "") continue;
      let event: unknown;
      try {
        event = JSON.parse(text);
      } catch (err) {
        await report(v.malformed(lineNo, `not valid JSON (${(err as Error).message})`));
        continue;
      }
      await report(v.push(event, lineNo));
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(`agentnorm: cannot read ${label}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "is a directory" : e.code === "EACCES" ? "permission denied" : e.message}`);
    return 1;
  }
  if (stopRequested()) {
    await flushStdout();
    console.error(`agentnorm: ${label}: stopped by ${stopRequested()} after line ${lineNo}`);
    return stopExitCode();
  }
  await report(v.end());
  if (!f.quiet) console.error(`agentnorm: ${label}: ${v.count} event(s) verified; ${violations} violation(s), ${warned} warning(s)`);
  return violations > 0 ? 1 : 0;
}
