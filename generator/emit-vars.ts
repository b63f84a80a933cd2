/**
 * Emits generated/vars.gen.ts: the session variables of every table as one record of slots (`SessionSlots`), one
 * per session partition at run time (src/normalize/vars.ts). Tables dispatch into each other's rows (`delegate`,
 * `replay` with a surface) within one session, so a variable's name means one variable over all tables.
 * An unkeyed variable (`set: [NAME]`) is a field; a keyed one (`set: [NAME, KEY…]`) a VarStore keyed by the rest.
 */
import { DiagnosticError } from "./diagnostics.ts";
import { VAR_NAME } from "./expressions.ts";
import { allExprs, condExprs, IDENT, type Expr, type StepIR, type TableIR } from "./ir.ts";
import { varName } from "./emit-mapper.ts";

interface VarUse { keyed: boolean; file: string; line: number }

/** Every variable the tables name (set, read, held, a closeOpen's statusVar): whether keyed, and where first used. */
export function tableVars(tables: readonly TableIR[]): Map<string, VarUse[]> {
  const out = new Map<string, VarUse[]>();
  const use = (key: Expr[], file: string, line: number) => {
    const name = varName(key);
    if (!name) return;
    const keyed = key.length > 1;
    const uses = out.get(name) ?? [];
    if (!uses.some((u) => u.keyed === keyed)) uses.push({ keyed, file, line });
    out.set(name, uses);
  };
  const reads = (es: Expr[], file: string, line: number) => {
    for (const e of es.flatMap(allExprs)) if (e.k === "var") use(e.key, file, line);
  };
  for (const t of tables) {
    const steps = (ss: StepIR[], line: number): void => {
      for (const s of ss) {
        s.lets?.forEach((l) => reads([l.value], t.file, line));
        if (s.k === "set") { use(s.key, t.file, line); reads([...s.key, s.value, ...condExprs(s.cond)], t.file, line); }
        else if (s.k === "closeOpen" && s.statusVar !== undefined) use([{ k: "lit", v: s.statusVar }, { k: "lit", v: "" }], t.file, line);
        else if (s.k === "emit") reads([s.payload, ...condExprs(s.cond)], t.file, line);
        else if (s.k === "snapshot") reads([...(s.snap.text ? [s.snap.text] : []), ...(s.snap.parts ? [s.snap.parts] : []), ...condExprs(s.cond)], t.file, line);
        else if (s.k === "upstreamVersion") reads([s.value, ...condExprs(s.cond)], t.file, line);
        else if (s.k === "dispatch") reads([s.message], t.file, line);
        else if (s.k === "each") { reads([s.each], t.file, line); steps(s.steps, line); }
      }
    };
    for (const r of t.rows) {
      if (r.hold) { use(r.hold, t.file, r.line); reads(r.hold, t.file, r.line); }
      reads([...condExprs(r.when), ...r.ids.flatMap((i) => (i.path ? [i.path] : [])), ...(r.lets ?? []).map((l) => l.value)], t.file, r.line);
      steps(r.steps, r.line);
    }
    for (const g of t.ignored) reads(condExprs(g.when ?? []), t.file, g.line);
  }
  return out;
}


export function emitVars(tables: readonly TableIR[], header: string): string {
  const vars = tableVars(tables);
  const problems = [...vars].flatMap(([name, uses]) => [
    ...(uses.length > 1 ? [{ ...uses[1], col: 1, code: "E267", message: `variable "${name}" is used both with and without a key (${uses[0].file}:${uses[0].line}): a variable is one or the other` }] : []),
    ...(!VAR_NAME.test(name) || name === "constructor" ? [{ file: uses[0].file, line: uses[0].line, col: 1, code: "E266", message: `"${name}" is not a variable name (a word: letters, digits, "-", "_")` }] : []),
  ]);
  if (problems.length) throw new DiagnosticError(problems);
  const names = [...vars.keys()].sort();
  const prop = (n: string) => (IDENT.test(n) ? n : JSON.stringify(n));
  const unkeyed = names.filter((n) => !vars.get(n)![0].keyed);
  const keyed = names.filter((n) => vars.get(n)![0].keyed);
  const lines = [
    header,
    `import { VarBudget, VarStore } from "../src/normalize/var-store.js";`,
    ``,
    `/**`,
    ` * The session variables of every table (mappings/*.yaml \`set:\`, \`$var\`, \`hold:\`, closeOpen's statusVar), one slot`,
    ` * each: an unkeyed variable is a field (undefined: unset), a keyed one a store of its values by the rest of its key,`,
    ` * made when first used (a session uses few of them). One record per session (src/normalize/vars.ts).`,
    ` */`,
    `export class SessionSlots {`,
    ...unkeyed.map((n) => `  ${prop(n)}: unknown = undefined;`),
    `  /** The session's bound over its keyed variables (src/normalize/var-store.ts), and the stores made so far. */`,
    `  readonly budget = new VarBudget();`,
    `  readonly stores: VarStore[] = this.budget.stores;`,
    ...keyed.map((n) => `  private ${JSON.stringify("$" + n)}: VarStore | undefined = undefined;`),
    ...keyed.map((n) => `  get ${prop(n)}(): VarStore {\n    return this[${JSON.stringify("$" + n)}] ?? (this[${JSON.stringify("$" + n)}] = new VarStore(${JSON.stringify(n)}, this.budget));\n  }`),
    `}`,
    ``,
    `/** The unkeyed variables (fields of SessionSlots). */`,
    `export type UnkeyedVar =`,
    ...(unkeyed.length ? unkeyed.map((n, i) => `  | ${JSON.stringify(n)}${i === unkeyed.length - 1 ? ";" : ""}`) : ["  never;"]),
    ``,
    `/** The names of the unkeyed variables. */`,
    `export const UNKEYED_VARS: ReadonlySet<string> = new Set([`,
    ...unkeyed.map((n) => `  ${JSON.stringify(n)},`),
    `]);`,
    ``,
    `/** The names of the keyed variables (stores of SessionSlots). */`,
    `export const KEYED_VARS: ReadonlySet<string> = new Set([`,
    ...keyed.map((n) => `  ${JSON.stringify(n)},`),
    `]);`,
    ``,
  ];
  return lines.join("\n");
}
