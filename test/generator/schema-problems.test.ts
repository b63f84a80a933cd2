/**
 * A bad or missing upstream schema, canonical model or generator input is a user mistake: codegen reports it as
 * `file:line:col error CODE message` (one line per problem, exit 1), never as a stack trace.
 *
 * Upstream problems are checked on a throwaway folder through UpstreamSchemas, and end to end through buildAll on
 * a throwaway root holding the mini table (miniRoot); one run goes through the CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINI_PINNED, ROOT, loadGenerator, miniRoot, relist, type Diagnostic, type Generator } from "./gen.ts";

let gen: Generator;
const tmps: string[] = [];
beforeAll(async () => {
  gen = await loadGenerator();
});
afterAll(() => {
  for (const t of tmps) rmSync(t, { recursive: true, force: true });
});

const fmt = (d: Diagnostic) => gen.diagnostics.formatDiagnostic(d);
/** buildAll on a mini root, for its one table (a full run would also report the helpers no table calls, E402). */
const build = (r0: string) => gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
function tmpDir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "agentnorm-upstream-"));
  tmps.push(d);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
  return d;
}
function root(): string {
  const r = miniRoot();
  tmps.push(r);
  return r;
}
/** The diagnostics a call throws (a DiagnosticError), or fails the test if it throws anything else or nothing. */
function thrown(f: () => unknown): Diagnostic[] {
  try {
    f();
  } catch (e: any) {
    expect(e?.name, String(e?.stack)).toBe("DiagnosticError");
    return e.diagnostics;
  }
  throw new Error("expected a DiagnosticError");
}
const lineOf = (text: string, part: string) => text.slice(0, text.indexOf(part)).split("\n").length;
const colOf = (text: string, part: string) => text.indexOf(part) - text.lastIndexOf("\n", text.indexOf(part));

describe("upstream schema files", () => {
  it("a missing file → E500 naming the file by the folder's label", () => {
    const up = new gen.upstream.UpstreamSchemas(tmpDir({}), "schemas/upstream/x/1");
    expect(thrown(() => up.doc("Gone.json")).map(fmt)).toEqual(["schemas/upstream/x/1/Gone.json:1:1 error E500 cannot read upstream schema file: ENOENT"]);
  });

  it("invalid JSON → E501 at the line and column of the mistake", () => {
    const text = '{\n  "oneOf": [\n    { "type": "object", }\n  ]\n}\n';
    const up = new gen.upstream.UpstreamSchemas(tmpDir({ "Bad.json": text }), "up");
    const [d, ...more] = thrown(() => up.methods("Bad.json"));
    expect(more).toEqual([]);
    expect(d.code).toBe("E501");
    expect(d.file).toBe("up/Bad.json");
    expect([d.line, d.col]).toEqual([3, 25]); // the "}" after the trailing comma
    expect(fmt(d)).toMatch(/^up\/Bad\.json:3:25 error E501 upstream schema file is not valid JSON: /);
  });

  it("a file that is not a JSON object → E502", () => {
    const up = new gen.upstream.UpstreamSchemas(tmpDir({ "List.json": "[1, 2]\n" }), "up");
    expect(thrown(() => up.doc("List.json")).map(fmt)).toEqual(["up/List.json:1:1 error E502 an upstream schema file must hold a JSON Schema object, not an array"]);
  });

  it("a message file without oneOf → E503; a member without a string tag → E504 at that member", () => {
    const text = JSON.stringify({ oneOf: [{ properties: { method: { enum: ["a/b"] } } }, { properties: { method: { type: "string" } } }] }, null, 2);
    const up = new gen.upstream.UpstreamSchemas(tmpDir({ "NoUnion.json": '{ "type": "object" }', "Untagged.json": text }), "up");
    expect(thrown(() => up.methods("NoUnion.json")).map((d) => d.code)).toEqual(["E503"]);
    const [d] = thrown(() => up.methods("Untagged.json"));
    expect(d.code).toBe("E504");
    expect(d.message).toContain("oneOf member 1 has no string \"method\"");
    // member 1 starts on the line after member 0's closing brace
    const ls = text.split("\n");
    expect(d.line).toBe(ls.findIndex((l, i) => i > 0 && l.trim() === "{" && ls[i - 1].trim() === "},") + 1);
    expect(d.col).toBe(5);
  });

  it("a $ref outside the file → E505, one that does not resolve → E506, each at the $ref", () => {
    const text = '{\n  "definitions": {\n    "A": { "$ref": "other.json#/X" },\n    "B": { "$ref": "#/definitions/Nope" }\n  }\n}\n';
    const up = new gen.upstream.UpstreamSchemas(tmpDir({ "Refs.json": text }), "up");
    const doc = up.doc("Refs.json");
    const at = (name: string) => thrown(() => gen.upstream.variants({ file: "Refs.json", doc, node: { $ref: `#/definitions/${name}` } }));
    expect(at("A").map(fmt)).toEqual([`up/Refs.json:3:12 error E505 $ref "other.json#/X" points outside its file; only local references ("#/…") are supported`]);
    expect(at("B").map(fmt)).toEqual([`up/Refs.json:4:12 error E506 $ref "#/definitions/Nope" does not resolve in its file`]);
    // resolvePath (what the table checks run) reports the same instead of throwing a plain Error
    expect(thrown(() => gen.upstream.resolvePath({ file: "Refs.json", doc, node: { $ref: "#/definitions/B" } }, ["x"]))[0].code).toBe("E506");
  });
});

