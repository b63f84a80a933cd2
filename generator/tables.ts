/**
 * Table stage: mappings/<surface>.yaml → validated, resolved IR (TableIR).
 * Checks the table against its own schema (schemas/mapping-dsl.schema.json), the canonical model and the
 * pinned upstream schema. Every problem becomes a Diagnostic with file:line:col; nothing here throws for
 * user errors.
 */
import { Ajv } from "ajv";
import { SourcedYaml, didYouMean, type Diagnostic } from "./diagnostics.ts";
import type { CanonicalModel } from "./canonical.ts";
import {
  ANY, ANSWERS, UpstreamSchemas, enumValues, isMethodPattern, resolvePath, variants,
  type Kind, type SchemaRef, type UpstreamMethod,
} from "./upstream.ts";

export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";
export type Op = "use" | "open" | "close" | "current" | "closeCurrent" | "mint";

export type Expr =
  | { k: "path"; root: string; segs: string[] }
  | { k: "lit"; v: unknown }
  | { k: "map"; name: string; from: Expr; def?: unknown }
  | { k: "helper"; name: string; args: Expr[] }
  | { k: "first"; items: Expr[] }
  | { k: "state"; role: Role; field: string }
  | { k: "obj"; entries: [string, Expr][] }
  | { k: "arr"; items: Expr[] }
  | { k: "var"; key: Expr[] }
  | { k: "id"; role: Role }
  | { k: "join"; items: Expr[] };

export type Cond =
  | { k: "eq"; path: Expr; value: unknown }
  | { k: "in"; path: Expr; values: unknown[] }
  | { k: "exists"; path: Expr; exists: boolean }
  | { k: "not"; path: Expr; value: unknown }
  | { k: "state"; test: "new" | "open" | "notOpen" | "stale" | "notStale"; role: Role };

export interface IdIR { role: Role; op: Op; path?: Expr; field?: string; required: boolean; space?: "server" | "client"; scope?: "turn" }
export interface SnapIR { stream: string; text?: Expr; parts?: Expr }
/** A row's steps, run in order. */
export type StepIR =
  | { k: "emit"; type: string; cond: Cond[]; payload: Expr; line: number }
  | { k: "snapshot"; snap: SnapIR; cond: Cond[] }
  | { k: "set"; key: Expr[]; value: Expr; cond: Cond[] }
  | { k: "closeOpen"; status: string; detail?: string; completes?: string[] }
  | { k: "dispatch"; message: Expr; surface?: string; raw: "dispatched" | "original"; line: number }
  | { k: "each"; each: Expr; as: string; index?: string; steps: StepIR[] };
export interface InputIR { name: string; when: Cond[]; message?: Expr; meta: [string, Expr][]; ignore?: string; line: number; kind?: string; type?: string }
export interface ExampleIR { name: string; line: number; given: unknown[]; input: unknown; out: { type: string; payload?: unknown; ids?: Role[] }[] }
export interface RowIR {
  rule: string; kind: Kind; methods: string[]; line: number; description?: string;
  when: Cond[]; ids: IdIR[]; steps: StepIR[]; examples: ExampleIR[];
  /** A hold row: the session variable the message waits for. */
  hold?: Expr[];
}
export interface IgnoredIR { id: string; kind: Kind; methods: string[]; reason: string; line: number }
export interface MapIR { name: string; values: Record<string, unknown>; def?: unknown; line: number }
/** `extraFiles`: method files of upstream.extensions for this kind (their folder, relative to the project root). */
export interface KindIR { kind: Kind; source: string; file?: string; tag: string; upstreamMethods?: string[]; extraFiles?: { dir: string; file: string; extension: string }[] }
export interface ExtensionIR { name: string; package: string; version: string; dir: string }
export interface TableIR {
  file: string; surface: string; provider: string; protocol: "jsonrpc" | "tagged";
  upstream: { package: string; version: string; dir: string; extensions?: ExtensionIR[] };
  kinds: KindIR[]; maps: MapIR[]; rows: RowIR[]; ignored: IgnoredIR[];
  /** tagged protocols: how to find the message inside an input line, tried in order. */
  input: InputIR[];
  nonJsonLines: "error" | "warning";
}

