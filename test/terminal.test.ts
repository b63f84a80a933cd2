/**
 * Terminal output (src/render/terminal-safe.ts, `render`): SGR limited to colours and bold/dim/italic/underline,
 * invisible characters shown escaped, long lines cut with a marker (`--width`). Unit cases, properties over random
 * text with hostile pieces mixed in, and the CLI.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { allowedSgr, cutLine, cutMarker, escapeJsonOutput, escapeTerminal } from "../src/render/terminal-safe.js";
import { DEFAULT_RENDER_WIDTH, renderSnapshotText } from "../src/render/render-text.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { counterIds, createNormalizer } from "../src/index.js";

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist/src/cli/cli.js");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-terminal-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** What must never reach a terminal raw: controls but \n and \t, and characters that draw nothing. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\ufe00-\ufe0d\u{e0100}-\u{e01ef}]/u;
const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\u2061", "\u2062", "\u2063", "\u2064", "\ufeff", "\u00ad", "\u061c", "\u180e", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u206a", "\u206f", "\ufff9", "\u034f", "\u115f", "\u3164", "\uffa0", "\ufe00", "\u{e0001}", "\u{e0041}", "\u{e007f}", "\u{e0100}", "\u{1d173}"];
const BAD_SGR = ["5", "6", "7", "8", "9", "21", "25", "27", "28", "10", "11", "20", "51", "52", "53", "60", "1;8", "31;5", "38;5", "38;5;256", "38;2;1;2", "38:5", "4:9", "0;7;31"];
const GOOD_SGR = ["", "0", "1", "2", "3", "4", "22", "23", "24", "31", "39", "42", "49", "91", "107", "1;31", "0;1;2;3;4;32;44", "38;5;196", "48;2;1;2;3", "38:2::10:20:30", "38:5:12", "58;5;1", "59", "4:3"];

/** Strings with hostile pieces (ESC sequences, invisible characters, presentation selectors) among ordinary text. */
const hostileText = fc.array(fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 4 }),
  fc.constantFrom(...INVISIBLE, "\ufe0f", "\ufe0e", "❤\ufe0f", "\r", "\r\n", "\n", "\t", "\u0007", "\u009b", "\u001b]0;t\u0007"),
  fc.constantFrom(...BAD_SGR, ...GOOD_SGR).map((p) => `\u001b[${p}m`),
), { maxLength: 30 }).map((xs) => xs.join(""));

