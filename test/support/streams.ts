/** Views of a canonical stream shared by the parity tests. */
import type { CanonicalEvent } from "../../src/normalize/normalizer.js";

export interface CompletedItem { type: string; status: string; nested: boolean; text: Record<string, string> }

/** The items of a canonical stream, in completion order: type, status, parent or not, and the text each stream kind delivered. */
export function completedItems(events: CanonicalEvent[]): CompletedItem[] {
  const text = new Map<string, Record<string, string>>();
  const out: CompletedItem[] = [];
  for (const e of events) {
    if (!e.itemId) continue;
    const p = e.payload as any;
    if (e.type === "content.delta") {
      const t = text.get(e.itemId) ?? {};
      t[p.streamKind] = (t[p.streamKind] ?? "") + p.delta;
      text.set(e.itemId, t);
    }
    if (e.type === "item.completed") out.push({ type: p.itemType, status: p.status, nested: !!e.parentId, text: text.get(e.itemId) ?? {} });
  }
  return out;
}
