/**
 * agentnorm/live — run an agent, not just read its log (Node only; no runtime dependencies).
 *
 *   import { connect } from "agentnorm/live";
 *   const s = await connect({ agent: "codex", cwd: "/my/project" });
 *   const { turnId } = await s.prompt("Fix the failing test");
 *   for await (const e of s.events) {
 *     if (e.type === "request.opened") await s.answer(e, { decision: "allow_once" });
 *     if (e.type === "turn.completed" && e.turnId === turnId) break;
 *   }
 *   await s.close();
 *
 * Every agent behind one LiveSession (docs/live.md): the canonical events, bounded; prompt, answer, cancel, load,
 * resume, close; crashes reported; no process left behind.
 */
import { Session, agentName, historyEvents, readHistory, resolveOptions } from "./session.js";
import type { CanonicalEvent } from "../normalize/normalizer.js";
import { codexDriver } from "./drivers/codex.js";
import { opencodeDriver } from "./drivers/opencode.js";
import { cursorDriver } from "./drivers/cursor.js";
import { claudeDriver } from "./drivers/claude.js";
import { claudeSdkDriver } from "./drivers/claude-sdk.js";
import { acpDriver, isAcpAgent, ACP_PRESETS } from "./drivers/acp.js";
import { InvalidOptionError } from "../errors.js";
import { LiveError, LIVE_ERROR_CODES } from "./errors.js";
import type { AcpPreset, ConnectOptions, DriverFactory, LiveAgent, LiveAgentName, LiveSession, StoredSessionInfo, Frame, Driver, ResolvedOptions } from "./types.js";

/** The drivers, by agent name (the ACP presets share the ACP driver). */
export const DRIVERS: Readonly<Record<LiveAgentName, DriverFactory>> = {
  codex: codexDriver,
  opencode: opencodeDriver,
  claude: claudeDriver,
  "claude-sdk": claudeSdkDriver,
  cursor: cursorDriver,
  ...(Object.fromEntries(Object.keys(ACP_PRESETS).map((k) => [k, acpDriver(k as AcpPreset)])) as Record<AcpPreset, DriverFactory>),
};
export const LIVE_AGENTS = Object.keys(DRIVERS) as LiveAgentName[];

/** The driver for `agent`: a name of DRIVERS, or `{ acp: { command, args?, env? } }` (the ACP driver). */
export function driverFor(agent: LiveAgent): DriverFactory | undefined {
  if (typeof agent === "string") return Object.hasOwn(DRIVERS, agent) ? DRIVERS[agent] : undefined;
  return isAcpAgent(agent) ? acpDriver(agent) : undefined;
}

/** Start the agent and open (or resume) a session. Rejects with a LiveError (code START_FAILED, TIMEOUT…) when it cannot. */
export async function connect(options: ConnectOptions): Promise<LiveSession> {
  const factory = options && typeof options === "object" ? driverFor(options.agent) : undefined;
  if (!factory) throw new InvalidOptionError("agent", `connect: unknown agent ${JSON.stringify(options?.agent)}; agents: ${LIVE_AGENTS.join(", ")}, or { acp: { command, args?, env? } }`);
  const s = new Session(factory, resolveOptions(options, factory));
  try {
    await s.start(options.resume);
  } catch (e) {
    await s.close().catch(() => undefined);
    throw e;
  }
  return s;
}

/**
 * The sessions an agent keeps on its own side, for `options.cwd` (default process.cwd(); `all: true`: every
 * directory), asked of the agent itself in a process of its own (no session is opened): ACP agents whose initialize
 * offers `sessionCapabilities.list` (session/list). Rejects with a LiveError UNSUPPORTED for an agent that cannot list,
 * START_FAILED / TIMEOUT as connect(). Warnings (a list cut, an entry without an id) go to `onStderr`.
 */
export async function listStoredSessions(options: ConnectOptions & { all?: boolean }): Promise<StoredSessionInfo[]> {
  const { driver, o } = sessionlessDriver("listStoredSessions", options, "the agent does not list its sessions (only ACP agents offering a session list do)");
  // each request is bounded by the request timeout, and the agent's process is stopped however the list ends
  return driver.storedSessions!(options.all ? undefined : o.cwd);
}

/**
 * A session the agent keeps on its own side (listStoredSessions), read through the agent without opening a session:
 * a process of its own loads it (ACP session/load) and its replay is normalized with the stored session's canonical
 * ids (those connect({ resume }) gives it). Rejects as listStoredSessions.
 */
export async function readStoredSession(options: ConnectOptions, providerSessionId: string): Promise<CanonicalEvent[]> {
  if (typeof providerSessionId !== "string" || providerSessionId === "") throw new InvalidOptionError("providerSessionId", "readStoredSession: the session id must be a non-empty string");
  const { driver, o, factory } = sessionlessDriver("readStoredSession", options, "its stored sessions are read from disk (agentnorm/sessions' openSession), not through the agent");
  const tap = o.onFrame ? (f: Frame) => { try { o.onFrame!({ ...f, history: true }); } catch { /* the tap's own problem */ } } : undefined;
  const h = await readHistory(driver, providerSessionId, tap);
  return historyEvents(h.surface, h.frames, factory.agent, providerSessionId);
}

/**
 * A driver made without starting a session, for the calls that run the agent in a process of their own
 * (storedSessions, history); UNSUPPORTED (`unsupported`, after the agent's name) for a driver that has no
 * storedSessions.
 */
function sessionlessDriver(caller: string, options: ConnectOptions, unsupported: string): { driver: Driver; o: ResolvedOptions; factory: DriverFactory } {
  const factory = options && typeof options === "object" ? driverFor(options.agent) : undefined;
  if (!factory) throw new InvalidOptionError("agent", `${caller}: unknown agent ${JSON.stringify(options?.agent)}; agents: ${LIVE_AGENTS.join(", ")}, or { acp: { command, args?, env? } }`);
  const o = resolveOptions(options, factory);
  const log = (line: string) => { try { o.onStderr?.(line); } catch { /* the callback's own problem */ } };
  const driver = factory.create({ frame: () => [], host: () => undefined, warn: (m) => log(`agentnorm: ${m}`), gate: () => undefined, log }, o);
  if (!driver.storedSessions) throw new LiveError(LIVE_ERROR_CODES.UNSUPPORTED, `${agentName(factory.agent)}: ${unsupported}`);
  return { driver, o, factory };
}

export { LiveError, LIVE_ERROR_CODES } from "./errors.js";
export { findOnPath } from "./process.js";
export type { ExitInfo } from "./process.js";
export { ACP_PRESETS } from "./drivers/acp.js";
export type { AcpClientOptions, AcpCommand, AcpPreset, StoredSessionInfo, CaptureTarget, ConnectOptions, LiveAgent, LiveAgentName, LiveSession, LiveTimeouts, PromptInput, PromptResult, RequestRef } from "./types.js";
export type { RequestReply, PermissionDecision } from "../answer/answer.js";
