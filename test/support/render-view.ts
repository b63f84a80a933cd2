/**
 * A timing- and id-independent view of an accumulator snapshot, for live/restored parity: the render groups
 * (turns → steps → blocks) with their content and state, minted canonical ids renamed by first appearance,
 * and the event bookkeeping (sequences, eventIds, the event log) left out.
 */
import type { AccumulatorSnapshot, Block, Step } from "../../src/render/accumulator.js";

export interface ViewOptions {
  /** Block kinds to leave out (side channels one form lacks by construction, e.g. usage or permission). */
  omitKinds?: string[];
  /** Map a block to the fields compared (default: everything but bookkeeping and provider data). */
  blockFields?: (b: Block) => Record<string, unknown>;
}

const BOOKKEEPING = new Set(["sequences", "eventIds", "data", "blockId"]);

export function defaultBlockFields(b: Block): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (!BOOKKEEPING.has(k)) out[k] = v;
  return out;
}

export function renderView(snap: AccumulatorSnapshot, opts: ViewOptions = {}) {
  const omit = new Set(opts.omitKinds ?? []);
  const fields = opts.blockFields ?? defaultBlockFields;
  const step = (st: Step): unknown => {
    const blocks = st.blocks.filter((b) => !omit.has(b.kind)).map((b) => ({ kind: b.kind, ...fields(b) }));
    const children = st.children.map(step).filter((x) => x !== undefined);
    if (!blocks.length && !children.length) return undefined;
    return { itemType: st.itemType ?? null, nested: st.parentId !== undefined, blocks, children };
  };
  const view = snap.sessions.map((s) => ({
    steps: s.steps.map(step).filter((x) => x !== undefined),
    turns: s.turns.map((t) => ({ state: t.state, steps: t.steps.map(step).filter((x) => x !== undefined) })),
  }));
  return renameIds(view);
}

/** Rename minted canonical ids (itm_3, req_1, tsk_2, trn_1 …, also inside blockIds) in order of first appearance. */
export function renameIds<T>(v: T): T {
  const names = new Map<string, string>();
  const text = JSON.stringify(v).replace(/\b(evt|ses|thr|trn|itm|req|tsk)_[0-9a-zA-Z]+\b/g, (id, kind) => {
    let n = names.get(id);
    if (!n) { n = `${kind}#${[...names.keys()].filter((k) => k.startsWith(kind + "_")).length + 1}`; names.set(id, n); }
    return n;
  });
  return JSON.parse(text);
}
