/**
 * Typed answers (docs/requests.md): a question request carries its questions canonically (`payload.questions`), and
 * answerRequest takes canonical answers (per question id, option ids or text), checks them against the questions
 * and builds each provider's shape from the tables. Every wrong answer is a one-line AnswerError naming what is wrong,
 * per provider; a permission takes only what its `options` offer; nothing builds an empty or unrequested answer. The
 * answer pushed back with `direction: "out"` resolves the request with the canonical decision and answers — without
 * it the request never learns its decision. Compile-time: `isRequestOf` narrows an event, and answerRequest then takes
 * only that kind's reply (the `@ts-expect-error` lines fail `npm run typecheck` if they compile).
 */
import { describe, expect, it } from "vitest";
import { answerRequest, isRequestOf, requestKindOf, type RequestReply } from "../src/answer/answer.js";
import { AnswerError } from "../src/errors.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";

const codeOf = (f: () => unknown): string => {
  try { f(); } catch (e) { if (e instanceof AnswerError) return `${e.code}: ${e.message}`; throw e; }
  return "answered";
};
const open = (surface: string, ...messages: unknown[]) => {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const events = messages.flatMap((m) => n.push(m));
  const opened = events.find((e) => e.type === "request.opened");
  if (!opened) throw new Error(`no request.opened on ${surface}`);
  return { n, opened, events };
};
const P = (e: CanonicalEvent | undefined) => e?.payload as any;
const resolvedOf = (evs: CanonicalEvent[]) => evs.filter((e) => e.type === "request.resolved").map((e) => ({ decision: P(e).decision, answers: P(e).answers }));

/** One question request per provider that has them: two questions each (a single choice and one more). */
const PROVIDERS = {
  "codex-app-server": () => open("codex-app-server", { id: 3, method: "item/tool/requestUserInput", params: { threadId: "t1", turnId: "u1", itemId: "i1", isBlocking: true, questions: [
    { id: "lang", header: "Language", question: "Which language?", isOther: false, options: [{ label: "Python", description: "py" }, { label: "Go", description: "go" }] },
    { id: "name", header: "Name", question: "Its name?", options: null },
  ] } }),
  "codex-eventmsg": () => open("codex-eventmsg", { id: "1", msg: { type: "task_started", turn_id: "1" } }, { id: "1", msg: { type: "request_user_input", call_id: "call_5", turn_id: "1", questions: [
    { id: "lang", header: "Language", question: "Which language?", options: [{ label: "Python", description: "py" }, { label: "Go", description: "go" }] },
    { id: "name", header: "Name", question: "Its name?", isOther: true, options: [] },
  ] } }),
  opencode: () => open("opencode", { type: "question.asked", properties: { id: "que1", sessionID: "s1", questions: [
    { question: "Which language?", header: "Lang", options: [{ label: "Python", description: "py" }, { label: "Go", description: "go" }], custom: false },
    { question: "Which tools?", header: "Tools", options: [{ label: "git", description: "" }, { label: "make", description: "" }], multiple: true },
  ] } }),
  "claude-sdk": () => open("claude-sdk", { toolName: "AskUserQuestion", input: { questions: [
    { question: "Which language?", header: "Lang", options: [{ label: "Python", description: "py" }, { label: "Go", description: "go" }], multiSelect: false },
    { question: "Which tools?", header: "Tools", options: [{ label: "git", description: "" }, { label: "make", description: "" }], multiSelect: true },
  ] }, options: { toolUseID: "toolu_q", requestId: "r-q" } }),
  acp: () => open("acp", { id: 7, method: "cursor/ask_question", params: { toolCallId: "t1", title: "Setup", questions: [
    { id: "db", prompt: "Which database?", options: [{ id: "pg", label: "Postgres" }, { id: "my", label: "MySQL" }] },
    { id: "extras", prompt: "Extras?", options: [{ id: "redis", label: "Redis" }, { id: "s3", label: "S3" }], allowMultiple: true },
  ] } }),
} as const;

