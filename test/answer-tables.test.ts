/**
 * The reverse direction in the tables (mappings/README.md "Answers"): every row that opens a request declares how it is
 * answered, what the compatibility matrix says a request takes is what answerRequest does, and the answers are strict
 * where a reply cannot be right (a question given a permission decision, answers missing or of the wrong type, a
 * decision the request does not offer). Answers of requests answerRequest did not build before are fed back through
 * their table and must resolve the request as asked.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { ANSWERS } from "../generated/answers.gen.js";
import { COMPATIBILITY } from "./support/compatibility.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { answerRequest, type RequestReply } from "../src/answer/answer.js";
import { AnswerError } from "../src/errors.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { runExample } from "../src/normalize/testing.js";

const ROOT = join(import.meta.dirname, "..");
const DECISIONS = ["allow_once", "allow_always", "reject_once", "reject_always", "cancelled", "answered", "completed", "failed", "answered_elsewhere"] as const;
const codeOf = (f: () => unknown): string => {
  try { f(); } catch (e) { if (e instanceof AnswerError) return `${e.code}: ${e.message}`; throw e; }
  return "answered";
};

/** Every request.opened event the tables' own examples produce, with the surface whose example it is. */
function openedByExamples(): { surface: string; rule: string; event: CanonicalEvent }[] {
  const out: { surface: string; rule: string; event: CanonicalEvent }[] = [];
  for (const f of readdirSync(join(ROOT, "mappings")).filter((x) => x.endsWith(".yaml")).sort()) {
    const t = parse(readFileSync(join(ROOT, "mappings", f), "utf8"));
    for (const r of t.rows) {
      for (const ex of r.examples ?? []) {
        for (const event of runExample(SURFACES[t.surface], ex.given ?? [], ex.in).events) if (event.type === "request.opened") out.push({ surface: t.surface, rule: r.rule, event });
      }
    }
  }
  return out;
}

