/**
 * Record logs (Gemini CLI's chat files): one replay (src/sessions/record-log.ts) for agentnorm/sessions' openSession
 * and for the CLI reading such a file (surfaceLines). The replay's rules; a chat file read by the CLI maps to the
 * session openSession gives, with no warning for the log's own records; detection counts them for the surface.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLogUpdate, recordLogOf, RecordLogReplay } from "../src/sessions/record-log.js";
import { surfaceLines, type Input } from "../src/cli/commands/util.js";
import { detectInput } from "../src/cli/detect.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { listSessions, openSession } from "../src/sessions/index.js";
import { STORES } from "../src/sessions/stores.js";

const LOG = recordLogOf("gemini-chat")!;
const ROOT = join(import.meta.dirname, "..");
const HOME = join(ROOT, "fixtures/sessions/gemini/home");

describe("RecordLogReplay", () => {
  it("is the gemini-chat store's framing, and no other surface's", () => {
    const s = STORES.gemini.store;
    expect(s.kind === "files" && s.framing).toBe(LOG);
    for (const surface of ["claude-transcript", "codex-rollout", "opencode-history", "acp", undefined]) expect(recordLogOf(surface)).toBeUndefined();
  });

  it("a record replaces the message of its key in place; set and rewind records apply; anything else is refused", () => {
    const r = new RecordLogReplay<number>(LOG);
    const m = (id: string, text: string) => ({ id, type: "user", content: [{ text }] });
    expect(r.add({ sessionId: "s", projectHash: "h", startTime: "t0" }, 1)).toBe(true);
    expect(r.add(m("a", "one"), 2)).toBe(true);
    expect(r.add(m("b", "two"), 3)).toBe(true);
    expect(r.add({ $set: { lastUpdated: "t1", summary: "S" } }, 4)).toBe(true);
    expect(r.add(m("a", "one, again"), 5)).toBe(true);
    expect(r.add(m("c", "three"), 6)).toBe(true);
    expect(r.add({ $rewindTo: "c" }, 7)).toBe(true);
    expect(r.add(m("d", "four"), 8)).toBe(true);
    for (const bad of [null, 1, "x", [m("e", "five")], { nothing: true }, { $set: "not an object" }]) expect(r.add(bad, 9)).toBe(false);
    const out = r.result();
    expect(out.header).toEqual({ sessionId: "s", projectHash: "h", startTime: "t0", lastUpdated: "t1", summary: "S" });
    expect(out.headerTag).toBe(1);
    expect(out.messages.map((x) => [x.message.id, (x.message.content as any)[0].text, x.tag])).toEqual([["a", "one, again", 5], ["b", "two", 3], ["d", "four", 8]]);
    expect([out.applied, out.superseded]).toEqual([2, 2]);
  });

  it("a set of `messages` replaces them all (each tagged with that record); a rewind to an unknown key clears them", () => {
    const r = new RecordLogReplay<number>(LOG);
    r.add({ id: "a", type: "user", content: [] }, 1);
    r.add({ $set: { messages: [{ id: "x", type: "user", content: [] }, { id: "y", type: "gemini", content: "Y" }, { noId: true }] } }, 2);
    expect(r.result().messages.map((x) => [x.message.id, x.tag, x.listed])).toEqual([["x", 2, true], ["y", 2, true]]);
    r.add({ $rewindTo: "nowhere" }, 3);
    expect(r.result().messages).toEqual([]);
    expect(isLogUpdate({ $rewindTo: "x" }, LOG) && isLogUpdate({ $set: {} }, LOG)).toBe(true);
    expect(isLogUpdate({ id: "x", type: "user" }, LOG) || isLogUpdate({ $set: 1 }, LOG) || isLogUpdate(null, LOG)).toBe(false);
  });
});

const strip = (events: CanonicalEvent[]) => events.map((e) => `${e.type} ${JSON.stringify(e.payload)}`);
const files = readdirSync(join(HOME, ".gemini/tmp"), { recursive: true, encoding: "utf8" }).filter((f) => /chats\/session-[^/]*\.jsonl$/.test(f)).map((f) => join(HOME, ".gemini/tmp", f));

let compared = 0;
describe("the CLI reading a chat file (surfaceLines) maps the session openSession opens", () => {
  it("has the chat files", () => expect(files.length).toBeGreaterThanOrEqual(3));
  for (const file of files) {
    it(file.slice(file.indexOf(".gemini")), async () => {
      const text = readFileSync(file, "utf8").split("\n");
      expect(text.some((l) => l.startsWith('{"$set"'))).toBe(true);
      const input: Input = { label: file, detection: detectInput(text.slice(0, 64)), lines: (async function* () { for (let i = 0; i < text.length; i++) yield { text: text[i], n: i + 1 }; })() };
      expect(input.detection).toMatchObject({ kind: "native", surface: "gemini-chat", confidence: 1 });
      const n = createNormalizer({ surface: "gemini-chat", ids: counterIds(), clock: steppingClock() });
      const events: CanonicalEvent[] = [];
      for await (const l of surfaceLines(input, "gemini-chat", true)) events.push(...n.pushLine(l.text, { lineNumber: l.n }));
      events.push(...n.end());
      expect(events.filter((e) => e.type.startsWith("runtime.")).map((e) => (e.payload as any).message)).toEqual([]);
      const [stored] = (await listSessions({ env: { HOME: "/nonexistent-home", GEMINI_CLI_HOME: HOME }, agents: ["gemini"] })).filter((s) => s.path === file);
      if (!stored) return; // a chat opened before any prompt is not listed (skipUntitled): nothing to compare with
      const opened: CanonicalEvent[] = [];
      for await (const e of openSession(stored, { env: { HOME: "/nonexistent-home", GEMINI_CLI_HOME: HOME } })) opened.push(e);
      expect(strip(events)).toEqual(strip(opened));
      compared++;
    });
  }
  it("compared at least the three listed sessions", () => expect(compared).toBeGreaterThanOrEqual(3));
});

const DIST = join(ROOT, "dist/src/cli/cli.js");
(existsSync(DIST) ? describe : describe.skip)("the built CLI on a chat file", () => {
  it("normalize and render replay it: says what the log changed, nothing unknown, the replaced record mapped once", () => {
    const file = files.find((f) => readFileSync(f, "utf8").includes('"$set":{"messages"'))!;
    const r = spawnSync(process.execPath, [DIST, "normalize", "--deterministic", file], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("detected gemini-chat native messages (confidence 100%");
    expect(r.stderr).toMatch(/a record log: \d+ record\(s\) applied to the session \(fields set, a rewind\), [1-9]\d* message record\(s\) replaced or removed by later ones/);
    expect(r.stderr).toMatch(/, 0 unknown, 0 malformed/);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as CanonicalEvent);
    // the session's texts once each, in order (the file holds its messages twice: before and after the resume's `$set`)
    const texts = events.filter((e) => e.type === "content.delta").map((e) => (e.payload as any).delta as string);
    expect(texts.length).toBeGreaterThan(1);
    expect(new Set(texts).size).toBe(texts.length);
    const q = spawnSync(process.execPath, [DIST, "render", "--quiet", file], { encoding: "utf8" });
    expect(q.status, q.stderr).toBe(0);
    expect(q.stderr).toBe("");
    expect(q.stdout).toContain("── turn 1 ──");
  });

  it("view replays it too: the page's problems are none", () => {
    const file = files.find((f) => readFileSync(f, "utf8").includes('"$set":{"messages"'))!;
    const out = join(mkdtempSync(join(tmpdir(), "agentnorm-record-log-")), "chat.html");
    const r = spawnSync(process.execPath, [DIST, "view", file, "-o", out], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("a record log:");
    expect(r.stderr).toMatch(/problems: none/);
    expect(existsSync(out)).toBe(true);
  });
});
