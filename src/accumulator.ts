/**
 * The render accumulator: canonical events in, render groups out (session → turns → steps → blocks).
 *
 * Pure TypeScript, no Node APIs: it runs unchanged in a browser or a webview. It follows seed 001's
 * "Accumulator Rules": events are grouped by identity (session, turn, item, request, task), never by
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
import type { CanonicalItemType, CanonicalRuntimeEventType, ProviderKind, ProviderRuntimeEventV2 } from "../generated/canonical.gen.js";

type CanonicalEvent = ProviderRuntimeEventV2;

// ───────────────────────────── the snapshot (plain JSON) ─────────────────────────────

export const ACCUMULATOR_SNAPSHOT_VERSION = 1;

export type BlockKind =
  | "text" | "thinking" | "tool" | "diff" | "terminal" | "plan" | "todo"
  | "permission" | "question" | "task" | "usage" | "mode" | "status";

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
  /** The tool's input when the item data carries one (input / rawInput / arguments / command). */
  input?: unknown;
  /** The tool's result when the item data carries one (result / output / rawOutput / content). */
  result?: unknown;
  /** The latest item data snapshot (provider-shaped, as the canonical event carried it). */
  data?: unknown;
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
export interface DiffFile { path: string; kind?: string; diff?: string; oldText?: string; newText?: string }
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
export interface RequestBlock extends BlockBase {
  kind: "permission" | "question";
  requestId?: string;
  requestType?: string;
  state: "open" | "resolved";
  detail?: string;
  args?: unknown;
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
export interface UsageBlock extends BlockBase { kind: "usage"; usage: unknown; updates: number }
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
  /** Session-level steps: records outside any turn (status, warnings, mode, usage before a turn…). */
  steps: Step[];
  turns: Turn[];
}

export type ProblemKind =
  | "duplicate-event"      // same eventId applied twice: ignored
  | "out-of-order"         // sequence not above the last one of its session: applied where it lands
  | "late-start"           // item.started after a delta/update/completion of the same item: merged in place
  | "completion-without-start" // item.completed for an item never seen: rendered as a completed step
  | "update-after-completion"  // delta/update for a completed item: applied to its block, status kept
  | "turn-without-start"   // an event names a turn never started: the turn is opened implicitly
  | "resolve-without-open" // request/user-input resolved without being opened: shown resolved
  | "task-without-start"   // task.progress/completed before task.started
  | "unknown-parent"       // parentId of an item never seen: an implicit parent step is created
  | "open-at-turn-end"     // a tool or text still running when its turn ended
  | "invalid-event";       // not an object with type/sequence/sessionId: ignored

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
}

/** What one apply() changed; passed to subscribers. */
export interface AccumulatorChange {
  sequence: number;
  eventId: string;
  type: string;
  sessionId: string;
  turnId?: string;
  stepId?: string;
  blockIds: string[];
  problems: Problem[];
}

export interface AccumulatorOptions {
  /** Keep an EventRef per applied event in the snapshot (default true). */
  eventLog?: boolean;
}

export interface Accumulator {
  /** Apply one canonical event. Never throws on event data; returns what changed. */
  apply(event: CanonicalEvent | unknown): AccumulatorChange | undefined;
  /** Apply many, in the order given. */
  applyAll(events: Iterable<CanonicalEvent | unknown>): void;
  /** The current state as fresh plain JSON (safe to JSON.stringify, structuredClone or postMessage). */
  snapshot(): AccumulatorSnapshot;
  /** Called after every apply() that was not ignored. Returns an unsubscribe function. */
  subscribe(listener: (change: AccumulatorChange) => void): () => void;
}

// ───────────────────────────── internal (mutable) state ─────────────────────────────

interface BlockState {
  blockId: string;
  kind: BlockKind;
  sequences: number[];
  eventIds: string[];
  /** Chunk arrays, joined lazily. */
  chunks: Record<string, string[]>;
  fields: Record<string, unknown>;
}

interface StepState {
  stepId: string;
  itemId?: string;
  itemType?: CanonicalItemType;
  parentId?: string;
  providerItemId?: string;
  implicit: boolean;
  started: boolean;
  completed: boolean;
  blocks: BlockState[];
  blockIndex: Map<string, BlockState>;
  children: StepState[];
  turn?: TurnState;
  session: SessionState;
}

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
}

