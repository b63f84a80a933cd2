/**
 * The live layer's public types: connect() options, the LiveSession, and the driver contract every agent's driver
 * implements (src/live/drivers/*). Node only.
 */
import type { CanonicalEvent } from "../normalize/normalizer.js";
import type { HostEvent } from "../normalize/engine.js";
import type { IdFactory } from "../normalize/ids.js";
import type { RequestAnswer, RequestReply } from "../answer/answer.js";
import type { ExitInfo } from "./process.js";

/** The ACP agents connect() has a preset for (their command line; the driver is the one ACP driver). */
export type AcpPreset = "opencode-acp" | "gemini" | "codex-acp" | "claude-code-acp" | "claude-agent-acp" | "qwen-acp" | "copilot-acp" | "cline-acp" | "cursor-acp";
/** Any other agent that speaks ACP v1 over stdio: its command line (and environment additions). */
export interface AcpCommand {
  command: string;
  args?: string[];
  env?: Record<string, string | undefined>;
}
/** The agents connect() drives, by name. */
export type LiveAgentName = "codex" | "opencode" | "claude" | "claude-sdk" | "cursor" | AcpPreset;
/** The agents connect() drives: a name, or `{ acp: { command, args?, env? } }` for any ACP agent. */
export type LiveAgent = LiveAgentName | { acp: AcpCommand };

/** ACP client capabilities the host opts into (default: none; the agent then uses its own file and process access). */
export interface AcpClientOptions {
  /** Answer fs/read_text_file and fs/write_text_file, confined to `cwd` and its descendants (symlinks resolved). */
  fs?: boolean;
  /** Run terminal/create commands (each in its own process group; killed on terminal/kill, release and close). */
  terminal?: boolean;
}

/** Where the capture log goes: a file path (written as NDJSON, created or truncated) or a sink for its lines. */
export type CaptureTarget = string | { write(line: string): void };

export interface LiveTimeouts {
  /** Start-up: the process, the handshake, the session (default 30,000 ms). */
  startMs?: number;
  /** One control call to the agent (turn start, interrupt, history, an answer over HTTP; default 20,000 ms). */
  requestMs?: number;
  /** cancel(): how long the agent gets to end the turn itself after the interrupt (default 5,000 ms). */
  interruptGraceMs?: number;
  /** close(): how long the agent gets to exit after its input is closed, before SIGTERM (default 2,000 ms). */
  closeGraceMs?: number;
}

