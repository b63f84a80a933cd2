/**
 * A table's `live:` section (mappings/README.md "Live drivers"): a mini table with one live agent loads clean; an
 * unknown call (E340), a missing or malformed call (E341) and an agent declared twice, in one table or in two (E342),
 * are one-line diagnostics at the line they are on.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { MINI_FILE, ROOT, loadGenerator, miniText, tableContext, type Diagnostic, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
let base: string;
let live: { checkLiveAcrossTables(tables: { file: string; surface: string; live?: unknown[] }[]): Diagnostic[] };

const LIVE = `
live:
  - agent: mini
    program: mini-agent --stdio
    transport: JSON-RPC over stdio
    calls:
      connect: initialize
      prompt: turn/start
      answer: JSON-RPC result to the server request
      cancel: turn/interrupt
      load: { none: "no history" }
      resume: thread/resume
      mode: the approvalPolicy of the next turn/start
      model: { none: "one model per process" }
`;

beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen);
  base = miniText().trimEnd() + "\n" + LIVE;
  live = await import(/* @vite-ignore */ pathToFileURL(join(ROOT, "generator", "live.ts")).href);
});

const load = (text: string) => gen.tables.loadTable(MINI_FILE, text, cx);
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
function mutate(from: string, to: string): string {
  expect(base.split(from).length, `exactly one ${JSON.stringify(from)}`).toBe(2);
  return base.replace(from, to);
}

describe("live: the DSL", () => {
  it("a table with a live agent loads clean, its calls in the IR", () => {
    const r = load(base);
    expect(r.diagnostics).toEqual([]);
    expect((r.table as any).live).toEqual([{
      agent: "mini", program: "mini-agent --stdio", transport: "JSON-RPC over stdio", line: lineOf(base, "- agent: mini"),
      calls: { connect: "initialize", prompt: "turn/start", answer: "JSON-RPC result to the server request", cancel: "turn/interrupt", load: { none: "no history" }, resume: "thread/resume", mode: "the approvalPolicy of the next turn/start", model: { none: "one model per process" } },
    }]);
  });

  // [code, from, to, the text of the line the diagnostic is on, message]
  const CASES: [string, string, string, string, RegExp][] = [
    ["E340", "      cancel: turn/interrupt", "      cancel: turn/interrupt\n      interrupt: turn/interrupt", "interrupt: turn", /^live\[0\]: unknown call "interrupt" \(calls: connect, prompt, answer, cancel, load, resume, mode, model\)$/],
    ["E341", "      resume: thread/resume\n", "", "    calls:", /^live\[0\]: call "resume" is missing/],
    ["E341", "      load: { none: \"no history\" }", "      load: { nope: \"no history\" }", "load: { nope", /^live\[0\]: call "load" is a text \(how the driver makes it\) or \{ none: REASON \}/],
    ["E341", "      load: { none: \"no history\" }", "      load: false", "load: false", /^live\[0\]: call "load" is a text/],
    ["E342", LIVE.trimEnd() + "\n", LIVE.trimEnd() + "\n" + LIVE.split("\n").slice(2).join("\n"), "- agent: mini", /^live agent "mini" is already declared at line \d+$/],
  ];
  for (const [code, from, to, at, message] of CASES) {
    it(`${code}: ${message.source.slice(0, 60)}`, () => {
      const text = mutate(from, to);
      const ds = load(text).diagnostics;
      const hits = ds.filter((d) => d.code === code);
      expect(hits.length, JSON.stringify(ds.map((d) => `${d.code}@${d.line} ${d.message}`))).toBe(1);
      const want = code === "E342" ? text.split("\n").lastIndexOf("  - agent: mini") + 1 : lineOf(text, at);
      expect(hits[0].line, JSON.stringify(hits)).toBe(want);
      expect(hits[0].message).toMatch(message);
      expect(gen.diagnostics.formatDiagnostic(hits[0])).toMatch(new RegExp(`^test/generator/fixtures/mini\\.yaml:\\d+:\\d+ error ${code} [^\\n]+$`));
    });
  }

  it("E342: an agent two tables declare (at the second)", () => {
    const a = load(base).table!;
    const b = { ...load(base.replace(/^surface: .*$/m, "surface: mini-two")).table!, file: "mappings/mini-two.yaml" };
    const ds = live.checkLiveAcrossTables([a as any, b as any]);
    expect(ds.map((d) => gen.diagnostics.formatDiagnostic(d))).toEqual([
      `mappings/mini-two.yaml:${lineOf(base, "- agent: mini")}:3 error E342 live agent "mini" is already declared by ${MINI_FILE}:${lineOf(base, "- agent: mini")} (an agent drives one surface)`,
    ]);
    expect(live.checkLiveAcrossTables([a as any])).toEqual([]);
  });
});
