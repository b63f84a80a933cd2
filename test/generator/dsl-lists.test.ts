/**
 * DSL words over lists, objects and numbers (mappings/README.md "Value expressions"): `$list` with a per-element
 * `let` and `index`, `$find`, `$entries`, `$object`, `$strings`, `$split`, `$product`, `$round`, and the tests
 * `sameAs` and `atLeast`. Checked on a small tagged table over the opencode upstream schema: what codegen accepts,
 * the code it emits, what it rejects (E228, E234, E235, E237, E238, E247, E249), and what the emitted code and the
 * row-util functions do when run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPENCODE_DIR, loadGenerator, opencodeTable, tableContext, type Generator, type TableContext } from "./gen.ts";
import * as RU from "../../src/normalize/row-util.js";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen, OPENCODE_DIR);
});

const TABLE = opencodeTable("mini-lists", `rows:
  - rule: asked
    match: question.asked
    let:
      asked:
        $list: $properties.questions
        as: q
        index: i
        let:
          prompt: { $str: $q.question }
          labels: { $list: $q.options, as: o, to: { $str: $o.label } }
        where: { $prompt: { not: skip } }
        to: { id: { $str: $i }, prompt: $prompt, labels: $labels, multi: { $if: { $q.multiple: true }, then: true, else: false } }
      firstMulti: { $find: $properties.questions, as: q, where: { q.multiple: true } }
      lastSame: { $find: $properties.questions, as: q, last: true, where: { q.question: { sameAs: $properties.id } } }
    steps:
      - emit: runtime.warning
        payload:
          message: { $first: [{ $str: $firstMulti.question }, none] }
          detail: { asked: $asked, last: $lastSame }
    examples: [{ in: {}, out: [] }]
  - rule: replied
    match: question.replied
    let:
      byIndex:
        $object: { $list: $properties.answers, as: a, all: true, index: i, to: { key: $i, value: { $strings: $a } } }
    steps:
      - emit: runtime.warning
        payload:
          message: replied
          detail:
            byIndex: $byIndex
            fields: { $entries: $byIndex }
            parts: { $split: $properties.requestID, on: ", " }
            ms: { $add: [{ $product: [$properties.sessionID, 1000] }, { $round: $properties.requestID, unit: 1000000 }] }
            counted: { $if: { $if: [{ value: { $number: $properties.sessionID }, atLeast: 0 }] }, then: yes }
    examples: [{ in: {}, out: [] }]
`);

const load = (text: string) => gen.tables.loadTable("mini-lists.yaml", text, cx);
const codes = (text: string) => load(text).diagnostics.map((d) => d.code).filter((c) => c !== "E300");
const emitted = (text = TABLE) => gen.emitMapper.emitMapper(load(text).table!, "../upstream/mini-lists.gen.js", {}, "// test");
/** A named value of the table's first row, as the function of its message the generator writes (run with row-util). */
function valueOf(rule: string, name: string): (m: unknown) => unknown {
  const row = (load(TABLE).table as any).rows.find((r: any) => r.rule === rule);
  const lets: { name: string; value: unknown }[] = row.lets;
  const body = gen.emitMapper.expandBlocks(lets.map((l, i) => `const s_${l.name} = ${gen.emitMapper.exprCode(l.value, new Set(lets.slice(0, i).map((x) => x.name)))};`).join("\n"));
  const names = Object.keys(RU);
  const f = new Function("m", ...names, `${body}\nreturn s_${name};`);
  return (m) => f(m, ...names.map((n) => (RU as Record<string, unknown>)[n]));
}

