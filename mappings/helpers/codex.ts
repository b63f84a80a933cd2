/**
 * Helpers of the codex tables: provider logic that is not a table (Codex: command output chunks, file changes, call outputs).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { wholeFileDiff, type FileChange } from "./lib/shared.js";
import { num, outputText } from "./lib/shared.js";
import { localPath } from "./acp.js";
import { json as parseJson, shellLine, str } from "../../src/normalize/row-util.js";

/**
 * Command output chunks as text. Codex EventMsg `exec_command_output_delta.chunk` is base64 in some versions
 * and a byte array in others; plain strings that are not base64 pass through. Invalid UTF-8 becomes U+FFFD.
 */
export function decodeChunk(chunk: unknown): string | undefined {
  if (Array.isArray(chunk)) {
    if (!chunk.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return undefined;
    return new TextDecoder("utf-8").decode(Uint8Array.from(chunk as number[]));
  }
  if (typeof chunk !== "string") return undefined;
  if (chunk.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(chunk)) return chunk;
  try {
    const bin = atob(chunk);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder("utf-8").decode(bytes);
  } catch {
    return chunk;
  }
}

/** Codex `fileChange.changes` (`[{path, kind: {type: add|delete|update, move_path?}, diff}]`) → canonical files. */
export function codexFiles(changes: unknown): FileChange[] | undefined {
  if (!Array.isArray(changes)) return undefined;
  const out: FileChange[] = [];
  for (const c of changes) {
    if (!c || typeof c !== "object" || typeof (c as any).path !== "string") continue;
    const kind = (c as any).kind;
    const type = typeof kind === "string" ? kind : kind?.type;
    const move = typeof kind?.move_path === "string" ? kind.move_path : undefined;
    const f: FileChange = { path: (c as any).path, change: move ? "move" : type === "add" || type === "delete" ? type : "update" };
    if (move) f.movePath = move;
    if (typeof (c as any).diff === "string") f.diff = (c as any).diff;
    out.push(f);
  }
  return out.length ? out : undefined;
}

/** Milliseconds: a number as is, a Rust Duration `{secs, nanos}` converted. */
function durationMs(d: unknown): number | undefined {
  if (typeof d === "number" && Number.isFinite(d)) return d;
  if (!d || typeof d !== "object") return undefined;
  const { secs, nanos } = d as { secs?: unknown; nanos?: unknown };
  if (typeof secs !== "number" && typeof nanos !== "number") return undefined;
  return (typeof secs === "number" ? secs * 1000 : 0) + (typeof nanos === "number" ? Math.round(nanos / 1e6) : 0);
}

/**
 * Codex EventMsg patch changes — a map `{path: {type: add, content} | {type: delete, content} | {type: update,
 * unified_diff, move_path?}}` — or a thread item's change list → canonical files, each with a unified diff.
 */
export function codexChangeMap(changes: unknown): FileChange[] | undefined {
  if (Array.isArray(changes)) return codexFiles(changes);
  if (!changes || typeof changes !== "object") return undefined;
  const out: FileChange[] = [];
  for (const [path, c] of Object.entries(changes as Record<string, any>)) {
    if (!c || typeof c !== "object") continue;
    const rel = path.replace(/^\//, "");
    if (c.type === "add") out.push({ path, change: "add", ...(typeof c.content === "string" ? { diff: wholeFileDiff(rel, "", c.content) } : {}) });
    else if (c.type === "delete") out.push({ path, change: "delete", ...(typeof c.content === "string" ? { diff: wholeFileDiff(rel, c.content, "") } : {}) });
    else {
      const move = typeof c.move_path === "string" ? c.move_path : undefined;
      out.push({ path, change: move ? "move" : "update", ...(move ? { movePath: move } : {}), ...(typeof c.unified_diff === "string" ? { diff: c.unified_diff } : {}) });
    }
  }
  return out.length ? out : undefined;
}

/** An MCP call's result `{Ok: CallToolResult} | {Err: string}` (Codex): the result's text content, else its content as sent. */
export function mcpOutput(result: unknown): unknown {
  if (!result || typeof result !== "object") return undefined;
  const ok = (result as any).Ok;
  if (!ok || typeof ok !== "object") return undefined;
  return outputText(ok.content) ?? ok.structuredContent ?? ok.content;
}

/** The error of an MCP call's result: `Err`, or the text of an `Ok` result flagged isError. */
export function mcpError(result: unknown): string | undefined {
  if (!result || typeof result !== "object") return undefined;
  const r = result as any;
  if (typeof r.Err === "string") return r.Err;
  if (r.Ok?.isError === true) return outputText(r.Ok.content) ?? "error";
  return undefined;
}

/**
 * The typed fields of a Codex 0.171 CommandExecution / FileChange turn item. Codex persists and sends these items
 * (`{command: argv, cwd: file URL, aggregated_output, exit_code, duration, changes}`, as recorded), but the pinned
 * EventMsg schema's TurnItem union does not declare the two variants, so a row cannot name their fields by path.
 * Undefined for another item.
 */
export function codexToolItem(item: unknown): { command?: string; cwd?: string; exitCode?: number; output?: string; durationMs?: number; files?: FileChange[] } | undefined {
  if (!item || typeof item !== "object") return undefined;
  const it = item as Record<string, unknown>;
  if (it.type !== "CommandExecution" && it.type !== "FileChange") return undefined;
  return { command: shellLine(it.command), cwd: localPath(it.cwd), exitCode: num(it.exit_code), output: str(it.aggregated_output), durationMs: durationMs(it.duration), files: codexChangeMap(it.changes) };
}

/**
 * A Codex call output as the model saw it: the JSON envelope of older versions (`{output, metadata: {exit_code,
 * duration_seconds}}`) or the text form of 0.171 (header lines — `Process exited with code N` / `Exit code: N`,
 * `Wall time: S seconds` — then `Output:` and the output). Undefined when the text has neither form.
 */
export function codexCall(out: unknown): { output: string; exitCode?: number; durationMs?: number } | undefined {
  if (typeof out !== "string") return undefined;
  const env = out.startsWith("{") ? parseJson(out) : undefined;
  if (env && typeof env === "object" && typeof (env as any).output === "string") {
    const md = (env as any).metadata ?? {};
    const s = num(md.duration_seconds);
    return { output: (env as any).output, exitCode: num(md.exit_code), durationMs: s === undefined ? undefined : Math.round(s * 1000) };
  }
  const at = out.indexOf("Output:\n");
  if (at < 0) return undefined;
  const head = out.slice(0, at);
  const code = /(?:Process exited with code|Exit code:) (-?\d+)/.exec(head);
  const wall = /Wall time: ([\d.]+) seconds/.exec(head);
  return {
    output: out.slice(at + "Output:\n".length),
    exitCode: code ? Number(code[1]) : undefined,
    durationMs: wall && Number.isFinite(Number(wall[1])) ? Math.round(Number(wall[1]) * 1000) : undefined,
  };
}

/**
 * The files a Codex `apply_patch` input names (`*** Add File: p`, `*** Update File: p` with an optional `*** Move to:
 * q`, `*** Delete File: p`), each with its hunk lines as the diff.
 */
export function codexPatchFiles(patch: unknown): FileChange[] | undefined {
  if (typeof patch !== "string") return undefined;
  const out: FileChange[] = [];
  let cur: FileChange | undefined;
  let body: string[] = [];
  const flush = () => { if (cur) { if (body.length) cur.diff = body.join("\n"); out.push(cur); } cur = undefined; body = []; };
  for (const line of patch.split("\n")) {
    const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (m) { flush(); cur = { path: m[2].trim(), change: m[1] === "Add" ? "add" : m[1] === "Delete" ? "delete" : "update" }; continue; }
    const mv = /^\*\*\* Move to: (.+)$/.exec(line);
    if (mv && cur) { cur.change = "move"; cur.movePath = mv[1].trim(); continue; }
    if (/^\*\*\* (Begin|End) Patch/.test(line)) { if (line.startsWith("*** End")) flush(); continue; }
    if (cur) body.push(line);
  }
  flush();
  return out.length ? out : undefined;
}
