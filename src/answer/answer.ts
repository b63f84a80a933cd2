/**
 * One reverse API for every surface with requests: a `request.opened` event and a canonical decision (or a user-input
 * request's answers) → exactly what that provider expects back.
 *
 * The provider's word for a decision is not known here: it is the `providerOptionId` of the opened event's
 * `payload.options`, which the surface's table fills (a value list per request kind). What this module adds is the
 * envelope each protocol answers in:
 * - Codex app-server and ACP: the JSON-RPC response to the server request (`id` = the request's providerRequestId;
 *   numeric ids are sent back as numbers, as both servers number their requests);
 * - Claude: the `canUseTool` PermissionResult (Agent SDK) or the stdio wire's `control_response` for the request_id;
 * - opencode: the HTTP call — method, path and body — of its permission and question endpoints;
 * - Codex EventMsg streams (codex-eventmsg): the Submission `{id, op}` with the Op that answers the event.
 */
import { AnswerError, ERROR_CODES } from "../errors.js";
import { REQUEST_KIND, type CanonicalRequestType, type ProviderRuntimeEventV2 } from "../../generated/canonical.gen.js";
import { toClaudePermissionResult, type ClaudeElicitationResult, type ClaudePermissionResult, type ClaudeUserDialogResult } from "./claude-permission.js";

/** A permission's canonical decision (the request's `options` say which ones the provider offers). */
export type PermissionDecision = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

/** What the host answers: a permission decision, or the answers to a user-input request (or its cancellation). */
export type RequestReply =
  | { decision: PermissionDecision; /** why (a refusal), for providers that pass it on */ message?: string; /** Claude: the input to run with */ updatedInput?: Record<string, unknown> }
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
  /** Claude only: answer the Agent SDK's canUseTool callback (`sdk`) or the stdio wire's control_request (`wire`). Default: from the event's raw source (the SDK's when unknown). */
  claude?: "sdk" | "wire";
  /** opencode only: `v2` (`POST /permission/{id}/reply`, default) or `v1` (`POST /session/{sessionID}/permissions/{id}`). */
  opencode?: "v1" | "v2";
}

type Opened = Pick<ProviderRuntimeEventV2, "type" | "provider" | "payload" | "providerRefs"> & { raw?: { source?: string } };

/** A decision's fallbacks when the provider does not offer it: the same polarity first, never the opposite one. */
const FALLBACK: Record<PermissionDecision, PermissionDecision[]> = {
  allow_once: ["allow_once", "allow_always"],
  allow_always: ["allow_always", "allow_once"],
  reject_once: ["reject_once", "reject_always", "cancelled"],
  reject_always: ["reject_always", "reject_once", "cancelled"],
  cancelled: ["cancelled", "reject_once", "reject_always"],
};

