/**
 * Upstream version ranges: which pinned upstream version of a table a stream is, and whether a row or ignore entry
 * applies to it. Codegen parses the ranges of the tables (`versions: ">=0.3"`) into the list of pinned versions each
 * row applies to; the runtime only picks the pinned version in effect (from what the stream reports, or the
 * normalizer's `upstreamVersion` option) and compares strings.
 */

/** A version as numbers: "2.1.333" → [2, 1, 333]; undefined when it is not numbers separated by dots. */
export function versionParts(v: string): number[] | undefined {
  const m = /^v?(\d+(?:\.\d+)*)(?:[-+].*)?$/.exec(v.trim());
  return m ? m[1].split(".").map(Number) : undefined;
}

/** Compare two versions (missing parts count as 0): negative, 0 or positive. */
export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface Comparator { op: ">=" | ">" | "<=" | "<" | "="; version: number[] }

/** A range's comparators (all must hold), or a message saying what is wrong with it. */
export function parseRange(range: string): Comparator[] | { error: string } {
  const parts = range.trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return { error: "an empty version range" };
  const out: Comparator[] = [];
  for (const p of parts) {
    const m = /^(>=|<=|>|<|=)?(.*)$/.exec(p)!;
    const version = versionParts(m[2]);
    if (!version) return { error: `"${p}" is not a comparator (OP VERSION: >=, >, <=, <, = and numbers separated by dots, e.g. ">=0.3")` };
    out.push({ op: (m[1] ?? "=") as Comparator["op"], version });
  }
  return out;
}

export function satisfies(version: string, range: Comparator[]): boolean {
  const v = versionParts(version);
  if (!v) return false;
  return range.every((c) => {
    const d = compareVersions(v, c.version);
    return c.op === ">=" ? d >= 0 : c.op === ">" ? d > 0 : c.op === "<=" ? d <= 0 : c.op === "<" ? d < 0 : d === 0;
  });
}

/** A table's pinned versions: the version and what a stream of that version reports (if the table says). */
export interface PinnedVersions {
  /** The table's own `upstream.version`: in effect while the stream has not said otherwise. */
  current: string;
  pinned: readonly { version: string; reports?: string }[];
}

/**
 * The pinned version a stated version selects: a pinned version named exactly (its own number or what it reports);
 * else the newest pinned version whose reported version (or, without one, whose own number) is at most the stated
 * one; else the oldest. A text that is not a version selects nothing.
 */
export function selectPinned(p: PinnedVersions, stated: string): string | undefined {
  const exact = p.pinned.find((x) => x.version === stated || x.reports === stated);
  if (exact) return exact.version;
  const v = versionParts(stated);
  if (!v) return undefined;
  const keyed = p.pinned
    .map((x) => ({ version: x.version, key: versionParts(x.reports ?? x.version) }))
    .filter((x): x is { version: string; key: number[] } => !!x.key)
    .sort((a, b) => compareVersions(a.key, b.key));
  if (!keyed.length) return undefined;
  let pick = keyed[0].version;
  for (const x of keyed) if (compareVersions(x.key, v) <= 0) pick = x.version;
  return pick;
}
