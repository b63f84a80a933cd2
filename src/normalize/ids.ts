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

/**
 * The canonical session id of a stored provider session: the same for every reader of it — agentnorm/sessions'
 * openSession and listSessions, and the live layer's connect({ resume }) — so a history opened from disk and the
 * live session that continues it are one canonical session. A hash (FNV-1a, 64 bits) of the store's agent name and
 * the provider's id: deterministic, and not the provider id itself.
 */
export function storedSessionId(agent: string, providerSessionId: string): string {
  return `ses_${fnv64(`${agent}\u0000${providerSessionId}`)}`;
}

/**
 * The ids of a stored session's canonical stream: its session id (storedSessionId) and its first thread's (the
 * provider session's own thread, `thr_` + the same hash); every other id from `base` (default: random).
 */
export function storedSessionIds(agent: string, providerSessionId: string, base: IdFactory = randomIds()): IdFactory {
  const hash = fnv64(`${agent}\u0000${providerSessionId}`);
  const given = new Set<IdKind>();
  return (kind) => {
    if ((kind === "RuntimeSessionId" || kind === "ThreadId") && !given.has(kind)) {
      given.add(kind);
      return hash;
    }
    return base(kind);
  };
}

/** FNV-1a, 64 bits, of a string's UTF-16 code units, as 16 hex digits. */
function fnv64(s: string): string {
  // two 32-bit halves (no BigInt per character): h = (h ^ c) * 0x100000001b3 mod 2^64
  let hi = 0xcbf29ce4, lo = 0x84222325;
  for (let i = 0; i < s.length; i++) {
    lo ^= s.charCodeAt(i);
    // (hi:lo) * (0x100:0x000001b3)
    const l0 = lo & 0xffff, l1 = lo >>> 16;
    const pLo0 = l0 * 0x1b3;
    const pLo1 = l1 * 0x1b3 + (pLo0 >>> 16);
    const newLo = ((pLo1 & 0xffff) << 16) | (pLo0 & 0xffff);
    const carry = pLo1 >>> 16;
    hi = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + carry) >>> 0;
    lo = newLo >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}
