/**
 * Helpers shared by the tables for typed item content (the canonical fields of item payloads): a context-window
 * reading.
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data.
 */
import { num } from "./lib/shared.js";

/**
 * A context-window reading: `used` tokens of a `size`-token window (canonical ContextUsage), when `used` is a
 * non-negative integer (a size that is not one is left out); undefined otherwise.
 */
export function contextUsage(used: unknown, size: unknown): { usedTokens: number; windowTokens?: number } | undefined {
  const u = num(used);
  if (u === undefined || !Number.isInteger(u) || u < 0) return undefined;
  const w = num(size);
  return w !== undefined && Number.isInteger(w) && w >= 0 ? { usedTokens: u, windowTokens: w } : { usedTokens: u };
}

