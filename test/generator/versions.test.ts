/**
 * Several pinned upstream versions in one table (`upstream.versions`, `versions:` ranges on rows and ignore entries),
 * ignore entries with `when`, and subtype coverage (`subtag`): what codegen accepts and rejects (E214–E218, E300,
 * E302, E210), on a small tagged table over our two Claude SDK schema folders (0.2.62 and 0.3.333).
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, loadGenerator, tableContext, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
beforeAll(async () => {
  gen = await loadGenerator();
  const base = tableContext(gen);
  cx = { ...base, upstream: (dir: string) => new gen.upstream.UpstreamSchemas(join(ROOT, dir), dir) };
});

const HEAD = `surface: mini-versions
provider: claude
protocol: tagged
upstream:
  package: "@anthropic-ai/claude-agent-sdk"
  version: 0.3.333
  dir: schemas/upstream/claude-agent-sdk/0.3.333
  reports: 2.1.333
  versions:
    - { version: 0.2.62, dir: schemas/upstream/claude-agent-sdk/0.2.62, reports: 2.1.62 }
  kinds:
    message: { file: SDKMessage.json, source: claude.sdk.message, tag: type, subtag: subtype }
`;
/** Rows for every type of both versions but conversation_reset; `system` by a catch-all row. */
const OTHERS = ["assistant", "user", "result", "stream_event", "tool_progress", "auth_status", "tool_use_summary", "rate_limit_event", "prompt_suggestion", "active_goal", "autocompact_state"];
const row = (rule: string, match: string, extra = "") => `  - rule: ${rule}
    match: ${match}${extra}
    steps: [{ emit: runtime.warning, payload: { message: ${rule} } }]
    examples: [{ in: {}, out: [] }]
`;
const table = (rows: string, ignored = "") => `${HEAD}rows:\n${OTHERS.map((t) => row(t.replace(/_/g, "-"), t)).join("")}${rows}${ignored ? `ignored:\n${ignored}` : ""}`;
const load = (text: string) => gen.tables.loadTable("mini-versions.yaml", text, cx);
const diags = (text: string) => load(text).diagnostics.map((d) => `${d.code} ${d.message}`);

describe("upstream.versions and versions ranges", () => {
  const ok = table(row("system", "system") + row("reset", "conversation_reset", `\n    versions: ">=0.3"`));

  it("a table covering every type of both versions loads; the row's range becomes its pinned versions", () => {
    const r = load(ok);
    expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect(r.table!.rows.find((x) => x.rule === "reset")).toMatchObject({ versions: ["0.3.333"] });
    expect(r.table!.rows.find((x) => x.rule === "system")).not.toHaveProperty("versions");
    expect((r.table as any).upstream.versions).toEqual([{ version: "0.2.62", dir: "schemas/upstream/claude-agent-sdk/0.2.62", reports: "2.1.62" }]);
  });

  it("coverage is per version: a type only 0.3.333 has, left out, is E300 for that version alone", () => {
    const ds = diags(table(row("system", "system")));
    expect(ds).toEqual([expect.stringMatching(/^E300 message method "conversation_reset" of @anthropic-ai\/claude-agent-sdk@0\.3\.333 /)]);
  });

  it("a row for a type its versions do not have is E214", () => {
    const ds = diags(table(row("system", "system") + row("reset", "conversation_reset", `\n    versions: "<0.3"`)));
    expect(ds).toContainEqual(expect.stringMatching(/^E214 message method "conversation_reset" does not exist at the versions this row applies to \(0\.2\.62\)/));
  });

  it("a malformed range is E215, one selecting no pinned version E216", () => {
    expect(diags(table(row("system", "system") + row("reset", "conversation_reset", `\n    versions: "~0.3"`)))).toContainEqual(expect.stringMatching(/^E215 bad version range: "~0\.3" is not a comparator/));
    expect(diags(table(row("system", "system") + row("reset", "conversation_reset", `\n    versions: ">=9"`)))).toContainEqual(`E216 version range ">=9" selects none of the pinned versions (0.3.333, 0.2.62)`);
  });

  it("a version pinned twice is E217, one that is not a version E218", () => {
    const twice = ok.replace("    - { version: 0.2.62,", "    - { version: 0.3.333, dir: schemas/upstream/claude-agent-sdk/0.3.333 }\n    - { version: 0.2.62,");
    expect(diags(twice)).toContainEqual("E217 version 0.3.333 is pinned twice");
    expect(diags(ok.replace("version: 0.2.62,", "version: latest,"))).toContainEqual(`E218 "latest" is not a version (numbers separated by dots)`);
  });

  it("an ignore entry with a range counts only at its versions", () => {
    const ds = diags(table(row("system", "system"), `  - kind: message\n    match: [conversation_reset]\n    versions: "<0.3"\n    reason: test\n`));
    expect(ds).toContainEqual(expect.stringMatching(/^E214 message method "conversation_reset" does not exist at the versions this entry applies to/));
  });
});

