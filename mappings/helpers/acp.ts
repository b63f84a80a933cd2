/**
 * Helpers of the acp tables: provider logic that is not a table (ACP: diffs and files from tool call content, local paths).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { wholeFileDiff, type FileChange } from "./lib/shared.js";

/**
 * ACP tool call content → a unified diff of its `diff` blocks ({path, oldText?, newText}), appended to `prev` (the
 * turn's diff so far); `prev` unchanged when there is no diff block. Each block is one whole-file hunk (old lines
 * removed, new lines added: ACP carries the texts, not a patch); a missing oldText is a new file (/dev/null).
 */
export function acpUnifiedDiff(prev: unknown, content: unknown): string | undefined {
  const before = typeof prev === "string" ? prev : undefined;
  if (!Array.isArray(content)) return before;
  let out = before ?? "";
  for (const c of content) {
    if (!c || typeof c !== "object" || (c as any).type !== "diff" || typeof (c as any).path !== "string") continue;
    const { path, oldText, newText } = c as { path: string; oldText?: unknown; newText?: unknown };
    const lines = (t: unknown): string[] => (typeof t === "string" && t !== "" ? t.replace(/\n$/, "").split("\n") : []);
    const oldL = lines(oldText);
    const newL = lines(newText);
    const isNew = oldText === undefined || oldText === null;
    out += `--- ${isNew ? "/dev/null" : `a/${path.replace(/^\//, "")}`}\n+++ b/${path.replace(/^\//, "")}\n`;
    out += `@@ -${oldL.length ? 1 : 0},${oldL.length} +${newL.length ? 1 : 0},${newL.length} @@\n`;
    for (const l of oldL) out += `-${l}\n`;
    for (const l of newL) out += `+${l}\n`;
  }
  return out === "" ? before : out;
}

/** ACP tool call content: its `diff` blocks (`{path, oldText?, newText}`) → canonical files (no oldText: a new file). */
export function acpFiles(content: unknown): FileChange[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const out: FileChange[] = [];
  for (const c of content) {
    if (!c || typeof c !== "object" || (c as any).type !== "diff" || typeof (c as any).path !== "string") continue;
    const { path, oldText, newText } = c as { path: string; oldText?: unknown; newText?: unknown };
    const isNew = oldText === undefined || oldText === null;
    out.push({ path, change: isNew ? "add" : "update", diff: wholeFileDiff(path.replace(/^\//, ""), typeof oldText === "string" ? oldText : "", typeof newText === "string" ? newText : "") });
  }
  return out.length ? out : undefined;
}

/**
 * The files an ACP tool call's `locations` (`[{path, line?}]`) name, for a file_change whose content carries no diff
 * (an edit that failed, or one announced before its diff): each path, the change its ToolKind says (`delete`,
 * `move` — the second location is where it moves —, else `update`), no diff. Undefined without a located path.
 */
export function acpLocationFiles(locations: unknown, kind: unknown): FileChange[] | undefined {
  if (!Array.isArray(locations)) return undefined;
  const paths = locations.map((l) => (l && typeof l === "object" && typeof (l as any).path === "string" && (l as any).path !== "" ? ((l as any).path as string) : undefined)).filter((p): p is string => p !== undefined);
  if (!paths.length) return undefined;
  if (kind === "move") return [{ path: paths[0], change: "move", ...(paths[1] !== undefined ? { movePath: paths[1] } : {}) }];
  const change = kind === "delete" ? "delete" : "update";
  return [...new Set(paths)].map((path) => ({ path, change }));
}

/** A local path: a `file://` URL's path (percent-decoded), a plain path as is. */
export function localPath(x: unknown): string | undefined {
  if (typeof x !== "string") return undefined;
  if (!x.startsWith("file://")) return x;
  try { return decodeURIComponent(x.slice("file://".length).replace(/^[^/]*/, "")); } catch { return x; }
}

