/**
 * `npm run bench` (sessions part): listSessions over a synthetic home of 1,000 stored sessions — 250 per agent (Codex
 * with its thread index, Claude Code, opencode's database, Gemini CLI), half in each of two projects — made from the
 * recorded stores (fixtures/sessions) with fresh ids per copy, in a temporary folder.
 *
 *  - all: every session (1,000); --cwd: one project's (500), across the four agents; and all without Codex's index
 *    (its 250 rollouts listed from their heads instead).
 *  - floor (for reference): the directory walk and a stat of every session file and database — what any listing of
 *    these stores costs before reading a byte of them.
 * Best of --rounds rounds (default 5) after one warm-up. Target: all ≤ 200 ms.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listSessions } from "../src/sessions/list.js";
import { SqliteReader } from "../src/sessions/sqlite.js";
import { writeSqlite, type Value } from "./sqlite-write.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const F = join(root, "fixtures", "sessions");
const args = process.argv.slice(2);
const rounds = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 5;
const PER_AGENT = 250;
const TARGET_MS = 200;

const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
const uuid = (k: number, v = "4") => `bbbbbbbb-0000-${v}000-8000-${k.toString(16).padStart(12, "0")}`;
const put = (file: string, text: string | Buffer) => { mkdirSync(dirname(file), { recursive: true }); writeFileSync(file, text); };

/** The home: <tmp>/home with each agent's store where it keeps it by default. */
function makeHome(): string {
  const home = join(mkdtempSync(join(tmpdir(), "agentnorm-bench-sessions-")), "home");
  let k = 0;
  // Codex: the two recorded rollouts, copied with fresh thread ids; its index (state_5.sqlite, table threads)
  const codexFiles = walk(join(F, "codex/home/.codex/sessions"));
  const threads: Value[][] = [];
  for (let i = 0; i < PER_AGENT; i++) {
    const src = codexFiles[i % codexFiles.length]!;
    const oldId = /([0-9a-f-]{36})\.jsonl$/.exec(src)![1]!;
    const id = uuid(++k, "7");
    const name = `rollout-2026-01-01T${String(i % 24).padStart(2, "0")}-00-00-${id}.jsonl`;
    const file = join(home, ".codex/sessions/2026/01", String(1 + (i % 28)).padStart(2, "0"), name);
    put(file, readFileSync(src, "utf8").split(oldId).join(id));
    const cwd = src.includes("0000000003ea") ? "/sandbox/alpha" : "/sandbox/beta";
    threads.push([id, file, 1767225600000 + i * 1000, 1767225600000 + i * 1000 + 500, "vscode", "mock", cwd, "Remember the number 42.", JSON.stringify({ type: "managed", roots: Array(12).fill(cwd) }), "on-request", 0, "0.171.0", "Remember the number 42.", null]);
  }
  writeSqlite(join(home, ".codex/state_5.sqlite"), [{
    name: "threads",
    sql: "CREATE TABLE threads (id TEXT, rollout_path TEXT, created_at_ms INTEGER, updated_at_ms INTEGER, source TEXT, model_provider TEXT, cwd TEXT, title TEXT, sandbox_policy TEXT, approval_mode TEXT, archived INTEGER, cli_version TEXT, first_user_message TEXT, attached_thread_parent_id TEXT)",
    columns: [], rows: threads,
  }]);
  // Claude Code: the two recorded transcripts (one with a subagent), fresh session ids
  const claudeFiles = walk(join(F, "claude/home/.claude/projects")).filter((f) => /\/-sandbox-[a-z]+\/[0-9a-f-]{36}\.jsonl$/.test(f));
  for (let i = 0; i < PER_AGENT; i++) {
    const src = claudeFiles[i % claudeFiles.length]!;
    const oldId = /([0-9a-f-]{36})\.jsonl$/.exec(src)![1]!;
    const id = uuid(++k);
    put(join(home, ".claude/projects", src.split("/").at(-2)!, `${id}.jsonl`), readFileSync(src, "utf8").split(oldId).join(id));
  }
  // opencode: the recorded database's sessions, messages and parts, copied with fresh ids into one database
  const db = SqliteReader.open(join(F, "opencode/home/.local/share/opencode/opencode.db"));
  const rowsOf = (t: string) => { const cols = db.table(t)!.columns; return { cols, rows: [...db.rows(t)].map((r) => cols.map((c) => r[c] as Value)) }; };
  const [ses, msg, prt] = ["session", "message", "part"].map(rowsOf) as [ReturnType<typeof rowsOf>, ReturnType<typeof rowsOf>, ReturnType<typeof rowsOf>];
  db.close();
  const copy = (t: ReturnType<typeof rowsOf>, n: number, templates: string[]) => {
    const out: Value[][] = [];
    for (let c = 0; c < n; c++) {
      const tpl = templates[c % templates.length]!;
      for (const r of t.rows) if (r.some((v) => v === tpl)) out.push(r.map((v) => (typeof v === "string" ? v.replace(/\b((?:ses|msg|prt)_\d+)\b/g, `$1x${c}`) : v)));
    }
    return out;
  };
  // the two projects' sessions (not a third project's, nor a subagent's child session: copied, its parent link would
  // name another copy)
  const sessionIds = ses.rows.filter((r) => !r[ses.cols.indexOf("parent_id")] && /^\/sandbox\/(alpha|beta)$/.test(String(r[ses.cols.indexOf("directory")]))).map((r) => r[ses.cols.indexOf("id")] as string);
  const create = (name: string, cols: string[]) => `CREATE TABLE ${name} (${cols.join(", ")})`;
  mkdirSync(join(home, ".local/share/opencode"), { recursive: true });
  writeSqlite(join(home, ".local/share/opencode/opencode.db"), [
    { name: "session", sql: create("session", ses.cols), columns: ses.cols, rows: copy(ses, PER_AGENT, sessionIds) },
    { name: "message", sql: create("message", msg.cols), columns: msg.cols, rows: copy(msg, PER_AGENT, sessionIds) },
    { name: "part", sql: create("part", prt.cols), columns: prt.cols, rows: copy(prt, PER_AGENT, sessionIds) },
  ]);
  // Gemini CLI: the recorded chats that hold a prompt (and each project's .project_root), fresh session ids
  const geminiChats = walk(join(F, "gemini/home/.gemini/tmp")).filter((f) => f.endsWith(".jsonl") && readFileSync(f, "utf8").includes('"type":"gemini"'));
  for (const p of ["alpha", "beta"]) copyFileSync(join(F, `gemini/home/.gemini/tmp/${p}/.project_root`), (mkdirSync(join(home, `.gemini/tmp/${p}`), { recursive: true }), join(home, `.gemini/tmp/${p}/.project_root`)));
  for (let i = 0; i < PER_AGENT; i++) {
    const src = geminiChats[i % geminiChats.length]!;
    const text = readFileSync(src, "utf8");
    const oldId = JSON.parse(text.split("\n")[0]!).sessionId as string;
    const id = uuid(++k);
    put(join(home, ".gemini/tmp", src.split("/").at(-3)!, "chats", `session-2026-01-01T00-00-${id.slice(-8)}.jsonl`), text.split(oldId).join(id));
  }
  return home;
}