/** Kept ESCs are allowed SGRs; nothing else raw (a presentation selector only right after a visible character). */
function checkSafe(out: string): void {
  const sgrs = out.match(/\u001b[^m]{0,40}m?/g) ?? [];
  for (const s of sgrs) {
    expect(s, JSON.stringify(out)).toMatch(/^\u001b\[[0-9;:]*m$/);
    expect(allowedSgr(s.slice(2, -1)), s).toBe(true);
  }
  const rest = out.replace(/\u001b\[[0-9;:]*m/g, "");
  expect(RAW.test(rest.replace(/\u001b/g, "")), JSON.stringify(rest.match(RAW))).toBe(false);
  expect(rest.includes("\u001b")).toBe(false);
  for (const m of rest.matchAll(/[\ufe0e\ufe0f]/gu)) {
    const before = [...rest.slice(0, m.index)].pop();
    expect(before === undefined || /[\ufe0e\ufe0f\s]/u.test(before), JSON.stringify(rest)).toBe(false);
  }
}

describe("SGR: colours and bold/dim/italic/underline only", () => {
  it("the allowed parameter lists, and the refused ones", () => {
    for (const p of GOOD_SGR) expect(allowedSgr(p), p).toBe(true);
    for (const p of BAD_SGR) expect(allowedSgr(p), p).toBe(false);
  });

  it("conceal, blink and reverse from tool output are shown escaped; colours are kept", () => {
    const s = "a\u001b[8mhidden\u001b[0m b\u001b[5mblink\u001b[25m c\u001b[7mrev\u001b[27m d\u001b[1;31mred\u001b[0m";
    expect(escapeTerminal(s, { keepSgr: true })).toBe("a\\e[8mhidden\u001b[0m b\\e[5mblink\\e[25m c\\e[7mrev\\e[27m d\u001b[1;31mred\u001b[0m\u001b[0m");
    expect(escapeTerminal(s)).not.toContain("\u001b");
  });

  it("property: whatever the text, only allowed SGRs and no raw control or invisible character come out", () => {
    fc.assert(fc.property(hostileText, fc.boolean(), (s, keepSgr) => {
      checkSafe(escapeTerminal(s, { keepSgr }));
      if (!keepSgr) expect(escapeTerminal(s).includes("\u001b")).toBe(false);
    }), { seed: 31, numRuns: 2000 });
  });
});

describe("invisible characters are shown escaped", () => {
  it("zero-width, joiners, BOM, bidi, tags, fillers, stray variation selectors", () => {
    expect(escapeTerminal("a\u200bb\u200cc\u200dd\u2060e\ufefff")).toBe("a\\u200bb\\u200cc\\u200dd\\u2060e\\ufefff");
    expect(escapeTerminal("x\u{e0041}\u{e0042}y")).toBe("x\\u{e0041}\\u{e0042}y");
    expect(escapeTerminal("\u3164\u115f\u00ad")).toBe("\\u3164\\u115f\\xad");
    for (const c of INVISIBLE) expect(escapeTerminal(`a${c}b`), c.codePointAt(0)!.toString(16)).not.toContain(c);
    // one presentation selector after its character is an emoji, not a hiding place; a run of them, or one alone, is shown
    expect(escapeTerminal("❤\ufe0f ok")).toBe("❤\ufe0f ok");
    expect(escapeTerminal("❤\ufe0f\ufe0f")).toBe("❤\\ufe0f\\ufe0f");
    expect(escapeTerminal("\ufe0fx")).toBe("\\ufe0fx");
    expect(escapeTerminal(" \ufe0f")).toBe(" \\ufe0f");
  });

  it("JSON output: the same characters as \\u escapes, the same value when parsed (property)", () => {
    fc.assert(fc.property(hostileText, (s) => {
      const json = JSON.stringify({ s, [s]: 1 });
      const out = escapeJsonOutput(json);
      expect(JSON.parse(out)).toEqual(JSON.parse(json));
      const raw = out.replace(/\\u[0-9a-f]{4}/g, "");
      expect(RAW.test(raw), JSON.stringify(raw.match(RAW))).toBe(false);
    }), { seed: 32, numRuns: 1000 });
  });
});

describe("long lines are cut with a marker", () => {
  it("cutLine: the first WIDTH characters, then … (+N chars); SGR does not count and is closed", () => {
    expect(cutLine("abcdef", 6)).toBe("abcdef");
    expect(cutLine("abcdefgh", 3)).toBe("abc" + cutMarker(5));
    expect(cutLine("\u001b[32m" + "x".repeat(20) + "\u001b[0m", 10)).toBe("\u001b[32m" + "x".repeat(10) + "\u001b[0m" + cutMarker(10));
    expect(cutLine("😀".repeat(20), 5)).toBe("😀".repeat(5) + cutMarker(15)); // never half a surrogate pair
  });

  it("property: what is shown plus what the marker counts is the whole line", () => {
    fc.assert(fc.property(hostileText.map((s) => escapeTerminal(s, { keepSgr: true, keepNewlines: false })), fc.integer({ min: 1, max: 40 }), (line, width) => {
      const out = cutLine(line, width);
      const visible = (x: string) => [...x.replace(/\u001b\[[0-9;:]*m/g, "")].length;
      if (out === line) { expect(visible(line) <= width || line.length <= width).toBe(true); return; }
      const m = /… \(\+(\d+) chars\)$/.exec(out)!;
      expect(m).not.toBeNull();
      const shown = out.slice(0, m.index).replace(/\u001b\[0m$/, "");
      expect(visible(shown)).toBe(width);
      expect(visible(shown) + Number(m[1])).toBe(visible(line));
      expect(line.startsWith(shown)).toBe(true);
      if (/\u001b\[/.test(line.slice(0, line.length))) expect(out.slice(0, m.index).endsWith("\u001b[0m") || !/\u001b\[/.test(line)).toBe(true);
    }), { seed: 33, numRuns: 1000 });
  });

  it("renderSnapshotText: a 200k-character line is cut at width (default 1000)", () => {
    const T = "thr-1";
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds() });
    const acc = createAccumulator();
    const push = (m: unknown) => acc.applyAll(n.push(m));
    push({ method: "thread/started", params: { thread: { id: T } } });
    push({ method: "turn/started", params: { threadId: T, turn: { id: "t1", items: [], status: "inProgress" } } });
    push({ method: "item/started", params: { threadId: T, turnId: "t1", item: { type: "agentMessage", id: "m1", text: "" } } });
    push({ method: "item/agentMessage/delta", params: { threadId: T, turnId: "t1", itemId: "m1", delta: "x".repeat(200_000) + "\nshort" } });
    const lines = renderSnapshotText(acc.snapshot()).split("\n");
    expect(DEFAULT_RENDER_WIDTH).toBe(1000);
    const long = lines.find((l) => l.includes("xxx"))!;
    expect([...long].length).toBe(1000 + cutMarker(200_010 - 1000).length);
    expect(long.endsWith(cutMarker("assistant ".length + 200_000 - 1000))).toBe(true);
    expect(lines.some((l) => l.endsWith("short"))).toBe(true);
    expect(Math.max(...renderSnapshotText(acc.snapshot(), { width: 50 }).split("\n").map((l) => [...l].length))).toBeLessThanOrEqual(50 + cutMarker(200_000).length);
  });
});

describe.skipIf(!existsSync(DIST))("agentnorm render (CLI)", () => {
  const run = (args: string[]) => spawnSync(process.execPath, [DIST, ...args], { cwd: TMP, encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: "" } });
  const T = "019a0000-0000-7000-8000-00000000aaaa";
  const stream = (text: string) => [
    { method: "thread/started", params: { thread: { id: T } } },
    { method: "turn/started", params: { threadId: T, turn: { id: "t1", items: [], status: "inProgress" } } },
    { method: "item/started", params: { threadId: T, turnId: "t1", startedAtMs: 1, item: { type: "commandExecution", id: "c1", command: "ls", status: "inProgress" } } },
    { method: "item/commandExecution/outputDelta", params: { threadId: T, turnId: "t1", itemId: "c1", delta: text } },
    { method: "item/completed", params: { threadId: T, turnId: "t1", completedAtMs: 2, item: { type: "commandExecution", id: "c1", command: "ls", status: "completed", aggregatedOutput: text, exitCode: 0 } } },
    { method: "turn/completed", params: { threadId: T, turn: { id: "t1", items: [], status: "completed" } } },
  ].map((m) => JSON.stringify(m)).join("\n") + "\n";

  it("--color: conceal/blink/reverse escaped, colour kept, zero-width escaped; a 200k line cut at --width", () => {
    const f = join(TMP, "sgr.ndjson");
    writeFileSync(f, stream(`\u001b[31mred\u001b[0m \u001b[8mpassword\u001b[0m \u001b[5mblink\u001b[0m \u001b[7mrev\u001b[0m a\u200bb\u200dc\ufeffd\u202ee\n${"y".repeat(200_000)}\n`));
    const r = run(["render", "--from", "codex-app-server", "--color", f]);
    expect(r.status, r.stderr).toBe(0);
    checkSafe(r.stdout);
    expect(r.stdout).toContain("\u001b[31mred\u001b[0m");
    expect(r.stdout).toContain("\\e[8mpassword");
    expect(r.stdout).toContain("\\e[5mblink");
    expect(r.stdout).toContain("\\e[7mrev");
    expect(r.stdout).toContain("a\\u200bb\\u200dc\\ufeffd\\u202ee");
    expect(Math.max(...r.stdout.split("\n").map((l) => [...l.replace(/\u001b\[[0-9;:]*m/g, "")].length))).toBeLessThanOrEqual(DEFAULT_RENDER_WIDTH + 20);
    expect(r.stdout).toMatch(/y{10}(\u001b\[0m)?… \(\+\d+ chars\)/);
    const narrow = run(["render", "--from", "codex-app-server", "--width", "40", f]);
    expect(Math.max(...narrow.stdout.split("\n").map((l) => [...l].length))).toBeLessThanOrEqual(40 + cutMarker(200_000).length);
    expect(run(["render", "--width", "0", f]).status).toBe(2);
    expect(run(["render", "--width", "0", f]).stderr).toMatch(/--width must be a positive integer/);
  });

  it("help documents --width and its default", () => {
    expect(run(["render", "--help"]).stdout).toMatch(/--width N .*\n.*\(default 1000\)/);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toMatch(/--width N/);
  });
});
