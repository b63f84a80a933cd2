/**
 * Named helpers that mapping rows may call with `{ $helper: NAME, args: [...] }`, for the rare logic
 * that is not a table. Every exported function here is callable from YAML; codegen rejects other names.
 * Helpers are pure, never throw on provider data, and return undefined when they have nothing to say.
 */

/** A decision as a string: string decisions as they are; `{acceptWithExecpolicyAmendment: …}` → its key. */
export function decisionName(decision: unknown): string | undefined {
  if (typeof decision === "string") return decision;
  if (decision && typeof decision === "object" && !Array.isArray(decision)) {
    const keys = Object.keys(decision);
    if (keys.length === 1) return keys[0];
  }
  return undefined;
}

/** A string from a string or a list of strings (joined with blank lines). */
export function joinText(x: unknown): string | undefined {
  if (typeof x === "string") return x;
  if (Array.isArray(x)) {
    const parts = x.filter((p): p is string => typeof p === "string");
    return parts.length ? parts.join("\n\n") : undefined;
  }
  return undefined;
}

/** A short human title for a provider item: the command, the changed paths, the tool, the query… */
export function itemTitle(item: unknown): string | undefined {
  if (!item || typeof item !== "object") return undefined;
  const it = item as Record<string, any>;
  if (typeof it.command === "string") return clip(it.command);
  if (Array.isArray(it.command)) return clip(it.command.filter((x: unknown) => typeof x === "string").map(shellQuote).join(" "));
  if (Array.isArray(it.changes)) {
    const paths = it.changes.map((c: any) => c?.path).filter((p: unknown): p is string => typeof p === "string");
    if (paths.length) return clip(paths.join(", "));
  }
  if (typeof it.server === "string" && typeof it.tool === "string") return `${it.server}.${it.tool}`;
  if (typeof it.tool === "string") return it.tool;
  if (typeof it.query === "string") return clip(it.query);
  if (typeof it.path === "string") return clip(it.path);
  return undefined;
}

/** POSIX shell quoting of one argv element (as Codex shows a command: argv ["bash","-lc","cat a b"] → bash -lc 'cat a b'). */
function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return "'" + arg.replace(/'/g, `'"'"'`) + "'";
}

/** A string when the value is one (or a number), else undefined. */
export function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : typeof x === "number" && Number.isFinite(x) ? String(x) : undefined;
}

function clip(s: string, n = 160): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

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

/** A number when the value is a finite number (or a numeric string), else undefined. */
export function num(x: unknown): number | undefined {
  if (typeof x === "number" && Number.isFinite(x)) return x;
  if (typeof x === "string" && x.trim() !== "" && Number.isFinite(Number(x))) return Number(x);
  return undefined;
}

/** Plan steps as canonical {step, status}: from Codex/SDK todo items ({text, completed}) or plan items ({step, status}); [] when absent. */
export function planSteps(items: unknown): { step: string; status: "pending" | "inProgress" | "completed" }[] {
  if (!Array.isArray(items)) return [];
  const status = (s: unknown, done: unknown): "pending" | "inProgress" | "completed" =>
    done === true || s === "completed" ? "completed" : s === "in_progress" || s === "inProgress" ? "inProgress" : "pending";
  return items
    .filter((i) => i && typeof i === "object")
    .map((i: any) => ({ step: String(i.step ?? i.text ?? i.content ?? ""), status: status(i.status, i.completed) }));
}

/** x + 1, counting from 0 when x is not a number (for counters kept in session variables). */
export function inc(x: unknown): number {
  return (typeof x === "number" && Number.isFinite(x) ? x : 0) + 1;
}

/**
 * Claude Code tool names → canonical item types: an explicit table. MCP tools (`mcp__<server>__<tool>`) are checked
 * first; tools not listed are dynamic_tool_call.
 */
export const CLAUDE_TOOL_ITEM_TYPES: Readonly<Record<string, "command_execution" | "file_change" | "web_search" | "collab_agent_tool_call" | "plan">> = Object.freeze({
  Bash: "command_execution",
  BashOutput: "command_execution",
  KillShell: "command_execution",
  KillBash: "command_execution",
  Edit: "file_change",
  MultiEdit: "file_change",
  Write: "file_change",
  NotebookEdit: "file_change",
  WebSearch: "web_search",
  WebFetch: "web_search",
  Task: "collab_agent_tool_call",
  Agent: "collab_agent_tool_call",
  TodoWrite: "plan",
});

