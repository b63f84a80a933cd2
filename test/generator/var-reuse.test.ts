/**
 * A row's repeated variable lookups are read once (generator/emit-mapper.ts): reused while no step in between set
 * a variable whose key may be theirs, read again after one did. These run generated row bodies against a recording
 * variable store and check what the row saw and how often it read.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadGenerator } from "./gen.js";

let rowBody: (r: any, surface: string) => string;
beforeAll(async () => {
  rowBody = ((await loadGenerator()).emitMapper as any).rowBody;
});

const lit = (v: unknown) => ({ k: "lit", v });
const msg = (...segs: string[]) => ({ k: "path", root: "msg", segs });
const v = (...key: unknown[]) => ({ k: "var", key });
const emit = (payload: unknown) => ({ k: "emit", type: "x", cond: [], payload, line: 1 });
const set = (key: unknown[], value: unknown) => ({ k: "set", key, value, cond: [] });
const obj = (entries: Record<string, unknown>) => ({ k: "obj", entries: Object.entries(entries) });
const row = (steps: unknown[], when: unknown[] = []) => ({ rule: "r", kind: "notification", methods: ["m"], line: 1, when, ids: [], steps, examples: [] });

/** Runs a row body on `m` with a store; returns what it emitted and every key it read. */
function run(r: unknown, m: unknown, store: Record<string, unknown>) {
  const UNSET = Symbol("unset");
  const reads: string[] = [];
  const emitted: unknown[] = [];
  const cx = {
    varAt: (k: string) => { reads.push(k); return store[k]; },
    setVarAt: (k: string, value: unknown) => { store[k] = value; },
    emit: (_t: string, p: unknown) => emitted.push(p),
  };
  const body = rowBody(r, "t").replace(/: any\b/g, "");
  const result = new Function("m", "cx", "UNSET", body)(m, cx, UNSET);
  return { result, emitted, reads, body };
}

describe("generated rows read a repeated variable lookup once", () => {
  it("reuses a lookup the row repeats when nothing sets it in between", () => {
    const r = row([emit(obj({ a: v(lit("run"), msg("id")), b: v(lit("run"), msg("id")) }))], [{ k: "exists", path: v(lit("run"), msg("id")), exists: true }]);
    const { emitted, reads, body } = run(r, { id: 7 }, { "run:7": "T" });
    expect(emitted).toEqual([{ a: "T", b: "T" }]);
    expect(reads).toEqual(["run:7"]);
    expect(body).toMatch(/^let v1 = UNSET;/);
  });

  it("reads again after a step set a variable of the same key", () => {
    const r = row([emit(obj({ a: v(lit("n")) })), set([lit("n")], lit(2)), emit(obj({ a: v(lit("n")), b: v(lit("n")) }))]);
    const { emitted, reads } = run(r, {}, { n: 1 });
    expect(emitted).toEqual([{ a: 1 }, { a: 2, b: 2 }]);
    expect(reads).toEqual(["n", "n"]);
  });

  it("keeps a lookup whose key cannot be the one set (fixed beginnings differ), re-reads one that may be", () => {
    const r = row([
      emit(obj({ a: v(lit("tk")), b: v(lit("run"), msg("id")) })),
      set([lit("run"), msg("id")], lit("U")),
      emit(obj({ a: v(lit("tk")), b: v(lit("run"), msg("id")) })),
    ]);
    const { emitted, reads } = run(r, { id: 1 }, { tk: "K", "run:1": "T" });
    expect(emitted).toEqual([{ a: "K", b: "T" }, { a: "K", b: "U" }]);
    expect(reads).toEqual(["tk", "run:1", "run:1"]);
  });

  it("a key that begins with an interpolation may be any key: every set renews it", () => {
    const r = row([emit(obj({ a: v(msg("k")) })), set([lit("z")], lit(9)), emit(obj({ a: v(msg("k")) }))]);
    const { emitted, reads } = run(r, { k: "z" }, { z: 1 });
    expect(emitted).toEqual([{ a: 1 }, { a: 9 }]);
    expect(reads).toEqual(["z", "z"]);
  });

  it("a $first list that reads variables is computed once too, and short-circuits as written", () => {
    const first = { k: "first", items: [v(lit("a")), v(lit("b")), msg("id")] };
    const r = row([emit(obj({ x: first, y: first }))]);
    const { emitted, reads } = run(r, { id: 3 }, { a: "A" });
    expect(emitted).toEqual([{ x: "A", y: "A" }]);
    expect(reads).toEqual(["a"]); // b is never needed
  });

  it("a guard that fails returns before any lookup it did not need", () => {
    const r = row([emit(obj({ a: v(lit("a")), b: v(lit("a")) }))], [{ k: "eq", path: msg("t"), value: "yes" }, { k: "exists", path: v(lit("a")), exists: true }]);
    const { result, reads } = run(r, { t: "no" }, { a: 1 });
    expect(result).toBe(false);
    expect(reads).toEqual([]);
  });
});
