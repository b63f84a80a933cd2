/**
 * Where each agent keeps its sessions, and how to list them cheaply: one declarative description per agent. The
 * reader (list.ts, open.ts) is generic over these; what a session's records mean is the restored-history surface's
 * table (mappings/<surface>.yaml). docs/sessions.md explains every field per agent and version.
 */
import type { LiveAgentName } from "../live/types.js";

export type SessionAgent = "codex" | "claude" | "opencode" | "gemini";
export const SESSION_AGENTS: readonly SessionAgent[] = ["codex", "claude", "opencode", "gemini"];

/**
 * A store's root directory: the first rule whose variable is set (`env`, plus `sub`), else `home` under $HOME.
 * The environment is the caller's (listSessions' `env`, default process.env) — the agent's own overrides.
 */
export interface RootRule { env?: string; home?: string; sub?: string }

/** A test of a head line's field: equals the text, is one of the texts, or exists (true) / is absent (false). */
export type FieldTest = string | { in: readonly string[] } | { exists: boolean };

/**
 * A value from the head of a session file: the first whole head line whose fields pass `where`, its value at `path`
 * (dot path). `text`: a string as is, or the `text` of a list's `{type: text}` blocks joined (a message's content).
 * Values starting with one of `skipPrefixes` are not taken (the next line that passes is tried). `prefix`: the value
 * may also be read from the start of a line too long for the head (scalars only; `where` is then tested on that line).
 */
export interface HeadValue {
  where?: Readonly<Record<string, FieldTest>>;
  path: string;
  text?: boolean;
  skipPrefixes?: readonly string[];
  prefix?: boolean;
}

/** Records linked by parent ids (normalize/link-order.ts): the fields holding a record's id, parents and time. */
export interface LinkStoreOrder { kind: "links"; id: string; parents: readonly string[]; time: string }

/** A record's place in the tree of links, from its fields (`v` a parsed record, or anything else: no id). */
export function linkRef(v: any, order: LinkStoreOrder): { id?: string; parents: string[]; time: number } {
  const ref: { id?: string; parents: string[]; time: number } = {
    parents: order.parents.map((p) => v?.[p]).filter((p): p is string => typeof p === "string"),
    time: typeof v?.[order.time] === "string" ? Date.parse(v[order.time]) : NaN,
  };
  if (v && typeof v[order.id] === "string") ref.id = v[order.id];
  return ref;
}

/** Claude Code's transcript lines: linked by uuid → parentUuid (else logicalParentUuid, across a compaction). */
export const CLAUDE_TRANSCRIPT_ORDER: LinkStoreOrder = { kind: "links", id: "uuid", parents: ["parentUuid", "logicalParentUuid"], time: "timestamp" };

/** A session store made of files, one session per file. */
export interface FileStore {
  kind: "files";
  /** Session files under the root: `/`-separated segments; `*` in a segment matches any text. `archived`: sessions the agent archived. */
  files: readonly { pattern: string; archived?: true }[];
  /** Bytes of a file read to list it: its head (and a quarter of that of its tail, for `updated`). */
  headBytes: number;
  /** The provider session id: a group of the file name, else a head value. */
  id: { name?: RegExp; head?: readonly HeadValue[] };
  /**
   * The session's project directory: a head value; else a file in the project folder (`projectFile.segment` is the
   * segment of `files` that is the project folder) holding it; else that folder's name is the hash of it
   * (`projectHash`: sha256 hex of the directory). `slug`: the folder name is the directory with every character
   * matching `replace` made `with` — a cheap pre-filter for `cwd` (slugs are lossy: the head's cwd decides); one
   * longer than `max` is cut there and given a hash of the agent's own after a `-` (any hash matches).
   */
  cwd: {
    head?: readonly HeadValue[];
    projectFile?: { segment: number; file: string };
    projectHash?: { segment: number };
    slug?: { segment: number; replace: RegExp; with: string; max?: number };
  };
  /** When the session started (a head value: an ISO time or epoch ms); else the file's birth/modification time. */
  started?: readonly HeadValue[];
  /**
   * The last activity: a value of the file's last lines (its tail, the last line that has one), else the file's
   * modification time.
   */
  updated?: readonly HeadValue[];
  /** The title: the agent's own, else the first prompt. */
  title?: readonly HeadValue[];
  /** The agent version that wrote it. */
  version?: readonly HeadValue[];
  /** A head line passing one of these: the file is not a session to list (e.g. a subagent's own rollout). */
  skip?: readonly HeadValue[];
  /**
   * A file its head holds whole that gives no title is not listed: the agent opened it before any prompt (Gemini CLI
   * writes a chat file as each process starts, a `session/load` in a second process included).
   */
  skipUntitled?: true;
  /** How records are framed: one record per line, or a log of records that rewrite the session (Gemini CLI). */
  framing: { kind: "lines" } | RecordLog;
  /** The order the surface reads records in: the file's, or the tree of parent links (Claude Code). */
  order: { kind: "file" } | LinkStoreOrder;
  /**
   * Files of the same session's subagents, read after it: `dir` relative to the session file's folder (`{id}`: the
   * session id), `file` a segment pattern. The surface nests them under the calls that ran them.
   */
  children?: { dir: string; file: string };
  /** The agent's own index of its sessions (a SQLite table), when it keeps one: listed from it, heads not read. */
  index?: SqliteIndex;
}

