/**
 * `agentnorm sessions` on the recorded stores (fixtures/sessions), as a child process of the built CLI: the table,
 * its filters, --json, and `show` / `render` / `view` of a listed session; errors are one line, never a trace.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist/src/cli/cli.js");
const F = join(ROOT, "fixtures", "sessions");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-cli-sessions-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const STORES = { HOME: "/nonexistent-home", CODEX_HOME: `${F}/codex/home/.codex`, CLAUDE_CONFIG_DIR: `${F}/claude/home/.claude`, XDG_DATA_HOME: `${F}/opencode/home/.local/share`, GEMINI_CLI_HOME: `${F}/gemini/home` };

function run(args: string[], env: Record<string, string> = STORES, input = "") {
  const r = spawnSync(process.execPath, [DIST, ...args], { cwd: TMP, encoding: "utf8", input, timeout: 60_000, maxBuffer: 64 << 20, env: { PATH: process.env.PATH ?? "", TZ: "UTC", NO_COLOR: "1", ...env } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe.skipIf(!existsSync(DIST))("agentnorm sessions", () => {
  it("a table of every stored session, newest first", () => {
    const r = run(["sessions"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`WHEN              AGENT     TURNS  ID                    TITLE
2026-01-01 10:02  opencode      1  ses_9d2298302456f64b  Recorded session
2026-01-01 09:00  gemini           ses_d51055a6b6a16288  Change the greeting in hello.py to "Hello, agentnorm!".
2026-01-01 08:00  gemini           ses_6f890ec0b421f45e  Count to three in the shell, slowly.
2026-01-01 07:00  gemini           ses_4cfae6c0a096259f  Remember the number 42.
2026-01-01 06:02  opencode      1  ses_a70e90d2687e7d2e  Recorded session
2026-01-01 05:02  opencode      2  ses_b15d54eca51f5da1  Recorded session
2026-01-01 04:03  claude           ses_5b47cb83f8e0674d  Ask an agent to list the files here.
2026-01-01 03:02  claude           ses_7b5d67840a526bf2  Remember the number 42.
2026-01-01 02:01  codex            ses_fcf5403a630ee4c4  Count to three in the shell, slowly.
2026-01-01 01:01  codex            ses_1e07133a7557d104  Remember the number 42.
`);
  });

  it("--cwd, --agent, --since, --limit; --json: one session per line", () => {
    const rows = (r: { stdout: string }) => r.stdout.trim().split("\n").slice(1).map((l) => l.split(/\s{2,}/)[1]);
    expect(rows(run(["sessions", "--cwd", "/sandbox/beta"]))).toEqual(["gemini", "opencode", "claude", "codex"]);
    expect(rows(run(["sessions", "--cwd", "/sandbox/alpha", "--agent", "codex,gemini"]))).toEqual(["gemini", "gemini", "codex"]);
    expect(rows(run(["sessions", "--since", "2026-01-01T05:00:00Z", "--limit", "3"]))).toEqual(["opencode", "gemini", "gemini"]);
    const json = run(["sessions", "--json", "--agent", "opencode"]);
    expect(json.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((s) => [s.agent, s.providerSessionId, s.cwd, s.turns, s.liveAgent])).toEqual([
      ["opencode", "ses_010002", "/sandbox/gamma", 1, "opencode"],
      ["opencode", "ses_006002", "/sandbox/beta", 1, "opencode"],
      ["opencode", "ses_005002", "/sandbox/alpha", 2, "opencode"],
    ]);
    expect(run(["sessions", "--cwd", "/sandbox/nowhere"]).stdout).toBe("");
  });

  it("show: the canonical events (valid, one session); render: its transcript, as `render` shows them", () => {
    const show = run(["sessions", "show", "ses_fcf5403a630ee4c4"]);
    expect(show.status).toBe(0);
    const events = show.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(10);
    expect(events.filter((e) => !validateCanonicalEvent(e))).toEqual([]);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(["ses_fcf5403a630ee4c4"]));
    const rendered = run(["sessions", "render", "codex:00000000-0000-7000-8000-0000000007d2"]);
    expect(rendered.status).toBe(0);
    expect(rendered.stdout).toContain("$ /bin/bash -lc 'for i in 1 2 3; do echo line $i; sleep 0.4; done' [completed]");
    expect(rendered.stdout).toBe(run(["render", "-"], STORES, show.stdout).stdout);
    // a unique prefix of an id is enough
    expect(run(["sessions", "render", "ses_fcf5"]).stdout).toBe(rendered.stdout);
  });

  it("view: a self-contained page of the session", () => {
    const out = join(TMP, "page.html");
    const r = run(["sessions", "view", "ses_5b47cb83f8e0674d", "-o", out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^agentnorm: 00000000-0000-4000-8000-000000000fa1\.jsonl: claude session 00000000-0000-4000-8000-000000000fa1 → .*page\.html \(\d+ KB\)\n$/);
    const html = readFileSync(out, "utf8");
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain("Ask an agent to list the files here.");
  });

  it("docs/sessions.md: its first example runs on the stores (the built package)", () => {
    const doc = readFileSync(join(ROOT, "docs/sessions.md"), "utf8");
    const code = /```js\n([\s\S]*?)```/.exec(doc)![1]!.replace(/"agentnorm\/(\w+)"/g, (_, e) => JSON.stringify(join(ROOT, "dist/pkg", `${e}.js`)));
    writeFileSync(join(TMP, "doc-example.mjs"), code);
    const r = spawnSync(process.execPath, [join(TMP, "doc-example.mjs"), "/sandbox/alpha"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...STORES } });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`2026-01-01T09:00:39.000Z gemini  Change the greeting in hello.py to "Hello, agentnorm!".
2026-01-01T07:00:38.000Z gemini  Remember the number 42.
2026-01-01T05:02:25.000Z opencode 2 Recorded session
2026-01-01T03:02:24.000Z claude  Remember the number 42.
2026-01-01T01:01:13.000Z codex  Remember the number 42.
gemini 00000000-0000-4000-8000-000000002329: 1 turn(s)
`);
  });

  it("errors: one line, the exit code the CLI's table says", () => {
    const missing = run(["sessions", "show", "ses_ffffffffffffffff"]);
    expect([missing.status, missing.stderr]).toEqual([1, "agentnorm: ses_ffffffffffffffff: no stored session has this id (agentnorm sessions lists them)\n"]);
    const agent = run(["sessions", "--agent", "cursor"]);
    expect(agent.status).toBe(2);
    expect(agent.stderr.split("\n")[0]).toBe('agentnorm: sessions: unknown agent "cursor"; agents: codex, claude, opencode, gemini');
    expect(run(["sessions", "render"]).status).toBe(2);
    expect(run(["sessions", "--since", "soon"]).status).toBe(2);
    // a store that cannot be read: said on stderr, the other agents' sessions listed, exit 0
    const broken = join(TMP, "share", "opencode");
    cpSync(join(F, "opencode/home/.local/share/opencode"), broken, { recursive: true });
    writeFileSync(join(broken, "opencode.db"), "not a database, not at all, but long enough to be read as one ......................................................");
    const r = run(["sessions"], { ...STORES, XDG_DATA_HOME: join(TMP, "share") });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`agentnorm: ${join(broken, "opencode.db")}: cannot read the store: ${join(broken, "opencode.db")}: not an SQLite 3 database\n`);
    expect(r.stdout.trim().split("\n")).toHaveLength(1 + 7);
    expect(run(["sessions", "show", "ses_fcf5"], { ...STORES, XDG_DATA_HOME: join(TMP, "share") }).status).toBe(0);
  });
});
