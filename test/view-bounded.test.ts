/**
 * `view` on hostile and huge input (issue 31): no stack trace on any input (a line nesting 100,000 levels, as the
 * other commands reject it), a UTF-8 byte order mark accepted (and the problem summary honest), and a stream too
 * large for one page shown with a stated cap — the last turns that fit, a notice, and a count of what was left out —
 * within a memory bound (the CLI runs in a heap smaller than its input).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadInput, viewerData, ViewerInputError } from "../src/view/data.js";
import { jsonChunks, viewerHtml } from "../src/view/html.js";
import { cutNotice } from "../src/view/labels.js";
import { MAX_NESTING } from "../src/normalize/nesting.js";
import { embeddedData } from "./support/viewer.js";
import { codexLines, CODEX_THREAD as T } from "../bench/codex-stream.js";

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist/src/cli/cli.js");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-view-bounded-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const read = (f: string) => readFileSync(join(ROOT, f), "utf8");
const file = (name: string, text: string | Buffer) => { const p = join(TMP, name); writeFileSync(p, text); return p; };
const cli = (args: string[], input?: string) => spawnSync(process.execPath, [DIST, ...args], { cwd: TMP, encoding: "utf8", input: input ?? "", maxBuffer: 256 << 20, timeout: 120_000 });
const itCli = existsSync(DIST) ? it : it.skip;

const NATIVE = read("fixtures/codex-app-server/approval-session.ndjson");
const CANONICAL = read("fixtures/recorded/codex-app-server/plain.expected.ndjson");
const CAPTURE = read("fixtures/replay/codex-app-server-approval.fixture.ndjson");
const BOM = "\uFEFF";
const DEEP = 100_000;
const deepObject = `{"method":"x","params":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}`;
const deepArray = `{"method":"x","params":${"[".repeat(DEEP)}${"]".repeat(DEEP)}}`;
/** A stack trace, or the CLI's last-resort report of an exception it did not expect. */
const CRASH = /internal error|RangeError|Maximum call stack|^\s+at /m;

const codex = (turns: number, size?: number, deltas?: number) => [...codexLines(turns, size, deltas)].join("\n") + "\n";
const turnStarts = (evs: { type: string; providerRefs?: Record<string, string> }[]) => evs.filter((e) => e.type === "turn.started").map((e) => e.providerRefs?.providerTurnId);