describe("a question request's questions are canonical on every provider that has them", () => {
  it("ids, prompts, headers, options (id, label, description), multiSelect and freeText", () => {
    const q = (s: keyof typeof PROVIDERS) => P(PROVIDERS[s]().opened).questions;
    expect(q("codex-app-server")).toEqual([
      { id: "lang", prompt: "Which language?", header: "Language", options: [{ id: "Python", label: "Python", description: "py" }, { id: "Go", label: "Go", description: "go" }], multiSelect: false, freeText: false },
      { id: "name", prompt: "Its name?", header: "Name", multiSelect: false, freeText: true },
    ]);
    expect(q("codex-eventmsg")[1]).toEqual({ id: "name", prompt: "Its name?", header: "Name", multiSelect: false, freeText: true });
    // opencode's questions have no ids: the position (answers go back in order); custom answers unless custom: false
    expect(q("opencode").map((x: any) => [x.id, x.multiSelect, x.freeText])).toEqual([["0", false, false], ["1", true, true]]);
    // Claude keys its answers by the question text; "Other" is always there
    expect(q("claude-sdk").map((x: any) => [x.id, x.header, x.multiSelect, x.freeText])).toEqual([["Which language?", "Lang", false, true], ["Which tools?", "Tools", true, true]]);
    expect(q("acp")).toEqual([
      { id: "db", prompt: "Which database?", options: [{ id: "pg", label: "Postgres" }, { id: "my", label: "MySQL" }], multiSelect: false, freeText: false },
      { id: "extras", prompt: "Extras?", options: [{ id: "redis", label: "Redis" }, { id: "s3", label: "S3" }], multiSelect: true, freeText: false },
    ]);
  });
  it("user-input.requested carries the same questions, the provider's own list in data", () => {
    for (const s of Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[]) {
      if (s === "claude-sdk") continue; // AskUserQuestion comes by canUseTool: a request, no user-input event
      const { events, opened } = PROVIDERS[s]();
      const ui = events.find((e) => e.type === "user-input.requested");
      expect(P(ui).questions, s).toEqual(P(opened).questions);
      expect(Array.isArray(P(ui).data), s).toBe(true);
    }
  });
});

describe("wrong answers are one-line errors naming what is wrong, per provider", () => {
  const first = { "codex-app-server": ["lang", "Python", "name", "x"], "codex-eventmsg": ["lang", "Python", "name", "x"], opencode: ["0", "Python", "1", "git"], "claude-sdk": ["Which language?", "Python", "Which tools?", "git"], acp: ["db", "pg", "extras", "s3"] } as const;
  for (const s of Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[]) {
    const [q1, o1, q2, a2] = first[s];
    it(`${s}: a permission decision, no answers, answers not an object, unknown question, option not offered, two for one, one unanswered`, () => {
      const { opened } = PROVIDERS[s]();
      const ans = (answers: unknown) => codeOf(() => answerRequest(opened, { decision: "answered", answers } as RequestReply));
      // {decision: "allow_once"} on a question used to send {"answers": {}} (Codex); reject_always used to be "decline"
      for (const d of ["allow_once", "allow_always", "reject_once", "reject_always", "completed"]) {
        expect(codeOf(() => answerRequest(opened, { decision: d } as RequestReply))).toMatch(new RegExp(`^unsupported_request: answerRequest: a (question|tool_user_input) request takes .*not "${d}"$`));
      }
      // {decision: "answered"} with no answers used to give result: {}
      expect(codeOf(() => answerRequest(opened, { decision: "answered" } as RequestReply))).toMatch(/^invalid_reply: answerRequest: an "answered" reply needs answers: an object of question id \(.*\) → option id\(s\) or text$/);
      // answers: 42 used to pass through
      expect(ans(42)).toMatch(/^invalid_reply: answerRequest: answers must be an object of question id .*, got a number$/);
      expect(ans([[o1]])).toMatch(/, got an array$/);
      expect(ans({ [q1]: o1, [q2]: a2, nope: "x" })).toBe(`invalid_reply: answerRequest: answers: the request asks no question "nope" (its questions: ${JSON.stringify(q1)}, ${JSON.stringify(q2)})`);
      expect(ans({ [q1]: 7, [q2]: a2 })).toBe(`invalid_reply: answerRequest: answers["${q1}"] must be an option id, a list of them or text, got number`);
      expect(ans({ [q1]: [o1, null], [q2]: a2 })).toBe(`invalid_reply: answerRequest: answers["${q1}"] must hold strings, got null`);
      expect(ans({ [q1]: [], [q2]: a2 })).toMatch(new RegExp(`^invalid_reply: answerRequest: answers: no answer to question ${JSON.stringify(q1).replace(/[?]/g, "\\?")} \\(every question needs one; reply "cancelled" to dismiss\\)$`));
      expect(ans({ [q1]: o1 })).toMatch(/^invalid_reply: answerRequest: answers: no answer to question /);
      expect(ans({})).toMatch(/^invalid_reply: answerRequest: answers: no answer to questions /);
      const two = PROVIDERS[s]().opened.payload as any;
      const other = two.questions[0].options[1].id;
      expect(ans({ [q1]: [o1, other], [q2]: a2 })).toBe(`invalid_reply: answerRequest: answers["${q1}"]: the question takes one answer, got 2`);
    });
  }

  it("text is taken only where the question takes free text", () => {
    // Codex: isOther false → options only; a question without options takes text
    const c = PROVIDERS["codex-app-server"]().opened;
    expect(codeOf(() => answerRequest(c, { decision: "answered", answers: { lang: "Rust", name: "x" } }))).toBe('invalid_reply: answerRequest: answers["lang"]: "Rust" is not an option of the question ("Python", "Go") and it takes no free text');
    // Cursor answers by option id: a label is not an id
    const a = PROVIDERS.acp().opened;
    expect(codeOf(() => answerRequest(a, { decision: "answered", answers: { db: "Postgres", extras: "s3" } }))).toBe('invalid_reply: answerRequest: answers["db"]: "Postgres" is not an option of the question ("pg", "my") and it takes no free text');
    expect(codeOf(() => answerRequest(a, { decision: "answered", answers: { db: "", extras: "s3" } }))).toBe('invalid_reply: answerRequest: answers["db"] holds an empty text');
    // opencode: custom: false refuses text; the second question (custom by default) takes it
    const o = PROVIDERS.opencode().opened;
    expect(codeOf(() => answerRequest(o, { decision: "answered", answers: { "0": "Rust", "1": "git" } }))).toMatch(/"Rust" is not an option/);
    expect(answerRequest(o, { decision: "answered", answers: { "0": "Go", "1": ["git", "ninja"] } })).toMatchObject({ body: { answers: [["Go"], ["git", "ninja"]] } });
  });
});

