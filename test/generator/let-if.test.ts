/**
 * DSL words: named values (`let:` on a row and on a step) and the lazy conditional (`{ $if: CONDITIONS, then, else }`),
 * with the typed reads `$number` and `$string`. Checked on a small tagged table over the opencode upstream schema:
 * what codegen accepts, the code it emits (a const per named value, computed once where it is declared; a `?:` whose
 * branches are evaluated only when taken), what it rejects (E246–E249), and what the emitted code does when run.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPENCODE_DIR, loadGenerator, opencodeTable, tableContext, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen, OPENCODE_DIR);
});

const TABLE = opencodeTable("mini-let", `rows:
  - rule: part
    match: message.part.updated
    ids:
      item: { path: properties.part.id, op: open }
    let:
      part: $properties.part
      isText: { $if: { $part.type: text }, then: true, else: false }
    steps:
      - emit: item.started
        let:
          kind: { $if: { $isText: true }, then: assistant_message, else: dynamic_tool_call }
        payload:
          itemType: $kind
          text: { $if: { $kind: assistant_message }, then: { $string: $part.text } }
          title: { $if: { properties.part.type: tool }, then: { $concat: [tool, " ", $part.id] }, else: { $str: $part.id } }
    examples: [{ in: {}, out: [] }]
  - rule: idle
    match: session.idle
    steps:
      - emit: runtime.warning
        payload:
          message: idle
          detail: { n: { $number: $properties.sessionID } }
    examples: [{ in: {}, out: [] }]
`);

const load = (text: string) => gen.tables.loadTable("mini-let.yaml", text, cx);
const codes = (text: string) => load(text).diagnostics.map((d) => d.code).filter((c) => c !== "E300");

describe("DSL: let and $if", () => {
  it("a table using them loads without diagnostics (other than E300)", () => {
    expect(load(TABLE).diagnostics.filter((d) => d.code !== "E300").map(gen.diagnostics.formatDiagnostic)).toEqual([]);
  });

  it("emits a row's named values once, after its ids; a step's inside its block; $if as a conditional expression", () => {
    const code = gen.emitMapper.emitMapper(load(TABLE).table!, "../upstream/mini-let.gen.js", {}, "// test");
    const body = code.slice(code.indexOf("function r_part"), code.indexOf("function r_idle"));
    expect(body).toContain("cx.ref(ID_item_open, m.properties?.part?.id);\n  const s_part = m.properties?.part;\n  const s_isText = (s_part?.type === \"text\" ? true : false);");
    expect(body).toMatch(/if \(cx\.isNew\("item"\)\) \{\n    const s_kind = \(s_isText === true \? "assistant_message" : "dynamic_tool_call"\);\n    cx\.emit\("item\.started", \{/);
    expect(body).toContain('text: (s_kind === "assistant_message" ? stringOf(s_part?.text) : undefined)');
    expect(body).toContain('title: (m.properties?.part?.type === "tool" ? concat("tool", " ", s_part?.id) : str(s_part?.id))');
    expect(body.match(/const s_part/g)).toHaveLength(1);
    expect(code).toContain("n: numberOf(m.properties?.sessionID)");
  });

  it("evaluates only the branch taken", () => {
    const t = load(TABLE).table!;
    const rowIf = (t.rows[0] as any).steps[0].payload.entries.find(([k]: [string]) => k === "text")[1];
    const js = gen.emitMapper.exprCode(rowIf, new Set(["kind", "part"]));
    let reads = 0;
    const part = { get text() { reads++; return "hi"; } };
    const run = (kind: string) => new Function("s_kind", "s_part", "stringOf", `return ${js};`)(kind, part, (x: unknown) => (typeof x === "string" ? x : undefined));
    expect(run("dynamic_tool_call")).toBeUndefined();
    expect(reads).toBe(0);
    expect(run("assistant_message")).toBe("hi");
    expect(reads).toBe(1);
  });

  it("rejects a malformed $if (E246), a name taken or not a name (E247), a step's value read by its own if (E248), a value never read (E249)", () => {
    expect(codes(TABLE.replace("then: { $string: $part.text } }", "else: 1 }"))).toContain("E246");
    expect(codes(TABLE.replace("isText: { $if: { $part.type: text }", "isText: { $if: {}"))).toContain("E246");
    expect(codes(TABLE.replace("      part: $properties.part\n", "      part: $properties.part\n      properties: 1\n"))).toContain("E247");
    expect(codes(TABLE.replace("      part: $properties.part\n", "      part: $properties.part\n      2x: 1\n"))).toContain("E247");
    expect(codes(TABLE.replace("        let:\n          kind:", "        let:\n          part: 1\n          kind:"))).toContain("E247");
    expect(codes(TABLE.replace("      - emit: item.started\n", "      - emit: item.started\n        if: { $kind: assistant_message }\n"))).toContain("E248");
    expect(codes(TABLE.replace("    ids:\n      item:", "    when: { $part.type: text }\n    ids:\n      item:"))).toContain("E248");
    expect(codes(TABLE.replace("      part: $properties.part\n", "      part: $properties.part\n      unread: 1\n"))).toContain("E249");
  });

  it("checks paths read through a named value's definition against the upstream schema (E220)", () => {
    expect(codes(TABLE.replace("part: $properties.part", "part: $properties.prt"))).toContain("E220");
  });
});
