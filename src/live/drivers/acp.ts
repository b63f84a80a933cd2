/**
 * Any agent that speaks ACP v1 (Agent Client Protocol: JSON-RPC 2.0, one message per line over stdio): presets for
 * the known ones (opencode, Gemini CLI, Codex ACP, Claude Code ACP, Claude Agent ACP, Qwen Code, GitHub Copilot CLI, Cline,
 * Cursor) and `{ acp: { command,
 * args, env } }` for any other. One driver, the "acp" table.
 *
 * - initialize (protocolVersion 1; client capabilities only as the host opts in: `acp: { fs, terminal }`) →
 *   session/new {cwd, mcpServers: []}, or, to resume, session/load (when its initialize says loadSession), else
 *   session/resume when the agent offers it. A load replays the history as session/update notifications before its
 *   answer: on the live connection that replay is not put into the event stream (the host saw it, or reads it with
 *   load()); the request and its answer are.
 * - session/prompt answers at the END of the turn (stopReason): prompt() sends it and does not wait for the answer;
 *   the request's own frame opens the turn (the table's clientRequest row), its answer closes it.
 * - interrupt: the session/cancel notification; then (interruptFirst) every pending permission is answered
 *   `cancelled`, as ACP asks of a client that cancels.
 * - client methods the agent calls: fs/read_text_file, fs/write_text_file (opt-in; confined to cwd after resolving
 *   symlinks and `..`), terminal/* (opt-in; each command in its own process group, killed on terminal/kill, release
 *   and when the session ends). Everything else is refused (method not found) by the session.
 * - load(id): a second process of the agent — initialize + session/load, its frames collected — then stopped.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { VERSION } from "../../version.js";
import { JsonRpcPeer, type JsonRpcMessage } from "../jsonrpc.js";
import { startChild, describeExit, type Child, type ExitInfo } from "../process.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import type { AcpCommand, AcpPreset, StoredSessionInfo, Driver, DriverFactory, DriverHost, Frame, LiveAgent, RequestAnswer, ResolvedOptions } from "../types.js";

/**
 * The preset agents' command lines (the executable is found on PATH unless `bin` names it). A preset's `env` holds
 * defaults: connect's `env` overrides them.
 */
export const ACP_PRESETS: Readonly<Record<AcpPreset, AcpCommand>> = {
  "opencode-acp": { command: "opencode", args: ["acp"] },
  gemini: { command: "gemini", args: ["--acp"] },
  "codex-acp": { command: "codex-acp" },
  "claude-code-acp": { command: "claude-code-acp" },
  "claude-agent-acp": { command: "claude-agent-acp" },
  "qwen-acp": { command: "qwen", args: ["--acp"] },
  "copilot-acp": { command: "copilot", args: ["--acp"] },
  // Cline's default ("auto") session backend starts a hub daemon in a session of its own, outside the agent's process
  // group, that outlives the agent; the local backend runs the sessions in the agent's own process.
  "cline-acp": { command: "cline", args: ["--acp"], env: { CLINE_SESSION_BACKEND_MODE: "local" } },
  "cursor-acp": { command: "cursor-agent", args: ["acp"] },
};

const METHOD_NOT_FOUND = -32601;
/** At most this many pages of session/list are read. */
const STORED_PAGES = 100;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const RESOURCE_NOT_FOUND = -32002;
const AUTH_REQUIRED = -32000;

interface InitializeResult {
  protocolVersion?: number;
  agentCapabilities?: { loadSession?: boolean; sessionCapabilities?: { resume?: unknown; list?: unknown } };
  authMethods?: { id: string; name?: string; description?: string }[];
}

/** A command the agent runs through the client (terminal/create). */
interface Terminal {
  child: Child;
  output: string;
  truncated: boolean;
  limit: number | undefined;
}

/** `p` (absolute, or relative to `root`) inside `root` after resolving symlinks and `..`: its real path, else undefined. */
export function confinedPath(root: string, p: unknown): string | undefined {
  if (typeof p !== "string" || p === "") return undefined;
  let rootReal: string;
  try { rootReal = realpathSync(root); } catch { return undefined; }
  // the deepest existing ancestor, resolved; the part below it does not exist (so it holds no symlink)
  let head = isAbsolute(p) ? resolve(p) : resolve(root, p);
  const tail: string[] = [];
  for (;;) {
    try { head = realpathSync(head); break; } catch {
      const parent = dirname(head);
      if (parent === head) return undefined;
      tail.unshift(basename(head));
      head = parent;
    }
  }
  const real = tail.length ? join(head, ...tail) : head;
  return real === rootReal || real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep) ? real : undefined;
}

