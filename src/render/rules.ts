/**
 * The render side's rules, defined once: which block an item and a stream go to, the tool fields a card copies, how
 * an item's status reads as a tool status and as a chat_event phase, the texts of status lines, and the human label
 * of a tool. The accumulator (src/render/accumulator/) applies them; its views (the chat_event projection, the
 * terminal render and transcript, the viewer's cards) read them from here. Canonical fields only. Pure; no Node APIs.
 */
import { REQUEST_KIND, type CanonicalItemType, type CanonicalRequestType, type CanonicalRuntimeEventType } from "../../generated/canonical.gen.js";
import type { ToolStatus } from "./accumulator/types.js";

/** The blocks an item can have, by blockId suffix (`<itemId>:<suffix>`). */
export type ItemSuffix = "text" | "thinking" | "plan" | "tool" | "terminal" | "diff";

/** Items whose primary block is not a tool card: messages, reasoning and plans, with the block kind and role they get. */
export const MESSAGE_ITEMS: Readonly<Record<string, { suffix: ItemSuffix; kind: "text" | "thinking" | "plan"; role?: "assistant" | "user" }>> = {
  assistant_message: { suffix: "text", kind: "text", role: "assistant" },
  user_message: { suffix: "text", kind: "text", role: "user" },
  reasoning: { suffix: "thinking", kind: "thinking" },
  plan: { suffix: "plan", kind: "plan" },
};

/** The item's primary block (its suffix): text, thinking, plan text, or else a tool card. */
export function primarySuffix(itemType: string | undefined): ItemSuffix {
  return (Object.hasOwn(MESSAGE_ITEMS, itemType ?? "") ? MESSAGE_ITEMS[itemType!].suffix : undefined) ?? "tool";
}

/** True for items rendered as a tool card. */
export function isToolItem(itemType: string | undefined): boolean {
  return !Object.hasOwn(MESSAGE_ITEMS, itemType ?? "unknown");
}

/** Which block (suffix, its kind) and chunk array a content.delta of a stream kind appends to; `toolCard`: the item is a tool, its card exists first. */
export const DELTA_ROUTES: Readonly<Record<string, { suffix: ItemSuffix; kind: "text" | "thinking" | "plan" | "terminal" | "diff"; chunk: string; toolCard?: boolean; itemType?: CanonicalItemType }>> = {
  assistant_text: { suffix: "text", kind: "text", chunk: "text", itemType: "assistant_message" },
  reasoning_text: { suffix: "thinking", kind: "thinking", chunk: "text", itemType: "reasoning" },
  reasoning_summary_text: { suffix: "thinking", kind: "thinking", chunk: "summary", itemType: "reasoning" },
  plan_text: { suffix: "plan", kind: "plan", chunk: "text" },
  command_output: { suffix: "terminal", kind: "terminal", chunk: "text", toolCard: true, itemType: "command_execution" },
  file_change_output: { suffix: "diff", kind: "diff", chunk: "output", toolCard: true, itemType: "file_change" },
};

/** The route of a stream kind (undefined: a stream this version does not know; it goes to the item's own block). */
export function deltaRoute(streamKind: unknown): (typeof DELTA_ROUTES)[string] | undefined {
  return typeof streamKind === "string" && Object.hasOwn(DELTA_ROUTES, streamKind) ? DELTA_ROUTES[streamKind] : undefined;
}

/** An item's canonical status as a tool status. */
export const ITEM_TO_TOOL_STATUS: Readonly<Record<string, ToolStatus>> = { inProgress: "running", completed: "completed", failed: "failed", declined: "declined", superseded: "failed" };

/** The tool status an item event says: its own status, else completed at completion, running before. */
export function toolStatusOf(status: unknown, phase: "started" | "updated" | "completed"): ToolStatus {
  return (typeof status === "string" && Object.hasOwn(ITEM_TO_TOOL_STATUS, status) ? ITEM_TO_TOOL_STATUS[status] : undefined) ?? (phase === "completed" ? "completed" : "running");
}

/** An item event's chat_event phase: a completion is superseded (a later item replaced it), failed (failed or declined) or completed; a repeated start is an update. */
export function itemPhase(phase: "started" | "updated" | "completed", status: unknown, startedBefore: boolean): "started" | "updated" | "completed" | "failed" | "superseded" {
  if (phase === "completed") return status === "superseded" ? "superseded" : status === "failed" || status === "declined" ? "failed" : "completed";
  return phase === "started" && startedBefore ? "updated" : phase;
}

/** Typed item fields a tool card copies as they are. */
export const TOOL_FIELDS = ["toolName", "error", "command", "cwd", "exitCode", "durationMs", "server", "query", "path", "url"] as const;

/** The text of a user message that arrives whole (its canonical `text`, else its `title`). */
export function userMessageText(p: { text?: unknown; title?: unknown }): string | undefined {
  return typeof p.text === "string" ? p.text : typeof p.title === "string" ? p.title : undefined;
}

