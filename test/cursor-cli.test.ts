/**
 * The cursor-cli surface beyond single-row examples: --stream-partial-output (deltas, then each segment's recap) gives
 * the same text as the plain stream, exactly once; the helpers behind the rows; the CLI with `--from cursor-cli`.
 * Our dev recordings were made without --stream-partial-output, so the partial-output streams here are derived from
 * them (and from an inline stream shaped like the documented one when they are absent).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder } from "./support/dev-recordings.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const S = "d43015b9-0707-43f4-b2df-0bcea7891654";
const say = (text: string, extra: object = {}) => ({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] }, session_id: S, ...extra });
const shell = (subtype: string, id: string, command: string, result?: object) => ({ type: "tool_call", subtype, call_id: id, tool_call: { shellToolCall: { args: { command }, ...(result ? { result } : {}) } }, session_id: S, model_call_id: "m1", timestamp_ms: 5 });

/** A plain (no partial output) run: init, prompt, thinking, segment 1, a tool call, segment 2, result. */
const PLAIN = [
  { type: "system", subtype: "init", apiKeySource: "login", cwd: "/w", session_id: S, model: "Auto", permissionMode: "default" },
  { type: "user", message: { role: "user", content: [{ type: "text", text: "Run ls" }] }, session_id: S },
  { type: "thinking", subtype: "delta", text: "Plan", session_id: S, timestamp_ms: 1 },
  { type: "thinking", subtype: "delta", text: "ning", session_id: S, timestamp_ms: 2 },
  { type: "thinking", subtype: "completed", session_id: S, timestamp_ms: 3 },
  say("I'll list the files.", { model_call_id: "m1", timestamp_ms: 4 }),
  shell("started", "call_1\nfc_1", "ls"),
  shell("completed", "call_1\nfc_1", "ls", { success: { command: "ls", exitCode: 0, stdout: "a.txt\n", stderr: "" } }),
  say("There is one file: a.txt."),
  { type: "result", subtype: "success", duration_ms: 100, duration_api_ms: 100, is_error: false, result: "I'll list the files.There is one file: a.txt.", session_id: S, request_id: "r1" },
];

/** The same run as --stream-partial-output prints it: each segment's text first as deltas (timestamp_ms, no model_call_id). */
function withPartialOutput(lines: any[], chunk = 5): any[] {
  const out: any[] = [];
  for (const l of lines) {
    if (l.type === "assistant") {
      const text = l.message.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("");
      for (let i = 0; i < text.length; i += chunk) out.push(say(text.slice(i, i + chunk), { timestamp_ms: 1000 + i, session_id: l.session_id }));
    }
    out.push(l);
  }
  return out;
}

function run(lines: any[]) {
  const n = createNormalizer({ surface: "cursor-cli", ids: counterIds(), clock: steppingClock(), validate: true });
  const events: CanonicalEvent[] = [];
  for (const l of lines) events.push(...n.pushLine(JSON.stringify(l)));
  events.push(...n.end());
  return { events, stats: n.stats() };
}
const P = (e: CanonicalEvent): any => e.payload as any;
/** Assistant items in order: their text and lifecycle. */
function assistantItems(events: CanonicalEvent[]) {
  const items = new Map<string, { text: string; started: number; completed: number }>();
  for (const e of events) {
    if (!e.itemId) continue;
    const isText = (e.type === "content.delta" && P(e).streamKind === "assistant_text") || (e.type.startsWith("item.") && P(e).itemType === "assistant_message");
    if (!isText) continue;
    const it = items.get(e.itemId) ?? { text: "", started: 0, completed: 0 };
    if (e.type === "content.delta") it.text += P(e).delta;
    if (e.type === "item.started") it.started++;
    if (e.type === "item.completed") it.completed++;
    items.set(e.itemId, it);
  }
  return [...items.values()];
}

