/**
 * The render accumulator: canonical events in, render groups out (session → turns → steps → blocks).
 *
 * Pure TypeScript, no Node APIs: it runs unchanged in a browser or a webview. It follows these
 * rules: events are grouped by identity (session, turn, item, request, task), never by
 * merge guesses; a delta appends only to its own block; a snapshot (item.updated / item.completed, a plan or
 * diff update) changes only its own block, in place, so a tool card never moves below later text; tools
 * render from lifecycle state; requests are open or resolved; nested activity (parentId) hangs under its
 * parent step. Events that arrive out of order or without their opener are repaired deterministically and
 * listed in `snapshot().problems` — apply() never throws on event data.
 *
 * Cost: apply() is O(1) amortised per event (text deltas are pushed onto chunk arrays; strings are joined
 * only in snapshot()). snapshot() is O(size of the state) and returns fresh plain JSON.
 *
 * The dispatch is a table keyed by canonical event type (our own model, not a provider's): HANDLERS below.
 * The snapshot shape is documented in docs/accumulator.md.
 */
import { REQUEST_KIND, type CanonicalItemType, type CanonicalRequestType, type CanonicalRuntimeEventType, type ProviderKind, type ProviderRuntimeEventV2 } from "../../generated/canonical.gen.js";

import { InvalidOptionError } from "../errors.js";

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

// ───────────────────────────── internal (mutable) state ─────────────────────────────

// (classes with every field set in the constructor: one shape each, so the handlers' reads stay fast)

class BlockState {
  readonly blockId: string;
  kind: BlockKind;
  /** Made with the event that created the block. */
  readonly sequences: number[];
  readonly eventIds: string[];
  /** Chunk arrays, joined lazily. */
  readonly chunks: Record<string, string[]>;
  fields: Record<string, unknown>;
  /** The step holding it. */
  readonly step: StepState;
  /** The read view (getBlock), built on demand and dropped when the block changes. */
  view: Block | undefined = undefined;

  constructor(blockId: string, kind: BlockKind, sequence: number, eventId: string, chunks: Record<string, string[]>, fields: Record<string, unknown>, step: StepState) {
    this.blockId = blockId;
    this.kind = kind;
    this.sequences = [sequence];
    this.eventIds = [eventId];
    this.chunks = chunks;
    this.fields = fields;
    this.step = step;
  }
}

class StepState {
  readonly stepId: string;
  itemId: string | undefined = undefined;
  itemType: CanonicalItemType | undefined = undefined;
  parentId: string | undefined = undefined;
  providerItemId: string | undefined = undefined;
  implicit: boolean;
  started = false;
  completed = false;
  superseded: boolean | undefined = undefined;
  background: boolean | undefined = undefined;
  /** (NO_BLOCKS until the first: most steps have one or two) */
  blocks: BlockState[] = NO_BLOCKS;
  /** The item's own blocks by suffix (text, tool, terminal…). */
  readonly own: Record<ItemSuffix, BlockState | undefined> = { text: undefined, thinking: undefined, plan: undefined, tool: undefined, terminal: undefined, diff: undefined };
  /** Steps nested under this one, in order of first appearance. */
  readonly children: StepState[] = [];
  /** The step this one is nested under (parentId), if any. */
  parent: StepState | undefined = undefined;
  /** The read view (getStep), dropped when the step or anything in it changes. */
  view: Step | undefined = undefined;
  turn: TurnState | undefined;
  readonly session: SessionState;
  /** A session-level step: the session's turn count when it was created (retainTurns retires it with that turn). */
  era: number | undefined = undefined;

  constructor(stepId: string, implicit: boolean, turn: TurnState | undefined, session: SessionState) {
    this.stepId = stepId;
    this.implicit = implicit;
    this.turn = turn;
    this.session = session;
  }
}

/** The applied events one unit of retirement owns (a turn, or a session's records of one era); retainTurns only. */
interface Bucket {
  retired: boolean;
  /** Sequences of the events attributed to it (their seqIds entries are deleted on retirement). */
  seqs: number[];
}
interface EraBucket extends Bucket { era: number }

interface TurnState {
  turnId: string;
  threadId?: string;
  providerTurnId?: string;
  index: number;
  state: Turn["state"];
  implicit: boolean;
  fields: Record<string, unknown>;
  steps: StepState[];
  sequences: number[];
  /** Pushed on the session's ended-turn queue (retainTurns). */
  ended: boolean;
  retired: boolean;
  seqs: number[];
  /** The read view (getTurn), dropped when the turn or anything in it changes. */
  view?: Turn;
}

interface SessionState {
  sessionId: string;
  provider: ProviderKind;
  threadIds: string[];
  /** threadId → the session's turn count when last seen (retainTurns prunes threads not seen since a retired turn). */
  threadSet: Map<string, number>;
  /** The thread last seen, when its threadSet entry is the current turn count (the next event of it needs no lookup). */
  threadSeen: string | undefined;
  threadPruneAt: number;
  state?: string;
  config: Record<string, unknown>;
  usage?: unknown;
  tokens?: TokenUsage;
  context?: ContextUsage;
  steps: StepState[];
  turns: TurnState[];
  turnIndex: Map<string, TurnState>;
  /** Steps by itemId or synthesized step id. */
  stepIndex: Map<string, StepState>;
  /** Blocks by blockId (each knows its step). */
  blockIndex: Map<string, BlockState>;
  /** Request blockId → the tool blockId it waits on. */
  requestTool: Map<string, string>;
  /** sequence → eventId of every applied event (duplicate detection). */
  seqIds: SeqLog | Map<number, string>;
  openTurn?: TurnState;
  lastSequence: number;
  /** Turns started so far (turn.index of the next one - 1); session-level records carry it as their era. */
  turnCount: number;
  // ── retainTurns bookkeeping (unused otherwise) ──
  /** Retired turns still in `turns` (compacted lazily). */
  retiredInTurns: number;
  /** Ended turns in end order; [endedHead..] are retained. */
  endedTurns: TurnState[];
  endedHead: number;
  /** session.steps[stepsHead..] are retained. */
  stepsHead: number;
  eras: EraBucket[];
  erasHead: number;
  /** Session-level records of an era below this are retired (the index of the newest retired turn + 1). */
  horizon: number;
  /** Ids (turn, steps, blocks) of the most recently retired turns, per turn, oldest first; [tombsHead..] are live. */
  tombs: string[][];
  tombsHead: number;
  tomb: Set<string>;
  /** Highest sequence among retired events. */
  retiredMaxSeq: number;
  /** The read view (getSession), dropped on every applied event of the session. */
  view?: Session;
}

/**
 * One apply()'s working state. The event's envelope fields are read once, here: events come in many shapes (which
 * optional ids they carry), so reading them off the event at every use is slow; a Ctx always has the same shape.
 * What the event changed is gathered here too, and becomes its AccumulatorChange once the handler ran.
 */
class Ctx {
  readonly e: CanonicalEvent;
  readonly p: any;
  readonly session: SessionState;
  readonly type: string;
  readonly sequence: number;
  readonly eventId: string;
  readonly turnId: string | undefined;
  itemId: string | undefined;
  parentId: string | undefined;
  readonly requestId: string | undefined;
  /** The change's blockIds, stepId, turnId and problems (see AccumulatorChange). */
  blockIds: string[] = NO_IDS;
  outStepId: string | undefined = undefined;
  outTurnId: string | undefined = undefined;
  problems: Problem[] = NO_PROBLEMS;
  /** Blocks this event changed as a side effect (not in blockIds): a closed stream, a tool's awaitingRequests. */
  extra: BlockState[] | undefined = undefined;

  constructor(e: CanonicalEvent, type: string, sequence: number, session: SessionState) {
    this.e = e;
    this.type = type;
    this.sequence = sequence;
    this.session = session;
    this.eventId = e.eventId;
    this.turnId = e.turnId;
    this.itemId = e.itemId;
    this.parentId = e.parentId;
    this.requestId = e.requestId;
    this.p = (e.payload ?? {}) as any;
  }
}

