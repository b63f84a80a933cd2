/**
 * Conformance against real recorded ACP streams (third-party data, read from ../shared/recordings/dev/acp/ next to
 * the repository, never copied into it). Skipped, with a visible notice, when that folder is absent. Only dev/ is
 * read — never acceptance/.
 *
 * Formats (../shared/recordings/README.md):
 * - t3code-*.ndjson: `{ts, channel, message}`; pushLine's unwrap maps channel client->server → out, server->client →
 *   in. Lines without a JSON-RPC message (scenario-result, lifecycle, permission-decision…) are skipped here.
 * - claude-agent-acp-*.jsonl: scenario snapshot lines `{kind, method?, payload}` without JSON-RPC ids, read by
 *   acp.yaml's input wrappers (recorded-*) as pushLine reads them: every line is a message the table knows. Some are ACP v2 drafts: session/update kinds
 *   outside v1 (state_update, user_message…) may surface as unknown; only v1 kinds must be known. Snapshots, not
 *   whole sessions: open tool calls/permissions are not asserted.
 * - acplazybridge-*.jsonl: bare agent→client lines (answers to requests the file does not contain).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent, type Direction } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const SURFACE = "acp";
const dev = devFolder(SURFACE);
const { dir: DIR, present } = dev;
const files = dev.list(".ndjson", ".jsonl");
const V1_UPDATES = new Set([
  "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
  "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update",
  "notice", "compaction_update", "compaction_summary_chunk",
]);

interface Run { events: CanonicalEvent[]; unknown: number; inputs: number }

function replay(file: string): Run {
  const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
  const events: CanonicalEvent[] = [];
  const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
  let inputs = 0;
  const push = (message: unknown, direction?: Direction) => { inputs++; events.push(...n.push(message, { direction })); };
  for (const line of lines) {
    const w = JSON.parse(line);
    if (file.startsWith("claude-agent-acp-")) {
      // read as the CLI reads them: acp.yaml's input wrappers (recorded-*) make each record the message it records
      inputs++;
      events.push(...n.pushLine(line));
      continue;
    }
    if (file.startsWith("t3code-")) {
      if (!w.message) continue; // scenario-result / lifecycle / permission-decision lines carry no JSON-RPC message
      inputs++;
      events.push(...n.pushLine(line));
      continue;
    }
    push(w, "in");
  }
  events.push(...n.end());
  return { events, unknown: n.stats().unknown, inputs };
}

const P = (e: CanonicalEvent): any => e.payload as any;
const rawMsg = (e: CanonicalEvent): any => (e as any).raw?.payload;

describeDev(`conformance: ${SURFACE} dev recordings`, present, DIR, () => {

  it("finds the recordings", () => {
    expect(files.length).toBeGreaterThanOrEqual(1);
  });

  for (const file of files) {
    describe(file, () => {
      let cached: Run | undefined;
      const get = (): Run => (cached ??= replay(file));

      it("replays without an exception; every event is canonical; sequence strictly increases", () => {
        expect(() => get()).not.toThrow();
        const { events, inputs } = get();
        expect(inputs).toBeGreaterThan(0);
        expect(events.length).toBeGreaterThan(0);
        expect(events.filter((e) => !validateCanonicalEvent(e)).map((e) => `#${e.sequence} ${e.type}`)).toEqual([]);
        expectVerified(events, file);
        expect(events.filter((e) => e.type === "runtime.error" && P(e).class === "validation_error").map((e) => P(e).message)).toEqual([]);
        for (let i = 1; i < events.length; i++) expect(events[i].sequence).toBeGreaterThan(events[i - 1].sequence);
      });

      it("no unknown for a mapped method; extension methods (`cursor/*`, `_*`) are never unknown either (only non-v1 session/update kinds may be)", () => {
        const bad = get().events
          .filter((e) => (e as any).raw?.rule === "agentnorm#unknown")
          .filter((e) => {
            const m = rawMsg(e);
            const method: string | undefined = m?.method ?? P(e).detail?.method;
            if (method === "session/update") return V1_UPDATES.has(m?.params?.update?.sessionUpdate);
            // t3code's probe sends session/cancel as a *request* (with an id); v1 defines it as a notification only, so
            // it is unknown as a clientRequest by design (→ runtime.warning; the agent's -32601 answer → runtime.warning too).
            if (method === "session/cancel" && m?.id !== undefined) return false;
            return true;
          })
          .map((e) => `#${e.sequence} ${P(e).message}`);
        expect(bad).toEqual([]);
      });

      it("every cursor/* or `_`-prefixed frame is mapped by a row of acp.yaml (a Cursor row, or the extension pattern rows)", () => {
        const ext = get().events.filter((e) => /^(cursor\/|_)/.test(String((e as any).raw?.method ?? "")));
        for (const e of ext) expect((e as any).raw.rule, `#${e.sequence} ${(e as any).raw.method}`).toMatch(/^acp#/);
      });

      if (file.startsWith("claude-agent-acp-")) {
        it("every record is read as the message it records: none is malformed or ignored, and a v1 snapshot has no unknown", () => {
          const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
          const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "");
          for (const line of lines) n.pushLine(line);
          const o = n.stats().outcomes;
          expect(o.malformed + o.ignored).toBe(0);
          expect(o.mapped + o.silent + o.unknown).toBe(lines.length);
          if (!lines.some((l) => /"protocolVersion":2/.test(l))) expect(o.unknown).toBe(0);
        });
      }

      if (file.startsWith("t3code-")) {
        it("every tool call and permission request is closed; every prompt turn completes", () => {
          const { events } = get();
          const open = events.filter((e) => (e as any).raw?.rule === "agentnorm#end").map((e) => P(e).message);
          expect(open.filter((m: string) => /item|request|turn/.test(m))).toEqual([]);
          const started = events.filter((e) => e.type === "turn.started").length;
          expect(events.filter((e) => e.type === "turn.completed").length).toBe(started);
          expect(events.filter((e) => e.type === "request.resolved").length).toBe(events.filter((e) => e.type === "request.opened").length);
          const toolStarts = new Set(events.filter((e) => e.type === "item.started").map((e) => (e as any).itemId));
          const toolDone = new Set(events.filter((e) => e.type === "item.completed").map((e) => (e as any).itemId));
          expect([...toolStarts].filter((id) => !toolDone.has(id))).toEqual([]);
        });
      }
    });
  }
});
