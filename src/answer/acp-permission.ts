/**
 * Canonical permission decision → the answer an ACP client sends to `session/request_permission`
 * (`RequestPermissionResponse`): `{outcome: {outcome: "selected", optionId}}` with the option whose `kind` fits the
 * decision, or `{outcome: {outcome: "cancelled"}}`.
 */
export type AcpPermissionOptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";
export interface AcpPermissionOption { optionId: string; name?: string; kind: AcpPermissionOptionKind | string }
export type AcpPermissionResponse = { outcome: { outcome: "selected"; optionId: string } | { outcome: "cancelled" } };
/**
 * Decisions understood: the four ACP option kinds themselves; `accept`/`allow`/`approve`/`acceptOnce` (→ allow_once),
 * `acceptForSession`/`allowAlways`/`always` (→ allow_always), `decline`/`deny`/`reject` (→ reject_once),
 * `rejectAlways`/`denyAlways` (→ reject_always); `cancel`/`cancelled`/`abort` → cancelled. An exact optionId is accepted too.
 */
export type CanonicalAcpDecision = AcpPermissionOptionKind | "accept" | "acceptForSession" | "decline" | "cancel" | "cancelled" | string;

const WANT: Record<string, AcpPermissionOptionKind[]> = {
  allow_once: ["allow_once", "allow_always"],
  allow_always: ["allow_always", "allow_once"],
  reject_once: ["reject_once", "reject_always"],
  reject_always: ["reject_always", "reject_once"],
};
const ALIASES: Record<string, AcpPermissionOptionKind> = {
  accept: "allow_once", allow: "allow_once", approve: "allow_once", acceptOnce: "allow_once", approved: "allow_once",
  acceptForSession: "allow_always", allowAlways: "allow_always", always: "allow_always", approved_for_session: "allow_always",
  decline: "reject_once", deny: "reject_once", reject: "reject_once", denied: "reject_once",
  rejectAlways: "reject_always", denyAlways: "reject_always",
};

/**
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toAcpPermissionResponse(decision: CanonicalAcpDecision, options: readonly AcpPermissionOption[]): AcpPermissionResponse {
  const cancelled: AcpPermissionResponse = { outcome: { outcome: "cancelled" } };
  if (decision === "cancel" || decision === "cancelled" || decision === "abort") return cancelled;
  const exact = options.find((o) => o.optionId === decision);
  if (exact && !(decision in WANT) && !(decision in ALIASES)) return { outcome: { outcome: "selected", optionId: exact.optionId } };
  const kind = (decision in WANT ? decision : ALIASES[decision]) as AcpPermissionOptionKind | undefined;
  if (!kind) return exact ? { outcome: { outcome: "selected", optionId: exact.optionId } } : cancelled;
  for (const k of WANT[kind]) {
    const o = options.find((x) => x.kind === k);
    if (o) return { outcome: { outcome: "selected", optionId: o.optionId } };
  }
  // No option of the wanted polarity: refuse rather than pick an option of the opposite meaning.
  return cancelled;
}