describe("every request a table opens is answered by its table", () => {
  const opened = openedByExamples();

  it("the examples open requests of every surface that has them, and each names a row with answers", () => {
    expect(new Set(opened.map((o) => o.surface))).toEqual(new Set(["acp", "claude-permission", "claude-sdk", "codex-app-server", "codex-eventmsg", "opencode"]));
    const missing = opened.filter((o) => !Object.hasOwn(ANSWERS.rows, o.event.raw!.rule!)).map((o) => `${o.surface}#${o.rule} → ${o.event.raw?.rule}`);
    expect(missing).toEqual([]);
    // and every row with answers opens requests in some example (no answers for a row that opens none)
    const seen = new Set(opened.map((o) => o.event.raw!.rule!));
    expect(Object.keys(ANSWERS.rows).filter((r) => !seen.has(r))).toEqual([]);
  });

  it("the matrix's decisions per request type are what answerRequest answers; every other decision is refused", () => {
    const problems: string[] = [];
    for (const { event } of opened) {
      const rule = event.raw!.rule!;
      const [surface, name] = rule.split("#");
      const row = (COMPATIBILITY.surfaces as any)[surface].answers.rows[name];
      const type = (event.payload as any).requestType;
      const takes: string[] = row.none !== undefined ? [] : row.decisions[type];
      const envelopes = Object.values(ANSWERS.surfaces[surface]?.envelopes ?? {}).map((e) => e.kind);
      const needs = ANSWERS.rows[rule].cases.find((c) => c.reply?.answers)?.reply?.answers;
      for (const decision of DECISIONS) {
        // a question request's answers answer its questions (checked against them); other requests' content as their table needs it
        const qs = (event.payload as any).questions as { id: string; options?: { id: string }[] }[] | undefined;
        const answers = qs ? Object.fromEntries(qs.map((q) => [q.id, q.options?.[0]?.id ?? "x"])) : needs === "array" ? [["x"]] : { q: "x" };
        const reply = { decision, answers, output: "done", result: { ok: true }, message: "why" } as unknown as RequestReply;
        const got = codeOf(() => {
          const a = answerRequest(event, reply);
          if (!envelopes.includes(a.kind)) throw new Error(`${rule} ${decision}: answer kind ${a.kind}`);
        });
        const ok = got === "answered" || got.startsWith("no_matching_choice");
        if (takes.includes(decision) !== ok) problems.push(`${rule} (${type}) ${decision}: matrix ${takes.includes(decision) ? "takes" : "refuses"} it, answerRequest: ${got}`);
        if (!takes.includes(decision) && !got.startsWith("unsupported_request")) problems.push(`${rule} ${decision}: refused with ${got}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("a row that is not answered says why", () => {
    const o = opened.find((x) => x.event.raw?.rule === "codex-app-server#attestation-generate-request")!;
    expect(codeOf(() => answerRequest(o.event, { decision: "cancelled" }))).toBe("unsupported_request: answerRequest: codex-app-server#attestation-generate-request requests are not answered through agentnorm: the answer is an attestation token (a credential) that only the client can make");
  });
});

// ───────────────────────────── strict answers ─────────────────────────────

const push = (surface: string, messages: unknown[]) => {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const events = messages.flatMap((m: any) => (m && "direction" in m && "message" in m ? n.push(m.message, { direction: m.direction }) : n.push(m)));
  return { n, events, opened: events.find((e) => e.type === "request.opened")! };
};
const resolved = (evs: CanonicalEvent[]) => evs.filter((e) => e.type === "request.resolved").map((e) => (e.payload as any).decision);

const codexQuestion = () => push("codex-app-server", [{ id: 2, method: "item/tool/requestUserInput", params: { threadId: "t1", turnId: "u1", itemId: "q1", isBlocking: true, questions: [{ id: "lang", header: "Language", question: "Which language?" }] } }]);
const opencodeQuestion = () => push("opencode", [{ type: "question.asked", properties: { id: "q1", sessionID: "s1", questions: [{ question: "Which language?", header: "Lang", options: [{ label: "Python", description: "Python" }] }] } }]);
const claudeQuestion = () => push("claude-sdk", [{ toolName: "AskUserQuestion", input: { questions: [{ question: "Which?" }] }, options: { toolUseID: "toolu_3" } }]);
const eventmsgQuestion = () => push("codex-eventmsg", [{ id: "1", msg: { type: "request_user_input", call_id: "call_5", turn_id: "1", questions: [{ id: "lang", header: "Language", question: "Which language?" }] } }]);

describe("answers are strict where a reply cannot be right", () => {
  it("a question answered with a permission decision is refused (it used to send empty answers, or a denial)", () => {
    for (const q of [codexQuestion, opencodeQuestion, claudeQuestion, eventmsgQuestion]) {
      const { opened } = q();
      expect(codeOf(() => answerRequest(opened, { decision: "allow_once" } as RequestReply))).toBe('unsupported_request: answerRequest: a question request takes "answered" (with answers) or "cancelled", not "allow_once"');
    }
  });

  it("answered without answers, or with answers of the wrong type, is an invalid reply (test/answer-typed.test.ts: every case, per provider)", () => {
    const q = codexQuestion().opened;
    expect(codeOf(() => answerRequest(q, { decision: "answered" } as RequestReply))).toBe('invalid_reply: answerRequest: an "answered" reply needs answers: an object of question id ("lang") → option id(s) or text');
    expect(codeOf(() => answerRequest(q, { decision: "answered", answers: [["Python"]] } as unknown as RequestReply))).toBe('invalid_reply: answerRequest: answers must be an object of question id ("lang") → option id(s) or text, got an array');
    const oq = opencodeQuestion().opened;
    expect(codeOf(() => answerRequest(oq, { decision: "answered", answers: null } as unknown as RequestReply))).toMatch(/^invalid_reply: answerRequest: an "answered" reply needs answers: /);
    expect(codeOf(() => answerRequest(claudeQuestion().opened, { decision: "answered", answers: "Python" } as unknown as RequestReply, { claude: "sdk" }))).toMatch(/^invalid_reply: answerRequest: answers must be .*, got a string$/);
    // the right answers: opencode's in question order, as labels
    expect(answerRequest(oq, { decision: "answered", answers: { "0": "Python" } })).toEqual({ kind: "http", method: "POST", path: "/question/q1/reply", body: { answers: [["Python"]] } });
    expect(answerRequest(oq, { decision: "cancelled" })).toStrictEqual({ kind: "http", method: "POST", path: "/question/q1/reject" });
  });

  it("a decision the request does not offer is refused (no_matching_choice) — never replaced by another", () => {
    const { opened } = push("codex-app-server", [{ id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, command: "ls" } }]);
    expect(codeOf(() => answerRequest(opened, { decision: "reject_always" }))).toBe('no_matching_choice: answerRequest: this command_execution_approval request of codex-app-server#command-approval-request offers "allow_once", "allow_always", "reject_once", "cancelled", not "reject_always"');
    const rejectOnly = { ...opened, payload: { ...opened.payload, options: [{ decision: "reject_once", providerOptionId: "decline" }] } } as typeof opened;
    expect(codeOf(() => answerRequest(rejectOnly, { decision: "allow_always" }))).toMatch(/^no_matching_choice: answerRequest: this command_execution_approval request of codex-app-server#command-approval-request offers "reject_once", not "allow_always"$/);
    // cancelling is always possible: with no option for it, the provider's word of the same polarity
    expect(answerRequest(rejectOnly, { decision: "cancelled" })).toMatchObject({ message: { result: { decision: "decline" } } });
    // Claude: a permission whose options lack "allow" is not denied silently
    const c = push("claude-sdk", [{ toolName: "Bash", input: { command: "ls" }, options: { toolUseID: "toolu_1" } }]).opened;
    const denyOnly = { ...c, payload: { ...c.payload, options: [{ decision: "reject_once", providerOptionId: "deny" }] } } as typeof c;
    expect(codeOf(() => answerRequest(denyOnly, { decision: "allow_once" }))).toBe('no_matching_choice: answerRequest: the request offers no choice for "allow_once"');
    expect(answerRequest(denyOnly, { decision: "reject_once" })).toMatchObject({ kind: "claude-can-use-tool", result: { behavior: "deny" } });
    // a permission given "answered" is refused, not turned into a denial
    expect(codeOf(() => answerRequest(c, { decision: "answered", answers: {} }))).toMatch(/^unsupported_request: answerRequest: a command_execution_approval request of claude-sdk#permission-request over sdk takes .*not "answered"$/);
  });

  it("answered_elsewhere is a Claude reply; other providers' requests refuse it", () => {
    expect(codeOf(() => answerRequest(codexQuestion().opened, { decision: "answered_elsewhere" }))).toMatch(/^unsupported_request: .*not "answered_elsewhere"$/);
  });

  it("an event without raw.rule is answered by its provider's (and raw.source's) first row of its request type", () => {
    const { opened } = push("codex-eventmsg", [{ id: "1", msg: { type: "exec_approval_request", call_id: "call_1", command: ["ls"], cwd: "/w", parsed_cmd: [] } }]);
    const { raw: _raw, ...bare } = opened;
    // no source either: the codex tables in name order, codex-app-server first (its legacy execCommandApproval), with the event's own options
    expect(answerRequest(bare as typeof opened, { decision: "allow_once" })).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: "call_1", result: { decision: "approved" } } });
    expect(answerRequest({ ...bare, raw: { source: "codex.eventmsg" } } as typeof opened, { decision: "allow_once" })).toMatchObject({ kind: "codex-submission", submission: { op: { type: "exec_approval", decision: "approved" } } });
  });

  it("an opencode v1 answer needs the session; an unknown transport is refused", () => {
    const { opened } = push("opencode", [{ type: "permission.asked", properties: { id: "per1", sessionID: "s1", permission: "bash", patterns: ["ls"], metadata: {}, always: [] } }]);
    const noSession = { ...opened, providerRefs: { providerRequestId: "per1" } } as typeof opened;
    expect(codeOf(() => answerRequest(noSession, { decision: "allow_once" }, { opencode: "v1" }))).toBe("incomplete_request: answerRequest: a v1 opencode answer needs the session (providerRefs.providerThreadId)");
    expect(answerRequest(opened, { decision: "reject_once", message: "not now" })).toMatchObject({ body: { reply: "reject", message: "not now" } });
    expect(answerRequest(opened, { decision: "allow_once", message: "ignored" })).toStrictEqual({ kind: "http", method: "POST", path: "/permission/per1/reply", body: { reply: "once" } });
    expect(codeOf(() => answerRequest(opened, { decision: "allow_once" }, { opencode: "v3" as "v1" }))).toBe('unsupported_request: answerRequest: opencode: "v3" is not a transport of opencode (v2, v1)');
  });
});

describe("requests answerRequest did not answer before: the answer resolves the request as asked", () => {
  it("acp elicitation/create: accept with the content, decline, cancel", () => {
    const ask = { id: 5, method: "elicitation/create", params: { sessionId: "s1", mode: "form", message: "Which branch?", requestedSchema: { type: "object", properties: { branch: { type: "string" } } } } };
    for (const [reply, decision] of [[{ decision: "answered", answers: { branch: "main" } }, "answered"], [{ decision: "reject_once" }, "reject_once"], [{ decision: "cancelled" }, "cancelled"]] as const) {
      const { n, opened } = push("acp", [ask]);
      const a = answerRequest(opened, reply as RequestReply);
      if (a.kind !== "jsonrpc") throw new Error(a.kind);
      expect(resolved(n.push(a.message, { direction: "out" }))).toEqual([decision]);
    }
    expect(answerRequest(push("acp", [ask]).opened, { decision: "answered", answers: { branch: "main" } })).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 5, result: { action: "accept", content: { branch: "main" } } } });
  });

  it("cursor/ask_question and cursor/create_plan (Cursor's ACP extension requests)", () => {
    const ask = { id: 7, method: "cursor/ask_question", params: { toolCallId: "t1", title: "Database", questions: [{ id: "q1", prompt: "Which database?", options: [{ id: "pg", label: "Postgres" }] }] } };
    let s = push("acp", [ask]);
    let a = answerRequest(s.opened, { decision: "answered", answers: { q1: "pg" } });
    expect(a).toMatchObject({ message: { id: 7, result: { outcome: { outcome: "answered", answers: [{ questionId: "q1" }] } } } });
    expect(resolved(s.n.push((a as any).message, { direction: "out" }))).toEqual(["answered"]);
    const plan = { id: 8, method: "cursor/create_plan", params: { toolCallId: "t2", name: "Add auth", plan: "# Plan", todos: [] } };
    for (const [decision, outcome] of [["allow_once", "accepted"], ["reject_once", "rejected"], ["cancelled", "cancelled"]] as const) {
      s = push("acp", [plan]);
      a = answerRequest(s.opened, { decision, message: "too big" });
      expect((a as any).message.result.outcome.outcome).toBe(outcome);
      expect(resolved(s.n.push((a as any).message, { direction: "out" }))).toEqual([decision]);
    }
  });

  it("codex-app-server: an MCP elicitation and a permissions request", () => {
    const ask = { id: 3, method: "mcpServer/elicitation/request", params: { threadId: "t1", turnId: "u1", serverName: "files", mode: "form", message: "Allow delete_file?", requestedSchema: { type: "object", properties: {} } } };
    for (const [decision, expected] of [["reject_once", "reject_once"], ["cancelled", "cancelled"], ["allow_once", "answered"]] as const) {
      const { n, opened } = push("codex-app-server", [ask]);
      const a = answerRequest(opened, { decision });
      expect(resolved(n.push((a as any).message, { direction: "out" }))).toEqual([expected]);
    }
    const perm = { id: 4, method: "item/permissions/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", startedAtMs: 1, cwd: "/w", permissions: { network: { enabled: true } }, reason: "pip install" } };
    const { opened } = push("codex-app-server", [perm]);
    expect(answerRequest(opened, { decision: "allow_always" })).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 4, result: { permissions: { network: { enabled: true } }, scope: "session" } } });
    expect(answerRequest(opened, { decision: "reject_once" })).toMatchObject({ message: { result: { permissions: {} } } });
  });

  it("codex-app-server auth tokens: the host's result, else incomplete; a failure is a JSON-RPC error", () => {
    const { opened } = push("codex-app-server", [{ id: 6, method: "account/chatgptAuthTokens/refresh", params: { reason: "unauthorized" } }]);
    expect(answerRequest(opened, { decision: "completed", result: { accessToken: "t", chatgptAccountId: "a" } })).toMatchObject({ message: { id: 6, result: { accessToken: "t" } } });
    expect(codeOf(() => answerRequest(opened, { decision: "completed", output: "x" }))).toBe("incomplete_request: answerRequest: a auth_tokens_refresh answer needs the provider's result object (reply.result)");
    expect(answerRequest(opened, { decision: "failed", message: "" })).toEqual({ kind: "jsonrpc", message: { jsonrpc: "2.0", id: 6, error: { code: -32000, message: "auth_tokens_refresh failed" } } });
  });
});
