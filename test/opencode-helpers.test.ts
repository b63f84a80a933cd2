/** The opencode helpers of src/helpers.ts (called from mappings/opencode.yaml). */
import { describe, expect, it } from "vitest";
import { opencodePatchFiles, opencodeTurnDiff } from "../mappings/helpers/opencode.js";

describe("opencode helpers", () => {
  it("opencodeTurnDiff: the turn's part of the session diff — baseline entries left out, one entry per path (last wins)", () => {
    const a1 = { file: "a.py", patch: "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n", additions: 1, deletions: 1 };
    const a2 = { file: "a.py", patch: "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+z", additions: 1, deletions: 1 };
    const b = { file: "b.py", patch: "+new", additions: 1, deletions: 0 };
    expect(opencodeTurnDiff([a1, b], undefined)).toBe("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n+new");
    expect(opencodeTurnDiff([a1, b], [a1])).toBe("+new");
    expect(opencodeTurnDiff([a1, b], [a2])).toBe("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n+new"); // changed again this turn
    expect(opencodeTurnDiff([a1, a2], undefined)).toBe(a2.patch);
    expect(opencodeTurnDiff([a1], [a1])).toBeUndefined();
    expect(opencodeTurnDiff([], undefined)).toBeUndefined();
    expect(opencodeTurnDiff("nope", undefined)).toBeUndefined();
  });

  it("opencodeTurnDiff: v1 entries {file, before, after} become one whole-file hunk", () => {
    expect(opencodeTurnDiff([{ file: "n.txt", before: "", after: "hello\n", additions: 1, deletions: 0 }], [])).toBe("--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+hello");
    expect(opencodeTurnDiff([{ file: "n.txt", before: "a\nb", after: "a\nc", additions: 1, deletions: 1 }], [])).toBe("--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+c");
  });

  it("opencodePatchFiles: file headers only, paths deduplicated", () => {
    expect(opencodePatchFiles(["/w/a.py", "/w/a.py", "b.py", 3])).toBe("diff --git a/w/a.py b/w/a.py\ndiff --git a/b.py b/b.py");
    expect(opencodePatchFiles([])).toBeUndefined();
  });
});
