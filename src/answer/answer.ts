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
import { REQUEST_KIND, type CanonicalRequestType, type ProviderRuntimeEventV2 } from "../../generated/canonical.gen.js";
import { ANSWERS } from "../../generated/answers.gen.js";
import type { AnswerCaseData, AnswerContext, AnswerRowData, AnswerTables, ReplyFieldType } from "./answer-table.js";
import type { ClaudeElicitationResult, ClaudePermissionResult, ClaudeUserDialogResult } from "./claude-permission.js";

/** A permission's canonical decision (the request's `options` say which ones the provider offers). */
export type PermissionDecision = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

/** What the host answers: a permission decision, or the answers to a user-input request (or its cancellation). */
export type RequestReply =
  | {
      decision: PermissionDecision;
      /** why (a refusal), for providers that pass it on */ message?: string;
      /** Claude: the input to run with */ updatedInput?: Record<string, unknown>;
      /** Who decided: a person (`user`, the default) or the host on its own — a mode, a policy, a rule — with nobody
       *  asked (`host`). Providers that record it say so (Claude Code 2.1.337 and later: decisionClassification
       *  `config`; older CLIs do not know that value). */
      decidedBy?: "user" | "host";
    }
  /** The answers to a user-input request: an object or a list, as the request's surface takes them (answerRequest checks). */
  | { decision: "answered"; answers: unknown }
  | { decision: "cancelled" }
  /** A host call (the host ran the tool the agent defined, or refreshed tokens): its output as text or the
   *  provider's content items, or the provider's whole `result` object. */
  | { decision: "completed"; output?: unknown; result?: unknown }
  | { decision: "failed"; message?: string }
  /** Claude (SDK 0.3): another client answered the request; the SDK writes nothing (canUseTool / onElicitation / onUserDialog return null). */
  | { decision: "answered_elsewhere" };

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

/** The answer `opened` (a request.opened event) expects for `reply`. Throws a one-line AnswerError on a misuse (wrong event, no id, a decision the request cannot take, a reply without what the answer needs). */
export function answerRequest(opened: Opened, reply: RequestReply, opts: AnswerOptions = {}): RequestAnswer {
  const tables: AnswerTables = ANSWERS;
  if (opened?.type !== "request.opened") throw new AnswerError(ERROR_CODES.NOT_A_REQUEST, `answerRequest: expected a request.opened event, got ${String(opened?.type)}`);
  const p = opened.payload as { requestType: string; options?: { decision: string; providerOptionId?: string }[]; args?: any };
  const id = opened.providerRefs?.providerRequestId;
  if (id === undefined) throw new AnswerError(ERROR_CODES.INCOMPLETE_REQUEST, "answerRequest: the request.opened event has no providerRefs.providerRequestId");
  const decision = (reply as { decision?: unknown } | undefined)?.decision;
  if (typeof decision !== "string") throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: the reply has no decision (a string), got ${JSON.stringify(decision)}`);
  const kind = REQUEST_KIND[p.requestType as CanonicalRequestType] ?? "permission";
  if (kind === "host_call" ? decision !== "completed" && decision !== "failed" : decision === "completed" || decision === "failed") {
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: a ${p.requestType} request takes ${kind === "host_call" ? "completed or failed" : "a permission decision, answered or cancelled"}, not "${decision}"`);
  }
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
  for (const [field, type] of Object.entries(c.reply ?? {})) {
    const v = (reply as Record<string, unknown>)[field];
    if (v === undefined || v === null) throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: a "${decision}" reply to ${rule} needs ${field}${type === "any" ? "" : ` (${article(type)})`}`);
    if (!isType(v, type)) throw new AnswerError(ERROR_CODES.INVALID_REPLY, `answerRequest: a "${decision}" reply to ${rule} needs ${field} as ${article(type)}, got ${Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`}`);
  }
  if (c.fail) throw new AnswerError(ERROR_CODES[FAIL[c.fail.code]], `answerRequest: ${c.fail.message}`);
  a.body = c.body!(a);
  const via = (c.via ?? []).map((n) => [n, surface?.envelopes[n]] as const).find(([, e]) => e && (e.transport === undefined || e.transport === transport));
  if (!via) throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: ${rule} has no ${transport ?? ""} answer for "${decision}" (${c.at})`);
  return { kind: via[1]!.kind, ...via[1]!.answer(a) } as RequestAnswer;
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
