/**
 * A deliberately broken mapping row fails codegen with its file:line:col and error code.
 *
 * Every case starts from test/generator/fixtures/mini.yaml — a minimal valid table over the fake upstream in
 * fixtures/mini-upstream/Notifications.json (4 methods: thing/started with nested objects and a nullable
 * owner, thing/status with an enum field, thing/delta, misc/noise) — changes a line or two in memory, and
 * checks the exact diagnostics: codes, lines (computed from the mutated text, not copied from the output),
 * columns and the printed form `file:line:col error CODE message`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINI_FILE, ROOT, loadGenerator, miniText, tableContext, type Diagnostic, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
let base: string;

beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen);
  base = miniText();
});

// ── text surgery on whole lines ─────────────────────────────────────────────────────────────────────────

function lines(text: string): string[] {
  return text.split("\n");
}

/** 1-based number of the one line equal to `line` (throws unless there is exactly one). */
function lineOf(text: string, line: string): number {
  const hits = lines(text).flatMap((l, i) => (l === line ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`expected exactly one line ${JSON.stringify(line)}, found ${hits.length}`);
  return hits[0];
}

/** 1-based column of `part` within the one line equal to `line`. */
function colOf(line: string, part: string): number {
  const i = line.indexOf(part);
  if (i < 0) throw new Error(`${JSON.stringify(part)} is not in ${JSON.stringify(line)}`);
  return i + 1;
}

/** Replace the one line equal to `from` by `to` (which may hold several lines, or be null to delete it). */
function replaceLine(text: string, from: string, to: string | null): string {
  const n = lineOf(text, from);
  const ls = lines(text);
  ls.splice(n - 1, 1, ...(to === null ? [] : [to]));
  return ls.join("\n");
}

/** Delete `count` lines starting at the one line equal to `first`. */
function deleteLines(text: string, first: string, count: number): string {
  const n = lineOf(text, first);
  const ls = lines(text);
  ls.splice(n - 1, count);
  return ls.join("\n");
}

function load(text: string): Diagnostic[] {
  return gen.tables.loadTable(MINI_FILE, text, cx).diagnostics;
}

const codeAt = (ds: Diagnostic[]) => ds.map((d) => `${d.code}@${d.line}`).sort();
const fmt = (d: Diagnostic) => gen.diagnostics.formatDiagnostic(d);
const only = (ds: Diagnostic[], code: string) => {
  const hits = ds.filter((d) => d.code === code);
  expect(hits, `exactly one ${code} in ${JSON.stringify(ds.map(fmt))}`).toHaveLength(1);
  return hits[0];
};

// ── the starting point ──────────────────────────────────────────────────────────────────────────────────

describe("the mini table", () => {
  it("is valid: no diagnostics, four rows, two maps", () => {
    const r = gen.tables.loadTable(MINI_FILE, base, cx);
    expect(r.diagnostics.map(fmt)).toEqual([]);
    expect(r.table?.rows.map((x) => x.rule)).toEqual(["thing-started", "thing-status-broken", "thing-status", "thing-delta"]);
    expect(r.table?.rows.map((x) => x.line)).toEqual([
      lineOf(base, "  - rule: thing-started"),
      lineOf(base, "  - rule: thing-status-broken"),
      lineOf(base, "  - rule: thing-status"),
      lineOf(base, "  - rule: thing-delta"),
    ]);
    expect(r.table?.maps.map((m) => m.name)).toEqual(["thingKind", "thingStatus"]);
  });

  it("formatDiagnostic prints file:line:col error CODE message", () => {
    expect(fmt({ file: "mappings/x.yaml", line: 12, col: 7, code: "E250", message: "boom" })).toBe("mappings/x.yaml:12:7 error E250 boom");
  });
});

// ── one broken variant per check ────────────────────────────────────────────────────────────────────────

describe("a broken row fails with its file and line", () => {
  it("YAML syntax error → E001 at the offending line and column", () => {
    const bad = "          delta: $params.delta: x";
    const text = replaceLine(base, "          delta: $params.delta", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E001@${lineOf(text, bad)}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${lineOf(text, bad)}:${colOf(bad, "$params.delta: x")} error E001 YAML: Nested mappings are not allowed in compact mappings`);
  });

  it("YAML duplicate key → E001 at the second key", () => {
    const text = replaceLine(base, "    match: thing/delta", "    match: thing/delta\n    match: thing/delta");
    const ds = load(text);
    const second = lineOf(base, "    match: thing/delta") + 1;
    expect(codeAt(ds)).toEqual([`E001@${second}`]);
    expect(fmt(ds[0])).toMatch(new RegExp(`^${MINI_FILE}:${second}:5 error E001 YAML: Map keys must be unique`));
  });

  it("unknown top-level key → E200 at that key", () => {
    const text = replaceLine(base, "protocol: jsonrpc", "protocol: jsonrpc\ndescripton: a typo of description");
    const ds = load(text);
    const line = lineOf(text, "descripton: a typo of description");
    expect(codeAt(ds)).toEqual([`E200@${line}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${line}:1 error E200 (top level) must NOT have additional properties: "descripton"`);
  });

  it("misspelled canonical event type → E250 at the type, with did-you-mean", () => {
    const bad = "      - emit: content.delt";
    const text = replaceLine(base, "      - emit: content.delta", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E250@${lineOf(text, bad)}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${lineOf(text, bad)}:${colOf(bad, "content.delt")} error E250 unknown canonical event type "content.delt" (did you mean "content.delta"?)`);
  });

  it("a field path that does not exist upstream ($params.nope) → E220 naming the field and the known fields", () => {
    const bad = "          delta: $params.nope";
    const text = replaceLine(base, "          delta: $params.delta", bad);
    const ds = load(text);
    const line = lineOf(text, bad);
    expect(codeAt(ds)).toEqual([`E220@${line}`]);
    const d = ds[0];
    expect(d.col).toBe(colOf(bad, "$params.nope"));
    expect(d.message).toContain(`field "params.nope" does not exist in the upstream schema of notification thing/delta`);
    expect(d.message).toContain("known here: delta, itemId, threadId");
    expect(fmt(d).startsWith(`${MINI_FILE}:${line}:${d.col} error E220 field "params.nope"`)).toBe(true);
  });

  it("a nested field path that does not exist → E220 at the first missing segment, with did-you-mean", () => {
    const bad = "          detail: $params.thing.detail.txt";
    const text = replaceLine(base, "          detail: $params.thing.detail.text", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E220@${lineOf(text, bad)}`]);
    expect(ds[0].message).toBe(
      `field "params.thing.detail.txt" does not exist in the upstream schema of notification thing/started (did you mean "text"?); known here: lines, text`,
    );
  });

  it("a method not in upstream → E214 at the method, with did-you-mean", () => {
    // The guard row's method; thing/status stays covered by the unconditional row below it.
    const from = "    match: thing/status\n    when:";
    expect(base.split(from)).toHaveLength(2);
    const text = base.replace(from, "    match: thing/stats\n    when:");
    const ds = load(text);
    const line = lineOf(text, "    match: thing/stats");
    expect(codeAt(ds)).toEqual([`E214@${line}`]);
    expect(fmt(ds[0])).toBe(
      `${MINI_FILE}:${line}:12 error E214 notification method "thing/stats" does not exist in the upstream schema @example/mini@1.0.0 (did you mean "thing/status"?)`,
    );
  });

  it("an ignore entry for a method upstream does not list: E214, unless it says unlisted; unlisted on a listed method, a pattern or with versions → E231", () => {
    const entry = (extra: string) => base.replace("ignored:\n", `ignored:\n  - kind: notification\n    match: [thing/heartbeat]\n${extra}    reason: a keep-alive the schema does not list\n`);
    const plain = entry("");
    expect(codeAt(load(plain))).toEqual([`E214@${lineOf(plain, "    match: [thing/heartbeat]")}`]);
    expect(load(entry("    unlisted: true\n"))).toEqual([]);
    const listed = base.replace("    match: [misc/noise]\n", "    match: [misc/noise]\n    unlisted: true\n");
    const ds = load(listed);
    expect(codeAt(ds)).toEqual([`E231@${lineOf(listed, "    match: [misc/noise]")}`]);
    expect(ds[0].message).toBe('notification method "misc/noise" is in the upstream schema @example/mini@1.0.0: not unlisted (drop `unlisted: true`)');
    const pattern = base.replace("ignored:\n", "ignored:\n  - kind: notification\n    match: [thing/*]\n    unlisted: true\n    reason: r\n");
    expect(codeAt(load(pattern))).toEqual([`E231@${lineOf(pattern, "    match: [thing/*]")}`]);
    const versions = entry("    unlisted: true\n    versions: \">=1.0.0\"\n");
    expect(load(versions).map((d) => d.code)).toContain("E231");
  });

  it("an upstream method neither mapped nor ignored → E300 at the kind's declaration", () => {
    const first = "ignored:";
    const text = deleteLines(base, first, 4);
    expect(text).not.toContain("misc/noise");
    const ds = load(text);
    const kindLine = "    notification: { file: Notifications.json, source: codex.app-server.notification }";
    expect(codeAt(ds)).toEqual([`E300@${lineOf(text, kindLine)}`]);
    expect(ds[0].message).toBe(`notification method "misc/noise" of @example/mini@1.0.0 is neither mapped nor ignored`);
  });

  it("the same method mapped and ignored → E210 at the ignore entry, naming the row's line", () => {
    const bad = "    match: [misc/noise, thing/delta]";
    const text = replaceLine(base, "    match: [misc/noise]", bad);
    const ds = load(text);
    const line = lineOf(text, bad);
    expect(codeAt(ds)).toEqual([`E210@${line}`]);
    expect(fmt(ds[0])).toBe(
      `${MINI_FILE}:${line}:${colOf(bad, "thing/delta")} error E210 notification method "thing/delta" is ignored here but mapped at line ${lineOf(text, "    match: thing/delta")}`,
    );
  });

  it("duplicate rule name → E212 at the second rule, naming the first", () => {
    const text = replaceLine(base, "  - rule: thing-delta", "  - rule: thing-status-broken");
    const ds = load(text);
    const lines2 = lines(text).flatMap((l, i) => (l === "  - rule: thing-status-broken" ? [i + 1] : []));
    expect(lines2).toHaveLength(2);
    expect(codeAt(ds)).toEqual([`E212@${lines2[1]}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${lines2[1]}:11 error E212 rule "thing-status-broken" is already used at line ${lines2[0]}`);
  });

  it("unknown map → E225 at the $map (and the map it meant becomes unused: E301)", () => {
    const from = "          itemType: { $map: thingKind, from: $params.thing.kind }";
    const bad = "          itemType: { $map: thingKnd, from: $params.thing.kind }";
    const text = replaceLine(base, from, bad);
    const ds = load(text);
    const e = only(ds, "E225");
    expect(fmt(e)).toBe(`${MINI_FILE}:${lineOf(text, bad)}:${colOf(bad, "thingKnd")} error E225 unknown map "thingKnd" (did you mean "thingKind"?)`);
    expect(fmt(only(ds, "E301"))).toBe(`${MINI_FILE}:${lineOf(text, "  thingKind:")}:3 error E301 map "thingKind" is never used`);
  });

  it("an unknown map gives no follow-on E256 (\"map … has no default\") for the map that does not exist", () => {
    // itemType is required in item.started; E225 already says the map is unknown, so a second error claiming
    // that map "thingKnd" has no default is noise about a map that isn't there.
    const from = "          itemType: { $map: thingKind, from: $params.thing.kind }";
    const bad = "          itemType: { $map: thingKnd, from: $params.thing.kind }";
    const text = replaceLine(base, from, bad);
    expect(codeAt(load(text))).toEqual([`E225@${lineOf(text, bad)}`, `E301@${lineOf(text, "  thingKind:")}`].sort());
  });

  it("a required field fed by a map without a default → E256", () => {
    const text = replaceLine(base, "    default: unknown", null);
    const ds = load(text);
    const line = lineOf(text, "          itemType: { $map: thingKind, from: $params.thing.kind }");
    expect(codeAt(ds)).toEqual([`E256@${line}`]);
    expect(ds[0].message).toContain(`"itemType" is required in the item.started payload, but map "thingKind" has no default`);
  });

  it("unused map → E301 at the map's key", () => {
    const text = replaceLine(base, "    default: error", "    default: error\n  spare:\n    values: { a: b }");
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E301@${lineOf(text, "  spare:")}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${lineOf(text, "  spare:")}:3 error E301 map "spare" is never used`);
  });

  it("unknown helper → E227 at the $helper, listing the helpers, with did-you-mean", () => {
    const from = `          message: { $first: [{ $text: $params.message, join: "\\n\\n" }, "thing broke"] }`;
    const bad = from.replace(`{ $text: $params.message, join: "\\n\\n" }`, "{ $helper: decodeChunc, args: [$params.message] }");
    const text = replaceLine(base, from, bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E227@${lineOf(text, bad)}`]);
    const d = ds[0];
    expect(d.col).toBe(colOf(bad, "decodeChunc"));
    expect(d.message).toMatch(/^unknown helper "decodeChunc" \(helpers of mappings\/helpers\/\*\.ts: [^)]*\bdecodeChunk\b[^)]*\) \(did you mean "decodeChunk"\?\)$/);
  });

  it("payload key not in the canonical payload → E252 at the key", () => {
    const text = replaceLine(base, "          delta: $params.delta", "          delta: $params.delta\n          colour: red");
    const ds = load(text);
    const line = lineOf(text, "          colour: red");
    expect(codeAt(ds)).toEqual([`E252@${line}`]);
    expect(fmt(ds[0])).toBe(
      `${MINI_FILE}:${line}:11 error E252 "colour" is not a field of the content.delta payload (fields: streamKind, delta, contentIndex, summaryIndex)`,
    );
  });

  it("literal enum value invalid for the canonical field → E253 at the value", () => {
    const bad = "          status: in_progress";
    const text = replaceLine(base, "          status: inProgress", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E253@${lineOf(text, bad)}`]);
    expect(fmt(ds[0])).toBe(
      `${MINI_FILE}:${lineOf(text, bad)}:19 error E253 "in_progress" is not a valid item.started status (inProgress, completed, failed, declined, superseded) (did you mean "inProgress"?)`,
    );
  });

  it("a map output not valid for the canonical enum → E254 at that map entry", () => {
    const bad = "    values: { alpha: assistant_message, beta: reasonin }";
    const text = replaceLine(base, "    values: { alpha: assistant_message, beta: reasoning }", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E254@${lineOf(text, bad)}`]);
    const d = ds[0];
    expect(d.col).toBe(colOf(bad, "reasonin"));
    expect(d.message).toMatch(/^map "thingKind" gives "reasonin", which is not a valid item\.started itemType \(user_message, assistant_message, reasoning, /);
  });

  it("a map default not valid for the canonical enum → E254", () => {
    // thingStatus feeds thread.state.changed state (ThreadState); "broken" is not a ThreadState.
    const text = replaceLine(base, "    default: error", "    default: broken");
    const ds = load(text);
    expect(ds.map((d) => d.code)).toEqual(["E254"]);
    expect(ds[0].line).toBe(lineOf(text, "          state: { $map: thingStatus, from: $params.status }"));
    expect(ds[0].message).toBe(`default "broken" is not a valid thread.state.changed state`);
  });

  it("a required payload field missing → E255 at the row's payload", () => {
    const text = replaceLine(base, "          streamKind: assistant_text", null);
    const ds = load(text);
    // The payload block now starts with its `delta:` line.
    const line = lineOf(text, "          delta: $params.delta");
    expect(codeAt(ds)).toEqual([`E255@${line}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${line}:11 error E255 the content.delta payload requires "streamKind"`);
  });

  it("a row with no examples → E291 at the row", () => {
    const rule = "  - rule: thing-delta";
    const deltaExamples = lineOf(base, `      - in: { method: thing/delta, params: { threadId: t1, itemId: i1, delta: "he" } }`) - 1;
    const ls = lines(base);
    expect(ls[deltaExamples - 1]).toBe("    examples:");
    ls.splice(deltaExamples - 1, 4);
    const text = ls.join("\n");
    expect(text).not.toContain("method: thing/delta, params");
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E291@${lineOf(text, rule)}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${lineOf(text, rule)}:11 error E291 row "thing-delta" has no examples`);
  });

  it("a `when` enum value upstream doesn't allow → E233 at the value, with the allowed values", () => {
    const bad = "      params.status: brokn";
    const text = replaceLine(base, "      params.status: broken", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E233@${lineOf(text, bad)}`]);
    expect(fmt(ds[0])).toBe(
      `${MINI_FILE}:${lineOf(text, bad)}:${colOf(bad, "brokn")} error E233 "brokn" is not a value of params.status upstream (idle, busy, broken) (did you mean "broken"?)`,
    );
  });

  it("a `when: {in: [...]}` value upstream doesn't allow → E233 at that list item", () => {
    const bad = "      params.status: { in: [broken, busted] }";
    const text = replaceLine(base, "      params.status: broken", bad);
    const ds = load(text);
    expect(codeAt(ds)).toEqual([`E233@${lineOf(text, bad)}`]);
    expect(ds[0].col).toBe(colOf(bad, "busted"));
  });

  it("`new: item` in `when` instead of `if` → E230 at the key", () => {
    const text = replaceLine(base, "    match: thing/started", "    match: thing/started\n    when:\n      new: item");
    const ds = load(text);
    const line = lineOf(text, "      new: item");
    expect(codeAt(ds)).toEqual([`E230@${line}`]);
    expect(fmt(ds[0])).toBe(`${MINI_FILE}:${line}:7 error E230 "new" is a runtime-state condition: use it in a step's "if", not in "when"`);
  });

  it("several mistakes in one table are all reported, each at its own line", () => {
    let text = replaceLine(base, "      - emit: content.delta", "      - emit: content.delt");
    text = replaceLine(text, "      params.status: broken", "      params.status: brokn");
    text = replaceLine(text, "          status: inProgress", "          status: in_progress");
    const ds = load(text);
    expect(codeAt(ds)).toEqual(
      [
        `E250@${lineOf(text, "      - emit: content.delt")}`,
        `E233@${lineOf(text, "      params.status: brokn")}`,
        `E253@${lineOf(text, "          status: in_progress")}`,
      ].sort(),
    );
  });
});

// ── end to end: the real table, through the CLI ─────────────────────────────────────────────────────────

describe("codegen CLI on a broken copy of the real inputs", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "agentnorm-codegen-"));
    for (const p of ["mappings", "schemas", "package.json"]) cpSync(join(ROOT, p), join(tmp, p), { recursive: true });
  });
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("exits 1, prints mappings/codex-app-server.yaml:LINE: with did-you-mean, and writes nothing", () => {
    const file = join(tmp, "mappings/codex-app-server.yaml");
    const ls = readFileSync(file, "utf8").split("\n");
    // The first emitted `type: thread.started` (an emit entry, not an example's out).
    const i = ls.findIndex((l) => /^\s+- emit: thread\.started\s*$/.test(l));
    expect(i).toBeGreaterThan(0);
    ls[i] = ls[i].replace("thread.started", "thread.startd");
    writeFileSync(file, ls.join("\n"));
    const line = i + 1;

    const r = spawnSync(process.execPath, ["--import", "tsx", "generator/cli.ts", `--root=${tmp}`], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`mappings/codex-app-server.yaml:${line}:`);
    expect(r.stderr).toMatch(new RegExp(`mappings/codex-app-server\\.yaml:${line}:\\d+ error E250 unknown canonical event type "thread\\.startd" \\(did you mean "thread\\.started"\\?\\)`));
    expect(r.stderr).toContain("did you mean");
    expect(r.stderr).toContain("1 error(s); nothing was written");
    expect(existsSync(join(tmp, "generated"))).toBe(false);
  });
});

