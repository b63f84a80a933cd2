/**
 * The chat_event projection (docs/chat-event.md): canonical events → `chat_event` records for a
 * render host (e.g. a webview behind the `[CHAT_EVENT] {json}` bridge marker), plus the legacy marker lines
 * (`[MESSAGE_START]`, `[CONTENT_DELTA]`, …) derived from them for hosts still on the marker protocol.
 *
 * Identity: every id is the canonical (minted, stable) id — sessionId, turnId, stepId (= the canonical item),
 * blockId (same scheme as the accumulator, docs/accumulator.md), toolCallId (the tool item), parentId; native
 * provider ids are kept in `messageId` / `partId` and `providerRefs`. `sequence` is this projection's own counter,
 * monotonic per session; `source` names the canonical event each record came from.
 *
 * Published as TypeScript types (below) and a JSON Schema (schemas/chat-event.schema.json, package export
 * `agentnorm/chat-event.schema.json`). checkChatEvents() enforces the contract invariants over a record list.
 * A view of the accumulator (src/render/accumulator.ts): each event's records are made from what it changed and the
 * state around it, with the rules of src/render/rules.ts. Pure; no Node APIs. The dispatch is a table keyed by
 * canonical event type.
 */
import type { CanonicalRuntimeEventType, ProviderKind, ProviderRefs, ProviderRuntimeEventV2 } from "../../generated/canonical.gen.js";
import { accumulatorWithState } from "./accumulator.js";
import type { StepState } from "./accumulator/state.js";
import { deltaRoute, diffFiles, itemPhase, MESSAGE_ITEMS, planSteps, questionFields, requestKindOf, STATUS_RULES, statusLevel, TOOL_FIELDS, toolStatusOf, userMessageText } from "./rules.js";

type CanonicalEvent = ProviderRuntimeEventV2;

export const CHAT_EVENT_SCHEMA_VERSION = 1;
export const CHAT_EVENT_KINDS = ["text", "thinking", "tool", "diff", "status", "permission", "question", "host_call", "plan", "terminal", "task", "todo", "usage", "mode"] as const;
export const CHAT_EVENT_PHASES = ["started", "delta", "updated", "completed", "failed", "superseded"] as const;
export type ChatEventKind = (typeof CHAT_EVENT_KINDS)[number];
export type ChatEventPhase = (typeof CHAT_EVENT_PHASES)[number];

export interface ChatEventTool { name: string; itemType: string; status: "pending" | "running" | "completed" | "failed" | "declined"; title?: string; detail?: string; toolName?: string; input?: unknown; result?: unknown; error?: string; command?: string; cwd?: string; exitCode?: number; durationMs?: number; server?: string; query?: string; path?: string; url?: string }
export interface ChatEventDiffFile { path: string; kind?: string; movePath?: string; diff?: string }
export interface ChatEventDiff { scope: "turn" | "item"; files?: ChatEventDiffFile[]; unifiedDiff?: string }
/** A choice a permission request offers (request.opened's canonical options). */
export interface ChatEventOption { decision: string; label?: string; providerOptionId?: string }
export interface ChatEventPermission { requestId: string; providerRequestId?: string; requestType: string; detail?: string; args?: unknown; options?: ChatEventOption[]; decision?: string; resolution?: unknown }
/** The host is asked to do something itself and return the result (run a tool the agent defined, refresh tokens). */
export interface ChatEventHostCall { requestId: string; providerRequestId?: string; requestType: string; detail?: string; args?: unknown; decision?: string; resolution?: unknown }
export interface ChatEventQuestion { requestId: string; providerRequestId?: string; questions?: unknown; answers?: unknown; decision?: string }
export interface ChatEventPlan { steps: { step: string; status: string }[]; explanation?: string | null }
export interface ChatEventTask { taskId: string; status: "running" | "completed" | "failed" | "stopped"; description?: string; taskType?: string; summary?: string; lastToolName?: string; usage?: unknown }
export interface ChatEventMode { mode?: string; model?: string }
export interface ChatEventStatus { level: "info" | "warning" | "error"; message: string; source: string; scope?: "turn" | "session"; state?: string }