/** Server tools the API runs itself (`server_tool_use` blocks) → canonical item types. */
const CLAUDE_SERVER_TOOL_ITEM_TYPES: Readonly<Record<string, "web_search" | "command_execution">> = Object.freeze({
  web_search: "web_search",
  web_fetch: "web_search",
  code_execution: "command_execution",
  bash_code_execution: "command_execution",
});

/**
 * The canonical item type of a Claude tool use: by tool name (see CLAUDE_TOOL_ITEM_TYPES); `mcp_tool_use` blocks and
 * `mcp__…` names are MCP calls; `server_tool_use` blocks by server tool name.
 */
export function claudeToolItemType(name: unknown, blockType?: unknown): "command_execution" | "file_change" | "web_search" | "collab_agent_tool_call" | "plan" | "mcp_tool_call" | "dynamic_tool_call" {
  if (blockType === "mcp_tool_use") return "mcp_tool_call";
  if (typeof name !== "string") return "dynamic_tool_call";
  if (name.startsWith("mcp__")) return "mcp_tool_call";
  if (blockType === "server_tool_use") return Object.hasOwn(CLAUDE_SERVER_TOOL_ITEM_TYPES, name) ? CLAUDE_SERVER_TOOL_ITEM_TYPES[name] : "dynamic_tool_call";
  return Object.hasOwn(CLAUDE_TOOL_ITEM_TYPES, name) ? CLAUDE_TOOL_ITEM_TYPES[name] : "dynamic_tool_call";
}

/**
 * The canonical request type of a Claude permission request (canUseTool) for a tool: command tools ask for
 * command_execution_approval, edit tools for file_change_approval, AskUserQuestion is a question to the user
 * (tool_user_input); anything else (MCP tools included) is unknown.
 */
export function claudeToolRequestType(name: unknown): "command_execution_approval" | "file_change_approval" | "tool_user_input" | "unknown" {
  if (typeof name !== "string" || name.startsWith("mcp__")) return "unknown";
  if (name === "AskUserQuestion") return "tool_user_input";
  const t = Object.hasOwn(CLAUDE_TOOL_ITEM_TYPES, name) ? CLAUDE_TOOL_ITEM_TYPES[name] : undefined;
  return t === "command_execution" ? "command_execution_approval" : t === "file_change" ? "file_change_approval" : "unknown";
}

/** A short title for a Claude tool use: the command, the file path, the pattern, the URL or query, else the tool name. */
export function claudeToolTitle(name: unknown, input: unknown): string | undefined {
  const i = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  for (const k of ["command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description"]) {
    if (typeof i[k] === "string" && i[k] !== "") return clip(i[k] as string);
  }
  return typeof name === "string" ? name : undefined;
}

/** The text of a tool_result block's content: a string as is, text blocks joined; undefined when there is no text. */
export function claudeToolResultText(content: unknown): string | undefined {
  if (typeof content === "string") return content === "" ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((b: any) => b && b.type === "text" && typeof b.text === "string").map((b: any) => b.text as string);
  return parts.length ? parts.join("\n") : undefined;
}

/** The text of a user message (a string, or its text blocks joined); undefined when it has none. */
export function claudeUserText(content: unknown): string | undefined {
  return claudeToolResultText(content);
}

/** Claude `files_persisted` entries ({filename, file_id}) → canonical {filename, fileId}; entries without both are dropped. */
export function claudePersistedFiles(files: unknown): { filename: string; fileId: string }[] {
  if (!Array.isArray(files)) return [];
  return files
    .filter((f: any) => f && typeof f.filename === "string" && typeof f.file_id === "string")
    .map((f: any) => ({ filename: f.filename, fileId: f.file_id }));
}

/** Claude `files_persisted` failures ({filename, error}) as canonical entries; entries without both are dropped. */
export function claudePersistFailures(failed: unknown): { filename: string; error: string }[] {
  if (!Array.isArray(failed)) return [];
  return failed
    .filter((f: any) => f && typeof f.filename === "string" && typeof f.error === "string")
    .map((f: any) => ({ filename: f.filename, error: f.error }));
}

