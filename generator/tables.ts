/**
 * Table stage: mappings/<surface>.yaml → validated, resolved IR (TableIR).
 * Checks the table against its own schema (schemas/mapping-dsl.schema.json), the canonical model and the
 * pinned upstream schema. Every problem becomes a Diagnostic with file:line:col; nothing here throws for
 * user errors.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { SourcedYaml, didYouMean, type Diagnostic } from "./diagnostics.ts";
import type { CanonicalModel } from "./canonical.ts";
import { ANSWERS, UpstreamSchemas, enumValues, methodPatternProblems, resolvePath, type Kind, type UpstreamMethod } from "./upstream.ts";
import { expressionParsers, ROLES } from "./expressions.ts";
import { fieldOfSomeMessage, parseRow, type TableEnv } from "./rows.ts";
import { parseRange, satisfies, versionParts } from "../src/model/versions.ts";
import { checkUnusedSets, parseAnswering, parseRowAnswers, requestOpen, type AnsweringIR, type RequestOpenIR, type RowAnswersIR } from "./answers.ts";
import { liveCallShape, liveSchemaError, parseLive, type LiveIR } from "./live.ts";
export { lifecycleGuard } from "./rows.ts";
export type { Role, Op, Expr, LetIR, Cond, IdIR, SnapIR, StepIR, InputIR, ExampleIR, RowIR, IgnoredIR, MapIR, KindIR, PinnedVersionIR, ExtensionIR, TableIR, TimeIR, SessionPathIR, SessionsIR, TableContext } from "./ir.ts";
import type { Role, Op, Expr, LetIR, Cond, IdIR, SnapIR, StepIR, InputIR, ExampleIR, RowIR, IgnoredIR, MapIR, KindIR, PinnedVersionIR, ExtensionIR, TableIR, TimeIR, SessionPathIR, SessionsIR, TableContext } from "./ir.ts";

/** The DSL schema compiled once per schema object (compiling it is most of a small table's load time). */
const DSL_VALIDATORS = new WeakMap<object, ValidateFunction<any>>();
function dslValidator(schema: object): ValidateFunction<any> {
  let v = DSL_VALIDATORS.get(schema);
  if (!v) DSL_VALIDATORS.set(schema, (v = new Ajv({ allErrors: true, strict: false }).compile<any>(schema)));
  return v;
}