/**
 * sequence → eventId of every applied event of a session, for duplicate detection (an unbounded accumulator's; a
 * bounded one deletes entries and uses a Map). Same answers as a Map: sequences above the last one (the usual case)
 * are appended to two ascending arrays; any other goes to a Map, which shadows an equal one in the arrays. Only an
 * event at or below its session's last sequence (a duplicate or out of order) makes a lookup: a binary search.
 */
class SeqLog {
  private readonly seqs: number[] = [];
  private readonly ids: string[] = [];
  private late: Map<number, string> | undefined = undefined;
  /** Entries of `seqs` shadowed by `late`. */
  private shadowed = 0;

  get size(): number {
    return this.seqs.length - this.shadowed + (this.late === undefined ? 0 : this.late.size);
  }

  get(seq: number): string | undefined {
    const late = this.late;
    if (late !== undefined && late.has(seq)) return late.get(seq);
    const i = this.indexOf(seq);
    return i < 0 ? undefined : this.ids[i];
  }

  set(seq: number, id: string): void {
    const n = this.seqs.length;
    // (NaN is never appended: the arrays stay ascending)
    if (n === 0 ? seq === seq : seq > this.seqs[n - 1]) {
      this.seqs.push(seq);
      this.ids.push(id);
      return;
    }
    const late = (this.late ??= new Map());
    if (!late.has(seq) && this.indexOf(seq) >= 0) this.shadowed++;
    late.set(seq, id);
  }

