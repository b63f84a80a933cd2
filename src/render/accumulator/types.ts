/**
 * The accumulator's public types: the snapshot (plain JSON: session → turns → steps → blocks), the change each apply()
 * reports, the options and the Accumulator interface. Documented in docs/accumulator.md.
 */
import type { CanonicalItemType, CanonicalRuntimeEventType, ProviderKind, ProviderRuntimeEventV2 } from "../../../generated/canonical.gen.js";

type CanonicalEvent = ProviderRuntimeEventV2;

// ───────────────────────────── the snapshot (plain JSON) ─────────────────────────────

export const ACCUMULATOR_SNAPSHOT_VERSION = 1;

export type BlockKind =
  | "text" | "thinking" | "tool" | "diff" | "terminal" | "plan" | "todo"
  | "permission" | "question" | "host_call" | "task" | "usage" | "mode" | "status";

/** Tool lifecycle as rendered: pending (known, not started), running, completed, failed, declined. */
export type ToolStatus = "pending" | "running" | "completed" | "failed" | "declined";

/** Fields every block has: identity and the events that built it (links blocks ↔ timeline). */
export interface BlockBase {
  /** Stable across deltas and snapshots: derived from the canonical ids (see docs/accumulator.md). */
  blockId: string;
  kind: BlockKind;
  /** `sequence` of every event that contributed to this block, in apply order. */
  sequences: number[];
  /** `eventId` of the same events, same order. */
  eventIds: string[];
}

export interface TextBlock extends BlockBase { kind: "text"; role: "assistant" | "user"; text: string; streaming: boolean }
export interface ThinkingBlock extends BlockBase { kind: "thinking"; text: string; summary: string; streaming: boolean }
export interface ToolBlock extends BlockBase {
  kind: "tool";
  itemType: CanonicalItemType;
  status: ToolStatus;
  title?: string;
  detail?: string;
  /** The canonical tool name (the item's `toolName`). */
  toolName?: string;
  /** The tool's input (the item's `input`). */
  input?: unknown;
  /** The tool's result (the item's `output`; a command's output goes to its terminal block instead). */
  result?: unknown;
  /** The tool's error message (the item's `error`). */
  error?: string;
  /** command_execution: the command, its working directory and exit code. */
  command?: string;
  cwd?: string;
  exitCode?: number;
  /** How long the tool ran, as the provider reports it. */
  durationMs?: number;
  /** mcp_tool_call: the MCP server. */
  server?: string;
  /** web_search: the query (or URL); image_view: the image's path or URL. */
  query?: string;
  path?: string;
  url?: string;
  /** Streamed output of kind `unknown` for this tool. */
  output: string;
  /** Ids (blockId) of this tool's open permission/question requests. */
  awaitingRequests: string[];
}
export interface TerminalBlock extends BlockBase {
  kind: "terminal";
  /** Streamed command output. */
  text: string;
  streaming: boolean;
  /** A terminal the client runs for the tool, referenced by id (ACP tool content `{type: "terminal", terminalId}`). */
  terminalId?: string;
}
/** One file of a file_change item (the item's `files`): `kind` is the change (add, update, delete, move). */
export interface DiffFile { path: string; kind?: string; movePath?: string; diff?: string }
export interface DiffBlock extends BlockBase {
  kind: "diff";
  /** "turn": the turn's cumulative diff (turn.diff.updated); "item": one file change. */
  scope: "turn" | "item";
  unifiedDiff?: string;
  files: DiffFile[];
  /** Streamed file_change_output. */
  output: string;
}
export interface PlanStep { step: string; status: string }
export interface PlanBlock extends BlockBase {
  /** "plan": the turn's plan (turn.plan.updated without item) or a plan item's text; "todo": a checklist tied to an item (turn.plan.updated carrying an itemId, e.g. a to-do list). */
  kind: "plan" | "todo";
  explanation?: string | null;
  steps: PlanStep[];
  /** Streamed plan_text. */
  text: string;
  updates: number;
}
/** A request: a permission (allow / reject), a question (answers) or a host call (the host runs something and
 *  returns the result), by the canonical request kind of its requestType. */
