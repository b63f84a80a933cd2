/**
 * Table stage, per row: one row of a mapping table (generator/dsl.ts `Row`) → its RowIR, every path checked against
 * the pinned upstream schema of each method the row matches, payloads against the canonical model. Problems become
 * Diagnostics; nothing here throws for user errors.
 */
import { didYouMean, type Diagnostic, type SourcedYaml } from "./diagnostics.ts";
import type { CanonicalModel } from "./canonical.ts";
import { checkVarName, type ExprParser, type ConditionParser } from "./expressions.ts";
import type { Cond, Expr, ExampleIR, IdIR, KindIR, LetIR, MapIR, Op, Role, RowIR, SnapIR, StepIR, TableContext } from "./ir.ts";
import { ANY, ANSWERS, enumValues, methodPatternProblems, resolvePath, variants, type Kind, type SchemaRef, type UpstreamMethod, type UpstreamSchemas } from "./upstream.ts";

/** What parsing a row needs from its table (the table stage builds it once). */
export interface TableEnv {
  src: SourcedYaml;
  ds: Diagnostic[];
  cx: TableContext;
  /** The table as written (already checked against the DSL schema). */
  v: any;
  tagged: boolean;
  kinds: KindIR[];
  kindSet: Set<Kind>;
  methodMaps: Map<Kind, Map<string, UpstreamMethod>>;
  up: UpstreamSchemas;
  mapByName: Map<string, MapIR>;
  rules: Map<string, number>;
  claim: (kind: Kind, method: string, path: (string | number)[], what: string, whenless: boolean, versions?: string[]) => void;
  dispatchTargets: { method: string; path: (string | number)[] }[];
  defaults: any;
  /** Where parsed rows go. */
  rows: RowIR[];
  exprParser: ExprParser;
  conditionParser: ConditionParser;
  /** The pinned versions a `versions:` range selects (undefined: every version); reports E215/E216. */
  versionsOf: (range: unknown, path: (string | number)[]) => string[] | undefined;
  /** Does the method exist at one of these versions (always, for a table pinning one version)? */
  existsAt: (kind: Kind, method: string, versions: string[] | undefined) => boolean;
}

