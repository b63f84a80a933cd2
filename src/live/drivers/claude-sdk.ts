/**
 * Claude Code through the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, an optional peer dependency the host
 * installs; loaded lazily, on the first connect, or given as `claudeSdk.module`): `query()` in streaming-input mode.
 * The SDK's messages are the claude-sdk surface, as the CLI's stream-json lines are (agent "claude").
 *
 * - Process: the SDK's `spawnClaudeCodeProcess` hook starts Claude Code through our supervision (its own process
 *   group, the lifeline), so a close, a crash or a killed host leaves nothing behind, as for every other agent.
 * - Start: `sessionId` is ours (a UUID; or `resume`), so the id is known at connect; the SDK's initialize exchange is
 *   awaited (`initializationResult()`; SDK 0.2: `supportedCommands()`).
 * - Prompt: a user message pushed into the prompt stream (it is also the outgoing frame that opens the turn).
 * - Requests: the SDK's callbacks (`canUseTool`, `onElicitation`, `onUserDialog`) become frames on the channel the
 *   table reads (permission / elicitation / userDialog); the table opens the request, and the callback's promise is
 *   settled by answer() — with answerRequest's result for the `sdk` transport — or, when the SDK withdraws it (its
 *   AbortSignal), settled here as cancelled. The PermissionResult carries the request's `toolUseID`, so the table
 *   resolves the right one when several are open.
 * - Interrupt: `query.interrupt()`; Claude Code ends the turn with its own `result`.
 * - History: the same transcript the CLI driver reads (claude-transcript).
 */
import { randomUUID } from "node:crypto";
import { Child, describeExit, type ExitInfo } from "../process.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import { owedResult, readTranscript, settleOwed } from "./claude.js";
import type { CanonicalEvent } from "../../normalize/normalizer.js";
import type { Driver, DriverFactory, DriverHost, Frame, RequestAnswer, ResolvedOptions } from "../types.js";

type Json = any;

/** The package the driver loads; the error names it when it is missing. */
export const CLAUDE_SDK_PACKAGE = "@anthropic-ai/claude-agent-sdk";

/** The SDK module: the host's own (`claudeSdk.module`), or imported from where agentnorm is installed. */
async function loadSdk(o: ResolvedOptions): Promise<{ query: (a: unknown) => Json }> {
  const given = o.claudeSdk?.module as { query?: unknown } | undefined;
  if (given !== undefined) {
    if (typeof given?.query !== "function") throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: claudeSdk.module has no query() function (give the ${CLAUDE_SDK_PACKAGE} module itself)`);
    return given as { query: (a: unknown) => Json };
  }
  let m: Json;
  try {
    m = await import("@anthropic-ai/claude-agent-sdk");
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: the package ${CLAUDE_SDK_PACKAGE} is not installed (an optional peer dependency of agentnorm): npm install ${CLAUDE_SDK_PACKAGE}`, { cause: e });
    }
    throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: loading ${CLAUDE_SDK_PACKAGE} failed: ${(e as Error).message}`, { cause: e });
  }
  const sdk = typeof m?.query === "function" ? m : m?.default;
  if (typeof sdk?.query !== "function") throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: ${CLAUDE_SDK_PACKAGE} has no query() function`);
  return sdk;
}

/** The prompt stream: user messages, one at a time, until ended. */
class PromptFeed implements AsyncIterable<Json> {
  private waiters: ((r: IteratorResult<Json>) => void)[] = [];
  private queued: IteratorResult<Json>[] = [];
  private ended = false;
  push(message: Json): void { this.deliver({ value: message, done: false }); }
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.deliver({ value: undefined, done: true });
  }
  private deliver(r: IteratorResult<Json>): void {
    const w = this.waiters.shift();
    if (w) w(r);
    else this.queued.push(r);
  }
  [Symbol.asyncIterator](): AsyncIterator<Json> {
    return {
      next: () => {
        const q = this.queued.shift();
        if (q) { if (q.done) this.queued.unshift(q); return Promise.resolve(q); }
        return new Promise((resolve) => this.waiters.push(resolve));
      },
      return: () => { this.end(); return Promise.resolve({ value: undefined, done: true }); },
    };
  }
}

