/**
 * Retention (`retainTurns`): ended turns beyond the N most recent are retired with their steps, blocks, index entries
 * and event-log entries; late events for retired state are recognised by tombstones and ignored.
 */
import type { Bucket, Ctx, EraBucket, SessionState, State, StepState, TurnState } from "./state.js";
import type { AccumulatorChange } from "./types.js";

// ── retainTurns: retirement (every structure shrinks; each entry is removed once, so apply stays O(1) amortised) ──

/** The bucket of the session's records in the current era. */
export function era(S: State, session: SessionState): EraBucket {
  const last = session.eras.length > session.erasHead ? session.eras[session.eras.length - 1] : undefined;
  if (last && last.era === session.turnCount) return last;
  const b: EraBucket = { era: session.turnCount, retired: false, seqs: [] };
  session.eras.push(b);
  return b;
}

/** Why an event is for retired state (to be ignored), or undefined. */
export function lateForRetired(S: State, c: Ctx): string | undefined {
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
export function retire(S: State, session: SessionState, keepLog: boolean) {
  const retain = S.retain!;
  let any = false;
  while (session.endedTurns.length - session.endedHead > retain) {
    retireTurn(S, session, session.endedTurns[session.endedHead++]);
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
    retireStep(S, session, steps[session.stepsHead++], undefined);
    S.retired.sessionSteps++;
  }
  if (session.stepsHead > 64 && session.stepsHead * 2 > steps.length) {
    session.steps = steps.slice(session.stepsHead);
    session.stepsHead = 0;
  }
  const eras = session.eras;
  while (session.erasHead < eras.length && eras[session.erasHead].era < session.horizon) retireBucket(S, session, eras[session.erasHead++]);
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
  if (keepLog && S.events.length >= S.logCompactAt) {
    const events: AccumulatorChange[] = [];
    const owners: Bucket[] = [];
    for (let i = 0; i < S.events.length; i++) {
      if (!S.eventOwners[i].retired) { events.push(S.events[i]); owners.push(S.eventOwners[i]); }
    }
    S.events = events;
    S.eventOwners = owners;
    S.logCompactAt = Math.max(4096, 2 * events.length);
  }
}

export function retireTurn(S: State, session: SessionState, t: TurnState) {
  t.retired = true;
  session.retiredInTurns++;
  S.retired.turns++;
  if (session.turnIndex.get(t.turnId) === t) session.turnIndex.delete(t.turnId);
  if (session.openTurn === t) session.openTurn = undefined;
  const ids: string[] = [t.turnId];
  for (const st of t.steps) retireStep(S, session, st, ids);
  t.steps = [];
  retireBucket(S, session, t);
  if (t.index + 1 > session.horizon) session.horizon = t.index + 1;
  // Remember the ids of the most recently retired turns (at least 8) so late events for them are recognised.
  session.tombs.push(ids);
  for (const id of ids) session.tomb.add(id);
  const window = Math.max(S.retain!, 8);
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
export function retireStep(S: State, session: SessionState, st: StepState, ids: string[] | undefined) {
  if (session.stepIndex.get(st.stepId) === st) session.stepIndex.delete(st.stepId);
  ids?.push(st.stepId);
  for (const b of st.blocks) {
    if (session.blockIndex.get(b.blockId) === b) session.blockIndex.delete(b.blockId);
    session.requestTool.delete(b.blockId);
    ids?.push(b.blockId);
  }
  for (const child of st.children) retireStep(S, session, child, ids);
}

export function retireBucket(S: State, session: SessionState, b: Bucket) {
  for (const seq of b.seqs) {
    (session.seqIds as Map<number, string>).delete(seq); // a bounded accumulator's sessions index sequences in a Map
    if (seq > session.retiredMaxSeq) session.retiredMaxSeq = seq;
  }
  S.retired.events += b.seqs.length;
  b.seqs = [];
  b.retired = true;
}
