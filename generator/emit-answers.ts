/**
 * Emits generated/answers.gen.ts: the tables' answers (`answering:` and each request row's `answers:`), compiled — one
 * function per case condition, body and envelope, over the answer context (src/answer/answer-table.ts), keyed by the
 * rows' raw.rule. src/answer/answer.ts runs them (answerRequest).
 */
import type { AnswerCaseIR } from "./answers.ts";
import { allExprs, answerCondCode, answerExprCode, collectUsed, condExprs, expandBlocks, usedNow } from "./emit-mapper.ts";
import type { Cond, Expr, TableIR } from "./ir.ts";

/** The row-util function of each operator an answer may use. */
const UTIL: Partial<Record<Expr["k"], string>> = {
  join: "joinKey", str: "str", text: "text", tag: "tagOf", variant: "variantOf", json: "json", concat: "concat", add: "add",
  list: "objects", merge: "merge", numeric: "numeric", type: "typeOf", uri: "uri", integer: "integerOf", clip: "clip", shell: "shellLine",
};

/** A literal as code (lists with a space after each comma). */
const lit = (v: unknown): string => (Array.isArray(v) ? `[${v.map(lit).join(", ")}]` : JSON.stringify(v));
const ident = (s: string) => s.replace(/[^A-Za-z0-9]/g, "_");

export function emitAnswers(tables: TableIR[], header: string): string {
  return expandBlocks(collectUsed(() => answersText(tables, header)).out);
}

function answersText(tables: TableIR[], header: string): string {
  const sorted = [...tables].sort((a, b) => a.surface.localeCompare(b.surface));
  const exprs: Expr[] = [];
  const use = (e: Expr | undefined) => exprs.push(...allExprs(e));
  const useCond = (cs: Cond[]) => condExprs(cs).forEach(use);

  const caseCode = (t: TableIR, c: AnswerCaseIR, indent: string): string => {
    useCond(c.when);
    use(c.body);
    const parts = [
      `decisions: ${lit(c.decisions)}`,
      ...(c.transport !== undefined ? [`transport: ${lit(c.transport)}`] : []),
      ...(c.when.length ? [`when: (a) => ${answerCondCode(c.when)}`] : []),
      ...(c.reply.length ? [`reply: { ${c.reply.map(([f, ty]) => `${f}: ${lit(ty)}`).join(", ")} }`] : []),
      ...(c.body ? [`via: ${lit(c.via)}`, `body: (a) => ${answerExprCode(c.body)}`] : []),
      ...(c.fail ? [`fail: { code: ${lit(c.fail.code)}, message: ${lit(c.fail.message)} }`] : []),
      `at: ${lit(`${t.file}:${c.line}`)}`,
    ];
    return `${indent}{\n${parts.map((x) => `${indent}  ${x},`).join("\n")}\n${indent}},`;
  };

  const sets: string[] = [];
  const setNames = new Map<string, string>();
  const surfaces: string[] = [];
  const rows: string[] = [];
  for (const t of sorted) {
    const a = t.answering;
    if (a) {
      const envs = a.envelopes.map((e) => {
        use(e.answer);
        return `        ${ident(e.name) === e.name ? e.name : lit(e.name)}: { kind: ${lit(e.kind)} satisfies Kind, ${e.transport !== undefined ? `transport: ${lit(e.transport)}, ` : ""}answer: (a) => ${answerExprCode(e.answer)} },`;
      });
      surfaces.push(`    // ${t.file}:${a.line}\n    ${lit(t.surface)}: {\n${a.option !== undefined ? `      option: ${lit(a.option)},\n` : ""}      transports: ${lit(a.transports)},\n      envelopes: {\n${envs.join("\n")}\n      },\n    },`);
    }
    for (const r of t.rows) {
      if (!r.request || !r.answers) continue;
      const ans = r.answers;
      const kind = t.kinds.find((k) => k.kind === r.kind);
      const source = kind?.methodSources?.[r.methods[0]] ?? kind?.source ?? "";
      const own = ans.cases.slice(0, ans.own);
      const shared = ans.cases.slice(ans.own);
      let setRef: string | undefined;
      if (ans.use !== undefined) {
        const key = `${t.surface}:${ans.use}`;
        setRef = setNames.get(key);
        if (!setRef) {
          setRef = `SET_${ident(t.surface)}_${ident(ans.use)}`;
          setNames.set(key, setRef);
          sets.push(`/** ${t.surface}: answer set "${ans.use}" (${t.file}) */\nconst ${setRef}: readonly AnswerCaseData[] = [\n${shared.map((c) => caseCode(t, c, "  ")).join("\n")}\n];`);
        }
      }
      const cases = ans.none !== undefined ? "[]" : `[${own.length ? `\n${own.map((c) => caseCode(t, c, "        ")).join("\n")}${setRef ? `\n        ...${setRef},` : ""}\n      ` : setRef ? `...${setRef}` : ""}]`;
      rows.push(`    // ${t.file}:${r.line}\n    ${lit(`${t.surface}#${r.rule}`)}: {\n      surface: ${lit(t.surface)}, provider: ${lit(t.provider)}, source: ${lit(source)},\n      requestTypes: ${lit(r.request.requestTypes)},${ans.transport !== undefined ? `\n      transport: ${lit(ans.transport)},` : ""}${ans.none !== undefined ? `\n      none: ${lit(ans.none)},` : ""}\n      cases: ${cases},\n      at: ${lit(`${t.file}:${ans.line}`)},\n    },`);
    }
  }
  const kinds = new Set(exprs.map((e) => e.k));
  const utils = [...new Set(["compact", ...Object.entries(UTIL).filter(([k]) => kinds.has(k as Expr["k"])).map(([, f]) => f!), ...(exprs.some((e) => e.k === "list" && e.all) ? ["elements"] : []), ...usedNow()])].sort((a, b) => a.localeCompare(b));
  const modules = [...new Set(exprs.flatMap((e) => (e.k === "helper" && e.module ? [e.module] : [])))].sort();
  // (the type of open values, when some code reads into a computed value: `$get`)
  if ([...sets, ...surfaces, ...rows].some((x) => /\bas JsonView\b/.test(x))) utils.push("type JsonView");
  return `${header}
import type { AnswerCaseData, AnswerTables } from "../src/answer/answer-table.js";
import type { RequestAnswer } from "../src/answer/answer.js";
${modules.map((m) => `import * as h_${m} from "../mappings/helpers/${m}.js";`).join("\n")}${modules.length ? "\n" : ""}import { ${utils.join(", ")} } from "../src/normalize/row-util.js";

type Kind = RequestAnswer["kind"];

${sets.join("\n\n")}${sets.length ? "\n\n" : ""}/** How the requests each row opens are answered (mappings/README.md "Answers"), by the rows' raw.rule. */
export const ANSWERS: AnswerTables = {
  surfaces: {
${surfaces.join("\n")}
  },
  rows: {
${rows.join("\n")}
  },
};
`;
}
