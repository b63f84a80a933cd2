/**
 * One hash over the canonical output of every input we hold: each fixture (fixtures/**) and each dev recording
 * (/work/shared/recordings/dev/** or AGENTNORM_RECORDINGS, when present; never the acceptance set) normalized by
 * every surface, with deterministic ids and clock. A refactor of the generator or the runtime must leave it
 * unchanged (byte-identical output).
 *
 *   npx tsx bench/output-hash.ts [--out per-file.txt] [--only <surface>]
 *
 * Prints the sha256 over all outputs (in a fixed order); --out writes one line per input × surface
 * (`<sha256> <surface> <path>`) to diff when the total changes. Each output is the events of every line
 * (pushLine, as the CLI reads) and of end(), serialized by serializeEvent and by JSON.stringify (both must stay
 * identical), then the normalizer's outcome counts. A file whose text is one JSON array is also pushed element
 * by element (the in-memory path).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createNormalizer, serializeEvent, type Normalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";

const root = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const outFile = args.includes("--out") ? args[args.indexOf("--out") + 1] : undefined;
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const recordings = process.env.AGENTNORM_RECORDINGS ?? "/work/shared/recordings/dev";

const INPUT = /\.(ndjson|jsonl|json|txt)$/;
function walk(dir: string, acc: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const s = statSync(p);
    if (s.isDirectory()) {
      if (name === "node_modules" || p.includes("/acceptance")) continue;
      walk(p, acc);
    } else if (INPUT.test(name) && s.size > 0) acc.push(p);
  }
  return acc;
}

const files = walk(join(root, "fixtures"), []);
if (existsSync(recordings) && !recordings.includes("acceptance")) walk(recordings, files);

function make(surface: string): Normalizer {
  return createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
}

function run(surface: string, text: string): string {
  const parts: string[] = [];
  const n = make(surface);
  const take = (events: readonly unknown[]) => {
    for (const e of events) {
      const a = serializeEvent(e as never);
      const b = JSON.stringify(e);
      parts.push(a === b ? a : `${a}\n!stringify ${b}`);
    }
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) take(n.pushLine(lines[i], { lineNumber: i + 1 }));
  take(n.end());
  parts.push(JSON.stringify(n.stats().outcomes));
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    if (Array.isArray(doc)) {
      const m = make(surface);
      parts.push("#array");
      for (const msg of doc) take(m.push(msg));
      take(m.end());
      parts.push(JSON.stringify(m.stats().outcomes));
    }
  }
  return parts.join("\n");
}

const total = createHash("sha256");
const rows: string[] = [];
const started = performance.now();
let runs = 0;
for (const f of files) {
  const text = readFileSync(f, "utf8");
  const name = f.startsWith(root) ? relative(root, f) : f;
  for (const surface of SURFACE_NAMES) {
    if (only && surface !== only) continue;
    const out = run(surface, text);
    const h = createHash("sha256").update(out).digest("hex");
    total.update(`${surface} ${name} ${h}\n`);
    rows.push(`${h} ${surface} ${name}`);
    runs++;
  }
}
if (outFile) writeFileSync(outFile, rows.join("\n") + "\n");
console.log(`${total.digest("hex")}  (${files.length} files × ${only ? 1 : SURFACE_NAMES.length} surfaces = ${runs} runs, ${((performance.now() - started) / 1000).toFixed(1)} s)`);