export interface TableContext {
  canonical: CanonicalModel;
  dslSchema: object;
  /** The helpers rows may call (`$helper`): name → accepted argument counts. */
  helpers: Map<string, { min: number; max: number }>;
  /** Where the helpers are (for messages). */
  helperFile: string;
  /** Filled with the helpers the tables call (the pipeline reports unused ones). */
  usedHelpers: Set<string>;
  /** Opens the upstream schema folder named by a table (relative to the project root). */
  upstream: (dir: string) => UpstreamSchemas | undefined;
}

const ROLES: Role[] = ["session", "thread", "turn", "item", "request", "task", "parent"];

export function loadTable(file: string, text: string, cx: TableContext): { table?: TableIR; diagnostics: Diagnostic[] } {
  const src = new SourcedYaml(file, text);
  const ds: Diagnostic[] = [...src.parseErrors];
  if (ds.length) return { diagnostics: ds };
  const v = src.value;

  // 1. Structure: the DSL's own schema.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile<any>(cx.dslSchema);
  if (!validate(v)) {
    for (const e of validate.errors ?? []) {
      const path = e.instancePath.split("/").slice(1).map((s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
      const extra = e.keyword === "additionalProperties" ? `: "${(e.params as any).additionalProperty}"` : e.keyword === "enum" ? `: ${JSON.stringify((e.params as any).allowedValues)}` : "";
      const where = path.length ? path.join(".") : "(top level)";
      ds.push(src.diag(e.keyword === "additionalProperties" ? [...path, (e.params as any).additionalProperty] : path, "E200", `${where} ${e.message}${extra}`, e.keyword === "additionalProperties"));
    }
    return { diagnostics: dedupe(ds) };
  }

  // 2. Upstream.
  const up = cx.upstream(v.upstream.dir);
  if (!up) {
    ds.push(src.diag(["upstream", "dir"], "E201", `upstream schema folder "${v.upstream.dir}" does not exist (run npm run schemas:sync)`));
    return { diagnostics: ds };
  }
  const kinds: KindIR[] = [];
  const methodMaps = new Map<Kind, Map<string, UpstreamMethod>>();
  const tagged = v.protocol === "tagged";
  for (const [k, spec] of Object.entries<any>(v.upstream.kinds)) {
    const kind = k as Kind;
    const tag: string = spec.tag ?? "method";
    if (tagged && !spec.tag) ds.push(src.diag(["upstream", "kinds", k], "E206", `a tagged protocol's kind needs "tag" (the field that names the message type)`));
    if (!tagged && !["notification", "request", "response", "clientRequest", "clientNotification", "clientResponse"].includes(k)) ds.push(src.diag(["upstream", "kinds", k], "E207", `"${k}" is not a JSON-RPC kind (notification, request, response, clientRequest, clientNotification, clientResponse)`, true));
    if (!cx.canonical.enums.RuntimeEventSource.includes(spec.source)) {
      ds.push(src.diag(["upstream", "kinds", k, "source"], "E202", `unknown raw source "${spec.source}"${didYouMean(spec.source, cx.canonical.enums.RuntimeEventSource)}`));
    }
    let upstreamMethods: string[] | undefined;
    if (spec.file) {
      if (!up.exists(spec.file)) {
        ds.push(src.diag(["upstream", "kinds", k, "file"], "E203", `upstream file "${spec.file}" not found in ${v.upstream.dir}`));
        continue;
      }
      const ms = up.methods(spec.file, tag);
      methodMaps.set(kind, ms);
      upstreamMethods = [...ms.keys()].sort();
    }
    kinds.push({ kind, source: spec.source, file: spec.file, tag, upstreamMethods });
  }
  // 2b. Extensions: more method files for declared kinds, from their own schema folder (e.g. a vendor's methods on
  // top of a standard protocol). Their methods join the kind's upstream set: they must be mapped or ignored too.
  const extensions: ExtensionIR[] = [];
  (v.upstream.extensions ?? []).forEach((x: any, xi: number) => {
    const xp = ["upstream", "extensions", xi];
    const xup = cx.upstream(x.dir);
    if (!xup) { ds.push(src.diag([...xp, "dir"], "E201", `upstream schema folder "${x.dir}" does not exist`)); return; }
    extensions.push({ name: x.name, package: x.package, version: x.version, dir: x.dir });
    for (const [k, spec] of Object.entries<any>(x.kinds)) {
      const kir = kinds.find((kk) => kk.kind === k);
      if (!kir) { ds.push(src.diag([...xp, "kinds", k], "E208", `extension kind "${k}" is not declared under upstream.kinds`)); continue; }
      if (!xup.exists(spec.file)) { ds.push(src.diag([...xp, "kinds", k, "file"], "E203", `upstream file "${spec.file}" not found in ${x.dir}`)); continue; }
      const ms = methodMaps.get(k as Kind) ?? new Map<string, UpstreamMethod>();
      for (const [m, um] of xup.methods(spec.file, kir.tag)) {
        if (ms.has(m)) { ds.push(src.diag([...xp, "kinds", k, "file"], "E209", `${k} method "${m}" of ${x.dir}/${spec.file} is already defined by another file of this kind`)); continue; }
        ms.set(m, um);
      }
      methodMaps.set(k as Kind, ms);
      kir.upstreamMethods = [...ms.keys()].sort();
      (kir.extraFiles ??= []).push({ dir: x.dir, file: spec.file, extension: x.name });
    }
  });
  const kindSet = new Set(kinds.map((k) => k.kind));
  for (const k of kinds) {
    const answered = tagged ? undefined : ANSWERS[k.kind];
    if (answered && !methodMaps.has(answered)) ds.push(src.diag(["upstream", "kinds", k.kind], "E204", `kind ${k.kind} answers ${answered}, which has no upstream file`));
  }

  // 3. Maps.
  const maps: MapIR[] = Object.entries<any>(v.maps ?? {}).map(([name, m]) => ({ name, values: m.values, def: m.default, line: src.pos(["maps", name]).line }));
  const mapByName = new Map(maps.map((m) => [m.name, m]));
  const usedMaps = new Set<string>();

  // 4. Rows.
  const rows: RowIR[] = [];
  const dispatchTargets: { method: string; path: (string | number)[] }[] = [];
  const usedHelpers = cx.usedHelpers;
  const rules = new Map<string, number>();
  const claimed = new Map<string, (string | number)[]>(); // kind:method → YAML path that claims it
  const claim = (kind: Kind, method: string, path: (string | number)[], what: string, whenless: boolean) => {
    const key = `${kind}:${method}`;
    const prev = claimed.get(key);
    if (prev && prev[0] === "ignored" && what === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is already ignored at line ${src.pos(prev).line}`));
    else if (prev && prev[0] === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is both ${what} and ignored at line ${src.pos(prev).line}`));
    else if (prev && what === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is ignored here but mapped at line ${src.pos(prev).line}`));
    if (!prev || whenless) claimed.set(key, path);
  };

  const defaults = v.defaults ?? {};
  v.rows.forEach((r: any, ri: number) => {
    const at = (...p: (string | number)[]) => ["rows", ri, ...p];
    const kind: Kind = r.kind ?? defaults.kind ?? (tagged ? kinds[0]?.kind : "notification");
    if (!kindSet.has(kind)) {
      ds.push(src.diag(r.kind !== undefined ? at("kind") : ["defaults", "kind"], "E211", `kind "${kind}" is not declared under upstream.kinds`));
      return;
    }
    if (rules.has(r.rule)) ds.push(src.diag(at("rule"), "E212", `rule "${r.rule}" is already used at line ${rules.get(r.rule)}`));
    rules.set(r.rule, src.pos(at()).line);
    const methods: string[] = Array.isArray(r.match) ? r.match : [r.match];
    const answered = tagged ? undefined : ANSWERS[kind];
    const lookupKind = answered ?? kind;
    const known = methodMaps.get(lookupKind);
    const schemas: { method: string; root: RootResolver }[] = [];
    methods.forEach((method, mi) => {
      const mpath = Array.isArray(r.match) ? at("match", mi) : at("match");
      if (method.includes("*")) {
        // A pattern (`prefix*`): methods no exact row or ignore entry names; their fields are not in a schema.
        if (!isMethodPattern(method) || method.indexOf("*") !== method.length - 1) ds.push(src.diag(mpath, "E213", `"${method}": a method pattern is a prefix followed by one "*" at the end (e.g. "cursor/*", "_*", "*")`));
        if (tagged) ds.push(src.diag(mpath, "E213", `method patterns are for JSON-RPC tables`));
        const roots = answered ? ["request", "result", "error", "id", "msg"] : ["params", "id", "method", "msg"];
        schemas.push({ method, root: (seg) => (roots.includes(seg) ? { refs: [ANY], required: false } : undefined) });
        return;
      }
      const um = known?.get(method);
      if (known && !um) {
        ds.push(src.diag(mpath, "E214", `${lookupKind} method "${method}" does not exist in the upstream schema ${v.upstream.package}@${v.upstream.version}${didYouMean(method, known.keys())}`));
        return;
      }
      if (!answered) claim(kind, method, mpath, "mapped", !r.when);
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
    const parseExpr = (val: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>): Expr => exprParser(val, path, scope, {
      path: (segs, p) => { const e = mkPath(segs); checkPath(e, p, scope); return e; },
      hasRole: (role) => declared.has(role),
    });

    const parseConds = (c: any, path: (string | number)[], allowState: boolean, scope: Map<string, SchemaRef[]>): Cond[] =>
      conditionParser(c, path, {
        allowState,
        hasRole: (role) => declared.has(role),
        subject: (key, p) => {
          const pathExpr = mkPath(key.split("."));
          const res = checkPath(pathExpr, p, scope);
          return { expr: pathExpr, enumVals: res.targets.length ? enumValues(res.targets) : undefined };
        },
        value: (x, p) => parseExpr(x, p, scope),
      });

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
      if (!cx.canonical.enums.ContentStreamKind.includes(s.stream)) ds.push(src.diag([...p, "stream"], "E260", `unknown ContentStreamKind "${s.stream}"${didYouMean(s.stream, cx.canonical.enums.ContentStreamKind)}`));
      if (!ids.some((i) => i.role === "item")) ds.push(src.diag(p, "E261", `a snapshot needs the row to declare ids.item`));
      return {
        stream: s.stream,
        text: s.text !== undefined ? parseExpr(s.text, [...p, "text"], scope) : undefined,
        parts: s.parts !== undefined ? parseExpr(s.parts, [...p, "parts"], scope) : undefined,
      };
    }

    const STEP_FORMS = ["emit", "snapshot", "set", "closeOpen", "dispatch", "each"] as const;
    const parseSteps = (list: any[], path: (string | number)[], scope: Map<string, SchemaRef[]>): StepIR[] =>
      list.flatMap((st: any, i: number): StepIR[] => {
        const p = [...path, i];
        const forms = STEP_FORMS.filter((f) => st && typeof st === "object" && f in st);
        if (forms.length !== 1) { ds.push(src.diag(p, "E282", `a step is exactly one of ${STEP_FORMS.join(", ")}${forms.length ? ` (this one has ${forms.join(" and ")})` : ""}`)); return []; }
        switch (forms[0]) {
          case "emit": {
            const type = st.emit;
            if (!cx.canonical.eventTypes.includes(type)) ds.push(src.diag([...p, "emit"], "E250", `unknown canonical event type "${type}"${didYouMean(type, cx.canonical.eventTypes)}`));
            const payload = parseExpr(st.payload ?? {}, [...p, "payload"], scope);
            if (cx.canonical.eventTypes.includes(type)) checkPayload(type, payload, [...p, "payload"]);
            const guard = st.guard === "none" ? [] : lifecycleGuard(cx.canonical, type, opOf);
            return [{ k: "emit", type, cond: [...guard, ...parseConds(st.if, [...p, "if"], true, scope)], payload, line: src.pos(p).line }];
          }
          case "snapshot":
            return [{ k: "snapshot", snap: parseSnap(st.snapshot, [...p, "snapshot"], scope), cond: parseConds(st.if, [...p, "if"], true, scope) }];
          case "set":
            return [{
              k: "set",
              key: (st.set as unknown[]).map((k, ki) => parseExpr(k, [...p, "set", ki], scope)),
              value: parseExpr(st.value, [...p, "value"], scope),
              cond: parseConds(st.if, [...p, "if"], true, scope),
            }];
          case "closeOpen":
            if (!ids.some((x) => x.role === "turn")) ds.push(src.diag([...p, "closeOpen"], "E263", `closeOpen needs the row to declare ids.turn (the turn whose open items it completes)`));
            (st.closeOpen.completes ?? []).forEach((t: string, ti: number) => {
              if (!cx.canonical.enums.CanonicalItemType.includes(t)) ds.push(src.diag([...p, "closeOpen", "completes", ti], "E264", `"${t}" is not a canonical item type${didYouMean(t, cx.canonical.enums.CanonicalItemType)}`));
            });
            return [{ k: "closeOpen", ...st.closeOpen }];
          case "dispatch": {
            if (st.surface !== undefined && typeof st.surface !== "string") ds.push(src.diag([...p, "surface"], "E274", `"surface" names a surface`));
            const message = parseExpr(st.dispatch, [...p, "dispatch"], scope);
            // A dispatched JSON-RPC notification written out ({method: "x", params}) must land on a row of this table.
            const m = message.k === "obj" ? message.entries.find(([k]) => k === "method")?.[1] : undefined;
            const method = m?.k === "lit" && typeof m.v === "string" ? m.v : undefined;
            if (method !== undefined && !tagged && st.surface === undefined) {
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
      });
    const steps = parseSteps(r.steps ?? [], at("steps"), new Map());

    const hold = r.hold ? (r.hold as unknown[]).map((k, ki) => parseExpr(k, at("hold", ki), new Map())) : undefined;
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

    rows.push({ rule: r.rule, kind, methods, line: src.pos(at()).line, description: r.description, when, ids, steps, examples, hold });

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
  });

  function allowedValues(s: any): string[] | undefined {
    if (s?.$ref) {
      const [, section, name] = /^#\/(enums|defs|ids)\/(.+)$/.exec(s.$ref) ?? [];
      return section === "enums" ? cx.canonical.enums[name] : undefined;
    }
    return Array.isArray(s?.enum) ? s.enum : undefined;
  }

  // Dispatched notifications must land on rows of this table.
  const rowMethods = new Set(rows.filter((r) => r.kind === "notification").flatMap((r) => r.methods));
  for (const t of dispatchTargets) if (!rowMethods.has(t.method)) ds.push(src.diag(t.path, "E273", `dispatched method "${t.method}" has no notification row in this table`));

  // 4b. Input wrappers (tagged protocols): conditions and paths on the raw input line (one condition grammar, the
  // same as rows'; the line has no upstream schema, so its paths are not checked).
  const input: InputIR[] = (v.input ?? []).map((w: any, wi: number) => {
    const p = ["input", wi];
    if (!tagged) ds.push(src.diag(p, "E310", `"input" wrappers are for tagged protocols`));
    // Paths are on the input line; `capture.x` reads the capture wrapper pushLine removed ({dir, channel, …}).
    const path = (x: string): Expr & { k: "path" } => {
      const segs = String(x).split(".");
      if (x === ".") return { k: "path", root: "msg", segs: [] };
      return segs[0] === "capture" ? { k: "path", root: "capture", segs: segs.slice(1) } : { k: "path", root: "msg", segs };
    };
    if (w.kind !== undefined && !kindSet.has(w.kind)) ds.push(src.diag([...p, "kind"], "E312", `kind "${w.kind}" is not declared under upstream.kinds`));
    const when = conditionParser(w.when, [...p, "when"], {
      allowState: false,
      hasRole: () => false,
      subject: (key) => ({ expr: path(key) }),
      value: (x, vp) => exprParser(x, vp, new Map(), { path: (segs) => path(segs.join(".")), hasRole: () => false }),
    });
    if (!w.ignore && w.message === undefined) ds.push(src.diag(p, "E311", `an input wrapper needs "message" (a path, or "." for the line itself) or "ignore" (a reason)`));
    return {
      name: w.name, when, line: src.pos(p).line, ignore: w.ignore, kind: w.kind, type: w.type,
      message: w.message === undefined ? undefined : path(w.message),
      meta: Object.entries<any>(w.meta ?? {}).map(([k, x]) => [k, path(x)] as [string, Expr]),
    };
  });

  /** Value expressions (one parser for every position; `paths` says how a `$path` resolves and is checked there). */
  function exprParser(val: unknown, path: (string | number)[], scope: Map<string, SchemaRef[]>, on: { path: (segs: string[], p: (string | number)[]) => Expr; hasRole: (r: Role) => boolean }): Expr {
    const rec = (x: unknown, p: (string | number)[]) => exprParser(x, p, scope, on);
    if (typeof val === "string") {
      if (val.startsWith("$$")) return { k: "lit", v: val.slice(1) };
      if (val.startsWith("$")) {
        const segs = val.slice(1).split(".");
        if (segs.some((s) => s === "")) ds.push(src.diag(path, "E222", `malformed path "${val}"`));
        return on.path(segs, path);
      }
      return { k: "lit", v: val };
    }
    if (Array.isArray(val)) return { k: "arr", items: val.map((x, i) => rec(x, [...path, i])) };
    if (val && typeof val === "object") {
      const o = val as Record<string, unknown>;
      const special = Object.keys(o).filter((k) => k.startsWith("$"));
      if (special.length === 0) return { k: "obj", entries: Object.entries(o).map(([k, x]) => [k, rec(x, [...path, k])]) };
      const op = special[0];
      const allowed: Record<string, string[]> = { $map: ["$map", "from", "default"], $helper: ["$helper", "args"], $first: ["$first"], $state: ["$state"], $literal: ["$literal"], $var: ["$var"], $join: ["$join"], $id: ["$id"] };
      if (special.length > 1 || !allowed[op]) {
        ds.push(src.diag(path, "E223", `unknown expression operator "${special.join(", ")}"; use $map, $helper, $first, $state, $id, $var, $join or $literal`));
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
          return { k: "helper", name, args: args.map((a, i) => rec(a, [...path, "args", i])) };
        }
        case "$first": {
          if (!Array.isArray(o.$first)) ds.push(src.diag(path, "E228", `$first takes a list`));
          return { k: "first", items: (Array.isArray(o.$first) ? o.$first : []).map((x, i) => rec(x, [...path, "$first", i])) };
        }
        case "$id": {
          const role = String(o.$id) as Role;
          if (!ROLES.includes(role)) ds.push(src.diag(path, "E229", `$id takes a role (${ROLES.join(", ")})`));
          else if (!on.hasRole(role)) ds.push(src.diag(path, "E232", `$id: ${role} needs the row to declare ids.${role}`));
          return { k: "id", role };
        }
        case "$var":
        case "$join": {
          const list = o[op];
          if (!Array.isArray(list) || !list.length) ds.push(src.diag(path, "E228", `${op} takes a non-empty list`));
          const items = (Array.isArray(list) ? list : []).map((x, i) => rec(x, [...path, op, i]));
          return op === "$var" ? { k: "var", key: items } : { k: "join", items };
        }
        case "$state": {
          const [role, field] = String(o.$state).split(".");
          if (!ROLES.includes(role as Role) || !field) ds.push(src.diag(path, "E229", `$state takes ROLE.FIELD (roles: ${ROLES.join(", ")})`));
          return { k: "state", role: role as Role, field };
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
        // Conditions on computed values: [{ value: EXPR, equals | in | not | exists }]
        if (!Array.isArray(val)) { ds.push(src.diag(p, "E235", `$if takes a list of { value: EXPR, equals | in | not | exists }`)); continue; }
        val.forEach((t: any, ti: number) => {
          const tp = [...p, ti];
          const tests = ["equals", "in", "not", "exists"].filter((k) => t && typeof t === "object" && k in t);
          if (!t || typeof t !== "object" || !("value" in t) || tests.length !== 1 || Object.keys(t).length !== 2) { ds.push(src.diag(tp, "E235", `a $if entry is { value: EXPR } plus exactly one of equals, in, not, exists`)); return; }
          const e = on.value(t.value, [...tp, "value"]);
          if (tests[0] === "equals") out.push({ k: "eq", path: e, value: t.equals });
          else if (tests[0] === "not") out.push({ k: "not", path: e, value: t.not });
          else if (tests[0] === "in") out.push({ k: "in", path: e, values: Array.isArray(t.in) ? t.in : [t.in] });
          else out.push({ k: "exists", path: e, exists: !!t.exists });
        });
        continue;
      }
      if (key === "new" || key === "open" || key === "notOpen" || key === "stale" || key === "notStale") {
        if (!on.allowState) { ds.push(src.diag(p, "E230", `"${key}" is a runtime-state condition: use it in a step's "if", not in "when"`, true)); continue; }
        if (!ROLES.includes(val)) { ds.push(src.diag(p, "E231", `"${key}" takes a role (${ROLES.join(", ")})`)); continue; }
        if (!on.hasRole(val)) ds.push(src.diag(p, "E232", `"${key}: ${val}" needs the row to declare ids.${val}`));
        out.push({ k: "state", test: key, role: val });
        continue;
      }
      const { expr, enumVals } = on.subject(key, p);
      const checkValue = (x: unknown, vp: (string | number)[]) => {
        if (enumVals && typeof x === "string" && !enumVals.includes(x)) ds.push(src.diag(vp, "E233", `"${x}" is not a value of ${key} upstream (${enumVals.join(", ")})${didYouMean(x, enumVals)}`));
      };
      if (val && typeof val === "object" && !Array.isArray(val)) {
        const ks = Object.keys(val);
        if (ks.length !== 1 || !["in", "exists", "not"].includes(ks[0])) { ds.push(src.diag(p, "E234", `a condition is a value, {in: [...]}, {exists: true|false} or {not: value}`)); continue; }
        if (ks[0] === "in") { (val.in as unknown[]).forEach((x, i) => checkValue(x, [...p, "in", i])); out.push({ k: "in", path: expr, values: val.in }); }
        else if (ks[0] === "exists") out.push({ k: "exists", path: expr, exists: !!val.exists });
        else { checkValue(val.not, [...p, "not"]); out.push({ k: "not", path: expr, value: val.not }); }
      } else {
        checkValue(val, p);
        out.push({ k: "eq", path: expr, value: val });
      }
    }
    return out;
  }

  // 5. Ignored.
  const ignored: IgnoredIR[] = (v.ignored ?? []).map((g: any, gi: number) => {
    const known = methodMaps.get(g.kind);
    if (!kindSet.has(g.kind)) ds.push(src.diag(["ignored", gi, "kind"], "E211", `kind "${g.kind}" is not declared under upstream.kinds`));
    g.match.forEach((m: string, mi: number) => {
      if (known && !known.has(m)) ds.push(src.diag(["ignored", gi, "match", mi], "E214", `${g.kind} method "${m}" does not exist in the upstream schema ${v.upstream.package}@${v.upstream.version}${didYouMean(m, known.keys())}`));
      else claim(g.kind, m, ["ignored", gi, "match", mi], "ignored", true);
    });
    return { id: `ignored-${g.kind}-${gi + 1}`, kind: g.kind, methods: g.match, reason: g.reason, line: src.pos(["ignored", gi]).line };
  });

  // 6. Coverage: every upstream method of every kind with a file is mapped or ignored.
  for (const k of kinds) {
    for (const m of k.upstreamMethods ?? []) {
      if (!claimed.has(`${k.kind}:${m}`)) ds.push(src.diag(["upstream", "kinds", k.kind], "E300", `${k.kind} method "${m}" of ${v.upstream.package}@${v.upstream.version} is neither mapped nor ignored`));
    }
  }
  for (const m of maps) if (!usedMaps.has(m.name)) ds.push(src.diag(["maps", m.name], "E301", `map "${m.name}" is never used`, true));

  const table: TableIR = {
    file, surface: v.surface, provider: v.provider, protocol: v.protocol,
    upstream: { package: v.upstream.package, version: v.upstream.version, dir: v.upstream.dir, ...(extensions.length ? { extensions } : {}) },
    kinds, maps, rows, ignored, input, nonJsonLines: v.nonJsonLines ?? "error",
  };
  if (!cx.canonical.enums.ProviderKind.includes(v.provider)) ds.push(src.diag(["provider"], "E205", `unknown provider "${v.provider}" (${cx.canonical.enums.ProviderKind.join(", ")})`));
  return { table, diagnostics: dedupe(ds) };
}

function hint(known?: string[]): string {
  return known && known.length ? `; known here: ${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""}` : "";
}

function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const k = `${d.file}:${d.line}:${d.col}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
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
