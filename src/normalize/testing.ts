/**
 * Helpers for testing mapping tables (used by the generated example tests; usable from yours).
 * No test-framework imports: they return data, your test asserts.
 */
import { validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";
import { createNormalizer, IMPLICIT_START, type CanonicalEvent } from "./normalizer.js";
import { unwrap } from "../capture/unwrap.js";
import { counterIds, steppingClock } from "./ids.js";
import type { SurfaceTable } from "./table-types.js";

export const ROLE_FIELDS = { thread: "threadId", turn: "turnId", item: "itemId", request: "requestId", parent: "parentId", session: "sessionId", task: "taskId" } as const;

/**
 * Push `given` (setup), then `input`; return the events `input` produced and any that fail the canonical schema.
 * An item.started the runtime synthesizes (raw.rule agentnorm#implicit-start: the item's body came with no start
 * before it) is the runtime's, not the row's: it is left out.
 */
export function runExample(table: SurfaceTable, given: unknown[], input: unknown): { events: CanonicalEvent[]; invalid: { event: CanonicalEvent; errors: unknown }[] } {
  const n = createNormalizer({ surface: table, ids: counterIds(), clock: steppingClock() });
  for (const g of given) {
    const w = unwrap(g);
    n.push(w.message, { direction: w.direction });
  }
  const w = unwrap(input);
  const events = n.push(w.message, { direction: w.direction }).filter((e) => e.raw?.rule !== IMPLICIT_START);
  const invalid = events.filter((e) => !validateCanonicalEvent(e)).map((event) => {
    validateCanonicalEvent(event);
    return { event, errors: (validateCanonicalEvent as any).errors };
  });
  return { events, invalid };
}
