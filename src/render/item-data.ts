/**
 * Where the render side finds things inside a canonical item's `data` / a session's config (provider-shaped
 * payloads kept whole): key lists, tried in order. Shared by the accumulator and the chat_event projection so both
 * read the same field.
 */

/** The first of `keys` that `o` has with a value (not undefined / null). */
export function pick(o: any, keys: readonly string[]): unknown {
  if (!o || typeof o !== "object") return undefined;
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

/** A tool item's input. */
export const INPUT_KEYS = ["input", "rawInput", "arguments", "args", "command", "query", "url"] as const;
/** A tool item's result or output. */
export const RESULT_KEYS = ["result", "output", "rawOutput", "aggregatedOutput", "aggregated_output", "content", "error"] as const;
/** A session config's mode and model. */
export const MODE_KEYS = ["currentModeId", "mode", "permissionMode", "collaborationMode"] as const;
export const MODEL_KEYS = ["model", "currentModelId"] as const;
