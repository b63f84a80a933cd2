/**
 * Compiled dispatch (SurfaceTable.picks): a generated switch on the field a method's rows test chooses the rows that
 * can match. It must choose a part of the method's rows in their order, and never change what a message maps to:
 * the recorded streams give the same events with the switches as without them (every row tried).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SURFACES } from "../generated/surfaces.gen.js";
import { createNormalizerWith } from "../src/normalize/engine.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import type { SurfaceTable } from "../src/normalize/table-types.js";

const withPicks = Object.entries(SURFACES).filter(([, t]) => t.picks && Object.keys(t.picks).length);

describe("compiled dispatch", () => {
  it("the claude-sdk, codex-app-server and acp tables switch on a field for some of their methods", () => {
    const names = withPicks.map(([n]) => n);
    for (const n of ["claude-sdk", "codex-app-server", "acp"]) expect(names).toContain(n);
    // claude-sdk's stream events switch on event.type: a content_block_delta never tries the message_start row
    const pick = SURFACES["claude-sdk"].picks!.message!.stream_event;
    const rules = pick({ type: "stream_event", event: { type: "content_block_delta", delta: { type: "text_delta" } } }).map((r) => r.rule);
    expect(rules).toContain("claude-sdk#stream-text-delta");
    expect(rules).not.toContain("claude-sdk#stream-message-start");
  });

  it("a case whose rows test a second field switches again on it (sub-dispatch): a text delta never tries the input_json rows, an unknown delta only the rows that test no delta type", () => {
    const pick = SURFACES["claude-sdk"].picks!.message!.stream_event;
    const rules = (delta: unknown) => pick({ type: "stream_event", event: { type: "content_block_delta", delta: { type: delta } } }).map((r) => r.rule);
    expect(rules("text_delta")).toContain("claude-sdk#stream-text-delta");
    expect(rules("text_delta")).not.toContain("claude-sdk#stream-input-json-delta");
    expect(rules("input_json_delta")).toEqual(expect.arrayContaining(["claude-sdk#stream-input-json-delta-empty", "claude-sdk#stream-input-json-delta"]));
    expect(rules("input_json_delta")).not.toContain("claude-sdk#stream-text-delta");
    expect(rules("agentnorm-test-other")).toEqual(["claude-sdk#stream-other-delta"]);
    // every row of the sub-switch is still a row of the method, in order (checked for every case below); the
    // sub-switch is its own generated function
    expect(pick.toString()).toMatch(/return pick_message_stream_event_\d+\(m\)/);
  });

  it("every switch returns a part of its method's rows, in their order, for each of its cases and for other values", () => {
    for (const [name, t] of withPicks) {
      for (const [kind, byMethod] of Object.entries(t.picks!)) {
        for (const [method, pick] of Object.entries(byMethod!)) {
          const all = t.rows[kind]![method]!;
          const src = pick.toString();
          const values = [...src.matchAll(/case ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false):/g)].map((x) => JSON.parse(x[1]));
          const path = /switch \((.+)\) \{/.exec(src)![1].replace(/\?\./g, ".").split(".").slice(1);
          expect(values.length, `${name} ${kind} ${method}`).toBeGreaterThan(0);
          for (const v of [...values, "agentnorm-test-other-value", undefined]) {
            const m: Record<string, unknown> = {};
            let at = m;
            path.forEach((seg, i) => { if (i === path.length - 1) at[seg] = v; else at = (at[seg] = {}) as Record<string, unknown>; });
            const chosen = pick(m);
            let j = 0;
            for (const r of chosen) {
              while (j < all.length && all[j] !== r) j++;
              expect(j, `${name} ${kind} ${method} ${String(v)}: ${r.rule} out of order or not a row of the method`).toBeLessThan(all.length);
              j++;
            }
          }
        }
      }
    }
  });

  it("recorded streams map to the same events with the switches as with every row tried", () => {
    const runs: [string, string][] = [
      ["claude-sdk", "fixtures/recorded/claude-sdk/2.1.337"],
      ["codex-app-server", "fixtures/codex-app-server"],
    ];
    for (const [surface, dir] of runs) {
      const files = readdirSync(dir).filter((f) => f.endsWith(".ndjson") && !f.endsWith(".expected.ndjson")).slice(0, 6);
      expect(files.length).toBeGreaterThan(0);
      const plain: Record<string, SurfaceTable> = {};
      for (const [n, t] of Object.entries(SURFACES)) plain[n] = { ...t, picks: undefined };
      for (const f of files) {
        const lines = readFileSync(join(dir, f), "utf8").split("\n").filter((l) => l.trim());
        const run = (tables: Record<string, SurfaceTable>) => {
          const n = createNormalizerWith({ surface, ids: counterIds(), clock: steppingClock() }, tables);
          return JSON.stringify([...lines.flatMap((l) => n.pushLine(l)), ...n.end()]);
        };
        expect(run(SURFACES), `${surface} ${f}`).toBe(run(plain));
      }
    }
  });
});
