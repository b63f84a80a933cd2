/**
 * Codex app-server (`codex app-server --listen stdio://`): JSON-RPC over stdio without the "jsonrpc" field.
 * initialize → initialized → thread/start (or thread/resume) → turn/start per prompt; approvals and questions are
 * the agent's server requests (answered with answerRequest's JSON-RPC message); turn/interrupt; thread/read for a
 * stored thread's history. An "overloaded" error (-32001) is retried with backoff.
 */
import { VERSION } from "../../version.js";
import { JsonRpcPeer, type FrameTap, type JsonRpcMessage } from "../jsonrpc.js";
import { startChild, describeExit, type Child, type ExitInfo } from "../process.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import type { Driver, DriverFactory, DriverHost, Frame, RequestAnswer, ResolvedOptions } from "../types.js";

const OVERLOADED = -32001;

class CodexDriver implements Driver {
  private child!: Child;
  private peer!: JsonRpcPeer;
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions) {}

  get pid() { return this.child?.pid; }

  private policy(): { approvalPolicy: string; sandbox: string } {
    const [approvalPolicy, sandbox] = (this.o.permissionMode ?? "on-request").split(":");
    return { approvalPolicy: approvalPolicy || "on-request", sandbox: sandbox || "workspace-write" };
  }

  /** A call, retried with backoff while the server says it is overloaded; bounded by the request timeout (`ms`). */
  private async call<T>(method: string, params: unknown, tap?: FrameTap, ms = this.o.timeouts.requestMs): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.peer.request<T>(method, params, ms, tap);
      } catch (e) {
        const code = ((e as LiveError).detail as { code?: number } | undefined)?.code;
        if (code !== OVERLOADED || attempt >= 5) throw e;
        this.host.warn(`${method}: the agent is overloaded; retrying (${attempt + 1}/5)`, { method, error: (e as LiveError).detail });
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
  }

  async start(resume: string | undefined): Promise<string> {
    this.child = await startChild(this.o.bin, ["app-server", "--listen", "stdio://", ...(this.o.args ?? [])], { cwd: this.o.cwd, env: this.o.env, stdin: true, onStderr: (l) => this.host.log(l) });
    this.peer = new JsonRpcPeer(this.child.proc.stdout!, this.child.proc.stdin!, { version: false, onFrame: (dir, message) => this.host.frame({ dir, message }) });
    void this.child.exited.then((x) => {
      this.peer.close(`${this.o.bin} ${describeExit(x)}`);
      this.exitedResolve(x);
    });
    const startFailed = (e: unknown) => {
      const tail = this.child.tail().trim().split("\n").slice(-3).join(" | ");
      throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `codex app-server: ${(e as Error).message}${tail ? ` (stderr: ${tail})` : ""}`, { cause: e });
    };
    // the start's calls are bounded by the start timeout (as the whole start is), not a request's
    const startMs = this.o.timeouts.startMs;
    await this.call("initialize", { clientInfo: { name: this.o.clientName ?? "agentnorm", title: "agentnorm", version: VERSION }, capabilities: { experimentalApi: true } }, undefined, startMs).catch(startFailed);
    this.peer.notify("initialized");
    const params = { cwd: this.o.cwd, ...this.policy(), ...(this.o.model ? { model: this.o.model } : {}) };
    const r = await (resume ? this.call<{ thread: { id: string } }>("thread/resume", { threadId: resume, ...params }, undefined, startMs) : this.call<{ thread: { id: string } }>("thread/start", params, undefined, startMs)).catch(startFailed);
    const id = r?.thread?.id;
    if (typeof id !== "string") throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `codex app-server: ${resume ? "thread/resume" : "thread/start"} returned no thread id`);
    return id;
  }

  async prompt(threadId: string, text: string): Promise<void> {
    // the model and approval policy of the session's options (setModel / setMode change them for the next turn)
    const overrides = { ...(this.o.model ? { model: this.o.model } : {}), ...(this.o.permissionMode ? { approvalPolicy: this.policy().approvalPolicy } : {}) };
    await this.call("turn/start", { threadId, input: [{ type: "text", text, text_elements: [] }], ...overrides });
  }

  /** The approval policy ("untrusted" | "on-failure" | "on-request" | "never") for the coming turns (turn/start). */
  async setMode(_threadId: string, mode: string): Promise<void> {
    const policy = mode.split(":")[0];
    if (!["untrusted", "on-failure", "on-request", "never"].includes(policy!)) throw new LiveError(LIVE_ERROR_CODES.INVALID_OPTION, `codex: the mode is an approval policy (untrusted, on-failure, on-request, never), got ${JSON.stringify(mode)}`);
  }

  /** The model for the coming turns (turn/start). */
  async setModel(): Promise<void> {}

  async interrupt(threadId: string, turnId: string | undefined): Promise<void> {
    if (turnId === undefined) return;
    await this.call("turn/interrupt", { threadId, turnId });
  }

  async send(answer: RequestAnswer): Promise<void> {
    if (answer.kind !== "jsonrpc") throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `codex app-server answers over JSON-RPC, not ${answer.kind}`);
    this.peer.send(answer.message as JsonRpcMessage);
  }

  refuse(message: unknown): void {
    const id = (message as { id: string | number }).id;
    try { this.peer.send({ id, error: { code: -32601, message: "agentnorm does not handle this request" } }); } catch { /* exited */ }
  }

  async history(threadId: string): Promise<{ surface: string; frames: Frame[] }> {
    const frames: Frame[] = [];
    await this.call("thread/read", { threadId, includeTurns: true }, (dir, message) => frames.push({ dir, message }));
    return { surface: "codex-app-server", frames };
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

export const codexDriver: DriverFactory = {
  agent: "codex",
  surface: "codex-app-server",
  provider: "codex",
  command: "codex",
  create: (host, o) => new CodexDriver(host, o),
};
