/**
 * One reverse API for every surface with requests: a `request.opened` event and a canonical decision (or a user-input
 * request's answers) → exactly what that provider expects back.
 *
 * What each request is answered with is the tables' (mappings/README.md "Answers"): the row that opened the request
 * (the event's raw.rule) lists, per reply decision, the answer's body and the envelope it goes in — the JSON-RPC
 * response of Codex app-server and ACP, Claude's callback results or stdio control_response, opencode's HTTP calls,
 * Codex EventMsg's Submissions — compiled into generated/answers.gen.ts. This module only runs them: it checks the
 * reply against the request's kind, finds the row, picks the transport, the first case that fits, and builds the
 * answer. The provider's word for a decision (`$choice`) is the `providerOptionId` of the opened event's
 * `payload.options`, of the decision or, when the request does not offer it, of one of the same polarity — never the
 * opposite one.
 */
import { AnswerError, ERROR_CODES } from "../errors.js";
import { REQUEST_KIND, type CanonicalRequestType, type EventOf, type ProviderRuntimeEventV2, type Question, type RequestKind, type RequestKindByType, type RequestTypeOfKind } from "../../generated/canonical.gen.js";
import { ANSWERS } from "../../generated/answers.gen.js";
import type { AnswerCaseData, AnswerContext, AnswerRowData, AnswerTables, ReplyFieldType } from "./answer-table.js";
import type { ClaudeElicitationResult, ClaudePermissionResult, ClaudeUserDialogResult } from "./claude-permission.js";

/** A permission's canonical decision (the request's `options` say which ones the provider offers). */
export type PermissionDecision = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

/**
 * A question request's answers: per question id (`payload.questions[].id`), the id of the option chosen, or a list
 * of them (a `multiSelect` question), or the text typed (a `freeText` question). Every question needs an answer.
 */
export type QuestionAnswers = Readonly<Record<string, string | readonly string[]>>;

/** The answer to a permission request: one of the decisions its `options` offer (`cancelled` is always taken). */
export type PermissionReply =
  | {
      decision: PermissionDecision;
      /** why (a refusal), for providers that pass it on */ message?: string;
      /** Claude: the input to run with */ updatedInput?: Record<string, unknown>;
      /** Who decided: a person (`user`, the default) or the host on its own — a mode, a policy, a rule — with nobody
       *  asked (`host`). Providers that record it say so (Claude Code 2.1.337 and later: decisionClassification
       *  `config`; older CLIs do not know that value). */
      decidedBy?: "user" | "host";
    }
  /** Some requests of the `unknown` type (an MCP server's form) take the form's content, as an object. */
  | { decision: "answered"; answers: Readonly<Record<string, unknown>> }
  /** Claude (SDK 0.3): another client answered the request; the SDK writes nothing (canUseTool / onElicitation / onUserDialog return null). */
  | { decision: "answered_elsewhere" };

/**
 * The answer to a question request: its answers (checked against `payload.questions` when the request has them; an
 * MCP server's form or a dialog without them takes the provider's own content), or its dismissal.
 */
export type QuestionReply =
  | { decision: "answered"; answers: QuestionAnswers | Readonly<Record<string, unknown>> }
  | { decision: "cancelled"; /** why, for providers that pass it on */ message?: string }
  /** A refusal, where the provider tells it from a dismissal (an MCP elicitation's decline; Cursor's plan). */
  | { decision: "reject_once" | "reject_always"; message?: string }
  /** Cursor's plan (a `tool_user_input` request that offers no questions): accepted. */
  | { decision: "allow_once" | "allow_always" }
  | { decision: "answered_elsewhere" };

/** The answer to a host call (the host ran the tool the agent defined, or refreshed tokens). */
export type HostCallReply =
  /** its output as text or the provider's content items, or the provider's whole `result` object */
  | { decision: "completed"; output?: string | readonly unknown[]; result?: Readonly<Record<string, unknown>> }
  | { decision: "failed"; message?: string };

