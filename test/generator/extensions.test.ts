/**
 * DSL: `upstream.extensions` (more method files for a kind, from another schema folder) and method patterns
 * (`prefix*` rows for methods no exact row or ignore entry names), checked on the mini table.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MINI_FILE, ROOT, loadGenerator, miniText, tableContext, type Diagnostic, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  // Opens each table folder by its path, so the extension's folder is its own.
  cx = { ...tableContext(gen), upstream: (dir: string) => new gen.upstream.UpstreamSchemas(join(ROOT, dir)) };
});

const EXT = `  extensions:
    - name: vendor
      package: "@example/vendor"
      version: 0.1.0
      dir: test/generator/fixtures/mini-extension
      kinds:
        notification: { file: ExtNotifications.json }
`;
const PING_ROW = `  - rule: ext-ping
    match: ext/ping
    ids:
      thread: params.threadId
    steps:
      - emit: runtime.warning
        payload:
          message: ping
          detail: $params.note
    examples:
      - in: { method: ext/ping, params: { threadId: t1, note: hi } }
        out:
          - { type: runtime.warning, payload: { message: ping, detail: hi } }
`;
const PATTERN_ROW = (method: string) => `  - rule: ext-any
    match: "${method}"
    steps:
      - emit: runtime.warning
        payload:
          message: extension
          detail: $params
    examples:
      - in: { method: ext/other, params: { a: 1 } }
        out:
          - { type: runtime.warning, payload: { message: extension } }
`;

/** The mini table with the extension declared and extra rows appended to `rows:`. */
function table(opts: { ext?: string; rows?: string[] }): string {
  let t = miniText();
  const kindsLine = "    notification: { file: Notifications.json, source: codex.app-server.notification }\n";
  expect(t).toContain(kindsLine);
  if (opts.ext !== undefined) t = t.replace(kindsLine, kindsLine + opts.ext);
  if (opts.rows?.length) t = t.replace("\nrows:\n", `\nrows:\n${opts.rows.join("")}`);
  return t;
}
const load = (text: string) => gen.tables.loadTable(MINI_FILE, text, cx);
const codes = (ds: Diagnostic[]) => ds.map((d) => `${d.code} ${d.message}`);

describe("upstream.extensions", () => {
  it("an extension's method must be mapped: E300 names it", () => {
    const r = load(table({ ext: EXT }));
    expect(codes(r.diagnostics)).toEqual([expect.stringMatching(/^E300 notification method "ext\/ping" .* is neither mapped nor ignored/)]);
  });

  it("mapped, it joins the kind's upstream methods; its params are typed by the extension's schema", () => {
    const r = load(table({ ext: EXT, rows: [PING_ROW] }));
    expect(codes(r.diagnostics)).toEqual([]);
    const kind = (r.table as any).kinds.find((k: any) => k.kind === "notification");
    expect(kind.upstreamMethods).toContain("ext/ping");
    expect(kind.upstreamMethods).toContain("thing/started");
    expect(kind.extraFiles).toEqual([{ dir: "test/generator/fixtures/mini-extension", file: "ExtNotifications.json", extension: "vendor" }]);
    // A field the extension's schema lacks is an error, like any upstream path.
    const bad = load(table({ ext: EXT, rows: [PING_ROW.replace("$params.note", "$params.nope")] }));
    expect(codes(bad.diagnostics)).toEqual([expect.stringMatching(/^E220 field "params.nope" does not exist/)]);
  });

  it("a kind the table does not declare → E208; a method two files define → E209", () => {
    const undeclared = load(table({ ext: EXT.replace("notification: { file", "request: { file"), rows: [PING_ROW] }));
    expect(codes(undeclared.diagnostics)).toContainEqual(expect.stringMatching(/^E208 extension kind "request" is not declared/));
    const twice = EXT + EXT.replace("- name: vendor", "- name: again").replace(/^ {2}extensions:\n/, "");
    const dup = load(table({ ext: twice, rows: [PING_ROW] }));
    expect(codes(dup.diagnostics)).toEqual([expect.stringMatching(/^E209 notification method "ext\/ping" of .* is already defined/)]);
  });
});

describe("upstream.extensions: raw.source of an extension's methods", () => {
  it("a kind's `source` is the raw.source of the extension's own methods only; an unknown source → E202", () => {
    const r = load(table({ ext: EXT.replace("{ file: ExtNotifications.json }", "{ file: ExtNotifications.json, source: cursor.acp.notification }"), rows: [PING_ROW] }));
    expect(codes(r.diagnostics)).toEqual([]);
    const kind = (r.table as any).kinds.find((k: any) => k.kind === "notification");
    expect(kind.methodSources).toEqual({ "ext/ping": "cursor.acp.notification" });
    expect(kind.source).toBe("codex.app-server.notification");
    const bad = load(table({ ext: EXT.replace("{ file: ExtNotifications.json }", "{ file: ExtNotifications.json, source: vendor.event }"), rows: [PING_ROW] }));
    expect(codes(bad.diagnostics)).toEqual([expect.stringMatching(/^E202 unknown raw source "vendor.event"/)]);
  });

  it("a kind without a file (only a response kind may) → E203", () => {
    const r = load(table({ ext: EXT.replace("{ file: ExtNotifications.json }", "{ source: cursor.acp.notification }") }));
    expect(codes(r.diagnostics)).toContainEqual(expect.stringMatching(/^E203 extension kind "notification" needs a "file"/));
  });
});

describe("method patterns", () => {
  it("a `prefix*` row is valid on a notification kind and does not count as mapping an upstream method", () => {
    const r = load(table({ ext: EXT, rows: [PATTERN_ROW("ext/*")] }));
    // ext/ping is still neither mapped nor ignored: a pattern is for methods upstream does not list.
    expect(codes(r.diagnostics)).toEqual([expect.stringMatching(/^E300 notification method "ext\/ping"/)]);
    const ok = load(table({ ext: EXT, rows: [PING_ROW, PATTERN_ROW("ext/*")] }));
    expect(codes(ok.diagnostics)).toEqual([]);
  });

  it("an ignore entry's `prefix*` is valid and does not count as ignoring an upstream method; a malformed one → E213", () => {
    const ignoring = (m: string) => table({ ext: EXT }).replace(/\nignored:.*\n/, `\nignored:\n  - kind: notification\n    match: ["${m}"]\n    reason: what older versions sent\n`);
    expect(table({ ext: EXT })).toMatch(/\nignored:.*\n/);
    const r = load(ignoring("ext/*"));
    // ext/ping stays neither mapped nor ignored: the pattern is for methods no schema lists.
    expect(codes(r.diagnostics)).toEqual([expect.stringMatching(/^E300 notification method "ext\/ping"/)]);
    expect((r.table as any).ignored).toContainEqual(expect.objectContaining({ methods: ["ext/*"] }));
    const bad = load(ignoring("ext*/x"));
    expect(codes(bad.diagnostics)).toContainEqual(expect.stringMatching(/^E213 "ext\*\/x": a method pattern is a prefix/));
  });

  it("a `*` anywhere but at the end → E213", () => {
    const r = load(table({ rows: [PATTERN_ROW("ext*/x")] }));
    expect(codes(r.diagnostics)).toEqual([expect.stringMatching(/^E213 "ext\*\/x": a method pattern is a prefix followed by one "\*" at the end/)]);
  });
});
