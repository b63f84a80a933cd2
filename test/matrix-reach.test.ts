/**
 * The compatibility matrix counts what a surface really emits: its rows' own events and those of the rows its
 * dispatch steps reach (another table's, or its own). Checked against what the committed fixtures (and the dev
 * recordings, when present) actually produce through each surface: every event type a row produced is in the
 * surface's matrix column.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPATIBILITY } from "./support/compatibility.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";

const ROOT = join(import.meta.dirname, "..");
const DEV = join(ROOT, "../shared/recordings/dev");
const files = (dir: string, re: RegExp): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f)) : []);

/** surface → input files whose events it must account for. */
const INPUTS: Record<string, string[]> = {
  "codex-app-server": [...files(join(ROOT, "fixtures/codex-app-server"), /\.ndjson$/), ...files(join(ROOT, "fixtures/recorded/codex-app-server"), /^[a-z-]+\.ndjson$/)],
  "codex-exec": files(join(ROOT, "fixtures/recorded/codex-exec"), /^[a-z-]+\.ndjson$/),
  "codex-rollout": [...files(join(ROOT, "fixtures/recorded/codex-exec"), /\.rollout\.ndjson$/), ...files(join(DEV, "codex-rollout"), /\.jsonl$/)],
  "codex-eventmsg": files(join(DEV, "codex-eventmsg"), /\.jsonl$/),
  "claude-sdk": files(join(ROOT, "fixtures/recorded/claude-sdk"), /^[a-z-]+\.ndjson$/),
  "claude-transcript": [...files(join(ROOT, "fixtures/recorded/claude-sdk"), /\.transcript\.ndjson$/), ...files(join(DEV, "claude-transcript"), /\.jsonl$/)],
  "claude-permission": files(join(ROOT, "fixtures/claude-permission"), /\.ndjson$/),
  acp: files(join(ROOT, "fixtures/recorded/acp"), /\.ndjson$/).filter((f) => !f.includes(".expected.")),
  "cursor-cli": files(join(DEV, "cursor"), /\.jsonl$/),
  "cursor-sdk": ["", "deltas", "conversation", "mixed"].flatMap((d) => files(join(ROOT, "fixtures/cursor-sdk", d), /\.jsonl$/)),
  opencode: files(join(ROOT, "fixtures/recorded/opencode"), /^[a-z-]+\.ndjson$/),
  "opencode-history": files(join(ROOT, "fixtures/recorded/opencode"), /\.messages\.ndjson$/),
  "opencode-run": files(join(DEV, "opencode"), /opencode-run/),
};

function produced(surface: string, file: string): CanonicalEvent[] {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  const out: CanonicalEvent[] = [];
  readFileSync(file, "utf8").split("\n").forEach((l, i) => { if (l.trim()) out.push(...n.pushLine(l, { lineNumber: i + 1 })); });
  return out;
}

describe("compatibility matrix: each surface's column holds what its fixtures produce", () => {
  for (const [surface, inputs] of Object.entries(INPUTS)) {
    const column = new Set(Object.keys((COMPATIBILITY.surfaces as any)[surface].events));
    if (!inputs.length) {
      // only dev recordings exercise this surface, and ../shared/recordings/dev is not beside the repository
      console.warn(`[matrix] ${surface}: no fixture in the repository and no dev recordings at ${DEV}: skipped`);
      it.skip(`${surface} (no input files: ${DEV} is absent)`, () => {});
      continue;
    }
    it(`${surface} (${inputs.length} input file(s))`, () => {
      const seen = new Set<string>();
      for (const f of inputs) {
        for (const e of produced(surface, f)) {
          // events a table row produced (the runtime's own — implicit starts, late/unknown warnings — are not rows')
          if (e.raw?.rule?.startsWith("agentnorm#")) continue;
          seen.add(e.type);
        }
      }
      expect([...seen].filter((t) => !column.has(t)).sort(), `${surface}: produced but not in its matrix column`).toEqual([]);
      expect(seen.size).toBeGreaterThan(0);
    });
  }

  it("surfaces whose rows reach other tables through dispatch show those tables' events", () => {
    const col = (s: string) => Object.keys((COMPATIBILITY.surfaces as any)[s].events);
    expect(col("claude-permission")).toEqual(expect.arrayContaining(["request.opened", "request.resolved"]));
    expect(col("claude-transcript")).toEqual(expect.arrayContaining(["item.started", "item.completed", "content.delta"]));
    expect(col("opencode-history")).toEqual(expect.arrayContaining(["item.started", "item.completed", "content.delta"]));
    expect(col("opencode-run")).toEqual(expect.arrayContaining(["turn.started", "item.started", "item.completed", "content.delta"]));
  });
});
