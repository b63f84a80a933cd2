/**
 * ── INTEGRATION POINT (coordinator) ─────────────────────────────────────────────────────────────────────────
 * The render side is built on other branches: the accumulator (src/accumulator.ts: createAccumulator(),
 * apply(event), snapshot()) and the chat_event / legacy-marker projection. Capture and replay take them from
 * here, so wiring them in is a change to this file only:
 *
 *   import { createAccumulator } from "./accumulator.js";
 *   export const accumulatorSnapshot: SnapshotFn | undefined = (events) => {
 *     const a = createAccumulator();
 *     for (const e of events) a.apply(e);
 *     return a.snapshot();
 *   };
 *
 *   export const legacyProjection: LegacyProjection | undefined = <canonical event → marker lines>;
 *
 * Until then:
 *  - `agentnorm replay` of a normalized_out fixture snapshots the canonical events themselves (eventsSnapshot
 *    in src/replay.ts) instead of an accumulator snapshot;
 *  - `agentnorm normalize --capture` writes no legacy_out records, and replay does not check them.
 * After wiring the accumulator, re-record the normalized_out expectations and review them:
 *   agentnorm replay --update fixtures/replay/acp-approval.events.ndjson
 */
import type { CanonicalEvent } from "./normalizer.js";

/** Apply canonical events (in sequence order) and return a plain-JSON snapshot of the render state. */
export type SnapshotFn = (events: CanonicalEvent[]) => unknown;

/** One canonical event → the legacy marker lines it projects to (e.g. "[CONTENT_DELTA] …"), in order. */
export type LegacyProjection = (event: CanonicalEvent) => string[];

/** WIRE: the accumulator's snapshot (see above). */
export const accumulatorSnapshot: SnapshotFn | undefined = undefined;

/** WIRE: the legacy marker projection (see above). */
export const legacyProjection: LegacyProjection | undefined = undefined;

/** The marker name of a legacy line ("[CONTENT_DELTA] x" → "[CONTENT_DELTA]"), used as its capture eventType. */
export function legacyEventType(line: string): string {
  const m = /^\[[A-Z_]+\]/.exec(line);
  return m ? m[0] : "legacy";
}
