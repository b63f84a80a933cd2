/**
 * Claude Code CLI (`claude --input-format stream-json --output-format stream-json --verbose
 * --permission-prompt-tool stdio --include-partial-messages`): one JSON message per line both ways, the stream-json
 * control protocol of the Agent SDK spoken directly (the SDK itself is not used).
 *
 * - Start: the session id is ours (`--session-id <uuid>`, so it is known before the first prompt: the CLI states it
 *   only in `system/init`, which it sends after the first user message), or `--resume <id>`; then the `initialize`
 *   control request, answered by the CLI before any prompt.
 * - Prompt: a `user` message line. The claude-sdk table opens the turn on that outgoing line (the CLI sends nothing
 *   until the model answers), so prompt() resolves as soon as the line is written.
 * - Permissions: the CLI's `can_use_tool` control requests (opened by the table), answered with answerRequest's
 *   `claude-control-response` (the wire transport: the request came by the wire). A control request no row opens
 *   (hook callbacks, MCP messages of SDK servers we never declared) is answered with an error response.
 * - Interrupt: the `interrupt` control request; the CLI then ends the turn with its `result`
 *   (error_during_execution), which the session waits for (its grace period covers a missing one).
 * - History: the transcript `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<cwd slug>/<id>.jsonl`, in conversation
 *   order (the parentUuid chain), read by the claude-transcript table.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { JsonRpcPeer, type JsonRpcMessage } from "../jsonrpc.js";
import { startChild, describeExit, type Child, type ExitInfo } from "../process.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import { linkOrder } from "../../normalize/link-order.js";
import { CLAUDE_TRANSCRIPT_ORDER, linkRef } from "../../sessions/stores.js";
import type { Driver, DriverFactory, DriverHost, Frame, RequestAnswer, ResolvedOptions } from "../types.js";

type Json = any;

interface PendingControl {
  subtype: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

class ClaudeDriver implements Driver {
  private child!: Child;
  /** Line framing, backpressure and writes (the stream-json lines are not JSON-RPC: every one reaches onFrame). */
  private peer!: JsonRpcPeer;
  private nextControl = 1;
  private controls = new Map<string, PendingControl>();
  private closedReason: string | undefined;
  /** The running turn's `result`, still owed by the CLI (a cancel the session had to end itself leaves it owed). */
  private owed: { done: Promise<void>; resolve(): void } | undefined;
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions) {}

  get pid() { return this.child?.pid; }

  private onFrame(dir: "in" | "out", message: Json): void {
    const events = this.host.frame({ dir, message });
    if (dir !== "in" || !message || typeof message !== "object") return;
    if (message.type === "result") { this.owed?.resolve(); this.owed = undefined; }
    if (message.type === "control_response") {
      const r = message.response ?? {};
      const p = this.controls.get(String(r.request_id));
      if (!p) return;
      this.controls.delete(String(r.request_id));
      if (p.timer) clearTimeout(p.timer);
      if (r.subtype === "error") p.reject(new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `${p.subtype}: the agent answered with an error: ${r.error ?? JSON.stringify(r)}`, { detail: r }));
      else p.resolve(r.response);
    } else if (message.type === "control_request" && !events.some((e) => e.type === "request.opened")) {
      // a request no row opens: answered with an error, so the CLI does not wait for it (the table reports our error
      // response as a runtime.warning)
      const subtype = message.request?.subtype;
      this.write({ type: "control_response", response: { subtype: "error", request_id: message.request_id, error: `the agent asked "${subtype}", which agentnorm does not answer: refused` } });
    }
  }

  private write(message: Json): void {
    this.peer.send(message as JsonRpcMessage);
  }

  /** A control request of ours; settles with the CLI's control_response (or TIMEOUT / AGENT_EXITED). */
  private control<T = unknown>(subtype: string, extra: Record<string, unknown> = {}): Promise<T> {
    if (this.closedReason !== undefined) return Promise.reject(new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `${subtype}: ${this.closedReason}`));
    const request_id = `agentnorm-${this.nextControl++}`;
    return new Promise<T>((resolve, reject) => {
      const p: PendingControl = { subtype, resolve: resolve as (v: unknown) => void, reject };
      const ms = this.o.timeouts.requestMs;
      if (ms > 0 && Number.isFinite(ms)) {
        p.timer = setTimeout(() => {
          this.controls.delete(request_id);
          reject(new LiveError(LIVE_ERROR_CODES.TIMEOUT, `${subtype}: no answer from the agent within ${ms} ms`));
        }, ms);
      }
      this.controls.set(request_id, p);
      try {
        this.write({ type: "control_request", request_id, request: { subtype, ...extra } });
      } catch (e) {
        this.controls.delete(request_id);
        if (p.timer) clearTimeout(p.timer);
        reject(e);
      }
    });
  }

  private closeControls(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const p of this.controls.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `${p.subtype}: ${reason}`));
    }
    this.controls.clear();
  }

  async start(resume: string | undefined): Promise<string> {
    const id = resume ?? randomUUID();
    const args = [
      "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
      "--permission-prompt-tool", "stdio", "--include-partial-messages",
      ...(this.o.model ? ["--model", this.o.model] : []),
      ...(this.o.permissionMode ? ["--permission-mode", this.o.permissionMode] : []),
      ...(resume ? ["--resume", resume] : ["--session-id", id]),
      ...(this.o.args ?? []),
    ];
    this.child = await startChild(this.o.bin, args, { cwd: this.o.cwd, env: this.o.env, stdin: true, onStderr: (l) => this.host.log(l) });
    this.peer = new JsonRpcPeer(this.child.proc.stdout!, this.child.proc.stdin!, {
      version: false,
      onFrame: (dir, message) => this.onFrame(dir, message),
      onClose: (why) => this.closeControls(why),
    });
    void this.child.exited.then((x) => {
      this.peer.close(`${this.o.bin} ${describeExit(x)}`);
      this.closeControls(`${this.o.bin} ${describeExit(x)}`);
      this.owed?.resolve();
      this.exitedResolve(x);
    });
    try {
      await this.control("initialize");
    } catch (e) {
      const tail = this.child.tail().trim().split("\n").slice(-3).join(" | ");
      throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude: ${(e as Error).message}${tail ? ` (stderr: ${tail})` : ""}`, { cause: e });
    }
    return id;
  }

  async prompt(sessionId: string, text: string): Promise<void> {
    // the previous turn's result first (the CLI queues our line meanwhile, and a late result must not end this turn)
    await settleOwed(this.owed, this.o.timeouts.requestMs, this.host);
    this.owed = owedResult();
    this.write({ type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: sessionId });
  }

  async interrupt(): Promise<void> {
    await this.control("interrupt");
  }

  async send(answer: RequestAnswer): Promise<void> {
    if (answer.kind !== "claude-control-response") throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `claude answers with a stream-json control_response, not ${answer.kind}`);
    this.write((answer as { message: unknown }).message);
  }

  async history(sessionId: string): Promise<{ surface: string; frames: Frame[] }> {
    return readTranscript(this.o.env, this.o.cwd, sessionId);
  }

  async setMode(_sessionId: string, mode: string): Promise<void> {
    await this.control("set_permission_mode", { mode });
  }

  async setModel(_sessionId: string, model: string): Promise<void> {
    await this.control("set_model", { model });
  }

  pause(): void { this.peer?.pause(); }
  resume(): void { this.peer?.resume(); }

  async stop(graceMs: number): Promise<ExitInfo> {
    if (!this.child) return { code: null, signal: null, how: "stopped" };
    const x = await this.child.stop(graceMs);
    this.peer.close("the session was closed");
    return x;
  }
}

/** A turn's `result`, owed by Claude Code from the prompt on. */
export function owedResult(): { done: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return { done, resolve };
}

/**
 * Before a prompt: wait (up to `ms`) for the previous turn's result when it is still owed — after a cancel the
 * session ended itself, the reader keeps reading until it comes, so it is mapped to its own turn, not to the next.
 */
export async function settleOwed(owed: { done: Promise<void> } | undefined, ms: number, host: DriverHost): Promise<void> {
  if (!owed) return;
  let t: NodeJS.Timeout | undefined;
  const came = await Promise.race([owed.done.then(() => true), new Promise<boolean>((r) => { t = setTimeout(() => r(false), ms); })]);
  clearTimeout(t);
  if (!came) host.warn(`claude: the previous turn's result did not come within ${ms} ms; prompting anyway`);
}

/** A stored session's transcript as claude-transcript frames, in conversation order. */
export function readTranscript(env: Record<string, string | undefined>, cwd: string, sessionId: string): { surface: string; frames: Frame[] } {
  const file = transcriptFile(env, cwd, sessionId);
  if (!file) throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `claude: no transcript of session ${sessionId} under ${projectsDir(env)}`);
  const lines: Json[] = [];
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (!l.trim()) continue;
    try { lines.push(JSON.parse(l)); } catch { /* a line being written */ }
  }
  return { surface: "claude-transcript", frames: conversationOrder(lines).map((message) => ({ dir: "in" as const, message })) };
}

/** Claude Code's configuration directory's `projects` folder (CLAUDE_CONFIG_DIR, else ~/.claude). */
function projectsDir(env: Record<string, string | undefined>): string {
  return join(env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), ".claude"), "projects");
}

/** The session's transcript: in the project folder named after the working directory, else in any project folder. */
function transcriptFile(env: Record<string, string | undefined>, cwd: string, sessionId: string): string | undefined {
  const root = projectsDir(env);
  const direct = join(root, cwd.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
  if (existsSync(direct)) return direct;
  let dirs: string[] = [];
  try { dirs = readdirSync(root); } catch { return undefined; }
  for (const d of dirs) {
    const p = join(root, d, `${sessionId}.jsonl`);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Transcript lines in conversation order (normalize/link-order.ts, the links Claude Code's store declares). */
export function conversationOrder(lines: Json[]): Json[] {
  return linkOrder(lines.map((l) => linkRef(l, CLAUDE_TRANSCRIPT_ORDER))).map((i) => lines[i]);
}

export const claudeDriver: DriverFactory = {
  agent: "claude",
  surface: "claude-sdk",
  provider: "claude",
  command: "claude",
  create: (host, o) => new ClaudeDriver(host, o),
};
