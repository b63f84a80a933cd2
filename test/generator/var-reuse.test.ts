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

/**
 * Runs a row body on `m` with a store (keys as the tables write them: `name` or `name:key…`); returns what it emitted
 * and every key it read. The row sees the store as the record of slots: an unkeyed variable is a field, a keyed one
 * (a name some key of the store or of `keyed` starts with) a store of its values by the rest of the key.
 */
function run(r: unknown, m: unknown, store: Record<string, unknown>, keyed: string[] = []) {
  const UNSET = Symbol("unset");
  const reads: string[] = [];
  const emitted: unknown[] = [];
  const names = new Set([...keyed, ...Object.keys(store).filter((k) => k.includes(":")).map((k) => k.slice(0, k.indexOf(":")))]);
  const slot = (name: string) => ({
    name,
    get: (k: unknown) => { reads.push(`${name}:${k}`); return store[`${name}:${k}`]; },
  });
  const vars = new Proxy({}, { get: (_t, name: string) => (names.has(name) ? slot(name) : (reads.push(name), store[name])) });
  const cx = {
    vars,
    setVar: (name: string, value: unknown) => { store[name] = value; },
    setVarIn: (s: { name: string }, k: unknown, value: unknown) => { store[`${s.name}:${k}`] = value; },
    emit: (_t: string, p: unknown) => emitted.push(p),
  };
  const body = rowBody(r, "t").replace(/: (?:any|unknown)\b/g, "");
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
    const r = row([emit(obj({ a: v(lit("n"), lit(1)) })), set([lit("n"), lit(1)], lit(2)), emit(obj({ a: v(lit("n"), lit(1)), b: v(lit("n"), lit(1)) }))]);
    const { emitted, reads } = run(r, {}, { "n:1": 1 });
    expect(emitted).toEqual([{ a: 1 }, { a: 2, b: 2 }]);
    expect(reads).toEqual(["n:1", "n:1"]);
  });

  it("keeps a lookup whose variable is not the one set, re-reads one that may be", () => {
    const r = row([
      emit(obj({ a: v(lit("tk"), lit("x")), b: v(lit("run"), msg("id")), c: v(lit("tk"), lit("x")) })),
      set([lit("run"), msg("id")], lit("U")),
      emit(obj({ a: v(lit("tk"), lit("x")), b: v(lit("run"), msg("id")), c: v(lit("run"), msg("id")) })),
    ]);
    const { emitted, reads } = run(r, { id: 1 }, { "tk:x": "K", "run:1": "T" });
    expect(emitted).toEqual([{ a: "K", b: "T", c: "K" }, { a: "K", b: "U", c: "U" }]);
    expect(reads).toEqual(["tk:x", "run:1", "run:1"]);
  });

  it("an unkeyed variable is a field of the record: read where it stands, set by name", () => {
    const r = row([emit(obj({ a: v(lit("n")) })), set([lit("n")], lit(2)), emit(obj({ a: v(lit("n")), b: v(lit("n")) }))]);
    const { emitted, reads, body } = run(r, {}, { n: 1 });
    expect(emitted).toEqual([{ a: 1 }, { a: 2, b: 2 }]);
    expect(reads).toEqual(["n", "n", "n"]);
    expect(body).toContain('cx.setVar("n", 2);');
    expect(body).toContain("{ a: cx.vars.n, b: cx.vars.n }");
  });

  it("a keyed variable's key in its store is its one part as it is, several parts joined with \":\"", () => {
    const one = rowBody(row([emit(obj({ a: v(lit("item"), msg("id")) }))]), "t");
    expect(one).toContain("cx.vars.item.get(m?.id)");
    const two = rowBody(row([set([lit("replay-turn"), msg("a"), msg("b")], lit(1))]), "t");
    expect(two).toContain("cx.setVarIn(cx.vars[\"replay-turn\"], `${m?.a}:${m?.b}`, 1);");
  });

  it("a $first list that reads variables is computed once too, and short-circuits as written", () => {
    const first = { k: "first", items: [v(lit("a"), lit(0)), v(lit("b"), lit(0)), msg("id")] };
    const r = row([emit(obj({ x: first, y: first }))]);
    const { emitted, reads } = run(r, { id: 3 }, { "a:0": "A" }, ["b"]);
    expect(emitted).toEqual([{ x: "A", y: "A" }]);
    expect(reads).toEqual(["a:0"]); // b is never needed
  });

  it("a guard that fails returns before any lookup it did not need", () => {
    const r = row([emit(obj({ a: v(lit("a"), lit(0)), b: v(lit("a"), lit(0)) }))], [{ k: "eq", path: msg("t"), value: "yes" }, { k: "exists", path: v(lit("a"), lit(0)), exists: true }]);
    const { result, reads } = run(r, { t: "no" }, { "a:0": 1 });
    expect(result).toBe(false);
    expect(reads).toEqual([]);
  });
});