/** A callback waiting for the host's answer. */
interface Waiting {
  channel: string;
  /** The canonical request id (settled here as cancelled when the SDK withdraws it). */
  requestId: string;
  requestType: string;
  resolve(result: unknown): void;
}

/** The callbacks' channels (the claude-sdk table's input rows read them). */
const CALLBACK_CHANNEL = { canUseTool: "permission", onElicitation: "elicitation", onUserDialog: "userDialog" } as const;
/** The answer kinds that settle a callback (answerRequest's sdk transport). */
const SDK_ANSWERS = new Set(["claude-can-use-tool", "claude-elicitation", "claude-user-dialog", "claude-answered-elsewhere"]);

class ClaudeSdkDriver implements Driver {
  private child: Child | undefined;
  private q: Json;
  private feed = new PromptFeed();
  private waiting = new Map<string, Waiting>();
  private paused = false;
  private stopping = false;
  /** The running turn's `result`, still owed (see claude.ts settleOwed). */
  private owed: { done: Promise<void>; resolve(): void } | undefined;
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions) {}

  get pid() { return this.child?.pid; }

  /** The SDK's spawn hook: Claude Code under our supervision. */
  private spawn(so: { command: string; args: string[]; cwd?: string; env: Record<string, string | undefined>; signal?: AbortSignal }): Json {
    if (this.child) throw new Error("claude-sdk: the SDK started Claude Code a second time in one session");
    const child = new Child(so.command, so.args, { cwd: so.cwd ?? this.o.cwd, env: so.env, stdin: true, onStderr: (l) => this.host.log(l) });
    this.child = child;
    if (this.paused) child.proc.stdout?.pause();
    if (this.o.claudeSdk?.wire && this.o.onFrame) this.teeWire(child);
    so.signal?.addEventListener("abort", () => child.signal("SIGTERM"), { once: true });
    void child.exited.then((x) => {
      this.settleAll(`Claude Code ${describeExit(x)}`);
      this.exitedResolve(this.stopping ? { ...x, how: "stopped" } : x);
    });
    const proc = child.proc;
    let killed = false;
    return {
      stdin: proc.stdin, stdout: proc.stdout,
      get killed() { return killed || child.ended; },
      get exitCode() { return proc.exitCode; },
      get signalCode() { return proc.signalCode; },
      kill: (sig: NodeJS.Signals) => { killed = true; child.signal(sig); return true; },
      on: (ev: string, fn: (...a: unknown[]) => void) => { proc.on(ev, fn); },
      once: (ev: string, fn: (...a: unknown[]) => void) => { proc.once(ev, fn); },
      off: (ev: string, fn: (...a: unknown[]) => void) => { proc.off(ev, fn); },
    };
  }

  /**
   * `claudeSdk.wire`: the stdio lines between the SDK and Claude Code, both ways, to the onFrame tap (channel "wire";
   * not normalized: the SDK's messages are) — a recorder's or a debugger's view of the control protocol.
   */
  private teeWire(child: Child): void {
    const tap = this.o.onFrame!;
    const lines = (dir: "in" | "out") => {
      let buf = "";
      return (d: Buffer | string) => {
        buf += typeof d === "string" ? d : d.toString("utf8");
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          let message: unknown;
          try { message = JSON.parse(line); } catch { message = { unparsedLine: line }; }
          try { tap({ dir, channel: "wire", message }); } catch { /* the tap's own problem */ }
        }
      };
    };
    child.proc.stdout?.on("data", lines("in"));
    // what the SDK writes: seen as it is written (the stream is Claude Code's stdin)
    const stdin = child.proc.stdin!;
    const out = lines("out");
    const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
    (stdin as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === "string" || Buffer.isBuffer(chunk)) out(chunk as string);
      return write(chunk, ...rest);
    };
  }

  /** A callback of the SDK: its arguments become a frame; the promise waits for answer() (or the SDK's abort). */
  private callback(name: keyof typeof CALLBACK_CHANNEL, message: Json, signal: AbortSignal | undefined): Promise<unknown> {
    const channel = CALLBACK_CHANNEL[name];
    return new Promise((resolve) => {
      const events = this.host.frame({ dir: "in", channel, message });
      const opened = events.find((e) => e.type === "request.opened");
      const key = opened?.providerRefs?.providerRequestId;
      if (!opened?.requestId || typeof key !== "string") {
        // no row opened it (the table reported the frame): declined, so Claude Code does not wait forever
        this.host.warn(`claude-sdk: ${name} was called with arguments no table row opens as a request; declined`, { callback: name });
        resolve(name === "canUseTool" ? { behavior: "deny", message: "agentnorm could not present this request" } : name === "onElicitation" ? { action: "decline" } : { behavior: "cancelled" });
        return;
      }
      const w: Waiting = { channel, requestId: opened.requestId, requestType: String((opened.payload as { requestType?: unknown })?.requestType ?? "unknown"), resolve };
      this.waiting.set(key, w);
      signal?.addEventListener("abort", () => {
        if (this.waiting.get(key) !== w) return;
        this.waiting.delete(key);
        this.host.host({ type: "request.resolved", requestId: w.requestId, payload: { requestType: w.requestType, decision: "cancelled", resolution: { reason: "Claude Code withdrew the request" } } });
        resolve(name === "canUseTool" ? { behavior: "deny", message: "withdrawn" } : name === "onElicitation" ? { action: "cancel" } : { behavior: "cancelled" });
      }, { once: true });
    });
  }

  private settleAll(reason: string): void {
    for (const [key, w] of this.waiting) {
      this.waiting.delete(key);
      w.resolve(w.channel === "permission" ? { behavior: "deny", message: reason } : w.channel === "elicitation" ? { action: "cancel" } : { behavior: "cancelled" });
    }
  }

  async start(resume: string | undefined): Promise<string> {
    const sdk = await loadSdk(this.o);
    const id = resume ?? randomUUID();
    const strip = (o: Json) => { const { signal: _s, ...rest } = o ?? {}; return rest; };
    this.q = sdk.query({
      prompt: this.feed,
      options: {
        cwd: this.o.cwd,
        env: this.o.env,
        includePartialMessages: true,
        // Claude Code's own system prompt, as the CLI uses it (the SDK's default is a minimal one)
        systemPrompt: { type: "preset", preset: "claude_code" },
        ...(this.o.bin ? { pathToClaudeCodeExecutable: this.o.bin } : {}),
        ...(this.o.model ? { model: this.o.model } : {}),
        ...(this.o.permissionMode ? { permissionMode: this.o.permissionMode } : {}),
        ...(resume ? { resume } : { sessionId: id }),
        ...(this.o.args?.length ? { extraArgs: argsObject(this.o.args) } : {}),
        ...(this.o.claudeSdk?.options ?? {}),
        canUseTool: (toolName: string, input: Json, options: Json) => this.callback("canUseTool", { toolName, input, options: strip(options) }, options?.signal),
        onElicitation: (request: Json, options: Json) => this.callback("onElicitation", { request, options: strip(options) }, options?.signal),
        onUserDialog: (request: Json, options: Json) => this.callback("onUserDialog", { request, options: strip(options) }, options?.signal),
        spawnClaudeCodeProcess: (so: Json) => this.spawn(so),
        stderr: (d: string) => { for (const l of String(d).split("\n")) if (l) this.host.log(l); },
      },
    });
    void this.read();
    try {
      if (typeof this.q.initializationResult === "function") await this.q.initializationResult();
      else await this.q.supportedCommands();
    } catch (e) {
      const tail = this.child?.tail().trim().split("\n").slice(-3).join(" | ");
      throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: ${(e as Error).message}${tail ? ` (stderr: ${tail})` : ""}`, { cause: e });
    }
    if (!this.child) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, "claude-sdk: the SDK did not start Claude Code through spawnClaudeCodeProcess (an SDK older than 0.2.x?)");
    return id;
  }

  /** The SDK's messages, in order, as frames (the SDK ends the iteration when Claude Code exits). */
  private async read(): Promise<void> {
    try {
      for await (const m of this.q) {
        if ((m as { type?: unknown })?.type === "result") { this.owed?.resolve(); this.owed = undefined; }
        this.host.frame({ dir: "in", message: m });
      }
    } catch (e) {
      // Claude Code exited (reported by the session from the exit) or the SDK failed; the latter is said here
      const gone = this.child && (this.child.proc.exitCode !== null || this.child.proc.signalCode !== null);
      if (!this.stopping && !gone) this.host.warn(`claude-sdk: the SDK's message stream failed: ${(e as Error).message}`);
    }
    this.owed?.resolve();
  }

  async prompt(sessionId: string, text: string): Promise<void> {
    await settleOwed(this.owed, this.o.timeouts.requestMs, this.host);
    this.owed = owedResult();
    const message = { type: "user", message: { role: "user", content: [{ type: "text", text }] }, parent_tool_use_id: null, session_id: sessionId };
    this.host.frame({ dir: "out", message });
    this.feed.push(message);
  }

  async interrupt(): Promise<void> {
    // the claude-sdk table's control channel: the result that follows ends the turn as interrupted
    this.host.frame({ dir: "out", channel: "control", message: { subtype: "interrupt" } });
    await this.q.interrupt();
  }

  async setMode(_sessionId: string, mode: string): Promise<void> {
    await this.q.setPermissionMode(mode);
  }

  async setModel(_sessionId: string, model: string): Promise<void> {
    await this.q.setModel(model);
  }

  async send(answer: RequestAnswer, opened?: CanonicalEvent): Promise<void> {
    if (!SDK_ANSWERS.has(answer.kind)) throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `claude-sdk answers through the SDK's callbacks, not ${answer.kind}`);
    const key = opened?.providerRefs?.providerRequestId;
    const w = typeof key === "string" ? this.waiting.get(key) : undefined;
    if (!w) throw new LiveError(LIVE_ERROR_CODES.NOT_PENDING, `claude-sdk: no callback is waiting for request ${opened?.requestId ?? "?"}`);
    this.waiting.delete(key!);
    let result = (answer as { result: unknown }).result;
    // a permission's answer names its tool use, so the table resolves that request when several are open
    if (w.channel === "permission" && result && typeof result === "object" && !("toolUseID" in result)) result = { ...result, toolUseID: key };
    if (result !== null) this.host.frame({ dir: "out", channel: w.channel, message: result });
    w.resolve(result);
  }

  async history(sessionId: string): Promise<{ surface: string; frames: Frame[] }> {
    return readTranscript(this.o.env, this.o.cwd, sessionId);
  }

  pause(): void { this.paused = true; this.child?.proc.stdout?.pause(); }
  resume(): void { this.paused = false; this.child?.proc.stdout?.resume(); }

  async stop(graceMs: number): Promise<ExitInfo> {
    this.stopping = true;
    this.feed.end();
    this.settleAll("the session was closed");
    if (!this.child) { try { this.q?.close?.(); } catch { /* not started */ } return { code: null, signal: null, how: "stopped" }; }
    this.child.proc.stdout?.resume();
    const x = await this.child.stop(graceMs);
    try { this.q?.close?.(); } catch { /* closed */ }
    return { ...x, how: "stopped" };
  }
}

/** `args` (["--flag", "value", "--switch"]) as the SDK's extraArgs ({flag: "value", switch: null}). */
function argsObject(args: string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--")) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `claude-sdk: args must be --flags (given to the SDK as extraArgs), got ${JSON.stringify(a)}`);
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith("--")) { out[a.slice(2)] = next; i++; }
    else out[a.slice(2)] = null;
  }
  return out;
}

export const claudeSdkDriver: DriverFactory = {
  agent: "claude-sdk",
  surface: "claude-sdk",
  provider: "claude",
  command: "claude",
  // the SDK finds Claude Code itself (its platform package) when no `claude` is on PATH and no bin is given
  binOptional: true,
  create: (host, o) => new ClaudeSdkDriver(host, o),
};
