/** Shared by test/recorded.test.ts and fixtures/record/expected.ts: list and replay the recorded fixtures. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { createNormalizer, type CanonicalEvent } from "../../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../../src/normalize/ids.js";

export interface RecordingRef { surface: string; scenario: string; agent: string; file: string; expectedFile: string; normalizable: boolean }

/** The live-stream file of every recording in fixtures/recorded/manifest.json. */
export function recordings(repo: string): RecordingRef[] {
  const manifestFile = join(repo, "fixtures/recorded/manifest.json");
  if (!existsSync(manifestFile)) return [];
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  return manifest.recordings.map((r: any) => {
    const live = r.files.find((f: any) => f.file.endsWith(`/${r.scenario}.ndjson`)) ?? r.files[0];
    return {
      surface: r.surface, scenario: r.scenario, agent: r.agent, file: live.file,
      expectedFile: live.file.replace(/\.ndjson$/, ".expected.ndjson"),
      normalizable: (SURFACE_NAMES as readonly string[]).includes(r.surface),
    };
  });
}

/** Replay one capture file ({seq, dir, channel?, message} lines) through a deterministic normalizer. */
export function replayRecording(file: string, surface: string, opts: { includeRaw?: boolean } = {}): { events: CanonicalEvent[]; lines: number } {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: opts.includeRaw ?? true });
  const events: CanonicalEvent[] = [];
  const text = readFileSync(file, "utf8").split("\n").filter((l) => l.trim());
  text.forEach((line, i) => events.push(...n.pushLine(line, { lineNumber: i + 1 })));
  events.push(...n.end());
  return { events, lines: text.length };
}
