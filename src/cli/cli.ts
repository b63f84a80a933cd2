#!/usr/bin/env node
/**
 * agentnorm CLI. NDJSON in, NDJSON out; diagnostics and progress on stderr.
 * Exit codes: 0 = the run completed (warnings and malformed lines are reported, not fatal),
 * 1 = the run failed (unreadable input, write error, or — for checking commands — a check failed), 2 = usage error.
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
import { handleSignals, parseArgs, UsageError, write } from "./commands/util.js";

interface Command {
  /** One usage line: "normalize --from SURFACE [FILE|-] [options]". */
  synopsis: string;
  summary: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  normalize: { synopsis: "normalize --from SURFACE [FILE|-] [options]", summary: "provider NDJSON (or a JSON array) → canonical NDJSON", run: normalize },
  render: { synopsis: "render [--from SURFACE] [FILE|-] [options]", summary: "the accumulated transcript (turns, text, tools, permissions, plans, diffs) of a stream", run: render },
  view: { synopsis: "view [--from SURFACE] FILE [-o out.html]", summary: "a self-contained HTML viewer (transcript, timeline, native messages)", run: view },
  project: { synopsis: "project [--from SURFACE] [FILE|-] [--format chat-event|legacy]", summary: "chat_event records (or the bridge's marker lines) of a stream", run: project },
  verify: { synopsis: "verify [FILE|-] [--json]", summary: "check a canonical NDJSON stream against the grammar (exit 1 on a violation)", run: verify },
  capture: { synopsis: "capture sanitize|check|convert …", summary: "capture logs: validate, sanitize into replay fixtures, convert recordings", run: capture },
  replay: { synopsis: "replay FIXTURE [--update]", summary: "replay a fixture (native_in → normalizer, or normalized_out → accumulator) and diff", run: replay },
  matrix: {
    synopsis: "matrix [--json|--html]",
    summary: "the compatibility matrix (canonical type × surface); --html: a self-contained page",
    async run(argv) {
      const f = parseArgs(argv, { json: "bool", html: "bool" });
      if (f._.length) throw new UsageError(`matrix takes no arguments`);
      if (f.json && f.html) throw new UsageError(`matrix: --json and --html exclude each other`);
      await write(f.json ? JSON.stringify(compatibilityMatrix(), null, 2) + "\n" : f.html ? matrixHtml(compatibilityMatrix() as any, `agentnorm ${VERSION}`) : compatibilityMarkdown());
      return 0;
    },
  },
  surfaces: {
    synopsis: "surfaces",
    summary: "list the surfaces",
    async run() {
      await write(SURFACE_NAMES.join("\n") + "\n");
      return 0;
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.synopsis.length)) + 2;
  const lines = Object.values(COMMANDS).map((c) => `  agentnorm ${c.synopsis.padEnd(width)}${c.summary}`);
  return `agentnorm ${VERSION} — normalize coding-agent event streams into canonical events

usage:
${lines.join("\n")}
  agentnorm --help | --version

${NORMALIZE_USAGE}

${RENDER_USAGE}

${VIEW_USAGE}

${PROJECT_USAGE}

${VERIFY_USAGE}

${CAPTURE_USAGE}

${REPLAY_USAGE}`;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === "--help" || cmd === "-h" || cmd === "help") {
    console.log(usage());
    return cmd === undefined ? 2 : 0;
  }
  if (cmd === "--version" || cmd === "-v") {
    console.log(VERSION);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!command) throw new UsageError(`unknown command "${cmd}"; commands: ${Object.keys(COMMANDS).join(", ")}`);
  return command.run(rest);
}

process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0); // the reader went away (e.g. | head): not an error
  throw err;
});

handleSignals();
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    if (err instanceof UsageError) {
      console.error(`agentnorm: ${err.message}\nRun "agentnorm --help" for usage.`);
      process.exitCode = 2;
    } else if ((err as NodeJS.ErrnoException)?.code === "EPIPE") {
      process.exitCode = 0;
    } else {
      console.error(`agentnorm: ${(err as Error)?.stack ?? err}`);
      process.exitCode = 1;
    }
  },
);
