/**
 * The answers DSL (mappings/README.md "Answers"): a mini table with a request row and its answers loads clean; each
 * mistake is one E33x diagnostic at the line it is on.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MINI_FILE, loadGenerator, miniText, tableContext, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
let base: string;

const ANSWERING = `answering:
  option: claude
  transports: [sdk, wire]
  envelopes:
    reply: { kind: jsonrpc, answer: { message: { id: $requestId, result: $body } } }
    wired: { kind: claude-control-response, transport: wire, answer: { message: { response: $body } } }
  via: reply
  sets:
    shared:
      - decisions: [cancelled]
        body: { cancelled: true }

rows:`;
const ASK_ROW = `  - rule: thing-ask
    match: thing/delta
    when: { params.delta: ask }
    ids:
      item: params.itemId
    steps:
      - emit: request.opened
        payload:
          requestType: command_execution_approval
          args: { itemId: $params.itemId }
          options: [{ decision: allow_once, providerOptionId: "yes" }, { decision: reject_once, providerOptionId: "no" }]
    answers:
      use: shared
      cases:
        - decisions: [allow_once, reject_once]
          when: { payload.requestType: command_execution_approval }
          reply: { message: string }
          body: { choice: $choice, item: $args.itemId, why: $reply.message }
        - decisions: [reject_always]
          transport: wire
          via: wired
          body: { choice: $choice }
    examples:
      - in: { method: thing/delta, params: { threadId: t1, itemId: i1, delta: ask } }
        out:
          - { type: request.opened, ids: [thread, item] }

  - rule: thing-delta`;

beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen);
  base = miniText().replace("\nrows:", `\n${ANSWERING}`).replace("  - rule: thing-delta", ASK_ROW);
});

const load = (text: string) => gen.tables.loadTable(MINI_FILE, text, cx);
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
function mutate(from: string, to: string): string {
  expect(base.split(from).length, `exactly one ${JSON.stringify(from)}`).toBe(2);
  return base.replace(from, to);
}

describe("answers: the DSL", () => {
  it("a request row with answers, a shared set, envelopes and transports loads clean", () => {
    expect(load(base).diagnostics).toEqual([]);
    const row = (load(base).table as any).rows.find((r: any) => r.rule === "thing-ask");
    expect(row.request).toEqual({ requestTypes: ["command_execution_approval"], argsKeys: ["itemId"] });
    expect(row.answers.cases.map((c: any) => c.decisions)).toEqual([["allow_once", "reject_once"], ["reject_always"], ["cancelled"]]);
  });

  // [code, from, to, the text of the line the diagnostic is on, message part]
  const CASES: [string, string, string, string, RegExp][] = [
    ["E330", "decisions: [allow_once, reject_once]", "decisions: [allow_onse, reject_once]", "allow_onse", /unknown decision "allow_onse" .*\(did you mean "allow_once"\?\)/],
    ["E331", "kind: jsonrpc", "kind: jsonrcp", "kind: jsonrcp", /unknown answer kind "jsonrcp" .*\(did you mean "jsonrpc"\?\)/],
    ["E332", "          transport: wire", "          transport: wier", "transport: wier", /unknown transport "wier" \(answering.transports: sdk, wire\)/],
    ["E333", "          via: wired", "          via: wierd", "via: wierd", /unknown envelope "wierd"/],
    ["E333", "      use: shared", "      use: sharde", "use: sharde", /unknown answer set "sharde"/],
    ["E334", "          body: { choice: $choice }", "          body: { choice: $choice }\n          fail: { code: invalid_reply, message: x }", "- decisions: [reject_always]", /exactly one of "body".*or "fail"/],
    ["E335", "item: $args.itemId", "item: $args.itemID", "item: $args.itemID", /"itemID" is not a field of \$args \(the row's request.opened args\) \(itemId\)/],
    ["E335", "why: $reply.message", "why: $reply.mesage", "why: $reply.mesage", /"mesage" is not a field of \$reply .*\(did you mean "message"\?\)/],
    ["E335", "item: $args.itemId", "item: $request.id", "item: $request.id", /"request" is not a root of an answer expression/],
    ["E335", "reply: { message: string }", "reply: { mesage: string }", "reply: { mesage", /"mesage" is not a field of a reply/],
    ["E336", "why: $reply.message", "why: { $var: [x] }", "why: { $var", /\$var reads the normalizer's state/],
    ["E338", "        body: { cancelled: true }", "        body: { cancelled: true }\n    unused:\n      - decisions: [cancelled]\n        body: {}", "    unused:", /answer set "unused" is never used/],
    ["E339", "decisions: [reject_always]", "decisions: [completed]", "decisions: [completed]", /decision "completed" cannot answer permission requests \(command_execution_approval\)/],
  ];
  for (const [code, from, to, at, message] of CASES) {
    it(`${code}: ${message.source.slice(0, 60)}`, () => {
      const text = mutate(from, to);
      const ds = load(text).diagnostics;
      const hits = ds.filter((d) => d.code === code);
      expect(hits.length, JSON.stringify(ds.map((d) => `${d.code}@${d.line} ${d.message}`))).toBeGreaterThan(0);
      expect(hits.some((d) => d.line === lineOf(text, at) && message.test(d.message)), JSON.stringify(hits)).toBe(true);
      // one line, file:line:col error CODE message
      for (const d of hits) expect(gen.diagnostics.formatDiagnostic(d)).toMatch(new RegExp(`^test/generator/fixtures/mini\\.yaml:\\d+:\\d+ error ${code} [^\\n]+$`));
    });
  }

  it("E338: answers on a row that opens no request", () => {
    const text = mutate("          delta: $params.delta\n", "          delta: $params.delta\n    answers: { none: nothing to answer }\n");
    const ds = load(text).diagnostics;
    expect(ds.map((d) => `${d.code}@${d.line}`)).toEqual([`E338@${lineOf(text, "answers: { none: nothing to answer }")}`]);
    expect(ds[0].message).toBe('row "thing-delta" declares answers but opens no request (it emits no request.opened)');
  });

  it("E337: a request row without answers; answers: { none } is enough", () => {
    const without = mutate("    answers:\n      use: shared\n      cases:", "    answersX:\n      use: shared\n      cases:").replace(/\n {4}answersX:[\s\S]*?(?=\n {4}examples:)/, "");
    const ds = load(without.replace("\n    sets:\n      shared:\n        - decisions: [cancelled]\n          body: { cancelled: true }", "")).diagnostics;
    expect(ds.map((d) => d.code)).toContain("E337");
    expect(ds.find((d) => d.code === "E337")!.message).toBe('row "thing-ask" opens a request (emits request.opened) but declares no answers (give it answers, or answers: { none: REASON })');
    const none = base.replace(/\n {4}answers:[\s\S]*?(?=\n {4}examples:)/, "\n    answers: { none: the host never answers this }").replace(/\n {2}sets:[\s\S]*?(?=\n\nrows:)/, "");
    expect(load(none).diagnostics).toEqual([]);
  });
});
