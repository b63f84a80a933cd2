/**
 * DSL features for late information (opencode): hold rows (`hold: KEY`), `$if` conditions on
 * computed values, snapshot entries placed among a row's events, `set` entries with `if`, and `dispatch` steps of
 * whole messages (tagged tables). Checked on a small tagged table over the opencode upstream schema: what codegen
 * accepts, what it rejects (with codes), and the code it emits for each.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPENCODE_DIR, loadGenerator, opencodeTable, tableContext, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen, OPENCODE_DIR);
});

const TABLE = opencodeTable("mini-late", `rows:
  - rule: wait
    match: message.part.updated
    hold: [role, $properties.part.messageID]
    examples: [{ in: {}, out: [] }]
  - rule: text
    match: message.part.updated
    when:
      $if: [{ value: { $var: [role, $properties.part.messageID] }, equals: assistant }]
    ids:
      turn: { value: { $var: [turn] }, op: open }
      item: { path: properties.part.id, op: open }
    steps:
      - { set: [seen, $properties.part.id], value: true, if: { new: item } }
      - { emit: item.started, payload: { itemType: assistant_message } }
      - snapshot: { stream: assistant_text, text: $properties.part.text }
    examples: [{ in: {}, out: [] }]
  - rule: role
    match: message.updated
    steps:
      - { set: [role, $properties.info.id], value: $properties.info.role }
      - dispatch: { type: session.idle, properties: { sessionID: $properties.info.sessionID } }
    examples: [{ in: {}, out: [] }]
  - rule: idle
    match: session.idle
    steps: [{ emit: runtime.warning, payload: { message: idle } }]
    examples: [{ in: {}, out: [] }]
`);

const codes = (text: string) => gen.tables.loadTable("mini-late.yaml", text, cx).diagnostics.map((d) => d.code).filter((c) => c !== "E300");

describe("DSL: hold rows, $if, snapshot entries, conditional set, message replay", () => {
  it("a table using all of them loads without diagnostics (other than E300: the 88 event types this table leaves out)", () => {
    const r = gen.tables.loadTable("mini-late.yaml", TABLE, cx);
    expect(r.diagnostics.filter((d) => d.code !== "E300").map(gen.diagnostics.formatDiagnostic)).toEqual([]);
    expect(r.diagnostics.length).toBe(88);
    expect(r.table!.rows.map((x) => x.rule)).toEqual(["wait", "text", "role", "idle"]);
  });

  it("emits a hold row as `return cx.hold(key)`, $if as a test of the computed value, the snapshot after item.started, set under its if", () => {
    const t = gen.tables.loadTable("mini-late.yaml", TABLE, cx).table!;
    const code = gen.emitMapper.emitMapper(t, "../upstream/mini-late.gen.js", {}, "// test");
    expect(code).toMatch(/function r_wait[^]*?return cx\.hold\(\["role", m\.properties\?\.part\?\.messageID\]\);\n\}/);
    expect(code).toContain('if (!(cx.vars.role.get(m.properties?.part?.messageID) === "assistant")) return false;');
    expect(code).toContain('if (cx.isNew("item")) cx.setVarIn(cx.vars.seen, m.properties?.part?.id, true);');
    expect(code).toContain("cx.ref(ID_turn_open, cx.vars.turn);");
    const body = code.slice(code.indexOf("function r_text"), code.indexOf("function r_role"));
    expect(body.indexOf('cx.emit("item.started"')).toBeGreaterThan(0);
    expect(body.indexOf('cx.snapshot("assistant_text"')).toBeGreaterThan(body.indexOf('cx.emit("item.started"'));
    expect(code).toContain('cx.replay({ type: "session.idle", properties: { sessionID: m.properties?.info?.sessionID } });');
  });

  it("rejects a hold row that also emits (E281), a malformed $if entry (E235), a snapshot entry without ids.item (E261)", () => {
    expect(codes(TABLE.replace("    hold: [role, $properties.part.messageID]\n", "    hold: [role, $properties.part.messageID]\n    steps: [{ emit: runtime.warning, payload: { message: x } }]\n"))).toContain("E281");
    expect(codes(TABLE.replace("equals: assistant }", "equals: assistant, in: [user] }"))).toContain("E235");
    expect(codes(TABLE.replace("      item: { path: properties.part.id, op: open }\n", ""))).toContain("E261");
  });

  it("a variable's key starts with its name, a word (E266); a name is one variable, keyed or not, over every table (E267)", () => {
    expect(codes(TABLE.replace("{ set: [seen, $properties.part.id]", "{ set: [$properties.part.id, seen]"))).toContain("E266");
    expect(codes(TABLE.replace("$var: [role, $properties.part.messageID]", "$var: [\"a b\", $properties.part.messageID]"))).toContain("E266");
    expect(codes(TABLE.replace("hold: [role, $properties.part.messageID]", "hold: [{ $var: [turn] }, x]"))).toContain("E266");
    const t = gen.tables.loadTable("mini-late.yaml", TABLE, cx).table!;
    const vars = gen.emitVars.emitVars([t], "// test");
    expect(vars).toContain("  turn: unknown = undefined;");
    expect(vars).toContain('  get role(): VarStore {');
    const both = gen.tables.loadTable("mini-late.yaml", TABLE.replace("{ set: [seen, $properties.part.id]", "{ set: [turn, $properties.part.id]"), cx).table!;
    expect(() => gen.emitVars.emitVars([both], "// test")).toThrow(/E267.*"turn" is used both with and without a key/);
  });

  it("checks paths inside $if and snapshot entries against the upstream schema (E220)", () => {
    expect(codes(TABLE.replace("$properties.part.text", "$properties.part.nope"))).toContain("E220");
    expect(codes(TABLE.replace("value: { $var: [role, $properties.part.messageID] }", "value: { $var: [role, $properties.part.messageId] }"))).toContain("E220");
  });
});