/** The reply a request kind takes. */
export interface ReplyByKind { permission: PermissionReply; question: QuestionReply; host_call: HostCallReply }
/** The reply a request type takes (a union of request types: any of their replies). */
export type ReplyFor<T extends CanonicalRequestType> = T extends CanonicalRequestType ? ReplyByKind[RequestKindByType[T]] : never;

/** What the host answers: a permission decision, the answers to a question (or its cancellation), a host call's result. */
export type RequestReply = PermissionReply | QuestionReply | HostCallReply;

/** A request.opened event of a request kind (narrow with `isRequestOf`): answerRequest then takes only that kind's reply. */
export type RequestOpenedOf<K extends RequestKind> = EventOf<"request.opened"> & { payload: { requestType: RequestTypeOfKind<K> } };

/** The reply `answerRequest` takes for an event: by its request type when the event's type says it is a request.opened, else any. */
export type ReplyForEvent<E> = [E] extends [never] ? RequestReply : E extends { type: "request.opened"; payload: { requestType: infer T } } ? (T extends CanonicalRequestType ? ReplyFor<T> : RequestReply) : RequestReply;

/** The request kind of an event (`permission`, `question`, `host_call`), or undefined when it is not a request.opened. */
export function requestKindOf(e: { type?: unknown; payload?: unknown } | null | undefined): RequestKind | undefined {
  if (e?.type !== "request.opened") return undefined;
  const t = (e.payload as { requestType?: unknown } | undefined)?.requestType;
  return typeof t === "string" && Object.hasOwn(REQUEST_KIND, t) ? REQUEST_KIND[t as CanonicalRequestType] : "permission";
}

/** Whether `e` is a request.opened event of request kind `kind` (a type guard: answerRequest then takes that kind's reply). */
export function isRequestOf<K extends RequestKind>(e: { type?: unknown; payload?: unknown } | null | undefined, kind: K): e is RequestOpenedOf<K> {
  return requestKindOf(e) === kind;
}

export type RequestAnswer =
  | { kind: "jsonrpc"; message: { jsonrpc: "2.0"; id: string | number; result: unknown } | { jsonrpc: "2.0"; id: string | number; error: { code: number; message: string } } }
  | { kind: "claude-can-use-tool"; result: ClaudePermissionResult }
  /** SDK 0.3: what onElicitation returns (an MCP server's question). */
  | { kind: "claude-elicitation"; result: ClaudeElicitationResult }
  /** SDK 0.3: what onUserDialog returns (a dialog the CLI asked for). */
  | { kind: "claude-user-dialog"; result: ClaudeUserDialogResult }
  /** SDK 0.3: another client answered; the callback (canUseTool, onElicitation or onUserDialog: `callback`) returns null. */
  | { kind: "claude-answered-elsewhere"; callback: "canUseTool" | "onElicitation" | "onUserDialog"; result: null }
  | { kind: "claude-control-response"; message: { type: "control_response"; response: { subtype: "success"; request_id: string; response: ClaudePermissionResult | ClaudeElicitationResult | ClaudeUserDialogResult | Record<string, unknown> } } }
  | { kind: "http"; method: "POST"; path: string; body?: unknown }
  /** Codex EventMsg streams (the core's event queue): the Submission carrying the answering Op. */
  | { kind: "codex-submission"; submission: { id: string; op: Record<string, unknown> } };

export interface AnswerOptions {
  /** Claude only: answer the Agent SDK's callback (`sdk`: canUseTool, onElicitation, onUserDialog) or the stdio wire's control_request (`wire`). Default: the one the request came by (its row's transport in the claude-sdk table). */
  claude?: "sdk" | "wire";
  /** opencode only: `v2` (`POST /permission/{id}/reply`, default) or `v1` (`POST /session/{sessionID}/permissions/{id}`). The transports a table declares (`answering.transports`); another value is refused. */
  opencode?: "v1" | "v2";
}

