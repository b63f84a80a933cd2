/**
 * Helpers of the cursor tables: provider data the tables read (Cursor: todo merges, tool call content).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { type FileChange } from "./lib/shared.js";
import { num } from "./lib/shared.js";
import { editFiles } from "./claude.js";
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

function cursorToolPart(toolCall: unknown): Record<string, any> | undefined {
  const k = cursorToolKind(toolCall);
  return k === undefined ? undefined : (toolCall as Record<string, any>)[k];
}

/** cursor-agent stream-json `tool_call`: the tool kind, i.e. the one key of the object (`shellToolCall`, `readToolCall`, `function`…). */
function cursorToolKind(toolCall: unknown): string | undefined {
  if (!toolCall || typeof toolCall !== "object") return undefined;
  for (const k in toolCall) {
    if (!Object.hasOwn(toolCall, k)) continue;
    const v = (toolCall as Record<string, unknown>)[k];
    if (v && typeof v === "object") return k;
  }
  return undefined;
}

/** The tool's arguments (`args`; `arguments` of a `function` tool, parsed when it is JSON text). */
function cursorToolArgs(toolCall: unknown): unknown {
  const p = cursorToolPart(toolCall);
  if (!p) return undefined;
  if (p.args !== undefined) return p.args;
  return typeof p.arguments === "string" ? json(p.arguments) ?? p.arguments : p.arguments;
}


/** The typed content of a tool call (the canonical item fields a row reads from it; absent when there is none). */
export interface CursorToolContent {
  name: string;
  command?: string;
  cwd?: string;
  exitCode?: number;
  durationMs?: number;
  output?: string;
  error?: string;
  query?: string;
  server?: string;
  files?: FileChange[];
}

/**
 * Typed content of a cursor-agent `tool_call` (`{<kind>: {args, result?}}`), read from its arguments and its
 * `result.success` (a shell: `{command, workingDirectory, exitCode, stdout, stderr, executionTime}`) or the other
 * outcome's details: `name` is the tool's own name (a `function` tool's or an MCP tool's `name`/`toolName`, else
 * the kind); `files` come from an edit/write input (editFiles) or a delete's path. Undefined for a value that is not
 * a tool call. A row reads it once (`let`) and its fields by path.
 */
export function cursorTool(toolCall: unknown): CursorToolContent | undefined {
  const kind = cursorToolKind(toolCall);
  const p = cursorToolPart(toolCall);
  if (!kind || !p) return undefined;
  const a: any = cursorToolArgs(toolCall) ?? {};
  const r: any = p.result && typeof p.result === "object" ? p.result : {};
  const ok: any = r.success && typeof r.success === "object" ? r.success : undefined;
  const s = (x: unknown) => (typeof x === "string" && x !== "" ? x : undefined);
  let output: string | undefined;
  if (ok) {
    if (typeof ok.interleavedOutput === "string") output = ok.interleavedOutput;
    else if (typeof ok.stdout === "string" || typeof ok.stderr === "string") output = [ok.stdout, ok.stderr].filter((x) => typeof x === "string" && x !== "").join("");
    else output = s(ok.content) ?? s(ok.output);
  }
  let error: string | undefined;
  if (!ok) {
    const k = Object.keys(r).find((x) => r[x] && typeof r[x] === "object");
    error = k === undefined ? undefined : s(r[k].message) ?? s(r[k].error) ?? k;
  }
  return {
    name: s(p.name) ?? s(a.toolName) ?? s(a.name) ?? kind,
    command: s(a.command) ?? s(ok?.command),
    cwd: s(a.workingDirectory) ?? s(ok?.workingDirectory),
    exitCode: num(ok?.exitCode),
    durationMs: num(ok?.executionTime),
    output,
    error,
    query: s(a.searchTerm) ?? s(a.query) ?? s(a.url),
    server: s(a.providerIdentifier) ?? s(a.serverName) ?? s(a.server),
    files: kind === "deleteToolCall" ? (typeof a.path === "string" ? [{ path: a.path, change: "delete" }] : undefined) : editFiles({ ...a, content: a.content ?? a.fileText ?? a.contents }),
  };
}

