/**
 * `npm run bench` (also alone: `node dist/bench/view-large.js [--turns N] [--heap MB]`): `agentnorm view` on a
 * stream larger than its page cap — a generated Codex app-server stream of N turns (an answer in deltas and a
 * command each) — in a child process with a bounded heap. Measures the time, the child's peak RSS, the page's size
 * and the turns it shows, and writes them to bench/results/view.json, the file the README's "Large streams" figures
 * are checked against (test/figures.test.ts).
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexLines } from "./codex-stream.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : dflt; };
const TURNS = opt("--turns", 10_000);
const HEAP_MB = opt("--heap", 128);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "dist/pkg/cli.js");
const MB = 1024 * 1024;

async function writeStream(file: string): Promise<{ bytes: number; lines: number }> {
  const w = createWriteStream(file);
  let bytes = 0, lines = 0;
  for (const l of codexLines(TURNS, 1100)) {
    bytes += Buffer.byteLength(l) + 1;
    lines++;
    if (!w.write(l + "\n")) await new Promise<void>((r) => w.once("drain", () => r()));
  }
  await new Promise<void>((r, j) => w.end((e?: Error | null) => (e ? j(e) : r())));
  return { bytes, lines };
}

const dir = mkdtempSync(join(tmpdir(), "agentnorm-view-bench-"));
try {
  const input = join(dir, "codex.ndjson");
  const page = join(dir, "page.html");
  const rssFile = join(dir, "rss");
  const preload = join(dir, "rss.mjs");
  // the child reports its own peak RSS as it exits
  writeFileSync(preload, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);
  const { bytes, lines } = await writeStream(input);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, "--import", preload, CLI, "view", input, "--from", "codex-app-server", "-o", page], { encoding: "utf8", maxBuffer: 16 * MB });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    process.stderr.write(`view-large: agentnorm view exited ${r.status}: ${r.stderr.slice(-500)}\n`);
    process.exit(1);
  }
  const shown = /the last ([\d,]+) of ([\d,]+) turn/.exec(r.stderr);
  const result = {
    node: process.version,
    input: { mb: +(bytes / MB).toFixed(1), lines, turns: TURNS },
    capMb: 16,
    heapLimitMb: HEAP_MB,
    seconds: +seconds.toFixed(1),
    peakRssMb: Math.round(Number(readFileSync(rssFile, "utf8")) / 1024),
    pageMb: +(statSync(page).size / MB).toFixed(1),
    turnsShown: shown ? Number(shown[1]!.replace(/,/g, "")) : TURNS,
  };
  writeFileSync(join(ROOT, "bench/results/view.json"), JSON.stringify(result, null, 2) + "\n");
  console.log(`view, large stream: ${result.input.mb} MB (${lines.toLocaleString("en")} lines, ${TURNS.toLocaleString("en")} turns), cap ${result.capMb} MB, heap ${HEAP_MB} MB: ${result.seconds} s, peak RSS ${result.peakRssMb} MB, page ${result.pageMb} MB (the last ${result.turnsShown.toLocaleString("en")} turns) → bench/results/view.json`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
