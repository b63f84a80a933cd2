/**
 * Value expressions and conditions of the mapping DSL: one parser each, for every position (row conditions, step
 * conditions, payloads, ids, input wrappers); the caller says how a `$path` resolves and is checked there.
 */
import { didYouMean, type Diagnostic, type SourcedYaml } from "./diagnostics.ts";
import type { Cond, Expr, LetIR, MapIR, Role, TableContext } from "./ir.ts";
import { ANY, type SchemaRef } from "./upstream.ts";

/** The identity roles (generator/dsl.ts `Role`). */
export const ROLES: Role[] = ["session", "thread", "turn", "item", "request", "task", "parent"];

export type ExprParser = (val: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>, on: ExprEnv) => Expr;
/** How an expression's `$path` resolves (and is checked) where it stands, which roles the row declares, and whether the row's ids are resolved there yet (not in a row's `when`). */
export interface ExprEnv {
  path: (segs: string[], p: (string | number)[], scope: Map<string, SchemaRef[]>) => Expr;
  hasRole: (r: Role) => boolean;
  beforeIds?: boolean;
  /** A condition's bare path (of a `$if` expression), with the enum values it may hold; default: `path`. */
  subject?: (key: string, p: (string | number)[], scope: Map<string, SchemaRef[]>) => { expr: Expr; enumVals?: string[] };
  /** Names a `$list`'s `let` or `index` may not take where the expression stands besides the scope's (the message's roots…). */
  taken?: (name: string) => boolean;
}

/** A named value's name (`let`, a `$list`'s `index`): letters, digits and `_`, not first a digit. */
export const VALUE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export type ConditionParser = (c: any, path: (string | number)[], on: {
  allowState: boolean;
  hasRole: (r: Role) => boolean;
  subject: (key: string, p: (string | number)[]) => { expr: Expr; enumVals?: string[] };
  value: (x: unknown, p: (string | number)[]) => Expr;
}) => Cond[];

/** A session variable's name: the first part of its key, a literal (a field of the generated record of slots). */
export const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The first part of a variable's key (`set`, `$var`, `hold`) is its name: a literal like `item` (E266). */
export function checkVarName(key: Expr[], path: (string | number)[], src: SourcedYaml, ds: Diagnostic[]): void {
  const first = key[0];
  if (!first) return;
  if (first.k !== "lit" || typeof first.v !== "string" || !VAR_NAME.test(first.v) || first.v === "constructor")
    ds.push(src.diag(path, "E266", `a variable's key starts with its name: a word (letters, digits, "-", "_"), like [item, $id]`));
}

