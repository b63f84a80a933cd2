/**
 * Every diagnostic code of the table loader, triggered: one small mutation of test/generator/fixtures/mini.yaml per
 * code, checked for that code at the mutated line. (diagnostics.test.ts covers the common ones in depth: messages,
 * columns, did-you-mean; this file makes sure no code goes untested.)
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MINI_FILE, ROOT, loadGenerator, miniText, tableContext, type Generator, type TableContext } from "./gen.ts";

let gen: Generator;
let cx: TableContext;
let base: string;
beforeAll(async () => {
  gen = await loadGenerator();
  cx = tableContext(gen);
  base = miniText();
});

const DELTA = "          delta: $params.delta";
const DELTA_EMIT = "      - emit: content.delta";
const STARTED_ITEM = "      item: { path: params.thing.id, op: open }";
const DELTA_ROW = "  - rule: thing-delta";

/** code → [the line to replace (exactly one in mini.yaml), its replacement (may be several lines)]. */
const CASES: Record<string, [string, string]> = {
  E211: [DELTA_ROW, `${DELTA_ROW}\n    kind: request`],
  E221: [DELTA, "          delta: $nope.delta"],
  E222: [DELTA, "          delta: $params..delta"],
  E223: [DELTA, "          delta: { $nope: 1 }"],
  E224: [DELTA, "          delta: { $str: $params.delta, extra: 1 }"],
  E226: [DELTA, "          delta: { $map: thingKind }"],
  E228: [DELTA, "          delta: { $first: 1 }"],
  E229: [DELTA, "          delta: { $id: nope }"],
  E232: [DELTA_EMIT, `${DELTA_EMIT}\n        if: { open: task }`],
  E234: ["      params.status: broken", "      params.status: { nope: 1 }"],
  E236: [DELTA, "          delta: { $helper: decodeChunk, args: [] }"],
  E237: [DELTA, "          delta: { $text: $params.delta }"],
  E238: [DELTA, "          delta: { $list: $params.delta, as: e, to: 1, where: { f.x: 1 } }"],
  E239: ["      params.status: broken", "      params.status: broken\n      $if: [{ value: { $state: item.itemType }, exists: true }]"],
  E246: [DELTA, "          delta: { $if: { params.delta: x } }"],
  E247: [DELTA_EMIT, `${DELTA_EMIT}\n        let: { params: $params.delta }`],
  E248: [DELTA_EMIT, `${DELTA_EMIT}\n        let: { d: $params.delta }\n        if: { $d: x }`],
  E249: [DELTA_EMIT, `${DELTA_EMIT}\n        let: { unread: $params.delta }`],
  E265: [DELTA_EMIT, "      - snapshot: { stream: assistant_text }\n" + DELTA_EMIT],
  E240: [STARTED_ITEM, "      item: { path: params.thing.id, op: current }"],
  E241: [STARTED_ITEM, "      item: { op: open }"],
  E242: [STARTED_ITEM, "      item: { path: params.thing.id, op: open, space: server }"],
  E243: [STARTED_ITEM, "      item: { path: params.thing.id, op: open, scope: turn }"],
  E244: [STARTED_ITEM, "      item: { path: params.thing.id, value: x, op: open }"],
  E251: ["      - emit: thread.state.changed", "      - emit: thread.state.changed\n        payload: { $first: [1] }\n      - emit: thread.state.changed"],
  E260: [DELTA_EMIT, "      - snapshot: { stream: nope, text: $params.delta }\n" + DELTA_EMIT],
  E263: [DELTA_EMIT, "      - closeOpen: { status: failed }\n" + DELTA_EMIT],
  E264: [DELTA_EMIT, "      - closeOpen: { status: failed, completes: [nope] }\n" + DELTA_EMIT],
  E270: [DELTA_EMIT, "      - each: $params.delta\n        as: d\n        steps: []\n" + DELTA_EMIT],
  E271: [DELTA_EMIT, "      - each: 5\n        as: d\n        steps: []\n" + DELTA_EMIT],
  E272: [DELTA_EMIT, "      - dispatch: { method: nope/x, params: {} }\n" + DELTA_EMIT],
  E273: [DELTA_EMIT, "      - dispatch: { method: misc/noise, params: {} }\n" + DELTA_EMIT],
  E245: [STARTED_ITEM, "      item: { path: 5 }"],
  E280: [DELTA_ROW, "  - rule: does-nothing\n    match: thing/delta\n    steps: []\n    examples: [{ in: {}, out: [] }]\n" + DELTA_ROW],
  E282: [DELTA_EMIT, "      - { emit: runtime.warning, set: [a], value: 1 }\n" + DELTA_EMIT],
  E290: ['          - { type: content.delta, ids: [thread, item], payload: { streamKind: assistant_text, delta: "he" } }', '          - { type: content.delt, ids: [thread, item], payload: { streamKind: assistant_text, delta: "he" } }'],
  E310: ["maps:", "input:\n  - name: bare\n    message: \".\"\n\nmaps:"],
  E311: ["maps:", "input:\n  - name: nothing\n\nmaps:"],
  E312: ["maps:", "input:\n  - name: bare\n    message: \".\"\n    kind: nope\n\nmaps:"],
  E313: ["maps:", "input:\n  - name: both\n    message: \".\"\n    kind: notification\n    type: thing/delta\n    typeFrom: method\n\nmaps:"],
  E320: ["maps:", "time: { from: meta.ts }\n\nmaps:"],
  E321: ["maps:", "time: { from: [params.thing.id, params.nope] }\n\nmaps:"],
  E322: ["maps:", "sessions: { key: [params.threadId, params.nope] }\n\nmaps:"],
  E323: ["maps:", "sessions: { key: params.threadId, parent: { path: params.thing.id, match: thing/nope } }\n\nmaps:"],
  E324: ["maps:", "sessions: { key: params.threadId, parent: { each: params.things, path: id } }\n\nmaps:"],
};

