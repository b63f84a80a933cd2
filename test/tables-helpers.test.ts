/**
 * The tables say their logic in the DSL (mappings/README.md "Helpers"): helper calls stay few. The bound is the
 * number of `$helper:` calls in mappings/*.yaml; a change that needs more says it in the DSL instead (or grows it).
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MAPPINGS = join(dirname(fileURLToPath(import.meta.url)), "../mappings");
/** 82 since claudeResultFiles (an edit result's patch hunks as a unified diff: provider data, no logic the DSL says). */
const MAX_HELPER_CALLS = 82;

describe("helper calls in the tables", () => {
  it(`are at most ${MAX_HELPER_CALLS}`, () => {
    const files = readdirSync(MAPPINGS).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(10);
    const perFile = files.map((f) => [f, readFileSync(join(MAPPINGS, f), "utf8").match(/\$helper:/g)?.length ?? 0] as const);
    const total = perFile.reduce((n, [, c]) => n + c, 0);
    expect(total, perFile.map(([f, c]) => `${f}: ${c}`).join(", ")).toBeLessThanOrEqual(MAX_HELPER_CALLS);
  });
});