interface SessionState {
  sessionId: string;
  provider: ProviderKind;
  threadIds: string[];
  threadSet: Set<string>;
  state?: string;
  config: Record<string, unknown>;
  usage?: unknown;
  steps: StepState[];
  turns: TurnState[];
  turnIndex: Map<string, TurnState>;
  /** Steps by itemId or synthesized step id. */
  stepIndex: Map<string, StepState>;
  /** Blocks by blockId, with their step. */
  blockIndex: Map<string, { block: BlockState; step: StepState }>;
  /** Request blockId → the tool blockId it waits on. */
  requestTool: Map<string, string>;
  /** sequence → eventId of every applied event (duplicate detection). */
  seqIds: Map<number, string>;
  openTurn?: TurnState;
  lastSequence: number;
}

interface Ctx {
  e: CanonicalEvent;
  p: any;
  session: SessionState;
  change: AccumulatorChange;
}

/** The state shared by the handlers. */
class State {
  sessions: SessionState[] = [];
  sessionIndex = new Map<string, SessionState>();
  problems: Problem[] = [];
  events: EventRef[] = [];
  eventCount = 0;
  lastSequence = 0;

  session(e: CanonicalEvent): SessionState {
    let s = this.sessionIndex.get(e.sessionId);
    if (!s) {
      s = { sessionId: e.sessionId, provider: e.provider, threadIds: [], threadSet: new Set(), config: {}, steps: [], turns: [], turnIndex: new Map(), stepIndex: new Map(), blockIndex: new Map(), requestTool: new Map(), seqIds: new Map(), lastSequence: 0 };
      this.sessionIndex.set(e.sessionId, s);
      this.sessions.push(s);
    }
    if (e.threadId && !s.threadSet.has(e.threadId)) { s.threadSet.add(e.threadId); s.threadIds.push(e.threadId); }
    return s;
  }

  problem(c: Ctx | undefined, kind: ProblemKind, message: string) {
    const p: Problem = c ? { kind, sequence: c.e.sequence, eventId: c.e.eventId, message } : { kind, message };
    this.problems.push(p);
    c?.change.problems.push(p);
  }

  /** The turn an event belongs to: its turnId; else its item's turn; else the session's open turn; else none. */
  turnOf(c: Ctx, create = true): TurnState | undefined {
    const { e, session } = c;
    if (e.turnId) {
      let t = session.turnIndex.get(e.turnId);
      if (!t && create) {
        t = this.newTurn(session, e.turnId, e, true);
        this.problem(c, "turn-without-start", `${e.type} names turn ${e.turnId}, which never started: opened implicitly`);
      }
      return t;
    }
    if (e.itemId) {
      const st = session.stepIndex.get(e.itemId);
      if (st) return st.turn;
    }
    return session.openTurn;
  }

  newTurn(session: SessionState, turnId: string, e: CanonicalEvent, implicit: boolean): TurnState {
    const t: TurnState = { turnId, threadId: e.threadId, providerTurnId: e.providerRefs?.providerTurnId, index: session.turns.length + 1, state: "running", implicit, fields: {}, steps: [], sequences: [] };
    session.turns.push(t);
    session.turnIndex.set(turnId, t);
    session.openTurn = t;
    return t;
  }

