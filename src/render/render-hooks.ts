/**
 * The render side as capture and replay use it: the accumulator's snapshot (`agentnorm replay` of a
 * normalized_out fixture compares it) and the legacy marker projection (`agentnorm normalize --capture` writes it
 * as legacy_out records; replay of native_in checks it).
 */
import { createAccumulator } from "./accumulator.js";
import { chatEventLine, createChatEventProjector, legacyMarkers } from "./chat-event.js";
import type { CanonicalEvent } from "../normalize/normalizer.js";

/** Apply canonical events (in sequence order) and return a plain-JSON snapshot of the render state. */
export type SnapshotFn = (events: CanonicalEvent[]) => unknown;

/** One canonical event → the legacy marker lines it projects to (e.g. "[CONTENT_DELTA] …"), in order. */
export type LegacyProjection = (event: CanonicalEvent) => string[];

/** The accumulator's snapshot of a canonical stream. */
export const accumulatorSnapshot: SnapshotFn = (events) => {
  const a = createAccumulator();
  for (const e of events) a.apply(e);
  return a.snapshot();
};

/**
 * A fresh legacy projection for one stream (the chat_event projector keeps per-stream state): each canonical event →
 * its legacy marker lines, then one `[CHAT_EVENT] {json}` line per chat_event record — what `agentnorm project
 * --format legacy` prints.
 */
export function createLegacyProjection(): LegacyProjection {
  const projector = createChatEventProjector();
  return (event) => projector.push(event).flatMap((r) => [...legacyMarkers(r), chatEventLine(r)]);
}

/** The marker name of a legacy line ("[CONTENT_DELTA] x" → "[CONTENT_DELTA]"), used as its capture eventType. */
export function legacyEventType(line: string): string {
  const m = /^\[[A-Z_]+\]/.exec(line);
  return m ? m[0] : "legacy";
}
