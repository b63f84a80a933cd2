/** Shared by the viewer tests: fixtures per surface, synthetic streams, and reading a page's embedded data. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import type { ViewerData } from "../../src/view/types.js";
import { createCaptureWriter } from "../../src/capture/capture.js";
import { recordings } from "./recorded.js";

/** A fixture to view: `from` is the surface to normalize it with (absent for captures, which say what they are). */
export interface ViewerFixture { surface: string; from?: string; file: string; label: string }

/**
 * The repo's fixtures, by surface: fixtures/recorded/ (live streams and their history forms),
 * fixtures/codex-app-server/, and the capture fixtures in fixtures/replay/ (surface "capture").
 */
export function viewerFixtures(repo: string): ViewerFixture[] {
  const out: ViewerFixture[] = [];
  for (const r of recordings(repo)) {
    const forms: [string, string][] = [[r.surface, r.file]];
    // History forms recorded beside the live stream.
    if (r.surface === "claude-sdk") forms.push(["claude-transcript", r.file.replace(/\.ndjson$/, ".transcript.ndjson")]);
    if (r.surface === "codex-exec") forms.push(["codex-rollout", r.file.replace(/\.ndjson$/, ".rollout.ndjson")]);
    if (r.surface === "opencode") forms.push(["opencode-history", r.file.replace(/\.ndjson$/, ".messages.ndjson")]);
    for (const [surface, file] of forms) {
      if (!(SURFACE_NAMES as readonly string[]).includes(surface) || !existsSync(join(repo, file))) continue;
      out.push({ surface, from: surface, file, label: `${surface}: ${file}` });
    }
  }
  // Hand-made / extracted fixtures per surface (fixtures/<surface>/, see fixtures/README.md).
  for (const surface of SURFACE_NAMES) {
    const dir = join(repo, "fixtures", surface);
    if (existsSync(dir)) for (const f of readdirSync(dir).filter((f) => f.endsWith(".ndjson")).sort()) out.push({ surface, from: surface, file: `fixtures/${surface}/${f}`, label: `${surface}: fixtures/${surface}/${f}` });
  }
  const replay = join(repo, "fixtures/replay");
  if (existsSync(replay)) for (const f of readdirSync(replay).filter((f) => f.endsWith(".ndjson")).sort()) out.push({ surface: "capture", file: `fixtures/replay/${f}`, label: `capture: fixtures/replay/${f}` });
  return out;
}

/** The JSON a page embeds. */
export function embeddedData(html: string): ViewerData {
  const m = /<script type="application\/json" id="agentnorm-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error("no embedded data in the page");
  return JSON.parse(m[1]);
}

const ENV = { schemaVersion: 2, provider: "codex", sessionId: "ses_1", threadId: "thr_1" };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n).toISOString();

/**
 * A canonical stream with one problem of each kind an event can carry: an unknown message (runtime.warning by
 * agentnorm#unknown), a runtime.warning, a runtime.error, and an item.updated after the item completed (a
 * verifier violation, and a repair for the accumulator), around a tool call. Plus a payload that tries to end
 * the script element.
 */
export function problemStream(): any[] {
  let seq = 0;
  const ev = (type: string, payload: unknown, extra: Record<string, unknown> = {}, raw: Record<string, unknown> = { source: "codex.app-server.notification", rule: "test#row", payload: { method: type } }) =>
    ({ eventId: `evt_${++seq}`, sequence: seq, type, ...ENV, createdAt: at(seq), ...extra, payload, raw });
  return [
    ev("thread.started", {}),
    ev("turn.started", {}, { turnId: "trn_1" }),
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "echo </script><script>alert(1)</script>", command: "echo \u2028hi", data: { command: "echo \u2028hi" } }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("content.delta", { streamKind: "command_output", delta: "hi\n" }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("runtime.warning", { message: "codex-app-server: unknown notification method \"x/y\"" }, { turnId: "trn_1" }, { source: "agentnorm.runtime", rule: "agentnorm#unknown", method: "x/y", payload: { method: "x/y", params: {} } }),
    ev("item.completed", { itemType: "command_execution", status: "completed", command: "echo hi", output: "hi\n", durationMs: 12, data: { command: "echo hi", aggregatedOutput: "hi\n", durationMs: 12 } }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("runtime.warning", { message: "stream ended with item itm_9 still open" }, { turnId: "trn_1" }, { source: "agentnorm.runtime", rule: "agentnorm#end", payload: null }),
    ev("runtime.error", { message: "line 9: not JSON", class: "validation_error" }, {}, { source: "agentnorm.runtime", rule: "agentnorm#runtime", payload: "{oops" }),
    ev("item.updated", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" }),
  ];
}

/**
 * problemStream() as a capture written by src/capture/capture.ts (normalized_out, redaction on): the command's env holds
 * an API key and its completion an Authorization header, so the capture lists two redactions (events #3 and #6).
 */
export function problemCapture(): string {
  const w = createCaptureWriter({ provider: "codex", captureId: "cap_test", clock: () => Date.UTC(2026, 0, 1) });
  return problemStream().map((e) => {
    if (e.sequence === 3) e.payload.data.env = { OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz123456" };
    if (e.sequence === 6) e.payload.data.headers = { authorization: "Bearer abcdefghijklmnopqrstuvwxyz0123456789" };
    return w.line("normalized_out", e.type, e, { sessionId: e.sessionId, turnId: e.turnId ?? null });
  }).join("");
}

/** A long canonical stream: `turns` turns of one assistant message streamed in `deltas` deltas. */
export function longStream(turns: number, deltas: number): any[] {
  const out: any[] = [];
  let seq = 0;
  const ev = (type: string, payload: unknown, extra: Record<string, unknown> = {}) =>
    out.push({ eventId: `evt_${++seq}`, sequence: seq, type, ...ENV, createdAt: at(seq), ...extra, payload, raw: { source: "codex.app-server.notification", rule: `test#${type}`, payload: null } });
  for (let t = 1; t <= turns; t++) {
    const turnId = `trn_${t}`;
    const itemId = `itm_${t}`;
    ev("turn.started", {}, { turnId });
    ev("item.started", { itemType: "assistant_message", status: "inProgress" }, { turnId, itemId });
    for (let d = 0; d < deltas; d++) ev("content.delta", { streamKind: "assistant_text", delta: `word${d} ` }, { turnId, itemId });
    ev("item.completed", { itemType: "assistant_message", status: "completed" }, { turnId, itemId });
    ev("turn.completed", { state: "completed" }, { turnId });
  }
  return out;
}
