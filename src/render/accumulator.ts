/**
 * The render accumulator: canonical events in, render groups out (session → turns → steps → blocks). It is the render
 * side's one state machine: the chat_event projection (chat-event.ts), the terminal render (render-text.ts) and
 * transcript (transcript.ts), and the viewer's cards (src/view/transcript-view.ts) are views of its state and changes.
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
 * Its parts, by concern (src/render/accumulator/): types.ts (the public types), state.ts and seq-log.ts (identity and
 * ordering), items.ts (blocks per item type), requests.ts (requests, questions, tasks), records.ts (turns, plans,
 * todos, usage, mode, status), handlers.ts (the dispatch by canonical event type), retain.ts and views.ts (retention
 * and the read views); the rules they share with the views are in src/render/rules.ts. The snapshot shape is
 * documented in docs/accumulator.md.
 */
import { InvalidOptionError } from "../errors.js";
import { HANDLER_OF } from "./accumulator/handlers.js";
import { era, lateForRetired, retire } from "./accumulator/retain.js";
import { Ctx, invalidateStep, NO_IDS, State, type Bucket, type CanonicalEvent, type SessionState } from "./accumulator/state.js";
import { ACCUMULATOR_SNAPSHOT_VERSION, type Accumulator, type AccumulatorChange, type AccumulatorOptions, type AccumulatorSnapshot, type AccumulatorStats, type EventRef } from "./accumulator/types.js";
import { blockView, safeJson, sessionOf, sessionView, stepJson, stepView, turnJson, turnView } from "./accumulator/views.js";

export * from "./accumulator/types.js";
export { snapshotBlocks } from "./accumulator/views.js";

export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  return accumulatorWithState(options).accumulator;
}

/**
 * An accumulator and its internal state, for the views in this package that read it as it changes (the chat_event
 * projection). Not part of the public API.
 */
export function accumulatorWithState(options: AccumulatorOptions = {}): { accumulator: Accumulator; state: State } {
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
      const why = lateForRetired(S, c);
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
      const owner: Bucket = turn ?? era(S, session);
      owner.seqs.push(sequence);
      if (keepLog) S.eventOwners.push(owner);
      if (session.endedTurns.length - session.endedHead > S.retain) retire(S, session, keepLog);
    }
    for (const l of listeners) l(change);
    return change;
  }

  const accumulator: Accumulator = {
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
  return { accumulator, state: S };
}