describe("subtypes (subtag) and ignore entries with when", () => {
  const SUBS = ["init", "status", "compact_boundary", "hook_started", "hook_progress", "hook_response", "task_started", "task_progress", "task_notification", "files_persisted"];
  const systemRows = (subs: string[], versions?: string) => row("system-old", "system", `\n    when: { subtype: { in: [${subs.join(", ")}] } }`) + (versions ?? "");

  it("a subtype of a type no row or entry names is E302, at the version that lists it only", () => {
    const ds = diags(table(systemRows(SUBS) + row("reset", "conversation_reset", `\n    versions: ">=0.3"`)));
    expect(ds.filter((d) => d.startsWith("E302")).length).toBe(22); // the 19 declared and 3 passed-on subtypes 0.3.333 adds
    expect(ds).toContainEqual(expect.stringMatching(/^E302 message "system" subtype "api_retry" of @anthropic-ai\/claude-agent-sdk@0\.3\.333 is neither mapped nor ignored/));
    expect(ds.some((d) => d.includes("@0.2.62"))).toBe(false);
  });

  it("a catch-all row of the type (no subtype test) covers every subtype; an ignore entry's when names some", () => {
    expect(diags(table(systemRows(SUBS) + row("system-rest", "system") + row("reset", "conversation_reset", `\n    versions: ">=0.3"`)))).toEqual([]);
    const rest = ["api_retry", "control_request_progress", "model_refusal_fallback", "model_refusal_no_fallback", "local_command_output", "plugin_install", "task_updated", "background_tasks_changed", "session_state_changed", "worker_shutting_down", "commands_changed", "notification", "memory_recall", "elicitation_complete", "permission_denied", "mirror_error", "informational", "session_writes_lost", "post_turn_summary", "task_summary", "session_metadata"];
    const ign = `  - kind: message\n    match: [system]\n    when: { subtype: { in: [thinking_tokens, ${rest.join(", ")}] } }\n    versions: ">=0.3"\n    reason: test\n`;
    const r = load(table(systemRows(SUBS) + row("reset", "conversation_reset", `\n    versions: ">=0.3"`), ign));
    expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect((r.table as any).ignored[0]).toMatchObject({ versions: ["0.3.333"], when: [{ k: "in", values: expect.arrayContaining(["thinking_tokens"]) }] });
  });

  it("two ignore entries for one method (whatever their versions) are E210", () => {
    const ign = `  - kind: message\n    match: [system]\n    when: { subtype: thinking_tokens }\n    reason: a\n  - kind: message\n    match: [system]\n    when: { subtype: api_retry }\n    versions: ">=0.3"\n    reason: b\n`;
    expect(diags(table(row("system", "system") + row("reset", "conversation_reset"), ign))).toContainEqual(expect.stringMatching(/^E210 message method "system" is already ignored at line \d+/));
  });
});

describe("atEnd: the table's own message mapped when the stream ends", () => {
  const ownKind = HEAD + `    step: { source: claude.sdk.message, tag: agentnormStep }\n`;
  const rows = `rows:\n${[...OTHERS, "system", "conversation_reset"].map((t) => row(t.replace(/_/g, "-"), t)).join("")}  - rule: the-end
    kind: step
    match: end
    steps: [{ emit: runtime.warning, payload: { message: ended } }]
    examples: [{ in: { agentnormStep: end }, out: [] }]
`;
  it("names a kind of the table's own and a tag value a row of it matches: compiled into the table", () => {
    const r = load(ownKind + "atEnd: { kind: step, match: end }\n" + rows);
    expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect((r.table as any).atEnd).toEqual({ kind: "step", method: "end" });
  });
  it("a kind with an upstream file, or a tag value no row matches, is E219", () => {
    expect(diags(ownKind + "atEnd: { kind: message, match: end }\n" + rows)).toContainEqual(expect.stringMatching(/^E219 atEnd kind "message" must be a kind of the table with no upstream file/));
    expect(diags(ownKind + "atEnd: { kind: step, match: finish }\n" + rows)).toContainEqual(`E219 no step row matches "finish", so the end-of-stream message would map to nothing`);
  });
});