export interface ChatEvent {
  type: "chat_event";
  schemaVersion: typeof CHAT_EVENT_SCHEMA_VERSION;
  provider: ProviderKind;
  sessionId: string;
  turnId?: string;
  runId?: string;
  stepId?: string;
  blockId?: string;
  toolCallId?: string;
  /** Native ids: the provider's message/item id (messageId) and, when it has one, a part index/id (partId). */
  messageId?: string;
  partId?: string;
  parentId?: string;
  /** Monotonic per session, assigned here; the only ordering value for replay. */
  sequence: number;
  phase: ChatEventPhase;
  kind: ChatEventKind;
  /** text / thinking / terminal / plan text / tool output: the delta (phase delta). */
  text?: string;
  /** kind terminal: the terminal a tool's content references (output lives with the client). */
  terminalId?: string;
  role?: "assistant" | "user";
  tool?: ChatEventTool;
  diff?: ChatEventDiff;
  permission?: ChatEventPermission;
  question?: ChatEventQuestion;
  hostCall?: ChatEventHostCall;
  plan?: ChatEventPlan;
  task?: ChatEventTask;
  usage?: unknown;
  /** kind usage: the canonical token counts, when the provider reports counts. */
  tokens?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number; reasoningTokens?: number; totalTokens?: number; contextWindow?: number };
  /** kind usage: the canonical context-window reading (tokens in the context, of the window's size), when the provider reports one. */
  context?: { usedTokens: number; windowTokens?: number };
  mode?: ChatEventMode;
  status?: ChatEventStatus;
  providerRefs?: ProviderRefs;
  /** The canonical event this record was projected from. */
  source: { eventId: string; sequence: number; type: string };
}

// ───────────────────────────── projection ─────────────────────────────

/**
 * What the projection reads of the accumulator for one event: the event's turn (its own, else its item's, else the
 * session's open turn — read before the event is applied), whether its item had started, the item's type and tool
 * name, and the terminal text before and after (the command output the event added).
 */
interface P {
  e: CanonicalEvent;
  p: any;
  turnId?: string;
  /** The item's step before and after the event (undefined: no item, or not known). */
  startedBefore: boolean;
  terminalBefore: string;
  step: StepState | undefined;
  out: Omit<ChatEvent, "sequence" | "type" | "schemaVersion" | "provider" | "sessionId" | "source">[];
}

/** Native message/part identity: a provider item id `msg:3` is message `msg`, part `3`; otherwise the whole id. */
function nativeIds(e: CanonicalEvent): { messageId?: string; partId?: string } {
  const id = e.providerRefs?.providerItemId;
  if (!id) return {};
  const m = /^(.*):(\d+)$/.exec(id);
  return m ? { messageId: m[1], partId: m[2] } : { messageId: id };
}

function ids(x: P) {
  const e = x.e;
  const o: { turnId?: string; stepId?: string; parentId?: string } = {};
  if (x.turnId) o.turnId = x.turnId;
  if (e.itemId) o.stepId = e.itemId;
  if (e.parentId) o.parentId = e.parentId;
  return o;
}

function strip<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** The item's type as the accumulator has it (the event's own when it names one). */
function itemTypeOf(x: P): string {
  const t = x.p.itemType;
  return typeof t === "string" && t !== "unknown" ? t : x.step?.itemType ?? "unknown";
}

/** The text of a step's terminal block. */
function terminalText(st: StepState | undefined): string {
  const t = st?.own.terminal;
  return t ? t.chunks.text.join("") : "";
}

