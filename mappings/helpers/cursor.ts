/**
 * Helpers of the cursor tables: provider logic that is not a table (Cursor: todo merges and tool call titles).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { json } from "../../src/normalize/row-util.js";

/**
 * Cursor `cursor/update_todos`: the todo list after an update — `todos` replaces `prev`, or with `merge: true` updates
 * the todos of `prev` with the same id (new ids are appended, order kept).
 */
export function cursorTodos(prev: unknown, todos: unknown, merge: unknown): unknown[] {
  const next = Array.isArray(todos) ? todos.filter((t) => t && typeof t === "object") : [];
  if (merge !== true || !Array.isArray(prev)) return next;
  const out = [...prev];
  for (const t of next as any[]) {
    const i = typeof t.id === "string" ? out.findIndex((p: any) => p?.id === t.id) : -1;
    if (i >= 0) out[i] = { ...(out[i] as object), ...t };
    else out.push(t);
  }
  return out;
}

/** A short title for a cursor-agent tool call: its command, path, pattern or query, or the MCP / function tool's name. */
export function cursorToolTitle(toolCall: unknown): string | undefined {
  const p = cursorToolPart(toolCall);
  const a: any = cursorToolArgs(toolCall);
  const pick = (...xs: unknown[]) => xs.find((x) => typeof x === "string" && x !== "") as string | undefined;
  const t = pick(a?.command, a?.path, a?.targetFile, a?.pattern, a?.globPattern, a?.query, a?.searchTerm, a?.url, a?.toolName, a?.name, a?.description, p?.name);
  return t === undefined ? undefined : clip(t);
}

function cursorToolPart(toolCall: unknown): Record<string, any> | undefined {
  const k = cursorToolKind(toolCall);
  return k === undefined ? undefined : (toolCall as Record<string, any>)[k];
}

/** cursor-agent stream-json `tool_call`: the tool kind, i.e. the one key of the object (`shellToolCall`, `readToolCall`, `function`…). */
function cursorToolKind(toolCall: unknown): string | undefined {
  if (!toolCall || typeof toolCall !== "object") return undefined;
  for (const [k, v] of Object.entries(toolCall)) if (v && typeof v === "object") return k;
  return undefined;
}

/** The tool's arguments (`args`; `arguments` of a `function` tool, parsed when it is JSON text). */
function cursorToolArgs(toolCall: unknown): unknown {
  const p = cursorToolPart(toolCall);
  if (!p) return undefined;
  if (p.args !== undefined) return p.args;
  return typeof p.arguments === "string" ? json(p.arguments) ?? p.arguments : p.arguments;
}


function clip(s: string, n = 160): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}
