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
import { InvalidOptionError } from "../errors.js";
import type { ConnectOptions, DriverFactory, LiveAgent, LiveSession } from "./types.js";

/** The drivers, by agent name. */
export const DRIVERS: Readonly<Record<LiveAgent, DriverFactory>> = { codex: codexDriver, opencode: opencodeDriver, claude: claudeDriver, cursor: cursorDriver };
export const LIVE_AGENTS = Object.keys(DRIVERS) as LiveAgent[];

/** Start the agent and open (or resume) a session. Rejects with a LiveError (code START_FAILED, TIMEOUT…) when it cannot. */
export async function connect(options: ConnectOptions): Promise<LiveSession> {
  const factory = options && typeof options === "object" && Object.hasOwn(DRIVERS, options.agent) ? DRIVERS[options.agent] : undefined;
  if (!factory) throw new InvalidOptionError("agent", `connect: unknown agent ${JSON.stringify(options?.agent)}; agents: ${LIVE_AGENTS.join(", ")}`);
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
export type { CaptureTarget, ConnectOptions, LiveAgent, LiveSession, LiveTimeouts, PromptInput, PromptResult, RequestRef } from "./types.js";
export type { RequestReply, PermissionDecision } from "../answer/answer.js";
