/** Canonical id factories. A factory returns the part of an id after its kind prefix (`thr_`, `itm_`, …). */
import type { IdKind } from "../generated/canonical.gen.js";

export type IdFactory = (kind: IdKind) => string;

/** Random ids (UUID v4 from the platform's crypto): the default. */
export function randomIds(): IdFactory {
  const c = (globalThis as any).crypto;
  if (c?.randomUUID) return () => c.randomUUID();
  let n = 0;
  const seed = Math.random().toString(36).slice(2, 10);
  return () => `${seed}-${(++n).toString(36)}`;
}

/** Deterministic ids: a counter per kind (`thr_1`, `thr_2`, `itm_1`…). For tests, fixtures and diffs. */
export function counterIds(): IdFactory {
  const counters = new Map<IdKind, number>();
  return (kind) => {
    const n = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, n);
    return String(n);
  };
}

/** A fixed clock that advances one millisecond per call, from `start`. For deterministic output. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => number {
  let t = start;
  return () => t++;
}