/**
 * The messages a Claude message with several content blocks is mapped as, one per block: message i is the message
 * from block i on (`content.slice(i)`, so the block rows map its first block), tagged `agentnormBlock: i`, with a
 * per-block uuid (`<uuid>#i`) and, after the first, without `tool_use_result` (it belongs to the first result).
 * With `leading` (e.g. "tool_result"), only blocks of that type are split off: the first block of another type ends
 * the list, with the blocks from it on as one message.
 */
export function claudeBlockMessages(msg: unknown, leading?: string): Record<string, unknown>[] {
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return [];
  const m = msg as Record<string, any>;
  const inner = m.message && typeof m.message === "object" ? m.message : {};
  const content: unknown[] = Array.isArray(inner.content) ? inner.content : [];
  const { tool_use_result: result, ...rest } = m;
  const base = typeof m.uuid === "string" ? m.uuid.replace(/#\d+$/, "") : undefined;
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < content.length; i++) {
    const block = { ...(i === 0 ? m : rest), agentnormBlock: i, message: { ...inner, content: content.slice(i) } } as Record<string, unknown>;
    if (i > 0) block.uuid = base === undefined ? m.uuid : `${base}#${i}`;
    if (i === 0 && result === undefined) delete block.tool_use_result;
    out.push(block);
    if (leading !== undefined && (content[i] as any)?.type !== leading) break;
  }
  return out;
}

/**
 * The item key of the first content block of a Claude `assistant` message (text, thinking, other non-tool blocks):
 * `<message id>:<block index>`, the key content_block_start gave the streamed block. The index is the block's position
 * when the message carries several blocks (or is the rest of one, see claudeRestOfMessage); otherwise (Claude Code 2.x
 * sends one block per message) the index of the last block the stream started for that message (`lastBlock`), else 0
 * when no stream was seen and the message has an id, else the message uuid.
 */
export function claudeBlockKey(msg: unknown, lastBlock: unknown): string | undefined {
  if (!msg || typeof msg !== "object") return undefined;
  const m = msg as Record<string, any>;
  const id = typeof m.message?.id === "string" ? m.message.id : undefined;
  const content = Array.isArray(m.message?.content) ? m.message.content : [];
  if (id !== undefined) {
    if (typeof m.agentnormBlock === "number") return `${id}:${m.agentnormBlock}`;
    if (content.length > 1) return `${id}:0`;
    if (typeof lastBlock === "number" || typeof lastBlock === "string") return `${id}:${lastBlock}`;
  }
  if (typeof m.uuid === "string") return m.uuid;
  return id !== undefined ? `${id}:0` : undefined;
}

/** a + b as text (absent parts count as ""), for accumulating streamed chunks in a session variable. */
export function appendText(a: unknown, b: unknown): string {
  return (typeof a === "string" ? a : "") + (typeof b === "string" ? b : "");
}

/**
 * The value of a JSON object/array text, or undefined while it is incomplete or not JSON (e.g. a tool input still
 * streaming). Only texts that end like a complete object or array are parsed, so streaming stays linear.
 */
export function parseJson(text: unknown): unknown {
  if (typeof text !== "string" || !/[}\]]\s*$/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * ACP `session/request_permission` answer → a decision string: the selected option's `kind`
 * (allow_once | allow_always | reject_once | reject_always) looked up in the request's `options`, else the optionId;
 * `cancelled` for a cancelled outcome.
 */
export function acpPermissionDecision(outcome: unknown, options: unknown): string | undefined {
  if (!outcome || typeof outcome !== "object") return undefined;
  const o = outcome as Record<string, unknown>;
  if (o.outcome === "cancelled") return "cancelled";
  if (o.outcome !== "selected" || typeof o.optionId !== "string") return typeof o.outcome === "string" ? o.outcome : undefined;
  if (Array.isArray(options)) {
    const hit = options.find((x: any) => x && typeof x === "object" && x.optionId === o.optionId) as any;
    if (hit && typeof hit.kind === "string") return hit.kind;
  }
  return o.optionId;
}

/** ACP plan entries ({content, priority, status}) → canonical plan steps ({step, status}); [] when absent. */
export function acpPlanSteps(entries: unknown): { step: string; status: "pending" | "inProgress" | "completed" }[] {
  return planSteps(entries);
}

