/**
 * One CLI behaviour: every command × every bad input (missing file, directory, binary, gzip, truncated line, empty file, blank lines,
 * wrong surface, unwritable output) gives the exit code the README's table says and a clean one-line
 * `agentnorm: <what>: <why>` (or FILE:LINE) message — never a stack trace. Plus help on every command, bare
 * `agentnorm`, consistent line numbers around a lone "\r", and hostile text (terminal escapes) through every
 * command that prints. Runs the built CLI (npm test builds it first).
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist/src/cli/cli.js");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-cli-table-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const d = existsSync(DIST) ? describe : describe.skip;

interface Run { status: number | null; stdout: string; stderr: string }
function run(args: string[], o: { input?: string; stdout?: "pipe" | "full" } = {}): Run {
  let fd: number | undefined;
  if (o.stdout === "full") fd = openSync("/dev/full", "w");
  try {
    const r = spawnSync(process.execPath, [DIST, ...args], {
      cwd: TMP, encoding: "utf8", input: o.input ?? "", timeout: 60_000, maxBuffer: 64 * 1024 * 1024,
      stdio: ["pipe", fd ?? "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" },
    });
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
const file = (name: string, text: string | Buffer) => {
  const p = join(TMP, name);
  writeFileSync(p, text);
  return p;
};

const NATIVE = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8");
const CANONICAL = readFileSync(join(ROOT, "fixtures/recorded/codex-app-server/plain.expected.ndjson"), "utf8");
const FIXTURE = readFileSync(join(ROOT, "fixtures/replay/codex-app-server-approval.fixture.ndjson"), "utf8");
const truncate = (text: string) => {
  const lines = text.split("\n").filter(Boolean);
  return [...lines.slice(0, -1), lines[lines.length - 1].slice(0, 40)].join("\n") + "\n";
};
/** Deterministic binary bytes (an image-like header, then noise). */
const BINARY = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i < 8 ? [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a][i] : (i * 131 + 7) % 256)));

const MISSING = join(TMP, "no-such-dir", "missing.ndjson");
const DIR = join(TMP, "a-directory");
mkdirSync(DIR, { recursive: true });

/** Each command: how it is called on FILE, the input it expects (for the truncated / wrong-surface rows), and how its output is made unwritable. */
interface Cmd {
  name: string;
  args: (f: string) => string[];
  good: string;
  /** Whether an empty input is an error for it (it needs a document) or an empty result. */
  emptyFails: boolean;
  /** Args that make its output unwritable (-o into a missing folder), or undefined: stdout is /dev/full. */
  unwritable?: (f: string) => string[];
  /** The wrong-surface row: args and the expected exit. */
  wrong: (f: string) => string[];
  wrongExit: number;
  /** Exit on a truncated last line (without --strict). */
  truncatedExit: number;
  strict: boolean;
}
const CMDS: Cmd[] = [
  { name: "normalize", args: (f) => ["normalize", f], good: NATIVE, emptyFails: false, wrong: (f) => ["normalize", "--from", "claude-sdk", f], wrongExit: 1, truncatedExit: 0, strict: true },
  { name: "render", args: (f) => ["render", f], good: NATIVE, emptyFails: false, wrong: (f) => ["render", "--from", "claude-sdk", f], wrongExit: 1, truncatedExit: 0, strict: true },
  { name: "project", args: (f) => ["project", f], good: NATIVE, emptyFails: false, wrong: (f) => ["project", "--from", "claude-sdk", f], wrongExit: 1, truncatedExit: 0, strict: true },
  { name: "verify", args: (f) => ["verify", f], good: CANONICAL, emptyFails: false, wrong: (f) => ["verify", "--from", "claude-sdk", f], wrongExit: 1, truncatedExit: 1, strict: true },
  { name: "view", args: (f) => ["view", f, "-o", join(TMP, "out.html")], good: NATIVE, emptyFails: true, unwritable: (f) => ["view", f, "-o", join(TMP, "no-such-dir", "out.html")], wrong: (f) => ["view", "--from", "claude-sdk", f, "-o", join(TMP, "out.html")], wrongExit: 1, truncatedExit: 0, strict: false },
  { name: "capture check", args: (f) => ["capture", "check", f], good: FIXTURE, emptyFails: true, wrong: (f) => ["capture", "check", f.replace(/\.ndjson$/, ".native.ndjson")], wrongExit: 1, truncatedExit: 1, strict: false },
  { name: "capture sanitize", args: (f) => ["capture", "sanitize", f], good: FIXTURE, emptyFails: true, unwritable: (f) => ["capture", "sanitize", f, "-o", join(TMP, "no-such-dir", "x.ndjson")], wrong: (f) => ["capture", "sanitize", f.replace(/\.ndjson$/, ".native.ndjson")], wrongExit: 1, truncatedExit: 1, strict: false },
  { name: "replay", args: (f) => ["replay", f], good: FIXTURE, emptyFails: true, wrong: (f) => ["replay", f.replace(/\.ndjson$/, ".native.ndjson")], wrongExit: 1, truncatedExit: 1, strict: false },
];

