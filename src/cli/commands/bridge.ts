/**
 * `agentnorm bridge --agent codex|opencode|claude|cursor …`: a long-running process that runs one live session for a host in
 * another language (a JVM plugin, an editor). docs/bridge.md is the protocol; schemas/bridge.schema.json its schema.
 *
 * stdin: one JSON command per line ({"id", "cmd", …}), each answered by an `ack` or an `error` control line with its
 * id. stdout: only `[CHAT_EVENT] {json}` lines (the chat_event projection of the session's canonical events) and
 * `[BRIDGE] {json}` control lines (ready, ack, error, exit). Logs on stderr. Exits on stdin EOF, on `close`, on
 * SIGTERM/SIGINT, and when its parent process dies — stopping the agent's whole process group first.
 */
import { createChatEventProjector, chatEventLine } from "../../render/chat-event.js";
import { escapeTerminal } from "../../render/terminal-safe.js";
import { connect, LIVE_AGENTS } from "../../live/index.js";
import { watchParent } from "../../live/process.js";
import type { LiveAgent, LiveSession } from "../../live/types.js";
import type { CanonicalEvent } from "../../normalize/normalizer.js";
import { AgentnormError } from "../../errors.js";
import { CliError, parseArgs, printHelp, UsageError } from "./util.js";

export const BRIDGE_PROTOCOL_VERSION = 1;

export const BRIDGE_USAGE = `bridge --agent ${LIVE_AGENTS.join("|")} [--cwd DIR] [--resume ID] [--capture FILE] [options]
  run the agent as a live session for a host in another language (docs/bridge.md):
  stdin: one JSON command per line — {"id":"1","cmd":"prompt","text":"…"}, {"id":"2","cmd":"answer",
  "requestId":"req_…","decision":"allow_once"}, cancel, load, resume, close, ping;
  stdout: [CHAT_EVENT] {json} and [BRIDGE] {json} lines only (ready, ack, error, exit); logs on stderr
  --agent NAME          the agent to run (${LIVE_AGENTS.join(", ")})
  --cwd DIR             the project directory (default: the current one)
  --resume ID           continue this provider session (Codex thread id, opencode session id)
  --capture FILE        also write a capture log (native messages both ways, canonical events; redacted)
  --bin PATH            the agent's executable (default: found on PATH)
  --model NAME          the model, in the agent's own naming
  --permission-mode M   the agent's own approval setting (docs/live.md)
  --no-restart          after the agent crashed, do not restart it on the next prompt
  --parent-pid N        exit when process N is gone (default: the process that started the bridge)
  --agent-log           copy the agent's stderr to ours (escaped)`;

type Json = Record<string, unknown>;

/** A bad command: its field and why. */
class BadCommand extends Error {
  constructor(readonly field: string, message: string) { super(message); }
}

const DECISIONS = ["allow_once", "allow_always", "reject_once", "reject_always", "cancelled", "answered", "completed", "failed"];

/** The commands: each checks its own fields and returns the ack's extra fields. */
const COMMANDS: Record<string, (s: LiveSession, c: Json, out: Out) => Promise<Json>> = {
  async prompt(s, c) {
    const text = str(c, "text");
    const { turnId } = await s.prompt(text);
    return { turnId };
  },
  async answer(s, c) {
    const requestId = str(c, "requestId");
    const decision = str(c, "decision");
    if (!DECISIONS.includes(decision)) throw new BadCommand("decision", `decision must be one of ${DECISIONS.join(", ")}, not ${JSON.stringify(decision)}`);
    const reply: Json = { decision };
    for (const k of ["answers", "output", "result", "message", "updatedInput"]) if (c[k] !== undefined) reply[k] = c[k];
    if (decision === "answered" && reply.answers === undefined) throw new BadCommand("answers", `decision "answered" needs answers`);
    await s.answer(requestId, reply as never);
    return {};
  },
  async cancel(s) {
    await s.cancel();
    return {};
  },
  async load(s, c, out) {
    const id = c.sessionId === undefined ? undefined : str(c, "sessionId");
    const events = await s.load(id);
    const projector = createChatEventProjector();
    let n = 0;
    for (const e of events) for (const r of projector.push(e)) { await out.line(chatEventLine(r)); n++; }
    return { records: n, sessionId: events[0]?.sessionId ?? null };
  },
  async resume(s, c) {
    await s.resume(str(c, "sessionId"));
    return { providerSessionId: s.providerSessionId ?? null };
  },
  async mode(s, c) {
    await s.setMode(str(c, "mode"));
    return {};
  },
  async model(s, c) {
    await s.setModel(str(c, "model"));
    return {};
  },
  async ping() {
    return { pong: true };
  },
  async pending(s) {
    return { requests: s.pending().map((e) => ({ requestId: e.requestId, requestType: (e.payload as Json)?.requestType })) };
  },
};

function str(c: Json, field: string): string {
  const v = c[field];
  if (typeof v !== "string" || v === "") throw new BadCommand(field, `${field} must be a non-empty string`);
  return v;
}

interface Out {
  line(s: string): Promise<void>;
  control(o: Json): Promise<void>;
}

/** stdout, one line at a time, waiting for 'drain' when the host reads slowly (so the agent is paused, not our memory). */
function stdoutWriter(): Out {
  let chain: Promise<void> = Promise.resolve();
  const line = (s: string) => {
    chain = chain.then(() => new Promise<void>((resolve) => {
      if (process.stdout.write(s + "\n")) resolve();
      else process.stdout.once("drain", () => resolve());
    }));
    return chain;
  };
  return { line, control: (o) => line(`[BRIDGE] ${JSON.stringify(o)}`) };
}

