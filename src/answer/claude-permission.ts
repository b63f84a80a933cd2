/**
 * The reverse of the claude-sdk permission rows: a host's canonical decision → the PermissionResult that Claude
 * Agent SDK's canUseTool callback (or a stream-json control_response) must return.
 */
export type ClaudePermissionResult =
  | { behavior: "allow"; updatedInput: Record<string, unknown>; updatedPermissions?: unknown[]; toolUseID?: string; decisionClassification?: ClaudeDecisionClassification }
  | { behavior: "deny"; message: string; interrupt?: boolean; toolUseID?: string; decisionClassification?: ClaudeDecisionClassification };

/** SDK 0.3: who decided and how — the user once, for good, or a refusal; (SDK 0.3.337) `config`: the host on its own, nobody asked. */
export type ClaudeDecisionClassification = "user_temporary" | "user_permanent" | "user_reject" | "config";

/** SDK 0.3: the answer to an MCP server's elicitation (onElicitation, or the wire's `elicitation` control request). */
export type ClaudeElicitationResult = { action: "accept"; content?: unknown } | { action: "decline" } | { action: "cancel" };

/** SDK 0.3: the answer to a dialog the CLI asks the host to show (onUserDialog, or the wire's `request_user_dialog`). */
export type ClaudeUserDialogResult = { behavior: "completed"; result: unknown } | { behavior: "cancelled" };

export interface CanonicalPermissionDecision {
  /** "allow" | "allow_always" | "deny" | "deny_and_interrupt" (also accepts accept/approved/decline/denied/abort). */
  decision: string;
  /** The tool input to run with (allow): the original input when the user did not change it. */
  input: Record<string, unknown>;
  /** Why the tool was refused (deny); shown to the model. */
  message?: string;
  /** Permission updates to apply (allow_always), e.g. the request's suggestions. */
  updatedPermissions?: unknown[];
  toolUseID?: string;
  /** SDK 0.3: say how the user decided (`decisionClassification`: user_temporary, user_permanent, user_reject). */
  classify?: boolean;
  /** With `classify`: `host` when no person decided (a mode, a policy, a rule): `decisionClassification: config`
   *  (Claude Code 2.1.337 and later). Default `user`. */
  decidedBy?: "user" | "host";
}

const ALLOW = new Set(["allow", "allow_once", "allow_always", "accept", "acceptForSession", "approved", "approved_for_session"]);
const INTERRUPT = new Set(["deny_and_interrupt", "abort", "cancel", "cancelled"]);

/**
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toClaudePermissionResult(d: CanonicalPermissionDecision): ClaudePermissionResult {
  const id = d.toolUseID ? { toolUseID: d.toolUseID } : {};
  if (ALLOW.has(d.decision)) {
    const always = d.decision === "allow_always" || d.decision === "acceptForSession" || d.decision === "approved_for_session";
    const how = d.classify ? { decisionClassification: (d.decidedBy === "host" ? "config" : always ? "user_permanent" : "user_temporary") as ClaudeDecisionClassification } : {};
    return { behavior: "allow", updatedInput: d.input, ...(always && d.updatedPermissions ? { updatedPermissions: d.updatedPermissions } : {}), ...id, ...how };
  }
  return {
    behavior: "deny",
    message: d.message ?? "The user declined this tool use.",
    ...(INTERRUPT.has(d.decision) ? { interrupt: true } : {}),
    ...id,
    ...(d.classify ? { decisionClassification: d.decidedBy === "host" ? ("config" as const) : ("user_reject" as const) } : {}),
  };
}