export function parseRow(r: any, ri: number, tx: TableEnv): void {
  const { src, ds, cx, v, tagged, kinds, kindSet, methodMaps, up, mapByName, rules, claim, dispatchTargets, defaults, rows, exprParser, conditionParser, versionsOf, existsAt } = tx;
  const at = (...p: (string | number)[]) => ["rows", ri, ...p];
  const kind: Kind = r.kind ?? defaults.kind ?? (tagged ? kinds[0]?.kind : "notification");
  if (!kindSet.has(kind)) {
    ds.push(src.diag(r.kind !== undefined ? at("kind") : ["defaults", "kind"], "E211", `kind "${kind}" is not declared under upstream.kinds`));
    return;
  }
  if (rules.has(r.rule)) ds.push(src.diag(at("rule"), "E212", `rule "${r.rule}" is already used at line ${rules.get(r.rule)}`));
  rules.set(r.rule, src.pos(at()).line);
  const methods: string[] = Array.isArray(r.match) ? r.match : [r.match];
  const versions = versionsOf(r.versions, at("versions"));
  const answered = tagged ? undefined : ANSWERS[kind];
  const lookupKind = answered ?? kind;
  const known = methodMaps.get(lookupKind);
  const schemas: { method: string; root: RootResolver }[] = [];
  methods.forEach((method, mi) => {
    const mpath = Array.isArray(r.match) ? at("match", mi) : at("match");
    if (method.includes("*")) {
      // A pattern (`prefix*`): methods no exact row or ignore entry names; their fields are not in a schema.
      for (const problem of methodPatternProblems(method, tagged)) ds.push(src.diag(mpath, "E213", problem));
      const roots = answered ? ["request", "result", "error", "id", "msg"] : ["params", "id", "method", "msg"];
      schemas.push({ method, root: (seg) => (roots.includes(seg) ? { refs: [ANY], required: false } : undefined) });
      return;
    }
    const um = known?.get(method);
    if (known && !um) {
      ds.push(src.diag(mpath, "E214", `${lookupKind} method "${method}" does not exist in the upstream schema ${v.upstream.package}@${v.upstream.version}${didYouMean(method, known.keys())}`));
      return;
    }
    if (!existsAt(lookupKind, method, versions)) {
      ds.push(src.diag(mpath, "E214", `${lookupKind} method "${method}" does not exist at the versions this row applies to (${versions!.join(", ")})`));
      return;
    }
    if (!answered) claim(kind, method, mpath, "mapped", !r.when, versions);
    schemas.push({ method, root: rootResolver(kind, um, um?.up ?? up, tagged) });
  });

  // The row's identities: the table's defaults (in their order), replaced role by role by the row's own
  // (`none` drops a default), then the row's other roles in its order.
  const dIds: Record<string, unknown> = defaults.ids ?? {};
  const idSpecs: [Role, any, (string | number)[]][] = [];
  for (const [role, spec] of Object.entries(dIds)) {
    const own = r.ids?.[role];
    if (own === "none") continue;
    idSpecs.push(own !== undefined ? [role as Role, own, at("ids", role)] : [role as Role, spec, ["defaults", "ids", role]]);
  }
  for (const [role, spec] of Object.entries<any>(r.ids ?? {})) if (!(role in dIds) && spec !== "none") idSpecs.push([role as Role, spec, at("ids", role)]);
  const declared = new Set(idSpecs.map(([role]) => role));

  // Path checking against every method's schema, plus scope variables (each).
  const checkPath = (expr: Expr & { k: "path" }, path: (string | number)[], scope: Map<string, SchemaRef[]>): { required: boolean; targets: SchemaRef[] } => {
    let required = true;
    const targets: SchemaRef[] = [];
    if (scope.has(expr.root)) {
      for (const t of scope.get(expr.root)!) {
        const res = resolvePath(t, expr.segs);
        if (!res.ok) {
          ds.push(src.diag(path, "E220", `field "${[expr.root, ...expr.segs.slice(0, res.failedAt! + 1)].join(".")}" does not exist in the upstream schema${didYouMean(expr.segs[res.failedAt!], res.known ?? [])}${hint(res.known)}`));
          return { required: false, targets: [] };
        }
        required &&= res.required;
        targets.push(...res.targets);
      }
      return { required, targets };
    }
    for (const s of schemas) {
      const rooted = s.root(expr.root);
      if (!rooted) {
        ds.push(src.diag(path, "E221", `"${expr.root}" is not a field of a ${kind} message (${s.method})${kind === "response" || kind === "clientResponse" ? "; use result, error, id, request or msg" : "; roots are the message's own keys, msg, or an each variable"}`));
        return { required: false, targets: [] };
      }
      // The root itself may be optional (a top-level field the upstream schema doesn't require).
      required &&= rooted.required;
      for (const root of rooted.refs) {
        const res = resolvePath(root, expr.segs);
        if (!res.ok) {
          const full = [expr.root, ...expr.segs.slice(0, res.failedAt! + 1)].join(".");
          ds.push(src.diag(path, "E220", `field "${full}" does not exist in the upstream schema of ${kind} ${s.method}${didYouMean(expr.segs[res.failedAt!], res.known ?? [])}${hint(res.known)}`));
          return { required: false, targets: [] };
        }
        required &&= res.required;
        targets.push(...res.targets);
      }
    }
    return { required, targets };
  };

  // `request` names the correlated JSON-RPC request only in JSON-RPC tables; elsewhere it is a message field.
  const mkPath = (segs: string[]): Expr & { k: "path" } =>
    tagged && segs[0] === "request" ? { k: "path", root: "msg", segs } : { k: "path", root: segs[0], segs: segs.slice(1) };
  // Named values (`let:`) read so far, by name (an unread one is E249).
  const readNames = new Set<string>();
  const subjectOf = (key: string, p: (string | number)[], scope: Map<string, SchemaRef[]>) => {
    const pathExpr = mkPath(key.split("."));
    const res = checkPath(pathExpr, p, scope);
    if (scope.has(pathExpr.root)) readNames.add(pathExpr.root);
    return { expr: pathExpr, enumVals: res.targets.length ? enumValues(res.targets) : undefined };
  };
  const parseExpr = (val: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>): Expr => exprParser(val, path, scope, {
    path: (segs, p, sc) => { const e = mkPath(segs); checkPath(e, p, sc); if (sc.has(e.root)) readNames.add(e.root); return e; },
    hasRole: (role) => declared.has(role),
    subject: subjectOf,
    taken: takenName,
  });

  /** A variable's key (`set`, `hold`): its first part is the variable's name (E266). */
  const varKeyOf = (key: Expr[], p: (string | number)[]): Expr[] => { checkVarName(key, p, src, ds); return key; };

  /** Names a `let` may not take: the message's own roots and the positions' fixed ones. */
  const RESERVED = new Set(["msg", "meta", "line", "request", "capture", "if", "then", "else"]);
  // (a key an open message merely allows, undeclared, is not taken: the name is read first)
  function takenName(name: string): boolean { return RESERVED.has(name) || schemas.some((sc) => sc.root(name)?.refs.some((x) => x !== ANY)); }
  /** A `let:` block: its names (identifiers, new where they stand: E247), each parsed with the ones before it in scope. */
  const parseLets = (block: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>): { lets: LetIR[]; inner: Map<string, SchemaRef[]> } => {
    const inner = new Map(scope);
    const lets: LetIR[] = [];
    if (block === undefined) return { lets, inner };
    if (!block || typeof block !== "object" || Array.isArray(block)) { ds.push(src.diag(path, "E247", `let takes named values: { NAME: EXPR, … }`)); return { lets, inner }; }
    for (const [name, val] of Object.entries(block)) {
      const p = [...path, name];
      const shadows = inner.has(name) || takenName(name);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) ds.push(src.diag(p, "E247", `"${name}" is not a name for a value: letters, digits and _ (not first a digit)`, true));
      else if (shadows) ds.push(src.diag(p, "E247", `"${name}" is already a name here (a field of the message, an each variable, another let, or one of ${[...RESERVED].join(", ")}): choose another`, true));
      lets.push({ name, value: parseExpr(val, p, inner) });
      inner.set(name, [ANY]);
    }
    return { lets, inner };
  };
  /** Every named value of `lets` is read somewhere in its scope (E249). */
  const checkRead = (lets: LetIR[], path: (string | number)[]) => {
    for (const l of lets) if (!readNames.has(l.name)) ds.push(src.diag([...path, l.name], "E249", `named value "${l.name}" is never read (read it as $${l.name}, or remove it)`, true));
  };

  const parseConds = (c: any, path: (string | number)[], allowState: boolean, scope: Map<string, SchemaRef[]>): Cond[] =>
    conditionParser(c, path, {
      allowState,
      hasRole: (role) => declared.has(role),
      subject: (key, p) => subjectOf(key, p, scope),
      // a row's `when` runs before its ids are resolved: $id / $state have nothing to read there
      value: (x, p) => (allowState ? parseExpr(x, p, scope) : exprParser(x, p, scope, {
        path: (segs, pp, sc) => { const e = mkPath(segs); checkPath(e, pp, sc); return e; },
        hasRole: (role) => declared.has(role),
        beforeIds: true,
        subject: subjectOf,
        taken: takenName,
      })),
    });

  for (const key of Object.keys(r.when ?? {})) {
    const name = key.startsWith("$") ? key.slice(1).split(".")[0] : undefined;
    if (name !== undefined && r.let && typeof r.let === "object" && Object.hasOwn(r.let, name)) ds.push(src.diag(at("when", key), "E248", `"$${name}" is a named value of the row, computed after its identities: a row's "when" runs before them (test the expression itself)`, true));
  }
  const when = parseConds(r.when, at("when"), false, new Map());

  const ids: IdIR[] = [];
  for (const [role, spec, p] of idSpecs) {
    const s = typeof spec === "string" ? { path: spec } : spec;
    const op: Op = s.op ?? "use";
    const pathless = op === "current" || op === "closeCurrent" || op === "mint";
    if (pathless && s.path) ds.push(src.diag(p, "E240", `op "${op}" takes no path`));
    if (s.value !== undefined && s.path) ds.push(src.diag(p, "E244", `give either "path" or "value", not both`));
    if (!pathless && !s.path && s.value === undefined) ds.push(src.diag(p, "E241", `op "${op}" needs a path`));
    if (s.space && role !== "request") ds.push(src.diag(p, "E242", `"space" only applies to the request role`));
    let path: Expr | undefined;
    let required = false;
    let field: string | undefined;
    if (s.path) {
      // A list of paths is a fallback chain: the first one present.
      const list: string[] = Array.isArray(s.path) ? s.path : [s.path];
      const exprs = list.map((x, xi) => {
        const e = mkPath(String(x).split("."));
        const res = checkPath(e, typeof spec === "string" ? p : Array.isArray(s.path) ? [...p, "path", xi] : [...p, "path"], new Map());
        return { e, required: res.required };
      });
      required = exprs.some((x) => x.required);
      path = exprs.length === 1 ? exprs[0].e : { k: "first", items: exprs.map((x) => x.e) };
      field = list.join("|");
    } else if (s.value !== undefined) {
      path = parseExpr(s.value, [...p, "value"], new Map());
      field = `${role} (value)`;
    }
    const space = s.space ?? (role === "request" ? (kind === "clientRequest" || kind === "clientResponse" ? "client" : "server") : undefined);
    if (s.scope === "turn" && !ids.some((i) => i.role === "turn")) ds.push(src.diag(p, "E243", `scope: turn needs ids.turn declared before ids.${role}`));
    ids.push({ role, op, path, field, required, space, scope: s.scope });
  }
  const opOf = (role: Role): Op | undefined => ids.find((i) => i.role === role)?.op;

  function parseSnap(s: any, p: (string | number)[], scope: Map<string, SchemaRef[]>): SnapIR {
    if ((s.text === undefined) === (s.parts === undefined)) ds.push(src.diag(p, "E265", `a snapshot gives exactly one of "text" (one text) or "parts" (a list of texts)`));
    if (!cx.canonical.enums.ContentStreamKind.includes(s.stream)) ds.push(src.diag([...p, "stream"], "E260", `unknown ContentStreamKind "${s.stream}"${didYouMean(s.stream, cx.canonical.enums.ContentStreamKind)}`));
    if (!ids.some((i) => i.role === "item")) ds.push(src.diag(p, "E261", `a snapshot needs the row to declare ids.item`));
    return {
      stream: s.stream,
      text: s.text !== undefined ? parseExpr(s.text, [...p, "text"], scope) : undefined,
      parts: s.parts !== undefined ? parseExpr(s.parts, [...p, "parts"], scope) : undefined,
    };
  }

  const STEP_FORMS = ["emit", "snapshot", "set", "closeOpen", "dispatch", "each", "upstreamVersion"] as const;
  const parseSteps = (list: any[], path: (string | number)[], outer: Map<string, SchemaRef[]>): StepIR[] =>
    list.flatMap((st: any, i: number): StepIR[] => {
      const p = [...path, i];
      const forms = STEP_FORMS.filter((f) => st && typeof st === "object" && f in st);
      if (forms.length !== 1) { ds.push(src.diag(p, "E282", `a step is exactly one of ${STEP_FORMS.join(", ")}${forms.length ? ` (this one has ${forms.join(" and ")})` : ""}`)); return []; }
      if (st.let === undefined) return parseStep(st, forms[0], p, outer, outer);
      // A step's named values are computed once its condition holds: its `if` reads the outer scope only (E248).
      const { lets, inner } = parseLets(st.let, [...p, "let"], outer);
      for (const key of Object.keys(st.if ?? {})) {
        const name = key.startsWith("$") ? key.slice(1).split(".")[0] : undefined;
        if (name !== undefined && lets.some((l) => l.name === name)) ds.push(src.diag([...p, "if", key], "E248", `"$${name}" is this step's named value, computed after its "if" holds: test the expression itself, or name it in the row's let`, true));
      }
      const out = parseStep(st, forms[0], p, inner, outer);
      checkRead(lets, [...p, "let"]);
      return out.map((x) => ({ ...x, lets }));
    });
  const parseStep = (st: any, form: (typeof STEP_FORMS)[number], p: (string | number)[], scope: Map<string, SchemaRef[]>, condScope: Map<string, SchemaRef[]>): StepIR[] => {
      switch (form) {
        case "emit": {
          const type = st.emit;
          if (!cx.canonical.eventTypes.includes(type)) ds.push(src.diag([...p, "emit"], "E250", `unknown canonical event type "${type}"${didYouMean(type, cx.canonical.eventTypes)}`));
          let payload = parseExpr(st.payload ?? {}, [...p, "payload"], scope);
          if (cx.canonical.eventTypes.includes(type)) { checkPayload(type, payload, [...p, "payload"]); payload = narrowVars(type, payload); }
          const guard = st.guard === "none" ? [] : lifecycleGuard(cx.canonical, type, opOf);
          return [{ k: "emit", type, cond: [...guard, ...parseConds(st.if, [...p, "if"], true, condScope)], payload, line: src.pos(p).line }];
        }
        case "snapshot":
          return [{ k: "snapshot", snap: parseSnap(st.snapshot, [...p, "snapshot"], scope), cond: parseConds(st.if, [...p, "if"], true, condScope) }];
        case "set":
          return [{
            k: "set",
            key: varKeyOf((st.set as unknown[]).map((k, ki) => parseExpr(k, [...p, "set", ki], scope)), [...p, "set", 0]),
            value: parseExpr(st.value, [...p, "value"], scope),
            cond: parseConds(st.if, [...p, "if"], true, condScope),
          }];
        case "upstreamVersion":
          return [{ k: "upstreamVersion", value: parseExpr(st.upstreamVersion, [...p, "upstreamVersion"], scope), cond: parseConds(st.if, [...p, "if"], true, condScope) }];
        case "closeOpen":
          if (!ids.some((x) => x.role === "turn")) ds.push(src.diag([...p, "closeOpen"], "E263", `closeOpen needs the row to declare ids.turn (the turn whose open items it completes)`));
          (st.closeOpen.completes ?? []).forEach((t: string, ti: number) => {
            if (!cx.canonical.enums.CanonicalItemType.includes(t)) ds.push(src.diag([...p, "closeOpen", "completes", ti], "E264", `"${t}" is not a canonical item type${didYouMean(t, cx.canonical.enums.CanonicalItemType)}`));
          });
          return [{ k: "closeOpen", ...st.closeOpen }];
        case "dispatch": {
          const message = parseExpr(st.dispatch, [...p, "dispatch"], scope);
          // A dispatched JSON-RPC notification written out ({method: "x", params}) must land on a row of this table.
          const m = message.k === "obj" ? message.entries.find(([k]) => k === "method")?.[1] : undefined;
          const method = m?.k === "lit" && typeof m.v === "string" ? m.v : undefined;
          // A clientRequest row may dispatch a message of its own kind and method again (the client's request, re-fed
          // after the row ended what it replaces): it keeps the row's direction.
          const again = kind === "clientRequest" && methods.includes(method ?? "");
          if (method !== undefined && !tagged && st.surface === undefined && !again) {
            const nm = methodMaps.get("notification");
            if (nm && !nm.has(method)) ds.push(src.diag([...p, "dispatch", "method"], "E272", `dispatched method "${method}" is not a notification of the upstream schema${didYouMean(method, nm.keys())}`));
            dispatchTargets.push({ method, path: [...p, "dispatch", "method"] });
          }
          return [{ k: "dispatch", message, surface: st.surface, raw: st.raw ?? "dispatched", line: src.pos(p).line }];
        }
        case "each": {
          const eachExpr = parseExpr(st.each, [...p, "each"], scope);
          let itemTargets: SchemaRef[] = [ANY];
          if (eachExpr.k === "path") {
            const res = scope.has(eachExpr.root)
              ? scope.get(eachExpr.root)!.map((t) => resolvePath(t, eachExpr.segs)).flatMap((x) => x.targets)
              : schemas.flatMap((s) => (s.root(eachExpr.root)?.refs ?? []).map((t) => resolvePath(t, eachExpr.segs)).flatMap((x) => x.targets));
            const items = res.flatMap((t) => variants(t)).filter((t) => t.node?.items).map((t) => ({ ...t, node: t.node.items }));
            const unchecked = res.length > 0 && res.every((t) => t.node && typeof t.node === "object" && Object.keys(t.node).length === 0);
            if (unchecked) items.push(ANY);
            if (res.length && !items.length) ds.push(src.diag([...p, "each"], "E270", `"${st.each}" is not an array in the upstream schema`));
            if (items.length) itemTargets = items;
          } else if (eachExpr.k !== "helper" && eachExpr.k !== "var") ds.push(src.diag([...p, "each"], "E271", `"each" takes a path, a $helper or a $var (a list)`));
          const inner = new Map(scope);
          inner.set(st.as, itemTargets);
          if (st.index !== undefined) inner.set(st.index, [ANY]);
          return [{ k: "each", each: eachExpr, as: st.as, index: st.index, steps: parseSteps(st.steps ?? [], [...p, "steps"], inner) }];
        }
      }
  };
  // The row's named values: computed once its identities are resolved (so not in its `when`), before its steps.
  const rowLets = parseLets(r.let, at("let"), new Map());
  if (r.let !== undefined && r.hold) ds.push(src.diag(at("let"), "E281", `a hold row only holds: give it match, when and hold, nothing else`));
  const steps = parseSteps(r.steps ?? [], at("steps"), rowLets.inner);
  checkRead(rowLets.lets, at("let"));

  const hold = r.hold ? varKeyOf((r.hold as unknown[]).map((k, ki) => parseExpr(k, at("hold", ki), new Map())), at("hold", 0)) : undefined;
  if (hold && (r.steps || r.ids)) ds.push(src.diag(at("hold"), "E281", `a hold row only holds: give it match, when and hold, nothing else`));
  if (!hold && !steps.length) ds.push(src.diag(at(), "E280", `row "${r.rule}" does nothing: give it steps, or list the method under ignored`));

  const examples: ExampleIR[] = (r.examples ?? []).map((ex: any, xi: number) => {
    const p = at("examples", xi);
    ex.out.forEach((o: any, oi: number) => {
      if (!cx.canonical.eventTypes.includes(o.type)) ds.push(src.diag([...p, "out", oi, "type"], "E290", `unknown canonical event type "${o.type}"${didYouMean(o.type, cx.canonical.eventTypes)}`));
    });
    return { name: ex.name ?? `${r.rule} #${xi + 1}`, line: src.pos(p).line, given: ex.given ?? [], input: ex.in, out: ex.out };
  });
  if (!examples.length) ds.push(src.diag(at("rule"), "E291", `row "${r.rule}" has no examples`));

  rows.push({ rule: r.rule, kind, methods, line: src.pos(at()).line, description: r.description, when, ids, steps, examples, hold, ...(rowLets.lets.length ? { lets: rowLets.lets } : {}), ...(versions ? { versions } : {}) });

  function checkPayload(type: string, payload: Expr, path: (string | number)[]): void {
    let schema = cx.canonical.payloads[type];
    if (schema.$ref) schema = cx.canonical.defs[schema.$ref.split("/").pop()];
    if (payload.k !== "obj") { ds.push(src.diag(path, "E251", `payload must be an object`)); return; }
    const props = schema.properties ?? {};
    const keys = new Set(payload.entries.map(([k]) => k));
    for (const [k, e] of payload.entries) {
      if (!(k in props)) { ds.push(src.diag([...path, k], "E252", `"${k}" is not a field of the ${type} payload (fields: ${Object.keys(props).join(", ")})${didYouMean(k, Object.keys(props))}`, true)); continue; }
      if (e.k === "map" && mapByName.has(e.name) && (schema.required ?? []).includes(k) && e.def === undefined && mapByName.get(e.name)?.def === undefined) {
        ds.push(src.diag([...path, k], "E256", `"${k}" is required in the ${type} payload, but map "${e.name}" has no default: an unmapped upstream value would leave it empty (give the map or this use a default)`));
      }
      const allowed = allowedValues(props[k]);
      if (!allowed) continue;
      if (e.k === "lit" && typeof e.v === "string" && !allowed.includes(e.v)) ds.push(src.diag([...path, k], "E253", `"${e.v}" is not a valid ${type} ${k} (${allowed.join(", ")})${didYouMean(e.v, allowed)}`));
      if (e.k === "map") {
        const m = mapByName.get(e.name);
        if (m) {
          for (const [from, to] of Object.entries(m.values)) if (!allowed.includes(String(to))) ds.push(src.diag(["maps", e.name, "values", from], "E254", `map "${e.name}" gives "${to}", which is not a valid ${type} ${k} (${allowed.join(", ")})`));
          const d = e.def ?? m.def;
          if (d !== undefined && !allowed.includes(String(d))) ds.push(src.diag([...path, k], "E254", `default "${d}" is not a valid ${type} ${k}`));
        }
      }
    }
    for (const req of schema.required ?? []) if (!keys.has(req)) ds.push(src.diag(path, "E255", `the ${type} payload requires "${req}"`));
  }

  /**
   * A session variable's value has no type (the record's slots hold unknown): read straight into a string field of
   * the payload (itself, or an item of a `$first`), it is narrowed as `$string` does (a string as is, else absent).
   */
  function narrowVars(type: string, payload: Expr): Expr {
    let schema = cx.canonical.payloads[type];
    if (schema.$ref) schema = cx.canonical.defs[schema.$ref.split("/").pop()];
    if (payload.k !== "obj") return payload;
    const props = schema.properties ?? {};
    const isString = (f: any): boolean => {
      if (typeof f?.$ref === "string") return f.$ref.startsWith("#/enums/");
      const ts = (Array.isArray(f?.type) ? f.type : [f?.type]).filter((t: unknown) => t !== "null");
      return ts.length === 1 && ts[0] === "string";
    };
    const narrow = (e: Expr): Expr => (e.k === "var" ? { k: "string", of: e } : e.k === "first" ? { ...e, items: e.items.map(narrow) } : e);
    return { k: "obj", entries: payload.entries.map(([k, e]) => [k, isString(props[k]) ? narrow(e) : e]) };
  }

  function allowedValues(s: any): string[] | undefined {
    if (s?.$ref) {
      const [, section, name] = /^#\/(enums|defs|ids)\/(.+)$/.exec(s.$ref) ?? [];
      return section === "enums" ? cx.canonical.enums[name] : undefined;
    }
    return Array.isArray(s?.enum) ? s.enum : undefined;
  }
}

