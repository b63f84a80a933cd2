/**
 * What the viewer calls things, from canonical fields only: a request's kind and label from its canonical
 * request type and options, and whether a runtime error is one the provider retries. Shared by the Node side
 * (transcript cards, problems) and the page. No Node APIs.
 */
import { REQUEST_KIND, type CanonicalRequestType } from "../../generated/canonical.gen.js";
import type { ViewerCut } from "./types.js";

/** permission: the agent asks to be allowed something; question: it asks the user; request: anything else the client is asked to do. */
export type RequestKind = "permission" | "question" | "request";

/** The card of each canonical request kind (the canonical model's REQUEST_KIND): a host call is a request card. */
const CARD: Record<string, RequestKind> = { permission: "permission", question: "question", host_call: "request" };
const LABELS: Record<CanonicalRequestType, string> = {
  command_execution_approval: "command approval",
  file_change_approval: "file change approval",
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

/**
 * A canonical decision as an option label ("allow_once" → "Allow once"), for options the provider gave no label:
 * the canonical words, so a chip reads alike whatever the provider.
 */
export function decisionLabel(decision: string): string {
  const words = decision.replace(/_/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : decision;
}

/** A runtime.error payload whose canonical detail says the provider will retry. */
export function isRetrying(payload: unknown): boolean {
  const d = (payload as { detail?: unknown } | null | undefined)?.detail;
  return !!d && typeof d === "object" && (d as { willRetry?: unknown }).willRetry === true;
}

/** A count of input characters as a size: "812 KB", "31.5 MB", "3.7 GB" (1 KB = 1,024 characters). */
export function sizeText(chars: number): string {
  const units = ["characters", "KB", "MB", "GB", "TB"];
  let v = chars;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${chars} characters` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

const n = (x: number) => x.toLocaleString("en");

/** What a capped page shows and what it leaves out, in one sentence (the page's notice and `view`'s summary). */
export function cutNotice(cut: ViewerCut): string {
  const caps = [cut.maxBytes !== undefined ? `${sizeText(cut.maxBytes)} of input` : "", cut.maxTurns !== undefined ? `${n(cut.maxTurns)} turn(s)` : ""].filter(Boolean).join(", ");
  const l = cut.left;
  const problems = Object.entries(l.problems).filter(([, k]) => k).map(([kind, k]) => `${n(k!)} ${kind}(s)`).join(", ");
  return `only part of the stream is shown (cap: ${caps}): the last ${n(cut.turns.shown)} of ${n(cut.turns.total)} turn(s)` +
    `${cut.fromLine !== undefined ? `, from input line ${n(cut.fromLine)} of ${n(cut.lines)}` : ""}; left out: ${n(l.turns)} turn(s), ${n(l.events)} event(s), ` +
    `${n(l.natives)} provider message(s), ${sizeText(l.chars)} of input${problems ? `, among them ${problems}` : ""}` +
    `${cut.partial ? `; turn ${cut.partial.turnId ?? "(before the first turn)"} is shown in part: ${n(cut.partial.events)} of its event(s) after its start are left out` : ""}`;
}