describe("the right answers: each provider's shape from the tables; pushed back with direction out, they resolve the request with the canonical answers", () => {
  it("codex-app-server: {<id>: {answers: [<label>]}}", () => {
    const { n, opened } = PROVIDERS["codex-app-server"]();
    const a = answerRequest(opened, { decision: "answered", answers: { lang: "Go", name: "hello" } });
    expect(a).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 3, result: { answers: { lang: { answers: ["Go"] }, name: { answers: ["hello"] } } } } });
    if (a.kind !== "jsonrpc") throw new Error(a.kind);
    expect(resolvedOf(n.push(a.message, { direction: "out" }))).toEqual([{ decision: "answered", answers: { lang: ["Go"], name: ["hello"] } }]);
  });
  it("codex-app-server: cancelled is Codex's dismissal (no answers); it resolves as cancelled, not as an empty answer", () => {
    const { n, opened } = PROVIDERS["codex-app-server"]();
    const a = answerRequest(opened, { decision: "cancelled" });
    expect(a).toMatchObject({ message: { result: { answers: {} } } });
    expect(resolvedOf(n.push((a as any).message, { direction: "out" }))).toEqual([{ decision: "cancelled", answers: undefined }]);
  });
  it("codex-eventmsg: Op user_input_answer", () => {
    const { opened } = PROVIDERS["codex-eventmsg"]();
    expect(answerRequest(opened, { decision: "answered", answers: { lang: ["Python"], name: "hi" } })).toEqual({ kind: "codex-submission", submission: { id: "agentnorm-answer-call_5", op: { type: "user_input_answer", id: "call_5", response: { answers: { lang: { answers: ["Python"] }, name: { answers: ["hi"] } } } } } });
  });
  it("opencode: labels in question order; the server's question.replied resolves it", () => {
    const { n, opened } = PROVIDERS.opencode();
    const a = answerRequest(opened, { decision: "answered", answers: { "0": "Python", "1": ["git", "make"] } });
    expect(a).toEqual({ kind: "http", method: "POST", path: "/question/que1/reply", body: { answers: [["Python"], ["git", "make"]] } });
    const echoed = n.push({ type: "question.replied", properties: { sessionID: "s1", requestID: "que1", answers: (a as any).body.answers } });
    expect(resolvedOf(echoed)).toEqual([{ decision: "answered", answers: { "0": ["Python"], "1": ["git", "make"] } }]);
  });
  it("claude-sdk: AskUserQuestion's input with answers keyed by question text (a multi-select's labels joined), over the SDK and the wire", () => {
    const { n, opened } = PROVIDERS["claude-sdk"]();
    const a = answerRequest(opened, { decision: "answered", answers: { "Which language?": "Rust", "Which tools?": ["git", "make"] } }, { claude: "sdk" });
    if (a.kind !== "claude-can-use-tool") throw new Error(a.kind);
    expect(a.result).toMatchObject({ behavior: "allow", updatedInput: { answers: { "Which language?": "Rust", "Which tools?": "git, make" } }, decisionClassification: "user_temporary" });
    expect((a.result as any).updatedInput.questions).toHaveLength(2);
    expect(resolvedOf(n.push({ ...a.result, toolUseID: "toolu_q" }, { direction: "out" }))).toEqual([{ decision: "answered", answers: { "Which language?": ["Rust"], "Which tools?": ["git", "make"] } }]);
    expect(answerRequest(opened, { decision: "answered", answers: { "Which language?": "Go", "Which tools?": "make" } }, { claude: "wire" })).toMatchObject({ kind: "claude-control-response", message: { response: { request_id: "toolu_q", response: { behavior: "allow", updatedInput: { answers: { "Which language?": "Go", "Which tools?": "make" } } } } } });
  });
  it("claude-sdk: an allow with no answers (the recordings' host) resolves as cancelled, not answered", () => {
    const { n } = PROVIDERS["claude-sdk"]();
    expect(resolvedOf(n.push({ behavior: "allow", updatedInput: { questions: [], answers: {} }, toolUseID: "toolu_q" }, { direction: "out" }))).toEqual([{ decision: "cancelled", answers: undefined }]);
  });
  it("acp (Cursor's ask_question): selectedOptionIds per question", () => {
    const { n, opened } = PROVIDERS.acp();
    const a = answerRequest(opened, { decision: "answered", answers: { db: "pg", extras: ["redis", "s3"] } });
    expect(a).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 7, result: { outcome: { outcome: "answered", answers: [{ questionId: "db", selectedOptionIds: ["pg"] }, { questionId: "extras", selectedOptionIds: ["redis", "s3"] }] } } } });
    expect(resolvedOf(n.push((a as any).message, { direction: "out" }))).toEqual([{ decision: "answered", answers: { db: ["pg"], extras: ["redis", "s3"] } }]);
  });
});

