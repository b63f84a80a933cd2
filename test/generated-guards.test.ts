/**
 * The dispatcher gives every row it tries for a message the same scope: a row that does not match must return at
 * its guard, before it touches the scope (ref, emit, setVar…). The generator emits the guard as a row's first
 * statement (after the declaration of the locals its reused variable lookups go in, which touches nothing); this
 * checks every generated row function for it.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const DIR = join(__dirname, "../generated/mappers");

describe("generated rows: a row that does not match returns before it touches the scope", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".gen.ts"));
  it("every generated mapper has rows", () => expect(files.length).toBeGreaterThan(10));
  for (const f of files) {
    it(f, () => {
      const text = readFileSync(join(DIR, f), "utf8");
      const rows = [...text.matchAll(/^function (r_\w+)\([^)]*\): boolean \{\n([\s\S]*?)^\}/gm)];
      expect(rows.length).toBeGreaterThan(0);
      for (const [, name, body] of rows) {
        const lines = body.split("\n").filter((l) => l.trim() !== "");
        // the reused lookups' locals, all unset: declared before the guard, read (and set) only when needed
        if (/^\s*let v\d+: \w+ = UNSET(, v\d+: \w+ = UNSET)*;$/.test(lines[0])) lines.shift();
        lines.forEach((l, i) => {
          if (/\breturn false\b/.test(l)) expect(`${name}: line ${i + 1}`).toBe(`${name}: line 1`);
          // a hold row claims the message only through cx.hold, which parks nothing when it returns false
          if (/return cx\.hold\(/.test(l)) expect(i).toBeLessThanOrEqual(1);
        });
      }
    });
  }
});