export interface ConnectOptions {
  agent: LiveAgent;
  /** The project directory the agent works in (default: process.cwd()). */
  cwd?: string;
  /** Added to (or, with `undefined` values, removed from) the agent's environment, which is otherwise ours. */
  env?: Record<string, string | undefined>;
  /** The agent's executable (default: `codex` / `opencode` / `claude` found on PATH). */
  bin?: string;
  /** Extra arguments for the agent's command line. */
  args?: string[];
  /** The model, in the agent's own naming (Codex: "gpt-5.5"; opencode: "provider/model"; Claude Code: "claude-sonnet-4-6" or an alias). */
  model?: string;
  /**
   * The agent's own approval setting. Codex: its approvalPolicy ("untrusted" | "on-failure" | "on-request" |
   * "never"; default "on-request") and sandbox ("workspace-write") — give "approvalPolicy:sandbox" to set both.
   * opencode: not settable per session (its permissions are configuration: opencode.json `permission`).
   * Claude Code: its `--permission-mode` ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", …).
   */
  permissionMode?: string;
  /**
   * Continue this provider session (Codex thread id, opencode session id, Claude Code session id) instead of starting
   * one. The session's canonical ids are then the stored session's (agentnorm/sessions: its session id and its first
   * thread's, derived from the agent's store and this id), the ones openSession gives its history — unless `ids` says.
   */
  resume?: string;
  /**
   * The first event's sequence is this + 1 (default 0): give the last sequence of the history you applied (openSession
   * of the same session), so the accumulator sees the resumed session's events continue that history.
   */
  sequenceAfter?: number;
  timeouts?: LiveTimeouts;
  /** "on-demand": after the agent crashed, the next prompt() starts it again and resumes the session. Default "never". */
  restart?: "on-demand" | "never";
  /** Also write a capture log (native messages both ways, canonical events out; redacted). */
  capture?: CaptureTarget;
  /** Aborting it closes the session. */
  signal?: AbortSignal;
  /** Events queued before reading from the agent pauses (default 1,000). */
  highWater?: number;
  /** The agent's stderr lines (default: dropped; the last 4 KB are kept for error messages). */
  onStderr?: (line: string) => void;
  /**
   * Every native frame, both directions, as it crosses the wire (before it is normalized): a recorder's or a
   * debugger's tap. Frames of load() (history reads) come too, with `history: true`.
   */
  onFrame?: (frame: Frame & { history?: boolean }) => void;
  /** ACP agents: the client capabilities offered (`fs`, `terminal`; default none). */
  acp?: AcpClientOptions;
  /**
   * agent "claude-sdk": the Agent SDK module to use (default: `import("@anthropic-ai/claude-agent-sdk")` from where
   * agentnorm is installed) and extra `query()` options (mcpServers, settingSources, …; the driver's own — prompt,
   * callbacks, spawn hook, session id — win).
   */
  claudeSdk?: {
    module?: unknown;
    options?: Record<string, unknown>;
    /** Also give the stdio lines between the SDK and Claude Code to onFrame (channel "wire", both ways; not normalized). */
    wire?: boolean;
  };
  /** The client name the agent is told (Codex `clientInfo.name`; default "agentnorm"). */
  clientName?: string;
  /** Canonical ids (default random) — deterministic ids for tests. */
  ids?: IdFactory;
}

/** What prompt() takes: text, or text with the agent's own extra input parts. */
export type PromptInput = string | { text: string };

export interface PromptResult {
  /** The canonical id of the turn the agent started for this prompt. */
  turnId: string;
}

/** A request.opened event, or its canonical requestId. */
export type RequestRef = CanonicalEvent | string;

export interface LiveSession extends AsyncIterable<CanonicalEvent> {
  readonly agent: LiveAgent;
  /** The surface whose table maps the agent's messages. */
  readonly surface: string;
  /** The canonical session id of every event. */
  readonly sessionId: string;
  /** The agent's own session id (Codex thread id, opencode session id); set once connected. */
  readonly providerSessionId: string | undefined;
  /** The agent's process id, which is also its process group's id (undefined before it started). */
  readonly pid: number | undefined;
  /** The canonical events, in order: one consumer; bounded (the agent is paused while the consumer lags). */
  readonly events: AsyncIterable<CanonicalEvent>;
  /** Send a prompt: resolves once the agent has started the turn. */
  prompt(input: PromptInput): Promise<PromptResult>;
  /** Answer an open request (permission, question, host call) over the agent's transport. */
  answer(request: RequestRef, reply: RequestReply): Promise<void>;
  /** The requests still open (their request.opened events). */
  pending(): CanonicalEvent[];
  /** Interrupt the running turn: resolves after the turn's terminal event (synthesized when the agent sends none). */
  cancel(): Promise<void>;
  /**
   * A stored session's history (default: this one) as canonical events of its own: the stored session's canonical ids
   * (those agentnorm/sessions' openSession and connect({ resume }) give it; random for a command given as `{ acp }`).
   */
  load(providerSessionId?: string): Promise<CanonicalEvent[]>;
  /**
   * Change the agent's mode for the coming turns: Codex its approvalPolicy, opencode its agent ("build", "plan"…),
   * Claude Code its permission mode, an ACP agent one of the modes it offered (session/set_mode, or its mode
   * config option). Rejects with code `unsupported` where the agent has no such setting.
   */
  setMode(mode: string): Promise<void>;
  /** Change the model for the coming turns (the agent's own naming); code `unsupported` where the agent cannot. */
  setModel(model: string): Promise<void>;
  /** Switch this session to another stored provider session and continue it. */
  resume(providerSessionId: string): Promise<void>;
  /** Stop the agent and end the events. Every open request is settled as cancelled. */
  close(options?: { graceMs?: number }): Promise<ExitInfo | undefined>;
  /** Resolves when the session has ended (closed, or the agent exited without restart). */
  readonly closed: Promise<void>;
}

