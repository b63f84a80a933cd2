/**
 * openSession streams from disk: memory stays flat in the file's size. A synthetic Codex rollout of 100 MB (and one
 * of 10 MB) is opened in a process of its own with --expose-gc (bench/sessions-memory.ts: a full GC and a heap
 * sample every 2,000 events); its peak heap growth must stay under 20 MB — a reader holding the file, its lines or
 * its events would grow by about the file's size. Not timed: the time is the bench's (`npm run bench`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

describe("openSession: memory flat in the file's size", () => {
  it("a 100 MB rollout grows the heap by less than 20 MB, as little as a 10 MB one", () => {
    const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(ROOT, "bench/sessions-memory.ts"), "--mb", "10", "--mb", "100"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 20 });
    expect(r.status, r.stderr).toBe(0);
    const [small, large] = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { bytes: number; events: number; turns: number; peakGrowthMb: number });
    expect(large!.bytes).toBeGreaterThanOrEqual(100 * 1024 * 1024);
    // every turn was read: ~14 canonical events per repeated turn
    expect(large!.events).toBeGreaterThan(large!.turns * 10);
    expect(large!.peakGrowthMb).toBeLessThan(20);
    // flat: ten times the file, not ten times the memory (a few MB of slack for GC noise)
    expect(large!.peakGrowthMb).toBeLessThan(small!.peakGrowthMb + 5);
  }, 300_000);
});