export async function bridge(argv: string[]): Promise<number> {
  const f = parseArgs(argv, { agent: "value", cwd: "value", resume: "value", capture: "value", bin: "value", model: "value", "permission-mode": "value", "no-restart": "bool", "parent-pid": "value", "agent-log": "bool" });
  if (f.help) return printHelp(BRIDGE_USAGE);
  if (f._.length) throw new UsageError(`bridge takes no arguments (got ${JSON.stringify(f._[0])})`);
  const agent = f.agent;
  if (typeof agent !== "string") throw new UsageError(`bridge: --agent is required (${LIVE_AGENTS.join(", ")})`);
  if (!(LIVE_AGENTS as string[]).includes(agent)) throw new UsageError(`bridge: unknown agent "${agent}"; agents: ${LIVE_AGENTS.join(", ")}`);
  const parentPid = f["parent-pid"] !== undefined ? Number(f["parent-pid"]) : process.ppid;
  if (!Number.isInteger(parentPid) || parentPid < 1) throw new UsageError(`bridge: --parent-pid must be a process id`);

  const out = stdoutWriter();
  let session: LiveSession;
  try {
    session = await connect({
      agent: agent as LiveAgent,
      cwd: typeof f.cwd === "string" ? f.cwd : undefined,
      resume: typeof f.resume === "string" ? f.resume : undefined,
      capture: typeof f.capture === "string" ? f.capture : undefined,
      bin: typeof f.bin === "string" ? f.bin : undefined,
      model: typeof f.model === "string" ? f.model : undefined,
      permissionMode: typeof f["permission-mode"] === "string" ? f["permission-mode"] : undefined,
      restart: f["no-restart"] ? "never" : "on-demand",
      onStderr: f["agent-log"] ? (l) => process.stderr.write(`[${agent}] ${escapeTerminal(l)}\n`) : undefined,
    });
  } catch (e) {
    await out.control({ type: "exit", code: 1, reason: (e as Error).message });
    throw new CliError("bridge", (e as Error).message);
  }
  await out.control({ type: "ready", protocol: BRIDGE_PROTOCOL_VERSION, agent, sessionId: session.sessionId, providerSessionId: session.providerSessionId ?? null, pid: session.pid ?? null });

  // events → chat_event lines (one writer, in order)
  const projector = createChatEventProjector();
  let exitReason = "closed";
  const pump = (async () => {
    for await (const e of session.events as AsyncIterable<CanonicalEvent>) {
      for (const r of projector.push(e)) await out.line(chatEventLine(r));
      if (e.type === "session.exited" && (e.payload as Json)?.recoverable === false && (e.payload as Json)?.exitKind === "error") exitReason = String((e.payload as Json).reason ?? "the agent exited");
    }
  })();

  let closing: Promise<void> | undefined;
  const close = (why: string) => (closing ??= (async () => {
    exitReason = why;
    await session.close().catch(() => undefined);
  })());

  // commands
  const running = new Set<Promise<void>>();
  const run = (line: string, n: number) => {
    let cmd: Json;
    try {
      const v = JSON.parse(line);
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new BadCommand("(line)", "a command is a JSON object");
      cmd = v;
    } catch (e) {
      return void out.control({ type: "error", line: n, field: "(line)", message: e instanceof BadCommand ? e.message : `line ${n} is not JSON` });
    }
    const id = cmd.id;
    const base = { id: typeof id === "string" || typeof id === "number" ? id : null, cmd: typeof cmd.cmd === "string" ? cmd.cmd : null };
    if (base.id === null) return void out.control({ type: "error", ...base, line: n, field: "id", message: "id must be a string or a number" });
    if (cmd.cmd === "close") {
      // acknowledged once the session is closed, before the exit line (which is always the last)
      const p = close("closed by the host").then(() => out.control({ type: "ack", ...base })).finally(() => running.delete(p));
      running.add(p);
      return;
    }
    const handler = typeof cmd.cmd === "string" && Object.hasOwn(COMMANDS, cmd.cmd) ? COMMANDS[cmd.cmd] : undefined;
    if (!handler) return void out.control({ type: "error", ...base, field: "cmd", message: `cmd must be one of ${[...Object.keys(COMMANDS), "close"].join(", ")}` });
    const p = handler(session, cmd, out).then(
      (extra) => out.control({ type: "ack", ...base, ...extra }),
      (e) => out.control({
        type: "error", ...base,
        ...(e instanceof BadCommand ? { field: e.field } : {}),
        ...(e instanceof AgentnormError ? { code: e.code } : {}),
        message: e instanceof Error ? e.message : String(e),
      }),
    ).finally(() => running.delete(p));
    running.add(p);
  };

  let buf = "";
  let lineNo = 0;
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const l = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      lineNo++;
      if (l) run(l, lineNo);
    }
  });
  process.stdin.on("end", () => {
    if (buf.trim()) run(buf.trim(), ++lineNo);
    void close("stdin closed");
  });
  process.stdin.on("error", () => void close("stdin failed"));
  const stopWatch = watchParent(() => void close(`the parent process ${parentPid} is gone`), 500, parentPid);
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(sig, () => void close(`stopped by ${sig}`));

  await session.closed;
  await pump;
  stopWatch();
  await Promise.allSettled([...running]);
  const crashed = exitReason !== "closed by the host" && exitReason !== "stdin closed" && !exitReason.startsWith("stopped by") && !exitReason.startsWith("the parent");
  await out.control({ type: "exit", code: crashed ? 1 : 0, reason: exitReason });
  process.stdin.pause();
  process.stdin.destroy();
  return crashed ? 1 : 0;
}

