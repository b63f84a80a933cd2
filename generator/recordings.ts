/**
 * The recorded agent versions for the compatibility matrix: per agent and version the recorders drove
 * (fixtures/recorded/manifest.json), how many sessions were recorded and what their committed expected outputs hold —
 * canonical events, runtime.warnings, and per canonical event type the sessions that produce it. Reads only committed
 * fixtures (the manifest and each recording's `.expected.ndjson`), so codegen stays reproducible.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Compatibility } from "../src/model/matrix.ts";

type Recorded = NonNullable<Compatibility["recorded"]>;

interface ManifestEntry { agent: string; surface: string; scenario: string; agentVersion?: string; files: { file: string }[] }

export const RECORDINGS_MANIFEST = "fixtures/recorded/manifest.json";

/** The recorded agent versions, or undefined when the manifest is absent (a package built without fixtures). */
export function recordedAgents(root: string): Recorded | undefined {
  const manifestFile = join(root, RECORDINGS_MANIFEST);
  if (!existsSync(manifestFile)) return undefined;
  const entries = (JSON.parse(readFileSync(manifestFile, "utf8")) as { recordings: ManifestEntry[] }).recordings;
  const agents = new Map<string, Recorded["agents"][number]>();
  const events: Recorded["events"] = {};
  for (const e of entries) {
    const key = `${e.agent}@${e.agentVersion ?? "?"}`;
    const a = agents.get(key) ?? { key, agent: e.agent, version: e.agentVersion ?? "?", surface: e.surface, sessions: 0, events: 0, warnings: 0 };
    agents.set(key, a);
    // the session's live stream: the first of its files with an expected output (loads, transcripts and wire files have none)
    const expected = e.files.map((f) => f.file.replace(/\.ndjson$/, ".expected.ndjson")).find((f) => existsSync(join(root, f)));
    if (!expected) continue;
    a.sessions++;
    const types = new Set<string>();
    for (const line of readFileSync(join(root, expected), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const type = (JSON.parse(line) as { type: string }).type;
      a.events++;
      if (type === "runtime.warning") a.warnings++;
      types.add(type);
    }
    for (const t of types) (events[t] ??= {})[key] = (events[t][key] ?? 0) + 1;
  }
  const list = [...agents.values()].sort((x, y) => x.agent.localeCompare(y.agent) || x.version.localeCompare(y.version, undefined, { numeric: true }));
  const sortedEvents: Recorded["events"] = {};
  for (const t of Object.keys(events).sort()) sortedEvents[t] = events[t];
  return { manifest: RECORDINGS_MANIFEST, agents: list, events: sortedEvents };
}