describe("cursor-cli: --stream-partial-output", () => {
  it("a plain run: one item per segment, its text once; the tool call with its output; the turn completes", () => {
    const { events, stats } = run(PLAIN);
    expect(stats.unknown).toBe(0);
    expect(stats.invalid).toBe(0);
    expect(events.every((e) => validateCanonicalEvent(e))).toBe(true);
    expect(assistantItems(events)).toEqual([
      { text: "I'll list the files.", started: 1, completed: 1 },
      { text: "There is one file: a.txt.", started: 1, completed: 1 },
    ]);
    expect(events.filter((e) => e.type === "content.delta" && P(e).streamKind === "command_output").map((e) => P(e).delta)).toEqual(["a.txt\n"]);
    expect(events.filter((e) => e.type === "content.delta" && P(e).streamKind === "reasoning_text").map((e) => P(e).delta).join("")).toBe("Planning");
    expect(P(events.find((e) => e.type === "turn.completed")!)).toMatchObject({ state: "completed", usage: { durationMs: 100, requestId: "r1" } });
  });

  it("with partial output: the same items and text — deltas are not repeated by the segment recaps", () => {
    const partial = withPartialOutput(PLAIN);
    expect(partial.length).toBeGreaterThan(PLAIN.length + 5);
    const { events, stats } = run(partial);
    expect(stats.unknown).toBe(0);
    expect(events.every((e) => validateCanonicalEvent(e))).toBe(true);
    expect(assistantItems(events)).toEqual(assistantItems(run(PLAIN).events));
    // the deltas are streamed as they come (several per segment), the recaps add none
    const deltas = events.filter((e) => e.type === "content.delta" && P(e).streamKind === "assistant_text");
    expect(deltas.length).toBe(partial.filter((l) => l.type === "assistant" && l.timestamp_ms !== undefined && l.model_call_id === undefined).length);
  });

  const dev = devFolder("cursor", "cursor-cli (partial-output derivation)");
  for (const file of dev.list(".jsonl")) {
    it(`${file}, turned into a partial-output stream, gives the same assistant items and text`, () => {
      const lines = readFileSync(join(dev.dir, file), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      const plain = assistantItems(run(lines).events);
      expect(plain.length).toBeGreaterThan(0);
      const partial = run(withPartialOutput(lines, 3));
      expect(partial.stats.unknown).toBe(0);
      expect(assistantItems(partial.events)).toEqual(plain);
      expect(plain.map((x) => x.text).join("")).toBe(lines.find((l) => l.type === "result")?.result);
    });
  }
});

describe("cursor-cli: tool titles", () => {
  const titleOf = (tool_call: unknown): unknown => {
    const n = createNormalizer({ surface: "cursor-cli", ids: counterIds(), clock: steppingClock() });
    const started = n.push({ type: "tool_call", subtype: "started", call_id: "c1", tool_call, session_id: S, model_call_id: "m1", timestamp_ms: 5 }).find((e) => e.type === "item.started");
    expect(started).toBeDefined();
    return (started!.payload as { title?: unknown }).title;
  };
  it("a tool call's title: the command, path or pattern, or the function tool's name; clipped to 160 characters", () => {
    expect(titleOf({ shellToolCall: { args: { command: "ls -la" }, result: { success: { exitCode: 0 } } } })).toBe("ls -la");
    expect(titleOf({ globToolCall: { args: { globPattern: "**/*.ts" } } })).toBe("**/*.ts");
    expect(titleOf({ function: { name: "do_it", arguments: "{}" } })).toBe("do_it");
    expect(titleOf({ function: { name: "do_it", arguments: '{"path": "a.ts"}' } })).toBe("a.ts");
    expect(titleOf({ readToolCall: { args: { path: "", targetFile: "b.ts" } } })).toBe("b.ts");
    expect(titleOf({ shellToolCall: { args: { command: "x".repeat(200) } } })).toBe("x".repeat(159) + "…");
  });
});

describe("cursor-cli: CLI", () => {
  it("normalize --from cursor-cli reads a stream-json file: exit 0, canonical NDJSON", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-cursor-cli-"));
    try {
      const file = join(dir, "run.jsonl");
      writeFileSync(file, withPartialOutput(PLAIN).map((l) => JSON.stringify(l)).join("\n") + "\n");
      const dist = join(ROOT, "dist/src/cli/cli.js");
      const r = existsSync(dist)
        ? spawnSync(process.execPath, [dist, "normalize", "--from", "cursor-cli", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 })
        : spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), "normalize", "--from", "cursor-cli", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      const events = r.stdout.split("\n").filter((l) => l).map((l) => JSON.parse(l));
      expect(events.every((e) => validateCanonicalEvent(e))).toBe(true);
      expect(events.every((e) => e.provider === "cursor")).toBe(true);
      expect(events.map((e) => e.type)).toContain("turn.completed");
      expect(events.filter((e) => e.type === "content.delta" && e.payload.streamKind === "assistant_text").map((e) => e.payload.delta).join("")).toBe("I'll list the files.There is one file: a.txt.");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