export function expressionParsers(env: { src: SourcedYaml; ds: Diagnostic[]; cx: TableContext; mapByName: Map<string, MapIR>; usedMaps: Set<string>; usedHelpers: Set<string> }): { exprParser: ExprParser; conditionParser: ConditionParser } {
  const { src, ds, cx, mapByName, usedMaps, usedHelpers } = env;
    /** Value expressions (one parser for every position; `paths` says how a `$path` resolves and is checked there). */
  function exprParser(val: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>, on: ExprEnv): Expr {
    const rec = (x: unknown, p: (string | number)[]) => exprParser(x, p, scope, on);
    if (typeof val === "string") {
      if (val.startsWith("$$")) return { k: "lit", v: val.slice(1) };
      if (val.startsWith("$")) {
        const segs = val.slice(1).split(".");
        if (segs.some((s) => s === "")) ds.push(src.diag(path, "E222", `malformed path "${val}"`));
        return on.path(segs, path, scope);
      }
      return { k: "lit", v: val };
    }
    if (Array.isArray(val)) return { k: "arr", items: val.map((x, i) => rec(x, [...path, i])) };
    if (val && typeof val === "object") {
      const o = val as Record<string, unknown>;
      const special = Object.keys(o).filter((k) => k.startsWith("$"));
      if (special.length === 0) return { k: "obj", entries: Object.entries(o).map(([k, x]) => [k, rec(x, [...path, k])]) };
      const op = special[0];
      const allowed: Record<string, string[]> = {
        $map: ["$map", "from", "default"], $helper: ["$helper", "args"], $first: ["$first"], $state: ["$state"], $literal: ["$literal"], $var: ["$var"], $join: ["$join"], $id: ["$id"],
        $str: ["$str"], $text: ["$text", "join", "items", "skipEmpty"], $tag: ["$tag"], $variant: ["$variant"], $get: ["$get", "path"], $json: ["$json"], $concat: ["$concat"], $add: ["$add"],
        $list: ["$list", "as", "to", "where", "all", "index", "let"], $uri: ["$uri"], $numeric: ["$numeric"], $type: ["$type"], $merge: ["$merge"],
        $if: ["$if", "then", "else"], $number: ["$number"], $string: ["$string"], $integer: ["$integer"], $clip: ["$clip"], $shell: ["$shell"],
        $find: ["$find", "as", "where", "all", "last"], $entries: ["$entries"], $object: ["$object"], $strings: ["$strings"], $split: ["$split", "on"],
        $product: ["$product"], $round: ["$round", "unit"],
      };
      if (special.length > 1 || !allowed[op]) {
        ds.push(src.diag(path, "E223", `unknown expression operator "${special.join(", ")}"; use ${Object.keys(allowed).join(", ")}`));
        return { k: "lit", v: undefined };
      }
      for (const k of Object.keys(o)) if (!allowed[op].includes(k)) ds.push(src.diag([...path, k], "E224", `"${k}" is not allowed with ${op}`, true));
      switch (op) {
        case "$map": {
          const name = String(o.$map);
          if (!mapByName.has(name)) ds.push(src.diag([...path, "$map"], "E225", `unknown map "${name}"${didYouMean(name, mapByName.keys())}`));
          usedMaps.add(name);
          if (o.from === undefined) ds.push(src.diag(path, "E226", `$map needs "from"`));
          return { k: "map", name, from: rec(o.from, [...path, "from"]), def: o.default };
        }
        case "$helper": {
          const name = String(o.$helper);
          const args = Array.isArray(o.args) ? o.args : o.args === undefined ? [] : [o.args];
          const sig = cx.helpers.get(name);
          if (!sig) ds.push(src.diag([...path, "$helper"], "E227", `unknown helper "${name}" (helpers of ${cx.helperFile}: ${[...cx.helpers.keys()].sort().join(", ")})${didYouMean(name, cx.helpers.keys())}`));
          else if (args.length < sig.min || args.length > sig.max) ds.push(src.diag([...path, "args"], "E236", `helper "${name}" takes ${sig.min === sig.max ? sig.min : `${sig.min} to ${sig.max}`} argument(s), got ${args.length}`));
          usedHelpers.add(name);
          return { k: "helper", name, args: args.map((a, i) => rec(a, [...path, "args", i])), module: sig?.module };
        }
        case "$first": {
          if (!Array.isArray(o.$first)) ds.push(src.diag(path, "E228", `$first takes a list`));
          return { k: "first", items: (Array.isArray(o.$first) ? o.$first : []).map((x, i) => rec(x, [...path, "$first", i])) };
        }
        case "$id": {
          const role = String(o.$id) as Role;
          if (!ROLES.includes(role)) ds.push(src.diag(path, "E229", `$id takes a role (${ROLES.join(", ")})`));
          else if (on.beforeIds) ds.push(src.diag(path, "E239", `$id reads a resolved identity: a row's "when" runs before its ids (test a field instead)`));
          else if (!on.hasRole(role)) ds.push(src.diag(path, "E232", `$id: ${role} needs the row to declare ids.${role}`));
          return { k: "id", role };
        }
        case "$var":
        case "$join": {
          const list = o[op];
          if (!Array.isArray(list) || !list.length) ds.push(src.diag(path, "E228", `${op} takes a non-empty list`));
          const items = (Array.isArray(list) ? list : []).map((x, i) => rec(x, [...path, op, i]));
          if (op === "$var") checkVarName(items, [...path, op, 0], src, ds);
          return op === "$var" ? { k: "var", key: items } : { k: "join", items };
        }
        case "$state": {
          const [role, field] = String(o.$state).split(".");
          if (!ROLES.includes(role as Role) || !field) ds.push(src.diag(path, "E229", `$state takes ROLE.FIELD (roles: ${ROLES.join(", ")})`));
          else if (on.beforeIds) ds.push(src.diag(path, "E239", `$state reads a resolved identity: a row's "when" runs before its ids (test a field instead)`));
          else if (!on.hasRole(role as Role)) ds.push(src.diag(path, "E232", `$state: ${role} needs the row to declare ids.${role}`));
          return { k: "state", role: role as Role, field };
        }
        case "$str": case "$tag": case "$variant": case "$json":
          return { k: op.slice(1) as "str" | "tag" | "variant" | "json", of: rec(o[op], [...path, op]) };
        case "$uri": case "$numeric": case "$type": case "$number": case "$string": case "$integer": case "$clip": case "$shell":
        case "$entries": case "$object": case "$strings":
          return { k: op.slice(1) as "uri" | "numeric" | "type" | "number" | "string" | "integer" | "clip" | "shell" | "entries" | "object" | "strings", of: rec(o[op], [...path, op]) };
        case "$split":
          if (typeof o.on !== "string" || o.on === "") ds.push(src.diag(path, "E237", `$split needs "on" (the text between parts, not empty)`));
          return { k: "split", of: rec(o.$split, [...path, "$split"]), on: String(o.on ?? "") };
        case "$round": {
          const unit = o.unit ?? 1;
          if (typeof unit !== "number" || !Number.isFinite(unit) || unit <= 0) ds.push(src.diag([...path, "unit"], "E237", `$round "unit" is a positive number (the value is divided by it before rounding)`));
          return { k: "round", of: rec(o.$round, [...path, "$round"]), unit: typeof unit === "number" ? unit : 1 };
        }
        case "$if": {
          // The lazy conditional: CONDITIONS (the one grammar; `$name` keys test named values), then / else.
          if (!o.$if || typeof o.$if !== "object" || Array.isArray(o.$if) || !Object.keys(o.$if).length) ds.push(src.diag([...path, "$if"], "E246", `$if takes conditions (an object of tests, as in a step's "if")`));
          if (!("then" in o)) ds.push(src.diag(path, "E246", `$if needs "then" (the value when the conditions hold; "else", optional, the value otherwise)`));
          const cond = conditionParser(o.$if, [...path, "$if"], {
            allowState: !on.beforeIds,
            hasRole: on.hasRole,
            subject: (key, p) => (on.subject ? on.subject(key, p, scope) : { expr: on.path(key.split("."), p, scope) }),
            value: (x, p) => rec(x, p),
          });
          return { k: "if", cond, then: rec(o.then, [...path, "then"]), ...("else" in o ? { else: rec(o.else, [...path, "else"]) } : {}) };
        }
        case "$concat": case "$add": case "$merge": case "$product": {
          const list = o[op];
          if (!Array.isArray(list) || !list.length) ds.push(src.diag(path, "E228", `${op} takes a non-empty list`));
          return { k: op.slice(1) as "concat" | "add" | "merge" | "product", items: (Array.isArray(list) ? list : []).map((x, i) => rec(x, [...path, op, i])) };
        }
        case "$text": {
          if (typeof o.join !== "string") ds.push(src.diag(path, "E237", `$text needs "join" (the text between parts)`));
          const items = o.items ?? "strings";
          if (!["strings", "blocks", "untypedBlocks"].includes(String(items))) ds.push(src.diag([...path, "items"], "E237", `$text items are strings, blocks ({type: text, text}) or untypedBlocks ({text}, type text or absent)`));
          return { k: "text", of: rec(o.$text, [...path, "$text"]), join: String(o.join ?? ""), items: items as "strings", skipEmpty: o.skipEmpty === true };
        }
        case "$get": {
          if (typeof o.path !== "string" || o.path === "") ds.push(src.diag(path, "E237", `$get needs "path" (a field path into the value)`));
          return { k: "get", of: rec(o.$get, [...path, "$get"]), segs: String(o.path ?? "").split(".") };
        }
        case "$list":
        case "$find": {
          // $list: element-wise reshape: each element of a list that is an object (all: every element), as $<as> (its
          // position as $<index>), its own named values computed, kept when `where` holds, becomes `to`.
          // $find: the first (last: the last) element for which `where` holds.
          const find = op === "$find";
          if (typeof o.as !== "string" || (find ? o.where === undefined : o.to === undefined)) ds.push(src.diag(path, "E237", find ? `$find needs "as" (the element's name) and "where" (what the element must hold)` : `$list needs "as" (the element's name) and "to" (what each element becomes)`));
          const of = rec(o[op], [...path, op]);
          const as = String(o.as);
          const inner = new Map(scope);
          inner.set(as, [ANY]);
          // the list's own names (index, let), and which of them are read (an unread let is E249)
          const own = new Set<string>();
          const read = new Set<string>();
          const note = (key: string) => { const root = key.split(".")[0]; if (own.has(root)) read.add(root); };
          const onIn: ExprEnv = {
            ...on,
            path: (segs, p, sc) => { note(segs[0]); return on.path(segs, p, sc); },
            ...(on.subject ? { subject: (key: string, p: (string | number)[], sc: Map<string, SchemaRef[]>) => { note(key); return on.subject!(key, p, sc); } } : {}),
          };
          const sub = (x: unknown, p: (string | number)[]) => exprParser(x, p, inner, onIn);
          const name = (n: unknown, p: (string | number)[], what: string): string | undefined => {
            if (typeof n !== "string" || !VALUE_NAME.test(n)) { ds.push(src.diag(p, "E247", `${what} "${String(n)}" is not a name for a value: letters, digits and _ (not first a digit)`, true)); return undefined; }
            if (inner.has(n) || on.taken?.(n)) { ds.push(src.diag(p, "E247", `${what} "${n}" is already a name here (the element, a field of the message, an each variable or another named value): choose another`, true)); return undefined; }
            return n;
          };
          const index = !find && o.index !== undefined ? name(o.index, [...path, "index"], "index") : undefined;
          if (index) { inner.set(index, [ANY]); own.add(index); read.add(index); }
          const lets: LetIR[] = [];
          if (!find && o.let !== undefined) {
            if (!o.let || typeof o.let !== "object" || Array.isArray(o.let)) ds.push(src.diag([...path, "let"], "E247", `let takes named values: { NAME: EXPR, … }`));
            else for (const [n, x] of Object.entries(o.let)) {
              const p = [...path, "let", n];
              const value = sub(x, p);
              const ok = name(n, p, "let");
              if (ok) { lets.push({ name: ok, value }); inner.set(ok, [ANY]); own.add(ok); }
            }
          }
          const elementPath = (key: string, p: (string | number)[]): Expr => {
            const segs = key.split(".");
            if (segs[0] !== as && !own.has(segs[0])) ds.push(src.diag(p, "E238", `a ${op} condition tests the element: "${as}.<field>"${own.size ? ` (or ${[...own].join(", ")})` : ""}`));
            note(key);
            return { k: "path", root: segs[0], segs: segs.slice(1) };
          };
          const where = conditionParser(o.where, [...path, "where"], {
            allowState: false, hasRole: on.hasRole,
            subject: (key, p) => ({ expr: elementPath(key, [...p]) }),
            value: (x, vp) => sub(x, vp),
          });
          for (const k of ["all", "last"] as const) if (o[k] !== undefined && typeof o[k] !== "boolean") ds.push(src.diag([...path, k], "E237", `${op} "${k}" is true or false`));
          const all = o.all === true ? { all: true as const } : {};
          if (find) return { k: "find", of, as, where, ...all, ...(o.last === true ? { last: true } : {}) };
          const to = sub(o.to, [...path, "to"]);
          for (const l of lets) if (!read.has(l.name)) ds.push(src.diag([...path, "let", l.name], "E249", `named value "${l.name}" is never read (read it as $${l.name}, or remove it)`, true));
          return { k: "list", of, as, to, where, ...all, ...(index ? { index } : {}), ...(lets.length ? { lets } : {}) };
        }
        default:
          return { k: "lit", v: o.$literal };
      }
    }
    return { k: "lit", v: val };
  }

  /** Conditions: one grammar for a row's `when`, a step's `if` and an input wrapper's `when`. */
  function conditionParser(c: any, path: (string | number)[], on: {
    allowState: boolean;
    hasRole: (r: Role) => boolean;
    subject: (key: string, p: (string | number)[]) => { expr: Expr; enumVals?: string[] };
    value: (x: unknown, p: (string | number)[]) => Expr;
  }): Cond[] {
    const out: Cond[] = [];
    for (const [key, val] of Object.entries<any>(c ?? {})) {
      const p = [...path, key];
      if (key === "$if") {
        // Conditions on computed values: [{ value: EXPR, equals | in | not | exists | sameAs | atLeast }]
        if (!Array.isArray(val)) { ds.push(src.diag(p, "E235", `$if takes a list of { value: EXPR, equals | in | not | exists | sameAs | atLeast }`)); continue; }
        val.forEach((t: any, ti: number) => {
          const tp = [...p, ti];
          const tests = ["equals", "in", "not", "exists", "sameAs", "atLeast"].filter((k) => t && typeof t === "object" && k in t);
          if (!t || typeof t !== "object" || !("value" in t) || tests.length !== 1 || Object.keys(t).length !== 2) { ds.push(src.diag(tp, "E235", `a $if entry is { value: EXPR } plus exactly one of equals, in, not, exists, sameAs, atLeast`)); return; }
          if (tests[0] === "atLeast" && (typeof t.atLeast !== "number" || !Number.isFinite(t.atLeast))) { ds.push(src.diag([...tp, "atLeast"], "E235", `atLeast takes a number`)); return; }
          const e = on.value(t.value, [...tp, "value"]);
          if (tests[0] === "equals") out.push({ k: "eq", path: e, value: t.equals });
          else if (tests[0] === "not") out.push({ k: "not", path: e, value: t.not });
          else if (tests[0] === "in") out.push({ k: "in", path: e, values: Array.isArray(t.in) ? t.in : [t.in] });
          else if (tests[0] === "sameAs") out.push({ k: "same", path: e, other: on.value(t.sameAs, [...tp, "sameAs"]) });
          else if (tests[0] === "atLeast") out.push({ k: "atLeast", path: e, min: t.atLeast });
          else out.push({ k: "exists", path: e, exists: !!t.exists });
        });
        continue;
      }
      if (key === "new" || key === "open" || key === "notOpen" || key === "stale" || key === "notStale") {
        // (the DSL schema already checks that the value is a role)
        if (!on.allowState) { ds.push(src.diag(p, "E230", `"${key}" is a runtime-state condition: use it in a step's "if", not in "when"`, true)); continue; }
        if (!on.hasRole(val)) ds.push(src.diag(p, "E232", `"${key}: ${val}" needs the row to declare ids.${val}`));
        out.push({ k: "state", test: key, role: val });
        continue;
      }
      // `$name` / `$path` keys test a value expression (a named value, an each variable, a field) the same way
      const { expr, enumVals } = key.startsWith("$") ? { expr: on.value(key, p), enumVals: undefined } : on.subject(key, p);
      const checkValue = (x: unknown, vp: (string | number)[]) => {
        if (enumVals && typeof x === "string" && !enumVals.includes(x)) ds.push(src.diag(vp, "E233", `"${x}" is not a value of ${key} upstream (${enumVals.join(", ")})${didYouMean(x, enumVals)}`));
      };
      if (val && typeof val === "object" && !Array.isArray(val)) {
        const ks = Object.keys(val);
        if (ks.length !== 1 || !["in", "exists", "not", "sameAs", "atLeast"].includes(ks[0]) || (ks[0] === "atLeast" && (typeof val.atLeast !== "number" || !Number.isFinite(val.atLeast)))) { ds.push(src.diag(p, "E234", `a condition is a value, {in: [...]}, {exists: true|false}, {not: value}, {sameAs: EXPR} or {atLeast: NUMBER}`)); continue; }
        if (ks[0] === "in") { (val.in as unknown[]).forEach((x, i) => checkValue(x, [...p, "in", i])); out.push({ k: "in", path: expr, values: val.in }); }
        else if (ks[0] === "exists") out.push({ k: "exists", path: expr, exists: !!val.exists });
        else if (ks[0] === "sameAs") out.push({ k: "same", path: expr, other: on.value(val.sameAs, [...p, "sameAs"]) });
        else if (ks[0] === "atLeast") out.push({ k: "atLeast", path: expr, min: val.atLeast });
        else { checkValue(val.not, [...p, "not"]); out.push({ k: "not", path: expr, value: val.not }); }
      } else {
        checkValue(val, p);
        out.push({ k: "eq", path: expr, value: val });
      }
    }
    return out;
  }
  return { exprParser, conditionParser };
}