/** A native frame as a driver hands it to the session. */
export interface Frame {
  dir: "in" | "out";
  message: unknown;
  /** The stream, when the agent has several (opencode: "event" / "http"). */
  channel?: string;
}

/** What the session gives a driver. */
/** A session the agent itself lists (ACP session/list). */
export interface StoredSessionInfo {
  providerSessionId: string;
  cwd?: string;
  title?: string;
  /** ISO time of its last activity, as the agent says. */
  updatedAt?: string;
}

export interface DriverHost {
  /** A native frame: normalized, captured, its events queued. Returns the events. */
  frame(f: Frame): CanonicalEvent[];
  /** An event on the host's behalf. */
  host(e: HostEvent): void;
  /** A runtime.warning. */
  warn(message: string, detail?: unknown): void;
  /** Resolves when the consumer has room again (undefined: go on). */
  gate(): Promise<void> | undefined;
  log(line: string): void;
}

/** One agent's transport. Created per process: a restart makes a new one. */
export interface Driver {
  /** Start the agent and open (or resume) a provider session; resolves with its id. */
  start(resume: string | undefined): Promise<string>;
  /** Send a prompt; resolves when the agent accepted it. */
  prompt(providerSessionId: string, text: string): Promise<void>;
  /** The native interrupt call (bounded by the request timeout). */
  interrupt(providerSessionId: string, providerTurnId: string | undefined): Promise<void>;
  /** Send a native answer (answerRequest's result) to the request `opened`. */
  send(answer: RequestAnswer, opened: CanonicalEvent): Promise<void>;
  /** Change the mode / the model for the coming turns (absent: the agent has no such setting). */
  setMode?(providerSessionId: string, mode: string): Promise<void>;
  setModel?(providerSessionId: string, model: string): Promise<void>;
  /** A server request no table row opened: refuse it natively (JSON-RPC method-not-found). */
  refuse?(message: unknown): void;
  /**
   * A server request no table row opened that the driver answers itself (ACP's client methods fs/*, terminal/*
   * when the host opted in): true when it took it (then it is not refused).
   */
  serve?(message: unknown): boolean;
  /**
   * cancel(): the native interrupt goes before the open requests' cancel answers (ACP: session/cancel, then every
   * pending permission answered `cancelled`). Default: the answers first.
   */
  readonly interruptFirst?: boolean;
  /**
   * A stored session's history: the frames to normalize, the surface that reads them, and (when they differ) the
   * frames as they crossed the wire. A driver that gives `tap` each frame as it crosses (so a failed read still shows
   * them) returns `raw: []`.
   */
  history(providerSessionId: string, tap?: (f: Frame) => void): Promise<{ surface: string; frames: Frame[]; raw?: Frame[] }>;
  /** The sessions the agent itself keeps, for `cwd` (or all), where the agent can list them (ACP session/list). */
  storedSessions?(cwd: string | undefined): Promise<StoredSessionInfo[]>;
  pause(): void;
  resume(): void;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<ExitInfo>;
  /** Stop the process (stdin / abort, grace, SIGTERM, SIGKILL; the whole group). */
  stop(graceMs: number): Promise<ExitInfo>;
  /** The process id (tests count survivors by it). */
  readonly pid: number | undefined;
}

export interface DriverFactory {
  readonly agent: LiveAgent;
  readonly surface: string;
  readonly provider: string;
  /** The executable's name on PATH. */
  readonly command: string;
  /** The agent runs without it (the driver finds its program otherwise): `bin` is then only what the host gives. */
  readonly binOptional?: boolean;
  create(host: DriverHost, options: ResolvedOptions): Driver;
}

export interface ResolvedOptions extends ConnectOptions {
  cwd: string;
  bin: string;
  env: Record<string, string | undefined>;
  timeouts: Required<LiveTimeouts>;
}

export type { ExitInfo, RequestReply, RequestAnswer };
