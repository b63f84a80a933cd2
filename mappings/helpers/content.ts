/**
 * Helpers shared by the tables for typed item content (the canonical fields of item payloads): text of tool output,
 * a context-window reading.
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

/** Tool output as text: a string as is, text blocks / ACP content blocks joined, else undefined. */
export function outputText(x: unknown): string | undefined {
  if (typeof x === "string") return x;
  if (!Array.isArray(x)) return undefined;
  const parts: string[] = [];
  for (const b of x) {
    if (typeof b === "string") parts.push(b);
    else if (b && typeof b === "object") {
      const t = (b as any).type === "content" ? (b as any).content : b;
      if (typeof t?.text === "string") parts.push(t.text);
    }
  }
  return parts.length ? parts.join("\n") : undefined;
}
