/** Small utilities the generated row functions use (not callable from YAML). */

/** The value when it is an array, else an empty one (replay over absent lists does nothing). */
export function arr(x: unknown): readonly any[] {
  return Array.isArray(x) ? x : [];
}
