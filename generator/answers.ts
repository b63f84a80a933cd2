/**
 * Table stage, the reverse direction: a table's `answering` section and its rows' `answers` (generator/dsl.ts
 * `Answering`, `AnswerCase`, `RowAnswers`) → AnsweringIR / RowAnswersIR, checked: decisions, envelope kinds,
 * transports, envelopes named by `via`, sets named by `use`, the references of answer expressions, and that every row
 * that opens a request (emits request.opened) says how it is answered. Problems become Diagnostics (E330–E339).
 */
import { didYouMean, type Diagnostic, type SourcedYaml } from "./diagnostics.ts";
import type { ExprParser, ConditionParser } from "./expressions.ts";
import { allExprs } from "./ir.ts";
import type { CanonicalModel } from "./canonical.ts";
import type { AnswerCaseIR, AnsweringIR, AnswerEnvelopeIR, Cond, Expr, MapIR, RequestOpenIR, RowAnswersIR, RowIR, StepIR } from "./ir.ts";
export type { AnswerCaseIR, AnsweringIR, AnswerEnvelopeIR, RequestOpenIR, RowAnswersIR } from "./ir.ts";

/** Reply decisions (answerRequest's `reply.decision`). */
export const ANSWER_DECISIONS = ["allow_once", "allow_always", "reject_once", "reject_always", "cancelled", "answered", "completed", "failed", "answered_elsewhere"] as const;
/** RequestAnswer kinds (src/answer/answer.ts; generated/answers.gen.ts types each envelope's kind as one). */
export const ANSWER_KINDS = ["jsonrpc", "http", "codex-submission", "claude-can-use-tool", "claude-elicitation", "claude-user-dialog", "claude-answered-elsewhere", "claude-control-response"] as const;
/** The fields of a reply (RequestReply). */
export const REPLY_FIELDS = ["decision", "answers", "output", "result", "message", "updatedInput", "decidedBy"] as const;
/** The roots of an answer expression; the scalar ones take no field path. */
const OBJECT_ROOTS = ["reply", "payload", "args", "refs"];
const SCALAR_ROOTS = ["requestId", "decision", "choice", "offered"];
/** Operators that read the normalizer's state, which an answer does not have. */
const STATEFUL: Partial<Record<Expr["k"], string>> = { map: "$map", var: "$var", id: "$id", state: "$state" };

export interface AnswersEnv {
  src: SourcedYaml;
  ds: Diagnostic[];
  v: any;
  canonical: CanonicalModel;
  maps: Map<string, MapIR>;
  exprParser: ExprParser;
  conditionParser: ConditionParser;
}

/** The request.opened emit of a row's steps (nested each steps included), if any. */
function openEmit(steps: StepIR[]): (StepIR & { k: "emit" }) | undefined {
  for (const s of steps) {
    if (s.k === "emit" && s.type === "request.opened") return s;
    if (s.k === "each") { const e = openEmit(s.steps); if (e) return e; }
  }
  return undefined;
}

/** What the row's request.opened says about the request (undefined: the row opens none). */
export function requestOpen(r: RowIR, canonical: CanonicalModel, maps: Map<string, MapIR>): RequestOpenIR | undefined {
  const emit = openEmit(r.steps);
  if (!emit) return undefined;
  const all = canonical.enums.CanonicalRequestType ?? [];
  const entry = (k: string) => (emit.payload.k === "obj" ? emit.payload.entries.find(([key]) => key === k)?.[1] : undefined);
  const types = (e: Expr | undefined): string[] => {
    if (!e) return all;
    if (e.k === "lit") return typeof e.v === "string" ? [e.v] : all;
    if (e.k === "map") {
      const m = maps.get(e.name);
      if (!m) return all;
      const def = e.def ?? m.def;
      return [...Object.values(m.values), ...Object.values(m.prefixes ?? {}), ...(def !== undefined ? [def] : [])].map(String);
    }
    if (e.k === "first") return e.items.flatMap(types);
    return all;
  };
  const requestTypes = [...new Set(types(entry("requestType")))].filter((t) => all.includes(t)).sort();
  const args = entry("args");
  return { requestTypes, argsKeys: args?.k === "obj" ? args.entries.map(([k]) => k) : undefined };
}

/** The table's `answering` section. */
export function parseAnswering(x: AnswersEnv): AnsweringIR | undefined {
  const { src, ds, v } = x;
  const a = v.answering;
  if (!a) return undefined;
  const at = (...p: (string | number)[]) => ["answering", ...p];
  const transports: string[] = a.transports ?? [];
  if (a.option !== undefined && !transports.length) ds.push(src.diag(at("option"), "E332", `answering.option "${a.option}" picks a transport, but answering.transports lists none`));
  const envelopes: AnswerEnvelopeIR[] = Object.entries<any>(a.envelopes ?? {}).map(([name, e]) => {
    const p = at("envelopes", name);
    if (!(ANSWER_KINDS as readonly string[]).includes(e.kind)) ds.push(src.diag([...p, "kind"], "E331", `unknown answer kind "${e.kind}" (${ANSWER_KINDS.join(", ")})${didYouMean(e.kind, ANSWER_KINDS)}`));
    if (e.transport !== undefined) checkTransport(x, e.transport, transports, [...p, "transport"]);
    const answer = answerExpr(x, e.answer, [...p, "answer"], { body: true });
    return { name, kind: e.kind, transport: e.transport, answer, line: src.pos(p).line };
  });
  const via = list(a.via);
  via.forEach((n, i) => checkEnvelope(x, n, envelopes, Array.isArray(a.via) ? at("via", i) : at("via")));
  return { option: a.option, transports, envelopes, via, line: src.pos(at()).line };
}