describe("a permission takes only what its options offer", () => {
  const perms = {
    "codex-app-server": () => open("codex-app-server", { id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } }),
    "codex-app-server (legacy execCommandApproval)": () => open("codex-app-server", { id: 9, method: "execCommandApproval", params: { conversationId: "t1", callId: "call_3", command: ["ls"], cwd: "/w", parsedCmd: [] } }),
    "codex-eventmsg": () => open("codex-eventmsg", { id: "1", msg: { type: "exec_approval_request", call_id: "call_1", command: ["ls"], cwd: "/w", parsed_cmd: [] } }),
    opencode: () => open("opencode", { type: "permission.asked", properties: { id: "per1", sessionID: "s1", permission: "bash", patterns: ["ls"], metadata: {}, always: [] } }),
    "claude-sdk": () => open("claude-sdk", { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1" } }),
    acp: () => open("acp", { id: 0, method: "session/request_permission", params: { sessionId: "s1", toolCall: { toolCallId: "c1", title: "ls", kind: "execute", status: "pending" }, options: [{ optionId: "once", name: "Allow once", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] } }),
  };
  for (const [s, make] of Object.entries(perms)) {
    it(`${s}: reject_always, not offered, is refused (it used to become the provider's decline); what is offered is answered`, () => {
      const { opened } = make();
      const offered = (P(opened).options as { decision: string }[]).map((o) => o.decision);
      expect(offered).not.toContain("reject_always");
      expect(codeOf(() => answerRequest(opened, { decision: "reject_always" }))).toMatch(new RegExp(`^no_matching_choice: answerRequest: this ${P(opened).requestType} request of [a-z-]+#[a-z-]+ offers ${offered.map((d) => `"${d}"`).join(", ")}, not "reject_always"$`));
      for (const d of offered) expect(codeOf(() => answerRequest(opened, { decision: d } as RequestReply))).toBe("answered");
      // cancelling is always possible
      expect(codeOf(() => answerRequest(opened, { decision: "cancelled" }))).toBe("answered");
      // a permission never takes answers
      expect(codeOf(() => answerRequest(opened, { decision: "answered", answers: { q: "x" } }))).toMatch(/^unsupported_request: /);
    });
  }
  it("claude-sdk: allow_always is offered when the SDK suggests permission updates (and answered with them)", () => {
    const { opened } = open("claude-sdk", { toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1", suggestions: [{ type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow", destination: "session" }] } });
    expect(P(opened).options.map((o: any) => o.decision)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(answerRequest(opened, { decision: "allow_always" })).toMatchObject({ result: { behavior: "allow", updatedPermissions: [{ type: "addRules" }] } });
  });
  it("the legacy Codex approvals are canonical request types, the provider's method kept as providerRequestType", () => {
    const { n, opened } = perms["codex-app-server (legacy execCommandApproval)"]();
    expect(P(opened)).toMatchObject({ requestType: "command_execution_approval", providerRequestType: "execCommandApproval" });
    const a = answerRequest(opened, { decision: "allow_always" });
    expect(a).toMatchObject({ message: { result: { decision: "approved_for_session" } } });
    expect(n.push((a as any).message, { direction: "out" }).map((e) => [e.type, P(e).requestType, P(e).providerRequestType, P(e).decision])).toEqual([["request.resolved", "command_execution_approval", "execCommandApproval", "allow_always"]]);
    const patch = open("codex-eventmsg", { id: "1", msg: { type: "apply_patch_approval_request", call_id: "call_2", changes: {}, reason: "edit", grant_root: null } }).opened;
    expect(P(patch)).toMatchObject({ requestType: "file_change_approval", providerRequestType: "apply_patch_approval_request" });
  });
});