function best(f: () => Promise<unknown> | unknown): Promise<number> {
  return (async () => {
    await f();
    let min = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      await f();
      min = Math.min(min, performance.now() - t0);
    }
    return min;
  })();
}

const home = makeHome();
try {
  const env = { HOME: home };
  const all = await listSessions({ env });
  const perAgent = Object.fromEntries(["codex", "claude", "opencode", "gemini"].map((a) => [a, all.filter((s) => s.agent === a && !s.problem).length]));
  if (all.length !== 4 * PER_AGENT || Object.values(perAgent).some((n) => n !== PER_AGENT)) throw new Error(`the synthetic home lists ${all.length} sessions (${JSON.stringify(perAgent)}), not ${4 * PER_AGENT}`);
  const alpha = (await listSessions({ env, cwd: "/sandbox/alpha" })).length;
  const allMs = await best(() => listSessions({ env }));
  const cwdMs = await best(() => listSessions({ env, cwd: "/sandbox/alpha" }));
  const files = walk(home);
  const floorMs = await best(() => { for (const f of walk(home)) statSync(f); });
  // Codex without its index: every rollout's head is read
  rmSync(join(home, ".codex/state_5.sqlite"));
  const headsMs = await best(() => listSessions({ env }));
  const pass = allMs <= TARGET_MS;
  process.stderr.write(`sessions: listSessions of ${all.length.toLocaleString("en")} stored sessions (${PER_AGENT} each: Codex, Claude Code, opencode, Gemini CLI; ${files.length} files) ${allMs.toFixed(0)} ms (target ≤ ${TARGET_MS} ms: ${pass ? "pass" : "FAIL"}); --cwd one project (${alpha}) ${cwdMs.toFixed(0)} ms; without Codex's index ${headsMs.toFixed(0)} ms; floor (walk + stat every file) ${floorMs.toFixed(0)} ms\n`);
  console.log(JSON.stringify({ sessions: "listSessions", stored: all.length, allMs: Math.round(allMs), cwdMs: Math.round(cwdMs), cwdSessions: alpha, noCodexIndexMs: Math.round(headsMs), floorMs: Math.round(floorMs), files: files.length, target: TARGET_MS, pass }));
  process.exitCode = pass ? 0 : 1;
} finally {
  if (!process.env.AGENTNORM_BENCH_KEEP) rmSync(dirname(home), { recursive: true, force: true }); else process.stderr.write(`kept ${home}\n`);
}