export function loadTable(file: string, text: string, cx: TableContext): { table?: TableIR; diagnostics: Diagnostic[] } {
  const src = new SourcedYaml(file, text);
  const ds: Diagnostic[] = [...src.parseErrors];
  if (ds.length) return { diagnostics: ds };
  const v = src.value;

  // 1. Structure: the DSL's own schema.
  const validate = dslValidator(cx.dslSchema);
  if (!validate(v)) {
    for (const e of unionErrors(validate.errors ?? [], v)) {
      if (e.code) { ds.push(src.diag(e.path ?? [], e.code, e.message ?? "")); continue; }
      const path = pointer(e.instancePath);
      const live = liveSchemaError(src, path, e.keyword, e.params);
      if (live) { ds.push(live); continue; }
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
    kinds.push({ kind, source: spec.source, file: spec.file, tag, upstreamMethods, ...(spec.subtag ? { subtag: spec.subtag } : {}) });
  }
  // 2b. Extensions: more method files for declared kinds, from their own schema folder (e.g. a vendor's methods on
  // top of a standard protocol). Their methods join the kind's upstream set: they must be mapped or ignored too.
  const extensions: ExtensionIR[] = [];
  (v.upstream.extensions ?? []).forEach((x: any, xi: number) => {
    const xp = ["upstream", "extensions", xi];
    const xup = cx.upstream(x.dir);
    if (!xup) { ds.push(src.diag([...xp, "dir"], "E201", `upstream schema folder "${x.dir}" does not exist`)); return; }
    extensions.push({ name: x.name, package: x.package, version: x.version, dir: x.dir });
    const own = new Map<string, string[]>(); // kind → this extension's methods
    const sourced: [string, any, KindIR][] = [];
    for (const [k, spec] of Object.entries<any>(x.kinds)) {
      const kir = kinds.find((kk) => kk.kind === k);
      if (!kir) { ds.push(src.diag([...xp, "kinds", k], "E208", `extension kind "${k}" is not declared under upstream.kinds`)); continue; }
      if (spec.source !== undefined && !cx.canonical.enums.RuntimeEventSource.includes(spec.source)) {
        ds.push(src.diag([...xp, "kinds", k, "source"], "E202", `unknown raw source "${spec.source}"${didYouMean(spec.source, cx.canonical.enums.RuntimeEventSource)}`));
      } else if (spec.source !== undefined) sourced.push([k, spec, kir]);
      if (spec.file === undefined) {
        if (tagged || !ANSWERS[k as Kind]) ds.push(src.diag([...xp, "kinds", k], "E203", `extension kind "${k}" needs a "file" (only a response kind may give just a "source")`));
        continue;
      }
      if (!xup.exists(spec.file)) { ds.push(src.diag([...xp, "kinds", k, "file"], "E203", `upstream file "${spec.file}" not found in ${x.dir}`)); continue; }
      const ms = methodMaps.get(k as Kind) ?? new Map<string, UpstreamMethod>();
      for (const [m, um] of xup.methods(spec.file, kir.tag)) {
        if (ms.has(m)) { ds.push(src.diag([...xp, "kinds", k, "file"], "E209", `${k} method "${m}" of ${x.dir}/${spec.file} is already defined by another file of this kind`)); continue; }
        ms.set(m, um);
        own.set(k, [...(own.get(k) ?? []), m]);
      }
      methodMaps.set(k as Kind, ms);
      kir.upstreamMethods = [...ms.keys()].sort();
      (kir.extraFiles ??= []).push({ dir: x.dir, file: spec.file, extension: x.name });
    }
    // raw.source of the extension's own methods (a response kind: the answers to the extension's requests)
    for (const [k, spec, kir] of sourced) {
      const answered = tagged ? undefined : ANSWERS[k as Kind];
      for (const m of own.get(answered ?? k) ?? []) (kir.methodSources ??= {})[m] = spec.source;
    }
  });
  // 2c. Other pinned versions (upstream.versions): the same kinds' files in their own folders. Their methods join the
  // kinds' sets (typed against the newest pinned version that has them, the table's own first); coverage is per version.
  const pinnedVersions: PinnedVersionIR[] = [];
  /** Per version, kind and method: its schema at that version (for the subtypes it lists). */
  const versionUm = new Map<string, Map<Kind, Map<string, UpstreamMethod>>>();
  versionUm.set(v.upstream.version, new Map([...methodMaps].map(([k, ms]) => [k, new Map(ms)])));
  const versionMethods = new Map<string, Map<Kind, Set<string>>>();
  const primaryMethods = new Map<Kind, Set<string>>();
  for (const k of kinds) if (k.upstreamMethods) primaryMethods.set(k.kind, new Set(k.upstreamMethods));
  versionMethods.set(v.upstream.version, primaryMethods);
  if (!versionParts(String(v.upstream.version))) ds.push(src.diag(["upstream", "version"], "E218", `upstream.version "${v.upstream.version}" is not a version (numbers separated by dots) while the table pins several versions`));
  (v.upstream.versions ?? []).forEach((pv: any, pi: number) => {
    const pp = ["upstream", "versions", pi];
    if (!versionParts(String(pv.version))) { ds.push(src.diag([...pp, "version"], "E218", `"${pv.version}" is not a version (numbers separated by dots)`)); return; }
    if (versionMethods.has(pv.version)) { ds.push(src.diag([...pp, "version"], "E217", `version ${pv.version} is pinned twice`)); return; }
    const vup = cx.upstream(pv.dir);
    if (!vup) { ds.push(src.diag([...pp, "dir"], "E201", `upstream schema folder "${pv.dir}" does not exist`)); return; }
    pinnedVersions.push({ version: pv.version, dir: pv.dir, ...(pv.reports !== undefined ? { reports: String(pv.reports) } : {}) });
    const per = new Map<Kind, Set<string>>();
    versionMethods.set(pv.version, per);
    for (const k of kinds) {
      if (!k.file) continue;
      if (!vup.exists(k.file)) { ds.push(src.diag([...pp, "dir"], "E203", `upstream file "${k.file}" (kind ${k.kind}) not found in ${pv.dir}`)); continue; }
      const ms = vup.methods(k.file, k.tag);
      per.set(k.kind, new Set(ms.keys()));
      if (!versionUm.has(pv.version)) versionUm.set(pv.version, new Map());
      versionUm.get(pv.version)!.set(k.kind, ms);
      const merged = methodMaps.get(k.kind)!;
      for (const [m, um] of ms) if (!merged.has(m)) merged.set(m, um);
      k.upstreamMethods = [...merged.keys()].sort();
    }
  });
  if (pinnedVersions.length) for (const k of kinds) if (k.file) k.versionMethods = Object.fromEntries([...versionMethods].map(([ver, per]) => [ver, [...(per.get(k.kind) ?? [])].sort()]));
  const allVersions = [...versionMethods.keys()];
  /** The pinned versions a `versions:` range selects (undefined: no range, every version). */
  const versionsOf = (range: unknown, path: (string | number)[]): string[] | undefined => {
    if (range === undefined) return undefined;
    const parsed = parseRange(String(range));
    if ("error" in parsed) { ds.push(src.diag(path, "E215", `bad version range: ${parsed.error}`)); return undefined; }
    const hit = allVersions.filter((ver) => satisfies(ver, parsed));
    if (!hit.length) { ds.push(src.diag(path, "E216", `version range "${range}" selects none of the pinned versions (${allVersions.join(", ")})`)); return undefined; }
    return hit;
  };
  /** Does the method exist at one of these versions? */
  const existsAt = (kind: Kind, method: string, versions: string[] | undefined): boolean =>
    !pinnedVersions.length || (versions ?? allVersions).some((ver) => versionMethods.get(ver)?.get(kind)?.has(method) ?? true);

  const kindSet = new Set(kinds.map((k) => k.kind));
  for (const k of kinds) {
    const answered = tagged ? undefined : ANSWERS[k.kind];
    if (answered && !methodMaps.has(answered)) ds.push(src.diag(["upstream", "kinds", k.kind], "E204", `kind ${k.kind} answers ${answered}, which has no upstream file`));
  }

  // 3. Maps.
  const maps: MapIR[] = Object.entries<any>(v.maps ?? {}).map(([name, m]) => ({ name, values: m.values, def: m.default, line: src.pos(["maps", name]).line, ...(m.prefixes ? { prefixes: m.prefixes } : {}) }));
  const mapByName = new Map(maps.map((m) => [m.name, m]));
  const usedMaps = new Set<string>();

  // 4. Rows.
  const rows: RowIR[] = [];
  const dispatchTargets: { method: string; path: (string | number)[] }[] = [];
  const usedHelpers = cx.usedHelpers;
  const rules = new Map<string, number>();
  const claimed = new Map<string, (string | number)[]>(); // version:kind:method → YAML path that claims it
  const claim = (kind: Kind, method: string, path: (string | number)[], what: string, whenless: boolean, versions?: string[]) => {
    for (const ver of versions ?? allVersions) claimAt(`${ver}:${kind}:${method}`, kind, method, path, what, whenless);
  };
  const claimAt = (key: string, kind: Kind, method: string, path: (string | number)[], what: string, whenless: boolean) => {
    const prev = claimed.get(key);
    if (prev && prev[0] === "ignored" && what === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is already ignored at line ${src.pos(prev).line}`));
    else if (prev && prev[0] === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is both ${what} and ignored at line ${src.pos(prev).line}`));
    else if (prev && what === "ignored") ds.push(src.diag(path, "E210", `${kind} method "${method}" is ignored here but mapped at line ${src.pos(prev).line}`));
    if (!prev || whenless) claimed.set(key, path);
  };

  const defaults = v.defaults ?? {};
  const { exprParser, conditionParser } = expressionParsers({ src, ds, cx, mapByName, usedMaps, usedHelpers });
  const tx: TableEnv = { src, ds, cx, v, tagged, kinds, kindSet, methodMaps, up, mapByName, rules, claim, dispatchTargets, defaults, rows, exprParser, conditionParser, versionsOf, existsAt };
  v.rows.forEach((r: any, ri: number) => parseRow(r, ri, tx));

  // 4a. The reverse direction: how the requests the rows open are answered.
  const ax = { src, ds, v, canonical: cx.canonical, maps: mapByName, exprParser, conditionParser };
  const answering = parseAnswering(ax);
  const usedSets = new Set<string>();
  rows.forEach((r) => {
    const ri = (v.rows as any[]).findIndex((x) => x?.rule === r.rule);
    const request = requestOpen(r, cx.canonical, mapByName);
    if (request) r.request = request;
    const answers = parseRowAnswers(ax, r, ri, answering, usedSets);
    if (answers) r.answers = answers;
  });
  checkUnusedSets(ax, usedSets);

  // Dispatched notifications must land on rows of this table.
  const rowMethods = new Set(rows.filter((r) => r.kind === "notification").flatMap((r) => r.methods));
  for (const t of dispatchTargets) if (!rowMethods.has(t.method)) ds.push(src.diag(t.path, "E273", `dispatched method "${t.method}" has no notification row in this table`));

  // 4b. Input wrappers: conditions and paths on the raw input line (one condition grammar, the
  // same as rows'; the line has no upstream schema, so its paths are not checked).
  const input: InputIR[] = (v.input ?? []).map((w: any, wi: number) => {
    const p = ["input", wi];
    // JSON-RPC: a wrapper reads a recorded call that carries no JSON-RPC envelope (a test harness's `{kind, payload}`):
    // it names the call's kind and method; lines no wrapper matches are JSON-RPC messages as usual.
    if (!tagged && !w.ignore && (w.kind === undefined || (w.type === undefined && w.typeFrom === undefined))) ds.push(src.diag(p, "E310", `an input wrapper of a JSON-RPC table names the call's "kind" and its method ("type", or "typeFrom": a path on the line)`));
    if (w.type !== undefined && w.typeFrom !== undefined) ds.push(src.diag([...p, "typeFrom"], "E313", `"type" and "typeFrom" both given: one names the message's type`));
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
      ...(w.typeFrom !== undefined ? { typeFrom: path(String(w.typeFrom)) } : {}),
      message: w.message === undefined ? undefined : path(w.message),
      meta: Object.entries<any>(w.meta ?? {}).map(([k, x]) => [k, path(x)] as [string, Expr]),
    };
  });

  // 4c. The message's own time: each path must be a field of some message of the table (or a wrapper's meta key).
  let time: TimeIR | undefined;
  if (v.time) {
    const from: string[] = Array.isArray(v.time.from) ? v.time.from : [v.time.from];
    const metaKeys = new Set(input.flatMap((w) => w.meta.map(([k]) => k)));
    const paths = from.map((x, xi) => {
      const at = Array.isArray(v.time.from) ? ["time", "from", xi] : ["time", "from"];
      const segs = String(x).split(".");
      if (segs[0] === "meta") {
        if (segs.length < 2 || !metaKeys.has(segs[1])) ds.push(src.diag(at, "E320", `time path "${x}": no input wrapper extracts meta "${segs[1] ?? ""}"${metaKeys.size ? ` (known: ${[...metaKeys].join(", ")})` : ""}`));
        return { k: "path", root: "meta", segs: segs.slice(1) } as Expr & { k: "path" };
      }
      if (!fieldOfSomeMessage(segs, methodMaps, up, tagged)) ds.push(src.diag(at, "E321", `time path "${x}" is a field of no message of this table's upstream schema`));
      return { k: "path", root: "msg", segs } as Expr & { k: "path" };
    });
    time = { from: paths, numbers: v.time.numbers ?? "ms", line: src.pos(["time"]).line };
  }

  // 4d. The session a message belongs to: each path a field of some message (or a wrapper's meta key; a JSON-RPC
  // response's result, unchecked), each `match` a type or method of the table.
  let sessions: SessionsIR | undefined;
  if (v.sessions) {
    const metaKeys = new Set(input.flatMap((w) => w.meta.map(([k]) => k)));
    const knownTypes = new Set<string>([...methodMaps.values()].flatMap((mm) => [...mm.keys()]));
    for (const r of v.rows ?? []) for (const m of Array.isArray(r?.match) ? r.match : [r?.match]) if (typeof m === "string") knownTypes.add(m);
    for (const g of v.ignored ?? []) for (const m of g?.match ?? []) knownTypes.add(m);
    const types = (ms: string[], at: (string | number)[]) => ms.forEach((m, mi) => {
      if (!knownTypes.has(m)) ds.push(src.diag([...at, mi], "E323", `sessions: "${m}" is no ${tagged ? "type" : "method"} of this table${didYouMean(m, knownTypes)}`));
    });
    const part = (name: "key" | "parent" | "children"): SessionPathIR[] => {
      const x = v.sessions[name];
      if (x === undefined) return [];
      const list: any[] = Array.isArray(x) ? x : [x];
      return list.map((entry, xi) => {
        const at = Array.isArray(x) ? ["sessions", name, xi] : ["sessions", name];
        const text = String(typeof entry === "string" ? entry : entry.path);
        const segs = text.split(".");
        let path: Expr & { k: "path" };
        if (typeof entry === "object" && entry !== null && entry.each !== undefined) path = { k: "path", root: "el", segs }; // checked below, on the list's elements
        else if (segs[0] === "meta") {
          if (segs.length < 2 || !metaKeys.has(segs[1])) ds.push(src.diag(at, "E322", `sessions path "${text}": no input wrapper extracts meta "${segs[1] ?? ""}"${metaKeys.size ? ` (known: ${[...metaKeys].join(", ")})` : ""}`));
          path = { k: "path", root: "meta", segs: segs.slice(1) };
        } else {
          if (!(!tagged && segs[0] === "result" && segs.length > 1) && !fieldOfSomeMessage(segs, methodMaps, up, tagged)) ds.push(src.diag(at, "E322", `sessions path "${text}" is a field of no message of this table's upstream schema`));
          path = { k: "path", root: "msg", segs };
        }
        if (typeof entry === "string") return { path };
        const ir: SessionPathIR = { path };
        if (entry.match !== undefined) {
          const match: string[] = Array.isArray(entry.match) ? entry.match : [entry.match];
          types(match, [...at, "match"]);
          ir.match = match;
        }
        if (entry.each !== undefined) {
          // a list on the message, `path` read on each element
          const eachText = String(entry.each);
          const eachSegs = eachText.split(".");
          if (name !== "children") ds.push(src.diag([...at, "each"], "E324", `sessions ${name}: \`each\` is for children only (a message's own session and its parent are one id each)`));
          else if (!fieldOfSomeMessage([...eachSegs, "0", ...segs], methodMaps, up, tagged)) ds.push(src.diag([...at, "each"], "E322", `sessions path "${eachText}[].${text}" is a field of no message of this table's upstream schema`));
          ir.each = { k: "path", root: "msg", segs: eachSegs };
        }
        return ir;
      });
    };
    const next: string[] = v.sessions.next === undefined ? [] : Array.isArray(v.sessions.next) ? v.sessions.next : [v.sessions.next];
    types(next, ["sessions", "next"]);
    sessions = { key: part("key"), parent: part("parent"), children: part("children"), next, line: src.pos(["sessions"]).line };
  }

  // 5. Ignored.
  const partlyIgnored = new Set<string>(); // version:kind:method ignored by an entry with `when` (rows may map the rest)
  const ignoredOnce = new Map<string, number>(); // kind:method → line of the entry that ignores it (one entry per method, whatever its versions)
  const ignored: IgnoredIR[] = (v.ignored ?? []).map((g: any, gi: number) => {
    g.match.forEach((m: string, mi: number) => {
      const prev = ignoredOnce.get(`${g.kind}:${m}`);
      if (prev !== undefined && g.versions !== undefined) ds.push(src.diag(["ignored", gi, "match", mi], "E210", `${g.kind} method "${m}" is already ignored at line ${prev} (one ignore entry per method: give it the versions of both)`));
      ignoredOnce.set(`${g.kind}:${m}`, src.pos(["ignored", gi]).line);
    });
    const known = methodMaps.get(g.kind);
    if (!kindSet.has(g.kind)) ds.push(src.diag(["ignored", gi, "kind"], "E211", `kind "${g.kind}" is not declared under upstream.kinds`));
    const versions = versionsOf(g.versions, ["ignored", gi, "versions"]);
    // `when`: field tests on the message (not checked against the schema: an entry may name several types)
    const when: Cond[] | undefined = g.when === undefined ? undefined : conditionParser(g.when, ["ignored", gi, "when"], {
      allowState: false,
      hasRole: () => false,
      subject: (key) => ({ expr: { k: "path", root: "msg", segs: String(key).split(".") } }),
      value: (x, vp) => exprParser(x, vp, new Map(), { path: (segs) => ({ k: "path", root: "msg", segs }), hasRole: () => false }),
    });
    if (g.unlisted === true && g.versions !== undefined) ds.push(src.diag(["ignored", gi, "versions"], "E231", `an unlisted entry names methods no pinned schema has: it takes no versions`));
    g.match.forEach((m: string, mi: number) => {
      if (g.unlisted === true) {
        // methods the provider sends that its schema does not list: nothing to claim for coverage (a listed one is
        // claimed as by any entry, so the mistake is one diagnostic)
        if (m.includes("*")) return void ds.push(src.diag(["ignored", gi, "match", mi], "E231", `an unlisted entry names methods, not patterns ("${m}")`));
        if (!known?.has(m)) return;
        ds.push(src.diag(["ignored", gi, "match", mi], "E231", `${g.kind} method "${m}" is in the upstream schema ${v.upstream.package}@${v.upstream.version}: not unlisted (drop \`unlisted: true\`)`));
      }
      if (m.includes("*")) {
        // A pattern (`prefix*`): methods no schema lists that no exact row or ignore entry names (as pattern rows).
        for (const problem of methodPatternProblems(m, tagged)) ds.push(src.diag(["ignored", gi, "match", mi], "E213", problem));
        return;
      }
      if (known && !known.has(m)) ds.push(src.diag(["ignored", gi, "match", mi], "E214", `${g.kind} method "${m}" does not exist in the upstream schema ${v.upstream.package}@${v.upstream.version}${didYouMean(m, known.keys())}`));
      else if (known && !existsAt(g.kind, m, versions)) ds.push(src.diag(["ignored", gi, "match", mi], "E214", `${g.kind} method "${m}" does not exist at the versions this entry applies to (${versions!.join(", ")})`));
      else if (when) for (const ver of versions ?? allVersions) partlyIgnored.add(`${ver}:${g.kind}:${m}`);
      else claim(g.kind, m, ["ignored", gi, "match", mi], "ignored", true, versions);
    });
    return { id: `ignored-${g.kind}-${gi + 1}`, kind: g.kind, methods: g.match, reason: g.reason, line: src.pos(["ignored", gi]).line, ...(versions ? { versions } : {}), ...(when ? { when } : {}), ...(g.unlisted === true ? { unlisted: true } : {}) };
  });

  // 6. Coverage: every upstream method of every kind with a file is mapped or ignored.
  // With several pinned versions: every method of every version, by a row or ignore entry that applies to that version.
  for (const k of kinds) {
    for (const [ver, per] of versionMethods) {
      for (const m of [...(per.get(k.kind) ?? [])].sort()) {
        if (!claimed.has(`${ver}:${k.kind}:${m}`) && !partlyIgnored.has(`${ver}:${k.kind}:${m}`)) ds.push(src.diag(["upstream", "kinds", k.kind], "E300", `${k.kind} method "${m}" of ${v.upstream.package}@${ver} is neither mapped nor ignored${pinnedVersions.length ? " (by a row or ignore entry whose versions include it)" : ""}`));
      }
    }
  }
  // 6b. Subtypes (`subtag`): every subtype a type's schema lists, at every pinned version, is named by a row or an
  // ignore entry that applies to that version, or left to one of the type that does not test the subtype.
  const pathKey = (e: Expr): string | undefined => (e.k === "path" ? (e.root === "msg" ? e.segs : [e.root, ...e.segs]).join(".") : undefined);
  const covers = (conds: Cond[] | undefined, subtag: string, s: string): boolean => {
    const tests = (conds ?? []).filter((c) => (c.k === "eq" || c.k === "in") && pathKey(c.path) === subtag);
    return !tests.length || tests.some((c) => (c.k === "eq" ? c.value === s : c.k === "in" && c.values.includes(s)));
  };
  for (const k of kinds) {
    const subtag = k.subtag;
    if (!subtag) continue;
    const segs = subtag.split(".");
    for (const [ver, byKind] of versionUm) {
      for (const [m, um] of byKind.get(k.kind) ?? []) {
        const res = resolvePath({ file: um.message.file, doc: um.message.doc, node: um.message.node }, segs);
        const subtypes = res.ok ? (enumValues(res.targets) ?? []) : [];
        const at = (vs: string[] | undefined) => !vs || vs.includes(ver);
        const cov = ((k.subtypeCoverage ??= {})[ver] ??= { total: 0, mapped: 0, ignored: 0, missing: 0 });
        for (const s of subtypes) {
          const byRow = rows.some((r) => r.kind === k.kind && r.methods.includes(m) && at(r.versions) && covers(r.when, subtag, s));
          const byIgnore = ignored.some((g) => g.kind === k.kind && g.methods.includes(m) && at(g.versions) && covers(g.when, subtag, s));
          cov.total++;
          if (byRow) cov.mapped++;
          else if (byIgnore) cov.ignored++;
          else cov.missing++;
          if (!byRow && !byIgnore) ds.push(src.diag(["upstream", "kinds", k.kind], "E302", `${k.kind} "${m}" subtype "${s}" of ${v.upstream.package}@${ver} is neither mapped nor ignored (no row or ignore entry for that version names it in a "${k.subtag}" test)`));
        }
      }
    }
  }
  for (const m of maps) if (!usedMaps.has(m.name)) ds.push(src.diag(["maps", m.name], "E301", `map "${m.name}" is never used`, true));
  let atEnd: { kind: string; method: string } | undefined;
  if (v.atEnd) {
    const k = kinds.find((x) => x.kind === v.atEnd!.kind);
    if (!k || v.upstream.kinds[v.atEnd.kind]?.file !== undefined) ds.push(src.diag(["atEnd", "kind"], "E219", `atEnd kind "${v.atEnd.kind}" must be a kind of the table with no upstream file (the table's own messages)`));
    else if (!rows.some((r) => r.kind === v.atEnd!.kind && r.methods.includes(v.atEnd!.match))) ds.push(src.diag(["atEnd", "match"], "E219", `no ${v.atEnd.kind} row matches "${v.atEnd.match}", so the end-of-stream message would map to nothing`));
    else atEnd = { kind: v.atEnd.kind, method: v.atEnd.match };
  }

  const table: TableIR = {
    file, surface: v.surface, provider: v.provider, protocol: v.protocol,
    upstream: {
      package: v.upstream.package, version: v.upstream.version, dir: v.upstream.dir, ...(extensions.length ? { extensions } : {}),
      ...(v.upstream.reports !== undefined ? { reports: String(v.upstream.reports) } : {}), ...(pinnedVersions.length ? { versions: pinnedVersions } : {}),
    },
    kinds, maps, rows, ignored, input, nonJsonLines: v.nonJsonLines ?? "error", ...(time ? { time } : {}), ...(sessions ? { sessions } : {}), ...(atEnd ? { atEnd } : {}), ...(v.detect ? { detectFields: [...v.detect.fields] } : {}), ...(answering ? { answering } : {}),
  };
  const live = parseLive(src, v, ds);
  if (live.length) table.live = live;
  if (!cx.canonical.enums.ProviderKind.includes(v.provider)) ds.push(src.diag(["provider"], "E205", `unknown provider "${v.provider}" (${cx.canonical.enums.ProviderKind.join(", ")})`));
  return { table, diagnostics: dedupe(ds) };
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