/** The text of an ACP ContentBlock (`{type: "text", text}`), or of a resource's text; undefined otherwise. */
export function acpContentText(block: unknown): string | undefined {
  if (!block || typeof block !== "object") return undefined;
  const b = block as Record<string, any>;
  if (typeof b.text === "string") return b.text;
  if (b.resource && typeof b.resource === "object" && typeof b.resource.text === "string") return b.resource.text;
  return undefined;
}

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

/**
 * Cursor todos ({id, content | title, status}) → canonical plan steps; `cancelled` counts as done (completed). Statuses
 * come as `in_progress` (ACP) or `TODO_STATUS_IN_PROGRESS` (cursor-agent stream-json).
 */
export function cursorPlanSteps(todos: unknown): { step: string; status: "pending" | "inProgress" | "completed" }[] {
  if (!Array.isArray(todos)) return [];
  return todos
    .filter((t) => t && typeof t === "object")
    .map((t: any) => {
      const st = typeof t.status === "string" ? t.status.toLowerCase().replace(/^todo_status_/, "") : "";
      return {
        step: String(t.content ?? t.title ?? ""),
        status: st === "completed" || st === "cancelled" ? "completed" : st === "in_progress" || st === "inprogress" ? "inProgress" : "pending",
      };
    });
}

/** cursor-agent stream-json `tool_call`: the tool kind, i.e. the one key of the object (`shellToolCall`, `readToolCall`, `function`…). */
export function cursorToolKind(toolCall: unknown): string | undefined {
  if (!toolCall || typeof toolCall !== "object") return undefined;
  for (const [k, v] of Object.entries(toolCall)) if (v && typeof v === "object") return k;
  return undefined;
}

function cursorToolPart(toolCall: unknown): Record<string, any> | undefined {
  const k = cursorToolKind(toolCall);
  return k === undefined ? undefined : (toolCall as Record<string, any>)[k];
}

/** The tool's arguments (`args`; `arguments` of a `function` tool, parsed when it is JSON text). */
export function cursorToolArgs(toolCall: unknown): unknown {
  const p = cursorToolPart(toolCall);
  if (!p) return undefined;
  if (p.args !== undefined) return p.args;
  return typeof p.arguments === "string" ? parseJson(p.arguments) ?? p.arguments : p.arguments;
}

/** The tool's result object (completed lines), e.g. `{success: {…}}`. */
export function cursorToolResult(toolCall: unknown): unknown {
  return cursorToolPart(toolCall)?.result;
}

/**
 * The item status of a completed cursor-agent tool call, from the one key of its result: `success` → completed;
 * `rejected` / `permissionDenied` / `denied` → declined; any other outcome (`error`, `failure`…) → failed; no result
 * → completed.
 */
export function cursorToolStatus(toolCall: unknown): "completed" | "failed" | "declined" {
  const r = cursorToolResult(toolCall);
  if (!r || typeof r !== "object") return "completed";
  const keys = Object.keys(r).filter((k) => (r as any)[k] && typeof (r as any)[k] === "object");
  if (keys.includes("success")) return "completed";
  if (keys.some((k) => k === "rejected" || k === "permissionDenied" || k === "denied")) return "declined";
  return keys.length ? "failed" : "completed";
}

/** A short title for a cursor-agent tool call: its command, path, pattern or query, or the MCP / function tool's name. */
export function cursorToolTitle(toolCall: unknown): string | undefined {
  const p = cursorToolPart(toolCall);
  const a: any = cursorToolArgs(toolCall);
  const pick = (...xs: unknown[]) => xs.find((x) => typeof x === "string" && x !== "") as string | undefined;
  const t = pick(a?.command, a?.path, a?.targetFile, a?.pattern, a?.globPattern, a?.query, a?.searchTerm, a?.url, a?.toolName, a?.name, a?.description, p?.name);
  return t === undefined ? undefined : clip(t);
}

/** The text of a message's content blocks (`[{type: "text", text}]`), joined; undefined when there is none. */
export function cursorText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((b: any) => b && typeof b === "object" && typeof b.text === "string" && (b.type === undefined || b.type === "text")).map((b: any) => b.text as string);
  return parts.length ? parts.join("") : undefined;
}

