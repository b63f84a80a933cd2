/**
 * How deep JSON may nest before a reader refuses it: the normalizer (src/normalize/engine.ts) reports a line or
 * message nesting deeper than MAX_NESTING as a validation_error and maps nothing of it; every other reader (`view`,
 * a JSON-array input) uses the same limit and the same checks, so no input reaches a recursive walk
 * (JSON.stringify, a deep copy) that could overflow the stack. No Node APIs.
 */
/** Deepest nesting of a provider message the runtime maps (deeper: a validation_error; its events could not be serialized). */
export const MAX_NESTING = 1000;

/** The message every reader gives for such a line (`line N: ` before it when the line is known). */
export const TOO_DEEP = `JSON nests deeper than ${MAX_NESTING} levels: not mapped`;

/** A JSON text nesting one level deeper than MAX_NESTING: what a too-deep element of a JSON-array input becomes (every reader then reports it as too deep). */
export const TOO_DEEP_TEXT = "[".repeat(MAX_NESTING + 1) + "]".repeat(MAX_NESTING + 1);

/** Does this JSON text nest deeper than `max`? (A scan that skips strings; no parsing.) */
export function textNestsDeeper(text: string, max = MAX_NESTING): boolean {
  // Fewer than `max` brackets in all can't nest deeper (native indexOf: most lines never reach the scan below).
  if (text.length <= 2 * max) return false;
  let brackets = 0;
  for (let i = text.indexOf("{"); i !== -1 && brackets <= max; i = text.indexOf("{", i + 1)) brackets++;
  for (let i = text.indexOf("["); i !== -1 && brackets <= max; i = text.indexOf("[", i + 1)) brackets++;
  if (brackets <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) { if (++depth > max) return true; }
    else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * Does this value nest deeper than `max` (at most RECURSE_MAX)? A recursive walk, allocation-free, whose depth is
 * bounded by `max`. By default it looks at every node (a reader that serializes the value must know); the normalizer
 * gives a `budget` of nodes, past which a huge but so-far-shallow value is let through to the mapping.
 */
export function valueNestsDeeper(root: unknown, max = MAX_NESTING, budget = Infinity): boolean {
  if (root === null || typeof root !== "object") return false;
  if (max > RECURSE_MAX) throw new RangeError(`valueNestsDeeper: max ${max} is above ${RECURSE_MAX}, deeper than the walk recurses`);
  walk.seen = 0;
  walk.budget = budget;
  return deeperThan(root, 0, max) === 1;
}

/** The deepest `max` the recursive walk takes (1,000 levels of a small frame are far inside Node's stack). */
const RECURSE_MAX = 2000;
/** The recursive walk's node count and budget (module state: the walk calls nothing that could re-enter it). */
const walk = { seen: 0, budget: Infinity };

/** 1: `v` (at depth `d`) nests deeper than `max`; 2: the node budget ran out first; 0: neither. */
function deeperThan(v: object, d: number, max: number): number {
  if (d >= max) return 1;
  if (++walk.seen > walk.budget) return 2;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x !== null && typeof x === "object") { const r = deeperThan(x, d + 1, max); if (r !== 0) return r; }
    }
  } else {
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === "object") { const r = deeperThan(x, d + 1, max); if (r !== 0) return r; }
    }
  }
  return 0;
}

/** JSON text of `v`, or undefined when it nests deeper than `max` (then JSON.stringify could overflow the stack). */
export function stringifyBounded(v: unknown, max = MAX_NESTING): string | undefined {
  if (v !== null && typeof v === "object" && valueNestsDeeper(v, max)) return undefined;
  return JSON.stringify(v);
}

/**
 * Parsed values (a JSON array's elements, a document's messages) as the lines readers take: each one's JSON text; one
 * nesting deeper than `max` becomes a text that nests deeper (every reader reports it as such), not serialized
 * (JSON.stringify would overflow the stack).
 */
export function valueLines(values: readonly unknown[], max = MAX_NESTING): string[] {
  return values.map((x) => stringifyBounded(x, max) ?? TOO_DEEP_TEXT);
}
