/**
 * `npm run bench`: normalize throughput on a synthetic Codex app-server stream of ≥ 1M lines, built from
 * the bundled fixtures with fresh ids per copy, reported as a ratio to a floor measured in the same run:
 * JSON.parse of each line + JSON.stringify of as many objects as the normalizer emits (no mapping).
 * ratio = floor time / normalizer time (1.0 = as fast as parsing and printing alone). Target ≥ 0.5.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createNormalizer } from "../src/normalizer.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);
const target = Number(args[args.indexOf("--lines") + 1]) || 1_000_000;
const rounds = Number(args[args.indexOf("--rounds") + 1]) || 3;

const templates = ["approval-session.ndjson", "error-and-interrupt.ndjson"].map((f) =>
  readFileSync(`${root}fixtures/codex-app-server/${f}`, "utf8").split("\n").filter((l) => l.trim()),
);
// Provider ids look like UUIDs or call_/msg_/rs_ ids: give every copy its own by suffixing them.
const ID = /"(019[0-9a-f-]{20,}|01a2[0-9a-f-]{20,}|call_[A-Za-z0-9_]+|msg_[A-Za-z0-9_]+|rs_[A-Za-z0-9_]+)"/g;
const lines: string[] = [];
for (let copy = 0; lines.length < target; copy++) {
  for (const l of templates[copy % templates.length]) lines.push(l.replace(ID, (_, id) => `"${id}-${copy}"`));
}
process.stderr.write(`bench: ${lines.length.toLocaleString("en")} lines, ${(lines.reduce((a, l) => a + l.length, 0) / 1e6).toFixed(0)} MB\n`);

function runNormalizer(): { ms: number; events: number; outBytes: number; counts: Uint8Array } {
  const counts = new Uint8Array(lines.length);
  const t0 = performance.now();
  const n = createNormalizer({ surface: "codex-app-server" });
  let events = 0;
  let outBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const out = n.pushLine(lines[i]);
    counts[i] = out.length;
    events += out.length;
    for (let j = 0; j < out.length; j++) outBytes += JSON.stringify(out[j]).length;
  }
  events += n.end().length;
  return { ms: performance.now() - t0, events, outBytes, counts };
}

function runFloor(counts: Uint8Array): { ms: number; outBytes: number } {
  const t0 = performance.now();
  let outBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const o = JSON.parse(lines[i]);
    for (let j = 0; j < counts[i]; j++) outBytes += JSON.stringify(o).length;
  }
  return { ms: performance.now() - t0, outBytes };
}

const results: { norm: number; floor: number }[] = [];
let last: ReturnType<typeof runNormalizer> | undefined;
for (let r = 0; r < rounds; r++) {
  last = runNormalizer();
  const floor = runFloor(last.counts);
  results.push({ norm: last.ms, floor: floor.ms });
  process.stderr.write(`round ${r + 1}: normalizer ${last.ms.toFixed(0)} ms, floor ${floor.ms.toFixed(0)} ms, ratio ${(floor.ms / last.ms).toFixed(2)}\n`);
}
const best = (k: "norm" | "floor") => Math.min(...results.map((x) => x[k]));
const ratio = best("floor") / best("norm");
const summary = {
  lines: lines.length,
  events: last!.events,
  normalizerMs: Math.round(best("norm")),
  floorMs: Math.round(best("floor")),
  linesPerSecond: Math.round(lines.length / (best("norm") / 1000)),
  eventsPerSecond: Math.round(last!.events / (best("norm") / 1000)),
  ratio: Number(ratio.toFixed(3)),
  target: 0.5,
  pass: ratio >= 0.5,
};
console.log(JSON.stringify(summary));