describe("buildAll on a broken input", () => {
  it("the mini root is valid as made (the base of the cases below)", async () => {
    const r = await build(root());
    expect(r.diagnostics.map(fmt)).toEqual([]);
    expect(r.files!.has("generated/mappers/mini.gen.ts")).toBe(true);
  });

  it("a broken upstream message file → its diagnostic instead of a throw, and no files", async () => {
    const r0 = root();
    const file = join(r0, MINI_PINNED, "Notifications.json");
    writeFileSync(file, readFileSync(file, "utf8").replace(/"oneOf"\s*:\s*\[/, '"oneOf": [,'));
    relist(r0);
    const r = await build(r0);
    expect(r.files).toBeUndefined();
    expect(r.diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual([`${MINI_PINNED}/Notifications.json E501`]);
  });

  it("a definition two message files of a kind define differently → E507 at the second file's definition", async () => {
    const r0 = root();
    const mini = JSON.parse(readFileSync(join(r0, MINI_PINNED, "Notifications.json"), "utf8"));
    const ext = {
      title: "Ext",
      oneOf: [{ type: "object", properties: { method: { enum: ["ext/ping"] }, params: { $ref: "#/definitions/Owner" } }, required: ["method"] }],
      definitions: { Owner: { type: "object", properties: { other: { type: "number" } } } },
    };
    expect(mini.definitions.Owner).toBeDefined();
    const extText = JSON.stringify(ext, null, 2);
    writeFileSync(join(r0, MINI_PINNED, "Ext.json"), extText);
    const table = join(r0, "mappings/mini.yaml");
    const kinds = "    notification: { file: Notifications.json, source: codex.app-server.notification }\n";
    const t = readFileSync(table, "utf8");
    expect(t).toContain(kinds);
    writeFileSync(table, t.replace(kinds, `${kinds}  extensions:\n    - { name: ext, package: "@example/ext", version: 0.1.0, dir: ${MINI_PINNED}, kinds: { notification: { file: Ext.json } } }\n`)
      .replace(/\nignored:\n/, "\nignored:\n  - kind: notification\n    match: [ext/ping]\n    reason: not what this test is about\n"));
    relist(r0);
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    const relevant = r.diagnostics;
    expect(relevant.map(fmt)).toEqual([
      `${MINI_PINNED}/Ext.json:${lineOf(extText, '"Owner": {')}:${colOf(extText, '"Owner": {') + '"Owner": '.length} error E507 definition "Owner" differs from the one in ${MINI_PINNED}/Notifications.json; the mini message types cannot be merged (give one of them another name)`,
    ]);
  });

  it("a message-type definition json-schema-to-typescript cannot resolve → E508", async () => {
    const r0 = root();
    const file = join(r0, MINI_PINNED, "Notifications.json");
    const doc = JSON.parse(readFileSync(file, "utf8"));
    doc.definitions.Unused = { $ref: "elsewhere.json#/definitions/X" }; // no table path reaches it, so only the type emitter sees it
    writeFileSync(file, JSON.stringify(doc, null, 2));
    relist(r0);
    const r = await build(r0);
    expect(r.diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual([`${MINI_PINNED}/Notifications.json E508`]);
  });

  it("missing or unreadable inputs → E404 each", async () => {
    const r0 = root();
    mkdirSync(join(r0, "mappings/helpers/broken.ts")); // a helper module that cannot be read
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    expect(r.diagnostics.map(fmt)).toEqual(["mappings/helpers:1:1 error E404 cannot read the helper modules: EISDIR"]);
    unlinkSync(join(r0, "schemas/canonical/canonical.yaml"));
    rmSync(join(r0, "mappings"), { recursive: true });
    const r2 = await gen.pipeline.buildAll(r0);
    expect(r2.diagnostics.map(fmt)).toEqual([
      "mappings:1:1 error E404 cannot list the mapping tables: ENOENT",
      "schemas/canonical/canonical.yaml:1:1 error E404 cannot read the canonical model: ENOENT",
    ]);
  });

  it("a mapping table that is listed but missing → E404", async () => {
    const r = await gen.pipeline.buildAll(root(), { tables: ["mappings/mini.yaml", "mappings/gone.yaml"] });
    expect(r.diagnostics.map(fmt)).toEqual(["mappings/gone.yaml:1:1 error E404 cannot read the mapping table: ENOENT"]);
  });
});

describe("canonical model", () => {
  const canonical = () => readFileSync(join(ROOT, "schemas/canonical/canonical.yaml"), "utf8");
  const load = (text: string) => gen.canonical.loadCanonical("c.yaml", text).diagnostics;

  it("sections of the wrong shape → E110 at the section; a top level that is not a mapping → E110", () => {
    expect(load("- a\n- b\n").map((d) => d.code)).toEqual(["E110"]);
    const text = canonical().replace(/^eventTypes:\n/m, "eventTypes: thread.started\nunusedTypes:\n");
    const ds = load(text);
    expect(ds.map(fmt)).toEqual([`c.yaml:${lineOf(text, "eventTypes: thread.started") }:13 error E110 eventTypes must be a list of event type names, not a string`]);
    const ids = canonical().replace("  EventId: evt\n", "  EventId: [evt]\n");
    expect(load(ids).map(fmt)).toEqual([`c.yaml:${lineOf(ids, "  EventId: [evt]")}:12 error E110 ids.EventId must be a lower-case prefix (letters and digits), not a list`]);
  });

  it("an enum the generator reads is missing → E111", () => {
    const text = canonical().replace(/^ {2}ProviderKind:/m, "  ProviderKinds:");
    expect(load(text).map((d) => `${d.code} ${d.message}`)).toEqual([`E111 the canonical model must define enum "ProviderKind" (the mapping tables are checked against it)`]);
  });

  it("a payload schema ajv rejects → E112 at that payload, through buildAll (no stack trace)", async () => {
    const r0 = root();
    const file = join(r0, "schemas/canonical/canonical.yaml");
    const text = readFileSync(file, "utf8");
    const line = "    properties: { providerThreadId: { type: string } }";
    expect(text).toContain(`  thread.started:\n${line}\n`);
    const broken = text.replace(`  thread.started:\n${line}\n`, `  thread.started:\n${line.replace("type: string", "type: strng")}\n`);
    writeFileSync(file, broken);
    const r = await build(r0);
    const e112 = r.diagnostics.filter((d) => d.code === "E112");
    expect(e112.length).toBeGreaterThan(0);
    expect(e112[0].file).toBe("schemas/canonical/canonical.yaml");
    expect(e112[0].line).toBe(lineOf(broken, "{ type: strng }"));
    expect(e112[0].col).toBe(colOf(broken, "strng }")); // at the bad value
    expect(e112[0].message).toMatch(/^invalid JSON Schema: type must be/);
    expect(r.files).toBeUndefined();
  });

  it("an unknown schema keyword (ajv strict mode) → E112 at that keyword", async () => {
    const r0 = root();
    const file = join(r0, "schemas/canonical/canonical.yaml");
    const text = readFileSync(file, "utf8").replace(/^( {2}thread\.started:\n)/m, "$1    descripton: typo\n");
    writeFileSync(file, text);
    const r = await build(r0);
    expect(r.diagnostics.map((d) => `${d.code}@${d.line}`)).toEqual([`E112@${lineOf(text, "    descripton: typo")}`]);
    expect(r.diagnostics[0].message).toContain('unknown keyword: "descripton"');
  });
});

describe("codegen CLI on broken upstream schemas", () => {
  it("prints one file:line:col line per problem, exits 1, no stack trace", () => {
    const r0 = root();
    // a second table over a second broken folder, so two problems are reported at once
    const mini = readFileSync(join(r0, "mappings/mini.yaml"), "utf8");
    writeFileSync(join(r0, "mappings/mini2.yaml"), mini.replace("surface: mini", "surface: mini2").replaceAll(MINI_PINNED, "schemas/upstream/mini/2.0.0"));
    const dir2 = join(r0, "schemas/upstream/mini/2.0.0");
    spawnSync("cp", ["-r", join(r0, MINI_PINNED), dir2]);
    writeFileSync(join(r0, MINI_PINNED, "Notifications.json"), "{ nope");
    writeFileSync(join(dir2, "Notifications.json"), "[]");
    const r = spawnSync(process.execPath, ["--import", "tsx", "generator/cli.ts", `--root=${r0}`, "--table=mappings/mini.yaml", "--table=mappings/mini2.yaml"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines.filter((l) => / error E50\d /.test(l)).map((l) => l.replace(/ error (E\d+) .*/, " $1"))).toEqual([
      `${MINI_PINNED}/Notifications.json:1:3 E501`,
      "schemas/upstream/mini/2.0.0/Notifications.json:1:1 E502",
    ]);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(lines.at(-1)).toMatch(/error\(s\); nothing was written\.$/);
  });
});