/**
 * A row's `answers` (and the E337 / E338 checks that tie answers to the rows that open requests). `used` collects the
 * sets rows use.
 */
export function parseRowAnswers(x: AnswersEnv, r: RowIR, ri: number, answering: AnsweringIR | undefined, used: Set<string>): RowAnswersIR | undefined {
  const { src, ds, v, canonical, maps } = x;
  const raw = v.rows[ri]?.answers;
  const open = requestOpen(r, canonical, maps);
  const at = (...p: (string | number)[]) => ["rows", ri, ...p];
  if (raw === undefined) {
    if (open) ds.push(src.diag(at("rule"), "E337", `row "${r.rule}" opens a request (emits request.opened) but declares no answers (give it answers, or answers: { none: REASON })`));
    return undefined;
  }
  if (!open) {
    ds.push(src.diag(at("answers"), "E338", `row "${r.rule}" declares answers but opens no request (it emits no request.opened)`, true));
    return undefined;
  }
  const long = Array.isArray(raw) ? { cases: raw } : raw;
  const line = src.pos(at("answers")).line;
  if (long.none !== undefined) {
    const others = Object.keys(long).filter((k) => k !== "none");
    if (others.length) ds.push(src.diag(at("answers"), "E334", `answers: { none } takes nothing else (this one also has ${others.join(", ")})`));
    return { none: String(long.none), cases: [], own: 0, line };
  }
  if (!answering) {
    ds.push(src.diag(at("answers"), "E333", `row "${r.rule}" declares answers, but the table has no "answering" section (its transports and envelopes)`, true));
    return undefined;
  }
  if (long.transport !== undefined) checkTransport(x, long.transport, answering.transports, at("answers", "transport"));
  const own = (long.cases ?? []).map((c: any, ci: number) => parseCase(x, c, Array.isArray(raw) ? at("answers", ci) : at("answers", "cases", ci), answering, open));
  let shared: AnswerCaseIR[] = [];
  if (long.use !== undefined) {
    const set = v.answering?.sets?.[long.use];
    if (!set) ds.push(src.diag(at("answers", "use"), "E333", `unknown answer set "${long.use}"${Object.keys(v.answering?.sets ?? {}).length ? ` (sets: ${Object.keys(v.answering.sets).join(", ")})` : ""}${didYouMean(String(long.use), Object.keys(v.answering?.sets ?? {}))}`));
    else {
      used.add(long.use);
      shared = set.map((c: any, ci: number) => parseCase(x, c, ["answering", "sets", long.use, ci], answering, open));
    }
  }
  const cases = [...own, ...shared];
  if (!cases.length) ds.push(src.diag(at("answers"), "E334", `row "${r.rule}" declares no answer case (give cases, use a set, or say none)`));
  return { transport: long.transport, cases, own: own.length, ...(long.use !== undefined ? { use: long.use } : {}), line };
}

/** Sets no row uses (E338). */
export function checkUnusedSets(x: AnswersEnv, used: Set<string>): void {
  for (const name of Object.keys(x.v.answering?.sets ?? {})) if (!used.has(name)) x.ds.push(x.src.diag(["answering", "sets", name], "E338", `answer set "${name}" is never used (answers: { use: ${name} })`, true));
}

