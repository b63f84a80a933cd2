/**
 * answerRequest: one reverse API for every surface with requests. Each answer is fed back through the surface's own
 * table (as the message the provider would see, or the event it would emit) and must resolve the request with the
 * decision that was asked for — the round trip holds the options the tables fill and the envelopes together.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answerRequest } from "../src/answer/answer.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";

const REC = join(__dirname, "..", "fixtures/recorded");

/** The recording's lines up to and including the one that opened the first request, normalized; the normalizer stays open. */
function untilFirstRequest(surface: string, file: string) {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(join(REC, file), "utf8").split("\n").filter((l) => l.trim());
  for (let i = 0; i < lines.length; i++) {
    const opened = n.pushLine(lines[i], { lineNumber: i + 1 }).find((e) => e.type === "request.opened");
    if (opened) return { n, opened };
  }
  throw new Error(`no request in ${file}`);
}
const resolvedOf = (evs: any[]) => evs.filter((e) => e.type === "request.resolved").map((e) => [e.requestId, e.payload.decision]);

describe("answerRequest", () => {
  it("codex-app-server: the JSON-RPC response with the request's id; it resolves the request as asked", () => {
    for (const decision of ["allow_once", "allow_always", "reject_once", "cancelled"] as const) {
      const { n, opened } = untilFirstRequest("codex-app-server", "codex-app-server/approval.ndjson");
      const a = answerRequest(opened, { decision });
      expect(a.kind).toBe("jsonrpc");
      if (a.kind !== "jsonrpc") continue;
      expect(a.message.id).toBe(0);
      expect(resolvedOf(n.push(a.message, { direction: "out" }))).toEqual([[opened.requestId, decision]]);
    }
  });

  it("acp: the selected option (or cancelled) for session/request_permission; it resolves the request as asked", () => {
    for (const decision of ["allow_once", "allow_always", "reject_once", "cancelled"] as const) {
      const { n, opened } = untilFirstRequest("acp", "acp/approval.ndjson");
      const a = answerRequest(opened, { decision });
      if (a.kind !== "jsonrpc") throw new Error(a.kind);
      expect(resolvedOf(n.push(a.message, { direction: "out" }))).toEqual([[opened.requestId, decision]]);
    }
  });

  it("acp: a decision the request does not offer is refused, never replaced by one of the opposite (or the same) polarity", () => {
    const { opened } = untilFirstRequest("acp", "acp/approval.ndjson");
    const only = { ...opened, payload: { ...opened.payload, options: [{ decision: "reject_once", providerOptionId: "no" }] } } as typeof opened;
    expect(() => answerRequest(only, { decision: "allow_once" })).toThrow(/offers "reject_once", not "allow_once"$/);
    expect(() => answerRequest(only, { decision: "reject_always" })).toThrow(/offers "reject_once", not "reject_always"$/);
    expect(answerRequest(only, { decision: "reject_once" })).toMatchObject({ message: { result: { outcome: { outcome: "selected", optionId: "no" } } } });
    expect(answerRequest(only, { decision: "cancelled" })).toMatchObject({ message: { result: { outcome: { outcome: "cancelled" } } } });
  });

  it("claude-sdk: the canUseTool PermissionResult; fed back, it resolves the request as asked", () => {
    for (const decision of ["allow_once", "reject_once"] as const) {
      const { n, opened } = untilFirstRequest("claude-sdk", "claude-sdk/approval.ndjson");
      const a = answerRequest(opened, { decision, message: "Not now." }, { claude: "sdk" });
      if (a.kind !== "claude-can-use-tool") throw new Error(a.kind);
      expect(a.result.behavior).toBe(decision === "allow_once" ? "allow" : "deny");
      expect(resolvedOf(n.push({ ...a.result, toolUseID: opened.providerRefs?.providerRequestId }, { direction: "out" }))).toEqual([[opened.requestId, decision]]);
    }
  });

  it("claude: on the stdio wire, a control_response for the request_id", () => {
    const { opened } = untilFirstRequest("claude-sdk", "claude-sdk/approval.ndjson");
    const a = answerRequest(opened, { decision: "allow_once" }, { claude: "wire" });
    expect(a).toMatchObject({ kind: "claude-control-response", message: { type: "control_response", response: { subtype: "success", request_id: opened.providerRefs?.providerRequestId, response: { behavior: "allow" } } } });
  });

  it("opencode: the HTTP call; the reply it sends, reported back by the server, resolves the request as asked", () => {
    for (const decision of ["allow_once", "allow_always", "reject_once"] as const) {
      const { n, opened } = untilFirstRequest("opencode", "opencode/approval.ndjson");
      const a = answerRequest(opened, { decision });
      if (a.kind !== "http") throw new Error(a.kind);
      const id = opened.providerRefs!.providerRequestId!;
      expect(a).toMatchObject({ method: "POST", path: `/permission/${id}/reply` });
      const reply = (a.body as { reply: string }).reply;
      const echoed = n.push({ type: "permission.replied", properties: { sessionID: opened.providerRefs!.providerThreadId, requestID: id, reply } });
      expect(resolvedOf(echoed)).toEqual([[opened.requestId, decision]]);
    }
    const { opened } = untilFirstRequest("opencode", "opencode/approval.ndjson");
    expect(answerRequest(opened, { decision: "reject_once" }, { opencode: "v1" })).toMatchObject({ path: `/session/${opened.providerRefs!.providerThreadId}/permissions/${opened.providerRefs!.providerRequestId}`, body: { response: "reject" } });
  });

  it("misuse is a one-line error: not a request.opened, or a decision the request cannot take", () => {
    const { opened } = untilFirstRequest("codex-app-server", "codex-app-server/approval.ndjson");
    expect(() => answerRequest({ ...opened, type: "request.resolved" } as any, { decision: "allow_once" })).toThrow(/expected a request.opened event/);
    expect(() => answerRequest({ ...opened, payload: { ...opened.payload, options: [] } } as typeof opened, { decision: "allow_once" })).toThrow(/offers no choice for "allow_once"/);
  });
});