type Opened = Pick<ProviderRuntimeEventV2, "type" | "provider" | "payload" | "providerRefs"> & { raw?: { source?: string; rule?: string } };

/**
 * The answer `opened` (a request.opened event) expects for `reply`. Throws a one-line AnswerError naming what is
 * wrong on a misuse: a wrong event, no id, a decision the request's kind or its `options` do not take, answers that
 * are not the request's questions' (an unknown question, an option not offered, text where none is taken, a question
 * left unanswered, two choices for a single-choice question), a reply without what the answer needs. Never builds an
 * empty answer. The reply is typed by the event: a request narrowed with `isRequestOf` takes that kind's reply only.
 */
export function answerRequest<E extends Opened>(opened: E, reply: ReplyForEvent<E>, opts?: AnswerOptions): RequestAnswer;
export function answerRequest(opened: Opened, reply: RequestReply, opts: AnswerOptions = {}): RequestAnswer {
  const tables: AnswerTables = ANSWERS;
  if (opened?.type !== "request.opened") throw new AnswerError(ERROR_CODES.NOT_A_REQUEST, `answerRequest: expected a request.opened event, got ${String(opened?.type)}`);
  const p = opened.payload as { requestType: string; options?: { decision: string; providerOptionId?: string }[]; args?: any; questions?: unknown };
  const id = opened.providerRefs?.providerRequestId;
  if (id === undefined) throw new AnswerError(ERROR_CODES.INCOMPLETE_REQUEST, "answerRequest: the request.opened event has no providerRefs.providerRequestId");
  const decision = (reply as { decision?: unknown } | undefined)?.decision;
  if (typeof decision !== "string") throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: the reply has no decision (a string), got ${JSON.stringify(decision)}`);
  const kind: RequestKind = REQUEST_KIND[p.requestType as CanonicalRequestType] ?? "permission";
  if (kind === "host_call" ? decision !== "completed" && decision !== "failed" : decision === "completed" || decision === "failed") {
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: a ${p.requestType} request takes ${kind === "host_call" ? "completed or failed" : "a permission decision, answered or cancelled"}, not "${decision}"`);
  }
  // A request with questions takes answers to them, or its dismissal.
  const questions = kind === "question" && Array.isArray(p.questions) ? (p.questions as Question[]) : undefined;
  if (questions && !QUESTION_DECISIONS.includes(decision)) {
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: a question request takes "answered" (with answers) or "cancelled", not "${decision}"`);
  }
  if (questions && decision === "answered") reply = { ...reply, answers: checkAnswers(questions, (reply as { answers?: unknown }).answers) } as RequestReply;
  const row = rowOf(tables, opened);
  if (!row) throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: no table answers this ${opened.provider} request${opened.raw?.rule ? ` (${opened.raw.rule})` : ""}`);
  const rule = `${row.surface}#${ruleName(tables, row)}`;
  if (row.none !== undefined) throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: ${rule} requests are not answered through agentnorm: ${row.none}`);
  const surface = tables.surfaces[row.surface];
  const asked = surface?.option !== undefined ? (opts as Record<string, unknown>)[surface.option] : undefined;
  if (asked !== undefined && !surface.transports.includes(String(asked))) {
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: ${surface.option}: "${String(asked)}" is not a transport of ${row.surface} (${surface.transports.join(", ")})`);
  }
  const transport = asked !== undefined ? String(asked) : row.transport ?? surface?.transports[0];
  const a = context(p, opened.providerRefs ?? {}, id, reply, decision);
  const fits = (c: AnswerCaseData): boolean => c.decisions.includes(decision) && (c.transport === undefined || c.transport === transport) && (!c.when || c.when(a));
  const c = row.cases.find(fits);
  if (!c) {
    // what this request takes (conditions that cannot be evaluated for another decision count as holding)
    const takes = [...new Set(row.cases.filter((x) => x.body && (x.transport === undefined || x.transport === transport)).filter((x) => x.decisions.some((d) => {
      try { return !x.when || x.when(context(p, opened.providerRefs ?? {}, id, reply, d)); } catch { return true; }
    })).flatMap((x) => x.decisions))];
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: a ${p.requestType} request of ${rule}${transport ? ` over ${transport}` : ""} takes ${takes.length ? takes.map((d) => `"${d}"`).join(", ") : "no decision"}, not "${decision}"`);
  }
  // A request that lists its options takes one of them (cancelling is always possible: the table says how).
  const offered = Array.isArray(p.options) && p.options.length ? [...new Set(p.options.map((o) => o?.decision).filter((d): d is string => typeof d === "string"))] : undefined;
  if (offered && !offered.includes(decision) && decision !== "cancelled" && decision !== "answered_elsewhere") {
    throw new AnswerError(ERROR_CODES.NO_MATCHING_CHOICE, `answerRequest: this ${p.requestType} request of ${rule} offers ${offered.map((d) => `"${d}"`).join(", ")}, not "${decision}"`);
  }
  for (const [field, type] of Object.entries(c.reply ?? {})) {
    const v = (reply as Record<string, unknown>)[field];
    if (v === undefined || v === null) throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: a "${decision}" reply to ${rule} needs ${field}${type === "any" ? "" : ` (${article(type)})`}`);
    if (!isType(v, type)) throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: a "${decision}" reply to ${rule} needs ${field} as ${article(type)}, got ${Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`}`);
  }
  if (c.fail) throw new AnswerError(ERROR_CODES[FAIL[c.fail.code]], `answerRequest: ${c.fail.message}`);
  a.body = c.body!(a);
  if (a.body === undefined || a.body === null || (typeof a.body === "object" && !Array.isArray(a.body) && Object.keys(a.body).length === 0)) {
    throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: a "${decision}" reply to ${rule} would be an empty answer (${c.at})`);
  }
  const via = (c.via ?? []).map((n) => [n, surface?.envelopes[n]] as const).find(([, e]) => e && (e.transport === undefined || e.transport === transport));
  if (!via) throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: ${rule} has no ${transport ?? ""} answer for "${decision}" (${c.at})`);
  return { kind: via[1]!.kind, ...via[1]!.answer(a) } as RequestAnswer;
}