/** No JS stack trace, no raw errno codes, every stderr line either an `agentnorm…` message or a FILE:LINE diagnostic. */
function clean(r: Run, label: string): void {
  expect(r.stderr, label).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
  expect(r.stderr, label).not.toMatch(/\b(?:ENOENT|EISDIR|ENOSPC|EACCES)\b/);
  expect(r.stderr, label).not.toMatch(/^(?:Type|Reference|Syntax)?Error:/m);
  for (const l of r.stderr.split("\n").filter(Boolean)) expect(l, label).toMatch(/^(agentnorm[ :]|\S+?:(\d+:)? |Run "agentnorm --help"|  )/);
}

const rows: [string, () => void][] = [];
for (const c of CMDS) {
  const slug = c.name.replace(/ /g, "-");
  rows.push([`${c.name} × missing file → 1, "no such file or directory"`, () => {
    const r = run(c.args(MISSING));
    clean(r, c.name);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`agentnorm: ${MISSING}: no such file or directory`);
  }]);
  rows.push([`${c.name} × directory → 1, "is a directory"`, () => {
    const r = run(c.args(DIR));
    clean(r, c.name);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`agentnorm: ${DIR}: is a directory`);
  }]);
  rows.push([`${c.name} × binary file → 1, "binary data"`, () => {
    const f = file(`${slug}.bin`, BINARY);
    const r = run(c.args(f));
    clean(r, c.name);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`agentnorm: ${f}: binary data, not NDJSON text`);
  }]);
  rows.push([`${c.name} × gzip file → 1, "gzip-compressed data" and how to read it`, () => {
    const f = file(`${slug}.ndjson.gz`, gzipSync(c.good));
    const r = run(c.args(f));
    clean(r, c.name);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`agentnorm: ${f}: gzip-compressed data, not NDJSON text (decompress it first: gzip -dc ${f} | agentnorm ${c.name} -)`);
  }]);
  rows.push([`${c.name} × truncated last line → ${c.truncatedExit}, FILE:LINE${c.strict ? "; --strict → 1" : ""}`, () => {
    const text = truncate(c.good);
    const n = text.split("\n").filter(Boolean).length;
    const f = file(`${slug}.truncated.ndjson`, text);
    const r = run(c.args(f));
    clean(r, c.name);
    expect(r.status, r.stderr).toBe(c.truncatedExit);
    expect(r.stderr).toContain(`${f}:${n}: `);
    if (c.strict) {
      const s = run([...c.args(f), "--strict"]);
      clean(s, c.name);
      expect(s.status).toBe(1);
      expect(s.stderr).toMatch(/--strict: \d+ malformed and \d+ unknown line\(s\)/);
    }
  }]);
  rows.push([`${c.name} × empty file → ${c.emptyFails ? 1 : 0}, "empty input"`, () => {
    const f = file(`${slug}.empty.ndjson`, "");
    const r = run(c.args(f));
    clean(r, c.name);
    expect(r.status).toBe(c.emptyFails ? 1 : 0);
    expect(r.stderr).toContain(`agentnorm: ${f}: empty input`);
  }]);
  rows.push([`${c.name} × only blank lines → ${c.emptyFails ? 1 : 0}, "empty input"`, () => {
    const f = file(`${slug}.blank.ndjson`, "\n  \n\t\r\n");
    const r = run(c.args(f));
    clean(r, c.name);
    expect(r.status).toBe(c.emptyFails ? 1 : 0);
    expect(r.stderr).toContain(`agentnorm: ${f}: empty input`);
  }]);
  rows.push([`${c.name} × wrong surface → ${c.wrongExit}, says what the input looks like`, () => {
    const f = file(`${slug}.wrong.ndjson`, c.good);
    file(`${slug}.wrong.native.ndjson`, NATIVE);
    const r = run(c.wrong(f));
    clean(r, c.name);
    expect(r.status, r.stderr).toBe(c.wrongExit);
    expect(r.stderr).toMatch(/looks like (codex-app-server native messages|canonical events)/);
    // not one line is a claude-sdk message: one line says so (no FILE:LINE note for each)
    if (c.wrongExit === 1 && c.wrong(f).includes("--from")) {
      expect(r.stderr).toMatch(new RegExp(`agentnorm: ${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: none of the \\d+ line\\(s\\) is a message of claude-sdk \\(check --from\\)`));
      expect(r.stderr).not.toMatch(/:\d+: /);
    }
    if (c.strict) expect(run([...c.wrong(f), "--strict"]).status).toBe(1);
  }]);
  rows.push([`${c.name} × unwritable output → ${c.name === "capture check" ? "0 (it writes only its report, on stderr)" : '1, "cannot write"'}`, () => {
    const f = file(`${slug}.out.ndjson`, c.good);
    if (c.name === "capture check") {
      // it writes nothing but its report (stderr): a closed stdout changes nothing
      const r = run(c.args(f), { stdout: "full" });
      clean(r, c.name);
      expect(r.status).toBe(0);
      expect(r.stderr).not.toContain("cannot write");
    } else if (c.unwritable) {
      const r = run(c.unwritable(f));
      clean(r, c.name);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/agentnorm: \S+no-such-dir\S+: cannot write: no such file or directory/);
    } else {
      // replay writes its diff to stdout: make it differ; verify writes findings to stdout with --json: give it one
      const input = c.name === "replay" ? file(`${slug}.tampered.ndjson`, c.good.replace('"type":"turn.started"', '"type":"turn.startedX"')) : c.name === "verify" ? file(`${slug}.finding.ndjson`, truncate(c.good)) : f;
      const r = run(c.name === "verify" ? ["verify", "--json", input] : c.args(input), { stdout: "full" });
      clean(r, c.name);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("agentnorm: <stdout>: cannot write: no space left on device");
    }
  }]);
}
// matrix reads no input: its rows are an argument, a closed output and --help
rows.push([`matrix × an argument → 2 (usage on stderr)`, () => {
  const r = run(["matrix", "extra"]);
  clean(r, "matrix");
  expect(r.status).toBe(2);
  expect(r.stdout).toBe("");
}]);
rows.push([`matrix × unwritable output → 1, "cannot write"`, () => {
  const r = run(["matrix"], { stdout: "full" });
  clean(r, "matrix");
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("agentnorm: <stdout>: cannot write: no space left on device");
}]);

