/**
 * Memory of openSession against the size of the session file: a synthetic Codex rollout of N MB (the recorded
 * rollout of fixtures/sessions/codex, its second turn repeated with fresh turn, item and message ids), written into a
 * temporary CODEX_HOME, listed and opened; every 2,000 canonical events a full GC and a sample of the heap. The
 * figure is the peak heap growth over the heap before the open (after a GC), against the file's size.
 *
 * Run in a process of its own with --expose-gc: `node --expose-gc dist/bench/sessions-memory.js --mb 100 [--mb 10]`
 * (or from source: `node --expose-gc --import tsx bench/sessions-memory.ts …`)
 * prints one JSON line per size: { mb, bytes, events, turns, baseMb, peakGrowthMb } (and a line for people on stderr;
 * exit status 1 when the growth reaches TARGET_MB).
 * Used by `npm run bench` (sessions.bench.ts) and test/sessions-memory.test.ts.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listSessions } from "../src/sessions/list.js";
import { openSession } from "../src/sessions/open.js";

// the repository: bench/ run from source (tsx), or dist/bench/ built
const here = dirname(fileURLToPath(import.meta.url));
const root = existsSync(join(here, "../fixtures")) ? join(here, "..") : join(here, "../..");
const SOURCE = join(root, "fixtures/sessions/codex/home/.codex/sessions/2026/01/01/rollout-2026-01-01T01-00-00-00000000-0000-7000-8000-0000000003ea.jsonl");
const THREAD = "00000000-0000-7000-8000-0000000003ea";

/** Heap growth allowed for any file size (the test's bound too). */
export const TARGET_MB = 20;

export interface MemoryRow { mb: number; bytes: number; events: number; turns: number; baseMb: number; peakGrowthMb: number }

/** A rollout of at least `mb` MB: the recording's first line (session_meta), then its second turn repeated with fresh ids. */
export function writeRollout(file: string, mb: number): { bytes: number; turns: number } {
  const lines = readFileSync(SOURCE, "utf8").split("\n").filter((l) => l !== "");
  const head = lines[0]! + "\n";
  // the second turn: from its thread_settings_applied to its task_complete (lines 15–26)
  const turn = lines.slice(14).join("\n") + "\n";
  const fd = openSync(file, "w");
  let bytes = 0, turns = 0;
  try {
    bytes += writeSync(fd, head);
    while (bytes < mb * 1024 * 1024) {
      const c = (++turns).toString(16).padStart(10, "0");
      const copy = turn
        .replace(/00000000-0000-7000-8000-0000000003([0-9a-f]{2})/g, (m, x) => (m === THREAD ? m : `00000000-0000-7000-8001-${c}${x}`))
        .replace(/"((?:msg|rs)_[0-9_]+)"/g, `"$1_c${c}"`);
      bytes += writeSync(fd, copy);
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, turns };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Open a synthetic rollout of `mb` MB and measure the heap (needs --expose-gc). */
export async function measure(mb: number): Promise<MemoryRow> {
  if (!gc) throw new Error("sessions-memory: run with node --expose-gc");
  const dir = mkdtempSync(join(tmpdir(), "agentnorm-sessions-memory-"));
  try {
    const codexHome = join(dir, ".codex");
    const folder = join(codexHome, "sessions/2026/01/01");
    mkdirSync(folder, { recursive: true });
    const { bytes, turns } = writeRollout(join(folder, `rollout-2026-01-01T01-00-00-${THREAD}.jsonl`), mb);
    const env = { HOME: dir, CODEX_HOME: codexHome };
    const [s] = await listSessions({ env, agents: ["codex"] });
    if (!s || s.problem) throw new Error(`sessions-memory: the synthetic rollout is not listed (${s?.problem ?? "no session"})`);
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = base, events = 0;
    for await (const e of openSession(s, { env })) {
      if (e.type === "runtime.warning" || e.type === "runtime.error") throw new Error(`sessions-memory: ${e.type}: ${JSON.stringify(e.payload)}`);
      if (++events % 2000 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    const MB = 1024 * 1024;
    return { mb, bytes, events, turns, baseMb: +(base / MB).toFixed(1), peakGrowthMb: +((peak - base) / MB).toFixed(2) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const sizes = args.flatMap((a, i) => (a === "--mb" ? [Number(args[i + 1])] : []));
  let pass = true;
  for (const mb of sizes.length ? sizes : [100]) {
    const row = await measure(mb);
    const ok = row.peakGrowthMb < TARGET_MB;
    pass &&= ok;
    process.stderr.write(`sessions: openSession of a ${row.mb} MB Codex rollout (${row.events.toLocaleString("en")} events): peak heap growth ${row.peakGrowthMb} MB over ${row.baseMb} MB (target < ${TARGET_MB} MB: ${ok ? "pass" : "FAIL"})\n`);
    console.log(JSON.stringify(row));
  }
  process.exitCode = pass ? 0 : 1;
}
