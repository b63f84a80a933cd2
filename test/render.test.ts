/**
 * The accumulator over real canonical streams (fixtures/recorded/<surface>/*.expected.ndjson: acp, claude-sdk,
 * codex-app-server, codex-exec) and the terminal view (`agentnorm render`, src/render/render-text.ts).
 *
 * For every recorded stream: invariants checked against an independent reading of the same events
 * (test/support/streams.ts), and the rendered transcript compared with a reviewed golden file
 * (test/render-golden/<surface>.<scenario>.txt; `vitest -u` rewrites them — review the diff).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAccumulator, snapshotBlocks, type AccumulatorSnapshot, type Block } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { completedItems } from "./support/streams.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const REC = join(ROOT, "fixtures/recorded");
const DIST_CLI = join(ROOT, "dist/src/cli/cli.js");

function cli(args: string[], env: Record<string, string> = {}) {
  const opts = { cwd: ROOT, encoding: "utf8" as const, timeout: 60_000, env: { ...process.env, NO_COLOR: "", ...env } };
  if (existsSync(DIST_CLI) && process.env.AGENTNORM_TEST_CLI !== "tsx") return spawnSync(process.execPath, [DIST_CLI, ...args], opts);
  return spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], opts);
}

const streams = readdirSync(REC, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(REC, d.name)).filter((f) => f.endsWith(".expected.ndjson")).map((f) => ({ surface: d.name, scenario: f.replace(/\.expected\.ndjson$/, ""), file: join(REC, d.name, f) })));

const load = (file: string): CanonicalEvent[] => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

describe("accumulator over recorded canonical streams", () => {
  it("covers at least three surfaces", () => {
    expect(new Set(streams.map((s) => s.surface)).size).toBeGreaterThanOrEqual(3);
  });

  for (const s of streams) {
    describe(`${s.surface}/${s.scenario}`, () => {
      const events = load(s.file);
      const acc = createAccumulator();
      acc.applyAll(events);
      const snap = acc.snapshot();
      const blocks = snapshotBlocks(snap);

      it("no repairs needed: the normalizer's stream is well-formed", () => {
        // the recordings are real sessions: any problem here is a normalizer or accumulator bug
        expect(snap.problems).toEqual([]);
        expect(snap.eventCount).toBe(events.length);
      });

      it("every delta lands in exactly one block, and each block's events are in sequence order", () => {
        const owners = new Map<number, string[]>();
        for (const b of blocks) {
          expect(b.sequences).toEqual([...b.sequences].sort((x, y) => x - y));
          for (const q of b.sequences) owners.set(q, [...(owners.get(q) ?? []), b.blockId]);
        }
        for (const e of events.filter((x) => x.type === "content.delta")) expect(owners.get(e.sequence), `#${e.sequence}`).toHaveLength(1);
      });

      it("the text of every item equals the concatenation of its deltas (nothing duplicated or lost)", () => {
        const byItem = new Map<string, Block[]>();
        for (const b of blocks) { const item = b.blockId.split(":")[0]; byItem.set(item, [...(byItem.get(item) ?? []), b]); }
        const items = completedItems(events);
        const mine = events.filter((e) => e.type === "item.completed").map((e) => {
          const bl = byItem.get(e.itemId!) ?? [];
          const t: Record<string, string> = {};
          for (const b of bl) {
            if (b.kind === "text" && b.text && (b.role === "assistant" || events.some((x) => x.itemId === e.itemId && x.type === "content.delta"))) t.assistant_text = b.text;
            if (b.kind === "thinking") { if (b.text) t.reasoning_text = b.text; if (b.summary) t.reasoning_summary_text = b.summary; }
            // a command's terminal shows its deltas, or the whole output its completed item carries
            if (b.kind === "terminal" && b.text && b.text !== (e.payload as any).output) t.command_output = b.text;
            if (b.kind === "diff" && b.output) t.file_change_output = b.output;
            if ((b.kind === "plan" || b.kind === "todo") && b.text) t.plan_text = b.text;
          }
          return t;
        });
        const done = events.filter((e) => e.type === "item.completed");
        const wholeShown = (n: number) => typeof (done[n].payload as any).output === "string" && (byItem.get(done[n].itemId!) ?? []).some((b) => b.kind === "terminal" && b.text === (done[n].payload as any).output);
        expect(mine).toEqual(items.map((i, n) => { const t = { ...i.text }; if (wholeShown(n)) delete t.command_output; return t; }));
      });

      it("every tool started in the stream is a card whose status is its last lifecycle status", () => {
        const last = new Map<string, string>();
        for (const e of events) if ((e.type === "item.started" || e.type === "item.updated" || e.type === "item.completed") && e.itemId && (e.payload as any).status) last.set(e.itemId, (e.payload as any).status);
        const tools = blocks.filter((b) => b.kind === "tool") as any[];
        for (const t of tools) {
          const item = t.blockId.replace(/:tool$/, "");
          const want = { inProgress: "running", completed: "completed", failed: "failed", declined: "declined" }[last.get(item) ?? ""] ?? "pending";
          expect(`${item} ${t.status}`).toBe(`${item} ${want}`);
        }
      });

      it("turns: one per turn.started, in order, ending in the stream's end state", () => {
        const started = events.filter((e) => e.type === "turn.started").map((e) => e.turnId);
        const ends = new Map(events.filter((e) => e.type === "turn.completed").map((e) => [e.turnId, (e.payload as any).state]));
        expect(snap.sessions.flatMap((x) => x.turns.map((t) => t.turnId))).toEqual(started);
        expect(snap.sessions.flatMap((x) => x.turns.map((t) => t.state))).toEqual(started.map((t) => ends.get(t) ?? "running"));
      });

      it("renders the reviewed transcript", async () => {
        await expect(renderSnapshotText(snap)).toMatchFileSnapshot(join(ROOT, "test/render-golden", `${s.surface}.${s.scenario}.txt`));
      });
    });
  }
});

describe("renderSnapshotText: the mode line", () => {
  it("is written when the mode or model changes, not for a configuration restated every turn", () => {
    const n = createNormalizer({ surface: "codex-rollout", ids: counterIds(), clock: steppingClock() });
    const ctx = (turn: string, model: string) => ({ timestamp: "2026-01-01T00:00:00.000Z", type: "turn_context", payload: { turn_id: turn, cwd: "/w", approval_policy: "never", model, summary: "none" } });
    const turn = (id: string, text: string) => [
      { timestamp: "2026-01-01T00:00:00.000Z", type: "event_msg", payload: { type: "task_started", turn_id: id } },
      { timestamp: "2026-01-01T00:00:00.000Z", type: "event_msg", payload: { type: "user_message", message: text, images: [] } },
      { timestamp: "2026-01-01T00:00:00.000Z", type: "event_msg", payload: { type: "task_complete", turn_id: id, last_agent_message: null } },
    ];
    const lines = [
      { timestamp: "2026-01-01T00:00:00.000Z", type: "session_meta", payload: { id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w", originator: "codex_cli_rs", cli_version: "0.171.0" } },
      ctx("t1", "gpt-a"), ...turn("t1", "one"), ctx("t2", "gpt-a"), ...turn("t2", "two"), ctx("t3", "gpt-b"), ...turn("t3", "three"),
    ];
    const events = [...lines.flatMap((l) => n.push(l)), ...n.end()];
    expect(events.filter((e) => e.type === "session.configured")).toHaveLength(3);
    const acc = createAccumulator();
    acc.applyAll(events);
    const text = renderSnapshotText(acc.snapshot());
    expect(text.split("\n").filter((l) => l.startsWith("mode: "))).toEqual(["mode: model gpt-a", "mode: model gpt-b"]);
  });
});

describe("agentnorm render (CLI)", () => {
  const demo = join(ROOT, "fixtures/codex-app-server/approval-session.ndjson");

  it("renders the README demo: tool cards with status, permissions, the question and its answer, the plan, diffs", () => {
    const r = cli(["render", "--from", "codex-app-server", demo]);
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out).toContain("$ /bin/bash -lc 'npm test' [completed]");
    expect(out).toContain("$ /bin/bash -lc 'git checkout -b feat/list-json' [declined]");
    expect(out).toContain("→ reject_once [resolved]");
    expect(out).toMatch(/\? question .*pretty-printed JSON.* → Pretty-printed \(Recommended\) \[resolved\]/);
    expect(out).toMatch(/☰ plan\n  \[x\] Run the test suite for a baseline/);
    expect(out).toContain("  │ +  .option(\"--json\", \"print tasks as JSON\")");
    expect(out).toMatch(/^thinking ▸ .*… \(\+\d+ chars\)$/m); // collapsed
    expect(out.trimEnd().split("\n").at(-1)).toBe("── turn completed ──");
    expect(out).not.toMatch(/\u001b\[/); // not a TTY: no colour
  });

  it("canonical NDJSON in gives the same view as the provider stream with --from", () => {
    const f = join(REC, "acp/edit");
    const a = cli(["render", `${f}.expected.ndjson`]);
    const b = cli(["render", "--from", "acp", `${f}.ndjson`]);
    expect(a.status).toBe(0);
    expect(a.stdout).toContain("± /sandbox/work/hello.py");
    expect(b.stdout).toBe(a.stdout);
  });

  it("colour: --color forces it, NO_COLOR and --no-color turn it off", () => {
    const f = join(REC, "codex-exec/failing-tool.expected.ndjson");
    expect(cli(["render", "--color", f]).stdout).toMatch(/\u001b\[31m\[failed\]\u001b\[39m/);
    expect(cli(["render", "--color", "--no-color", f]).stdout).not.toMatch(/\u001b\[/);
    expect(cli(["render", f], { NO_COLOR: "1" }).stdout).not.toMatch(/\u001b\[/);
  });

  it("--json prints the snapshot; errors: unknown surface is a usage error, a missing file fails, a provider stream without --from is named", () => {
    const j = cli(["render", "--json", join(REC, "claude-sdk/plain.expected.ndjson")]);
    const snap = JSON.parse(j.stdout) as AccumulatorSnapshot;
    expect(snap.version).toBe(1);
    expect(snap.sessions[0].turns).toHaveLength(1);
    const bad = cli(["render", "--from", "nope", demo]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("valid surfaces");
    expect(cli(["render", join(ROOT, "no-such-file.ndjson")]).status).toBe(1);
    // a provider stream without --from: its surface is detected (and said, with the confidence)
    const raw = cli(["render", demo]);
    expect(raw.status).toBe(0);
    expect(raw.stderr).toMatch(/detected codex-app-server native messages \(confidence 100%/);
    expect(raw.stdout).toBe(cli(["render", "--from", "codex-app-server", demo]).stdout);
  });
});