function item(phase: "started" | "updated" | "completed") {
  return (x: P) => {
    const { e, p } = x;
    if (!e.itemId) return;
    const itemType = itemTypeOf(x);
    const msg = Object.hasOwn(MESSAGE_ITEMS, itemType) ? MESSAGE_ITEMS[itemType] : undefined;
    const ph = itemPhase(phase, p.status, x.startedBefore);
    if (msg) {
      const rec: P["out"][number] = { ...ids(x), ...nativeIds(e), blockId: `${e.itemId}:${msg.suffix}`, phase: ph, kind: msg.kind };
      if (msg.role) rec.role = msg.role;
      if (msg.role === "user" && phase === "completed") {
        const t = userMessageText(p);
        if (t !== undefined) rec.text = t;
      }
      x.out.push(rec);
      return;
    }
    const tool: ChatEventTool = { name: x.step?.name ?? itemType, itemType, status: toolStatusOf(p.status, phase) };
    if (p.title !== undefined) tool.title = p.title;
    if (p.detail !== undefined) tool.detail = p.detail;
    for (const k of TOOL_FIELDS) if (p[k] !== undefined && p[k] !== null) (tool as any)[k] = p[k];
    if (p.input !== undefined) tool.input = p.input;
    if (phase !== "started" && p.output !== undefined && p.output !== null) tool.result = p.output;
    x.out.push({ ...ids(x), ...nativeIds(e), blockId: `${e.itemId}:tool`, toolCallId: e.itemId, phase: ph, kind: "tool", tool });
    // the command's whole output: the part its terminal did not hold yet, as one more terminal delta
    const now = terminalText(x.step);
    if (now.length > x.terminalBefore.length) {
      x.out.push({ ...ids(x), ...nativeIds(e), blockId: `${e.itemId}:terminal`, toolCallId: e.itemId, parentId: e.itemId, phase: "delta", kind: "terminal", text: now.slice(x.terminalBefore.length) });
    }
    if (typeof p.terminalId === "string") x.out.push({ ...ids(x), blockId: `${e.itemId}:terminal`, toolCallId: e.itemId, parentId: e.itemId, phase: "updated", kind: "terminal", terminalId: p.terminalId });
    if (itemType === "file_change") {
      const files = diffFiles(p.files);
      if (files.length) x.out.push({ ...ids(x), blockId: `${e.itemId}:diff`, toolCallId: e.itemId, parentId: e.itemId, phase: ph, kind: "diff", diff: { scope: "item", files } });
    }
  };
}

function request(phase: "started" | "completed", forceQuestion = false) {
  return (x: P) => {
    const { e, p } = x;
    const rid = e.requestId ?? e.eventId;
    const kind = forceQuestion ? "question" : requestKindOf(p.requestType);
    const base = { ...ids(x), blockId: `${rid}:request`, ...(e.itemId && !Object.hasOwn(MESSAGE_ITEMS, x.step?.itemType ?? "") ? { toolCallId: e.itemId } : {}) };
    const providerRequestId = e.providerRefs?.providerRequestId;
    if (kind === "question") {
      const q: ChatEventQuestion = { requestId: rid };
      if (providerRequestId) q.providerRequestId = providerRequestId;
      Object.assign(q, questionFields(p));
      if (p.decision !== undefined) q.decision = p.decision;
      x.out.push({ ...base, phase, kind: "question", question: q });
    } else if (kind === "host_call") {
      const call: ChatEventHostCall = { requestId: rid, requestType: p.requestType };
      if (providerRequestId) call.providerRequestId = providerRequestId;
      if (p.detail !== undefined) call.detail = p.detail;
      if (p.args !== undefined) call.args = p.args;
      if (p.decision !== undefined) call.decision = p.decision;
      if (p.resolution !== undefined) call.resolution = p.resolution;
      x.out.push({ ...base, phase, kind: "host_call", hostCall: call });
    } else {
      const perm: ChatEventPermission = { requestId: rid, requestType: p.requestType ?? "unknown" };
      if (providerRequestId) perm.providerRequestId = providerRequestId;
      if (p.detail !== undefined) perm.detail = p.detail;
      if (p.args !== undefined) perm.args = p.args;
      if (Array.isArray(p.options)) perm.options = p.options;
      if (p.decision !== undefined) perm.decision = p.decision;
      if (p.resolution !== undefined) perm.resolution = p.resolution;
      x.out.push({ ...base, phase, kind: "permission", permission: perm });
    }
  };
}