/** The answer `opened` (a request.opened event) expects for `reply`. Throws a one-line Error on a misuse (wrong event, no id, a decision the request cannot take). */
export function answerRequest(opened: Opened, reply: RequestReply, opts: AnswerOptions = {}): RequestAnswer {
  if (opened?.type !== "request.opened") throw new AnswerError(ERROR_CODES.NOT_A_REQUEST, `answerRequest: expected a request.opened event, got ${String(opened?.type)}`);
  const p = opened.payload as { requestType: string; options?: { decision: string; providerOptionId?: string }[]; args?: any };
  const id = opened.providerRefs?.providerRequestId;
  if (id === undefined) throw new AnswerError(ERROR_CODES.INCOMPLETE_REQUEST, "answerRequest: the request.opened event has no providerRefs.providerRequestId");
  const kind = REQUEST_KIND[p.requestType as CanonicalRequestType] ?? "permission";
  const question = kind === "question";
  if (kind === "host_call" ? reply.decision !== "completed" && reply.decision !== "failed" : reply.decision === "completed" || reply.decision === "failed") {
    throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: a ${p.requestType} request takes ${kind === "host_call" ? "completed or failed" : "a permission decision, answered or cancelled"}, not "${reply.decision}"`);
  }
  if (reply.decision === "answered_elsewhere" && opened.provider !== "claude") throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: "answered_elsewhere" is a Claude (SDK 0.3) reply; ${opened.provider} requests take a decision`);
  /** The provider's word for the decision, from the table-filled options (undefined: cancelled where no option says it). */
  const word = (d: string): string | undefined => {
    const chain = (FALLBACK as Record<string, string[]>)[d] ?? [d];
    for (const c of chain) {
      const o = p.options?.find((x) => x.decision === c && typeof x.providerOptionId === "string");
      if (o) return o.providerOptionId;
    }
    return undefined;
  };
  switch (opened.provider) {
    case "codex": {
      if (opened.raw?.source === "codex.eventmsg") {
        // The core's submission queue: an Op answers the event (approvals by their call / approval id).
        const requestType = p.requestType;
        let op: Record<string, unknown>;
        if (question) op = { type: "user_input_answer", id, response: { answers: reply.decision === "answered" ? reply.answers : {} } };
        else {
          const w = word(reply.decision);
          if (w === undefined) throw new AnswerError(ERROR_CODES.NO_MATCHING_CHOICE, `answerRequest: the request offers no choice for "${reply.decision}"`);
          op = { type: requestType === "apply_patch_approval" ? "patch_approval" : "exec_approval", id, decision: w };
        }
        return { kind: "codex-submission", submission: { id: `agentnorm-answer-${id}`, op } };
      }
      let result: unknown;
      if (kind === "host_call") {
        if (reply.decision === "completed" && reply.result !== undefined) result = reply.result;
        else if (p.requestType === "dynamic_tool_call") {
          const out = reply.decision === "completed" ? reply.output : reply.decision === "failed" ? reply.message : undefined;
          result = { success: reply.decision === "completed", contentItems: typeof out === "string" ? [{ type: "inputText", text: out }] : Array.isArray(out) ? out : [] };
        } else if (reply.decision === "failed") {
          return { kind: "jsonrpc", message: { jsonrpc: "2.0", id: rpcId(id), error: { code: -32000, message: ("message" in reply && reply.message) || `${p.requestType} failed` } } };
        } else throw new AnswerError(ERROR_CODES.INCOMPLETE_REQUEST, `answerRequest: a ${p.requestType} answer needs the provider's result object (reply.result)`);
        return { kind: "jsonrpc", message: { jsonrpc: "2.0", id: rpcId(id), result } };
      }
      if (question) result = reply.decision === "answered" ? { answers: reply.answers } : { answers: {} };
      else {
        const w = word(reply.decision);
        if (w === undefined) throw new AnswerError(ERROR_CODES.NO_MATCHING_CHOICE, `answerRequest: the request offers no choice for "${reply.decision}"`);
        result = { decision: w };
      }
      return { kind: "jsonrpc", message: { jsonrpc: "2.0", id: rpcId(id), result } };
    }
    case "acp": {
      if (question || reply.decision === "answered") throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, "answerRequest: ACP user-input requests are answered with their own result shape (elicitation / extension methods), not supported here");
      const w = reply.decision === "cancelled" ? undefined : word(reply.decision);
      const outcome = w === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: w };
      return { kind: "jsonrpc", message: { jsonrpc: "2.0", id: rpcId(id), result: { outcome } } };
    }
    case "claude": {
      const input = (p.args?.input ?? {}) as Record<string, unknown>;
      const transport = opts.claude ?? (opened.raw?.source && !opened.raw.source.startsWith("claude.sdk.permission") ? "wire" : "sdk");
      const wire = (response: ClaudePermissionResult | ClaudeElicitationResult | ClaudeUserDialogResult): RequestAnswer =>
        ({ kind: "claude-control-response", message: { type: "control_response", response: { subtype: "success", request_id: id, response } } });
      // SDK 0.3's other questions: an MCP elicitation (args.server) and a CLI dialog (args.dialogKind)
      const elicitation = question && typeof p.args?.server === "string" && p.args?.toolName === undefined;
      const dialog = question && typeof p.args?.dialogKind === "string";
      if (reply.decision === "answered_elsewhere") {
        if (transport === "wire") throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, "answerRequest: a request answered elsewhere gets no control_response on the wire");
        return { kind: "claude-answered-elsewhere", callback: elicitation ? "onElicitation" : dialog ? "onUserDialog" : "canUseTool", result: null };
      }
      if (elicitation) {
        const r: ClaudeElicitationResult = reply.decision === "answered" ? { action: "accept", content: reply.answers } : reply.decision === "reject_once" || reply.decision === "reject_always" ? { action: "decline" } : { action: "cancel" };
        return transport === "sdk" ? { kind: "claude-elicitation", result: r } : wire(r);
      }
      if (dialog) {
        const r: ClaudeUserDialogResult = reply.decision === "answered" ? { behavior: "completed", result: reply.answers } : { behavior: "cancelled" };
        return transport === "sdk" ? { kind: "claude-user-dialog", result: r } : wire(r);
      }
      // SDK 0.3 (its canUseTool passes a requestId): say how the user decided
      const classify = typeof p.args?.requestId === "string";
      let result: ClaudePermissionResult;
      if (question) {
        result = reply.decision === "answered"
          ? { behavior: "allow", updatedInput: { ...input, answers: reply.answers } }
          : { behavior: "deny", message: "The user dismissed the question.", ...(classify ? { decisionClassification: "user_reject" as const } : {}) };
        if (classify && result.behavior === "allow") result.decisionClassification = "user_temporary";
      } else {
        const w = word(reply.decision);
        const always = reply.decision === "allow_always";
        result = toClaudePermissionResult({
          decision: w === "allow" ? (always ? "allow_always" : "allow") : reply.decision === "cancelled" ? "deny_and_interrupt" : "deny",
          input: "updatedInput" in reply && reply.updatedInput ? reply.updatedInput : input,
          message: "message" in reply ? reply.message : undefined,
          updatedPermissions: always && Array.isArray(p.args?.suggestions) ? p.args.suggestions : undefined,
          classify,
        });
      }
      if (transport === "sdk") return { kind: "claude-can-use-tool", result };
      return wire(result);
    }
    case "opencode": {
      if (question) {
        return reply.decision === "answered"
          ? { kind: "http", method: "POST", path: `/question/${enc(id)}/reply`, body: { answers: reply.answers } }
          : { kind: "http", method: "POST", path: `/question/${enc(id)}/reject` };
      }
      const w = word(reply.decision);
      if (w === undefined) throw new AnswerError(ERROR_CODES.NO_MATCHING_CHOICE, `answerRequest: the request offers no choice for "${reply.decision}"`);
      if (opts.opencode === "v1") {
        const session = opened.providerRefs?.providerThreadId;
        if (session === undefined) throw new AnswerError(ERROR_CODES.INCOMPLETE_REQUEST, "answerRequest: a v1 opencode answer needs the session (providerRefs.providerThreadId)");
        return { kind: "http", method: "POST", path: `/session/${enc(session)}/permissions/${enc(id)}`, body: { response: w } };
      }
      const message = "message" in reply && reply.message && w === "reject" ? { message: reply.message } : {};
      return { kind: "http", method: "POST", path: `/permission/${enc(id)}/reply`, body: { reply: w, ...message } };
    }
    default:
      throw new AnswerError(ERROR_CODES.UNSUPPORTED_REQUEST, `answerRequest: ${opened.provider} requests are not answered through agentnorm`);
  }
}

const rpcId = (id: string): string | number => (/^(0|[1-9]\d{0,15})$/.test(id) ? Number(id) : id);
const enc = (s: string): string => encodeURIComponent(s);
