/**
 * Method patterns at run time (src/normalize/compiled.ts): pattern rows and ignore entries' patterns are tried
 * together, longest prefix first, a row before an ignore entry of the same prefix; exact names never become patterns.
 */
import { describe, expect, it } from "vitest";
import { compileTable } from "../src/normalize/compiled.js";
import type { SurfaceTable } from "../src/normalize/table-types.js";

const row = (rule: string) => ({ rule, run: () => true }) as never;

describe("method patterns", () => {
  it("rows and ignore entries by prefix length, rows first on a tie; exact ignore entries stay exact", () => {
    const t = {
      surface: "t", protocol: "jsonrpc",
      rows: { notification: { "a/*": [row("r-a")], "*": [row("r-any")], "a/b": [row("r-ab")] } },
      ignored: { notification: { "a/b/*": "i-ab", "a/*": "i-a", "x/y": "i-xy" } },
    } as unknown as SurfaceTable;
    const ct = compileTable(t);
    const order = ct.patternsOf.get("notification")!.map(([p, x]) => [p, typeof x === "string" ? x : x.map((r) => r.rule).join()]);
    expect(order).toEqual([["a/b/", "i-ab"], ["a/", "r-a"], ["a/", "i-a"], ["", "r-any"]]);
    expect([...ct.ignoredOf.get("notification")!.keys()]).toEqual(["x/y"]);
    expect([...ct.known.notification].sort()).toEqual(["a/b", "x/y"]);
  });
});