describe("push your own replies back with direction: \"out\"", () => {
  it("without it a request never learns its decision: the answer is what resolves it", () => {
    // answered and pushed back: resolved with the decision
    const a = open("codex-app-server", { id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } });
    const ans = answerRequest(a.opened, { decision: "reject_once" });
    expect(resolvedOf(a.n.push((ans as any).message, { direction: "out" }))).toEqual([{ decision: "reject_once", answers: undefined }]);
    // not pushed: only the server's serverRequest/resolved comes, which names no decision
    const b = open("codex-app-server", { id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } });
    const later = b.n.push({ method: "serverRequest/resolved", params: { threadId: "t1", requestId: 0 } });
    expect(resolvedOf(later).map((r) => r.decision)).toEqual([undefined]);
  });
});

describe("compile time: the reply is typed by the request's kind", () => {
  it("isRequestOf narrows; requestKindOf names the kind", () => {
    const { opened } = PROVIDERS["codex-app-server"]();
    expect(requestKindOf(opened)).toBe("question");
    expect(requestKindOf({ type: "turn.started", payload: {} })).toBeUndefined();
    if (!isRequestOf(opened, "question")) throw new Error("not a question");
    // a narrowed question takes only a question's reply
    // (allow_once still compiles on a question: Cursor's create_plan is a tool_user_input accepted with it; refused at run time)
    expect(() => answerRequest(opened, { decision: "allow_once" })).toThrow(AnswerError);
    // @ts-expect-error — a question's answers are per question id (strings), not numbers
    expect(() => answerRequest(opened, { decision: "answered", answers: 42 })).toThrow(AnswerError);
    // @ts-expect-error — a host call's reply is not a question's
    expect(() => answerRequest(opened, { decision: "completed", output: "x" })).toThrow(AnswerError);
    expect(answerRequest(opened, { decision: "answered", answers: { lang: "Go", name: "x" } }).kind).toBe("jsonrpc");
    const perm = perms();
    if (!isRequestOf(perm, "permission")) throw new Error("not a permission");
    // a permission of the `unknown` type may be an MCP server's form (answered with its content): checked at run time
    expect(() => answerRequest(perm, { decision: "answered", answers: { q: ["x"] } })).toThrow(AnswerError);
    // @ts-expect-error — not a decision at all
    expect(() => answerRequest(perm, { decision: "allow" })).toThrow(AnswerError);
    expect(answerRequest(perm, { decision: "allow_once" }).kind).toBe("jsonrpc");
  });
});

function perms(): CanonicalEvent {
  return open("codex-app-server", { id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } }).opened;
}