const QUESTION_DECISIONS: readonly string[] = ["answered", "cancelled", "answered_elsewhere"];

/**
 * A question request's answers checked against its questions and made canonical (per question id, a list of option
 * ids and/or typed text), or a one-line AnswerError naming what is wrong.
 */
function checkAnswers(questions: readonly Question[], answers: unknown): Record<string, string[]> {
  const fail = (what: string): never => { throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: ${what}`); };
  const ids = questions.map((q) => q.id);
  const shape = `an object of question id (${ids.map((i) => JSON.stringify(i)).join(", ")}) → option id(s) or text`;
  if (answers === undefined || answers === null) fail(`an "answered" reply needs answers: ${shape}`);
  if (typeof answers !== "object" || Array.isArray(answers)) fail(`answers must be ${shape}, got ${Array.isArray(answers) ? "an array" : `a ${typeof answers}`}`);
  const out: Record<string, string[]> = {};
  for (const [id, v] of Object.entries(answers as Record<string, unknown>)) {
    const q = questions.find((x) => x.id === id);
    if (!q) fail(`answers: the request asks no question "${id}" (its questions: ${ids.map((i) => JSON.stringify(i)).join(", ")})`);
    const list = typeof v === "string" ? [v] : Array.isArray(v) ? v : fail(`answers["${id}"] must be an option id, a list of them or text, got ${v === null ? "null" : typeof v}`);
    const opts = q!.options ?? [];
    for (const x of list) {
      if (typeof x !== "string") fail(`answers["${id}"] must hold strings, got ${x === null ? "null" : typeof x}`);
      if (x === "") fail(`answers["${id}"] holds an empty text`);
      if (!opts.some((o) => o.id === x) && !q!.freeText) fail(`answers["${id}"]: "${x}" is not an option of the question (${opts.map((o) => JSON.stringify(o.id)).join(", ")}) and it takes no free text`);
    }
    if (list.length > 1 && !q!.multiSelect) fail(`answers["${id}"]: the question takes one answer, got ${list.length}`);
    out[id] = list as string[];
  }
  const missing = ids.filter((i) => !out[i]?.length);
  if (missing.length) fail(`answers: no answer to question${missing.length > 1 ? "s" : ""} ${missing.map((i) => JSON.stringify(i)).join(", ")} (every question needs one; reply "cancelled" to dismiss)`);
  return out;
}

const FAIL = { incomplete_request: "INCOMPLETE_REQUEST", no_matching_choice: "NO_MATCHING_CHOICE", unsupported_request: "UNSUPPORTED_REQUEST", invalid_reply: "INVALID_REPLY" } as const;

/**
 * The row that opened the request: its raw.rule; without one (an event built by hand, or stripped), the first row of
 * the event's provider (and raw.source, when it has one) that opens requests of its type.
 */
function rowOf(tables: AnswerTables, opened: Opened): AnswerRowData | undefined {
  const rule = opened.raw?.rule;
  if (rule !== undefined && Object.hasOwn(tables.rows, rule)) return tables.rows[rule];
  const type = (opened.payload as { requestType?: string }).requestType ?? "";
  const source = opened.raw?.source;
  return Object.values(tables.rows).find((r) => r.provider === opened.provider && (source === undefined || r.source === source) && r.requestTypes.includes(type));
}

function ruleName(tables: AnswerTables, row: AnswerRowData): string {
  const key = Object.keys(tables.rows).find((k) => tables.rows[k] === row) ?? "";
  return key.slice(key.indexOf("#") + 1);
}

/** A decision's fallbacks when the provider does not offer it: the same polarity first, never the opposite one. */
const FALLBACK: Record<PermissionDecision, PermissionDecision[]> = {
  allow_once: ["allow_once", "allow_always"],
  allow_always: ["allow_always", "allow_once"],
  reject_once: ["reject_once", "reject_always", "cancelled"],
  reject_always: ["reject_always", "reject_once", "cancelled"],
  cancelled: ["cancelled", "reject_once", "reject_always"],
};

/** What an answer's expressions read. */
function context(p: { options?: { decision: string; providerOptionId?: string }[]; args?: unknown }, refs: object, requestId: string, reply: RequestReply, decision: string): AnswerContext {
  /** The provider's word for the decision, from the table-filled options. */
  const offered = (): string | undefined => {
    for (const d of (FALLBACK as Record<string, string[]>)[decision] ?? [decision]) {
      const o = Array.isArray(p.options) ? p.options.find((x) => x && x.decision === d && typeof x.providerOptionId === "string") : undefined;
      if (o) return o.providerOptionId;
    }
    return undefined;
  };
  return {
    reply, payload: p, args: p.args, refs, requestId, decision,
    get offered() { return offered(); },
    get choice() {
      const w = offered();
      if (w === undefined) throw new AnswerError(ERROR_CODES.NO_MATCHING_CHOICE, `answerRequest: the request offers no choice for "${decision}"`);
      return w;
    },
  };
}

function isType(v: unknown, type: ReplyFieldType): boolean {
  if (type === "array") return Array.isArray(v);
  if (type === "object") return typeof v === "object" && v !== null && !Array.isArray(v);
  if (type === "string") return typeof v === "string";
  return true;
}

const article = (type: string) => (type === "object" || type === "array" ? `an ${type}` : `a ${type}`);
