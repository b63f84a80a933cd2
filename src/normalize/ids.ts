/** Canonical id factories. A factory returns the part of an id after its kind prefix (`thr_`, `itm_`, …). */
import type { IdKind } from "../../generated/canonical.gen.js";

export type IdFactory = (kind: IdKind) => string;

/**
 * The default: a random 16-character prefix per factory (≈ 82 bits from the platform's crypto) plus a counter
 * per kind, e.g. `itm_k3j2h4g5f6d7s8a9-1f`. Unique across sessions, and cheap enough to mint one per event.
 */
export function randomIds(): IdFactory {
  const c = (globalThis as any).crypto;
  const bytes = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
  const prefix = Array.from(bytes, (b) => alphabet[b % 36]).join("");
  const counters: Partial<Record<IdKind, number>> = {};
  return (kind) => {
    const n = (counters[kind] ?? 0) + 1;
    counters[kind] = n;
    return `${prefix}-${n.toString(36)}`;
  };
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
