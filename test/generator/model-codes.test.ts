/**
 * A trigger for each diagnostic code of the canonical model stage (E101–E108, beyond the shape and schema codes in
 * schema-problems.test.ts), of the pipeline (E400–E403) and of the type emitter's own E201. Each case breaks one
 * thing in a copy of the real canonical model or in a mini root (gen.ts miniRoot) and checks the code and where
 * it points.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { MINI_FILE, ROOT, loadGenerator, miniRoot, miniText, tableContext, type Diagnostic, type Generator } from "./gen.ts";

let gen: Generator;
const tmps: string[] = [];
beforeAll(async () => {
  gen = await loadGenerator();
});
afterAll(() => {
  for (const t of tmps) rmSync(t, { recursive: true, force: true });
});
const fmt = (d: Diagnostic) => gen.diagnostics.formatDiagnostic(d);
const root = () => {
  const r = miniRoot();
  tmps.push(r);
  return r;
};
const lineOf = (text: string, part: string) => {
  const i = text.indexOf(part);
  if (i < 0) throw new Error(`${JSON.stringify(part)} not in the text`);
  return text.slice(0, i).split("\n").length;
};

describe("canonical model codes", () => {
  const model = () => parseYaml(readFileSync(join(ROOT, "schemas/canonical/canonical.yaml"), "utf8"));
  /** The real model changed by `f`, written back as YAML and loaded: its text and diagnostics. */
  const load = (f: (m: any) => void) => {
    const m = model();
    f(m);
    const text = stringifyYaml(m);
    return { text, ds: gen.canonical.loadCanonical("c.yaml", text).diagnostics };
  };

  it("the unchanged model (through the same YAML round trip) loads without diagnostics", () => {
    expect(load(() => {}).ds.map(fmt)).toEqual([]);
  });

  it("E101: a missing section", () => {
    const { ds } = load((m) => { delete m.payloads; delete m.envelope; });
    expect(ds.map((d) => `${d.code} ${d.message}`)).toEqual([
      'E101 canonical model is missing the "payloads" section',
      'E101 canonical model is missing the "envelope" section',
    ]);
  });

  it("E102: an event type listed twice, at the second one", () => {
    const { text, ds } = load((m) => m.eventTypes.push("thread.started"));
    expect(ds.map((d) => `${d.code}@${d.line}`)).toEqual([`E102@${text.split("\n").lastIndexOf("  - thread.started") + 1}`]);
  });

  it("E103: an event type without a payload; E104: a payload not in eventTypes", () => {
    const { text, ds } = load((m) => { m.eventTypes.push("thing.happened"); m.payloads["other.thing"] = { properties: {} }; });
    expect(ds.map((d) => `${d.code}@${d.line}`).sort()).toEqual([`E103@${lineOf(text, "  - thing.happened")}`, `E104@${lineOf(text, "  other.thing:")}`].sort());
  });

  it("E105: a reference that does not resolve, at the $ref", () => {
    const { text, ds } = load((m) => { m.payloads["thread.started"].properties.extra = { $ref: "#/enums/NoSuchEnum" }; });
    expect(ds.map((d) => `${d.code}@${d.line} ${d.message}`)).toEqual([`E105@${lineOf(text, "#/enums/NoSuchEnum")} unresolved reference "#/enums/NoSuchEnum"`]);
  });

  it("E106: a lifecycle of an unknown role, a role of an unknown id kind", () => {
    const { ds } = load((m) => { m.lifecycle.item.role = "widget"; m.roles.task.id = "TaskNumber"; });
    expect(ds.map((d) => `${d.code} ${d.message}`).sort()).toEqual([
      'E106 unknown id kind "TaskNumber"',
      expect.stringMatching(/^E106 unknown role "widget" \(roles: /),
    ].sort());
  });

  it("E107: a lifecycle naming an unknown event type or guarding an event it does not have; E108: an unknown guard", () => {
    const { ds } = load((m) => {
      m.lifecycle.item.ends = [...m.lifecycle.item.ends, "item.vanished"];
      m.lifecycle.turn.guards = { ...m.lifecycle.turn.guards, "item.started": "once", "turn.started": "twice" };
    });
    expect(ds.map((d) => `${d.code} ${d.message}`).sort()).toEqual([
      'E107 guard for "item.started", which is not an event of the turn lifecycle',
      'E107 unknown event type "item.vanished"',
      'E108 unknown guard "twice" (once, open, notStale)',
    ]);
  });

  it("E114: a request kind naming an unknown request type, a type in two kinds, a type in none", () => {
    const { ds } = load((m) => {
      m.requestKinds.permission = [...m.requestKinds.permission.filter((t: string) => t !== "unknown"), "approve_everything"];
      m.requestKinds.question = [...m.requestKinds.question, "dynamic_tool_call"];
    });
    expect(ds.map((d) => `${d.code} ${d.message}`).sort()).toEqual([
      'E114 "approve_everything" is not a CanonicalRequestType value',
      'E114 "dynamic_tool_call" is already of request kind "question"',
      'E114 CanonicalRequestType "unknown" has no request kind',
    ]);
  });
});

