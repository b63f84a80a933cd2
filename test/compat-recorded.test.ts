/**
 * The compatibility matrix's recorded agent versions (generator/recordings.ts): a column per agent version the
 * recordings hold, each with sessions whose turns complete, and the Markdown shows them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderCompatibilityMarkdown } from "../src/model/matrix.js";

const root = new URL("..", import.meta.url);
const compat = JSON.parse(readFileSync(new URL("generated/compatibility.json", root), "utf8"));
const manifest = JSON.parse(readFileSync(new URL("fixtures/recorded/manifest.json", root), "utf8")).recordings as { agent: string; agentVersion?: string }[];

describe("compatibility matrix: recorded agent versions", () => {
  it("has one column per agent version of fixtures/recorded/manifest.json", () => {
    const keys = [...new Set(manifest.map((e) => `${e.agent}@${e.agentVersion ?? "?"}`))].sort();
    expect(compat.recorded.agents.map((a: { key: string }) => a.key).sort()).toEqual(keys);
  });

  it("every recorded agent version has sessions, and completed turns in them", () => {
    for (const a of compat.recorded.agents) {
      expect(a.sessions, a.key).toBeGreaterThan(0);
      expect(compat.recorded.events["turn.completed"]?.[a.key] ?? 0, a.key).toBeGreaterThan(0);
    }
  });

  it("the Markdown has the table of agent versions and the event × version table", () => {
    const md = renderCompatibilityMarkdown(compat);
    expect(md).toContain("## Recorded agent versions");
    for (const a of compat.recorded.agents) expect(md).toContain(`| \`${a.agent}\` | ${a.version} |`);
    expect(md).toMatch(/\| canonical event \| claude-agent-acp@0\.23\.1 \|/);
  });
});
