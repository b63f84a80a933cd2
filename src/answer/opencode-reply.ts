/**
 * Canonical decisions → the request bodies an opencode client sends to answer (the reverse of the permission and
 * question rows of mappings/opencode.yaml). Shapes from @opencode-ai/sdk 1.18.33:
 * - permission (v2, `POST /permission/{requestID}/reply`): `{reply: "once" | "always" | "reject", message?}`;
 * - permission (v1, `POST /session/{sessionID}/permissions/{permissionID}`): `{response: "once" | "always" | "reject"}`;
 * - question (`POST /question/{requestID}/reply`): `{answers: string[][]}` — one list of chosen labels per question;
 *   rejecting a question is `POST /question/{requestID}/reject` with no body.
 */
export type OpencodePermissionReply = "once" | "always" | "reject";
export interface OpencodePermissionReplyBody { reply: OpencodePermissionReply; message?: string }
export interface OpencodePermissionResponseBodyV1 { response: OpencodePermissionReply }
export interface OpencodeQuestionReplyBody { answers: string[][] }

/**
 * Decisions understood: opencode's own `once` / `always` / `reject`; the canonical and other providers' spellings
 * `accept`/`allow`/`approve`/`approved`/`allow_once`/`acceptOnce` (→ once), `acceptForSession`/`allowAlways`/
 * `allow_always`/`approved_for_session` (→ always), `decline`/`deny`/`denied`/`reject_once`/`reject_always`/
 * `cancel`/`cancelled`/`abort` (→ reject). Anything else is refused as `reject` (never approve what was not understood).
 */
export type CanonicalOpencodeDecision = OpencodePermissionReply | "accept" | "acceptForSession" | "decline" | "cancel" | string;

const REPLY: Record<string, OpencodePermissionReply> = {
  once: "once", accept: "once", allow: "once", approve: "once", approved: "once", allow_once: "once", acceptOnce: "once",
  always: "always", acceptForSession: "always", allowAlways: "always", allow_always: "always", approved_for_session: "always",
  reject: "reject", decline: "reject", deny: "reject", denied: "reject", reject_once: "reject", reject_always: "reject",
  cancel: "reject", cancelled: "reject", abort: "reject",
};
/**
 * The opencode permission reply for a canonical decision.
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toOpencodePermissionReply(decision: CanonicalOpencodeDecision): OpencodePermissionReply {
  return Object.hasOwn(REPLY, decision) ? REPLY[decision] : "reject";
}

/**
 * Body of `POST /permission/{requestID}/reply` (v2); `message` tells the agent why it was rejected.
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toOpencodePermissionReplyBody(decision: CanonicalOpencodeDecision, message?: string): OpencodePermissionReplyBody {
  const reply = toOpencodePermissionReply(decision);
  return message !== undefined && message !== "" && reply === "reject" ? { reply, message } : { reply };
}

/**
 * Body of `POST /session/{sessionID}/permissions/{permissionID}` (v1 servers).
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toOpencodePermissionResponseBodyV1(decision: CanonicalOpencodeDecision): OpencodePermissionResponseBodyV1 {
  return { response: toOpencodePermissionReply(decision) };
}

/**
 * Body of `POST /question/{requestID}/reply`: the answers in question order, each a list of chosen option labels
 * (a single string becomes a one-label list; a question left out becomes an empty list). `questionCount` pads the
 * list to the number of questions asked (the `questions` of the user-input.requested payload).
 * @deprecated Use `answerRequest(opened, reply)`: it checks the reply against what the request offered and builds the
 * provider's answer from the tables. This low-level shaper takes the provider's own terms and checks nothing.
 */
export function toOpencodeQuestionReplyBody(answers: ReadonlyArray<string | readonly string[] | null | undefined>, questionCount = answers.length): OpencodeQuestionReplyBody {
  const out: string[][] = [];
  for (let i = 0; i < Math.max(questionCount, 0); i++) {
    const a = answers[i];
    out.push(typeof a === "string" ? [a] : Array.isArray(a) ? a.filter((x): x is string => typeof x === "string") : []);
  }
  return { answers: out };
}
