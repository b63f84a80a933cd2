/**
 * The agentnorm CLI, run as a child process: the built dist/src/cli/cli.js when present (npm test builds it before
 * vitest), else src/cli/cli.ts through tsx, so the test does not depend on a build.
 */
import { describe, expect, it, afterAll } from "vitest";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST_CLI = join(ROOT, "dist/src/cli/cli.js");
const FIXTURE = join(ROOT, "fixtures/codex-app-server/approval-session.ndjson");
const FIXTURE_LINES = readFileSync(FIXTURE, "utf8").split("\n").filter((l) => l.trim() !== "");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-cli-test-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function cli(args: string[], input?: string): SpawnSyncReturns<string> {
  const opts = { cwd: ROOT, encoding: "utf8" as const, input: input ?? "", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 };
  // AGENTNORM_TEST_CLI=tsx forces the source CLI even when a build exists.
  if (existsSync(DIST_CLI) && process.env.AGENTNORM_TEST_CLI !== "tsx") return spawnSync(process.execPath, [DIST_CLI, ...args], opts);
  const tsx = join(ROOT, "node_modules/.bin/tsx");
  if (existsSync(tsx)) return spawnSync(tsx, [join(ROOT, "src/cli/cli.ts"), ...args], opts);
  return spawnSync("npx", ["tsx", join(ROOT, "src/cli/cli.ts"), ...args], { ...opts, shell: process.platform === "win32" });
}

function ndjson(stdout: string): any[] {
  const lines = stdout.split("\n").filter((l) => l !== "");
  return lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
    }
  });
}

function invalidEvents(events: any[]): string[] {
  return events.filter((e) => !validateCanonicalEvent(e)).map((e) => {
    validateCanonicalEvent(e);
    return `#${e.sequence} ${e.type}: ${JSON.stringify((validateCanonicalEvent as any).errors)}`;
  });
}

/** "… N message(s) → M event(s) …" from the summary line. */
function summary(stderr: string): { messages: number; events: number } | undefined {
  const m = /(\d+) message\(s\) → (\d+) event\(s\)/.exec(stderr);
  return m ? { messages: Number(m[1]), events: Number(m[2]) } : undefined;
}

function tmpFile(name: string, text: string): string {
  const p = join(TMP, name);
  writeFileSync(p, text);
  return p;
}