describe("answerRequest on Codex EventMsg streams (codex-eventmsg)", () => {
  const opened = (msg: unknown) => {
    const n = createNormalizer({ surface: "codex-eventmsg", ids: counterIds(), clock: steppingClock() });
    n.push({ id: "1", msg: { type: "task_started", turn_id: "1" } });
    const e = n.push({ id: "1", msg }).find((x) => x.type === "request.opened");
    if (!e) throw new Error("no request.opened");
    return e;
  };
  it("an exec approval: the Submission with Op exec_approval, the call id and the provider's decision word", () => {
    const e = opened({ type: "exec_approval_request", call_id: "call_1", command: ["npm", "test"], cwd: "/w", parsed_cmd: [] });
    expect(answerRequest(e, { decision: "allow_always" })).toEqual({ kind: "codex-submission", submission: { id: "agentnorm-answer-call_1", op: { type: "exec_approval", id: "call_1", decision: "approved_for_session" } } });
    expect(answerRequest(e, { decision: "reject_once" })).toMatchObject({ submission: { op: { decision: "denied" } } });
    expect(answerRequest(e, { decision: "cancelled" })).toMatchObject({ submission: { op: { decision: "abort" } } });
  });
  it("a sub-command approval answers its approval_id; a patch approval is Op patch_approval", () => {
    const sub = opened({ type: "exec_approval_request", call_id: "call_1", approval_id: "ap_1", command: ["git", "push"], cwd: "/w", parsed_cmd: [] });
    expect(answerRequest(sub, { decision: "allow_once" })).toMatchObject({ submission: { op: { type: "exec_approval", id: "ap_1", decision: "approved" } } });
    const patch = opened({ type: "apply_patch_approval_request", call_id: "call_2", changes: {}, reason: "edit", grant_root: null });
    expect(answerRequest(patch, { decision: "allow_once" })).toMatchObject({ submission: { op: { type: "patch_approval", id: "call_2", decision: "approved" } } });
  });
  it("a request_user_input: Op user_input_answer with the answers", () => {
    const q = opened({ type: "request_user_input", call_id: "call_5", turn_id: "1", questions: [{ id: "lang", header: "Language", question: "Which language?", options: [{ label: "Python", description: "py" }] }] });
    // canonical answers (per question id, option ids) → Codex's {<id>: {answers: [<label>…]}}
    expect(answerRequest(q, { decision: "answered", answers: { lang: "Python" } })).toEqual({ kind: "codex-submission", submission: { id: "agentnorm-answer-call_5", op: { type: "user_input_answer", id: "call_5", response: { answers: { lang: { answers: ["Python"] } } } } } });
  });
});
