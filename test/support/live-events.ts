/**
 * Helpers the live tests share (test/live-*.test.ts with stand-in agents, test/live/*.test.ts with the real ones):
 * reading a session's events up to a condition, a turn's end, streamed text, the figures file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LiveSession } from "../../src/live/types.js";
import type { CanonicalEvent } from "../../src/normalize/normalizer.js";

/** An event's payload, loosely typed (tests read provider-independent fields by name). */
export const P = (e: CanonicalEvent): any => e.payload as any;

/** Read events until `stop` says so (or the events end); returns what was read (appended to `seen`). */
export async function readUntil(s: LiveSession, stop: (e: CanonicalEvent, seen: CanonicalEvent[]) => boolean | Promise<boolean>, seen: CanonicalEvent[] = []): Promise<CanonicalEvent[]> {
  const it = s.events[Symbol.asyncIterator]();
  for (;;) {
    const r = await it.next();
    if (r.done) return seen;
    seen.push(r.value);
    if (await stop(r.value, seen)) return seen;
  }
}

/** Is this the end (turn.completed / turn.aborted) of `turnId` (of any turn when undefined)? */
export const isEnd = (turnId?: string) => (e: CanonicalEvent) => (e.type === "turn.completed" || e.type === "turn.aborted") && (turnId === undefined || e.turnId === turnId);

/** The streamed text of a stream kind, in order. */
export const streamed = (events: CanonicalEvent[], kind = "assistant_text") => events.filter((e) => e.type === "content.delta" && P(e).streamKind === kind).map((e) => P(e).delta).join("");

/** Merge `figures` into test-artifacts/live-figures.json (the closing note's measured figures). */
export function saveFigures(figures: Record<string, unknown>): void {
  mkdirSync("test-artifacts", { recursive: true });
  const file = join("test-artifacts", "live-figures.json");
  const old = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  writeFileSync(file, JSON.stringify({ ...old, ...figures }, null, 2));
}
