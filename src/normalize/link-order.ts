/**
 * Records linked by parent ids, put in conversation order: the order a stored Claude Code transcript is read in, both
 * by openSession (agentnorm/sessions) and by the live driver's load() — one copy of the rule.
 *
 * Records with an id form a tree by their first parent that names a record of the same set; the tree is walked
 * depth-first (children in input order), then any record no walk reached (in input order, each with what hangs from
 * it). Records without an id go before the first tree record later than them (by time), the rest at the end.
 */
export interface LinkRef {
  /** The record's own id (undefined: a record outside the tree). */
  id?: string;
  /** Its parent ids, in order of preference. */
  parents: readonly string[];
  /** Its time (epoch ms; NaN when unknown). */
  time: number;
}

/** The indices of `refs` in conversation order. */
export function linkOrder(refs: readonly LinkRef[]): number[] {
  const ids = new Set<string>();
  for (const r of refs) if (r.id !== undefined) ids.add(r.id);
  const children = new Map<string | null, number[]>();
  refs.forEach((r, i) => {
    if (r.id === undefined) return;
    const parent = r.parents.find((p) => ids.has(p)) ?? null;
    const list = children.get(parent);
    if (list) list.push(i);
    else children.set(parent, [i]);
  });
  const tree: number[] = [];
  const seen = new Uint8Array(refs.length);
  const stack: number[] = [];
  const visit = () => {
    while (stack.length) {
      const i = stack.pop()!;
      if (seen[i]) continue;
      seen[i] = 1;
      tree.push(i);
      const kids = children.get(refs[i]!.id!) ?? [];
      for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
    }
  };
  const roots = children.get(null) ?? [];
  for (let k = roots.length - 1; k >= 0; k--) stack.push(roots[k]!);
  visit();
  refs.forEach((r, i) => { if (r.id !== undefined && !seen[i]) { stack.push(i); visit(); } });
  const loose: number[] = [];
  refs.forEach((r, i) => { if (r.id === undefined) loose.push(i); });
  const out: number[] = [];
  let j = 0;
  for (const i of tree) {
    while (j < loose.length && !(refs[loose[j]!]!.time > refs[i]!.time)) out.push(loose[j++]!);
    out.push(i);
  }
  while (j < loose.length) out.push(loose[j++]!);
  return out;
}
