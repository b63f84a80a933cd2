/**
 * What the viewer calls things, from canonical fields only: a request's kind and label from its canonical
 * request type and options, and whether a runtime error is one the provider retries. Shared by the Node side
 * (transcript cards, problems) and the page. No Node APIs.
 */
import { REQUEST_KIND, type CanonicalRequestType } from "../../generated/canonical.gen.js";

/** permission: the agent asks to be allowed something; question: it asks the user; request: anything else the client is asked to do. */
export type RequestKind = "permission" | "question" | "request";

/** The card of each canonical request kind (the canonical model's REQUEST_KIND): a host call is a request card. */
const CARD: Record<string, RequestKind> = { permission: "permission", question: "question", host_call: "request" };
const LABELS: Record<CanonicalRequestType, string> = {
  command_execution_approval: "command approval",
  exec_command_approval: "command approval",
  file_change_approval: "file change approval",
  apply_patch_approval: "patch approval",
  tool_user_input: "user input",
  dynamic_tool_call: "host tool call",
  auth_tokens_refresh: "auth refresh",
  unknown: "request",
};
/** `unknown` says nothing of what is asked: its options decide (below). */
const REQUEST_TYPES = Object.fromEntries(Object.entries(LABELS).map(([t, label]) => [t, { kind: t === "unknown" ? "request" : CARD[REQUEST_KIND[t as CanonicalRequestType]] ?? "request", label }])) as Record<CanonicalRequestType, { kind: RequestKind; label: string }>;

/** Decisions that grant or refuse (a request offering them is a permission whatever its type). */
const PERMISSION_DECISIONS = /^(allow|reject)_/;

/**
 * A request's kind and label from its canonical fields: the request type names it; a request of another type
 * whose canonical options are allow/reject decisions is a permission.
 */
export function requestKind(requestType: string | undefined, options?: readonly { decision?: unknown }[], decision?: unknown): { kind: RequestKind; label: string } {
  const known = requestType !== undefined && Object.hasOwn(REQUEST_TYPES, requestType) ? REQUEST_TYPES[requestType as CanonicalRequestType] : undefined;
  if (known && known.kind !== "request") return known;
  const grants = (options ?? []).some((o) => typeof o.decision === "string" && PERMISSION_DECISIONS.test(o.decision)) || (typeof decision === "string" && PERMISSION_DECISIONS.test(decision));
  if (grants) return { kind: "permission", label: "permission" };
  return known ?? { kind: "request", label: requestType ? requestType.replace(/_/g, " ") : "request" };
}

/** A runtime.error payload whose canonical detail says the provider will retry. */
export function isRetrying(payload: unknown): boolean {
  const d = (payload as { detail?: unknown } | null | undefined)?.detail;
  return !!d && typeof d === "object" && (d as { willRetry?: unknown }).willRetry === true;
}