describe("DSL: $list let and index, $find, $entries, $object, $strings, $split, $product, $round, sameAs, atLeast", () => {
  it("a table using them loads without diagnostics (other than E300)", () => {
    expect(load(TABLE).diagnostics.filter((d) => d.code !== "E300").map(gen.diagnostics.formatDiagnostic)).toEqual([]);
  });

  it("emits each as code over row-util functions, and imports only the functions the code calls", () => {
    const code = emitted();
    // a list element's named values: one statement a line, indented under the line the function opens on
    expect(code).toContain([
      "  const s_asked = mapObjects(m.properties?.questions, (s_q, s_i) => {",
      "    const s_prompt = str(s_q?.question);",
      "    const s_labels = objects(s_q?.options).map((s_o) => (str(s_o?.label)));",
      "    return s_prompt !== \"skip\" ? { id: str(s_i), prompt: s_prompt, labels: s_labels, multi: (s_q?.multiple === true ? true : false) } : SKIP;",
      "  });",
    ].join("\n"));
    expect(code).toContain("const s_firstMulti = objects(m.properties?.questions).find((s_q) => s_q?.multiple === true);");
    expect(code).toContain("const s_lastSame = findLast(objects(m.properties?.questions), (s_q) => same(s_q?.question, m.properties?.id));");
    expect(code).toContain("  const s_byIndex = objectOf(mapElements(m.properties?.answers, (s_a, s_i) => {\n    return { key: s_i, value: strings(s_a) };\n  }));");
    expect(code).not.toMatch(/[\u0001-\u0003]/);
    expect(code).toContain("fields: entries(s_byIndex)");
    expect(code).toContain('parts: split(m.properties?.requestID, ", ")');
    expect(code).toContain("ms: add(product(m.properties?.sessionID, 1000), round(m.properties?.requestID, 1000000))");
    expect(code).toContain('counted: (atLeast(numberOf(m.properties?.sessionID), 0) ? "yes" : undefined)');
    const imports = /import \{([^}]*)\} from "..\/..\/src\/normalize\/row-util.js"/.exec(code)![1];
    for (const f of ["SKIP", "atLeast", "entries", "findLast", "mapElements", "mapObjects", "objectOf", "product", "round", "same", "split", "strings"]) expect(imports).toMatch(new RegExp(`\\b${f}\\b`));
    // a table that does not use them imports none of them
    const plain = emitted(TABLE.replace(/ {2}- rule: asked[\s\S]*?(?= {2}- rule: replied)/, "").replace(/ {4}let:\n {6}byIndex:[\s\S]*?\n {4}steps:/, "    steps:").replace(/ {10}detail:\n[\s\S]*?\n {4}examples/, "    examples"));
    expect(/import \{([^}]*)\} from "..\/..\/src\/normalize\/row-util.js"/.exec(plain)![1]).not.toMatch(/\b(SKIP|atLeast|entries|findLast|mapElements|mapObjects|objectOf|product|round|same|split|strings)\b/);
  });

  it("$list: the index counts every element; the element's named values are computed before where; a failed where leaves it out", () => {
    const asked = valueOf("asked", "asked");
    const qs = [{ question: "A?", options: [{ label: "x" }, "y", { label: 3 }], multiple: true }, "not an object", null, { question: "skip" }, { question: 7, options: "none" }];
    expect(asked({ properties: { questions: qs } })).toEqual([
      { id: "0", prompt: "A?", labels: ["x", "3"], multi: true },
      { id: "4", prompt: "7", labels: [], multi: false },
    ]);
    expect(asked({ properties: { questions: "nope" } })).toEqual([]);
    expect(asked({})).toEqual([]);
  });

  it("$find: the first element the conditions hold for (last: the last); sameAs never matches an absent value", () => {
    const first = valueOf("asked", "firstMulti");
    const last = valueOf("asked", "lastSame");
    const qs = [{ question: "a", multiple: false }, { question: "b", multiple: true, n: 1 }, { question: "b", multiple: true, n: 2 }, { multiple: true }];
    expect(first({ properties: { questions: qs } })).toEqual(qs[1]);
    expect(first({ properties: { questions: [{ multiple: false }] } })).toBeUndefined();
    expect(last({ properties: { id: "b", questions: qs } })).toEqual(qs[2]);
    expect(last({ properties: { questions: qs } })).toBeUndefined();
    expect(last({ properties: { id: "b", questions: "b" } })).toBeUndefined();
  });

  it("$object of a $list: keys in order, a number key as its text", () => {
    const byIndex = valueOf("replied", "byIndex");
    expect(byIndex({ properties: { answers: [["A", 1, "B"], "C", null] } })).toEqual({ 0: ["A", "B"], 1: ["C"], 2: [] });
    expect(byIndex({ properties: { answers: {} } })).toEqual({});
  });

  it("rejects what the words do not take", () => {
    expect(codes(TABLE.replace("as: q, where: { q.multiple: true } }", "as: q }"))).toContain("E237");
    expect(codes(TABLE.replace("as: q, last: true,", "as: q, last: sometimes,"))).toContain("E237");
    expect(codes(TABLE.replace(', on: ", "', ""))).toContain("E237");
    expect(codes(TABLE.replace("unit: 1000000", "unit: 0"))).toContain("E237");
    expect(codes(TABLE.replace("{ $product: [$properties.sessionID, 1000] }", "{ $product: $properties.sessionID }"))).toContain("E228");
    expect(codes(TABLE.replace("where: { q.multiple: true }", "where: { multiple: true }"))).toContain("E238");
    expect(codes(TABLE.replace("where: { $prompt: { not: skip } }", "where: { prompt: { not: skip } }"))).toEqual([]);
    expect(codes(TABLE.replace("where: { $prompt: { not: skip } }", "where: { other: { not: skip } }"))).toContain("E238");
    expect(codes(TABLE.replace("          prompt: { $str: $q.question }", "          q: 1\n          prompt: { $str: $q.question }"))).toContain("E247");
    expect(codes(TABLE.replace("          prompt: { $str: $q.question }", "          properties: 1\n          prompt: { $str: $q.question }"))).toContain("E247");
    expect(codes(TABLE.replace("index: i\n", "index: 1x\n"))).toContain("E247");
    expect(codes(TABLE.replace("index: i\n", "index: q\n"))).toContain("E247");
    expect(codes(TABLE.replace("          prompt: { $str: $q.question }", "          unread: 1\n          prompt: { $str: $q.question }"))).toContain("E249");
    expect(codes(TABLE.replace("where: { q.question: { sameAs: $properties.id } }", "where: { q.question: { atLeast: zero } }"))).toContain("E234");
    expect(codes(TABLE.replace("value: { $number: $properties.sessionID }, atLeast: 0 }", "value: { $number: $properties.sessionID }, atLeast: 0, equals: 1 }"))).toContain("E235");
    expect(codes(TABLE.replace("atLeast: 0 }", "atLeast: \"0\" }"))).toContain("E235");
  });

  it("checks paths inside a $list's let and a $find's conditions against the upstream schema (E220)", () => {
    expect(codes(TABLE.replace("where: { q.question: { sameAs: $properties.id } }", "where: { q.question: { sameAs: $properties.idd } }"))).toContain("E220");
    expect(codes(TABLE.replace("labels: { $list: $q.options", "labels: { $list: $properties.optionz"))).toContain("E220");
  });
});