/** A client method the agent calls (fs/*, terminal/*). */
/** What session/new (load, resume) says the session offers: modes, models, config options (ACP's newer form of both). */
interface SessionOffers {
  modes?: { currentModeId?: string; availableModes?: { id: string }[] } | null;
  models?: { currentModelId?: string; availableModels?: { modelId: string }[] } | null;
  configOptions?: { id: string; category?: string; type?: string; options?: unknown[] }[] | null;
}

type ClientCall = JsonRpcMessage & { method: string; params?: Record<string, unknown> };
const exitStatus = (x: ExitInfo | undefined) => (x ? { exitCode: x.code, signal: x.signal } : undefined);

/**
 * The ACP client methods the driver serves, each behind the capability the host opts into (`acp: { fs, terminal }`):
 * one entry a method. Any other method, or one whose capability is off, gets the session's method-not-found.
 */
const CLIENT_METHODS: Record<string, { capability: "fs" | "terminal"; run(d: AcpDriver, m: ClientCall, p: Record<string, unknown>): void | Promise<void> }> = {
  "fs/read_text_file": { capability: "fs", run: (d, m, p) => d.readText(m, p) },
  "fs/write_text_file": { capability: "fs", run: (d, m, p) => d.writeText(m, p) },
  "terminal/create": { capability: "terminal", run: (d, m, p) => d.createTerminal(m, p) },
  "terminal/output": {
    capability: "terminal",
    run: (d, m, p) => {
      const t = d.terminal(m, p);
      if (!t) return;
      const status = exitStatus(t.child.exit);
      d.replyTo(m, { output: t.output, truncated: t.truncated, ...(status ? { exitStatus: status } : {}) });
    },
  },
  "terminal/wait_for_exit": {
    capability: "terminal",
    run: async (d, m, p) => {
      const t = d.terminal(m, p);
      if (t) d.replyTo(m, exitStatus(await t.child.exited));
    },
  },
  "terminal/kill": {
    capability: "terminal",
    run: async (d, m, p) => {
      const t = d.terminal(m, p);
      if (!t) return;
      await t.child.stop(0, 1000);
      d.replyTo(m, {});
    },
  },
  "terminal/release": {
    capability: "terminal",
    run: async (d, m, p) => {
      const t = d.terminal(m, p);
      if (!t) return;
      d.dropTerminal(p);
      await t.child.stop(0, 1000);
      d.replyTo(m, {});
    },
  },
};