describe("agentnorm normalize", () => {
  it("normalizes a fixture file: exit 0, valid NDJSON on stdout, summary on stderr", () => {
    const r = cli(["normalize", "--from", "codex-app-server", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.length).toBeGreaterThan(30);
    expect(invalidEvents(events)).toEqual([]);
    expect(r.stdout.endsWith("\n")).toBe(true);
    const s = summary(r.stderr);
    expect(s, r.stderr).toBeDefined();
    expect(s!.messages).toBe(FIXTURE_LINES.length);
    expect(s!.events).toBe(events.length);
    for (let i = 1; i < events.length; i++) expect(events[i].sequence).toBe(events[i - 1].sequence + 1);
  });

  it("`-` reads stdin (and so does no file argument)", () => {
    const fromFile = cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]);
    const dash = cli(["normalize", "--from", "codex-app-server", "--deterministic", "-"], readFileSync(FIXTURE, "utf8"));
    const none = cli(["normalize", "--from", "codex-app-server", "--deterministic"], readFileSync(FIXTURE, "utf8"));
    expect(dash.status, dash.stderr).toBe(0);
    expect(none.status, none.stderr).toBe(0);
    expect(dash.stdout.length).toBeGreaterThan(1000);
    expect(dash.stdout).toBe(fromFile.stdout);
    expect(none.stdout).toBe(fromFile.stdout);
    expect(dash.stderr).toContain("<stdin>");
  });

  it("accepts a JSON array input file", () => {
    const arr = FIXTURE_LINES.map((l) => JSON.parse(l));
    const file = tmpFile("array.json", JSON.stringify(arr, null, 2) + "\n");
    const r = cli(["normalize", "--from", "codex-app-server", "--deterministic", file]);
    const ref = cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    const refEvents = ndjson(ref.stdout);
    expect(events.length).toBe(refEvents.length);
    expect(events.map((e) => e.type)).toEqual(refEvents.map((e) => e.type));
    expect(invalidEvents(events)).toEqual([]);
    expect(summary(r.stderr)?.messages).toBe(arr.length);
  });

  it("accepts JSON written over several lines: a document holding the stream in a messages (or events, or its one) array, pretty-printed messages", () => {
    const messages = FIXTURE_LINES.map((l) => JSON.parse(l));
    const ref = ndjson(cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]).stdout);
    const pretty = tmpFile("doc.json", JSON.stringify({ scenario: "approval", recordedAt: "2026-01-01", messages, result: { ok: true } }, null, 2) + "\n");
    const oneLine = tmpFile("doc-line.json", JSON.stringify({ events: messages, metadata: { n: messages.length } }) + "\n");
    // another name: the one top-level field holding a list of objects
    const named = tmpFile("doc-named.json", JSON.stringify({ name: "approval", tags: ["a"], records: messages }, null, 2) + "\n");
    for (const file of [pretty, oneLine, named]) {
      // detected, not told
      const r = cli(["normalize", "--deterministic", file]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain("detected codex-app-server");
      const events = ndjson(r.stdout);
      expect(events.map((e) => e.type)).toEqual(ref.map((e) => e.type));
      expect(summary(r.stderr)?.messages).toBe(messages.length);
    }
    // messages pretty-printed one after another (jq . of a log) are the messages, as are one document's
    const jq = tmpFile("jq.json", messages.map((m) => JSON.stringify(m, null, 2)).join("\n") + "\n");
    const single = tmpFile("one.json", JSON.stringify(messages[0], null, 2) + "\n");
    for (const [file, n] of [[jq, messages.length], [single, 1]] as const) {
      const r = cli(["normalize", "--from", "codex-app-server", "--deterministic", file]);
      expect(r.status, r.stderr).toBe(0);
      expect(ndjson(r.stdout).map((e) => e.type)).toEqual(n === 1 ? ndjson(cli(["normalize", "--from", "codex-app-server", "--deterministic"], FIXTURE_LINES[0] + "\n").stdout).map((e) => e.type) : ref.map((e) => e.type));
      expect(summary(r.stderr)?.messages).toBe(n);
    }
    // every command reading a stream reads it so (render and project through the same input, view its own reader)
    const view = cli(["view", pretty, "-o", join(TMP, "doc.html")]);
    expect(view.status, view.stderr).toBe(0);
    expect(view.stderr).toContain(`${messages.length} native message(s)`);
    const render = cli(["render", pretty]);
    expect(render.status, render.stderr).toBe(0);
    expect(render.stdout).toContain("── turn 1");
    // a document holding no such list is not a stream: said, as before
    const other = tmpFile("other.json", JSON.stringify({ messages: ["a", "b"], note: "x" }, null, 2) + "\n");
    const r = cli(["normalize", other]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("no known surface");
  });

  it("an unknown flag → exit 2, the flag named on stderr, nothing on stdout", () => {
    const r = cli(["normalize", "--from", "codex-app-server", "--frobnicate", FIXTURE]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--frobnicate");
    expect(r.stdout).toBe("");
  });

  it("an unknown surface → exit 2 listing the valid surfaces", () => {
    const r = cli(["normalize", "--from", "no-such-agent", FIXTURE]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no-such-agent");
    expect(r.stderr).toContain("codex-app-server");
    expect(r.stdout).toBe("");
  });

  it("without --from the surface is detected (stated with its confidence): the same output as with --from", () => {
    const r = cli(["normalize", "--deterministic", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/detected codex-app-server native messages \(confidence 100%: \d+ of \d+ sampled line\(s\) recognised; runner-up [a-z-]+: \d+\); --from SURFACE overrides/);
    expect(r.stdout).toBe(cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]).stdout);
  });

  it("an unreadable file → exit 1 with \"no such file\"", () => {
    const missing = join(TMP, "does-not-exist.ndjson");
    const r = cli(["normalize", "--from", "codex-app-server", missing]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no such file/i);
    expect(r.stderr).toContain(missing);
    expect(r.stdout).toBe("");
  });

  it("a malformed line in the middle: exit 0, stderr names file:LINE, stdout has the runtime.error and the later events", () => {
    const before = FIXTURE_LINES.slice(0, 7); // up to and including thread/start's response
    const after = FIXTURE_LINES.slice(7, 14); // thread/started, turn/start, …, item/completed
    const badLine = before.length + 1;
    const file = tmpFile("malformed.ndjson", [...before, '{"method": "item/started", oops', ...after].join("\n") + "\n");
    const r = cli(["normalize", "--from", "codex-app-server", "--deterministic", file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file}:${badLine}`);
    const events = ndjson(r.stdout);
    expect(invalidEvents(events)).toEqual([]);
    const errs = events.filter((e) => e.type === "runtime.error" && e.payload.class === "validation_error");
    expect(errs).toHaveLength(1);
    expect(errs[0].payload.message).toMatch(new RegExp(`\\b${badLine}\\b`));
    const later = events.filter((e) => e.sequence > errs[0].sequence).map((e) => e.type);
    expect(later).toContain("thread.started");
    expect(later).toContain("turn.started");
    expect(later).toContain("item.started");
    expect(summary(r.stderr)?.messages).toBe(before.length + 1 + after.length);
  });

  // The file:LINE diagnostic must not depend on whether raw payloads are kept in the output.
  it("a malformed line is named as file:LINE on stderr with --no-raw too", () => {
    const file = tmpFile("malformed-noraw.ndjson", [...FIXTURE_LINES.slice(0, 3), "{not json", ...FIXTURE_LINES.slice(3, 8)].join("\n") + "\n");
    const r = cli(["normalize", "--from", "codex-app-server", "--no-raw", file]);
    expect(r.status, r.stderr).toBe(0);
    const errs = ndjson(r.stdout).filter((e) => e.type === "runtime.error" && e.payload.class === "validation_error");
    expect(errs).toHaveLength(1);
    expect(r.stderr).toContain(`${file}:4`);
  });

  it("--deterministic output is byte-identical across runs (and random ids are not)", () => {
    const a = cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]);
    const b = cli(["normalize", "--from", "codex-app-server", "--deterministic", FIXTURE]);
    expect(a.status).toBe(0);
    expect(a.stdout.length).toBeGreaterThan(1000);
    expect(b.stdout).toBe(a.stdout);
    const c = cli(["normalize", "--from", "codex-app-server", FIXTURE]);
    const d = cli(["normalize", "--from", "codex-app-server", FIXTURE]);
    expect(c.stdout).not.toBe(d.stdout);
    expect(ndjson(c.stdout).map((e) => e.type)).toEqual(ndjson(a.stdout).map((e) => e.type));
  });

  it("--directions FILE is honoured (overlapping client/server ids correlate by direction)", () => {
    const msgs = [
      { method: "initialize", id: 0, params: { clientInfo: { name: "t", title: "t", version: "1" } } },
      { id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } },
      { id: 0, result: { userAgent: "tester/0.171.0", codexHome: "/h", platformFamily: "unix", platformOs: "linux" } },
      { id: 0, result: { decision: "accept" } },
    ];
    const file = tmpFile("overlap.ndjson", msgs.map((m) => JSON.stringify(m)).join("\n") + "\n");
    const dirs = tmpFile("overlap.dir", "out\nin\nin\nout\n");
    const withDirs = cli(["normalize", "--from", "codex-app-server", "--deterministic", "--directions", dirs, file]);
    expect(withDirs.status, withDirs.stderr).toBe(0);
    const ev = ndjson(withDirs.stdout);
    expect(invalidEvents(ev)).toEqual([]);
    const started = ev.filter((e) => e.type === "session.started");
    const resolved = ev.filter((e) => e.type === "request.resolved");
    expect(started).toHaveLength(1);
    expect(started[0].payload.message).toBe("tester/0.171.0");
    expect(resolved).toHaveLength(1);
    expect(resolved[0].payload.decision).toBe("allow_once");
    // Without the directions the third line is taken as the answer to the (more recent) server request.
    const without = ndjson(cli(["normalize", "--from", "codex-app-server", "--deterministic", file]).stdout);
    const resolvedWithout = without.filter((e) => e.type === "request.resolved");
    expect(resolvedWithout.map((e) => e.payload.decision)).not.toEqual(["allow_once"]);
  });

  it("--no-raw: no raw.payload at all (not even null), raw.source/rule stay", () => {
    const r = cli(["normalize", "--from", "codex-app-server", "--no-raw", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(events.length).toBeGreaterThan(30);
    for (const e of events) {
      expect(Object.keys(e.raw)).not.toContain("payload");
      expect(Object.keys(e.raw)).not.toContain("payloadRef");
      expect(typeof e.raw.source).toBe("string");
      expect(typeof e.raw.rule).toBe("string");
    }
    expect(r.stdout).not.toContain('"payload":null}');
    expect(invalidEvents(events)).toEqual([]);
    // and with raw, every event has the provider message or names the event of its message that has it
    const withRaw = ndjson(cli(["normalize", "--from", "codex-app-server", FIXTURE]).stdout);
    const ids = new Set(withRaw.filter((e) => "payload" in e.raw).map((e) => e.eventId));
    for (const e of withRaw) expect("payload" in e.raw || ids.has(e.raw.payloadRef), JSON.stringify(e.raw)).toBe(true);
    expect(withRaw.some((e) => e.raw.payloadRef)).toBe(true);
    expect(invalidEvents(withRaw)).toEqual([]);
  });

  it("--validate adds no schema failures on a fixture", () => {
    const r = cli(["normalize", "--from", "codex-app-server", "--validate", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/0 failed schema validation/);
  });

  it("--quiet prints no summary", () => {
    const r = cli(["normalize", "--from", "codex-app-server", "--quiet", FIXTURE]);
    expect(r.status).toBe(0);
    expect(summary(r.stderr)).toBeUndefined();
    expect(ndjson(r.stdout).length).toBeGreaterThan(30);
  });
});

describe("agentnorm matrix / surfaces / help", () => {
  it("matrix prints Markdown mentioning codex-app-server", () => {
    const r = cli(["matrix"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^#+ /m);
    expect(r.stdout).toContain("|");
    expect(r.stdout).toContain("codex-app-server");
  });

  it("matrix --json: 87 notification methods, 0 missing; method patterns counted apart", () => {
    const r = cli(["matrix", "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout);
    const n = m.surfaces["codex-app-server"].kinds.notification;
    expect(n.total).toBe(87);
    expect(n.missing).toBe(0);
    expect(Object.keys(n.methods).filter((m) => !m.endsWith("*"))).toHaveLength(87);
    expect(n.patterns).toBe(Object.keys(n.methods).filter((m) => m.endsWith("*")).length);
    expect(n.mapped + n.ignored).toBe(87);
    for (const [kind, k] of Object.entries<any>(m.surfaces["codex-app-server"].kinds)) expect(k.missing, kind).toBe(0);
  });

  it("surfaces lists codex-app-server", () => {
    const r = cli(["surfaces"]);
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toContain("codex-app-server");
  });

  it("--help exits 0 with usage", () => {
    const r = cli(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/usage/i);
    expect(r.stdout).toContain("normalize");
    const r2 = cli(["normalize", "--help"]);
    expect(r2.status).toBe(0);
    expect(r2.stdout).toContain("--from");
  });

  it("an unknown command → exit 2", () => {
    const r = cli(["frobnicate"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("frobnicate");
    expect(r.stdout).toBe("");
  });
});