describe("pipeline codes", () => {
  const only = { tables: ["mappings/mini.yaml", "mappings/mini2.yaml"] };
  const copyAs = (r0: string, surface: string, edit: (t: string) => string = (t) => t) =>
    writeFileSync(join(r0, "mappings/mini2.yaml"), edit(readFileSync(join(r0, "mappings/mini.yaml"), "utf8").replace("surface: mini", `surface: ${surface}`)));

  it("E400: two tables define one surface", async () => {
    const r0 = root();
    copyAs(r0, "mini");
    const r = await gen.pipeline.buildAll(r0, only);
    expect(r.diagnostics.map(fmt)).toEqual(['mappings/mini2.yaml:1:1 error E400 surface "mini" is already defined by mappings/mini.yaml']);
  });

  it("E401: a dispatch step names a surface no table defines, at the step", async () => {
    const r0 = root();
    const step = "      - { dispatch: $msg, surface: nowhere }";
    copyAs(r0, "mini2", (t) => t.replace("          delta: $params.delta\n", `          delta: $params.delta\n${step}\n`));
    const text = readFileSync(join(r0, "mappings/mini2.yaml"), "utf8");
    expect(text).toContain(step);
    const r = await gen.pipeline.buildAll(r0, only);
    expect(r.diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`)).toEqual([
      `mappings/mini2.yaml:${lineOf(text, step)} E401 row "thing-delta" dispatches to unknown surface "nowhere" (surfaces: mini, mini2)`,
    ]);
  });

  it("E402: a helper no table calls (full runs only), at its declaration", async () => {
    const r0 = root();
    writeFileSync(join(r0, "mappings/helpers/spare.ts"), "/** Nobody calls this. */\nexport function spareHelper(x: unknown): unknown {\n  return x;\n}\n");
    const full = await gen.pipeline.buildAll(r0);
    expect(full.diagnostics.map(fmt)).toContain('mappings/helpers/spare.ts:2:1 error E402 helper "spareHelper" is never used by a table (remove it, or call it with $helper)');
    expect((await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] })).diagnostics).toEqual([]);
  });

  it("E403: a helper name two modules export, at the second", async () => {
    const r0 = root();
    const name = readFileSync(join(r0, "mappings/helpers/acp.ts"), "utf8").match(/^export function (\w+)/m)![1];
    writeFileSync(join(r0, "mappings/helpers/zz-again.ts"), `\nexport function ${name}(): undefined {\n  return undefined;\n}\n`);
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    expect(r.diagnostics.map(fmt)).toEqual([`mappings/helpers/zz-again.ts:2:1 error E403 helper "${name}" is already exported by mappings/helpers/acp.ts (helper names are one namespace)`]);
  });
});

describe("type emitter codes", () => {
  it("E201: an extension folder the emitter cannot open (the table stage reports it first; the emitter does not throw a plain Error)", async () => {
    const emitOther = await import(/* @vite-ignore */ pathToFileURL(join(ROOT, "generator/emit-other.ts")).href);
    const ext = "  extensions:\n    - { name: vendor, package: \"@example/vendor\", version: 0.1.0, dir: test/generator/fixtures/mini-extension, kinds: { notification: { file: ExtNotifications.json } } }\n";
    const kinds = "    notification: { file: Notifications.json, source: codex.app-server.notification }\n";
    const text = miniText().replace(kinds, kinds + ext).replace(/\nignored:\n/, "\nignored:\n  - kind: notification\n    match: [ext/ping]\n    reason: not what this test is about\n");
    const cx = { ...tableContext(gen), upstream: (dir: string) => new gen.upstream.UpstreamSchemas(join(ROOT, dir), dir) };
    const r = gen.tables.loadTable(MINI_FILE, text, cx);
    expect(r.diagnostics.map(fmt)).toEqual([]);
    const up = cx.upstream("test/generator/fixtures/mini-upstream");
    let thrown: any;
    try {
      await emitOther.emitUpstreamTypes(r.table, up, "// h", () => undefined);
    } catch (e) {
      thrown = e;
    }
    expect(thrown?.name).toBe("DiagnosticError");
    expect(thrown.diagnostics.map(fmt)).toEqual([`${MINI_FILE}:1:1 error E201 upstream schema folder "test/generator/fixtures/mini-extension" (extension vendor) does not exist`]);
  });
});