/** The status record of an event type with a STATUS_RULES entry (when its rule says it makes one). */
function ruled(type: CanonicalRuntimeEventType) {
  const rule = STATUS_RULES[type]!;
  return (x: P) => {
    if (rule.when && !rule.when(x.p)) return;
    x.out.push({ ...ids(x), blockId: `${x.e.eventId}:status`, phase: rule.phase ?? "updated", kind: "status", status: { level: statusLevel(rule, x.p), message: rule.message(x.p), source: x.e.type } });
  };
}

function turn(phase: ChatEventPhase, state: (p: any) => string) {
  return (x: P) => {
    const st = state(x.p);
    const failed = st === "failed" || st === "aborted";
    x.out.push({ ...ids(x), stepId: undefined, phase: phase === "completed" && failed ? "failed" : phase, kind: "status", status: { level: failed ? "error" : "info", message: `turn ${st}`, source: x.e.type, scope: "turn", state: st } });
  };
}

const none = () => {};

/** One projection per canonical event type (a new canonical type fails typecheck until it is listed). */
const PROJECT: Record<CanonicalRuntimeEventType, (x: P) => void> = {
  "session.started": none,
  "session.configured": (x) => {
    const { mode, model } = x.p;
    if (typeof mode !== "string" && typeof model !== "string") return;
    const m: ChatEventMode = {};
    if (typeof mode === "string") m.mode = mode;
    if (typeof model === "string") m.model = model;
    x.out.push({ ...ids(x), blockId: `${x.e.eventId}:mode`, phase: "updated", kind: "mode", mode: m });
  },
  "session.state.changed": (x) => x.out.push({ phase: "updated", kind: "status", status: { level: x.p.state === "error" ? "error" : "info", message: `session ${x.p.state}${x.p.reason ? `: ${x.p.reason}` : ""}`, source: x.e.type, scope: "session", state: x.p.state } }),
  "session.exited": (x) => {
    const rule = STATUS_RULES["session.exited"]!;
    const level = statusLevel(rule, x.p);
    x.out.push({ phase: level === "error" ? "failed" : "completed", kind: "status", status: { level, message: rule.message(x.p), source: x.e.type, scope: "session", state: "exited" } });
  },
  "thread.started": none,
  "thread.state.changed": none,
  "thread.metadata.updated": none,
  "thread.token-usage.updated": (x) => x.out.push({ ...ids(x), stepId: undefined, blockId: `${x.turnId ?? x.e.sessionId}:usage`, phase: "updated", kind: "usage", usage: x.p.usage, ...(x.p.tokenUsage !== undefined ? { tokens: x.p.tokenUsage } : {}), ...(x.p.context !== undefined ? { context: x.p.context } : {}) }),
  "thread.realtime.started": none,
  "thread.realtime.item-added": none,
  "thread.realtime.audio.delta": none,
  "thread.realtime.error": ruled("thread.realtime.error"),
  "thread.realtime.closed": none,
  "turn.started": turn("started", () => "started"),
  "turn.completed": turn("completed", (p) => String(p.state ?? "completed")),
  "turn.aborted": turn("completed", () => "aborted"),
  "turn.plan.updated": (x) => {
    const { e, p } = x;
    const plan: ChatEventPlan = { steps: planSteps(p.plan) };
    if (p.explanation !== undefined) plan.explanation = p.explanation;
    x.out.push({ ...ids(x), blockId: e.itemId ? `${e.itemId}:plan` : `${x.turnId ?? e.sessionId}:plan`, phase: "updated", kind: e.itemId ? "todo" : "plan", plan });
  },
  "turn.diff.updated": (x) => x.out.push({ ...ids(x), blockId: `${x.turnId ?? x.e.sessionId}:diff`, phase: "updated", kind: "diff", diff: { scope: "turn", unifiedDiff: String(x.p.unifiedDiff ?? "") } }),
  "item.started": item("started"),
  "item.updated": item("updated"),
  "item.completed": item("completed"),
  "content.delta": (x) => {
    const { e, p } = x;
    if (typeof p.delta !== "string" || p.delta === "") return;
    const route = deltaRoute(p.streamKind);
    const k = route ? { kind: route.kind, suffix: route.suffix } : { kind: "tool" as const, suffix: "tool" };
    const step = e.itemId ?? `${x.turnId ?? e.sessionId}:stream:${p.streamKind}`;
    const rec: P["out"][number] = { ...ids(x), ...nativeIds(e), blockId: `${step}:${k.suffix}`, phase: "delta", kind: k.kind, text: p.delta };
    if (k.kind === "text") rec.role = e.itemId && x.step?.itemType === "user_message" ? "user" : "assistant";
    if ((k.kind === "terminal" || k.kind === "diff" || k.kind === "tool") && e.itemId) { rec.toolCallId = e.itemId; if (k.kind !== "tool") rec.parentId = e.itemId; }
    x.out.push(rec);
  },
  "request.opened": request("started"),
  "request.resolved": request("completed"),
  "user-input.requested": request("started", true),
  "user-input.resolved": request("completed", true),
  "task.started": (x) => x.out.push(task(x, "started")),
  "task.progress": (x) => x.out.push(task(x, "updated")),
  "task.completed": (x) => x.out.push(task(x, x.p.status === "failed" ? "failed" : "completed")),
  "hook.started": none,
  "hook.progress": none,
  "hook.completed": ruled("hook.completed"),
  "tool.progress": none,
  "tool.summary": ruled("tool.summary"),
  "auth.status": ruled("auth.status"),
  "account.updated": none,
  "account.rate-limits.updated": none,
  "mcp.status.updated": none,
  "mcp.oauth.completed": ruled("mcp.oauth.completed"),
  "model.rerouted": ruled("model.rerouted"),
  "config.warning": ruled("config.warning"),
  "deprecation.notice": none,
  "files.persisted": none,
  "runtime.warning": ruled("runtime.warning"),
  "runtime.error": ruled("runtime.error"),
};