/**
 * A record log (Gemini CLI's chat files): a header record, message records (a record whose `key` is a string:
 * added, or replacing the message of that key in its place), `set` records (`{<set>: {...}}`: fields of the session
 * replaced; `list` among them replaces every message), and `rewind` records (`{<rewind>: key}`: that message and
 * every later one removed). The session is what the log says at its end; the surface reads the header, then its
 * messages.
 */
export interface RecordLog {
  kind: "record-log";
  header: readonly string[];
  key: string;
  set: string;
  list: string;
  rewind: string;
}

/** An agent's own index table: which column says what. Times are epoch ms (`…Ms`) or seconds. */
export interface SqliteIndex {
  /** The database file under the root: a `*` pattern; the newest version number wins (`state_5.sqlite`). */
  file: string;
  table: string;
  columns: { id: string; cwd?: string; title?: readonly string[]; startedMs?: string; updatedMs?: string; version?: string; archived?: string; parent?: string };
}

/** A store in one SQLite database (opencode): sessions, their messages and the messages' parts. */
export interface SqliteStore {
  kind: "sqlite";
  /** The database file under the root. */
  file: string;
  sessions: { table: string; columns: { id: string; cwd: string; title?: string; startedMs?: string; updatedMs?: string; version?: string; parent?: string; archived?: string } };
  /**
   * Messages (`json`: a column holding the rest of the message as JSON text) and their parts; the surface reads one
   * entry per message: `{info: {id, <sessionKey>, ...json}, parts: [{id, <sessionKey>, <messageKey>, ...json}]}`.
   */
  messages: { table: string; id: string; session: string; json: string; order: readonly string[] };
  parts: { table: string; id: string; message: string; session: string; json: string };
  entry: { sessionKey: string; messageKey: string };
  /** Turn count: messages whose JSON has this field value (a prompt). */
  turns?: { field: string; equals: string };
  /**
   * Child sessions (a subagent's: sessions whose `parent` column names this one, and theirs) are read with it: their
   * entries among the session's, in the messages' order (a child's messages come after the message that ran it). The
   * surface nests them under the calls that ran them.
   */
  children?: true;
}

export interface StoreSpec {
  agent: SessionAgent;
  /** The product, for messages and docs. */
  product: string;
  /** Versions whose stores were read (recorded and tested). */
  versions: readonly string[];
  /** The restored-history surface that reads a session's records. */
  surface: string;
  /** The live agents that continue a stored session by its provider id (connect({ agent, resume })), first preferred. */
  liveAgents: readonly LiveAgentName[];
  root: readonly RootRule[];
  store: FileStore | SqliteStore;
}

/** What Claude Code writes as a user line that is not the user's prompt (commands, their output, notes for the model). */
const CLAUDE_NOT_PROMPT = ["<command-name>", "<command-message>", "<local-command-", "Caveat:", "<system-reminder>", "[Request interrupted"];
/** What Gemini CLI records as a user message that is not a prompt (its own context; the model history leaves them out). */
const GEMINI_NOT_PROMPT = ["<session_context>", "<hook_context>", "/", "?"];
/** What Codex puts first in a thread as user input that is not the user's prompt. */
const CODEX_NOT_PROMPT = ["<environment_context>", "<user_instructions>", "# AGENTS.md", "<INSTRUCTIONS>", "<turn_aborted>"];

/** The store whose provider session ids a live agent resumes (undefined: none that agentnorm/sessions reads). */
export function storeOfLiveAgent(agent: string): SessionAgent | undefined {
  return SESSION_AGENTS.find((a) => STORES[a].liveAgents.includes(agent as LiveAgentName));
}

