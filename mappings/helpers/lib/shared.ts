/** Types and small utilities the helper modules share (not helpers themselves: this folder is not scanned). */

export type FileChange = { path: string; change: "add" | "update" | "delete" | "move"; movePath?: string; diff?: string };

/** A whole-file diff: every old line removed, every new line added (for tools that carry texts, not patches). */
export function wholeFileDiff(file: string, before: string, after: string): string {
  const lines = (s: string) => (s === "" ? [] : s.replace(/\n$/, "").split("\n"));
  const a = lines(before);
  const b = lines(after);
  return [`--- a/${file}`, `+++ b/${file}`, `@@ -${a.length ? 1 : 0},${a.length} +${b.length ? 1 : 0},${b.length} @@`, ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join("\n");
}

/** POSIX shell quoting of one argv element (the DSL's, for `$shell`). */
export { shellQuote } from "../../../src/normalize/row-util.js";

/** A title-length text: longer texts end with "…". */
export function clip(s: string, n = 160): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/** A number when the value is a finite number (or a numeric string), else undefined (the DSL's `$number`). */
export function num(x: unknown): number | undefined {
  if (typeof x === "number" && Number.isFinite(x)) return x;
  if (typeof x === "string" && x.trim() !== "" && Number.isFinite(Number(x))) return Number(x);
  return undefined;
}

/** Tool output as text (what an MCP result's content says): a string as is, text blocks / ACP content blocks joined, else undefined. */
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