describe("closeOpen.completes (item types that end with their turn)", () => {
  const row = (completes: string) => [
    "  - rule: thing-done",
    "    match: thing/delta",
    "    when:",
    "      params.delta: done",
    "    ids:",
    "      thread: params.threadId",
    "      turn: { op: closeCurrent }",
    "    steps:",
    `      - closeOpen: { status: failed, detail: "ended", completes: ${completes} }`,
    "      - emit: turn.completed",
    "        payload:",
    "          state: completed",
    "    examples:",
    "      - in: { method: thing/delta, params: { threadId: t1, itemId: i1, delta: done } }",
    "        out: []",
  ].join("\n");
  const withRow = (completes: string) => replaceLine(base, "  - rule: thing-delta", `${row(completes)}\n\n  - rule: thing-delta`);

  it("is passed to the runtime as the third closeOpen argument", () => {
    const r = gen.tables.loadTable(MINI_FILE, withRow("[reasoning, assistant_message]"), cx);
    expect(r.diagnostics.map(fmt)).toEqual([]);
    const code = gen.emitMapper.emitMapper(r.table!, "../upstream/mini.gen.js", {}, "// h");
    expect(code).toContain(`cx.closeOpen("failed", "ended", ["reasoning", "assistant_message"]);`);
  });

  it("rejects a value that is not a canonical item type, at its line", () => {
    const text = withRow("[reasonin]");
    const ds = load(text);
    expect(ds.length).toBeGreaterThan(0);
    expect(ds.map((d) => d.line)).toContain(lineOf(text, `      - closeOpen: { status: failed, detail: "ended", completes: [reasonin] }`));
  });
});