function task(x: P, phase: ChatEventPhase): P["out"][number] {
  const { p } = x;
  const t: ChatEventTask = { taskId: String(p.taskId), status: p.status ?? (phase === "started" || phase === "updated" ? "running" : "completed") };
  for (const k of ["description", "taskType", "summary", "lastToolName", "usage"] as const) if (p[k] !== undefined) (t as any)[k] = p[k];
  return { ...ids(x), blockId: `${p.taskId}:task`, phase, kind: "task", task: t };
}

export interface ChatEventProjector {
  /** The chat_event records of one canonical event (zero or more). Never throws on event data. */
  push(event: CanonicalEvent): ChatEvent[];
}

/**
 * A projector: it applies each event to its own accumulator (the render side's one state machine) and makes the
 * event's records from the change and the state around it; its only state of its own is the record counter.
 */
export function createChatEventProjector(): ChatEventProjector {
  const { accumulator, state } = accumulatorWithState({ eventLog: false });
  const seq = new Map<string, number>();
  return {
    push(e) {
      if (!e || typeof e !== "object" || typeof (e as any).type !== "string") return [];
      const fn = Object.hasOwn(PROJECT, e.type) ? PROJECT[e.type as CanonicalRuntimeEventType] : undefined;
      if (!fn) return [];
      const session = state.sessionIndex.get(e.sessionId);
      const before = e.itemId ? session?.stepIndex.get(e.itemId) : undefined;
      const turnId = e.turnId ?? before?.turn?.turnId ?? session?.openTurn?.turnId;
      const startedBefore = before?.started ?? false;
      const terminalBefore = terminalText(before);
      accumulator.apply(e);
      const step = e.itemId ? state.sessionIndex.get(e.sessionId)?.stepIndex.get(e.itemId) : undefined;
      const x: P = { e, p: (e.payload ?? {}) as any, turnId, startedBefore, terminalBefore, step, out: [] };
      try { fn(x); } catch { return []; }
      return x.out.map((r) => {
        const n = (seq.get(e.sessionId) ?? 0) + 1;
        seq.set(e.sessionId, n);
        const rec: ChatEvent = { type: "chat_event", schemaVersion: CHAT_EVENT_SCHEMA_VERSION, provider: e.provider, sessionId: e.sessionId, sequence: n, ...(r as any), source: { eventId: e.eventId, sequence: e.sequence, type: e.type } };
        if (e.providerRefs && rec.providerRefs === undefined) rec.providerRefs = e.providerRefs;
        return strip(rec);
      });
    },
  };
}

