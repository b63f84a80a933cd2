/**
 * DSL words `$integer`, `$clip` and `$shell` (mappings/README.md "Value expressions"): what codegen accepts and
 * emits for them, what it rejects (E224: a key the word does not take), and what the emitted code does when run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPENCODE_DIR, loadGenerator, opencodeTable, tableContext, type Generator, type TableContext } from "./gen.ts";
import { clip, integerOf, shellLine } from "../../src/normalize/row-util.js";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen, OPENCODE_DIR);
});

const TABLE = opencodeTable("mini-words", `rows:
  - rule: idle
    match: session.idle
    steps:
      - emit: runtime.warning
        payload:
          message: { $clip: $properties.sessionID }
          detail: { n: { $integer: $properties.sessionID }, line: { $shell: $properties.sessionID } }
    examples: [{ in: {}, out: [] }]
`);

const load = (text: string) => gen.tables.loadTable("mini-words.yaml", text, cx);
const codes = (text: string) => load(text).diagnostics.map((d) => d.code).filter((c) => c !== "E300");

describe("DSL: $integer, $clip, $shell", () => {
  it("a table using them loads without diagnostics (other than E300), and each is one call of its row-util function", () => {
    expect(load(TABLE).diagnostics.filter((d) => d.code !== "E300").map(gen.diagnostics.formatDiagnostic)).toEqual([]);
    const code = gen.emitMapper.emitMapper(load(TABLE).table!, "../upstream/mini-words.gen.js", {}, "// test");
    expect(code).toContain("message: clip(m.properties?.sessionID)");
    expect(code).toContain("n: integerOf(m.properties?.sessionID)");
    expect(code).toContain("line: shellLine(m.properties?.sessionID)");
    expect(code).toMatch(/import \{[^}]*\bclip\b[^}]*\bintegerOf\b[^}]*\bshellLine\b[^}]*\} from "..\/..\/src\/normalize\/row-util.js"/);
  });

  it("rejects a key the word does not take (E224)", () => {
    expect(codes(TABLE.replace("{ $clip: $properties.sessionID }", "{ $clip: $properties.sessionID, max: 10 }"))).toContain("E224");
    expect(codes(TABLE.replace("{ $shell: $properties.sessionID }", "{ $shell: $properties.sessionID, join: x }"))).toContain("E224");
  });

  it("$integer: whole numbers, and strings holding one; anything else undefined", () => {
    expect(integerOf(42)).toBe(42);
    expect(integerOf(" 7 ")).toBe(7);
    expect(integerOf(-3)).toBe(-3);
    expect(integerOf(4.5)).toBeUndefined();
    expect(integerOf("4.5")).toBeUndefined();
    expect(integerOf("")).toBeUndefined();
    expect(integerOf(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(integerOf(null)).toBeUndefined();
    expect(integerOf(true)).toBeUndefined();
  });

  it("$clip: strings up to 160 characters as they are, longer ones cut to 159 and …; anything else undefined", () => {
    expect(clip("")).toBe("");
    expect(clip("x".repeat(160))).toBe("x".repeat(160));
    expect(clip("x".repeat(161))).toBe("x".repeat(159) + "…");
    expect(clip(42)).toBeUndefined();
    expect(clip(["a"])).toBeUndefined();
  });

  it("$shell: a string as is; a list's strings shell-quoted and joined; no strings or not a list: undefined", () => {
    expect(shellLine("ls -la")).toBe("ls -la");
    expect(shellLine("")).toBe("");
    expect(shellLine(["bash", "-lc", "ls -la"])).toBe("bash -lc 'ls -la'");
    expect(shellLine(["sh", "-c", "echo 'hi'", ""])).toBe(`sh -c 'echo '"'"'hi'"'"'' ''`);
    expect(shellLine(["a", 1, null, "b"])).toBe("a b");
    expect(shellLine([])).toBeUndefined();
    expect(shellLine([1, 2])).toBeUndefined();
    expect(shellLine({ command: "ls" })).toBeUndefined();
  });
});

describe("DSL: $list with all", () => {
  const LIST = TABLE.replace("message: { $clip: $properties.sessionID }", "message: { $text: { $list: $properties.sessionID, as: x, all: true, to: { $string: $x } }, join: \",\" }");
  it("reads every element (elements: open values) instead of only the objects (objects)", () => {
    expect(load(LIST).diagnostics.filter((d) => d.code !== "E300").map(gen.diagnostics.formatDiagnostic)).toEqual([]);
    const code = gen.emitMapper.emitMapper(load(LIST).table!, "../upstream/mini-words.gen.js", {}, "// test");
    expect(code).toMatch(/message: text\(elements\(m\.properties\?\.sessionID\)\.map\(/);
    const without = gen.emitMapper.emitMapper(load(LIST.replace(", all: true", "")).table!, "../upstream/mini-words.gen.js", {}, "// test");
    expect(without).toMatch(/message: text\(objects\(m\.properties\?\.sessionID\)\.map\(/);
  });
  it("rejects an all that is not true or false (E237)", () => {
    expect(codes(LIST.replace("all: true", "all: yes please"))).toContain("E237");
  });
});
