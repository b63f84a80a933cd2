/**
 * agentnorm/sessions — every agent's past sessions, found where the agent keeps them and opened as canonical history
 * (Node only; no runtime dependencies).
 *
 *   import { listSessions, openSession } from "agentnorm/sessions";
 *   const [latest] = await listSessions({ cwd: "/my/project", limit: 1 });
 *   for await (const e of openSession(latest)) accumulator.apply(e);
 *   // continue it live: the same canonical session
 *   const s = await connect({ agent: latest.liveAgent, cwd: latest.cwd, resume: latest.providerSessionId });
 *
 * Where each agent keeps what, per version: docs/sessions.md.
 */
export { listSessions } from "./list.js";
export type { ListOptions, StoredSession } from "./list.js";
export { openSession, findSession } from "./open.js";
export { listAgentSessions } from "./agent.js";
export type { AgentListOptions } from "./agent.js";
export type { OpenOptions } from "./open.js";
export { STORES, SESSION_AGENTS } from "./stores.js";
export type { SessionAgent, StoreSpec } from "./stores.js";
export { storedSessionId, storedSessionIds } from "../normalize/ids.js";
export { SessionStoreError } from "../errors.js";
