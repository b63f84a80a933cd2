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
import { Session, resolveOptions } from "./session.js";
import { codexDriver } from "./drivers/codex.js";
import { opencodeDriver } from "./drivers/opencode.js";
import { cursorDriver } from "./drivers/cursor.js";
import { claudeDriver } from "./drivers/claude.js";
import { claudeSdkDriver } from "./drivers/claude-sdk.js";
import { acpDriver, isAcpAgent, ACP_PRESETS } from "./drivers/acp.js";
import { InvalidOptionError } from "../errors.js";
import type { AcpPreset, ConnectOptions, DriverFactory, LiveAgent, LiveAgentName, LiveSession } from "./types.js";

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

export { LiveError, LIVE_ERROR_CODES } from "./errors.js";
export { findOnPath } from "./process.js";
export type { ExitInfo } from "./process.js";
export { ACP_PRESETS } from "./drivers/acp.js";
export type { AcpClientOptions, AcpCommand, AcpPreset, CaptureTarget, ConnectOptions, LiveAgent, LiveAgentName, LiveSession, LiveTimeouts, PromptInput, PromptResult, RequestRef } from "./types.js";
export type { RequestReply, PermissionDecision } from "../answer/answer.js";
