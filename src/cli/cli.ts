#!/usr/bin/env node
/**
 * agentnorm CLI. NDJSON in, NDJSON out; diagnostics and progress on stderr.
 * Exit codes (README "Exit codes"): 0 = the run completed (warnings and malformed lines are reported, not fatal),
 * 1 = the run failed (unreadable input, write error, --strict problems, or — for checking commands — a check
 * failed), 2 = usage error, 128+n = stopped by signal n. Errors are one line: `agentnorm: <what>: <why>`.
 *
 * Commands are a table: each lives in src/cli/commands/<name>.ts and adds one entry to COMMANDS.
 */
import { SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { compatibilityMatrix, compatibilityMarkdown } from "../normalize/matrix.js";
import { VERSION } from "../version.js";
import { normalize, NORMALIZE_USAGE } from "./commands/normalize.js";
import { render, RENDER_USAGE } from "./commands/render.js";
import { project, PROJECT_USAGE } from "./commands/project.js";
import { view, VIEW_USAGE } from "./commands/view.js";
import { matrixHtml } from "../view/html.js";
import { capture, CAPTURE_USAGE } from "./commands/capture.js";
import { replay, REPLAY_USAGE } from "./commands/replay.js";
import { verify, VERIFY_USAGE } from "./commands/verify.js";
import { bridge, BRIDGE_USAGE } from "./commands/bridge.js";
import { sessions, SESSIONS_USAGE } from "./commands/sessions.js";
import { CliError, handleSignals, parseArgs, printHelp, reason, UsageError, warn, write } from "./commands/util.js";

interface Command {
  /** One usage line: "normalize --from SURFACE [FILE|-] [options]". */
  synopsis: string;
  summary: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  normalize: { synopsis: "normalize [FILE|-] [--from SURFACE] [options]", summary: "provider NDJSON (or a JSON array) → canonical NDJSON", run: normalize },
  render: { synopsis: "render [--from SURFACE] [FILE|-] [options]", summary: "the accumulated transcript (turns, text, tools, permissions, plans, diffs) of a stream", run: render },
  view: { synopsis: "view [--from SURFACE] FILE [-o out.html] [--max-mb N] [--turns N]", summary: "a self-contained HTML viewer (transcript, timeline, native messages); a large stream: its last turns", run: view },
  project: { synopsis: "project [--from SURFACE] [FILE|-] [--format chat-event|legacy]", summary: "chat_event records (or the bridge's marker lines) of a stream", run: project },
  verify: { synopsis: "verify [FILE|-] [--from SURFACE] [--json]", summary: "check a canonical NDJSON stream against the grammar (exit 1 on a violation)", run: verify },
  sessions: { synopsis: "sessions [--cwd DIR] [--agent A] [--json] | sessions show|render|view ID", summary: "the sessions agents stored on this machine (Codex, Claude Code, opencode, Gemini CLI); one as events, transcript or page", run: sessions },
  bridge: { synopsis: "bridge --agent codex|opencode|claude|cursor [--cwd DIR] [options]", summary: "run an agent live for a host in another language: JSON commands in, [CHAT_EVENT] / [BRIDGE] lines out", run: bridge },
  capture: { synopsis: "capture sanitize|check|convert FILE", summary: "capture logs: validate, sanitize into replay fixtures, convert recordings", run: capture },
  replay: { synopsis: "replay FIXTURE [--update]", summary: "replay a fixture (native_in → normalizer, or normalized_out → accumulator) and diff", run: replay },
  matrix: {
    synopsis: "matrix [--json|--html]",
    summary: "the compatibility matrix (canonical type × surface); --html: a self-contained page",
    async run(argv) {
      const f = parseArgs(argv, { json: "bool", html: "bool" });
      if (f.help) return printHelp(MATRIX_USAGE);
      if (f._.length) throw new UsageError(`matrix takes no arguments`);
      if (f.json && f.html) throw new UsageError(`matrix: --json and --html exclude each other`);
      // (the Markdown without the generator's "do not edit" header: that is for the committed file)
      await write(f.json ? JSON.stringify(compatibilityMatrix(), null, 2) + "\n" : f.html ? matrixHtml(compatibilityMatrix() as any, `agentnorm ${VERSION}`) : compatibilityMarkdown().replace(/^<!--[^\n]*-->\n+/, ""));
      return 0;
    },
  },
  surfaces: {
    synopsis: "surfaces",
    summary: "list the surfaces",
    async run(argv) {
      const f = parseArgs(argv, {});
      if (f.help) return printHelp("surfaces\n  the surface names, one per line (the values of --from)");
      if (f._.length) throw new UsageError(`surfaces takes no arguments`);
      await write(SURFACE_NAMES.join("\n") + "\n");
      return 0;
    },
  },
};

const MATRIX_USAGE = `matrix [--json|--html]
  the compatibility matrix: per surface, the upstream methods mapped / ignored / missing and the canonical types
  each produces (Markdown; --json: the data; --html: a self-contained page)`;

function usage(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.synopsis.length)) + 2;
  const lines = Object.values(COMMANDS).map((c) => `  agentnorm ${c.synopsis.padEnd(width)}${c.summary}`);
  return `agentnorm ${VERSION} — normalize coding-agent event streams into canonical events

usage:
${lines.join("\n")}
  agentnorm --help | --version
  agentnorm COMMAND --help

Every command that reads a stream detects what it is (canonical events, a capture log, or which provider's
messages, with a confidence) unless --from SURFACE says; --strict makes malformed or unknown lines exit 1.
Exit codes: 0 done, 1 failed (unreadable input, write error, a failed check, --strict problems), 2 usage error,
128+n stopped by signal n. Errors are one line on stderr: agentnorm: <what>: <why>.

${NORMALIZE_USAGE}

${RENDER_USAGE}

${VIEW_USAGE}

${PROJECT_USAGE}

${VERIFY_USAGE}

${SESSIONS_USAGE}

${BRIDGE_USAGE}

${CAPTURE_USAGE}

${REPLAY_USAGE}

${MATRIX_USAGE}`;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "--help" || cmd === "-h" || cmd === "help") return printHelp(usage());
  if (cmd === undefined) {
    // help on stdout only when asked for; bare `agentnorm` is a usage error
    process.stderr.write(usage() + "\n");
    return 2;
  }
  if (cmd === "--version" || cmd === "-v") {
    process.stdout.write(VERSION + "\n");
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!command) throw new UsageError(`unknown command "${cmd}"; commands: ${Object.keys(COMMANDS).join(", ")}`);
  return command.run(rest);
}

/** A failure writing stdout (a full disk, /dev/full, a closed pipe): one line, exit 1 (a closed pipe: exit 0). */
function stdoutFailed(err: NodeJS.ErrnoException): never {
  if (err?.code === "EPIPE") process.exit(0); // the reader went away (e.g. | head): not an error
  warn(`agentnorm: <stdout>: cannot write: ${reason(err)}`);
  process.exit(1);
}
process.stdout.on("error", stdoutFailed);

handleSignals();
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    if (err instanceof UsageError) {
      warn(`agentnorm: ${err.message}\nRun "agentnorm --help" for usage.`);
      process.exitCode = 2;
    } else if (err instanceof CliError) {
      warn(`agentnorm: ${err.what}: ${err.why}`);
      process.exitCode = err.code;
    } else if ((err as NodeJS.ErrnoException)?.code === "EPIPE") {
      process.exitCode = 0;
    } else if ((err as NodeJS.ErrnoException)?.code && (err as NodeJS.ErrnoException).syscall === "write") {
      stdoutFailed(err);
    } else {
      // a bug in agentnorm, not a user error: the stack helps the report
      warn(`agentnorm: internal error: ${(err as Error)?.stack ?? err}`);
      process.exitCode = 1;
    }
  },
);
