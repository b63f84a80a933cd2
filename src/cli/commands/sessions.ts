/**
 * `agentnorm sessions`: the sessions agents stored on this machine (agentnorm/sessions: listSessions), and one of
 * them as canonical events (`show`), its transcript (`render`) or a viewer page (`view`).
 */
import { basename } from "node:path";
import { serializeEvent } from "../../normalize/normalizer.js";
import { createAccumulator } from "../../render/accumulator.js";
import { renderSnapshotText } from "../../render/render-text.js";
import { escapeTerminal } from "../../render/terminal-safe.js";
import { loadInput, viewerData, ViewerInputError } from "../../view/data.js";
import { viewerHtml } from "../../view/html.js";
import { AgentnormError } from "../../errors.js";
import { findSession, listSessions, openSession, SESSION_AGENTS, type SessionAgent, type StoredSession } from "../../sessions/index.js";
import { CliError, intFlag, parseArgs, printHelp, UsageError, warn, write, writeOutput } from "./util.js";

export const SESSIONS_USAGE = `sessions [--cwd DIR] [--agent A[,B…]] [--since TIME] [--limit N] [--json]
  the sessions Codex, Claude Code, opencode and Gemini CLI stored on this machine (where each keeps them: docs/sessions.md),
  newest first: a table (when, agent, turns, id, title), or with --json one session per line (NDJSON)
  --cwd DIR             only that project's sessions (. = the current directory)
  --agent A[,B…]        only these agents (${SESSION_AGENTS.join(", ")})
  --since TIME          only sessions active at or after TIME (an ISO date or time)
  --limit N             at most N sessions
  A file or store that cannot be read is reported on stderr (--json: a line with "problem") and does not fail the run.
sessions show ID        the session's canonical events (NDJSON)
sessions render ID [--json] [--color|--no-color] [--thinking N] [--lines N]
                        its transcript, as \`agentnorm render\` shows a stream
sessions view ID [-o out.html] [--title TEXT]
                        a self-contained HTML viewer page of it (default: <id>.html)
  ID: a listed id (ses_…), the agent's own session id (or <agent>:<id>), or a unique prefix of one (4+ characters)`;

export async function sessions(argv: string[]): Promise<number> {
  const sub = argv[0];
  if (sub === "show" || sub === "render" || sub === "view") return one(sub, argv.slice(1));
  const f = parseArgs(argv, { cwd: "value", agent: "value", since: "value", limit: "value", json: "bool" });
  if (f.help) return printHelp(SESSIONS_USAGE);
  if (f._.length) throw new UsageError(`sessions takes no arguments (subcommands: show, render, view), got: ${f._.join(" ")}`);
  const agents = f.agent === undefined ? [] : String(f.agent).split(",").map((a) => a.trim()).filter(Boolean);
  for (const a of agents) if (!(SESSION_AGENTS as readonly string[]).includes(a)) throw new UsageError(`sessions: unknown agent "${a}"; agents: ${SESSION_AGENTS.join(", ")}`);
  const since = f.since as string | undefined;
  if (since !== undefined && Number.isNaN(Date.parse(since))) throw new UsageError(`sessions: --since takes an ISO date or time, got "${since}"`);
  const limit = intFlag(f, "limit");
  const list = await listSessions({
    ...(f.cwd !== undefined ? { cwd: f.cwd as string } : {}),
    ...(agents.length ? { agents: agents as SessionAgent[] } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (f.json) {
    await write(list.map((s) => JSON.stringify(s)).join("\n") + (list.length ? "\n" : ""));
    return 0;
  }
  for (const s of list) if (s.problem) warn(`agentnorm: ${s.path}: ${s.problem}`);
  await write(table(list.filter((s) => !s.problem)));
  return 0;
}

/** Local time, to the minute. */
function when(iso: string | undefined): string {
  if (!iso) return "?";
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function table(list: StoredSession[]): string {
  if (!list.length) return "";
  const rows = list.map((s) => [when(s.lastActivityAt), s.agent, s.turns === undefined ? "" : String(s.turns), s.sessionId, escapeTerminal(s.title ?? "(no title)")]);
  const head = ["WHEN", "AGENT", "TURNS", "ID", "TITLE"];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : i === 2 ? c.padStart(width[i]!) : c.padEnd(width[i]!))).join("  ").trimEnd();
  return [fmt(head), ...rows.map(fmt)].join("\n") + "\n";
}

async function one(sub: "show" | "render" | "view", argv: string[]): Promise<number> {
  const spec: Record<string, "bool" | "value"> = sub === "render" ? { json: "bool", color: "bool", "no-color": "bool", thinking: "value", lines: "value" }
    : sub === "view" ? { o: "value", out: "value", title: "value", quiet: "bool" } : {};
  const f = parseArgs(argv, spec);
  if (f.help) return printHelp(SESSIONS_USAGE);
  if (f._.length !== 1) throw new UsageError(`sessions ${sub} takes one session ID, got ${f._.length ? f._.join(" ") : "none"}`);
  const ref = f._[0]!;
  const s = await findSession(ref);
  if (!s) throw new CliError(ref, "no stored session has this id (agentnorm sessions lists them)");
  if (s.problem) throw new CliError(s.path, s.problem);
  const events = async function* () {
    try {
      yield* openSession(s);
    } catch (err) {
      if (err instanceof AgentnormError) throw new CliError(s.path, err.message.startsWith(s.path) ? err.message.slice(s.path.length + 2) : err.message);
      throw err;
    }
  };
  if (sub === "show") {
    let batch = "";
    for await (const e of events()) {
      batch += serializeEvent(e) + "\n";
      if (batch.length > 1 << 16) { await write(batch); batch = ""; }
    }
    await write(batch);
    return 0;
  }
  if (sub === "render") {
    if (f.color && f["no-color"]) throw new UsageError(`--color and --no-color exclude each other`);
    const thinkingChars = intFlag(f, "thinking");
    const maxLines = intFlag(f, "lines");
    const acc = createAccumulator({ eventLog: false });
    for await (const e of events()) acc.apply(e);
    const snap = acc.snapshot();
    if (f.json) await write(JSON.stringify(snap, null, 2) + "\n");
    else {
      const color = f["no-color"] ? false : f.color ? true : !!process.stdout.isTTY && !process.env.NO_COLOR;
      await write(renderSnapshotText(snap, { color, thinkingChars, maxLines }));
    }
    return 0;
  }
  let text = "";
  for await (const e of events()) text += serializeEvent(e) + "\n";
  const out = (f.o ?? f.out ?? `${s.sessionId}.html`) as string;
  const title = (f.title as string | undefined) ?? `agentnorm — ${s.title ?? `${s.agent} ${s.providerSessionId}`}`;
  let html: string;
  try {
    html = viewerHtml(viewerData(loadInput(text, { title }), { title }));
  } catch (err) {
    if (err instanceof ViewerInputError) throw new CliError(s.path, err.message);
    throw err;
  }
  await writeOutput(html, out);
  if (!f.quiet) warn(`agentnorm: ${basename(s.path)}: ${s.agent} session ${s.providerSessionId} → ${out === "-" ? "<stdout>" : out} (${(html.length / 1024).toFixed(0)} KB)`);
  return 0;
}