const pointer = (p: string): string[] => p.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));

/** The forms of a step (its one key) and the schema definition of each. */
const STEP_DEFS: Record<string, string> = { emit: "EmitStep", snapshot: "SnapshotStep", set: "SetStep", closeOpen: "CloseOpenStep", dispatch: "DispatchStep", each: "EachStep", upstreamVersion: "UpstreamVersionStep" };

/**
 * Schema errors of the DSL's unions (a step's forms, a condition's tests, an id's forms), made readable: ajv reports
 * every branch of a failed anyOf. For a step with one form key, only that form's errors are kept; otherwise the
 * branches' errors are replaced by one diagnostic that says what is allowed there.
 */
function unionErrors(errors: ErrorObject[], doc: unknown): (ErrorObject & { code?: string; path?: string[] })[] {
  const unions = errors.filter((e) => e.keyword === "anyOf");
  if (!unions.length) return errors as any;
  const out: any[] = [];
  const handled = new Set<ErrorObject>();
  // innermost unions first: a condition inside a step is reported as a condition
  for (const u of [...unions].sort((a, b) => b.instancePath.length - a.instancePath.length)) {
    if (handled.has(u)) continue;
    const under = errors.filter((e) => !handled.has(e) && (e.instancePath === u.instancePath || e.instancePath.startsWith(u.instancePath + "/")));
    const path = pointer(u.instancePath);
    const value = path.reduce<any>((x, k) => (x && typeof x === "object" ? x[k] : undefined), doc);
    const isStep = path.length >= 2 && path[path.length - 2] === "steps";
    if (isStep && value && typeof value === "object" && !Array.isArray(value)) {
      const forms = Object.keys(STEP_DEFS).filter((k) => k in value);
      if (forms.length === 1) {
        const def = `/definitions/${STEP_DEFS[forms[0]]}/`;
        for (const e of under) { handled.add(e); if (e.schemaPath.includes(def) || (e.instancePath !== u.instancePath && !e.schemaPath.includes("Step/"))) out.push(e); }
        continue;
      }
      for (const e of under) handled.add(e);
      out.push({ code: "E282", path, instancePath: u.instancePath, message: `a step is exactly one of ${Object.keys(STEP_DEFS).join(", ")}${forms.length ? ` (this one has ${forms.join(" and ")})` : ""}` });
      continue;
    }
    for (const e of under) handled.add(e);
    const call = liveCallShape(path);
    if (call) { out.push({ ...call, path, instancePath: u.instancePath }); continue; }
    const what = u.schemaPath.includes("IdSpec") || (path.length >= 2 && path[path.length - 2] === "ids")
      ? { code: "E245", message: `an id is a path, a list of paths (the first present), "none", or { path | value, op, space, scope }` }
      : { code: "E234", message: `a condition is a value, {in: [...]}, {exists: true|false} or {not: value} (state words take a role: ${ROLES.join(", ")})` };
    out.push({ ...what, path, instancePath: u.instancePath });
  }
  for (const e of errors) if (!handled.has(e)) out.push(e);
  return out;
}
