/**
 * Identity and ordering: the accumulator's internal mutable state (sessions, turns, steps, blocks, each indexed by its
 * canonical id), the per-event context, and the rules that place an event (its turn, its step, its block). The
 * read views built over this state are invalidated here when it changes (src/render/accumulator/views.ts builds them).
 */
import type { CanonicalItemType, ProviderKind, ProviderRuntimeEventV2 } from "../../../generated/canonical.gen.js";
import type { AccumulatorChange, Block, BlockKind, ContextUsage, Problem, ProblemKind, RetiredCounts, Session, Step, TokenUsage, Turn } from "./types.js";
import { SeqLog } from "./seq-log.js";
import type { ItemSuffix } from "../rules.js";

export type CanonicalEvent = ProviderRuntimeEventV2;

/** One handler per canonical event type: it changes the state for one event (src/render/accumulator/handlers.ts). */
export type Handler = (S: State, c: Ctx) => void;

/** Shared by changes without problems (replaced by a fresh array on the first one). */
export const NO_PROBLEMS: Problem[] = [];
/** No block yet (replaced by a fresh array on the first; never handed out). */
export const NO_IDS: string[] = [];
/** No block yet (a step's blocks until its first; never mutated). */
export const NO_BLOCKS: BlockState[] = [];

/** A block's chunk arrays (streamed text, joined when read), by name. */
export function noChunks(): Record<string, string[]> { return {}; }
export function textChunk(): Record<string, string[]> { return { text: [] }; }
export function outputChunk(): Record<string, string[]> { return { output: [] }; }

// ───────────────────────────── internal (mutable) state ─────────────────────────────

// (classes with every field set in the constructor: one shape each, so the handlers' reads stay fast)

export class BlockState {
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

export class StepState {
  readonly stepId: string;
  itemId: string | undefined = undefined;
  itemType: CanonicalItemType | undefined = undefined;
  parentId: string | undefined = undefined;
  providerItemId: string | undefined = undefined;
  implicit: boolean;
  started = false;
  completed = false;
  superseded: boolean | undefined = undefined;
  /** A tool item's name: its first title (kept for the tool's lifetime; not part of the views). */
  name: string | undefined = undefined;
  background: boolean | undefined = undefined;
  /** A command's output its item.started carried (restored history), until the completion (not part of the views). */
  startOutput: string | undefined = undefined;
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
export interface Bucket {
  retired: boolean;
  /** Sequences of the events attributed to it (their seqIds entries are deleted on retirement). */
  seqs: number[];
}
export interface EraBucket extends Bucket { era: number }

export interface TurnState {
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

export interface SessionState {
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
export class Ctx {
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
/** The tombstones of an unbounded accumulator's sessions (it retires nothing): always empty. */
export const NO_TOMBS: Set<string> = new Set();

/** The state shared by the handlers. */
export class State {
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

}


/** A new block in `step`, made by the event of `c` (what touch() records for it, without the lookups). */
export function newBlock(c: Ctx, step: StepState, blockId: string, kind: BlockKind, fields: Record<string, unknown>, chunks: Record<string, string[]>): BlockState {
  const block = new BlockState(blockId, kind, c.sequence, c.eventId, chunks, fields, step);
  c.session.blockIndex.set(blockId, block);
  if (step.blocks === NO_BLOCKS) step.blocks = [block];
  else step.blocks.push(block);
  if (step.view !== undefined) invalidateStep(step);
  if (c.blockIds === NO_IDS) c.blockIds = [blockId];
  else if (!c.blockIds.includes(blockId)) c.blockIds.push(blockId);
  return block;
}

export function touch(c: Ctx, b: BlockState) {
  if (b.view !== undefined || b.step.view !== undefined) invalidateBlock(b);
  const last = b.sequences.length - 1;
  if (last >= 0 && b.eventIds[last] === c.eventId) return;
  b.sequences.push(c.sequence);
  b.eventIds.push(c.eventId);
  if (c.blockIds === NO_IDS) c.blockIds = [b.blockId];
  else if (!c.blockIds.includes(b.blockId)) c.blockIds.push(b.blockId);
}

/** A block changed by an event as a side effect (it is not one the event built): listed in changedBlockIds. */
export function sideChange(c: Ctx, b: BlockState) {
  invalidateBlock(b);
  (c.extra ??= []).push(b);
}

// ── read views: built on demand, kept until what they show changes (stable references for unchanged parts) ──
// Invariant: a built view's parts are built views, so a part without a view has ancestors without one either;
// invalidation walks up only until it meets one (O(1) amortised per change).

export function invalidateBlock(b: BlockState) {
  b.view = undefined;
  invalidateStep(b.step);
}

export function invalidateStep(st: StepState) {
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

