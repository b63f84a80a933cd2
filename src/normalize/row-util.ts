/** Small utilities the generated row functions use (not callable from YAML). */

/** The value when it is an array, else an empty one (replay over absent lists does nothing). */
export function arr(x: unknown): readonly any[] {
  return Array.isArray(x) ? x : [];
}

/** `$join`: a composite key, the parts joined with ":" (undefined when any part is missing). */
export function joinKey(...parts: unknown[]): string | undefined {
  if (parts.some((p) => p === undefined || p === null || (typeof p !== "string" && typeof p !== "number"))) return undefined;
  return parts.map(String).join(":");
}
