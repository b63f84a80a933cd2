/**
 * Helpers of the claude tables: provider logic that is not a table (Claude: content blocks as messages of their own, stream block keys, tool titles).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */
import { wholeFileDiff, type FileChange } from "./lib/shared.js";

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

/**
 * The file an edit tool's result says it changed (Claude Code's Write / Edit / MultiEdit `tool_use_result`): a file
 * Write created (`type: "create"`, its `content`) is added, with its whole text; a change with `structuredPatch` (its
 * hunks: oldStart, oldLines, newStart, newLines, lines) is that patch. Undefined for any other result (the input's
 * files stand).
 */
export function claudeResultFiles(result: unknown): FileChange[] | undefined {
  if (!result || typeof result !== "object" || Array.isArray(result)) return undefined;
  const r = result as Record<string, any>;
  const path = r.filePath;
  if (typeof path !== "string" || path === "") return undefined;
  const rel = path.replace(/^\//, "");
  if (r.type === "create" && typeof r.content === "string") {
    const lines = r.content === "" ? [] : r.content.replace(/\n$/, "").split("\n");
    return [{ path, change: "add", diff: ["--- /dev/null", `+++ b/${rel}`, `@@ -0,0 +${lines.length ? 1 : 0},${lines.length} @@`, ...lines.map((l: string) => `+${l}`)].join("\n") }];
  }
  const num = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0;
  const hunks = Array.isArray(r.structuredPatch) ? r.structuredPatch.filter((h: any) => h && num(h.oldStart) && num(h.oldLines) && num(h.newStart) && num(h.newLines) && Array.isArray(h.lines) && h.lines.every((l: unknown) => typeof l === "string")) : [];
  if (!hunks.length) return undefined;
  return [{ path, change: "update", diff: [`--- a/${rel}`, `+++ b/${rel}`, ...hunks.flatMap((h: any) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines])].join("\n") }];
}

/**
 * The to-do list kept by Claude Code's task tools (TaskCreate / TaskUpdate, the default to-do tools of Claude Code
 * 2.1.3xx), after one tool result: `prev` is the list so far ({id, step, status}[]), `result` the tool's
 * tool_use_result — `{task: {id, subject}}` adds a pending task, `{taskId, statusChange: {to}}` changes its status
 * (`deleted` removes it). Anything else: undefined (the list is unchanged).
 */
export function claudeTaskPlan(prev: unknown, result: unknown): { id: string; step: string; status: "pending" | "inProgress" | "completed" }[] | undefined {
  if (!result || typeof result !== "object") return undefined;
  const r = result as Record<string, any>;
  const list = Array.isArray(prev) ? prev.filter((t) => t && typeof t === "object" && typeof t.id === "string").map((t) => ({ ...t })) : [];
  const task = r.task;
  if (task && typeof task === "object" && (typeof task.id === "string" || typeof task.id === "number")) {
    const id = String(task.id);
    const step = typeof task.subject === "string" ? task.subject : typeof task.description === "string" ? task.description : id;
    const at = list.findIndex((t) => t.id === id);
    if (at >= 0) list[at].step = step;
    else list.push({ id, step, status: "pending" });
    return list;
  }
  const to = r.statusChange?.to;
  if ((typeof r.taskId === "string" || typeof r.taskId === "number") && typeof to === "string") {
    const id = String(r.taskId);
    if (to === "deleted") return list.filter((t) => t.id !== id);
    const status = to === "in_progress" ? "inProgress" : to === "completed" ? "completed" : "pending";
    const at = list.findIndex((t) => t.id === id);
    if (at >= 0) list[at].status = status;
    else list.push({ id, step: id, status });
    return list;
  }
  return undefined;
}

/**
 * The text of a local slash command's output as Claude Code writes it into a transcript
 * (`<local-command-stdout>…</local-command-stdout>`, or stderr): the output without the tags; undefined when empty.
 */
export function claudeLocalCommandText(content: unknown): string | undefined {
  if (typeof content !== "string") return undefined;
  const m = /^\s*<local-command-(?:stdout|stderr)>([\s\S]*)<\/local-command-(?:stdout|stderr)>\s*$/.exec(content);
  const text = (m ? m[1] : content).trim();
  return text === "" ? undefined : text;
}

/**
 * A field of a transcript's `<task-notification>` prompt (Claude Code tells the model that background work ended):
 * the text of its tag `name` (`tool-use-id`, `task-id`, `status`, `summary`); undefined when the text is not such a
 * notification or has no such tag.
 */
export function claudeTaskNotificationTag(content: unknown, name: unknown): string | undefined {
  const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((b) => (typeof (b as any)?.text === "string" ? (b as any).text : "")).join("") : undefined;
  if (text === undefined || typeof name !== "string" || !/^\s*<task-notification>/.test(text)) return undefined;
  const open = `<${name}>`, close = `</${name}>`;
  const a = text.indexOf(open);
  const b = a < 0 ? -1 : text.indexOf(close, a + open.length);
  if (b < 0) return undefined;
  const v = text.slice(a + open.length, b).trim();
  return v === "" ? undefined : v;
}

/**
 * A slash command as the transcript records its prompt (`<command-name>/compact</command-name>
 * <command-message>…</command-message> <command-args>…</command-args>`): the command as typed (`/compact …`), as the
 * live stream's prompt shows it; undefined for any other text.
 */
export function claudeCommandPrompt(content: unknown): string | undefined {
  if (typeof content !== "string" || !/^\s*<command-name>/.test(content)) return undefined;
  const tag = (name: string) => {
    const a = content.indexOf(`<${name}>`);
    const b = a < 0 ? -1 : content.indexOf(`</${name}>`, a);
    return b < 0 ? undefined : content.slice(a + name.length + 2, b).trim();
  };
  const name = tag("command-name");
  if (!name) return undefined;
  const args = tag("command-args");
  return args ? `${name} ${args}` : name;
}

/**
 * The prompt a UserPromptSubmit hook blocked, from Claude Code's notice ("UserPromptSubmit operation blocked by
 * hook: … Original prompt: <the prompt>"): the text after the last "Original prompt:"; undefined when there is none.
 */
export function claudeBlockedPrompt(content: unknown): string | undefined {
  if (typeof content !== "string") return undefined;
  const mark = "Original prompt:";
  const i = content.lastIndexOf(mark);
  if (i < 0) return undefined;
  const prompt = content.slice(i + mark.length).trim();
  return prompt === "" ? undefined : prompt;
}