/** All chat_event records of a canonical stream. */
export function toChatEvents(events: Iterable<CanonicalEvent>): ChatEvent[] {
  const p = createChatEventProjector();
  const out: ChatEvent[] = [];
  for (const e of events) out.push(...p.push(e));
  return out;
}

// ───────────────────────────── invariants ─────────────────────────────

/**
 * The contract invariants (docs/chat-event.md, "Invariants") checked over a record list; returns the violations
 * (empty = the list keeps the contract):
 * - sequence strictly increasing per session; schemaVersion known; kind and phase from the lists;
 * - deltas name a blockId; tool records name a toolCallId; permission/question records carry a requestId;
 * - turnId does not change within a stepId, and stepId/blockId identity does not change kind;
 * - nothing follows a block's or tool's completed/failed record except later snapshots of the same identity
 *   (no delta after close).
 */
export function checkChatEvents(records: Iterable<ChatEvent>): string[] {
  const check = createChatEventChecker();
  const bad: string[] = [];
  for (const r of records) bad.push(...check(r));
  return bad;
}

/** The same checks, one record at a time (for a stream): returns the violations of this record. */
export function createChatEventChecker(): (record: ChatEvent) => string[] {
  const lastSeq = new Map<string, number>();
  const stepTurn = new Map<string, string | undefined>();
  const blockKind = new Map<string, string>();
  const closed = new Set<string>();
  let i = 0;
  return (r) => {
    const bad: string[] = [];
    i++;
    const at = `#${r.sequence ?? "?"} (record ${i}, ${r.kind}/${r.phase})`;
    if (r.type !== "chat_event") bad.push(`${at}: type is not chat_event`);
    if (r.schemaVersion !== CHAT_EVENT_SCHEMA_VERSION) bad.push(`${at}: schemaVersion ${r.schemaVersion}`);
    if (!(CHAT_EVENT_KINDS as readonly string[]).includes(r.kind)) bad.push(`${at}: unknown kind`);
    if (!(CHAT_EVENT_PHASES as readonly string[]).includes(r.phase)) bad.push(`${at}: unknown phase`);
    const prev = lastSeq.get(r.sessionId) ?? 0;
    if (!(r.sequence > prev)) bad.push(`${at}: sequence not above ${prev}`);
    lastSeq.set(r.sessionId, Math.max(prev, r.sequence));
    if (r.phase === "delta" && !r.blockId) bad.push(`${at}: delta without blockId`);
    if (r.kind === "tool" && !r.toolCallId) bad.push(`${at}: tool record without toolCallId`);
    if (r.kind === "permission" && !r.permission?.requestId) bad.push(`${at}: permission without requestId`);
    if (r.kind === "question" && !r.question?.requestId) bad.push(`${at}: question without requestId`);
    if (r.kind === "host_call" && !r.hostCall?.requestId) bad.push(`${at}: host_call without requestId`);
    if (r.stepId) {
      const key = r.sessionId + "\u0000" + r.stepId;
      if (stepTurn.has(key) && r.turnId !== undefined && stepTurn.get(key) !== undefined && stepTurn.get(key) !== r.turnId) bad.push(`${at}: step ${r.stepId} moved from turn ${stepTurn.get(key)} to ${r.turnId}`);
      if (!stepTurn.get(key)) stepTurn.set(key, r.turnId);
    }
    if (r.blockId) {
      const key = r.sessionId + "\u0000" + r.blockId;
      const k = blockKind.get(key);
      const family = (x: string) => (x === "plan" || x === "todo" ? "plan" : x === "permission" || x === "question" || x === "host_call" ? "request" : x);
      if (k && family(k) !== family(r.kind)) bad.push(`${at}: block ${r.blockId} changed kind ${k} → ${r.kind}`);
      blockKind.set(key, r.kind);
      if (r.phase === "delta" && closed.has(key)) bad.push(`${at}: delta to block ${r.blockId} after it completed`);
      if (r.phase === "completed" || r.phase === "failed") closed.add(key);
    }
    return bad;
  };
}