class AcpDriver implements Driver {
  readonly interruptFirst = true;
  private child!: Child;
  private peer!: JsonRpcPeer;
  private init: InitializeResult | undefined;
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));
  /** While a session/load runs on the live connection: its replay goes to the tap, not the stream. */
  private replaying = false;
  private offers: SessionOffers = {};
  private terminals = new Map<string, Terminal>();
  private nextTerminal = 0;

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions, private readonly spec: AcpCommand, private readonly preset = false) {}

  get pid() { return this.child?.pid; }

  /** The command line: a script given as bin (gemini's bundle/gemini.js) runs with this Node. */
  private commandLine(): [string, string[]] {
    const args = [...(this.spec.args ?? []), ...(this.o.args ?? [])];
    return /\.[cm]?js$/.test(this.o.bin) ? [process.execPath, [this.o.bin, ...args]] : [this.o.bin, args];
  }

  private get env(): Record<string, string | undefined> {
    // a preset's env are defaults (connect's env wins); the object form's env is the caller's own (it wins)
    return this.preset ? { ...(this.spec.env ?? {}), ...this.o.env } : { ...this.o.env, ...(this.spec.env ?? {}) };
  }

  private initializeParams() {
    const fs = !!this.o.acp?.fs;
    return {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: !!this.o.acp?.terminal },
      clientInfo: { name: this.o.clientName ?? "agentnorm", title: "agentnorm", version: VERSION },
    };
  }

  private onFrame(dir: "in" | "out", message: JsonRpcMessage | string): void {
    if (this.replaying && dir === "in" && typeof message === "object" && message.method !== undefined && (message.id === undefined || message.id === null)) {
      // the history a session/load replays on the live connection (the agent's notifications until the load is
      // answered): the host's tap sees it, the stream does not
      if (this.o.onFrame) { try { this.o.onFrame({ dir, message, history: true }); } catch { /* the tap's own problem */ } }
      return;
    }
    this.host.frame({ dir, message });
  }

  async start(resume: string | undefined): Promise<string> {
    const [cmd, args] = this.commandLine();
    this.child = await startChild(cmd, args, { cwd: this.o.cwd, env: this.env, stdin: true, onStderr: (l) => this.host.log(l) });
    this.peer = new JsonRpcPeer(this.child.proc.stdout!, this.child.proc.stdin!, { version: true, onFrame: (dir, m) => this.onFrame(dir, m) });
    void this.child.exited.then((x) => {
      this.peer.close(`${this.o.bin} ${describeExit(x)}`);
      this.killTerminals();
      this.exitedResolve(x);
    });
    const failed = (e: unknown, what: string): never => {
      const tail = this.child.tail().trim().split("\n").slice(-3).join(" | ");
      const auth = this.init?.authMethods ?? [];
      const code = ((e as LiveError).detail as { code?: number } | undefined)?.code;
      if (auth.length && (code === AUTH_REQUIRED || /auth/i.test((e as Error).message))) {
        const methods = auth.map((m) => (m.name && m.name !== m.id ? `${m.id} (${m.name})` : m.id)).join(", ");
        throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${this.o.bin}: ${what}: the agent needs authentication; its methods: ${methods} — authenticate with the agent itself (or give it its API key in env), then connect again`, { cause: e, detail: { authMethods: auth } });
      }
      throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${this.o.bin}: ${what}: ${(e as Error).message}${tail ? ` (stderr: ${tail})` : ""}`, { cause: e });
    };
    const t = this.o.timeouts.startMs;
    this.init = await this.peer.request<InitializeResult>("initialize", this.initializeParams(), t).catch((e) => failed(e, "initialize"));
    const where = { cwd: this.o.cwd, mcpServers: [] as unknown[] };
    let id: string;
    if (resume !== undefined) {
      const caps = this.init?.agentCapabilities;
      // session/load (stable ACP) first; the unstable session/resume only when load is not offered (Claude Code ACP
      // 0.16.2 offers both, and its session/resume fails after the process was killed)
      if (caps?.loadSession) {
        this.replaying = true;
        try {
          this.offers = (await this.peer.request<SessionOffers>("session/load", { sessionId: resume, ...where }, t).catch((e) => failed(e, "session/load"))) ?? {};
        } finally {
          this.replaying = false;
        }
      } else if (caps?.sessionCapabilities?.resume) {
        this.offers = (await this.peer.request<SessionOffers>("session/resume", { sessionId: resume, ...where }, t).catch((e) => failed(e, "session/resume"))) ?? {};
      } else {
        throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${this.o.bin}: the agent cannot resume a session (its initialize offers neither loadSession nor session resume)`);
      }
      id = resume;
    } else {
      const r = await this.peer.request<{ sessionId?: string } & SessionOffers>("session/new", where, t).catch((e) => failed(e, "session/new"));
      if (typeof r?.sessionId !== "string") throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${this.o.bin}: session/new returned no sessionId`);
      id = r.sessionId;
      this.offers = r;
    }
    // the session's mode and model, when asked (the agent's own ids)
    if (this.o.permissionMode) await this.setMode(id, this.o.permissionMode).catch((e) => failed(e, "setting the mode"));
    if (this.o.model) await this.setModel(id, this.o.model).catch((e) => failed(e, "setting the model"));
    return id;
  }

  /**
   * A mode or model the session offered: through its config option of that category (session/set_config_option)
   * when it has one (the one whose id is the category's name when it has several), else the dedicated method
   * (session/set_mode, session/set_model) when it offered modes / models.
   * Neither: UNSUPPORTED (the agent has no such setting).
   */
  private async setting(sessionId: string, category: "mode" | "model", value: string): Promise<void> {
    // of several options in the category, the one named after it (Cline 3.0.65 files its provider choice under
    // `model` too, beside its `model` option)
    const inCategory = (this.offers.configOptions ?? []).filter((c) => c && c.category === category);
    const option = inCategory.find((c) => c.id === category) ?? inCategory[0];
    if (option) {
      const r = await this.peer.request<SessionOffers>("session/set_config_option", { sessionId, configId: option.id, value }, this.o.timeouts.requestMs);
      if (r?.configOptions) this.offers = { ...this.offers, configOptions: r.configOptions };
      return;
    }
    if (category === "mode" && this.offers.modes) {
      await this.peer.request("session/set_mode", { sessionId, modeId: value }, this.o.timeouts.requestMs);
      return;
    }
    if (category === "model" && this.offers.models) {
      await this.peer.request("session/set_model", { sessionId, modelId: value }, this.o.timeouts.requestMs);
      return;
    }
    throw new LiveError(LIVE_ERROR_CODES.UNSUPPORTED, `${this.o.bin}: the session offers no ${category}s (no ${category} config option, no session/set_${category})`);
  }

  setMode(sessionId: string, mode: string): Promise<void> { return this.setting(sessionId, "mode", mode); }
  setModel(sessionId: string, model: string): Promise<void> { return this.setting(sessionId, "model", model); }

  async prompt(sessionId: string, text: string): Promise<void> {
    // answered when the turn ends (its stopReason ends the turn through the table): not awaited here; a failure is
    // normalized from its error answer, an exit is the session's crash
    // (a late answer, after a cancel the session ended itself, is mapped to its own turn: keyed by the request)
    this.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }).catch(() => undefined);
  }

  async interrupt(sessionId: string): Promise<void> {
    this.peer.notify("session/cancel", { sessionId });
  }

  async send(answer: RequestAnswer): Promise<void> {
    if (answer.kind !== "jsonrpc") throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `ACP answers over JSON-RPC, not ${answer.kind}`);
    this.peer.send(answer.message as JsonRpcMessage);
  }

  refuse(message: unknown): void {
    const id = (message as { id: string | number }).id;
    try { this.peer.send({ id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${(message as { method?: string }).method}` } }); } catch { /* exited */ }
  }

  private reply(id: JsonRpcMessage["id"], result: unknown): void {
    try { this.peer.send({ id, result }); } catch { /* exited */ }
  }
  private fail(id: JsonRpcMessage["id"], code: number, message: string, data?: unknown): void {
    try { this.peer.send({ id, error: data === undefined ? { code, message } : { code, message, data } }); } catch { /* exited */ }
  }

  serve(message: unknown): boolean {
    const m = message as ClientCall;
    const h = Object.hasOwn(CLIENT_METHODS, m.method) ? CLIENT_METHODS[m.method] : undefined;
    // a client method the host did not opt into (or no client method): the session's generic refusal
    if (!h || !this.o.acp?.[h.capability]) return false;
    void Promise.resolve()
      .then(() => h.run(this, m, m.params ?? {}))
      .catch((e) => this.fail(m.id, INTERNAL_ERROR, `${m.method}: ${(e as Error).message}`));
    return true;
  }

  /** fs/*: the path confined to cwd (symlinks and .. resolved), else refused (the table warns on the error answer). */
  confined(m: ClientCall, p: Record<string, unknown>): string | undefined {
    const path = confinedPath(this.o.cwd, p.path);
    if (!path) this.fail(m.id, INVALID_PARAMS, `${m.method}: ${JSON.stringify(p.path)} is outside the session's directory (${this.o.cwd}): refused`);
    return path;
  }

  readText(m: ClientCall, p: Record<string, unknown>): void {
    const path = this.confined(m, p);
    if (!path) return;
    let text: string;
    try { text = readFileSync(path, "utf8"); } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return this.fail(m.id, RESOURCE_NOT_FOUND, `Resource not found: ${p.path}`, { path: p.path });
      throw e;
    }
    if (typeof p.line === "number" || typeof p.limit === "number") {
      let lines = text.split(/(?<=\n)/);
      if (typeof p.line === "number") lines = lines.slice(Math.max(1, p.line) - 1);
      if (typeof p.limit === "number") lines = lines.slice(0, Math.max(0, p.limit));
      text = lines.join("");
    }
    this.reply(m.id, { content: text });
  }

  writeText(m: ClientCall, p: Record<string, unknown>): void {
    const path = this.confined(m, p);
    if (!path) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, String(p.content ?? ""));
    this.reply(m.id, {});
  }

  async createTerminal(m: ClientCall, p: Record<string, unknown>): Promise<void> {
    const command = String(p.command ?? "");
    const args = Array.isArray(p.args) ? p.args.map(String) : [];
    const env: Record<string, string | undefined> = { ...this.env };
    if (Array.isArray(p.env)) for (const v of p.env as { name: string; value: string }[]) if (v && typeof v.name === "string") env[v.name] = String(v.value ?? "");
    const cwd = typeof p.cwd === "string" ? p.cwd : this.o.cwd;
    // a whole command line without arguments runs in a shell; a program with arguments runs as it is
    const [cmd, argv] = args.length === 0 && /\s/.test(command) ? ["/bin/sh", ["-c", command]] : [command, args];
    let child: Child;
    try {
      child = await startChild(cmd, argv, { cwd, env, stdin: false });
    } catch (e) {
      return this.fail(m.id, INTERNAL_ERROR, `terminal/create: ${(e as Error).message}`);
    }
    const id = `term_${this.nextTerminal++}`;
    const limit = typeof p.outputByteLimit === "number" ? p.outputByteLimit : undefined;
    const term: Terminal = { child, output: "", truncated: false, limit };
    const add = (d: Buffer | string) => {
      term.output += typeof d === "string" ? d : d.toString("utf8");
      if (term.limit !== undefined && Buffer.byteLength(term.output) > term.limit) {
        // drop from the beginning, at a character boundary
        const buf = Buffer.from(term.output);
        let start = buf.length - term.limit;
        while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
        term.output = buf.subarray(start).toString("utf8");
        term.truncated = true;
      }
    };
    child.proc.stdout!.on("data", add);
    child.proc.stderr!.on("data", add);
    this.terminals.set(id, term);
    this.reply(m.id, { terminalId: id });
  }

  /** The terminal a terminal/* call names (undefined: refused, said to the agent). */
  terminal(m: ClientCall, p: Record<string, unknown>): Terminal | undefined {
    const term = this.terminals.get(String(p.terminalId));
    if (!term) this.fail(m.id, INVALID_PARAMS, `${m.method}: no terminal ${JSON.stringify(p.terminalId)}`);
    return term;
  }

  dropTerminal(p: Record<string, unknown>): void {
    this.terminals.delete(String(p.terminalId));
  }

  replyTo(m: ClientCall, result: unknown): void {
    this.reply(m.id, result);
  }

  private killTerminals(): Promise<unknown> {
    const all = [...this.terminals.values()];
    this.terminals.clear();
    return Promise.all(all.map((t) => t.child.stop(0, 1000)));
  }

  /** The terminals still held (tests). */
  get terminalPids(): number[] {
    return [...this.terminals.values()].map((t) => t.child.pid!).filter((p) => p !== undefined);
  }

  /**
   * A call in a process of the agent's own, beside this driver's (which need not run): the process is started,
   * initialized, given to `use`, and stopped however `use` ends. The agent's requests on that connection (none
   * expected) are refused; every frame goes to `onFrame`.
   */
  private async aside(onFrame: ((dir: "in" | "out", message: JsonRpcMessage) => void) | undefined, done: string, use: (peer: JsonRpcPeer, init: InitializeResult | undefined) => Promise<void>): Promise<void> {
    const [cmd, args] = this.commandLine();
    const child = await startChild(cmd, args, { cwd: this.o.cwd, env: this.env, stdin: true, onStderr: (l) => this.host.log(l) });
    let peer: JsonRpcPeer | undefined;
    peer = new JsonRpcPeer(child.proc.stdout!, child.proc.stdin!, {
      version: true,
      onFrame: (dir, message) => {
        if (typeof message !== "object") return;
        onFrame?.(dir, message);
        if (dir === "in" && message.method !== undefined && message.id !== undefined && message.id !== null) {
          try { peer!.send({ id: message.id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${message.method}` } }); } catch { /* exited */ }
        }
      },
    });
    void child.exited.then((x) => peer!.close(`${this.o.bin} ${describeExit(x)}`));
    try {
      await use(peer, await peer.request<InitializeResult>("initialize", this.initializeParams(), this.o.timeouts.requestMs));
    } finally {
      await child.stop(0, 1000);
      peer.close(done);
    }
  }

  async history(sessionId: string, tap?: (f: Frame) => void): Promise<{ surface: string; frames: Frame[]; raw?: Frame[] }> {
    const noLoad = () => new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `${this.o.bin}: the agent cannot load a stored session (its initialize does not offer loadSession)`);
    if (this.init && !this.init.agentCapabilities?.loadSession) throw noLoad();
    // a second process of the agent (this driver's own need not run): initialize + session/load; the replay is the history
    const frames: Frame[] = [];
    await this.aside((dir, message) => {
      frames.push({ dir, message });
      // the tap sees each frame as it crosses, so a load that fails still shows what the agent said
      if (tap) { try { tap({ dir, message }); } catch { /* the tap's own problem */ } }
    }, "the history was read", async (peer, init) => {
      if (!init?.agentCapabilities?.loadSession) throw noLoad();
      await peer.request("session/load", { sessionId, cwd: this.o.cwd, mcpServers: [] }, this.o.timeouts.requestMs);
    });
    return { surface: "acp", frames, ...(tap ? { raw: [] } : {}) };
  }

  /**
   * The sessions the agent itself keeps (ACP `session/list`, when its initialize offers `sessionCapabilities.list`),
   * for `cwd` (or all): a second process of the agent, initialize, then every page of the list (at most
   * `STORED_PAGES`; beyond that a warning says the list was cut).
   */
  async storedSessions(cwd: string | undefined): Promise<StoredSessionInfo[]> {
    const out: StoredSessionInfo[] = [];
    await this.aside(undefined, "the list was read", async (peer, init) => {
      if (!init?.agentCapabilities?.sessionCapabilities?.list) throw new LiveError(LIVE_ERROR_CODES.UNSUPPORTED, `${this.o.bin}: the agent does not list its sessions (its initialize does not offer sessionCapabilities.list)`);
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page === STORED_PAGES) { this.host.warn(`${this.o.bin}: session/list gave more than ${STORED_PAGES} pages: the rest is not listed`, { cursor }); break; }
        const r = await peer.request<{ sessions?: unknown; nextCursor?: unknown }>("session/list", { ...(cwd !== undefined ? { cwd } : {}), ...(cursor !== undefined ? { cursor } : {}) }, this.o.timeouts.requestMs);
        for (const v of Array.isArray(r?.sessions) ? r.sessions : []) {
          if (!v || typeof v !== "object" || typeof (v as { sessionId?: unknown }).sessionId !== "string") { this.host.warn(`${this.o.bin}: session/list named a session without an id: left out`, v); continue; }
          const i = v as { sessionId: string; cwd?: unknown; title?: unknown; updatedAt?: unknown };
          out.push({
            providerSessionId: i.sessionId,
            ...(typeof i.cwd === "string" ? { cwd: i.cwd } : {}),
            ...(typeof i.title === "string" && i.title !== "" ? { title: i.title } : {}),
            ...(typeof i.updatedAt === "string" ? { updatedAt: i.updatedAt } : {}),
          });
        }
        if (typeof r?.nextCursor !== "string" || r.nextCursor === "") break;
        cursor = r.nextCursor;
      }
    });
    return out;
  }

  pause(): void { this.peer?.pause(); }
  resume(): void { this.peer?.resume(); }

  async stop(graceMs: number): Promise<ExitInfo> {
    if (!this.child) return { code: null, signal: null, how: "stopped" };
    const [x] = await Promise.all([this.child.stop(graceMs), this.killTerminals()]);
    this.peer.close("the session was closed");
    return x;
  }
}

/** The driver factory for an ACP agent: a preset's name, or `{ acp: { command, args, env } }`. */
export function acpDriver(agent: AcpPreset | { acp: AcpCommand }): DriverFactory {
  const spec = typeof agent === "string" ? ACP_PRESETS[agent] : agent.acp;
  return {
    agent: agent as LiveAgent,
    surface: "acp",
    provider: "acp",
    command: spec.command,
    create: (host, o) => new AcpDriver(host, o, spec, typeof agent === "string"),
  };
}

/** Is `agent` an ACP agent (a preset or the object form)? */
export function isAcpAgent(agent: unknown): agent is AcpPreset | { acp: AcpCommand } {
  if (typeof agent === "string") return Object.hasOwn(ACP_PRESETS, agent);
  const a = (agent as { acp?: AcpCommand } | null)?.acp;
  return !!agent && typeof agent === "object" && !!a && typeof a === "object" && typeof a.command === "string" && a.command !== "" && (a.args === undefined || (Array.isArray(a.args) && a.args.every((x) => typeof x === "string")));
}