export interface RequestBlock extends BlockBase {
  kind: "permission" | "question" | "host_call";
  requestId?: string;
  requestType?: string;
  state: "open" | "resolved";
  detail?: string;
  args?: unknown;
  /** The choices a permission offers (canonical decisions, the provider's labels and option ids). */
  options?: { decision: string; label?: string; providerOptionId?: string }[];
  questions?: unknown;
  answers?: unknown;
  decision?: string;
  resolution?: unknown;
}
export interface TaskBlock extends BlockBase {
  kind: "task";
  taskId: string;
  status: "running" | "completed" | "failed" | "stopped";
  description?: string;
  taskType?: string;
  progress: string[];
  lastToolName?: string;
  summary?: string;
  usage?: unknown;
}
/** Canonical token counts (the `tokenUsage` of the usage events). */
export interface TokenUsage { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number; totalTokens?: number; contextWindow?: number }
/** A context-window reading (the `context` of the usage events): tokens in the context now, of the window's size. */
export interface ContextUsage { usedTokens: number; windowTokens?: number }
export interface UsageBlock extends BlockBase { kind: "usage"; usage: unknown; tokens?: TokenUsage; context?: ContextUsage; updates: number }
export interface ModeBlock extends BlockBase { kind: "mode"; mode?: string; model?: string; config: Record<string, unknown> }
export interface StatusBlock extends BlockBase {
  kind: "status";
  level: "info" | "warning" | "error";
  /** The canonical event type that produced it (session.state.changed, model.rerouted, runtime.error, …). */
  source: CanonicalRuntimeEventType;
  message: string;
  detail?: unknown;
}

export type Block =
  | TextBlock | ThinkingBlock | ToolBlock | TerminalBlock | DiffBlock | PlanBlock
  | RequestBlock | TaskBlock | UsageBlock | ModeBlock | StatusBlock;

/** One provider lifecycle unit: a canonical item, or a synthesized unit for turn-level records. */
export interface Step {
  stepId: string;
  /** The canonical item, when the step is one; absent for synthesized steps (turn plan, request, usage…). */
  itemId?: string;
  itemType?: CanonicalItemType;
  parentId?: string;
  providerItemId?: string;
  /** True when the step was created by a later event (delta, request, child) before its item.started. */
  implicit: boolean;
  /** True when its item completed as `superseded`: a later item replaced it (e.g. a response cut off and sent again
   *  whole), so a UI hides the step; its blocks are kept for inspection. */
  superseded?: boolean;
  /** True when its item goes on in the background (`background: true`): it may outlive its turn, and steps nested
   *  under it may arrive after the turn ended (they are rendered under it, in that turn). */
  background?: boolean;
  blocks: Block[];
  /** Steps nested under this one (parentId = this itemId), in order of first appearance. */
  children: Step[];
}

export interface Turn {
  turnId: string;
  threadId?: string;
  providerTurnId?: string;
  /** 1-based position in the session. */
  index: number;
  state: "running" | "completed" | "failed" | "interrupted" | "cancelled" | "aborted";
  implicit: boolean;
  model?: string;
  stopReason?: string | null;
  errorMessage?: string;
  abortReason?: string;
  usage?: unknown;
  /** Canonical token counts of the turn's last usage event or its completion. */
  tokens?: TokenUsage;
  totalCostUsd?: number;
  steps: Step[];
  /** `sequence` of the turn's own lifecycle events (turn.started / completed / aborted). */
  sequences: number[];
}

export interface Session {
  sessionId: string;
  provider: ProviderKind;
  threadIds: string[];
  state?: string;
  /** Shallow merge of every session.configured config. */
  config: Record<string, unknown>;
  /** Latest token usage seen for the session (thread.token-usage.updated). */
  usage?: unknown;
  /** Its canonical token counts, when the provider reports counts. */
  tokens?: TokenUsage;
  /** The latest context-window reading, when the provider reports one. */
  context?: ContextUsage;
  /** Session-level steps: records outside any turn (status, warnings, mode, usage before a turn…). */
  steps: Step[];
  turns: Turn[];
}

export type ProblemKind =
  | "duplicate-event"      // same eventId applied twice: ignored
  | "unknown-event-type"   // an event type this version does not know (a later version's): ignored, not rendered
  | "out-of-order"         // sequence not above the last one of its session: applied where it lands
  | "late-start"           // item.started after a delta/update/completion of the same item: merged in place
  | "completion-without-start" // item.completed for an item never seen: rendered as a completed step
  | "update-after-completion"  // delta/update for a completed item: applied to its block, status kept
  | "turn-without-start"   // an event names a turn never started: the turn is opened implicitly
  | "resolve-without-open" // request/user-input resolved without being opened: shown resolved
  | "task-without-start"   // task.progress/completed before task.started
  | "unknown-parent"       // parentId of an item never seen: an implicit parent step is created
  | "open-at-turn-end"     // a tool or text still running when its turn ended
  | "invalid-event"        // not an object with type/sequence/sessionId: ignored
  | "retired-event";       // (retainTurns) an event for a retired turn/item/request/task, or a late one at or below the retired sequences: ignored

export interface Problem { kind: ProblemKind; sequence?: number; eventId?: string; message: string }

export interface EventRef {
  sequence: number;
  eventId: string;
  type: string;
  sessionId: string;
  turnId?: string;
  stepId?: string;
  /** Blocks this event created or changed (empty for records kept only on session/turn fields). */
  blockIds: string[];
}

