/**
 * CLI: `agentnorm normalize --capture`, `capture sanitize|check|convert`, `replay` — outputs and exit codes
 * (0 ok, 1 failed check / bad input, 2 usage). Runs the built CLI when present (npm test builds it), else tsx.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCapture } from "../src/capture/capture.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST_CLI = join(ROOT, "dist/src/cli/cli.js");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-capture-cli-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): SpawnSyncReturns<string> {
  const o = { cwd: opts.cwd ?? ROOT, encoding: "utf8" as const, input: "", timeout: 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...opts.env } };
  if (existsSync(DIST_CLI) && process.env.AGENTNORM_TEST_CLI !== "tsx") return spawnSync(process.execPath, [DIST_CLI, ...args], o);
  return spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], o);
}

const APPROVAL = join(ROOT, "fixtures/codex-app-server/approval-session.ndjson");

describe("agentnorm normalize --capture", () => {
  it("writes native_in and normalized_out records while stdout stays the same canonical stream", () => {
    const cap = join(TMP, "cap.ndjson");
    const plain = cli(["normalize", "--from", "codex-app-server", APPROVAL, "--deterministic", "--quiet"]);
    const withCap = cli(["normalize", "--from", "codex-app-server", APPROVAL, "--deterministic", "--quiet", "--capture", cap]);
    expect(withCap.status).toBe(0);
    expect(withCap.stdout.split("\n").length).toBe(plain.stdout.split("\n").length);
    const r = readCapture(readFileSync(cap, "utf8"));
    expect(r.errors).toEqual([]);
    const inputs = readFileSync(APPROVAL, "utf8").split("\n").filter((l) => l.trim()).length;
    expect(r.records.filter((x) => x.stage === "native_in")).toHaveLength(inputs);
    expect(r.records.filter((x) => x.stage === "normalized_out")).toHaveLength(plain.stdout.split("\n").filter(Boolean).length);
    expect(r.records.map((x) => x.sequence)).toEqual(r.records.map((_, i) => i + 1));
    expect(r.records.every((x) => x.source === "codex-app-server" && x.provider === "codex" && "captureId" in x)).toBe(true);
  });

  it("redacts by default (the home directory of the run → <HOME>) and not with --no-redact", () => {
    const home = join(TMP, "home-xyz");
    const input = join(TMP, "secret.ndjson");
    writeFileSync(input, JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta: `key sk-ant-api03-${"q".repeat(40)} in ${home}/x` } }) + "\n");
    const cap = join(TMP, "secret.cap.ndjson");
    expect(cli(["normalize", "--from", "codex-app-server", input, "--quiet", "--capture", cap], { env: { HOME: home } }).status).toBe(0);
    const text = readFileSync(cap, "utf8");
    expect(text).not.toContain("qqqqqqqq");
    expect(text).not.toContain(home);
    expect(text).toContain("<REDACTED:api_key>");
    expect(text).toContain("<HOME>/x");
    const raw = join(TMP, "secret.raw.ndjson");
    expect(cli(["normalize", "--from", "codex-app-server", input, "--quiet", "--capture", raw, "--no-redact"], { env: { HOME: home } }).status).toBe(0);
    expect(readFileSync(raw, "utf8")).toContain("qqqqqqqq");
  });

  it("--no-redact without --capture is a usage error (2); an unwritable capture path fails (1)", () => {
    expect(cli(["normalize", "--from", "codex-app-server", APPROVAL, "--no-redact"]).status).toBe(2);
    const r = cli(["normalize", "--from", "codex-app-server", APPROVAL, "--capture", join(TMP, "no/such/dir/c.ndjson")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot write/);
  });
});

describe("agentnorm capture / replay", () => {
  it("capture → sanitize → replay: exit 0; sanitize twice gives the same bytes", () => {
    const cap = join(TMP, "c2.ndjson");
    expect(cli(["normalize", "--from", "codex-app-server", APPROVAL, "--quiet", "--capture", cap]).status).toBe(0);
    const f1 = join(TMP, "f1.ndjson");
    const f2 = join(TMP, "f2.ndjson");
    expect(cli(["capture", "sanitize", cap, "-o", f1]).status).toBe(0);
    const s2 = cli(["capture", "sanitize", cap]);
    expect(s2.status).toBe(0);
    writeFileSync(f2, s2.stdout);
    expect(readFileSync(f1, "utf8")).toBe(readFileSync(f2, "utf8"));
    expect(readFileSync(f1, "utf8")).not.toMatch(/"captureId"|"timestamp"/);
    const r = cli(["replay", f1]);
    expect(r.stderr).toMatch(/replay matches \(native_in via codex-app-server/);
    expect(r.status).toBe(0);
  });

  it("replay of a tampered fixture: exit 1 with a diff on stdout; --update fixes it (exit 0), then it passes", () => {
    const f = join(TMP, "tampered.ndjson");
    copyFileSync(join(ROOT, "fixtures/replay/codex-app-server-approval.fixture.ndjson"), f);
    const lines = readFileSync(f, "utf8").split("\n");
    const i = lines.findIndex((l) => l.includes('"stage":"normalized_out"') && l.includes('"type":"content.delta"'));
    const orig = lines[i];
    lines[i] = orig.replace(/"delta":"[^"]*"/, '"delta":"TAMPERED"');
    expect(lines[i]).not.toBe(orig);
    writeFileSync(f, lines.join("\n"));
    const r = cli(["replay", f]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^1 event\(s\) only in the fixture \(-\), 1 only in the replay \(\+\)/);
    expect(r.stdout).toMatch(/^- .*"delta":"TAMPERED"/m);
    expect(r.stderr).toMatch(/replay differs from the fixture/);
    const u = cli(["replay", "--update", f]);
    expect(u.status).toBe(0);
    expect(u.stderr).toMatch(/updated/);
    expect(readFileSync(f, "utf8")).toBe(readFileSync(join(ROOT, "fixtures/replay/codex-app-server-approval.fixture.ndjson"), "utf8"));
    expect(cli(["replay", f]).status).toBe(0);
  });

  it("every committed fixture replays with exit 0", () => {
    for (const name of ["acp-approval.fixture.ndjson", "claude-sdk-question.fixture.ndjson", "codex-app-server-approval.fixture.ndjson", "codex-exec-edit.fixture.ndjson", "acp-approval.events.ndjson"]) {
      const r = cli(["replay", join("fixtures/replay", name)]);
      expect(r.status, `${name}: ${r.stderr}${r.stdout}`).toBe(0);
    }
  });

  it("normalized_out replay without an expected snapshot: exit 1; --update writes it; then exit 0", () => {
    const f = join(TMP, "events.ndjson");
    copyFileSync(join(ROOT, "fixtures/replay/acp-approval.events.ndjson"), f);
    const r = cli(["replay", f]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/no expected snapshot/);
    expect(cli(["replay", "--update", f]).status).toBe(0);
    expect(existsSync(join(TMP, "events.snapshot.json"))).toBe(true);
    expect(cli(["replay", f]).status).toBe(0);
  });

  it("capture check: exit 0 on a good file; bad lines are reported as FILE:LINE: FIELD and give exit 1; replay refuses them", () => {
    const good = join(ROOT, "fixtures/replay/acp-approval.fixture.ndjson");
    const ok = cli(["capture", "check", good]);
    expect(ok.status).toBe(0);
    expect(ok.stderr).toMatch(/fixture, \d+ of \d+ line\(s\) valid .* 0 problem\(s\)/);
    const bad = join(TMP, "bad.ndjson");
    const lines = readFileSync(good, "utf8").split("\n");
    lines.splice(2, 0, "{oops");
    lines[5] = lines[5].replace('"stage":"', '"stage":"x');
    writeFileSync(bad, lines.join("\n"));
    const r = cli(["capture", "check", bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${bad}:3: not JSON`);
    expect(r.stderr).toContain(`${bad}:6: stage: must be one of`);
    expect(r.stderr).toMatch(/2 problem\(s\)/);
    const s = cli(["capture", "sanitize", bad]);
    expect(s.status).toBe(1);
    expect(s.stdout.split("\n").filter(Boolean)).toHaveLength(lines.filter(Boolean).length - 2);
    expect(cli(["replay", bad]).status).toBe(1);
  });

  it("capture convert turns a recording into a capture that sanitizes to the committed fixture", () => {
    const r = cli(["capture", "convert", "--from", "acp", "--sanitize", "fixtures/recorded/acp/approval.ndjson"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, "fixtures/replay/acp-approval.fixture.ndjson"), "utf8"));
    // without --from the surface is detected: the same bytes
    const detected = cli(["capture", "convert", "--sanitize", "fixtures/recorded/acp/approval.ndjson"]);
    expect(detected.status, detected.stderr).toBe(0);
    expect(detected.stderr).toMatch(/detected acp native messages/);
    expect(detected.stdout).toBe(r.stdout);
  });

  it("usage errors exit 2; a missing file exits 1", () => {
    expect(cli(["capture"]).status).toBe(2);
    expect(cli(["capture", "frobnicate", "x"]).status).toBe(2);
    expect(cli(["capture", "sanitize"]).status).toBe(2);
    expect(cli(["capture", "convert", "--from", "nope", "fixtures/recorded/acp/approval.ndjson"]).status).toBe(2);
    expect(cli(["replay"]).status).toBe(2);
    expect(cli(["replay", "--stage", "render_in", "x"]).status).toBe(2);
    const m = cli(["replay", join(TMP, "missing.ndjson")]);
    expect(m.status).toBe(1);
    expect(m.stderr).toMatch(/no such file/);
    expect(cli(["replay", "--from", "nope", "fixtures/replay/acp-approval.fixture.ndjson"]).status).toBe(2);
    expect(cli(["--help"]).stdout).toMatch(/agentnorm replay FIXTURE/);
  });
});