export const STORES: Readonly<Record<SessionAgent, StoreSpec>> = {
  codex: {
    agent: "codex",
    product: "Codex",
    versions: ["0.171.0"],
    surface: "codex-rollout",
    liveAgents: ["codex", "codex-acp"],
    root: [{ env: "CODEX_HOME" }, { home: ".codex" }],
    store: {
      kind: "files",
      files: [{ pattern: "sessions/*/*/*/rollout-*.jsonl" }, { pattern: "archived_sessions/rollout-*.jsonl", archived: true }],
      headBytes: 64 * 1024,
      id: {
        name: /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-fA-F-]{36})\.jsonl$/,
        head: [{ where: { type: "session_meta" }, path: "payload.id", prefix: true }],
      },
      cwd: { head: [{ where: { type: "session_meta" }, path: "payload.cwd", prefix: true }] },
      started: [{ where: { type: "session_meta" }, path: "payload.timestamp", prefix: true }],
      updated: [{ where: { timestamp: { exists: true } }, path: "timestamp" }],
      version: [{ where: { type: "session_meta" }, path: "payload.cli_version", prefix: true }],
      title: [
        { where: { type: "event_msg", "payload.type": "user_message" }, path: "payload.message", skipPrefixes: CODEX_NOT_PROMPT },
        { where: { type: "event_msg", "payload.type": "item_completed", "payload.item.type": "UserMessage" }, path: "payload.item.content", text: true, skipPrefixes: CODEX_NOT_PROMPT },
        { where: { type: "response_item", "payload.type": "message", "payload.role": "user" }, path: "payload.content", text: true, skipPrefixes: CODEX_NOT_PROMPT },
      ],
      // a thread a subagent runs (spawned by another thread) is its parent's, not a session of its own
      // (the core protocol's name, `subagent`; the app-server API's, `subAgent`)
      skip: [{ where: { type: "session_meta" }, path: "payload.source.subagent", prefix: true }, { where: { type: "session_meta" }, path: "payload.source.subAgent", prefix: true }],
      framing: { kind: "lines" },
      order: { kind: "file" },
      index: {
        file: "state_*.sqlite",
        table: "threads",
        columns: { id: "id", cwd: "cwd", title: ["title", "first_user_message"], startedMs: "created_at_ms", updatedMs: "updated_at_ms", version: "cli_version", archived: "archived", parent: "attached_thread_parent_id" },
      },
    },
  },
  claude: {
    agent: "claude",
    product: "Claude Code",
    versions: ["2.1.333"],
    surface: "claude-transcript",
    liveAgents: ["claude", "claude-sdk", "claude-code-acp", "claude-agent-acp"],
    root: [{ env: "CLAUDE_CONFIG_DIR" }, { home: ".claude" }],
    store: {
      kind: "files",
      files: [{ pattern: "projects/*/*.jsonl" }],
      headBytes: 16 * 1024,
      id: { name: /^([0-9a-fA-F-]{36})\.jsonl$/ },
      cwd: {
        head: [{ where: { cwd: { exists: true } }, path: "cwd" }],
        slug: { segment: 1, replace: /[^A-Za-z0-9]/g, with: "-", max: 200 },
      },
      started: [{ where: { timestamp: { exists: true } }, path: "timestamp" }],
      updated: [{ where: { timestamp: { exists: true } }, path: "timestamp" }],
      version: [{ where: { version: { exists: true } }, path: "version" }],
      title: [
        { where: { type: "custom-title" }, path: "customTitle" },
        { where: { type: "summary" }, path: "summary" },
        { where: { type: "user", isMeta: { exists: false }, isSidechain: { in: ["false"] } }, path: "message.content", text: true, skipPrefixes: CLAUDE_NOT_PROMPT },
      ],
      framing: { kind: "lines" },
      order: CLAUDE_TRANSCRIPT_ORDER,
      children: { dir: "{id}/subagents", file: "agent-*.jsonl" },
    },
  },
  opencode: {
    agent: "opencode",
    product: "opencode",
    versions: ["1.18.33"],
    surface: "opencode-history",
    liveAgents: ["opencode", "opencode-acp"],
    root: [{ env: "XDG_DATA_HOME", sub: "opencode" }, { home: ".local/share/opencode" }],
    store: {
      kind: "sqlite",
      file: "opencode.db",
      sessions: { table: "session", columns: { id: "id", cwd: "directory", title: "title", startedMs: "time_created", updatedMs: "time_updated", version: "version", parent: "parent_id", archived: "time_archived" } },
      messages: { table: "message", id: "id", session: "session_id", json: "data", order: ["time_created", "id"] },
      parts: { table: "part", id: "id", message: "message_id", session: "session_id", json: "data" },
      entry: { sessionKey: "sessionID", messageKey: "messageID" },
      turns: { field: "role", equals: "user" },
      children: true,
    },
  },
  gemini: {
    agent: "gemini",
    product: "Gemini CLI",
    versions: ["0.61.0"],
    surface: "gemini-chat",
    liveAgents: ["gemini"],
    root: [{ env: "GEMINI_CLI_HOME", sub: ".gemini" }, { home: ".gemini" }],
    store: {
      kind: "files",
      files: [{ pattern: "tmp/*/chats/session-*.jsonl" }],
      headBytes: 32 * 1024,
      id: { head: [{ where: { projectHash: { exists: true } }, path: "sessionId", prefix: true }] },
      cwd: { projectFile: { segment: 1, file: ".project_root" }, projectHash: { segment: 1 } },
      started: [{ where: { projectHash: { exists: true } }, path: "startTime", prefix: true }],
      updated: [{ where: { "$set.lastUpdated": { exists: true } }, path: "$set.lastUpdated" }, { where: { timestamp: { exists: true } }, path: "timestamp" }, { where: { lastUpdated: { exists: true } }, path: "lastUpdated" }],
      title: [
        { where: { type: "user" }, path: "content", text: true, skipPrefixes: GEMINI_NOT_PROMPT },
        { where: { "$set.summary": { exists: true } }, path: "$set.summary" },
      ],
      skipUntitled: true,
      framing: { kind: "record-log", header: ["sessionId", "projectHash"], key: "id", set: "$set", list: "messages", rewind: "$rewindTo" },
      order: { kind: "file" },
    },
  },
};
