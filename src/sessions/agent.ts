/**
 * Sessions an agent keeps on its own side (no store agentnorm reads from disk): asked of the agent itself through the
 * live layer — ACP agents whose initialize offers `sessionCapabilities.list` (session/list), each read back by a
 * process of its own (session/load). No session is opened to list or read them.
 */
import { storedSessionId } from "../normalize/ids.js";
import { InvalidOptionError } from "../errors.js";
import { listStoredSessions, readStoredSession } from "../live/index.js";
import { storedIdsKey } from "../live/session.js";
import type { ConnectOptions } from "../live/types.js";
import type { CanonicalEvent } from "../normalize/normalizer.js";
import type { StoredSession } from "./list.js";

export interface AgentListOptions extends Omit<ConnectOptions, "resume"> {
  /** Every directory's sessions, not only `cwd`'s (default false). */
  all?: boolean;
  /** At most this many (the newest). */
  limit?: number;
}

/**
 * The sessions `options.agent` keeps for `options.cwd` (default process.cwd(); `all`: every directory), newest first, as
 * listSessions gives stored ones: `path` is `agent:<name>`, `surface` "acp", and openSession(it, { connect }) reads it
 * through the agent. Rejects with a LiveError (UNSUPPORTED: the agent cannot list; START_FAILED, TIMEOUT).
 */
export async function listAgentSessions(options: AgentListOptions): Promise<StoredSession[]> {
  if (!options || typeof options !== "object") throw new InvalidOptionError("options", "listAgentSessions: options must be an object");
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 0)) throw new InvalidOptionError("limit", `listAgentSessions: limit must be an integer ≥ 0, got ${JSON.stringify(options.limit)}`);
  const infos = await listStoredSessions(options);
  const key = storedIdsKey(options.agent);
  const name = typeof options.agent === "string" ? options.agent : "acp";
  const out: StoredSession[] = infos.map((i) => ({
    agent: name as StoredSession["agent"],
    providerSessionId: i.providerSessionId,
    sessionId: key ? storedSessionId(key, i.providerSessionId) : "",
    ...(i.title !== undefined ? { title: firstLine(i.title) } : {}),
    ...(i.cwd !== undefined ? { cwd: i.cwd } : {}),
    ...(i.updatedAt !== undefined && Number.isFinite(Date.parse(i.updatedAt)) ? { lastActivityAt: new Date(Date.parse(i.updatedAt)).toISOString() } : {}),
    surface: "acp",
    liveAgent: options.agent,
    path: `agent:${name}`,
    origin: "agent",
  }));
  const time = (s: StoredSession) => (s.lastActivityAt ? Date.parse(s.lastActivityAt) : 0);
  out.sort((a, b) => time(b) - time(a));
  return options.limit !== undefined ? out.slice(0, options.limit) : out;
}

/** An agent-kept session's canonical events (openSession's path for `origin: "agent"`). */
export async function* agentSessionEvents(s: StoredSession, connect: Omit<ConnectOptions, "agent" | "resume"> = {}): AsyncGenerator<CanonicalEvent> {
  const events = await readStoredSession({ ...connect, agent: s.liveAgent, ...(s.cwd !== undefined && connect.cwd === undefined ? { cwd: s.cwd } : {}) }, s.providerSessionId);
  yield* events;
}

const firstLine = (t: string) => { const l = t.split("\n", 1)[0]!.trim(); return l.length > 200 ? l.slice(0, 200) : l; };