  /** The step of the event's item (created implicitly when unknown), or a synthesized step. */
  itemStep(c: Ctx, itemType?: CanonicalItemType): StepState {
    const { e, session } = c;
    const key = e.itemId!;
    let st = session.stepIndex.get(key);
    if (!st) {
      st = this.newStep(c, e.itemId!, key, true);
      st.itemId = e.itemId;
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
    const { e, session } = c;
    const turn = attachToTurn ? this.turnOf(c) : undefined;
    const st: StepState = { stepId, implicit, started: false, completed: false, blocks: [], blockIndex: new Map(), children: [], turn, session };
    const parentItem = e.itemId === stepId ? e.parentId : undefined;
    if (parentItem && parentItem !== stepId) {
      st.parentId = parentItem;
      const pkey = parentItem;
      let parent = session.stepIndex.get(pkey);
      if (!parent) {
        this.problem(c, "unknown-parent", `${e.type} of item ${stepId} names parent ${parentItem}, never seen: an implicit parent step is created`);
        parent = { stepId: parentItem, itemId: parentItem, implicit: true, started: false, completed: false, blocks: [], blockIndex: new Map(), children: [], turn, session };
        session.stepIndex.set(pkey, parent);
        (turn ? turn.steps : session.steps).push(parent);
      }
      parent.children.push(st);
      if (!st.turn) st.turn = parent.turn;
    } else {
      (turn ? turn.steps : session.steps).push(st);
    }
    session.stepIndex.set(key, st);
    return st;
  }

  /** The block `blockId` in `step` (created with `init` fields when new); records the event on it. */
  block(c: Ctx, step: StepState, blockId: string, kind: BlockKind, init: () => Record<string, unknown>, chunkNames: string[] = []): BlockState {
    let entry = c.session.blockIndex.get(blockId);
    if (!entry) {
      const chunks: Record<string, string[]> = {};
      for (const n of chunkNames) chunks[n] = [];
      const block: BlockState = { blockId, kind, sequences: [], eventIds: [], chunks, fields: init() };
      entry = { block, step };
      c.session.blockIndex.set(blockId, entry);
      step.blocks.push(block);
      step.blockIndex.set(blockId, block);
    }
    touch(c, entry.block);
    return entry.block;
  }

  findBlock(session: SessionState, blockId: string): BlockState | undefined {
    return session.blockIndex.get(blockId)?.block;
  }
}

function touch(c: Ctx, b: BlockState) {
  const last = b.sequences.length - 1;
  if (last >= 0 && b.eventIds[last] === c.e.eventId) return;
  b.sequences.push(c.e.sequence);
  b.eventIds.push(c.e.eventId);
  if (!c.change.blockIds.includes(b.blockId)) c.change.blockIds.push(b.blockId);
}

// ───────────────────────────── item → blocks ─────────────────────────────

const TEXT_ITEMS: ReadonlySet<string> = new Set(["assistant_message", "user_message"]);
const NON_TOOL_ITEMS: ReadonlySet<string> = new Set(["assistant_message", "user_message", "reasoning", "plan"]);

/** The primary block of an item: text, thinking, todo/plan text, or a tool card. */
function primaryBlock(S: State, c: Ctx, step: StepState): BlockState {
  const t = step.itemType ?? "unknown";
  if (TEXT_ITEMS.has(t)) return S.block(c, step, step.stepId + ":text", "text", () => ({ role: t === "user_message" ? "user" : "assistant", streaming: true }), ["text"]);
  if (t === "reasoning") return S.block(c, step, step.stepId + ":thinking", "thinking", () => ({ streaming: true }), ["text", "summary"]);
  if (t === "plan") return S.block(c, step, step.stepId + ":plan", "plan", () => ({ steps: [], updates: 0 }), ["text"]);
  const isNew = !step.blockIndex.has(step.stepId + ":tool");
  const tool = S.block(c, step, step.stepId + ":tool", "tool", () => ({ itemType: t, status: "pending", awaitingRequests: [] }), ["output"]);
  if (isNew) {
    // Requests that arrived before the tool card: link the open ones to it.
    for (const r of step.blocks) {
      if ((r.kind === "permission" || r.kind === "question") && r.fields.state === "open") {
        (tool.fields.awaitingRequests as string[]).push(r.blockId);
        c.session.requestTool.set(r.blockId, tool.blockId);
      }
    }
  }
  return tool;
}

/** Output streamed before its tool started still gets its card (pending), placed first; an existing card is not touched. */
function ensureToolCard(S: State, c: Ctx, st: StepState) {
  if (!NON_TOOL_ITEMS.has(st.itemType ?? "unknown") && !st.blockIndex.has(st.stepId + ":tool")) primaryBlock(S, c, st);
}

/** Which block (and chunk array) a content.delta of a given stream kind appends to. */
const DELTA_ROUTES: Record<string, (S: State, c: Ctx, step: StepState) => { block: BlockState; chunk: string }> = {
  assistant_text: (S, c, st) => ({ block: S.block(c, st, st.stepId + ":text", "text", () => ({ role: st.itemType === "user_message" ? "user" : "assistant", streaming: true }), ["text"]), chunk: "text" }),
  reasoning_text: (S, c, st) => ({ block: S.block(c, st, st.stepId + ":thinking", "thinking", () => ({ streaming: true }), ["text", "summary"]), chunk: "text" }),
  reasoning_summary_text: (S, c, st) => ({ block: S.block(c, st, st.stepId + ":thinking", "thinking", () => ({ streaming: true }), ["text", "summary"]), chunk: "summary" }),
  plan_text: (S, c, st) => ({ block: S.block(c, st, st.stepId + ":plan", "plan", () => ({ steps: [], updates: 0 }), ["text"]), chunk: "text" }),
  command_output: (S, c, st) => {
    ensureToolCard(S, c, st);
    return { block: S.block(c, st, st.stepId + ":terminal", "terminal", () => ({ streaming: true }), ["text"]), chunk: "text" };
  },
  file_change_output: (S, c, st) => {
    ensureToolCard(S, c, st);
    return { block: S.block(c, st, st.stepId + ":diff", "diff", () => ({ scope: "item", files: [] }), ["output"]), chunk: "output" };
  },
  unknown: (S, c, st) => {
    const b = primaryBlock(S, c, st);
    return { block: b, chunk: Object.keys(b.chunks)[0] };
  },
};

const DELTA_ITEM_TYPE: Record<string, CanonicalItemType> = {
  assistant_text: "assistant_message",
  reasoning_text: "reasoning",
  reasoning_summary_text: "reasoning",
  command_output: "command_execution",
  file_change_output: "file_change",
};

const ITEM_TO_TOOL_STATUS: Record<string, ToolStatus> = { inProgress: "running", completed: "completed", failed: "failed", declined: "declined" };

function pick(o: any, keys: string[]): unknown {
  if (!o || typeof o !== "object") return undefined;
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}
const INPUT_KEYS = ["input", "rawInput", "arguments", "args", "command", "query", "url"];
const RESULT_KEYS = ["result", "output", "rawOutput", "aggregatedOutput", "aggregated_output", "content", "error"];

/** File diffs a file_change item's data carries, in the shapes canonical data has (changes[], content[] diff parts, input edit fields). */
function diffFiles(data: any): DiffFile[] {
  const out: DiffFile[] = [];
  if (!data || typeof data !== "object") return out;
  if (Array.isArray(data.changes)) {
    for (const ch of data.changes) if (ch && typeof ch.path === "string") out.push(clean({ path: ch.path, kind: typeof ch.kind === "string" ? ch.kind : ch.kind?.type, diff: typeof ch.diff === "string" ? ch.diff : undefined }));
  }
  if (Array.isArray(data.content)) {
    for (const part of data.content) if (part?.type === "diff" && typeof part.path === "string") out.push(clean({ path: part.path, oldText: part.oldText ?? undefined, newText: part.newText }));
  }
  const input = data.input ?? data.rawInput;
  if (!out.length && input && typeof input === "object") {
    const path = input.file_path ?? input.filePath ?? input.path;
    if (typeof path === "string" && (typeof input.new_string === "string" || typeof input.content === "string" || typeof input.newString === "string")) {
      out.push(clean({ path, oldText: input.old_string ?? input.oldString, newText: input.new_string ?? input.newString ?? input.content }));
    }
  }
  return out;
}

/** The id of a terminal a tool's content references (`content: [{type: "terminal", terminalId}]`). */
export function terminalRef(data: any): string | undefined {
  if (!data || !Array.isArray(data.content)) return undefined;
  for (const part of data.content) if (part?.type === "terminal" && typeof part.terminalId === "string") return part.terminalId;
  return undefined;
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** item.started / item.updated / item.completed: the item's snapshot, applied to its own step and blocks only. */
function itemLifecycle(phase: "started" | "updated" | "completed") {
  return (S: State, c: Ctx) => {
    const { e, p } = c;
    if (!e.itemId) return;
    const existed = c.session.stepIndex.get(e.itemId);
    if (phase === "started" && existed && (existed.blocks.length || existed.completed)) S.problem(c, "late-start", `item.started for ${e.itemId} after its content: merged into the existing step, position kept`);
    if (phase === "completed" && !existed) S.problem(c, "completion-without-start", `item.completed for ${e.itemId}, never started: rendered from the completion alone`);
    if (phase !== "completed" && existed?.completed && phase === "updated") S.problem(c, "update-after-completion", `item.updated for ${e.itemId} after its completion: data applied, status kept`);
    const step = S.itemStep(c, p.itemType);
    if (phase === "started") step.started = true;
    // A step is implicit while only later events (delta, request, child) vouch for it.
    if (phase === "started" || (phase === "completed" && !existed)) step.implicit = false;
    c.change.stepId = step.stepId;
    const b = primaryBlock(S, c, step);
    const f = b.fields;
    if (p.title !== undefined) f.title = p.title;
    if (p.detail !== undefined) f.detail = p.detail;
    if (b.kind === "tool") {
      if (p.data !== undefined) {
        f.data = p.data;
        const input = pick(p.data, INPUT_KEYS);
        if (input !== undefined) f.input = input;
        if (phase !== "started") {
          const result = pick(p.data, RESULT_KEYS);
          if (result !== undefined && result !== f.input) f.result = result;
        }
      }
      const done = f.status === "completed" || f.status === "failed" || f.status === "declined";
      const next = p.status ? ITEM_TO_TOOL_STATUS[p.status] : phase === "completed" ? "completed" : "running";
      if (!(done && phase === "updated")) f.status = next ?? f.status;
      const terminalId = terminalRef(p.data);
      if (terminalId !== undefined) {
        const t = S.block(c, step, step.stepId + ":terminal", "terminal", () => ({ streaming: true }), ["text"]);
        t.fields.terminalId = terminalId;
      }
      if (step.itemType === "file_change") {
        const files = diffFiles(p.data);
        if (files.length) {
          const d = S.block(c, step, step.stepId + ":diff", "diff", () => ({ scope: "item", files: [] }), ["output"]);
          d.fields.files = files;
        }
      }
    } else {
      if (b.kind === "text" && b.chunks.text.length === 0 && phase !== "updated") {
        // A user message usually arrives whole in its item data, without deltas.
        const t = userText(p.data, p.title);
        if (t !== undefined && f.role === "user") b.chunks.text.push(t);
      }
    }
    if (phase === "completed") {
      step.completed = true;
      for (const bl of step.blocks) if ("streaming" in bl.fields) bl.fields.streaming = false;
    }
  };
}

function userText(data: any, title: unknown): string | undefined {
  const c = data?.content ?? data?.message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    const t = c.map((x: any) => (typeof x?.text === "string" ? x.text : "")).filter(Boolean).join("\n");
    if (t) return t;
  }
  if (typeof data?.text === "string") return data.text;
  return typeof title === "string" ? title : undefined;
}

function contentDelta(S: State, c: Ctx) {
  const { e, p } = c;
  const route = DELTA_ROUTES[p.streamKind] ?? DELTA_ROUTES.unknown;
  let step: StepState;
  if (e.itemId) {
    step = S.itemStep(c, DELTA_ITEM_TYPE[p.streamKind]);
    if (step.completed) S.problem(c, "update-after-completion", `content.delta (${p.streamKind}) for ${e.itemId} after its completion: appended to its block`);
  } else {
    // A delta without an item: its own stream per turn and kind.
    const t = S.turnOf(c);
    step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:stream:${p.streamKind}`);
    if (!step.itemType) step.itemType = DELTA_ITEM_TYPE[p.streamKind] ?? "unknown";
  }
  c.change.stepId = step.stepId;
  const { block, chunk } = route(S, c, step);
  if (typeof p.delta === "string" && p.delta !== "") (block.chunks[chunk] ??= []).push(p.delta);
}

// ───────────────────────────── requests, questions, tasks ─────────────────────────────

function requestBlock(S: State, c: Ctx, kind: "permission" | "question"): BlockState {
  const { e } = c;
  const id = e.requestId ?? `${e.eventId}`;
  const blockId = id + ":request";
  let step: StepState;
  const existing = c.session.blockIndex.get(blockId);
  if (existing) step = existing.step;
  else if (e.itemId) step = S.itemStep(c);
  else step = S.syntheticStep(c, id);
  c.change.stepId = step.stepId;
  const b = S.block(c, step, blockId, kind, () => ({ state: "open", requestId: e.requestId }));
  if (kind === "question") b.kind = "question";
  if (e.itemId && !existing) {
    const tool = primaryBlockIfTool(S, c, step);
    if (tool) {
      (tool.fields.awaitingRequests as string[]).push(blockId);
      c.session.requestTool.set(blockId, tool.blockId);
    }
  }
  return b;
}

/** The item's tool card, if it has one (a request alone does not make a tool card). */
function primaryBlockIfTool(_S: State, _c: Ctx, step: StepState): BlockState | undefined {
  return step.blockIndex.get(step.stepId + ":tool");
}

function resolveRequest(S: State, c: Ctx, b: BlockState) {
  if (b.fields.state !== "open" && b.sequences.length === 1) S.problem(c, "resolve-without-open", `${c.e.type} for ${c.e.requestId ?? "a request without id"} that was never opened: shown resolved`);
  b.fields.state = "resolved";
  const tool = c.session.requestTool.get(b.blockId);
  if (tool) {
    const tb = S.findBlock(c.session, tool);
    if (tb) tb.fields.awaitingRequests = (tb.fields.awaitingRequests as string[]).filter((x) => x !== b.blockId);
  }
}

function isNewBlock(S: State, c: Ctx, blockId: string) {
  return !c.session.blockIndex.has(blockId);
}

function taskBlock(S: State, c: Ctx, start: boolean): BlockState {
  const { e, p } = c;
  const blockId = `${p.taskId}:task`;
  if (!start && isNewBlock(S, c, blockId)) S.problem(c, "task-without-start", `${e.type} for task ${p.taskId} before task.started: opened implicitly`);
  const existing = c.session.blockIndex.get(blockId);
  const step = existing?.step ?? (e.parentId ? parentStep(S, c) : e.itemId ? S.itemStep(c) : S.syntheticStep(c, String(p.taskId)));
  c.change.stepId = step.stepId;
  return S.block(c, step, blockId, "task", () => ({ taskId: p.taskId, status: "running", progress: [] }));
}

/** The step of e.parentId (a task hangs under its tool use). */
function parentStep(S: State, c: Ctx): StepState {
  const st = c.session.stepIndex.get(c.e.parentId!);
  if (st) return st;
  S.problem(c, "unknown-parent", `${c.e.type} names parent ${c.e.parentId}, never seen: an implicit parent step is created`);
  const ctx: Ctx = { ...c, e: { ...c.e, itemId: c.e.parentId, parentId: undefined } as CanonicalEvent };
  return S.itemStep(ctx);
}

// ───────────────────────────── side-channel records ─────────────────────────────

const MODE_KEYS = ["currentModeId", "mode", "permissionMode", "collaborationMode"];
const MODEL_KEYS = ["model", "currentModelId"];

function modeOf(config: any): { mode?: string; model?: string } {
  const out: { mode?: string; model?: string } = {};
  const m = pick(config, MODE_KEYS) ?? pick(config?.modes, ["currentModeId"]);
  if (typeof m === "string") out.mode = m;
  const model = pick(config, MODEL_KEYS) ?? pick(config?.models, ["currentModelId"]);
  if (typeof model === "string") out.model = model;
  return out;
}

/** A status line (warning, error, state change, notice) in the current turn, or at session level. */
function status(level: StatusBlock["level"], message: (p: any, e: CanonicalEvent) => string) {
  return (S: State, c: Ctx) => {
    const t = S.turnOf(c, !!c.e.turnId);
    // Each status record is its own step at the point it happened (never merged with earlier ones).
    const step = c.e.itemId ? S.itemStep(c) : S.syntheticStep(c, `${c.e.eventId}`, !!t);
    c.change.stepId = step.stepId;
    const b = S.block(c, step, `${c.e.eventId}:status`, "status", () => ({ level, source: c.e.type, message: message(c.p, c.e) }));
    if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
  };
}

/** A record kept on a session/turn field only (no block): the event is still listed in the event log. */
const noBlock = () => undefined;

function usageBlock(S: State, c: Ctx, usage: unknown) {
  const t = S.turnOf(c, !!c.e.turnId);
  c.session.usage = usage;
  if (t) t.fields.usage = usage;
  const step = t ? S.syntheticStep(c, `${t.turnId}:usage`) : S.syntheticStep(c, `${c.session.sessionId}:usage`, false);
  c.change.stepId = step.stepId;
  const b = S.block(c, step, step.stepId, "usage", () => ({ updates: 0 }));
  b.fields.usage = usage;
  b.fields.updates = (b.fields.updates as number) + 1;
}

type Handler = (S: State, c: Ctx) => void;

/** One handler per canonical event type (a new type in canonical.yaml fails typecheck until it is listed here). */
const HANDLERS: Record<CanonicalRuntimeEventType, Handler> = {
  "session.started": noBlock,
  "session.configured": (S, c) => {
    const config = (c.p.config ?? {}) as Record<string, unknown>;
    Object.assign(c.session.config, config);
    const { mode, model } = modeOf(config);
    if (mode === undefined && model === undefined) return;
    const t = S.turnOf(c, false);
    const step = S.syntheticStep(c, `${c.e.eventId}`, !!t);
    c.change.stepId = step.stepId;
    const b = S.block(c, step, `${c.e.eventId}:mode`, "mode", () => ({ config }));
    if (mode !== undefined) b.fields.mode = mode;
    if (model !== undefined) b.fields.model = model;
  },
  "session.state.changed": (S, c) => { c.session.state = c.p.state; },
  "session.exited": status("info", (p) => `session exited${p.reason ? `: ${p.reason}` : ""}`),
  "thread.started": noBlock,
  "thread.state.changed": noBlock,
  "thread.metadata.updated": noBlock,
  "thread.token-usage.updated": (S, c) => usageBlock(S, c, c.p.usage),
  "thread.realtime.started": noBlock,
  "thread.realtime.item-added": noBlock,
  "thread.realtime.audio.delta": noBlock,
  "thread.realtime.error": status("error", (p) => `realtime: ${p.message}`),
  "thread.realtime.closed": noBlock,
  "turn.started": (S, c) => {
    const { e, session } = c;
    const id = e.turnId ?? `${e.eventId}:turn`;
    let t = session.turnIndex.get(id);
    if (t) {
      if (t.implicit) t.implicit = false;
    } else t = S.newTurn(session, id, e, false);
    session.openTurn = t;
    t.sequences.push(e.sequence);
    if (c.p.model) t.fields.model = c.p.model;
    c.change.turnId = t.turnId;
  },
  "turn.completed": (S, c) => endTurn(S, c, c.p.state ?? "completed"),
  "turn.aborted": (S, c) => endTurn(S, c, "aborted"),
  "turn.plan.updated": (S, c) => {
    const { e, p } = c;
    let step: StepState;
    let kind: "plan" | "todo";
    // A checklist tied to an item (a to-do list tool/item) is a todo; the turn's own plan is a plan.
    if (e.itemId) { step = S.itemStep(c, "plan"); kind = "todo"; }
    else { const t = S.turnOf(c); step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:plan`); kind = "plan"; }
    c.change.stepId = step.stepId;
    const b = S.block(c, step, e.itemId ? step.stepId + ":plan" : step.stepId, kind, () => ({ steps: [], updates: 0 }), ["text"]);
    b.kind = kind;
    b.fields.steps = Array.isArray(p.plan) ? p.plan.map((s: any) => ({ step: String(s?.step ?? ""), status: String(s?.status ?? "pending") })) : [];
    if (p.explanation !== undefined) b.fields.explanation = p.explanation;
    b.fields.updates = (b.fields.updates as number) + 1;
  },
  "turn.diff.updated": (S, c) => {
    const t = S.turnOf(c);
    const step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:diff`);
    c.change.stepId = step.stepId;
    const b = S.block(c, step, step.stepId, "diff", () => ({ scope: "turn", files: [] }), ["output"]);
    b.fields.unifiedDiff = String(c.p.unifiedDiff ?? "");
    b.fields.files = filesOfUnifiedDiff(b.fields.unifiedDiff as string);
  },
  "item.started": itemLifecycle("started"),
  "item.updated": itemLifecycle("updated"),
  "item.completed": itemLifecycle("completed"),
  "content.delta": contentDelta,
  "request.opened": (S, c) => {
    const b = requestBlock(S, c, c.p.requestType === "tool_user_input" ? "question" : "permission");
    b.fields.state = "open";
    b.fields.requestType = c.p.requestType;
    if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
    if (c.p.args !== undefined) b.fields.args = c.p.args;
  },
  "request.resolved": (S, c) => {
    const isNew = isNewBlock(S, c, (c.e.requestId ?? c.e.eventId) + ":request");
    const b = requestBlock(S, c, c.p.requestType === "tool_user_input" ? "question" : "permission");
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
    const isNew = isNewBlock(S, c, (c.e.requestId ?? c.e.eventId) + ":request");
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

function endTurn(S: State, c: Ctx, state: string) {
  const { e, session } = c;
  const t = e.turnId ? S.turnOf(c) : session.openTurn;
  if (!t) {
    S.problem(c, "turn-without-start", `${e.type} without a turn to end: ignored`);
    return;
  }
  c.change.turnId = t.turnId;
  t.sequences.push(e.sequence);
  t.state = state === "aborted" ? "aborted" : (["completed", "failed", "interrupted", "cancelled"].includes(state) ? state : "completed") as Turn["state"];
  const p = c.p;
  if (p.stopReason !== undefined) t.fields.stopReason = p.stopReason;
  if (p.errorMessage !== undefined) t.fields.errorMessage = p.errorMessage;
  if (p.reason !== undefined) t.fields.abortReason = p.reason;
  if (p.usage !== undefined) t.fields.usage = p.usage;
  if (p.totalCostUsd !== undefined) t.fields.totalCostUsd = p.totalCostUsd;
  if (session.openTurn === t) session.openTurn = undefined;
  // Close what the turn left open (deterministic; reported once per step).
  const visit = (steps: StepState[]) => {
    for (const st of steps) {
      visit(st.children);
      let open = false;
      for (const b of st.blocks) {
        if (b.fields.streaming === true) b.fields.streaming = false; // e.g. ACP messages have no completion: closed silently
        if (b.kind === "tool" && (b.fields.status === "running" || b.fields.status === "pending")) open = true;
      }
      if (open && st.itemId && !st.completed) S.problem(c, "open-at-turn-end", `item ${st.itemId} (${st.itemType ?? "unknown"}) was still open when turn ${t.turnId} ended (${t.state})`);
    }
  };
  visit(t.steps);
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
  for (const [k, chunks] of Object.entries(b.chunks)) out[k] = chunks.length === 1 ? chunks[0] : chunks.join("");
  out.sequences = b.sequences.slice();
  out.eventIds = b.eventIds.slice();
  return out as Block;
}

function stepJson(st: StepState): Step {
  const out: Step = { stepId: st.stepId, implicit: st.implicit, blocks: st.blocks.map(blockJson), children: st.children.map(stepJson) };
  if (st.itemId !== undefined) out.itemId = st.itemId;
  if (st.itemType !== undefined) out.itemType = st.itemType;
  if (st.parentId !== undefined) out.parentId = st.parentId;
  if (st.providerItemId !== undefined) out.providerItemId = st.providerItemId;
  return out;
}

function turnJson(t: TurnState): Turn {
  const out: Turn = { turnId: t.turnId, index: t.index, state: t.state, implicit: t.implicit, steps: t.steps.map(stepJson), sequences: t.sequences.slice() };
  if (t.threadId !== undefined) out.threadId = t.threadId;
  if (t.providerTurnId !== undefined) out.providerTurnId = t.providerTurnId;
  for (const [k, v] of Object.entries(t.fields)) if (v !== undefined) (out as any)[k] = v;
  return out;
}

// ───────────────────────────── public API ─────────────────────────────

export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  const S = new State();
  const listeners = new Set<(c: AccumulatorChange) => void>();
  const keepLog = options.eventLog !== false;

  function apply(input: unknown): AccumulatorChange | undefined {
    const e = input as CanonicalEvent;
    if (!e || typeof e !== "object" || typeof e.type !== "string" || typeof e.sessionId !== "string" || typeof e.sequence !== "number") {
      S.problem(undefined, "invalid-event", `not a canonical event: ${safeJson(input).slice(0, 120)}`);
      return undefined;
    }
    const handler = Object.hasOwn(HANDLERS, e.type) ? HANDLERS[e.type as CanonicalRuntimeEventType] : undefined;
    const change: AccumulatorChange = { sequence: e.sequence, eventId: String(e.eventId), type: e.type, sessionId: e.sessionId, blockIds: [], problems: [] };
    const session = S.session(e);
    const c: Ctx = { e, p: (e.payload ?? {}) as any, session, change };
    // A duplicate has a sequence already applied (sequences only grow), so only that path looks it up.
    if (e.sequence <= session.lastSequence) {
      if (session.seqIds.get(e.sequence) === e.eventId) {
        S.problem(c, "duplicate-event", `event ${e.eventId} (#${e.sequence} ${e.type}) applied twice: ignored`);
        return undefined;
      }
      S.problem(c, "out-of-order", `#${e.sequence} ${e.type} arrived after #${session.lastSequence}: applied where it lands`);
    } else session.lastSequence = e.sequence;
    session.seqIds.set(e.sequence, e.eventId);
    if (e.sequence > S.lastSequence) S.lastSequence = e.sequence;
    S.eventCount++;
    if (handler) {
      try {
        handler(S, c);
      } catch (err) {
        S.problem(c, "invalid-event", `${e.type} #${e.sequence} could not be applied: ${(err as Error)?.message ?? err}`);
      }
    } else {
      status("warning", () => `unknown canonical event type ${e.type}`)(S, c);
    }
    if (change.turnId === undefined) {
      const t = change.stepId !== undefined ? session.stepIndex.get(change.stepId)?.turn : undefined;
      const tid = t?.turnId ?? e.turnId;
      if (tid !== undefined) change.turnId = tid;
    }
    if (keepLog) {
      const ref: EventRef = { sequence: e.sequence, eventId: change.eventId, type: e.type, sessionId: e.sessionId, blockIds: change.blockIds.slice() };
      if (change.turnId !== undefined) ref.turnId = change.turnId;
      if (change.stepId !== undefined) ref.stepId = change.stepId;
      S.events.push(ref);
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
        sessions: S.sessions.map((s) => {
          const out: Session = { sessionId: s.sessionId, provider: s.provider, threadIds: s.threadIds.slice(), config: { ...s.config }, steps: s.steps.map(stepJson), turns: s.turns.map(turnJson) };
          if (s.state !== undefined) out.state = s.state;
          if (s.usage !== undefined) out.usage = s.usage;
          return out;
        }),
        problems: S.problems.map((p) => ({ ...p })),
      };
      if (keepLog) snap.events = S.events.map((r) => ({ ...r, blockIds: r.blockIds.slice() }));
      return snap;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => { listeners.delete(listener); };
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
