/**
 * Fuzzing every surface with a fixed seed and a bounded count (test/fuzz/fuzz.ts has the generators;
 * `npm run fuzz` runs the long version). New surfaces are picked up from SURFACE_NAMES.
 */
import { describe, expect, it } from "vitest";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";
import { fuzzSurface, material, mutate, type FuzzReport } from "./fuzz/fuzz.js";

const SEED = 20260901;
const RUNS = 60; // sequences per surface (≈ 6 messages each): keeps the whole file well under 20 s

describe("fuzz (fixed seed)", () => {
  it("every surface has material: a corpus from its table's examples and generated messages from its upstream schemas", () => {
    for (const s of SURFACE_NAMES) {
      const m = material(s);
      expect(m.corpus.length, `${s} corpus`).toBeGreaterThan(5);
      expect(m.generated.length, `${s} upstream union schemas`).toBeGreaterThan(0);
    }
  });

  it("mutations do what they say", () => {
    const base = { method: "item/started", params: { item: { id: "i1", text: "hi" } } };
    const o = { hugeString: 1000, deepNesting: 50 };
    expect(JSON.stringify(mutate(base, [["huge", 2, 0]], o)).length).toBeGreaterThan(1000);
    const deep = JSON.stringify(mutate(base, [["deep", 0, 1]], o));
    expect(deep.split("{").length).toBeGreaterThan(50);
    const hostile: any = mutate(base, [["protoKeys", 0, 0]], o);
    expect(Object.keys(hostile).some((k) => k === "__proto__" || k === "constructor")).toBe(true);
    expect((mutate(base, [["unknownTag", 0, 0]], o) as any).method).toBe("x/unknown");
    expect(base.params.item.text).toBe("hi"); // the corpus is never changed in place
  });

  for (const surface of SURFACE_NAMES) {
    it(`${surface}: no escape, every event canonical, every input accounted for, the output keeps the grammar`, () => {
      const r: FuzzReport = fuzzSurface(surface, { runs: RUNS, seed: SEED, hugeString: 200_000, deepNesting: 3_000 });
      expect(r.inputs).toBeGreaterThan(RUNS);
      expect(Object.keys(r.origins).length, "inputs of several origins").toBeGreaterThanOrEqual(4);
      expect(r.escapes, "exceptions escaping push/pushLine/end").toEqual([]);
      expect(r.invalid, "events failing the canonical schema").toEqual([]);
      expect(r.unaccounted, "inputs with no event, no ignore entry and no silent row").toEqual([]);
      expect(r.violations, "stream verifier violations").toEqual([]);
    });
  }
});
