/** Shared by the cursor-sdk tests: a deterministic run of the surface over lines (validate: true), and readers. */
import { createNormalizer, type CanonicalEvent } from "../../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../../src/normalize/ids.js";

export function runCursorSdk(input: string[]): CanonicalEvent[] {
  const n = createNormalizer({ surface: "cursor-sdk", ids: counterIds(), clock: steppingClock(), validate: true });
  const events: CanonicalEvent[] = [];
  for (const l of input) events.push(...n.pushLine(l));
  events.push(...n.end());
  return events;
}
export const P = (e: CanonicalEvent | undefined): any => e?.payload as any;
export const completed = (events: CanonicalEvent[], itemType: string) => events.filter((e) => e.type === "item.completed" && P(e).itemType === itemType);
