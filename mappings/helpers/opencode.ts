/**
 * Helpers of the opencode tables: provider logic that is not a table (opencode: the turn's part of the session diff, patch parts as diff headers).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { wholeFileDiff, type FileChange } from "./lib/shared.js";

/**
 * The part of an opencode `session.diff` (the session's cumulative diff: v2 `{file?, patch?, status?}`, v1
 * `{file, before, after}` entries) that the current turn changed, as one unified diff: entries equal to the
 * baseline (the session diff when the turn began) are left out, one entry per path (the last wins). v1 entries
 * carry whole contents, rendered as one whole-file hunk. Undefined when the turn changed nothing.
 */
export function opencodeTurnDiff(diff: unknown, baseline: unknown): string | undefined {
  if (!Array.isArray(diff)) return undefined;
  const key = (d: any): string | undefined => (typeof d?.file === "string" ? d.file : undefined);
  const text = (d: any): string | undefined => {
    if (typeof d?.patch === "string" && d.patch !== "") return d.patch.replace(/\n$/, "");
    const f = key(d);
    if (f !== undefined && (typeof d?.before === "string" || typeof d?.after === "string")) return wholeFileDiff(f, typeof d.before === "string" ? d.before : "", typeof d.after === "string" ? d.after : "");
    return undefined;
  };
  const base = new Map<string, string | undefined>();
  if (Array.isArray(baseline)) for (const d of baseline) { const k = key(d); if (k !== undefined) base.set(k, text(d)); }
  const out = new Map<string, string>();
  diff.forEach((d, i) => {
    const t = text(d);
    if (t === undefined) return;
    const k = key(d) ?? `#${i}`;
    if (base.has(k) && base.get(k) === t) { out.delete(k); return; }
    out.delete(k);
    out.set(k, t);
  });
  return out.size ? [...out.values()].join("\n") : undefined;
}

/**
 * An opencode `patch` part (the files a step changed, at a snapshot hash; no hunks) as a unified diff of file headers
 * only (`diff --git a/<file> b/<file>` per file, paths deduplicated); undefined when it names no file.
 */
export function opencodePatchFiles(files: unknown): string | undefined {
  if (!Array.isArray(files)) return undefined;
  const paths = [...new Set(files.filter((f): f is string => typeof f === "string" && f !== ""))];
  return paths.length ? paths.map((f) => `diff --git a/${f.replace(/^\//, "")} b/${f.replace(/^\//, "")}`).join("\n") : undefined;
}

/**
 * An opencode tool's output without the `<shell_metadata>` note its bash tool appends for the model (e.g. "User
 * aborted the command"; opencodeShellNote gives the note): the command's own output, as its metadata streamed it.
 */
export function opencodeToolOutput(output: unknown): string | undefined {
  if (typeof output !== "string") return undefined;
  const m = SHELL_NOTE.exec(output);
  return m ? output.slice(0, m.index) : output;
}

/** The note of an opencode bash output's trailing `<shell_metadata>` block, else undefined. */
export function opencodeShellNote(output: unknown): string | undefined {
  if (typeof output !== "string") return undefined;
  const m = SHELL_NOTE.exec(output);
  return m ? m[1].trim() : undefined;
}

const SHELL_NOTE = /(?:\n\n)?<shell_metadata>\n?([\s\S]*?)\n?<\/shell_metadata>\s*$/;