// ───────────────────────────── transport: marker lines ─────────────────────────────

/** The bridge marker line of one record: `[CHAT_EVENT] {json}` (one line; JSON.stringify never emits a raw newline). */
export function chatEventLine(r: ChatEvent): string {
  return `[CHAT_EVENT] ${JSON.stringify(r)}`;
}

/**
 * The legacy marker lines a record maps to, for hosts migrating from the marker protocol: [MESSAGE_START] /
 * [MESSAGE_END] per turn, [CONTENT_DELTA] "text" and [THINKING_DELTA] "text" (JSON strings), [TOOL_USE] {id, name,
 * input} when a tool starts (repeated with the same id when an update brings its input), [TOOL_RESULT] {tool_use_id,
 * content, is_error} when it ends. Everything else has no
 * legacy form (the host gets it from [CHAT_EVENT]).
 */
export function legacyMarkers(r: ChatEvent): string[] {
  const fn = LEGACY[r.kind];
  return fn ? fn(r) : [];
}

const LEGACY: Partial<Record<ChatEventKind, (r: ChatEvent) => string[]>> = {
  status: (r) => (r.status?.scope !== "turn" ? [] : r.phase === "started" ? ["[MESSAGE_START]"] : r.phase === "completed" || r.phase === "failed" ? ["[MESSAGE_END]"] : []),
  text: (r) => (r.phase === "delta" && r.role !== "user" && r.text ? [`[CONTENT_DELTA] ${JSON.stringify(r.text)}`] : []),
  thinking: (r) => (r.phase === "delta" && r.text ? [`[THINKING_DELTA] ${JSON.stringify(r.text)}`] : []),
  tool: (r) => {
    // at the start, and again (same id) when an update brings the input a streamed start did not have yet
    const input = r.tool?.input;
    const hasInput = input !== undefined && !(typeof input === "object" && input !== null && Object.keys(input).length === 0);
    if (r.phase === "started" || (r.phase === "updated" && hasInput)) return [`[TOOL_USE] ${JSON.stringify({ id: r.toolCallId, name: r.tool?.name, input: input ?? {} })}`];
    if (r.phase === "completed" || r.phase === "failed") {
      const c = r.tool?.result;
      return [`[TOOL_RESULT] ${JSON.stringify({ tool_use_id: r.toolCallId, content: typeof c === "string" ? c : c === undefined ? "" : JSON.stringify(c), is_error: r.phase === "failed" })}`];
    }
    return [];
  },
};
