import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compareRecordings, positionFree } from "../fixtures/record/compare.js";

// `npm run record -- --check` must tell upstream concurrency (same lines, another order) from a real change.
const committed = readFileSync(new URL("../fixtures/recorded/opencode/two-turn.ndjson", import.meta.url), "utf8");

/** What a re-recording with lines i and j swapped looks like after the sanitizer: position-derived fields follow the new position. */
function swapped(text: string, i: number, j: number): string {
  const lines = text.split("\n");
  const a = lines[i - 1], b = lines[j - 1];
  const repos = (line: string, n: number) => line.replace(/"seq":\d+/, `"seq":${n}`).replace(/"evt_\d+"/, `"evt_${String(n).padStart(6, "0")}"`).replace(/"created":\d+/, `"created":${1767225600000 + n * 1000}`);
  lines[i - 1] = repos(b, i);
  lines[j - 1] = repos(a, j);
  return lines.join("\n");
}

describe("record --check comparison", () => {
  it("identical recordings are identical", () => {
    expect(compareRecordings(committed, committed)).toEqual({ kind: "identical" });
  });
  it("two lines emitted in the other order are a reorder, with the lines named", () => {
    const fresh = swapped(committed, 91, 94);
    expect(fresh).not.toBe(committed);
    expect(compareRecordings(committed, fresh)).toEqual({ kind: "reordered", lines: [91, 94] });
  });
  it("a changed value is a difference, not a reorder", () => {
    const fresh = swapped(committed, 91, 94).replace('"role":"user"', '"role":"assistant"');
    expect(compareRecordings(committed, fresh)).toMatchObject({ kind: "differs" });
  });
  it("a dropped line is a difference", () => {
    const lines = committed.split("\n");
    lines.splice(50, 1);
    expect(compareRecordings(committed, lines.join("\n"))).toEqual({ kind: "differs", firstLine: 51 });
  });
  it("position-derived fields are blanked, other numbers are kept", () => {
    const line = JSON.stringify({ seq: 3, message: { ordinal: 7, timestamp: "2026-01-01T00:00:03.000Z", id: "evt_000003", tokens: { input: 12 } } });
    expect(JSON.parse(positionFree(line))).toEqual({ seq: "#", message: { ordinal: "#", timestamp: "#", id: "#", tokens: { input: 12 } } });
  });
});
