/**
 * Read views over the accumulator's state: plain JSON built on demand and kept until what it shows changes (stable
 * references for unchanged parts: getBlock / getStep / getTurn / getSession), and the fresh copies snapshot() returns.
 */
import type { BlockState, SessionState, StepState, TurnState } from "./state.js";
import type { AccumulatorSnapshot, Block, Session, Step, Turn } from "./types.js";


/** A chunk array's text; the array is compacted to that one string (so the next read joins only what came since). */
export function joined(chunks: string[]): string {
  if (chunks.length === 1) return chunks[0];
  if (chunks.length === 0) return "";
  const s = chunks[0] + (chunks.length === 2 ? chunks[1] : chunks.slice(1).join(""));
  chunks.length = 1;
  chunks[0] = s;
  return s;
}

/** An append-only array as it is now, copied only when read (a streaming block's event list is not copied per delta). */
export function frozenPrefix<T>(out: object, key: string, arr: T[]) {
  const n = arr.length;
  let copy: T[] | undefined;
  Object.defineProperty(out, key, { enumerable: true, configurable: true, get: () => (copy ??= arr.slice(0, n)) });
}

/** Up to this many events a view's `sequences` / `eventIds` are copied when it is built (cheaper than defining a
 *  getter); a longer list (a streaming block's) is copied only when read, so a view costs O(1) however long it is. */
export const COPY_AT_ONCE = 32;

export function blockView(b: BlockState): Block {
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
export function stepOf(st: StepState, block: (b: BlockState) => Block, step: (x: StepState) => Step): Step {
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
export function turnShape(t: TurnState, step: (x: StepState) => Step): Turn {
  const out: Turn = { turnId: t.turnId, index: t.index, state: t.state, implicit: t.implicit, steps: t.steps.map(step), sequences: t.sequences.slice() };
  if (t.threadId !== undefined) out.threadId = t.threadId;
  if (t.providerTurnId !== undefined) out.providerTurnId = t.providerTurnId;
  for (const [k, v] of Object.entries(t.fields)) if (v !== undefined) (out as any)[k] = v;
  return out;
}

export function stepView(st: StepState): Step {
  return st.view ?? (st.view = stepOf(st, blockView, stepView));
}

export function turnView(t: TurnState): Turn {
  return t.view ?? (t.view = turnShape(t, stepView));
}

/** A session as plain JSON, its live steps and turns made by `step` / `turn` (the read views or fresh copies). */
export function sessionOf(s: SessionState, step: (x: StepState) => Step, turn: (x: TurnState) => Turn): Session {
  const steps = s.stepsHead ? s.steps.slice(s.stepsHead) : s.steps;
  const turns = s.retiredInTurns ? s.turns.filter((t) => !t.retired) : s.turns;
  const out: Session = { sessionId: s.sessionId, provider: s.provider, threadIds: s.threadIds.slice(), config: { ...s.config }, steps: steps.map(step), turns: turns.map(turn) };
  if (s.state !== undefined) out.state = s.state;
  if (s.usage !== undefined) out.usage = s.usage;
  if (s.tokens !== undefined) out.tokens = s.tokens;
  if (s.context !== undefined) out.context = s.context;
  return out;
}

export function sessionView(s: SessionState): Session {
  if (s.view) return s.view;
  return (s.view = sessionOf(s, stepView, turnView));
}

// ───────────────────────────── snapshot ─────────────────────────────

export function blockJson(b: BlockState): Block {
  const out: any = { blockId: b.blockId, kind: b.kind };
  for (const [k, v] of Object.entries(b.fields)) if (v !== undefined) out[k] = Array.isArray(v) ? v.slice() : v;
  for (const [k, chunks] of Object.entries(b.chunks)) out[k] = joined(chunks);
  out.sequences = b.sequences.slice();
  out.eventIds = b.eventIds.slice();
  return out as Block;
}

export function stepJson(st: StepState): Step {
  return stepOf(st, blockJson, stepJson);
}

export function turnJson(t: TurnState): Turn {
  return turnShape(t, stepJson);
}

export function safeJson(v: unknown): string {
  try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
}

/** Every block of a snapshot in render order (depth-first: session steps, then each turn's steps and their children). */
export function snapshotBlocks(snap: AccumulatorSnapshot): Block[] {
  const out: Block[] = [];
  const visit = (steps: Step[]) => { for (const st of steps) { out.push(...st.blocks); visit(st.children); } };
  for (const s of snap.sessions) { visit(s.steps); for (const t of s.turns) visit(t.steps); }
  return out;
}