/** Whether `segs` is a field of at least one message the table's kinds declare (a table-wide path, e.g. `time`). */
export function fieldOfSomeMessage(segs: string[], methodMaps: Map<Kind, Map<string, UpstreamMethod>>, up: UpstreamSchemas, tagged: boolean): boolean {
  for (const [kind, methods] of methodMaps) {
    if (!tagged && ANSWERS[kind]) continue;
    for (const um of methods.values()) {
      const rooted = rootResolver(kind, um, um.up ?? up, tagged)(segs[0]);
      if (rooted?.refs.some((r) => resolvePath(r, segs.slice(1)).ok)) return true;
    }
  }
  return false;
}

function hint(known?: string[]): string {
  return known && known.length ? `; known here: ${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""}` : "";
}

/** Root schemas of a message of `kind` for a path's first segment. */
/** The schemas a path's first segment lands on, and whether that top-level field is always present. */
type RootResolver = (seg: string) => { refs: SchemaRef[]; required: boolean } | undefined;

function rootResolver(kind: Kind, um: UpstreamMethod | undefined, up: UpstreamSchemas, tagged = false): RootResolver {
  if (!um) return () => ({ refs: [ANY], required: false });
  const msg = um.message;
  const own = (seg: string): { refs: SchemaRef[]; required: boolean } | undefined => {
    const props = msg.node?.properties ?? {};
    if (!Object.hasOwn(props, seg)) return undefined;
    const node = props[seg];
    const nullable = node?.type === "null" || (Array.isArray(node?.type) && node.type.includes("null")) || (node?.anyOf ?? node?.oneOf ?? []).some((a: any) => a?.type === "null");
    return { refs: [{ ...msg, node }], required: (msg.node?.required ?? []).includes(seg) && !nullable };
  };
  if (tagged) {
    return (seg) => {
      if (seg === "msg") return { refs: [msg], required: true };
      if (seg === "meta" || seg === "line") return { refs: [ANY], required: false }; // the input wrapper's fields, and the whole input line
      // additionalProperties: true members (fields not published upstream) accept any key
      return own(seg) ?? (msg.node?.additionalProperties === true ? { refs: [ANY], required: false } : undefined);
    };
  }
  if (kind === "response" || kind === "clientResponse") {
    const result = up.responseSchema(um.paramsRefName) ?? ANY;
    const error: SchemaRef = { file: "(jsonrpc)", doc: {}, node: { type: "object", properties: { code: { type: "integer" }, message: { type: "string" }, data: {} }, required: ["code", "message"] } };
    const whole: SchemaRef = { file: "(jsonrpc)", doc: {}, node: { type: "object", properties: { id: {}, result: {}, error: error.node } } };
    const table: Record<string, { refs: SchemaRef[]; required: boolean }> = {
      result: { refs: [result], required: false }, error: { refs: [error], required: false }, id: { refs: [ANY], required: true },
      request: { refs: [msg], required: true }, msg: { refs: [whole], required: true },
    };
    return (seg) => table[seg];
  }
  return (seg) => (seg === "msg" ? { refs: [msg], required: true } : own(seg));
}

/**
 * The default guard of an emitted event type: the runtime-state conditions the canonical lifecycle
 * (canonical.yaml `lifecycle.*.guards`) gives it, for the op the row applies to the entity's role. None when the row
 * does not declare that role, or when the condition always holds (an entity a row mints is new).
 */
export function lifecycleGuard(model: CanonicalModel, type: string, opOf: (role: Role) => Op | undefined): Cond[] {
  for (const l of Object.values(model.lifecycle)) {
    const g = l.guards[type];
    if (!g) continue;
    const role = l.role as Role;
    const op = opOf(role);
    if (op === undefined) return [];
    if (g === "open") return [{ k: "state", test: "open", role }];
    if (g === "notStale") return op === "mint" ? [] : [{ k: "state", test: "notStale", role }];
    if (op === "mint") return [];
    return op === "open" ? [{ k: "state", test: "new", role }] : [{ k: "state", test: "notOpen", role }, { k: "state", test: "notStale", role }];
  }
  return [];
}

