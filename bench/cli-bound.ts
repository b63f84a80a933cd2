/**
 * `npx tsx bench/cli-bound.ts [surface…] [--lines N]`: for the CLI row of `bench --peers` (NDJSON in → NDJSON out
 * against JSON.parse + JSON.stringify of the same lines), what writing agentnorm's output alone costs: JSON.parse of
 * every line plus serializeEvent of the events made for it beforehand (untimed), as if the mapping cost nothing.
 * Prints, per surface, the floor, that bound and the whole job (each ÷ the floor), and the output's bytes over the
 * input's: where the bound alone is past a target, no mapping reaches it with this output. Then the whole job as
 * `agentnorm normalize --no-raw` does it (no raw.payload), and its bytes. Median of five rounds; a
 * tool, not a figure.
 */
import { fileURLToPath } from "node:url";
import { createNormalizer, serializeEvent } from "../src/normalize/normalizer.js";
import { shareRawPayloads } from "../src/normalize/raw-stream.js";
import { corpusFiles, expand, loadCorpus } from "./corpus.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf("--lines");
const lines = at >= 0 ? Number(args[at + 1]) : 50_000;
const named = args.filter((a, i) => !a.startsWith("--") && (at < 0 || i !== at + 1));
const surfaces = named.length ? named : Object.keys(corpusFiles(root));

for (const surface of surfaces) {
  const c = loadCorpus(root, surface);
  if (!c) { process.stderr.write(`${surface}: no recording — skipped\n`); continue; }
  const input = expand(c, lines);
  const made = createNormalizer({ surface });
  const events = input.map((l, i) => shareRawPayloads(made.pushLine(l, { lineNumber: i + 1 })));
  const rounds: number[][] = [];
  for (let r = 0; r < 5; r++) {
    let t = performance.now();
    let floorOut = "";
    for (const l of input) if (l.trim()) floorOut += JSON.stringify(JSON.parse(l)) + "\n";
    const floor = performance.now() - t;
    t = performance.now();
    let boundOut = "";
    for (let i = 0; i < input.length; i++) {
      if (input[i].trim()) JSON.parse(input[i]);
      for (const e of events[i]) boundOut += serializeEvent(e) + "\n";
    }
    const bound = performance.now() - t;
    t = performance.now();
    const n = createNormalizer({ surface });
    let k = 0;
    let out = "";
    for (const l of input) for (const e of shareRawPayloads(n.pushLine(l, { lineNumber: ++k }))) out += serializeEvent(e) + "\n";
    const whole = performance.now() - t;
    // the same job as `agentnorm normalize --no-raw` (raw.source/method/rule stay, no raw.payload)
    t = performance.now();
    const lean = createNormalizer({ surface, includeRaw: false });
    k = 0;
    let leanOut = "";
    for (const l of input) for (const e of lean.pushLine(l, { lineNumber: ++k })) leanOut += serializeEvent(e) + "\n";
    const noRaw = performance.now() - t;
    rounds.push([floor, bound, whole, floorOut.length, boundOut.length, out.length, noRaw, leanOut.length]);
  }
  const med = (i: number) => rounds.map((r) => r[i]).sort((a, b) => a - b)[2];
  const f = med(0);
  process.stdout.write(`${surface.padEnd(18)} floor ${f.toFixed(0).padStart(5)} ms   output alone ${(med(1) / f).toFixed(2).padStart(5)}×   whole job ${(med(2) / f).toFixed(2).padStart(5)}×   output bytes ÷ input bytes ${(med(5) / med(3)).toFixed(1)}   --no-raw: whole job ${(med(6) / f).toFixed(2).padStart(5)}×, bytes ${(med(7) / med(3)).toFixed(1)}\n`);
}