describe("row-util: what the words do", () => {
  it("mapObjects / mapElements: SKIP leaves an element out; the index counts every element", () => {
    expect(RU.mapObjects([{ a: 1 }, 2, null, { a: 3 }], (e, i) => (i === 0 ? RU.SKIP : [i, (e as { a: number }).a]))).toEqual([[3, 3]]);
    expect(RU.mapElements(["a", null, 3], (e, i) => `${i}:${String(e)}`)).toEqual(["0:a", "1:null", "2:3"]);
    expect(RU.mapObjects("x", () => 1)).toEqual([]);
    expect(RU.mapElements({ 0: "a" }, () => 1)).toEqual([]);
  });

  it("findLast: the last element the test holds for", () => {
    expect(RU.findLast([1, 2, 3, 4], (x) => x % 2 === 1)).toBe(3);
    expect(RU.findLast([1, 3], (x) => x > 5)).toBeUndefined();
  });

  it("$entries: an object's fields in order; [] for lists and anything else", () => {
    expect(RU.entries({ b: 1, a: [2] })).toEqual([{ key: "b", value: 1 }, { key: "a", value: [2] }]);
    expect(RU.entries([1, 2])).toEqual([]);
    expect(RU.entries("ab")).toEqual([]);
    expect(RU.entries(null)).toEqual([]);
  });

  it("$object: later entries replace a key's value (at its first place); entries without a key or a value left out", () => {
    expect(RU.objectOf([{ key: "a", value: 1 }, { key: 2, value: "x" }, { key: "a", value: 3 }, { key: null, value: 4 }, { key: "u" }, "e", null])).toEqual({ a: 3, 2: "x" });
    expect(Object.keys(RU.objectOf([{ key: "b", value: 1 }, { key: "a", value: 2 }, { key: "b", value: 3 }]))).toEqual(["b", "a"]);
    expect(RU.objectOf("x")).toEqual({});
  });

  it("$strings, $split", () => {
    expect(RU.strings("a")).toEqual(["a"]);
    expect(RU.strings(["a", 1, null, "b", ["c"]])).toEqual(["a", "b"]);
    expect(RU.strings({ 0: "a" })).toEqual([]);
    expect(RU.split("A, B, C", ", ")).toEqual(["A", "B", "C"]);
    expect(RU.split("", ", ")).toEqual([""]);
    expect(RU.split(["A, B"], ", ")).toBeUndefined();
  });

  it("$product, $round: finite numbers only; $round halves up", () => {
    expect(RU.product(2, 1000)).toBe(2000);
    expect(RU.product(2, "3")).toBeUndefined();
    expect(RU.product(2, Number.NaN)).toBeUndefined();
    expect(RU.product(1e306, 1000)).toBeUndefined();
    expect(RU.round(41_000_000, 1_000_000)).toBe(41);
    expect(RU.round(500_000, 1_000_000)).toBe(1);
    expect(RU.round(499_999, 1_000_000)).toBe(0);
    expect(RU.round(-2.5, 1)).toBe(-2);
    expect(RU.round("5", 1)).toBeUndefined();
  });

  it("sameAs: present and ===; atLeast: a number of at least N", () => {
    expect(RU.same("a", "a")).toBe(true);
    expect(RU.same(1, "1")).toBe(false);
    expect(RU.same(undefined, undefined)).toBe(false);
    expect(RU.same(null, null)).toBe(false);
    expect(RU.atLeast(0, 0)).toBe(true);
    expect(RU.atLeast(-1, 0)).toBe(false);
    expect(RU.atLeast("5", 0)).toBe(false);
    expect(RU.atLeast(Number.NaN, 0)).toBe(false);
  });
});