d("CLI table: command × bad input", () => {
  it(`covers ${CMDS.length} commands × 9 bad inputs + matrix (${rows.length} rows)`, () => {
    expect(rows.length).toBe(CMDS.length * 9 + 2);
    console.log(`CLI table: ${rows.length} rows (${CMDS.length} commands × 9 bad inputs, + matrix 2)`);
  });
  for (const [name, fn] of rows) it(name, fn);
});

d("help, usage and line numbers", () => {
  const COMMANDS = ["normalize", "render", "project", "verify", "view", "capture", "replay", "matrix", "surfaces"];
  it("--help on every command: usage on stdout, exit 0, nothing on stderr", () => {
    for (const c of COMMANDS) {
      const r = run([c, "--help"]);
      expect(r.status, c).toBe(0);
      expect(r.stdout.length, c).toBeGreaterThan(20);
      expect(r.stderr, c).toBe("");
    }
  });
  it("bare `agentnorm`: usage on stderr, exit 2, nothing on stdout; `agentnorm --help`: stdout, exit 0", () => {
    const r = run([]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/usage:/);
    const h = run(["--help"]);
    expect(h.status).toBe(0);
    expect(h.stderr).toBe("");
    expect(h.stdout).toMatch(/Exit codes: 0 done, 1 failed/);
  });
  it("matrix prints the Markdown without the generator's do-not-edit header", () => {
    const r = run(["matrix"]);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/DO NOT EDIT|Generated by agentnorm codegen/);
    expect(r.stdout).toMatch(/^# Compatibility matrix/);
  });
  it("a lone \\r is text, not a line break: every command names the same line", () => {
    const lines = NATIVE.split("\n").filter(Boolean);
    // line 3 holds a lone CR between two values (so it is malformed); line 5 is cut short
    const text = [lines[0], lines[1], `${lines[2]}\r{"x":1}`, lines[3], lines[4].slice(0, -3), ...lines.slice(5, 10)].join("\n") + "\n";
    const f = file("lone-cr.ndjson", text);
    for (const args of [["normalize", f], ["render", f], ["project", f], ["verify", "--from", "codex-app-server", f]]) {
      const r = run(args);
      expect(r.stderr, args[0]).toContain(`${f}:3: `);
      expect(r.stderr, args[0]).toContain(`${f}:5: `);
      expect(r.stderr, args[0]).not.toContain(`${f}:6: `);
    }
    const cap = FIXTURE.split("\n").filter(Boolean);
    const cf = file("lone-cr.fixture.ndjson", [cap[0], cap[1], `${cap[2]}\r{"x":1}`, cap[3], cap[4].slice(0, -3), ...cap.slice(5, 10)].join("\n") + "\n");
    const r = run(["capture", "check", cf]);
    expect(r.stderr).toContain(`${cf}:3: `);
    expect(r.stderr).toContain(`${cf}:5: `);
  });
  it("npm run fuzz -- --surface nope / --count abc: one-line usage errors, exit 2", () => {
    const tsx = join(ROOT, "node_modules/.bin/tsx");
    for (const args of [["--surface", "nope"], ["--count", "abc"], ["--count"]]) {
      const r = spawnSync(tsx, [join(ROOT, "test/fuzz/cli.ts"), ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^agentnorm fuzz: /);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  });
  // `script` (util-linux) gives the child a pseudo-terminal; without it the test is skipped, visibly
  const hasScript = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).status === 0;
  it.skipIf(!hasScript)(`stdin on a terminal gets a hint instead of a silent wait${hasScript ? "" : " (skipped: no `script` command for a pseudo-terminal)"}`, () => {
    // stdin at EOF right away
    const r = spawnSync("script", ["-qec", `${process.execPath} ${DIST} verify`, "/dev/null"], { encoding: "utf8", input: "\u0004", timeout: 30_000 });
    expect(r.stdout).toMatch(/reading NDJSON from the terminal \(end with Ctrl-D\)/);
  });
});

/** Control characters a terminal could obey (\n and \t are fine), and characters that draw nothing (format characters, fillers). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\u115f\u1160\u3164\uffa0]/u;
const HOSTILE = "clear\u001b[2J title\u001b]0;pwned\u0007 cr\roverwrite csi\u009b31m bidi\u202eevil\u202c bell\u0007" +
  " conceal\u001b[8mhidden\u001b[0m blink\u001b[5mX\u001b[6mY\u001b[0m reverse\u001b[7mZ\u001b[27m zw[\u200b\u200c\u200d\u2060\ufeff] tag[\u{e0041}\u{e0042}]";

d("hostile text through every command that prints", () => {
  const lines = NATIVE.split("\n").filter(Boolean).map((l) => {
    const m = JSON.parse(l);
    // into every text the agent or a tool produced (deltas and the completed items' texts)
    const spike = (v: any): any => {
      if (Array.isArray(v)) return v.map(spike);
      if (v && typeof v === "object") {
        for (const k of Object.keys(v)) v[k] = ["delta", "text", "aggregatedOutput"].includes(k) && typeof v[k] === "string" ? `${v[k]} ${HOSTILE} \u001b[32mgreen\u001b[0m` : spike(v[k]);
      }
      return v;
    };
    return JSON.stringify(spike(m));
  });
  // plus a malformed line that carries a raw ESC (the JSON error message quotes it)
  const native = [...lines.slice(0, 20), `{"method":"x\u001b[2J\u0007","oops`, ...lines.slice(20)].join("\n") + "\n";
  const nativeFile = file("hostile.ndjson", native);
  const canonicalFile = file("hostile.canonical.ndjson", run(["normalize", "--deterministic", "--quiet", nativeFile]).stdout + `{"bad\u001b]0;x\u0007\n`);
  const capture = run(["normalize", "--quiet", "--capture", join(TMP, "hostile.capture.ndjson"), nativeFile]);
  expect(capture.status).toBe(0);
  const captureFile = join(TMP, "hostile.capture.ndjson");
  writeFileSync(captureFile, readFileSync(captureFile, "utf8") + `{"stage\u001b[2J":1\n`);
  const fixtureFile = file("hostile.fixture.ndjson", run(["capture", "sanitize", "--quiet", captureFile]).stdout);
  const tampered = file("hostile.tampered.ndjson", readFileSync(fixtureFile, "utf8").replace("green", "gr\\u001b[2Jeen"));

  const cases: [string, string[]][] = [
    ["normalize", ["normalize", nativeFile]],
    ["render", ["render", nativeFile]],
    ["render --json", ["render", "--json", nativeFile]],
    ["render (canonical input)", ["render", canonicalFile]],
    ["project", ["project", nativeFile]],
    ["project --format legacy", ["project", "--format", "legacy", nativeFile]],
    ["verify", ["verify", canonicalFile]],
    ["verify --json", ["verify", "--json", canonicalFile]],
    ["view", ["view", nativeFile, "-o", join(TMP, "hostile.html")]],
    ["capture check", ["capture", "check", captureFile]],
    ["capture sanitize", ["capture", "sanitize", captureFile]],
    ["replay (a diff)", ["replay", tampered]],
  ];
  for (const [name, args] of cases) {
    it(`${name}: no control character reaches stdout or stderr`, () => {
      const r = run(args);
      clean(r, name);
      expect(CONTROL.test(r.stdout), `stdout: ${JSON.stringify(r.stdout.match(CONTROL))}`).toBe(false);
      expect(CONTROL.test(r.stderr), `stderr: ${JSON.stringify(r.stderr.match(CONTROL))}`).toBe(false);
    });
  }
  it("render shows the escapes as text (\\e[2J, \\r, \\x07, \\u202e)", () => {
    const r = run(["render", nativeFile]);
    expect(r.stdout).toContain("clear\\e[2J title\\e]0;pwned\\x07 cr\\roverwrite csi\\x9b31m bidi\\u202eevil\\u202c bell\\x07");
    // the malformed line is quoted safely in the diagnostic
    expect(r.stderr).toMatch(/hostile\.ndjson:21: not valid JSON/);
  });
  it("render --color keeps the tool's SGR colour (and only SGR): every ESC starts ESC[…m", () => {
    const r = run(["render", "--color", nativeFile]);
    expect(r.stdout).toContain("\u001b[32mgreen\u001b[0m");
    expect(r.stdout).toContain("\\e[2J");
    const escapes = r.stdout.match(/\u001b[^m]*m?/g) ?? [];
    for (const e of escapes) expect(e).toMatch(/^\u001b\[[0-9;]*m$/);
    // only colours and bold/dim/italic/underline: conceal (8), blink (5, 6) and reverse (7) are shown, not obeyed
    for (const e of escapes) for (const p of e.slice(2, -1).split(";")) expect(["5", "6", "7", "8"], e).not.toContain(p);
    expect(r.stdout).toContain("conceal\\e[8mhidden");
    expect(r.stdout).toContain("blink\\e[5mX\\e[6mY");
    expect(r.stdout).toContain("reverse\\e[7mZ\\e[27m");
    expect(r.stdout).toContain("zw[\\u200b\\u200c\\u200d\\u2060\\ufeff] tag[\\u{e0041}\\u{e0042}]");
    const rest = r.stdout.replace(/\u001b\[[0-9;]*m/g, "");
    expect(CONTROL.test(rest)).toBe(false);
  });
});
