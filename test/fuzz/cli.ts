/**
 * `npm run fuzz [-- --count N] [--seed S] [--surface NAME]`: the long fuzz run. Pushes about N inputs per surface
 * (default 100 000) in sequences of up to 12 messages, and prints per surface the inputs it ran, events, escapes,
 * invalid outputs, unaccounted inputs and stream-verifier violations. Exit 1 when any escape, invalid output or
 * unaccounted input (violations are reported; known ones are listed in test/fuzz.test.ts).
 */
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { fuzzSurface, type FuzzReport } from "./fuzz.js";

const USAGE = "usage: npm run fuzz -- [--count N] [--seed S] [--surface NAME]";
const args = process.argv.slice(2);
/** A usage error: one line (no stack trace), exit 2. */
function usage(why: string): never {
  console.error(`agentnorm fuzz: ${why}\n${USAGE}`);
  process.exit(2);
}
const KNOWN = new Set(["--count", "--seed", "--surface"]);
for (let i = 0; i < args.length; i += 2) {
  if (args[i] === "--help" || args[i] === "-h") { console.log(USAGE); process.exit(0); }
  if (!KNOWN.has(args[i])) usage(`unknown option ${args[i]}`);
  if (args[i + 1] === undefined) usage(`option ${args[i]} needs a value`);
}
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const int = (name: string, dflt: number, min: number): number => {
  const v = opt(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min) usage(`${name} must be an integer ≥ ${min} (got "${v}")`);
  return n;
};
const count = int("--count", 100_000, 1);
const seed = int("--seed", Date.now() % 2 ** 31, 0);
const only = opt("--surface");
if (only !== undefined && !(SURFACE_NAMES as readonly string[]).includes(only)) usage(`unknown surface "${only}"; valid surfaces: ${SURFACE_NAMES.join(", ")}`);
const surfaces = only ? [only] : [...SURFACE_NAMES];
const CHUNK = 2_000; // sequences per fast-check call (each call a derived seed), so progress shows

let bad = 0;
const rows: FuzzReport[] = [];
for (const surface of surfaces) {
  const t0 = Date.now();
  const total: FuzzReport = { surface, runs: 0, inputs: 0, events: 0, escapes: [], invalid: [], unaccounted: [], violations: [], origins: {} };
  for (let chunk = 0; total.inputs < count; chunk++) {
    const r = fuzzSurface(surface, { runs: Math.max(1, Math.min(CHUNK, Math.ceil((count - total.inputs) / 6))), seed: seed + chunk });
    total.runs += r.runs;
    total.inputs += r.inputs;
    total.events += r.events;
    for (const k of ["escapes", "invalid", "unaccounted", "violations"] as const) total[k].push(...r[k].slice(0, 20 - total[k].length));
    for (const [o, n] of Object.entries(r.origins)) total.origins[o] = (total.origins[o] ?? 0) + n;
    process.stderr.write(`\r${surface}: ${total.inputs.toLocaleString("en")} inputs…`);
  }
  process.stderr.write("\n");
  rows.push(total);
  const line = { surface, seed, inputs: total.inputs, sequences: total.runs, events: total.events, escapes: total.escapes.length, invalid: total.invalid.length, unaccounted: total.unaccounted.length, violations: total.violations.length, seconds: Math.round((Date.now() - t0) / 1000), origins: total.origins };
  console.log(JSON.stringify(line));
  for (const k of ["escapes", "invalid", "unaccounted", "violations"] as const) for (const x of total[k].slice(0, 5)) console.error(`  ${k}: ${x.slice(0, 400)}`);
  if (total.escapes.length || total.invalid.length || total.unaccounted.length) bad++;
}
console.error(`fuzz: ${rows.map((r) => `${r.surface} ${r.inputs.toLocaleString("en")}`).join(", ")} inputs; ${bad ? `${bad} surface(s) with escapes, invalid outputs or unaccounted inputs` : "0 escapes, 0 invalid outputs, 0 unaccounted inputs"}`);
process.exitCode = bad ? 1 : 0;