/** One file of a file_change item (the item's canonical `files`), its fields that are set, in this order. */
export interface FileChange { path: string; kind?: string; movePath?: string; diff?: string }
export function diffFiles(files: unknown): FileChange[] {
  if (!Array.isArray(files)) return [];
  return files.filter((f) => f && typeof f.path === "string").map((f) => {
    const d: FileChange = { path: f.path };
    if (f.change !== undefined) d.kind = f.change;
    if (f.movePath !== undefined) d.movePath = f.movePath;
    if (f.diff !== undefined) d.diff = f.diff;
    return d;
  });
}

/** The steps of a turn.plan.updated (`plan`), each with a step text and a status. */
export function planSteps(plan: unknown): { step: string; status: string }[] {
  return Array.isArray(plan) ? plan.map((s: any) => ({ step: String(s?.step ?? ""), status: String(s?.status ?? "pending") })) : [];
}

/** The state a turn ends in, from turn.completed's `state` (or "aborted" for turn.aborted). */
export function turnEndState(state: unknown): "completed" | "failed" | "interrupted" | "cancelled" | "aborted" {
  return state === "aborted" ? "aborted" : state === "completed" || state === "failed" || state === "interrupted" || state === "cancelled" ? state : "completed";
}

/** The block kind of a request: its canonical request kind (canonical.yaml requestKinds), a permission when unknown. */
export function requestKindOf(requestType: unknown): "permission" | "question" | "host_call" {
  return REQUEST_KIND[requestType as CanonicalRequestType] ?? "permission";
}

export type StatusLevel = "info" | "warning" | "error";

/**
 * The status line an event makes, per canonical event type: its level and message, and `when` it makes one (absent:
 * always); `phase` is its chat_event phase (default "updated").
 */
export interface StatusRule { level: StatusLevel | ((p: any) => StatusLevel); message: (p: any) => string; when?: (p: any) => boolean; phase?: "updated" | "failed" }
export const STATUS_RULES: Readonly<Partial<Record<CanonicalRuntimeEventType, StatusRule>>> = {
  "session.exited": { level: (p) => (p.exitKind === "error" ? "error" : "info"), message: (p) => `session exited${p.reason ? `: ${p.reason}` : ""}` },
  "thread.realtime.error": { level: "error", message: (p) => `realtime: ${p.message}` },
  "hook.completed": { level: "warning", when: (p) => p.outcome === "error", message: (p) => `hook ${p.hookId} failed${p.output ? `: ${p.output}` : ""}` },
  "tool.summary": { level: "info", message: (p) => String(p.summary) },
  "auth.status": { level: "error", when: (p) => !!p.error, message: (p) => `auth: ${p.error}` },
  "mcp.oauth.completed": { level: "warning", when: (p) => !p.success, message: (p) => `MCP OAuth failed${p.name ? ` (${p.name})` : ""}${p.error ? `: ${p.error}` : ""}` },
  "model.rerouted": { level: "info", message: (p) => `model rerouted ${p.fromModel} → ${p.toModel}: ${p.reason}` },
  "config.warning": { level: "warning", message: (p) => String(p.summary) },
  "runtime.warning": { level: "warning", message: (p) => String(p.message) },
  "runtime.error": { level: "error", message: (p) => String(p.message), phase: "failed" },
};

/** A rule's level for one payload. */
export function statusLevel(rule: StatusRule, p: any): StatusLevel {
  return typeof rule.level === "function" ? rule.level(p) : rule.level;
}

/** Human labels of tool item types (a tool card names its kind with these, never with the canonical enum value). */
const TOOL_KIND_LABEL: Readonly<Record<string, string>> = {
  command_execution: "command",
  file_change: "edit",
  mcp_tool_call: "MCP tool",
  dynamic_tool_call: "tool",
  collab_agent_tool_call: "subagent",
  web_search: "web search",
  image_view: "image",
  context_compaction: "compaction",
  unknown: "tool",
};

/**
 * A tool card's headline: a command shows its command (or its title when the title is part of the command: a short
 * form of it, e.g. without the shell wrapper), other tools their title (falling back to the tool name, the kind).
 */
export function toolHeadline(b: { itemType: string; title?: string; command?: string; toolName?: string }): string {
  if (b.itemType === "command_execution" && b.command && !(b.title && b.command.includes(b.title))) return b.command;
  return b.title ?? b.toolName ?? b.itemType;
}

/** A tool's human label: its tool name when the headline does not already say it, else its kind in words. */
export function toolLabel(b: { itemType: string; toolName?: string; title?: string; command?: string }): string {
  if (b.toolName && b.toolName !== toolHeadline(b)) return b.toolName;
  return TOOL_KIND_LABEL[b.itemType] ?? b.itemType.replace(/_/g, " ");
}

/** What a failed tool says went wrong: its `error`, else (a provider that puts the reason in the output) its string result. */
export function toolFailure(b: { status: string; error?: string; result?: unknown }): string | undefined {
  if (b.error) return b.error;
  return b.status === "failed" && typeof b.result === "string" && b.result.trim() !== "" ? b.result : undefined;
}

/** A question request's canonical questions and answers (request.opened / user-input.* `questions`, `answers`). */
export function questionFields(p: { questions?: unknown; answers?: unknown }): { questions?: unknown; answers?: unknown } {
  const out: { questions?: unknown; answers?: unknown } = {};
  if (p.questions !== undefined) out.questions = p.questions;
  if (p.answers !== undefined) out.answers = p.answers;
  return out;
}