  private indexOf(seq: number): number {
    const a = this.seqs;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = a[mid];
      if (v === seq) return mid;
      if (v < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** The tombstones of an unbounded accumulator's sessions (it retires nothing): always empty. */
const NO_TOMBS: Set<string> = new Set();

/** The state shared by the handlers. */
class State {
  sessions: SessionState[] = [];
  sessionIndex = new Map<string, SessionState>();
  /** The session of the last event (the next one is usually of the same). */
  lastSession: SessionState | undefined = undefined;
  problems: Problem[] = [];
  events: AccumulatorChange[] = [];
  eventCount = 0;
  lastSequence = 0;
  /** retainTurns (undefined: unlimited) and what it dropped. */
  retain: number | undefined;
  retainProblems: number | undefined;
  retired: RetiredCounts = { turns: 0, events: 0, sessionSteps: 0, problems: 0 };
  /** The bucket of each event-log entry (retainTurns with the event log only). */
  eventOwners: Bucket[] = [];
  logCompactAt = 4096;
  /** The read view of all sessions (getSessions), dropped on every applied event. */
  sessionsView: readonly Session[] | undefined;

  constructor(retain?: number, retainProblems?: number) {
    this.retain = retain;
    this.retainProblems = retainProblems;
  }

  session(e: CanonicalEvent, sessionId: string): SessionState {
    let s = this.lastSession;
    if (s === undefined || s.sessionId !== sessionId) {
      s = this.sessionIndex.get(sessionId);
      if (!s) {
        const bounded = this.retain !== undefined;
        s = {
          sessionId, provider: e.provider, threadIds: [], threadSet: new Map(), threadSeen: undefined, threadPruneAt: 64, state: undefined, config: {}, usage: undefined, tokens: undefined, steps: [], turns: [],
          turnIndex: new Map(), stepIndex: new Map(), blockIndex: new Map(), requestTool: new Map(), seqIds: bounded ? new Map() : new SeqLog(), openTurn: undefined, lastSequence: 0, turnCount: 0,
          retiredInTurns: 0, endedTurns: [], endedHead: 0, stepsHead: 0, eras: [], erasHead: 0, horizon: 0, tombs: [], tombsHead: 0, tomb: bounded ? new Set() : NO_TOMBS, retiredMaxSeq: 0, view: undefined,
        };
        this.sessionIndex.set(sessionId, s);
        this.sessions.push(s);
      }
      this.lastSession = s;
    }
    const threadId = e.threadId;
    if (threadId && threadId !== s.threadSeen) {
      const era = s.threadSet.get(threadId);
      if (era === undefined) s.threadIds.push(threadId);
      if (era !== s.turnCount) s.threadSet.set(threadId, s.turnCount);
      s.threadSeen = threadId;
    }
    return s;
  }

  problem(c: Ctx | undefined, kind: ProblemKind, message: string) {
    const p: Problem = c ? { kind, sequence: c.sequence, eventId: c.eventId, message } : { kind, message };
    this.problems.push(p);
    const cap = this.retainProblems;
    if (cap !== undefined && this.problems.length > 2 * cap + 16) {
      const drop = this.problems.length - cap;
      this.problems = this.problems.slice(drop);
      this.retired.problems += drop;
    }
    if (c) {
      if (c.problems === NO_PROBLEMS) c.problems = [];
      c.problems.push(p);
    }
  }

  /** The turn an event belongs to: its turnId; else its item's turn; else the session's open turn; else none. */
  turnOf(c: Ctx, create = true): TurnState | undefined {
    const { session, turnId } = c;
    if (turnId) {
      let t = session.turnIndex.get(turnId);
      if (!t && create) {
        t = this.newTurn(session, turnId, c.e, true);
        this.problem(c, "turn-without-start", `${c.type} names turn ${turnId}, which never started: opened implicitly`);
      }
      return t;
    }
    if (c.itemId) {
      const st = session.stepIndex.get(c.itemId);
      if (st) return st.turn;
    }
    return session.openTurn;
  }

  newTurn(session: SessionState, turnId: string, e: CanonicalEvent, implicit: boolean): TurnState {
    const t: TurnState = { turnId, threadId: e.threadId, providerTurnId: e.providerRefs?.providerTurnId, index: ++session.turnCount, state: "running", implicit, fields: {}, steps: [], sequences: [], ended: false, retired: false, seqs: [], view: undefined };
    session.threadSeen = undefined; // its threadSet entry names the previous turn count
    session.turns.push(t);
    session.view = undefined;
    session.turnIndex.set(turnId, t);
    session.openTurn = t;
    return t;
  }

  /** The step of the event's item (created implicitly when unknown), or a synthesized step. */
  itemStep(c: Ctx, itemType?: CanonicalItemType): StepState {
    const { e, session } = c;
    const key = c.itemId!;
    let st = session.stepIndex.get(key);
    if (!st) {
      st = this.newStep(c, key, key, true);
      st.itemId = key;
    }
    if (itemType && (!st.itemType || st.itemType === "unknown")) st.itemType = itemType;
    if (!st.providerItemId && e.providerRefs?.providerItemId) st.providerItemId = e.providerRefs.providerItemId;
    return st;
  }

  /** A synthesized step (turn plan, a request without item, usage…), keyed by stepId within the session. */
  syntheticStep(c: Ctx, stepId: string, attachToTurn = true): StepState {
    return c.session.stepIndex.get(stepId) ?? this.newStep(c, stepId, stepId, false, attachToTurn);
  }

  private newStep(c: Ctx, stepId: string, key: string, implicit: boolean, attachToTurn = true): StepState {
    const { session } = c;
    const turn = attachToTurn ? this.turnOf(c) : undefined;
    const st = new StepState(stepId, implicit, turn, session);
    const parentItem = c.itemId === stepId ? c.parentId : undefined;
    if (parentItem && parentItem !== stepId) {
      st.parentId = parentItem;
      const pkey = parentItem;
      let parent = session.stepIndex.get(pkey);
      if (!parent) {
        this.problem(c, "unknown-parent", `${c.type} of item ${stepId} names parent ${parentItem}, never seen: an implicit parent step is created`);
        parent = new StepState(parentItem, true, turn, session);
        parent.itemId = parentItem;
        session.stepIndex.set(pkey, parent);
        if (turn) turn.steps.push(parent);
        else { parent.era = session.turnCount; session.steps.push(parent); }
      }
      parent.children.push(st);
      st.parent = parent;
      if (!st.turn) st.turn = parent.turn;
    } else if (turn) turn.steps.push(st);
    else { st.era = session.turnCount; session.steps.push(st); }
    invalidateStep(st);
    session.stepIndex.set(key, st);
    return st;
  }

  /** The block `blockId` in `step` (created with `init(c, step)` fields when new); records the event on it. */
  block(c: Ctx, step: StepState, blockId: string, kind: BlockKind, init: (c: Ctx, step: StepState) => Record<string, unknown>, chunks: () => Record<string, string[]> = noChunks): BlockState {
    const b = c.session.blockIndex.get(blockId);
    if (b) { touch(c, b); return b; }
    return newBlock(c, step, blockId, kind, init(c, step), chunks());
  }

  findBlock(session: SessionState, blockId: string): BlockState | undefined {
    return session.blockIndex.get(blockId);
  }

  // ── retainTurns: retirement (every structure shrinks; each entry is removed once, so apply stays O(1) amortised) ──

  /** The bucket of the session's records in the current era. */
  era(session: SessionState): EraBucket {
    const last = session.eras.length > session.erasHead ? session.eras[session.eras.length - 1] : undefined;
    if (last && last.era === session.turnCount) return last;
    const b: EraBucket = { era: session.turnCount, retired: false, seqs: [] };
    session.eras.push(b);
    return b;
  }

  /** Why an event is for retired state (to be ignored), or undefined. */
  lateForRetired(c: Ctx): string | undefined {
    const { session, turnId, itemId, parentId, requestId, sequence } = c;
    const tomb = session.tomb;
    if (tomb.size) {
      if (turnId !== undefined && tomb.has(turnId)) return `turn ${turnId}`;
      if (itemId !== undefined && tomb.has(itemId)) return `item ${itemId}`;
      if (parentId !== undefined && tomb.has(parentId)) return `parent item ${parentId}`;
      if (requestId !== undefined && tomb.has(requestId + ":request")) return `request ${requestId}`;
      const taskId = c.p?.taskId;
      if (taskId !== undefined && tomb.has(`${taskId}:task`)) return `task ${taskId}`;
    }
    // Out of order and at or below what was retired, not naming a retained turn: its state may be gone.
    if (sequence <= session.lastSequence && sequence <= session.retiredMaxSeq && !(turnId !== undefined && session.turnIndex.has(turnId))) {
      return `sequence #${sequence}, at or below the retired events (up to #${session.retiredMaxSeq})`;
    }
    return undefined;
  }

  /** Retire the session's ended turns beyond the `retain` most recent, and what goes with them. */
  retire(session: SessionState, keepLog: boolean) {
    const retain = this.retain!;
    let any = false;
    while (session.endedTurns.length - session.endedHead > retain) {
      this.retireTurn(session, session.endedTurns[session.endedHead++]);
      any = true;
    }
    if (!any) return;
    session.view = undefined;
    if (session.endedHead > 64 && session.endedHead * 2 > session.endedTurns.length) {
      session.endedTurns = session.endedTurns.slice(session.endedHead);
      session.endedHead = 0;
    }
    if (session.retiredInTurns > 16 && session.retiredInTurns * 2 > session.turns.length) {
      session.turns = session.turns.filter((t) => !t.retired);
      session.retiredInTurns = 0;
    }
    // Session-level records go with the turn they followed (era < horizon).
    const steps = session.steps;
    while (session.stepsHead < steps.length && steps[session.stepsHead].era! < session.horizon) {
      this.retireStep(session, steps[session.stepsHead++], undefined);
      this.retired.sessionSteps++;
    }
    if (session.stepsHead > 64 && session.stepsHead * 2 > steps.length) {
      session.steps = steps.slice(session.stepsHead);
      session.stepsHead = 0;
    }
    const eras = session.eras;
    while (session.erasHead < eras.length && eras[session.erasHead].era < session.horizon) this.retireBucket(session, eras[session.erasHead++]);
    if (session.erasHead > 64 && session.erasHead * 2 > eras.length) {
      session.eras = eras.slice(session.erasHead);
      session.erasHead = 0;
    }
    // Threads not seen since before the horizon (pruned when the map doubled: amortised O(1)).
    if (session.threadSet.size >= session.threadPruneAt) {
      for (const [id, era] of session.threadSet) if (era < session.horizon) session.threadSet.delete(id);
      session.threadSeen = undefined;
      session.threadIds = session.threadIds.filter((id) => session.threadSet.has(id));
      session.threadPruneAt = Math.max(64, 2 * session.threadSet.size);
    }
    // The event log: drop the entries of retired buckets (when it doubled since the last pass).
    if (keepLog && this.events.length >= this.logCompactAt) {
      const events: AccumulatorChange[] = [];
      const owners: Bucket[] = [];
      for (let i = 0; i < this.events.length; i++) {
        if (!this.eventOwners[i].retired) { events.push(this.events[i]); owners.push(this.eventOwners[i]); }
      }
      this.events = events;
      this.eventOwners = owners;
      this.logCompactAt = Math.max(4096, 2 * events.length);
    }
  }

  private retireTurn(session: SessionState, t: TurnState) {
    t.retired = true;
    session.retiredInTurns++;
    this.retired.turns++;
    if (session.turnIndex.get(t.turnId) === t) session.turnIndex.delete(t.turnId);
    if (session.openTurn === t) session.openTurn = undefined;
    const ids: string[] = [t.turnId];
    for (const st of t.steps) this.retireStep(session, st, ids);
    t.steps = [];
    this.retireBucket(session, t);
    if (t.index + 1 > session.horizon) session.horizon = t.index + 1;
    // Remember the ids of the most recently retired turns (at least 8) so late events for them are recognised.
    session.tombs.push(ids);
    for (const id of ids) session.tomb.add(id);
    const window = Math.max(this.retain!, 8);
    while (session.tombs.length - session.tombsHead > window) {
      for (const id of session.tombs[session.tombsHead]) session.tomb.delete(id);
      session.tombsHead++;
    }
    if (session.tombsHead > 64 && session.tombsHead * 2 > session.tombs.length) {
      session.tombs = session.tombs.slice(session.tombsHead);
      session.tombsHead = 0;
    }
  }

  /** Drop a step, its children and their blocks from every index. */
  private retireStep(session: SessionState, st: StepState, ids: string[] | undefined) {
    if (session.stepIndex.get(st.stepId) === st) session.stepIndex.delete(st.stepId);
    ids?.push(st.stepId);
    for (const b of st.blocks) {
      if (session.blockIndex.get(b.blockId) === b) session.blockIndex.delete(b.blockId);
      session.requestTool.delete(b.blockId);
      ids?.push(b.blockId);
    }
    for (const child of st.children) this.retireStep(session, child, ids);
  }

  private retireBucket(session: SessionState, b: Bucket) {
    for (const seq of b.seqs) {
      (session.seqIds as Map<number, string>).delete(seq); // a bounded accumulator's sessions index sequences in a Map
      if (seq > session.retiredMaxSeq) session.retiredMaxSeq = seq;
    }
    this.retired.events += b.seqs.length;
    b.seqs = [];
    b.retired = true;
  }
}

/** A new block in `step`, made by the event of `c` (what touch() records for it, without the lookups). */
function newBlock(c: Ctx, step: StepState, blockId: string, kind: BlockKind, fields: Record<string, unknown>, chunks: Record<string, string[]>): BlockState {
  const block = new BlockState(blockId, kind, c.sequence, c.eventId, chunks, fields, step);
  c.session.blockIndex.set(blockId, block);
  if (step.blocks === NO_BLOCKS) step.blocks = [block];
  else step.blocks.push(block);
  if (step.view !== undefined) invalidateStep(step);
  if (c.blockIds === NO_IDS) c.blockIds = [blockId];
  else if (!c.blockIds.includes(blockId)) c.blockIds.push(blockId);
  return block;
}

function touch(c: Ctx, b: BlockState) {
  if (b.view !== undefined || b.step.view !== undefined) invalidateBlock(b);
  const last = b.sequences.length - 1;
  if (last >= 0 && b.eventIds[last] === c.eventId) return;
  b.sequences.push(c.sequence);
  b.eventIds.push(c.eventId);
  if (c.blockIds === NO_IDS) c.blockIds = [b.blockId];
  else if (!c.blockIds.includes(b.blockId)) c.blockIds.push(b.blockId);
}

/** A block changed by an event as a side effect (it is not one the event built): listed in changedBlockIds. */
function sideChange(c: Ctx, b: BlockState) {
  invalidateBlock(b);
  (c.extra ??= []).push(b);
}

// ── read views: built on demand, kept until what they show changes (stable references for unchanged parts) ──
// Invariant: a built view's parts are built views, so a part without a view has ancestors without one either;
// invalidation walks up only until it meets one (O(1) amortised per change).

function invalidateBlock(b: BlockState) {
  b.view = undefined;
  invalidateStep(b.step);
}

function invalidateStep(st: StepState) {
  for (;;) {
    st.view = undefined;
    const up = st.parent;
    if (!up) break;
    if (up.view === undefined) return;
    st = up;
  }
  if (st.turn && !st.parent) { st.turn.view = undefined; }
  st.session.view = undefined;
}

/** A chunk array's text; the array is compacted to that one string (so the next read joins only what came since). */
function joined(chunks: string[]): string {
  if (chunks.length === 1) return chunks[0];
  if (chunks.length === 0) return "";
  const s = chunks[0] + (chunks.length === 2 ? chunks[1] : chunks.slice(1).join(""));
  chunks.length = 1;
  chunks[0] = s;
  return s;
}

/** An append-only array as it is now, copied only when read (a streaming block's event list is not copied per delta). */
function frozenPrefix<T>(out: object, key: string, arr: T[]) {
  const n = arr.length;
  let copy: T[] | undefined;
  Object.defineProperty(out, key, { enumerable: true, configurable: true, get: () => (copy ??= arr.slice(0, n)) });
}

/** Up to this many events a view's `sequences` / `eventIds` are copied when it is built (cheaper than defining a
 *  getter); a longer list (a streaming block's) is copied only when read, so a view costs O(1) however long it is. */
const COPY_AT_ONCE = 32;

function blockView(b: BlockState): Block {
  if (b.view) return b.view;
  const out: any = { blockId: b.blockId, kind: b.kind };
  for (const k in b.fields) { const v = b.fields[k]; if (v !== undefined) out[k] = Array.isArray(v) ? v.slice() : v; }
  for (const k in b.chunks) out[k] = joined(b.chunks[k]);
  if (b.sequences.length <= COPY_AT_ONCE) {
    out.sequences = b.sequences.slice();
    out.eventIds = b.eventIds.slice();
  } else {
    frozenPrefix(out, "sequences", b.sequences);
    frozenPrefix(out, "eventIds", b.eventIds);
  }
  return (b.view = out as Block);
}

/** A step as plain JSON, its blocks and child steps made by `block` / `step` (the read views or fresh copies). */
function stepOf(st: StepState, block: (b: BlockState) => Block, step: (x: StepState) => Step): Step {
  const out: Step = { stepId: st.stepId, implicit: st.implicit, blocks: st.blocks.map(block), children: st.children.map(step) };
  if (st.itemId !== undefined) out.itemId = st.itemId;
  if (st.itemType !== undefined) out.itemType = st.itemType;
  if (st.parentId !== undefined) out.parentId = st.parentId;
  if (st.providerItemId !== undefined) out.providerItemId = st.providerItemId;
  if (st.superseded) out.superseded = true;
  if (st.background) out.background = true;
  return out;
}

/** A turn as plain JSON, its steps made by `step`. */
function turnOf(t: TurnState, step: (x: StepState) => Step): Turn {
  const out: Turn = { turnId: t.turnId, index: t.index, state: t.state, implicit: t.implicit, steps: t.steps.map(step), sequences: t.sequences.slice() };
  if (t.threadId !== undefined) out.threadId = t.threadId;
  if (t.providerTurnId !== undefined) out.providerTurnId = t.providerTurnId;
  for (const [k, v] of Object.entries(t.fields)) if (v !== undefined) (out as any)[k] = v;
  return out;
}

function stepView(st: StepState): Step {
  return st.view ?? (st.view = stepOf(st, blockView, stepView));
}

function turnView(t: TurnState): Turn {
  return t.view ?? (t.view = turnOf(t, stepView));
}

/** A session as plain JSON, its live steps and turns made by `step` / `turn` (the read views or fresh copies). */
function sessionOf(s: SessionState, step: (x: StepState) => Step, turn: (x: TurnState) => Turn): Session {
  const steps = s.stepsHead ? s.steps.slice(s.stepsHead) : s.steps;
  const turns = s.retiredInTurns ? s.turns.filter((t) => !t.retired) : s.turns;
  const out: Session = { sessionId: s.sessionId, provider: s.provider, threadIds: s.threadIds.slice(), config: { ...s.config }, steps: steps.map(step), turns: turns.map(turn) };
  if (s.state !== undefined) out.state = s.state;
  if (s.usage !== undefined) out.usage = s.usage;
  if (s.tokens !== undefined) out.tokens = s.tokens;
  if (s.context !== undefined) out.context = s.context;
  return out;
}

function sessionView(s: SessionState): Session {
  if (s.view) return s.view;
  return (s.view = sessionOf(s, stepView, turnView));
}

// ───────────────────────────── item → blocks ─────────────────────────────

const NON_TOOL_ITEMS: ReadonlySet<string> = new Set(["assistant_message", "user_message", "reasoning", "plan"]);

/** A block's chunk arrays (streamed text, joined when read), by name. */
function noChunks(): Record<string, string[]> { return {}; }
function textChunk(): Record<string, string[]> { return { text: [] }; }
function outputChunk(): Record<string, string[]> { return { output: [] }; }

/** The blocks an item can have, by blockId suffix (`<itemId>:<suffix>`). */
type ItemSuffix = "text" | "thinking" | "plan" | "tool" | "terminal" | "diff";
const ITEM_BLOCKS: Record<ItemSuffix, { kind: BlockKind; chunks: () => Record<string, string[]>; init: (c: Ctx, st: StepState) => Record<string, unknown> }> = {
  text: { kind: "text", chunks: textChunk, init: (_c, st) => ({ role: st.itemType === "user_message" ? "user" : "assistant", streaming: true }) },
  thinking: { kind: "thinking", chunks: () => ({ text: [], summary: [] }), init: () => ({ streaming: true }) },
  plan: { kind: "plan", chunks: textChunk, init: () => ({ steps: [], updates: 0 }) },
  tool: { kind: "tool", chunks: outputChunk, init: (_c, st) => ({ itemType: st.itemType ?? "unknown", status: "pending", awaitingRequests: [] }) },
  terminal: { kind: "terminal", chunks: textChunk, init: () => ({ streaming: true }) },
  diff: { kind: "diff", chunks: outputChunk, init: () => ({ scope: "item", files: [] }) },
};

/** An item's block by suffix, created on first use; records the event on it (the fast path allocates nothing). */
function itemBlock(S: State, c: Ctx, step: StepState, suffix: ItemSuffix): BlockState {
  const b = step.own[suffix];
  if (b) { touch(c, b); return b; }
  const spec = ITEM_BLOCKS[suffix];
  const created = S.block(c, step, step.stepId + ":" + suffix, spec.kind, spec.init, spec.chunks);
  step.own[suffix] = created;
  if (suffix === "tool") {
    // Requests that arrived before the tool card: link the open ones to it.
    for (const r of step.blocks) {
      if ((r.kind === "permission" || r.kind === "question" || r.kind === "host_call") && r.fields.state === "open") {
        (created.fields.awaitingRequests as string[]).push(r.blockId);
        c.session.requestTool.set(r.blockId, created.blockId);
      }
    }
  }
  return created;
}

const PRIMARY_SUFFIX: Record<string, ItemSuffix> = { assistant_message: "text", user_message: "text", reasoning: "thinking", plan: "plan" };

/** The primary block of an item: text, thinking, plan text, or a tool card. */
function primaryBlock(S: State, c: Ctx, step: StepState): BlockState {
  return itemBlock(S, c, step, PRIMARY_SUFFIX[step.itemType ?? "unknown"] ?? "tool");
}

/** Output streamed before its tool started still gets its card (pending), placed first; an existing card is not touched. */
function ensureToolCard(S: State, c: Ctx, st: StepState) {
  if (!NON_TOOL_ITEMS.has(st.itemType ?? "unknown") && !st.own.tool) itemBlock(S, c, st, "tool");
}

/** Which block (suffix) and chunk array a content.delta of a given stream kind appends to. */
const DELTA_ROUTES: Record<string, { suffix: ItemSuffix; chunk: string; toolCard?: boolean }> = {
  assistant_text: { suffix: "text", chunk: "text" },
  reasoning_text: { suffix: "thinking", chunk: "text" },
  reasoning_summary_text: { suffix: "thinking", chunk: "summary" },
  plan_text: { suffix: "plan", chunk: "text" },
  command_output: { suffix: "terminal", chunk: "text", toolCard: true },
  file_change_output: { suffix: "diff", chunk: "output", toolCard: true },
};

const DELTA_ITEM_TYPE: Record<string, CanonicalItemType> = {
  assistant_text: "assistant_message",
  reasoning_text: "reasoning",
  reasoning_summary_text: "reasoning",
  command_output: "command_execution",
  file_change_output: "file_change",
};

const ITEM_TO_TOOL_STATUS: Record<string, ToolStatus> = { inProgress: "running", completed: "completed", failed: "failed", declined: "declined", superseded: "failed" };


/** The item's canonical `files` as diff files. */
function diffFiles(files: unknown): DiffFile[] {
  if (!Array.isArray(files)) return [];
  return files.filter((f) => f && typeof f.path === "string").map(diffFile);
}

/** One of them: its fields that are set, in this order. */
function diffFile(f: any): DiffFile {
  const d: DiffFile = { path: f.path };
  const kind = f.change;
  const movePath = f.movePath;
  const diff = f.diff;
  if (kind !== undefined) d.kind = kind;
  if (movePath !== undefined) d.movePath = movePath;
  if (diff !== undefined) d.diff = diff;
  return d;
}

/** item.started / item.updated / item.completed: the item's snapshot, applied to its own step and blocks only. */
function itemLifecycle(phase: "started" | "updated" | "completed") {
  return (S: State, c: Ctx) => {
    const { itemId, p } = c;
    if (!itemId) return;
    const existed = c.session.stepIndex.get(itemId);
    if (phase === "started" && existed && (existed.blocks.length || existed.completed)) S.problem(c, "late-start", `item.started for ${itemId} after its content: merged into the existing step, position kept`);
    if (phase === "completed" && !existed) S.problem(c, "completion-without-start", `item.completed for ${itemId}, never started: rendered from the completion alone`);
    if (phase !== "completed" && existed?.completed && phase === "updated") S.problem(c, "update-after-completion", `item.updated for ${itemId} after its completion: data applied, status kept`);
    const step = S.itemStep(c, p.itemType);
    if (phase === "started") step.started = true;
    if (p.background === true) step.background = true;
    // A step is implicit while only later events (delta, request, child) vouch for it.
    if (phase === "started" || (phase === "completed" && !existed)) step.implicit = false;
    c.outStepId = step.stepId;
    const b = primaryBlock(S, c, step);
    const f = b.fields;
    if (b.kind === "tool") {
      if (p.title !== undefined) f.title = p.title;
      if (p.detail !== undefined) f.detail = p.detail;
      for (const k of TOOL_FIELDS) { const v = p[k]; if (v !== undefined && v !== null) f[k] = v; }
      if (p.input !== undefined) f.input = p.input;
      const isCommand = step.itemType === "command_execution";
      if (p.output !== undefined && p.output !== null) {
        if (isCommand && typeof p.output === "string") {
          // The command's whole output: its terminal block shows what the deltas did not already stream. A start's
          // output (restored history: the item arrives complete) is left to the completion, which repeats it after
          // the history's output deltas. The terminal block is this event's only when it adds text.
          const have = step.own.terminal?.chunks.text.join("") ?? "";
          if (phase !== "started" && p.output.length > have.length && p.output.startsWith(have)) itemBlock(S, c, step, "terminal").chunks.text.push(p.output.slice(have.length));
        } else f.result = p.output;
      }
      const done = f.status === "completed" || f.status === "failed" || f.status === "declined";
      const next = p.status ? ITEM_TO_TOOL_STATUS[p.status] : phase === "completed" ? "completed" : "running";
      if (!(done && phase === "updated")) f.status = next ?? f.status;
      if (typeof p.terminalId === "string") {
        const t = itemBlock(S, c, step, "terminal");
        t.fields.terminalId = p.terminalId;
      }
      if (step.itemType === "file_change") {
        const files = diffFiles(p.files);
        if (files.length) {
          const d = itemBlock(S, c, step, "diff");
          d.fields.files = files;
        }
      }
    } else {
      if (b.kind === "text" && b.chunks.text.length === 0 && phase !== "updated") {
        // A user message usually arrives whole, without deltas.
        const t = typeof p.text === "string" ? p.text : typeof p.title === "string" ? p.title : undefined;
        if (t !== undefined && f.role === "user") b.chunks.text.push(t);
      }
    }
    if (phase === "completed") {
      step.completed = true;
      if (p.status === "superseded") step.superseded = true;
      for (const bl of step.blocks) if ("streaming" in bl.fields && bl.fields.streaming !== false) { bl.fields.streaming = false; sideChange(c, bl); }
    }
  };
}

/** Typed item fields a tool block copies as they are. */
const TOOL_FIELDS = ["toolName", "error", "command", "cwd", "exitCode", "durationMs", "server", "query", "path", "url"] as const;

function contentDelta(S: State, c: Ctx) {
  const { p } = c;
  const route = Object.hasOwn(DELTA_ROUTES, p.streamKind) ? DELTA_ROUTES[p.streamKind] : undefined;
  let step: StepState;
  if (c.itemId) {
    step = S.itemStep(c, DELTA_ITEM_TYPE[p.streamKind]);
    if (step.completed) S.problem(c, "update-after-completion", `content.delta (${p.streamKind}) for ${c.itemId} after its completion: appended to its block`);
  } else {
    // A delta without an item: its own stream per turn and kind.
    const t = S.turnOf(c);
    step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:stream:${p.streamKind}`);
    if (!step.itemType) step.itemType = DELTA_ITEM_TYPE[p.streamKind] ?? "unknown";
  }
  c.outStepId = step.stepId;
  let block: BlockState;
  let chunk: string;
  if (route) {
    if (route.toolCard) ensureToolCard(S, c, step);
    block = itemBlock(S, c, step, route.suffix);
    chunk = route.chunk;
  } else {
    block = primaryBlock(S, c, step); // an unknown stream: the item's own block
    chunk = Object.keys(block.chunks)[0];
  }
  if (typeof p.delta === "string" && p.delta !== "") (block.chunks[chunk] ??= []).push(p.delta);
}

// ───────────────────────────── requests, questions, tasks ─────────────────────────────

/** The block kind of a request event: its request kind (canonical.yaml requestKinds), a permission when unknown. */
const requestKind = (p: any): RequestBlock["kind"] => REQUEST_KIND[p.requestType as CanonicalRequestType] ?? "permission";

function requestBlock(S: State, c: Ctx, kind: RequestBlock["kind"]): BlockState {
  const { requestId } = c;
  const id = requestId ?? `${c.eventId}`;
  const blockId = id + ":request";
  let step: StepState;
  const existing = c.session.blockIndex.get(blockId);
  if (existing) step = existing.step;
  else if (c.itemId) step = S.itemStep(c);
  else step = S.syntheticStep(c, id);
  c.outStepId = step.stepId;
  const b = S.block(c, step, blockId, kind, requestFields);
  if (kind !== "permission") b.kind = kind;
  if (c.itemId && !existing) {
    const tool = primaryBlockIfTool(S, c, step);
    if (tool) {
      (tool.fields.awaitingRequests as string[]).push(blockId);
      c.session.requestTool.set(blockId, tool.blockId);
      sideChange(c, tool);
    }
  }
  return b;
}

/** The item's tool card, if it has one (a request alone does not make a tool card). */
const requestFields = (c: Ctx) => ({ state: "open", requestId: c.requestId });

function primaryBlockIfTool(_S: State, _c: Ctx, step: StepState): BlockState | undefined {
  return step.own.tool;
}

function resolveRequest(S: State, c: Ctx, b: BlockState) {
  if (b.fields.state !== "open" && b.sequences.length === 1) S.problem(c, "resolve-without-open", `${c.type} for ${c.requestId ?? "a request without id"} that was never opened: shown resolved`);
  b.fields.state = "resolved";
  const tool = c.session.requestTool.get(b.blockId);
  if (tool) {
    const tb = S.findBlock(c.session, tool);
    if (tb) { tb.fields.awaitingRequests = (tb.fields.awaitingRequests as string[]).filter((x) => x !== b.blockId); sideChange(c, tb); }
  }
}

function isNewBlock(S: State, c: Ctx, blockId: string) {
  return !c.session.blockIndex.has(blockId);
}

function taskBlock(S: State, c: Ctx, start: boolean): BlockState {
  const { p } = c;
  const blockId = `${p.taskId}:task`;
  if (!start && isNewBlock(S, c, blockId)) S.problem(c, "task-without-start", `${c.type} for task ${p.taskId} before task.started: opened implicitly`);
  const existing = c.session.blockIndex.get(blockId);
  const step = existing?.step ?? (c.parentId ? parentStep(S, c) : c.itemId ? S.itemStep(c) : S.syntheticStep(c, String(p.taskId)));
  c.outStepId = step.stepId;
  return S.block(c, step, blockId, "task", taskFields);
}

const taskFields = (c: Ctx) => ({ taskId: c.p.taskId, status: "running", progress: [] });

/** The step of e.parentId (a task hangs under its tool use). */
function parentStep(S: State, c: Ctx): StepState {
  const { itemId, parentId } = c;
  const st = c.session.stepIndex.get(parentId!);
  if (st) return st;
  S.problem(c, "unknown-parent", `${c.type} names parent ${parentId}, never seen: an implicit parent step is created`);
  // the parent's own step, made as for an event of that item (without a parent of its own)
  c.itemId = parentId;
  c.parentId = undefined;
  try {
    return S.itemStep(c);
  } finally {
    c.itemId = itemId;
    c.parentId = parentId;
  }
}

// ───────────────────────────── side-channel records ─────────────────────────────


function modeOf(p: any): { mode?: string; model?: string } {
  const out: { mode?: string; model?: string } = {};
  if (typeof p.mode === "string") out.mode = p.mode;
  if (typeof p.model === "string") out.model = p.model;
  return out;
}

/** A status line (warning, error, state change, notice) in the current turn, or at session level. */
function status(level: StatusBlock["level"], message: (p: any, e: CanonicalEvent) => string) {
  const init = (c: Ctx) => ({ level, source: c.type as CanonicalRuntimeEventType, message: message(c.p, c.e) });
  return (S: State, c: Ctx) => {
    const t = S.turnOf(c, !!c.turnId);
    // Each status record is its own step at the point it happened (never merged with earlier ones).
    const step = c.itemId ? S.itemStep(c) : S.syntheticStep(c, `${c.eventId}`, !!t);
    c.outStepId = step.stepId;
    const b = S.block(c, step, `${c.eventId}:status`, "status", init);
    if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
  };
}

/** A record kept on a session/turn field only (no block): the event is still listed in the event log. */
const noBlock = () => undefined;

const usageFields = () => ({ updates: 0 });

function usageBlock(S: State, c: Ctx, usage: unknown, tokens: TokenUsage | undefined, context: ContextUsage | undefined) {
  const t = S.turnOf(c, !!c.turnId);
  c.session.usage = usage;
  if (tokens !== undefined) c.session.tokens = tokens;
  if (context !== undefined) c.session.context = context;
  if (t) t.fields.usage = usage;
  if (t && tokens !== undefined) t.fields.tokens = tokens;
  const step = t ? S.syntheticStep(c, `${t.turnId}:usage`) : S.syntheticStep(c, `${c.session.sessionId}:usage`, false);
  c.outStepId = step.stepId;
  const b = S.block(c, step, step.stepId, "usage", usageFields);
  b.fields.usage = usage;
  if (tokens !== undefined) b.fields.tokens = tokens;
  if (context !== undefined) b.fields.context = context;
  b.fields.updates = (b.fields.updates as number) + 1;
}

type Handler = (S: State, c: Ctx) => void;

/** Shared by changes without problems (replaced by a fresh array on the first one). */
const NO_PROBLEMS: Problem[] = [];
/** No block yet (replaced by a fresh array on the first; never handed out). */
const NO_IDS: string[] = [];
/** No block yet (a step's blocks until its first; never mutated). */
const NO_BLOCKS: BlockState[] = [];

const planFields = () => ({ steps: [], updates: 0 });
const turnDiffFields = () => ({ scope: "turn", files: [] });

/** One handler per canonical event type (a new type in canonical.yaml fails typecheck until it is listed here). */
const HANDLERS: Record<CanonicalRuntimeEventType, Handler> = {
  "session.started": noBlock,
  "session.configured": (S, c) => {
    const config = (c.p.config ?? {}) as Record<string, unknown>;
    Object.assign(c.session.config, config);
    const { mode, model } = modeOf(c.p);
    if (mode === undefined && model === undefined) return;
    const t = S.turnOf(c, false);
    const step = S.syntheticStep(c, `${c.eventId}`, !!t);
    c.outStepId = step.stepId;
    const b = S.block(c, step, `${c.eventId}:mode`, "mode", () => ({ config }));
    if (mode !== undefined) b.fields.mode = mode;
    if (model !== undefined) b.fields.model = model;
  },
  "session.state.changed": (S, c) => { c.session.state = c.p.state; },
  "session.exited": status("info", (p) => `session exited${p.reason ? `: ${p.reason}` : ""}`),
  "thread.started": noBlock,
  "thread.state.changed": noBlock,
  "thread.metadata.updated": noBlock,
  "thread.token-usage.updated": (S, c) => usageBlock(S, c, c.p.usage, c.p.tokenUsage, c.p.context),
  "thread.realtime.started": noBlock,
  "thread.realtime.item-added": noBlock,
  "thread.realtime.audio.delta": noBlock,
  "thread.realtime.error": status("error", (p) => `realtime: ${p.message}`),
  "thread.realtime.closed": noBlock,
  "turn.started": (S, c) => {
    const { session } = c;
    const id = c.turnId ?? `${c.eventId}:turn`;
    let t = session.turnIndex.get(id);
    if (t) {
      if (t.implicit) t.implicit = false;
    } else t = S.newTurn(session, id, c.e, false);
    session.openTurn = t;
    t.sequences.push(c.sequence);
    if (c.p.model) t.fields.model = c.p.model;
    c.outTurnId = t.turnId;
  },
  "turn.completed": (S, c) => endTurn(S, c, c.p.state ?? "completed"),
  "turn.aborted": (S, c) => endTurn(S, c, "aborted"),
  "turn.plan.updated": (S, c) => {
    const { p } = c;
    let step: StepState;
    let kind: "plan" | "todo";
    // A checklist tied to an item (a to-do list tool/item) is a todo; the turn's own plan is a plan.
    if (c.itemId) { step = S.itemStep(c, "plan"); kind = "todo"; }
    else { const t = S.turnOf(c); step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:plan`); kind = "plan"; }
    c.outStepId = step.stepId;
    const b = c.itemId ? itemBlock(S, c, step, "plan") : S.block(c, step, step.stepId, kind, planFields, textChunk);
    b.kind = kind;
    b.fields.steps = Array.isArray(p.plan) ? p.plan.map((s: any) => ({ step: String(s?.step ?? ""), status: String(s?.status ?? "pending") })) : [];
    if (p.explanation !== undefined) b.fields.explanation = p.explanation;
    b.fields.updates = (b.fields.updates as number) + 1;
  },
  "turn.diff.updated": (S, c) => {
    const t = S.turnOf(c);
    const step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:diff`);
    c.outStepId = step.stepId;
    const b = S.block(c, step, step.stepId, "diff", turnDiffFields, outputChunk);
    b.fields.unifiedDiff = String(c.p.unifiedDiff ?? "");
    b.fields.files = filesOfUnifiedDiff(b.fields.unifiedDiff as string);
  },
  "item.started": itemLifecycle("started"),
  "item.updated": itemLifecycle("updated"),
  "item.completed": itemLifecycle("completed"),
  "content.delta": contentDelta,
  "request.opened": (S, c) => {
    const b = requestBlock(S, c, requestKind(c.p));
    b.fields.state = "open";
    b.fields.requestType = c.p.requestType;
    if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
    if (c.p.args !== undefined) b.fields.args = c.p.args;
    if (Array.isArray(c.p.options)) b.fields.options = c.p.options;
  },
  "request.resolved": (S, c) => {
    const isNew = isNewBlock(S, c, (c.requestId ?? c.eventId) + ":request");
    const b = requestBlock(S, c, requestKind(c.p));
    if (isNew) b.fields.state = "never-opened";
    resolveRequest(S, c, b);
    b.fields.requestType ??= c.p.requestType;
    if (c.p.decision !== undefined) b.fields.decision = c.p.decision;
    if (c.p.resolution !== undefined) b.fields.resolution = c.p.resolution;
  },
  "user-input.requested": (S, c) => {
    const b = requestBlock(S, c, "question");
    b.kind = "question";
    b.fields.questions = c.p.questions;
  },
  "user-input.resolved": (S, c) => {
    const isNew = isNewBlock(S, c, (c.requestId ?? c.eventId) + ":request");
    const b = requestBlock(S, c, "question");
    b.kind = "question";
    if (isNew) b.fields.state = "never-opened";
    resolveRequest(S, c, b);
    b.fields.answers = c.p.answers;
  },
  "task.started": (S, c) => {
    const b = taskBlock(S, c, true);
    if (c.p.description !== undefined) b.fields.description = c.p.description;
    if (c.p.taskType !== undefined) b.fields.taskType = c.p.taskType;
  },
  "task.progress": (S, c) => {
    const b = taskBlock(S, c, false);
    (b.fields.progress as string[]).push(String(c.p.description ?? ""));
    if (c.p.lastToolName !== undefined) b.fields.lastToolName = c.p.lastToolName;
    if (c.p.usage !== undefined) b.fields.usage = c.p.usage;
  },
  "task.completed": (S, c) => {
    const b = taskBlock(S, c, false);
    b.fields.status = c.p.status ?? "completed";
    if (c.p.summary !== undefined) b.fields.summary = c.p.summary;
    if (c.p.usage !== undefined) b.fields.usage = c.p.usage;
  },
  "hook.started": noBlock,
  "hook.progress": noBlock,
  "hook.completed": (S, c) => { if (c.p.outcome === "error") status("warning", (p) => `hook ${p.hookId} failed${p.output ? `: ${p.output}` : ""}`)(S, c); },
  "tool.progress": noBlock,
  "tool.summary": status("info", (p) => String(p.summary)),
  "auth.status": (S, c) => { if (c.p.error) status("error", (p) => `auth: ${p.error}`)(S, c); },
  "account.updated": noBlock,
  "account.rate-limits.updated": noBlock,
  "mcp.status.updated": noBlock,
  "mcp.oauth.completed": (S, c) => { if (!c.p.success) status("warning", (p) => `MCP OAuth failed${p.name ? ` (${p.name})` : ""}${p.error ? `: ${p.error}` : ""}`)(S, c); },
  "model.rerouted": status("info", (p) => `model rerouted ${p.fromModel} → ${p.toModel}: ${p.reason}`),
  "config.warning": status("warning", (p) => String(p.summary)),
  "deprecation.notice": noBlock,
  "files.persisted": noBlock,
  "runtime.warning": status("warning", (p) => String(p.message)),
  "runtime.error": status("error", (p) => String(p.message)),
};

/** HANDLERS by type, as a Map (one lookup; only its own keys). */
const HANDLER_OF: ReadonlyMap<string, Handler> = new Map(Object.entries(HANDLERS));

function endTurn(S: State, c: Ctx, state: string) {
  const { session } = c;
  const t = c.turnId ? S.turnOf(c) : session.openTurn;
  if (!t) {
    S.problem(c, "turn-without-start", `${c.type} without a turn to end: ignored`);
    return;
  }
  c.outTurnId = t.turnId;
  t.sequences.push(c.sequence);
  t.state = state === "aborted" ? "aborted" : (["completed", "failed", "interrupted", "cancelled"].includes(state) ? state : "completed") as Turn["state"];
  const p = c.p;
  if (p.stopReason !== undefined) t.fields.stopReason = p.stopReason;
  if (p.errorMessage !== undefined) t.fields.errorMessage = p.errorMessage;
  if (p.reason !== undefined) t.fields.abortReason = p.reason;
  if (p.usage !== undefined) t.fields.usage = p.usage;
  if (p.tokenUsage !== undefined) t.fields.tokens = p.tokenUsage;
  if (p.totalCostUsd !== undefined) t.fields.totalCostUsd = p.totalCostUsd;
  if (session.openTurn === t) session.openTurn = undefined;
  if (S.retain !== undefined && !t.ended) { t.ended = true; session.endedTurns.push(t); }
  // Close what the turn left open (deterministic; reported once per step).
  const visit = (steps: StepState[]) => {
    for (const st of steps) {
      visit(st.children);
      let open = false;
      for (const b of st.blocks) {
        if (b.fields.streaming === true) { b.fields.streaming = false; sideChange(c, b); } // e.g. ACP messages have no completion: closed silently
        if (b.kind === "tool" && (b.fields.status === "running" || b.fields.status === "pending")) open = true;
      }
      // background work outlives its turn (and so does what runs under it)
      if (open && st.itemId && !st.completed && !inBackground(st)) S.problem(c, "open-at-turn-end", `item ${st.itemId} (${st.itemType ?? "unknown"}) was still open when turn ${t.turnId} ended (${t.state})`);
    }
  };
  visit(t.steps);
}

/** The step is background work, or nested under background work. */
function inBackground(st: StepState): boolean {
  for (let x: StepState | undefined = st; x; x = x.parent) if (x.background) return true;
  return false;
}

function filesOfUnifiedDiff(diff: string): DiffFile[] {
  const out: DiffFile[] = [];
  const re = /^\+\+\+ (?:b\/)?(.+)$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(diff))) if (m[1] !== "/dev/null") out.push({ path: m[1].trim() });
  return out;
}

// ───────────────────────────── snapshot ─────────────────────────────

function blockJson(b: BlockState): Block {
  const out: any = { blockId: b.blockId, kind: b.kind };
  for (const [k, v] of Object.entries(b.fields)) if (v !== undefined) out[k] = Array.isArray(v) ? v.slice() : v;
  for (const [k, chunks] of Object.entries(b.chunks)) out[k] = joined(chunks);
  out.sequences = b.sequences.slice();
  out.eventIds = b.eventIds.slice();
  return out as Block;
}

function stepJson(st: StepState): Step {
  return stepOf(st, blockJson, stepJson);
}

function turnJson(t: TurnState): Turn {
  return turnOf(t, stepJson);
}

// ───────────────────────────── public API ─────────────────────────────

export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  const retain = options.retainTurns === undefined ? undefined : Math.max(0, Math.floor(options.retainTurns));
  if (retain !== undefined && !Number.isFinite(retain)) throw new InvalidOptionError("retainTurns", `retainTurns must be a finite number, got ${options.retainTurns}`);
  const retainProblems = options.retainProblems ?? (retain !== undefined ? 1000 : undefined);
  const S = new State(retain, retainProblems === undefined ? undefined : Math.max(0, Math.floor(retainProblems)));
  const listeners = new Set<(c: AccumulatorChange) => void>();
  const keepLog = options.eventLog !== false;
  /** The session named, or (none named) the first one the predicate accepts. */
  const sessionFor = (sessionId: string | undefined, has: (s: SessionState) => boolean): SessionState | undefined => {
    if (sessionId !== undefined) return S.sessionIndex.get(sessionId);
    for (const s of S.sessions) if (has(s)) return s;
    return undefined;
  };

  function invalid(input: unknown): undefined {
    S.problem(undefined, "invalid-event", `not a canonical event: ${safeJson(input).slice(0, 120)}`);
    return undefined;
  }

  function apply(input: unknown): AccumulatorChange | undefined {
    const e = input as CanonicalEvent;
    if (!e || typeof e !== "object") return invalid(input);
    const { type, sessionId, sequence } = e;
    if (typeof type !== "string" || typeof sessionId !== "string" || typeof sequence !== "number") return invalid(input);
    const handler = HANDLER_OF.get(type);
    const eventId = String(e.eventId);
    const session = S.session(e, sessionId);
    const c = new Ctx(e, type, sequence, session);
    // A duplicate has a sequence already applied (sequences only grow), so only that path looks it up.
    if (sequence <= session.lastSequence && session.seqIds.get(sequence) === c.eventId) {
      S.problem(c, "duplicate-event", `event ${c.eventId} (#${sequence} ${type}) applied twice: ignored`);
      return undefined;
    }
    if (S.retain !== undefined) {
      const why = S.lateForRetired(c);
      if (why !== undefined) {
        S.problem(c, "retired-event", `${type} #${sequence} is for retired state (${why}; retainTurns ${S.retain}): ignored`);
        return undefined;
      }
    }
    if (sequence <= session.lastSequence) {
      S.problem(c, "out-of-order", `#${sequence} ${type} arrived after #${session.lastSequence}: applied where it lands`);
    } else session.lastSequence = sequence;
    session.seqIds.set(sequence, c.eventId);
    if (sequence > S.lastSequence) S.lastSequence = sequence;
    S.eventCount++;
    if (handler) {
      try {
        handler(S, c);
      } catch (err) {
        S.problem(c, "invalid-event", `${type} #${sequence} could not be applied: ${(err as Error)?.message ?? err}`);
      }
    } else {
      // Forward compatibility: an event type of a later contract version is skipped, and said so.
      S.problem(c, "unknown-event-type", `${type} #${sequence} is not an event type this version knows: ignored`);
    }
    const stepId = c.outStepId;
    let turnId = c.outTurnId;
    const changedStep = stepId !== undefined ? session.stepIndex.get(stepId) : undefined;
    if (turnId === undefined) turnId = changedStep?.turn?.turnId ?? c.turnId;
    // The read views of what this event changed are dropped (the rest keep their references).
    if (changedStep) invalidateStep(changedStep);
    const turn = turnId !== undefined ? session.turnIndex.get(turnId) : undefined;
    if (turn) turn.view = undefined;
    session.view = undefined;
    S.sessionsView = undefined;
    const blockIds = c.blockIds === NO_IDS ? [] : c.blockIds;
    let changedBlockIds = blockIds;
    if (c.extra) {
      let more: string[] | undefined;
      for (const b of c.extra) {
        const id = b.blockId;
        if (!blockIds.includes(id) && !more?.includes(id)) (more ??= []).push(id);
      }
      if (more) changedBlockIds = blockIds.concat(more);
    }
    // made once, in its final shape (stepId and turnId only when known)
    const problems = c.problems;
    const change: AccumulatorChange = stepId === undefined
      ? turnId === undefined
        ? { sequence, eventId, type, sessionId, blockIds, changedBlockIds, problems }
        : { sequence, eventId, type, sessionId, blockIds, changedBlockIds, problems, turnId }
      : turnId === undefined
        ? { sequence, eventId, type, sessionId, blockIds, changedBlockIds, problems, stepId }
        : { sequence, eventId, type, sessionId, blockIds, changedBlockIds, problems, stepId, turnId };
    // the change itself is the log entry (no copy per event); snapshot() turns it into an EventRef
    if (keepLog) S.events.push(change);
    if (S.retain !== undefined) {
      const owner: Bucket = turn ?? S.era(session);
      owner.seqs.push(sequence);
      if (keepLog) S.eventOwners.push(owner);
      if (session.endedTurns.length - session.endedHead > S.retain) S.retire(session, keepLog);
    }
    for (const l of listeners) l(change);
    return change;
  }

  return {
    apply,
    applyAll(events) { for (const e of events) apply(e); },
    snapshot() {
      const snap: AccumulatorSnapshot = {
        version: ACCUMULATOR_SNAPSHOT_VERSION,
        eventCount: S.eventCount,
        lastSequence: S.lastSequence,
        sessions: S.sessions.map((s) => sessionOf(s, stepJson, turnJson)),
        problems: S.problems.map((p) => ({ ...p })),
      };
      const cap = S.retainProblems;
      let droppedProblems = 0;
      if (cap !== undefined && snap.problems.length > cap) {
        droppedProblems = snap.problems.length - cap;
        snap.problems = snap.problems.slice(droppedProblems);
      }
      if (S.retain !== undefined || cap !== undefined) snap.retired = { ...S.retired, problems: S.retired.problems + droppedProblems };
      if (keepLog) {
        snap.events = S.events.map((c) => {
          const ref: EventRef = { sequence: c.sequence, eventId: c.eventId, type: c.type, sessionId: c.sessionId, blockIds: c.blockIds.slice() };
          if (c.turnId !== undefined) ref.turnId = c.turnId;
          if (c.stepId !== undefined) ref.stepId = c.stepId;
          return ref;
        });
      }
      return snap;
    },
    getBlock(blockId, sessionId) {
      const s = sessionFor(sessionId, (x) => x.blockIndex.has(blockId));
      const b = s?.blockIndex.get(blockId);
      return b ? blockView(b) : undefined;
    },
    getStep(stepId, sessionId) {
      const s = sessionFor(sessionId, (x) => x.stepIndex.has(stepId));
      const st = s?.stepIndex.get(stepId);
      return st ? stepView(st) : undefined;
    },
    getTurn(turnId, sessionId) {
      const s = sessionFor(sessionId, (x) => x.turnIndex.has(turnId));
      const t = s?.turnIndex.get(turnId);
      return t && !t.retired ? turnView(t) : undefined;
    },
    getSession(sessionId) {
      const s = sessionId === undefined ? S.sessions[0] : S.sessionIndex.get(sessionId);
      return s ? sessionView(s) : undefined;
    },
    getSessions() {
      return (S.sessionsView ??= S.sessions.map(sessionView));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
    },
    stats() {
      const st: AccumulatorStats = { sessions: S.sessions.length, turns: 0, turnIndex: 0, stepIndex: 0, blockIndex: 0, requestTool: 0, seqIds: 0, sessionSteps: 0, tombstones: 0, threadIds: 0, eventLog: S.events.length, problems: S.problems.length };
      for (const s of S.sessions) {
        st.turns += s.turns.length;
        st.turnIndex += s.turnIndex.size;
        st.stepIndex += s.stepIndex.size;
        st.blockIndex += s.blockIndex.size;
        st.requestTool += s.requestTool.size;
        st.seqIds += s.seqIds.size;
        st.sessionSteps += s.steps.length;
        st.tombstones += s.tomb.size;
        st.threadIds += s.threadIds.length;
      }
      return st;
    },
  };
}

function safeJson(v: unknown): string {
  try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
}

/** Every block of a snapshot in render order (depth-first: session steps, then each turn's steps and their children). */
export function snapshotBlocks(snap: AccumulatorSnapshot): Block[] {
  const out: Block[] = [];
  const visit = (steps: Step[]) => { for (const st of steps) { out.push(...st.blocks); visit(st.children); } };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
  return out;
}