/** A list of strings as one line ("a, b"); a string as is; undefined when there is nothing. */
export function listText(x: unknown): string | undefined {
  if (typeof x === "string") return x === "" ? undefined : x;
  if (!Array.isArray(x)) return undefined;
  const parts = x.filter((p): p is string => typeof p === "string" && p !== "");
  return parts.length ? parts.join(", ") : undefined;
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

/** The message of an opencode error object ({name, data: {message}}): data.message, else the name. */
export function opencodeErrorMessage(error: unknown): string | undefined {
  if (!error || typeof error !== "object") return typeof error === "string" ? error : undefined;
  const e = error as Record<string, any>;
  if (typeof e.data?.message === "string" && e.data.message !== "") return e.data.message;
  if (typeof e.message === "string" && e.message !== "") return e.message;
  return typeof e.name === "string" ? e.name : undefined;
}

function wholeFileDiff(file: string, before: string, after: string): string {
  const lines = (s: string) => (s === "" ? [] : s.replace(/\n$/, "").split("\n"));
  const a = lines(before);
  const b = lines(after);
  return [`--- a/${file}`, `+++ b/${file}`, `@@ -${a.length ? 1 : 0},${a.length} +${b.length ? 1 : 0},${b.length} @@`, ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join("\n");
}

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

// ───────────── canonical item content (the typed fields of item payloads) ─────────────

type FileChange = { path: string; change: "add" | "update" | "delete" | "move"; movePath?: string; diff?: string };

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
 * The files an edit tool's input describes (Claude Edit / MultiEdit / Write / NotebookEdit, opencode edit / write):
 * `file_path`|`filePath`|`path` with old/new strings or the whole new content. Undefined for other inputs.
 */
export function editFiles(input: unknown): FileChange[] | undefined {
  if (!input || typeof input !== "object" || Array.isArray(input)) return undefined;
  const i = input as Record<string, any>;
  const path = [i.file_path, i.filePath, i.notebook_path, i.path].find((x) => typeof x === "string");
  if (typeof path !== "string") return undefined;
  const rel = path.replace(/^\//, "");
  const s = (x: unknown) => (typeof x === "string" ? x : "");
  if (Array.isArray(i.edits)) return [{ path, change: "update", diff: i.edits.map((e: any) => wholeFileDiff(rel, s(e?.old_string ?? e?.oldString), s(e?.new_string ?? e?.newString))).join("\n") }];
  const oldT = i.old_string ?? i.oldString, newT = i.new_string ?? i.newString ?? i.new_source;
  if (typeof newT === "string") return [{ path, change: "update", diff: wholeFileDiff(rel, s(oldT), newT) }];
  if (typeof i.content === "string") return [{ path, change: "update", diff: wholeFileDiff(rel, "", i.content) }];
  return [{ path, change: "update" }];
}

/** A field of a tool input object (`input[key]` for the first key it has as a string); undefined otherwise. */
export function inputString(input: unknown, ...keys: unknown[]): string | undefined {
  if (!input || typeof input !== "object" || Array.isArray(input)) return undefined;
  for (const k of keys) if (typeof k === "string" && typeof (input as any)[k] === "string") return (input as any)[k];
  return undefined;
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

/** Only when `a` equals `b`: the value `v` (a typed field a row sets for one item type only). */
export function when<T>(a: unknown, b: unknown, v: T): T | undefined {
  return a === b ? v : undefined;
}

/** The terminal an ACP tool call's content embeds (`{type: "terminal", terminalId}`): its output lives with the client. */
export function acpTerminalId(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const c of content) if (c && typeof c === "object" && (c as any).type === "terminal" && typeof (c as any).terminalId === "string") return (c as any).terminalId;
  return undefined;
}

/** A command as one line: a string as is, an argv array shell-quoted as Codex shows it (["bash","-lc","ls -la"] → bash -lc 'ls -la'). */
export function commandLine(cmd: unknown): string | undefined {
  if (typeof cmd === "string") return cmd;
  if (!Array.isArray(cmd)) return undefined;
  const args = cmd.filter((x): x is string => typeof x === "string");
  return args.length ? args.map(shellQuote).join(" ") : undefined;
}

/** Milliseconds: a number as is, a Rust Duration `{secs, nanos}` converted. */
export function durationMs(d: unknown): number | undefined {
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

/** A local path: a `file://` URL's path (percent-decoded), a plain path as is. */
export function localPath(x: unknown): string | undefined {
  if (typeof x !== "string") return undefined;
  if (!x.startsWith("file://")) return x;
  try { return decodeURIComponent(x.slice("file://".length).replace(/^[^/]*/, "")); } catch { return x; }
}

/**
 * A typed field of a Codex 0.171 CommandExecution / FileChange turn item. Codex persists and sends these items
 * (`{command: argv, cwd: file URL, aggregated_output, exit_code, duration, changes}`, as recorded), but the pinned
 * EventMsg schema's TurnItem union does not declare the two variants, so a row cannot name their fields by path.
 */
export function codexToolItemField(item: unknown, field: "command" | "cwd" | "output"): string | undefined;
export function codexToolItemField(item: unknown, field: "exitCode" | "durationMs"): number | undefined;
export function codexToolItemField(item: unknown, field: "files"): FileChange[] | undefined;
export function codexToolItemField(item: unknown, field: "command" | "cwd" | "exitCode" | "output" | "durationMs" | "files"): unknown {
  if (!item || typeof item !== "object") return undefined;
  const it = item as Record<string, unknown>;
  if (it.type !== "CommandExecution" && it.type !== "FileChange") return undefined;
  switch (field) {
    case "command": return commandLine(it.command);
    case "cwd": return localPath(it.cwd);
    case "exitCode": return num(it.exit_code);
    case "output": return str(it.aggregated_output);
    case "durationMs": return durationMs(it.duration);
    case "files": return codexChangeMap(it.changes);
  }
}

/**
 * The command a tool call's arguments (an object, or JSON text) name: `cmd` (Codex exec_command) or `command` (an
 * argv array, or a string: Codex shell, ACP agents' rawInput); undefined for other arguments.
 */
export function argsCommand(args: unknown): string | undefined {
  const a = typeof args === "string" ? parseJson(args) : args;
  if (!a || typeof a !== "object" || Array.isArray(a)) return undefined;
  const o = a as Record<string, unknown>;
  return commandLine(o.cmd) ?? commandLine(o.command);
}

/** The working directory a tool call's arguments name (`workdir`, as Codex sends it), else undefined. */
export function argsCwd(args: unknown): string | undefined {
  const a = typeof args === "string" ? parseJson(args) : args;
  return a && typeof a === "object" && typeof (a as any).workdir === "string" ? (a as any).workdir : undefined;
}

/**
 * A field of a Codex call output as the model saw it: the JSON envelope of older versions (`{output, metadata:
 * {exit_code, duration_seconds}}`) or the text form of 0.171 (header lines — `Process exited with code N` / `Exit
 * code: N`, `Wall time: S seconds` — then `Output:` and the output). Undefined when the text has neither form.
 */
export function codexCallOutput(out: unknown, field: "output"): string | undefined;
export function codexCallOutput(out: unknown, field: "exitCode" | "durationMs"): number | undefined;
export function codexCallOutput(out: unknown, field: "output" | "exitCode" | "durationMs"): string | number | undefined {
  if (typeof out !== "string") return undefined;
  const env = out.startsWith("{") ? parseJson(out) : undefined;
  if (env && typeof env === "object" && typeof (env as any).output === "string") {
    const md = (env as any).metadata ?? {};
    if (field === "output") return (env as any).output;
    if (field === "exitCode") return num(md.exit_code);
    const s = num(md.duration_seconds);
    return s === undefined ? undefined : Math.round(s * 1000);
  }
  const at = out.indexOf("Output:\n");
  if (at < 0) return undefined;
  const head = out.slice(0, at);
  if (field === "output") return out.slice(at + "Output:\n".length);
  if (field === "exitCode") { const m = /(?:Process exited with code|Exit code:) (-?\d+)/.exec(head); return m ? Number(m[1]) : undefined; }
  const m = /Wall time: ([\d.]+) seconds/.exec(head);
  return m && Number.isFinite(Number(m[1])) ? Math.round(Number(m[1]) * 1000) : undefined;
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

/**
 * Typed content of a cursor-agent `tool_call` (`{<kind>: {args, result?}}`), read from its arguments and its
 * `result.success` (a shell: `{command, workingDirectory, exitCode, stdout, stderr, executionTime}`) or the other
 * outcome's details: `name` is the tool's own name (a `function` tool's or an MCP tool's `name`/`toolName`, else
 * the kind); `files` come from an edit/write input (editFiles) or a delete's path.
 */
export function cursorToolContent(toolCall: unknown, field: "name" | "command" | "cwd" | "output" | "error" | "query" | "server"): string | undefined;
export function cursorToolContent(toolCall: unknown, field: "exitCode" | "durationMs"): number | undefined;
export function cursorToolContent(toolCall: unknown, field: "files"): FileChange[] | undefined;
export function cursorToolContent(toolCall: unknown, field: string): unknown {
  const kind = cursorToolKind(toolCall);
  const p = cursorToolPart(toolCall);
  if (!kind || !p) return undefined;
  const a: any = cursorToolArgs(toolCall) ?? {};
  const r: any = p.result && typeof p.result === "object" ? p.result : {};
  const ok: any = r.success && typeof r.success === "object" ? r.success : undefined;
  const s = (x: unknown) => (typeof x === "string" && x !== "" ? x : undefined);
  switch (field) {
    case "name": return s(p.name) ?? s(a.toolName) ?? s(a.name) ?? kind;
    case "command": return s(a.command) ?? s(ok?.command);
    case "cwd": return s(a.workingDirectory) ?? s(ok?.workingDirectory);
    case "exitCode": return num(ok?.exitCode);
    case "durationMs": return num(ok?.executionTime);
    case "output": {
      if (!ok) return undefined;
      if (typeof ok.interleavedOutput === "string") return ok.interleavedOutput;
      if (typeof ok.stdout === "string" || typeof ok.stderr === "string") return [ok.stdout, ok.stderr].filter((x) => typeof x === "string" && x !== "").join("");
      return s(ok.content) ?? s(ok.output);
    }
    case "error": {
      if (ok) return undefined;
      const k = Object.keys(r).find((x) => r[x] && typeof r[x] === "object");
      return k === undefined ? undefined : s(r[k].message) ?? s(r[k].error) ?? k;
    }
    case "query": return s(a.searchTerm) ?? s(a.query) ?? s(a.url);
    case "server": return s(a.providerIdentifier) ?? s(a.serverName) ?? s(a.server);
    case "files": {
      if (kind === "deleteToolCall") return typeof a.path === "string" ? [{ path: a.path, change: "delete" }] : undefined;
      return editFiles({ ...a, content: a.content ?? a.fileText ?? a.contents });
    }
  }
  return undefined;
}

/**
 * Canonical token usage from counts a row picked out of the provider's usage object: the counts that are numbers
 * (integers), or undefined when the input or output count is missing (an empty usage object says nothing).
 */
export function tokenUsage(counts: unknown): { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number; totalTokens?: number; contextWindow?: number } | undefined {
  if (!counts || typeof counts !== "object") return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(counts as Record<string, unknown>)) {
    const n = num(v);
    if (n !== undefined && Number.isInteger(n)) out[k] = n;
  }
  if (out.inputTokens === undefined || out.outputTokens === undefined) return undefined;
  return out as ReturnType<typeof tokenUsage> & object;
}

/** ACP permission options (`[{optionId, name, kind}]`) → canonical request options: the kind is the decision. */
export function acpOptions(options: unknown): { decision: "allow_once" | "allow_always" | "reject_once" | "reject_always"; label?: string; providerOptionId: string }[] | undefined {
  if (!Array.isArray(options)) return undefined;
  const kinds = ["allow_once", "allow_always", "reject_once", "reject_always"] as const;
  const out = options.filter((o) => o && typeof o.optionId === "string" && (kinds as readonly string[]).includes(o.kind))
    .map((o) => ({ decision: o.kind, providerOptionId: o.optionId as string, ...(typeof o.name === "string" ? { label: o.name as string } : {}) }));
  return out.length ? out : undefined;
}

/** An ACP prompt's text (`session/prompt` params.prompt: its text blocks joined), else undefined. */
export function acpPromptText(prompt: unknown): string | undefined {
  if (!Array.isArray(prompt)) return undefined;
  const parts = prompt.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
  return parts.length ? parts.join("") : undefined;
}

/** An ACP prompt's other blocks (resource links, resources, images), as sent; undefined when it has none. */
export function acpPromptInput(prompt: unknown): unknown[] | undefined {
  if (!Array.isArray(prompt)) return undefined;
  const rest = prompt.filter((b) => !(b && b.type === "text"));
  return rest.length ? rest : undefined;
}