function mutate(from: string, to: string): string {
  const ls = base.split("\n");
  const hits = ls.flatMap((l, i) => (l === from ? [i] : []));
  if (hits.length !== 1) throw new Error(`expected one line ${JSON.stringify(from)} in mini.yaml, found ${hits.length}`);
  ls.splice(hits[0], 1, ...to.split("\n"));
  return ls.join("\n");
}

describe("every table diagnostic code has a trigger", () => {
  for (const [code, [from, to]] of Object.entries(CASES)) {
    it(`${code}`, () => {
      const text = mutate(from, to);
      const ds = gen.tables.loadTable(MINI_FILE, text, cx).diagnostics;
      const hits = ds.filter((d) => d.code === code);
      expect(hits.length, `${code} in ${JSON.stringify(ds.map((d) => `${d.code}@${d.line} ${d.message}`))}`).toBeGreaterThan(0);
      // reported within the mutated lines (or at the row / table part they belong to)
      const first = base.split("\n").indexOf(from) + 1;
      expect(hits.every((d) => d.line >= 1 && d.line <= first + to.split("\n").length + 40), JSON.stringify(hits)).toBe(true);
    });
  }
});

describe("pipeline codes on a copy of the real inputs", () => {
  it("E401 (dispatch to an unknown surface), E402 (a helper no table calls), E403 (a helper name two modules export)", () => {
    const tmp = mkdtempSync(join(tmpdir(), "agentnorm-codes-"));
    try {
      for (const p of ["mappings", "schemas", "package.json"]) cpSync(join(ROOT, p), join(tmp, p), { recursive: true });
      const t = join(tmp, "mappings/claude-permission.yaml");
      writeFileSync(t, readFileSync(t, "utf8").replace("surface: claude-sdk, raw: original", "surface: claude-sdq, raw: original"));
      writeFileSync(join(tmp, "mappings/helpers/extra.ts"), "export function neverCalled(x: unknown): unknown { return x; }\nexport function decodeChunk(x: unknown): unknown { return x; }\n");
      const r = spawnSync("npx", ["tsx", "generator/cli.ts", `--root=${tmp}`], { cwd: ROOT, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/mappings\/claude-permission\.yaml:\d+:1 error E401 row "[a-z-]+" dispatches to unknown surface "claude-sdq"/);
      expect(r.stderr).toMatch(/mappings\/helpers\/extra\.ts:1:1 error E402 helper "neverCalled" is never used by a table/);
      expect(r.stderr).toMatch(/mappings\/helpers\/extra\.ts:2:1 error E403 helper "decodeChunk" is already exported by mappings\/helpers\/codex\.ts/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