function parseCase(x: AnswersEnv, c: any, p: (string | number)[], answering: AnsweringIR, open: RequestOpenIR): AnswerCaseIR {
  const { src, ds, canonical } = x;
  const decisions: string[] = c.decisions ?? [];
  decisions.forEach((d, di) => {
    if (!(ANSWER_DECISIONS as readonly string[]).includes(d)) ds.push(src.diag([...p, "decisions", di], "E330", `unknown decision "${d}" (${ANSWER_DECISIONS.join(", ")})${didYouMean(d, ANSWER_DECISIONS)}`));
  });
  // the request kinds of the types the row can open decide which decisions make sense (answerRequest checks it too)
  const kinds = new Set(open.requestTypes.map((t) => Object.entries(canonical.requestKinds).find(([, ts]) => ts.includes(t))?.[0] ?? "permission"));
  decisions.forEach((d, di) => {
    const hostCall = d === "completed" || d === "failed";
    if (kinds.size && (hostCall ? !kinds.has("host_call") : d !== "answered_elsewhere" && [...kinds].every((k) => k === "host_call"))) {
      ds.push(src.diag([...p, "decisions", di], "E339", `decision "${d}" cannot answer ${[...kinds].join(" / ")} requests (${open.requestTypes.join(", ")}): a host call takes completed or failed, other requests never do`));
    }
  });
  if (c.transport !== undefined) checkTransport(x, c.transport, answering.transports, [...p, "transport"]);
  const reply: AnswerCaseIR["reply"] = Object.entries<any>(c.reply ?? {}).map(([f, ty]) => {
    if (!(REPLY_FIELDS as readonly string[]).includes(f)) ds.push(src.diag([...p, "reply", f], "E335", `"${f}" is not a field of a reply (${REPLY_FIELDS.join(", ")})${didYouMean(f, REPLY_FIELDS)}`, true));
    return [f, ty];
  });
  if ((c.body === undefined) === (c.fail === undefined)) ds.push(src.diag(p, "E334", `an answer case gives exactly one of "body" (the answer) or "fail" (answerRequest fails)`));
  const via = c.via !== undefined ? list(c.via) : answering.via;
  if (c.body !== undefined) {
    if (!via.length) ds.push(src.diag(p, "E333", `the case names no envelope ("via") and the table's answering has no default "via"`));
    if (c.via !== undefined) via.forEach((n, i) => checkEnvelope(x, n, answering.envelopes, Array.isArray(c.via) ? [...p, "via", i] : [...p, "via"]));
  }
  const when = x.conditionParser(c.when, [...p, "when"], {
    allowState: false,
    hasRole: () => false,
    subject: (key, kp) => ({ expr: answerPath(x, key.split("."), kp, open, {}) }),
    value: (e, vp) => answerExpr(x, e, vp, {}, open),
  });
  return {
    decisions, when, ...(c.transport !== undefined ? { transport: c.transport } : {}), reply, via,
    ...(c.body !== undefined ? { body: answerExpr(x, c.body, [...p, "body"], {}, open) } : {}),
    ...(c.fail !== undefined ? { fail: { code: c.fail.code, message: c.fail.message } } : {}),
    line: src.pos(p).line,
  };
}

/** An answer expression: the context's roots, checked; no operator that reads the normalizer's state. */
function answerExpr(x: AnswersEnv, e: unknown, p: (string | number)[], o: { body?: boolean }, open?: RequestOpenIR): Expr {
  const expr = x.exprParser(e, p, new Map(), {
    // ($list element variables are in scope)
    path: (segs, pp, scope) => (scope.has(segs[0]) ? { k: "path", root: segs[0], segs: segs.slice(1) } : answerPath(x, segs, pp, open, o)),
    hasRole: () => false,
  });
  for (const sub of allExprs(expr)) {
    const op = STATEFUL[sub.k];
    if (op) { x.ds.push(x.src.diag(p, "E336", `${op} reads the normalizer's state: an answer is built from the request.opened event and the reply only`)); break; }
  }
  return expr;
}

/** A path of an answer expression or condition (roots: reply, payload, args, refs, requestId, decision, choice, offered; body in envelopes). */
function answerPath(x: AnswersEnv, segs: string[], p: (string | number)[], open: RequestOpenIR | undefined, o: { body?: boolean }): Expr {
  const { src, ds, canonical } = x;
  const [root, ...rest] = segs;
  const roots = [...OBJECT_ROOTS, ...SCALAR_ROOTS, ...(o.body ? ["body"] : [])];
  const bad = (msg: string) => ds.push(src.diag(p, "E335", msg));
  if (!roots.includes(root)) bad(`"${root}" is not a root of an answer expression (${roots.join(", ")})${didYouMean(root, roots)}`);
  else if (SCALAR_ROOTS.includes(root) && rest.length) bad(`$${root} is a value, not an object ($${segs.join(".")})`);
  else if (rest.length) {
    const f = rest[0];
    const fields = root === "reply" ? [...REPLY_FIELDS]
      : root === "payload" ? Object.keys(canonical.payloads["request.opened"]?.properties ?? {})
      : root === "refs" ? Object.keys(canonical.envelope.properties.providerRefs?.properties ?? {})
      : root === "args" ? open?.argsKeys : undefined;
    if (fields && !fields.includes(f)) bad(`"${f}" is not a field of $${root}${root === "args" ? " (the row's request.opened args)" : ""} (${fields.join(", ")})${didYouMean(f, fields)}`);
  }
  return { k: "path", root, segs: rest };
}

function checkTransport(x: AnswersEnv, t: string, transports: string[], p: (string | number)[]): void {
  if (!transports.includes(t)) x.ds.push(x.src.diag(p, "E332", `unknown transport "${t}"${transports.length ? ` (answering.transports: ${transports.join(", ")})` : " (answering.transports lists none)"}${didYouMean(t, transports)}`));
}

function checkEnvelope(x: AnswersEnv, name: string, envelopes: AnswerEnvelopeIR[], p: (string | number)[]): void {
  if (!envelopes.some((e) => e.name === name)) x.ds.push(x.src.diag(p, "E333", `unknown envelope "${name}" (answering.envelopes: ${envelopes.map((e) => e.name).join(", ") || "none"})${didYouMean(name, envelopes.map((e) => e.name))}`));
}

const list = (x: unknown): string[] => (x === undefined ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