describe("a line nesting 100,000 levels is rejected cleanly, like normalize/render/verify do", () => {
  it("native, canonical and capture input, and a JSON-array document: a problem naming the line, the rest shown", () => {
    for (const deep of [deepObject, deepArray]) {
      const native = loadInput([deep, ...NATIVE.split("\n")].join("\n"), { from: "codex-app-server" });
      const err = native.events.find((e) => e.type === "runtime.error")!;
      expect((err.payload as any).message).toBe(`line 1: JSON nests deeper than ${MAX_NESTING} levels: not mapped`);
      expect(String(native.natives[err.native!].payload)).toMatch(/^\{"method":"x".*characters; JSON nests deeper than 1000 levels/);
      expect(native.events.filter((e) => e.type === "turn.started")).toHaveLength(1);
      expect(() => viewerHtml(viewerData(native))).not.toThrow();

      const said: [number, string][] = [];
      const canonical = loadInput(CANONICAL + deep + "\n", { onLineProblem: (l, m) => said.push([l, m]) });
      const line = CANONICAL.split("\n").filter(Boolean).length + 1;
      expect(canonical.problems).toContainEqual({ kind: "error", message: `line ${line}: JSON nests deeper than ${MAX_NESTING} levels: not mapped` });
      expect(said).toEqual([[line, `JSON nests deeper than ${MAX_NESTING} levels: not mapped`]]);
      expect(() => viewerHtml(viewerData(canonical))).not.toThrow();

      const capture = loadInput(CAPTURE + deep + "\n");
      expect(capture.problems.filter((p) => p.kind === "error").map((p) => p.message)).toEqual([`capture line ${CAPTURE.split("\n").filter(Boolean).length + 1}: JSON nests deeper than ${MAX_NESTING} levels: not mapped`]);
      expect(capture.capture!.problems).toBe(1);
      expect(() => viewerHtml(viewerData(capture))).not.toThrow();
    }
    const doc = loadInput("[".repeat(DEEP) + "]".repeat(DEEP), { from: "codex-app-server" });
    expect(doc.events.map((e) => (e.payload as any).message)).toEqual([`line 1: JSON nests deeper than ${MAX_NESTING} levels: not mapped`]);
    expect(() => viewerHtml(viewerData(doc))).not.toThrow();
  });

  itCli("the CLI: view exits 0 with FILE:LINE, every other command too (a JSON-array document included)", () => {
    const files = {
      object: file("deep-object.ndjson", [deepObject, ...NATIVE.split("\n")].join("\n")),
      array: file("deep-array.ndjson", [deepArray, ...NATIVE.split("\n")].join("\n")),
      canonical: file("deep-canonical.ndjson", CANONICAL + deepObject + "\n"),
      capture: file("deep-capture.ndjson", CAPTURE + deepArray + "\n"),
      document: file("deep-document.json", "[".repeat(DEEP) + "]".repeat(DEEP)),
    };
    for (const [name, f] of Object.entries(files)) {
      const from = name === "canonical" || name === "capture" ? [] : ["--from", "codex-app-server"];
      const r = cli(["view", ...from, f, "-o", join(TMP, `${name}.html`)]);
      expect(r.status, `${name}: ${r.stderr}`).toBe(0);
      expect(r.stderr, name).not.toMatch(CRASH);
      expect(r.stderr, name).toMatch(new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: JSON nests deeper than ${MAX_NESTING} levels`));
      expect(r.stderr, name).toMatch(/problems: (\d+ \w+, )*1 error/);
      expect(embeddedData(readFileSync(join(TMP, `${name}.html`), "utf8")).problems.some((p) => /nests deeper/.test(p.message))).toBe(true);
    }
    for (const cmd of ["normalize", "render", "project", "verify"]) {
      const r = cli([cmd, "--from", "codex-app-server", files.document]);
      expect(r.stderr, `${cmd}: ${r.stderr}`).not.toMatch(CRASH);
      expect(r.stderr, cmd).toMatch(/deep-document\.json:1: JSON nests deeper than 1000 levels: not mapped/);
    }
  });
});

describe("a UTF-8 byte order mark at the start is accepted; the problem summary is honest", () => {
  it("native, canonical and capture input read the same with and without it", () => {
    for (const [text, from] of [[NATIVE, "codex-app-server"], [CANONICAL, undefined], [CAPTURE, undefined]] as const) {
      const said: number[] = [];
      const a = loadInput(text, from ? { from } : {});
      const b = loadInput(BOM + text, { ...(from ? { from } : {}), onLineProblem: (l) => said.push(l) });
      expect(b.kind).toBe(a.kind);
      expect(b.events.map((e) => [e.type, e.sequence])).toEqual(a.events.map((e) => [e.type, e.sequence]));
      expect(b.problems).toEqual(a.problems);
      expect(said).toEqual([]);
    }
  });

  itCli("the CLI: no 'not valid JSON' for the BOM; a real bad line is counted in the summary; every command reads it", () => {
    const plain = cli(["view", file("plain.ndjson", NATIVE), "-o", join(TMP, "plain.html")]);
    const bom = cli(["view", file("bom.ndjson", BOM + NATIVE), "-o", join(TMP, "bom.html")]);
    expect(bom.status, bom.stderr).toBe(0);
    expect(bom.stderr).not.toMatch(/not valid JSON/);
    const summary = (s: string) => /: (native|canonical|capture) input, .*problems: [^→]*/.exec(s)![0];
    expect(summary(bom.stderr)).toBe(summary(plain.stderr));
    // (the recording's own config warning — a warning card — is its one problem)
    expect(summary(bom.stderr)).toMatch(/problems: 1 warning\s*$/);
    // a line that really is not JSON: said as FILE:LINE, and counted
    const lines = NATIVE.split("\n");
    lines.splice(3, 0, '{"method":"turn/started","params":');
    const bad = cli(["view", file("bad.ndjson", BOM + lines.join("\n")), "-o", join(TMP, "bad.html")]);
    expect(bad.stderr).toMatch(/bad\.ndjson:4: not valid JSON/);
    expect(bad.stderr).toMatch(/problems: 1 error/);
    const canonical = file("bom.canonical.ndjson", BOM + CANONICAL);
    for (const cmd of ["render", "project", "verify"]) {
      const r = cli([cmd, "--strict", canonical]);
      expect(r.status, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stderr, cmd).not.toMatch(/malformed|not valid JSON/);
    }
    const v = cli(["view", canonical, "-o", join(TMP, "bom.canonical.html")]);
    expect(v.stderr).toMatch(/canonical input, .*problems: none/);
  });
});

describe("a stream too large for one page: the last turns that fit, a notice, a count of what is left out", () => {
  it("property: whatever the cap, what the page shows plus what it counts as left out is the whole stream", () => {
    const junk = fc.constantFrom("not json", "{\"method\":", "[1,2", "{}", "null", '{"method":"x/unknown","params":{}}');
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 600 }),
      fc.array(fc.tuple(fc.nat(), junk), { maxLength: 4 }),
      fc.integer({ min: 256, max: 40_000 }), fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      (turns, deltas, size, junkLines, maxBytes, maxTurns) => {
        const lines = [...codexLines(turns, size, deltas)];
        for (const [at, j] of junkLines) lines.splice(1 + (at % lines.length), 0, j);
        const text = lines.join("\n");
        const all = loadInput(text, { from: "codex-app-server" });
        const part = loadInput(text, { from: "codex-app-server", maxBytes, ...(maxTurns ? { maxTurns } : {}) });
        const cut = part.cut;
        const leftEvents = cut?.left.events ?? 0;
        expect(part.events.length + leftEvents).toBe(all.events.length);
        expect(part.natives.length + (cut?.left.natives ?? 0)).toBe(all.natives.length);
        // the page's events are the stream's, in order; left out: whole turns before them, or the middle of a turn
        const seqs = all.events.map((e) => e.sequence);
        expect(part.events.map((e) => e.sequence).every((s) => seqs.includes(s))).toBe(true);
        expect(part.events.map((e) => e.sequence)).toEqual([...part.events.map((e) => e.sequence)].sort((a, b) => a - b));
        if (!cut) { expect(part.events.length).toBe(all.events.length); return; }
        expect(cut.turns.total).toBe(turns);
        expect(cut.turns.shown + cut.left.turns).toBe(turns);
        if (maxTurns) expect(cut.turns.shown).toBeLessThanOrEqual(maxTurns);
        expect(turnStarts(part.events)).toEqual(turnStarts(all.events).slice(turns - cut.turns.shown));
        // every native the page keeps links to events it keeps; problems of what was left out are counted
        const kept = new Set(part.events.map((e) => e.sequence));
        for (const nv of part.natives) for (const s of nv.events) expect(kept.has(s)).toBe(true);
        const errors = (l: typeof all) => l.events.filter((e) => e.type === "runtime.error").length;
        expect(errors(part) + (cut.left.problems.error ?? 0)).toBe(errors(all));
        // the page says so
        const data = viewerData(part);
        expect(data.meta.cut).toEqual(cut);
        if (cut.turns.shown) expect(data.transcript.turns[data.transcript.turns.length - 1].index).toBe(turns);
        expect(embeddedData(viewerHtml(data)).meta.cut).toEqual(cut);
        expect(cutNotice(cut)).toMatch(new RegExp(`last ${cut.turns.shown} of ${turns} turn`));
      },
    ), { seed: 3131, numRuns: 60 });
  });

  it("one turn larger than the cap: its turn.started and its last events are shown, the middle counted", () => {
    const lines = [...codexLines(1, 300, 2000)];
    const all = loadInput(lines.join("\n"), { from: "codex-app-server" });
    const part = loadInput(lines.join("\n"), { from: "codex-app-server", maxBytes: 64 * 1024 });
    const cut = part.cut!;
    expect(cut.turns).toEqual({ total: 1, shown: 1 });
    expect(cut.left.turns).toBe(0);
    expect(cut.partial!.events).toBe(cut.left.events);
    expect(cut.partial!.turnId).toBe(part.events.find((e) => e.type === "turn.started")!.turnId);
    expect(part.events.map((e) => e.type)).toContain("turn.started");
    expect(part.events[part.events.length - 1].sequence).toBe(all.events[all.events.length - 1].sequence);
    expect(part.natives.reduce((a, n) => a + JSON.stringify(n.payload).length, 0)).toBeLessThan(64 * 1024 + 2000);
    expect(cutNotice(cut)).toMatch(/is shown in part: [\d,]+ of its event\(s\) after its start are left out/);
  });

  itCli("the CLI streams a 60 MB input through a 64 MB heap with --max-mb 2: page within the cap, notice and counts", async () => {
    const TURNS = 4500;
    const out = join(TMP, "big.html");
    // the input is generated as it is read (stdin): it never exists whole, here or in the child
    const child = spawn(process.execPath, ["--max-old-space-size=64", DIST, "view", "-", "--from", "codex-app-server", "--max-mb", "2", "-o", out], { cwd: TMP, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s) => (stderr += s));
    const done = new Promise<number | null>((res) => child.on("close", (code) => res(code)));
    let sent = 0;
    let lines = 0;
    let batch: string[] = [];
    const flush = async () => {
      const s = batch.join("\n") + "\n";
      batch = [];
      sent += s.length;
      if (!child.stdin.write(s)) await new Promise((res) => child.stdin.once("drain", res));
    };
    for (const l of codexLines(TURNS, 1000)) {
      batch.push(l);
      lines++;
      if (batch.length >= 500) await flush();
    }
    await flush();
    child.stdin.end();
    const code = await done;
    expect(code, stderr).toBe(0);
    expect(sent).toBeGreaterThan(60 << 20); // the input is larger than the heap the view ran in
    expect(stderr).not.toMatch(CRASH);
    const page = statSync(out).size;
    // measured: 3.3 × the input it shows (natives, events and transcript each hold the text) + the page's script
    expect(page).toBeLessThan(4 * (2 << 20) + (256 << 10));
    const data = embeddedData(readFileSync(out, "utf8"));
    const cut = data.meta.cut!;
    expect(cut.maxBytes).toBe(2 << 20);
    expect(cut.lines).toBe(lines);
    expect(cut.turns.total).toBe(TURNS);
    expect(cut.turns.shown + cut.left.turns).toBe(TURNS);
    expect(cut.turns.shown).toBeGreaterThan(50);
    expect(data.natives.length + cut.left.natives).toBe(lines);
    expect(cut.left.chars + data.natives.reduce((a, n) => a + JSON.stringify(n.payload).length, 0)).toBeGreaterThanOrEqual(sent - lines - 5_000);
    expect(data.transcript.turns.map((t) => t.index)).toEqual(Array.from({ length: cut.turns.shown }, (_, i) => TURNS - cut.turns.shown + 1 + i));
    expect(data.natives[0].line).toBe(1); // the thread's start (the preamble) stays
    expect(data.natives[1].line).toBe(cut.fromLine);
    expect(stderr).toContain(cutNotice(cut));
    expect(stderr).toMatch(/only part of the stream is shown \(cap: 2\.0 MB of input\): the last [\d,]+ of 4,500 turn\(s\)/);
  }, 180_000);

  itCli("reading a large input keeps none of it: after normalize or view of 40 MB on stdin, no chunk is still reachable", async () => {
    // a never-settled promise raced against every read kept each chunk read (the whole input, outside the heap)
    const preload = file("buffers.cjs", `process.on("exit", () => { global.gc(); process.stderr.write("arrayBuffers=" + process.memoryUsage().arrayBuffers + "\\n"); });`);
    const input = codex(3000, 1000);
    expect(input.length).toBeGreaterThan(40 << 20);
    for (const args of [["normalize", "--quiet", "-"], ["view", "--quiet", "--max-mb", "2", "-", "-o", join(TMP, "buffers.html")]]) {
      const r = spawnSync(process.execPath, ["--expose-gc", "--require", preload, DIST, ...args, "--from", "codex-app-server"], { cwd: TMP, input, encoding: "utf8", maxBuffer: 1 << 30, timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
      const held = Number(/arrayBuffers=(\d+)/.exec(r.stderr)![1]);
      expect(held, `${args[0]}: ${held} bytes of buffers still reachable`).toBeLessThan(8 << 20);
    }
  }, 180_000);

  itCli("--turns N, --max-mb checked, and a line longer than the cap left out and said", () => {
    const f = file("turns.ndjson", codex(10));
    const r = cli(["view", f, "--turns", "3", "-o", join(TMP, "turns.html")]);
    expect(r.status, r.stderr).toBe(0);
    const data = embeddedData(readFileSync(join(TMP, "turns.html"), "utf8"));
    expect(data.transcript.turns.map((t) => t.index)).toEqual([8, 9, 10]);
    expect(data.meta.cut).toMatchObject({ maxTurns: 3, turns: { total: 10, shown: 3 }, left: { turns: 7 } });
    expect(r.stderr).toMatch(/cap: 16\.0 MB of input, 3 turn\(s\)\): the last 3 of 10 turn\(s\)/);
    expect(cli(["view", f, "--max-mb", "0"]).status).toBe(2);
    expect(cli(["view", f, "--turns", "x"]).stderr).toMatch(/--turns must be a positive integer/);
    // a line of 1.5 MB with --max-mb 1: not read into memory, said, counted; the rest is shown
    const lines = codex(3).split("\n");
    lines.splice(2, 0, JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: T, turnId: "turn-0", itemId: "m-0", delta: "z".repeat(1_500_000) } }));
    const big = cli(["view", file("long-line.ndjson", lines.join("\n")), "--max-mb", "1", "-o", join(TMP, "long-line.html")]);
    expect(big.status, big.stderr).toBe(0);
    expect(big.stderr).toMatch(/long-line\.ndjson:3: 1,500,\d{3} characters, more than the page's cap \(1\.0 MB\): left out/);
    expect(big.stderr).toMatch(/problems: .*1 error/);
    const page = embeddedData(readFileSync(join(TMP, "long-line.html"), "utf8"));
    expect(page.transcript.turns).toHaveLength(3);
  });

  it("jsonChunks (how the page is written, piece by piece) joins to JSON.stringify (property)", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 0, max: 6 }), (v, depth) => {
      expect([...jsonChunks(v, depth)].join("")).toBe(JSON.stringify(v));
    }), { seed: 3132, numRuns: 500 });
    const withHoles = { a: undefined, b: [undefined, () => 1, 2], c: { toJSON: () => "x" }, d: new Date(0) };
    expect([...jsonChunks(withHoles, 4)].join("")).toBe(JSON.stringify(withHoles));
  });

  it("nothing but ViewerInputError comes out of the reader, whatever the lines (fuzz)", () => {
    const line = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc.constantFrom(BOM, BOM + "{}", "\r", deepObject.slice(0, 5000), "[".repeat(1500), "{\"stage\":\"native_in\"}", ...NATIVE.split("\n").slice(0, 10), ...CANONICAL.split("\n").slice(0, 5), ...CAPTURE.split("\n").slice(0, 5)),
    );
    fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 25 }), fc.option(fc.constantFrom("codex-app-server", "claude-sdk", "acp"), { nil: undefined }), fc.integer({ min: 64, max: 5000 }), (ls, from, maxBytes) => {
      try {
        const data = viewerData(loadInput(ls.join("\n"), { ...(from ? { from } : {}), maxBytes }));
        expect(embeddedData(viewerHtml(data)).events.length).toBe(data.events.length);
      } catch (err) {
        expect(err, String((err as Error)?.stack)).toBeInstanceOf(ViewerInputError);
      }
    }), { seed: 3133, numRuns: 300 });
  });
});