function asCli(name: unknown, args: unknown, result: unknown): Record<string, unknown> | undefined {
  if (typeof name !== "string" || name === "") return undefined;
  const r: any = result && typeof result === "object" ? result : undefined;
  const err = (e: unknown) => ({ message: typeof e === "string" ? e : e && typeof e === "object" && typeof (e as any).message === "string" ? (e as any).message : "error" });
  const res = r === undefined ? undefined : r.status === "success" ? { success: r.value && typeof r.value === "object" ? r.value : {} } : r.status === "error" ? { error: err(r.error) } : { [String(r.status ?? "unknown")]: {} };
  return { [`${name}ToolCall`]: { args: args ?? {}, ...(res === undefined ? {} : { result: res }) } };
}

/**
 * Typed content of a Cursor SDK `tool_call` message (`name`, `args`, `result`): cursorTool of its cursor-agent form,
 * with the SDK's own tool name (an MCP call's `toolName`); an edit's `files` carry the result's `diffString` when it
 * has one.
 */
export function cursorSdkTool(name: unknown, args: unknown, result: unknown): CursorToolContent | undefined {
  const cli = asCli(name, args, result);
  const c = cli && cursorTool(cli);
  if (!c) return undefined;
  const t = (args as any)?.toolName;
  c.name = name === "mcp" && typeof t === "string" && t !== "" ? t : (name as string);
  const diff = (result as any)?.status === "success" ? (result as any).value?.diffString : undefined;
  if (Array.isArray(c.files) && typeof diff === "string" && diff !== "" && name === "edit") c.files = c.files.map((f) => ({ ...f, diff }));
  return c;
}

/** The output streams of a running shell command. */
const SHELL_STREAMS = ["stdout", "stderr"] as const;

/**
 * What a Cursor SDK `shell-output-delta` update says (its `event`, and the update itself when at hand), whichever
 * shape carries it: the event's `case` (the SDK's `{case, value}`), else the one key of a JSON-serialized event
 * (`{stdout: {data}}`, `{exit: {code}}`, …); `output` when it carries output fields — the event's or the update's own
 * `stdout` / `stderr` — another way (several, or as plain text). Undefined when it says nothing recognizable.
 */
export function cursorShellCase(event: unknown, update?: unknown): string | undefined {
  const u = update && typeof update === "object" ? (update as Record<string, unknown>) : {};
  const ev = event && typeof event === "object" && !Array.isArray(event) ? (event as Record<string, unknown>) : undefined;
  if (ev && typeof ev.case === "string") return ev.case;
  const keys = ev ? Object.keys(ev) : [];
  const outputs = SHELL_STREAMS.filter((k) => (ev && k in ev) || k in u);
  if (outputs.length === 1 && keys.length <= 1 && !(outputs[0] in u)) return outputs[0];
  if (outputs.length) return "output";
  return keys.length === 1 ? keys[0] : undefined;
}

/**
 * The text a Cursor SDK `shell-output-delta` update carries for one stream (`stdout` / `stderr`), in any of its
 * shapes: `{event: {case, value: {data}}}`, `{event: {stdout: {data}}}`, `{event: {stdout: "…"}}` or the update's own
 * `stdout` field. Undefined when it carries none (or only an empty text).
 */
export function cursorShellOutput(update: unknown, stream: unknown): string | undefined {
  if (!update || typeof update !== "object" || (stream !== "stdout" && stream !== "stderr")) return undefined;
  const u = update as Record<string, unknown>;
  const ev = u.event && typeof u.event === "object" ? (u.event as Record<string, unknown>) : {};
  const text = (x: unknown): string | undefined => {
    const t = typeof x === "string" ? x : x && typeof x === "object" && typeof (x as any).data === "string" ? (x as any).data : undefined;
    return t === "" ? undefined : t;
  };
  if (typeof ev.case === "string") return ev.case === stream ? text(ev.value) : undefined;
  return text(ev[stream]) ?? text(u[stream]);
}