export interface AccumulatorSnapshot {
  version: typeof ACCUMULATOR_SNAPSHOT_VERSION;
  /** Events applied (duplicates and invalid ones excluded). */
  eventCount: number;
  lastSequence: number;
  sessions: Session[];
  problems: Problem[];
  /** Every applied event and where it went (omitted when created with { eventLog: false }). */
  events?: EventRef[];
  /** What retainTurns dropped so far (present only when the accumulator was created with `retainTurns`). */
  retired?: RetiredCounts;
}

/** Counts of what a bounded accumulator (`retainTurns`) dropped. `eventCount` still counts every applied event. */
export interface RetiredCounts {
  /** Ended turns dropped (blocks, steps and every index entry of theirs). */
  turns: number;
  /** Applied events whose state was dropped with their turn or their session-level records (also gone from `events`). */
  events: number;
  /** Session-level steps (records outside any turn) dropped with the turns they followed. */
  sessionSteps: number;
  /** Oldest `problems` entries dropped beyond `retainProblems`. */
  problems: number;
}

/** Sizes of the accumulator's internal structures (for tests and memory checks; all sessions summed). */
export interface AccumulatorStats {
  sessions: number;
  /** Turn objects held (retained + retired ones awaiting compaction). */
  turns: number;
  /** Entries of the id → turn / step / block / request→tool / sequence → eventId maps. */
  turnIndex: number;
  stepIndex: number;
  blockIndex: number;
  requestTool: number;
  seqIds: number;
  /** Session-level steps held. */
  sessionSteps: number;
  /** Ids of recently retired turns remembered to recognise late events (retainTurns only). */
  tombstones: number;
  threadIds: number;
  /** Entries of the event log (0 with { eventLog: false }). */
  eventLog: number;
  problems: number;
}

/** What one apply() changed; passed to subscribers. */
export interface AccumulatorChange {
  sequence: number;
  eventId: string;
  type: string;
  sessionId: string;
  turnId?: string;
  stepId?: string;
  /** Blocks this event created or built on (the same list as the event's `EventRef.blockIds`). */
  blockIds: string[];
  /**
   * Every block whose value this event changed: `blockIds` plus blocks changed as a side effect (a stream closed
   * when its item or turn ended, a tool's `awaitingRequests` when a request opened or resolved). Redraw these.
   */
  changedBlockIds: string[];
  problems: Problem[];
}

export interface AccumulatorOptions {
  /** Keep an EventRef per applied event in the snapshot (default true). */
  eventLog?: boolean;
  /**
   * Bound memory for a long-lived host: keep only the N most recently ended (completed/failed/interrupted/
   * cancelled/aborted) turns of each session; older ended turns are retired with their blocks, steps, index
   * entries and event-log entries, and session-level records are retired with the turn they followed. Running
   * turns are never retired. Default: unlimited (every turn kept, as a viewer wants). See docs/accumulator.md.
   */
  retainTurns?: number;
  /** Keep only the N most recent `problems` (default: unlimited; 1000 when `retainTurns` is set). */
  retainProblems?: number;
}

export interface Accumulator {
  /** Apply one canonical event. Never throws on event data; returns what changed. */
  apply(event: CanonicalEvent | unknown): AccumulatorChange | undefined;
  /** Apply many, in the order given. */
  applyAll(events: Iterable<CanonicalEvent | unknown>): void;
  /** The current state as fresh plain JSON (safe to JSON.stringify, structuredClone or postMessage). */
  snapshot(): AccumulatorSnapshot;
  /**
   * One block as plain JSON, or undefined (unknown or retired). The object is kept until the block changes, so
   * reading it costs O(1) when unchanged and O(the block) once after a change; an unchanged block keeps its
   * reference (compare with `===`). Treat it as read-only. `sessionId` is needed only when several sessions share ids.
   */
  getBlock(blockId: string, sessionId?: string): Block | undefined;
  /** One step (stepId: an itemId or a synthesized step id) with its blocks and children; same reference rules as getBlock. */
  getStep(stepId: string, sessionId?: string): Step | undefined;
  /** One turn with its steps; a new object only when something in the turn changed. */
  getTurn(turnId: string, sessionId?: string): Turn | undefined;
  /** One session (default: the first one applied); a new object after each applied event of that session, sharing every unchanged turn, step and block. */
  getSession(sessionId?: string): Session | undefined;
  /** Every session; the same array until the next applied event (a `useSyncExternalStore` snapshot). */
  getSessions(): readonly Session[];
  /** Called after every apply() that was not ignored (the change object is shared: read it, don't mutate it). Returns an unsubscribe function. */
  subscribe(listener: (change: AccumulatorChange) => void): () => void;
  /** Sizes of the internal maps and lists (O(sessions); for tests and memory checks). */
  stats(): AccumulatorStats;
}

