/** Shared by the viewer tests: fixtures per surface, synthetic streams, and reading a page's embedded data. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import type { ViewerData } from "../../src/viewer/types.js";
import { recordings } from "./recorded.js";

export interface ViewerFixture { surface: string; file: string; label: string }

/** The repo's native fixtures, by surface: fixtures/recorded/ (live streams and their history forms) and fixtures/codex-app-server/. */
export function viewerFixtures(repo: string): ViewerFixture[] {
  const out: ViewerFixture[] = [];
  for (const r of recordings(repo)) {
    const forms: [string, string][] = [[r.surface, r.file]];
    // History forms recorded beside the live stream.
    if (r.surface === "claude-sdk") forms.push(["claude-transcript", r.file.replace(/\.ndjson$/, ".transcript.ndjson")]);
    if (r.surface === "codex-exec") forms.push(["codex-rollout", r.file.replace(/\.ndjson$/, ".rollout.ndjson")]);
    for (const [surface, file] of forms) {
      if (!(SURFACE_NAMES as readonly string[]).includes(surface) || !existsSync(join(repo, file))) continue;
      out.push({ surface, file, label: `${surface}: ${file}` });
    }
  }
  const dir = join(repo, "fixtures/codex-app-server");
  if (existsSync(dir)) for (const f of readdirSync(dir).filter((f) => f.endsWith(".ndjson")).sort()) out.push({ surface: "codex-app-server", file: `fixtures/codex-app-server/${f}`, label: `codex-app-server: fixtures/codex-app-server/${f}` });
  return out;
}

/** The JSON a page embeds. */
export function embeddedData(html: string): ViewerData {
  const m = /<script type="application\/json" id="agentnorm-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error("no embedded data in the page");
  return JSON.parse(m[1]);
}

const ENV = { provider: "codex", sessionId: "ses_1", threadId: "thr_1" };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n).toISOString();

/**
 * A canonical stream with one problem of each runtime kind: an unknown message (runtime.warning by
 * agentnorm#unknown), a runtime.warning and a runtime.error, around a tool call. Plus a payload that tries
 * to end the script element.
 */
export function problemStream(): any[] {
  let seq = 0;
  const ev = (type: string, payload: unknown, extra: Record<string, unknown> = {}, raw: Record<string, unknown> = { source: "codex.app-server.notification", rule: "test#row", payload: { method: type } }) =>
    ({ eventId: `evt_${++seq}`, sequence: seq, type, ...ENV, createdAt: at(seq), ...extra, payload, raw });
  return [
    ev("session.started", {}),
    ev("turn.started", {}, { turnId: "trn_1" }),
    ev("item.started", { itemType: "command_execution", status: "inProgress", title: "echo </script><script>alert(1)</script>", data: { command: "echo \u2028hi" } }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("content.delta", { streamKind: "command_output", delta: "hi\n" }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("runtime.warning", { message: "codex-app-server: unknown notification method \"x/y\"" }, { turnId: "trn_1" }, { source: "agentnorm.runtime", rule: "agentnorm#unknown", method: "x/y", payload: { method: "x/y", params: {} } }),
    ev("item.completed", { itemType: "command_execution", status: "completed", data: { command: "echo hi", aggregatedOutput: "hi\n", durationMs: 12 } }, { turnId: "trn_1", itemId: "itm_1" }),
    ev("runtime.warning", { message: "stream ended with item itm_9 still open" }, { turnId: "trn_1" }, { source: "agentnorm.runtime", rule: "agentnorm#end", payload: null }),
    ev("runtime.error", { message: "line 9: not JSON", class: "validation_error" }, {}, { source: "agentnorm.runtime", rule: "agentnorm#runtime", payload: "{oops" }),
    ev("turn.completed", { state: "completed" }, { turnId: "trn_1" }),
  ];
}

/** problemStream() as a capture file (normalized_out envelopes), two of them listing a redaction. */
export function problemCapture(): string {
  return problemStream().map((e, i) => JSON.stringify({
    schemaVersion: 1, captureId: "cap_test", sequence: i + 1, timestamp: at(i), provider: "codex", sessionId: "ses_1", turnId: e.turnId ?? null,
    stage: "normalized_out", eventType: e.type, payload: e,
    redactions: i === 2 ? [{ path: "payload.data.env.OPENAI_API_KEY", kind: "api_key" }] : i === 5 ? [{ path: "payload.data.cwd", kind: "home_path" }] : [],
  })).join("\n") + "\n";
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
