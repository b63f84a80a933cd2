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
 * Does this value nest deeper than `max`? Iterative (no stack to blow). By default it looks at every node (a reader
 * that serializes the value must know); the normalizer gives a `budget` of nodes, past which a huge but so-far-shallow
 * value is let through to the mapping.
 */
export function valueNestsDeeper(root: unknown, max = MAX_NESTING, budget = Infinity): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  let seen = 0;
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d >= max) return true;
    if (++seen > budget) return false;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push([v[i], d + 1]);
    else for (const k in v) stack.push([(v as Record<string, unknown>)[k], d + 1]);
  }
  return false;
}

/** JSON text of `v`, or undefined when it nests deeper than `max` (then JSON.stringify could overflow the stack). */
export function stringifyBounded(v: unknown, max = MAX_NESTING): string | undefined {
  if (v !== null && typeof v === "object" && valueNestsDeeper(v, max)) return undefined;
  return JSON.stringify(v);
}
