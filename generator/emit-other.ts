/**
 * Emitters for the remaining artifacts: upstream input types, generated example/coverage tests, and the
 * compatibility matrix (JSON + Markdown).
 */
import { compile } from "json-schema-to-typescript";
import type { CanonicalModel } from "./canonical.ts";
import type { RowIR, StepIR, TableIR } from "./ir.ts";
import type { UpstreamSchemas } from "./upstream.ts";
import { DiagnosticError, jsonOffset, lineCol } from "./diagnostics.ts";
import type { UpstreamTypeNames } from "./emit-mapper.ts";
import type { Compatibility } from "../src/model/matrix.ts";
import { ANSWER_DECISIONS, type AnswerCaseIR } from "./answers.ts";

/** One TS module with the message types of every kind file of a surface (json-schema-to-typescript). */
export async function emitUpstreamTypes(t: TableIR, up: UpstreamSchemas, header: string, open?: (dir: string) => UpstreamSchemas | undefined): Promise<{ code: string; names: UpstreamTypeNames }> {
  const definitions: Record<string, any> = {};
  const names: UpstreamTypeNames = {};
  const roots: Record<string, any> = {};
  const definedIn: Record<string, string> = {};
  for (const k of t.kinds) {
    const extra = (k.extraFiles ?? []).map((x) => {
      const xu = open?.(x.dir);
      if (!xu) throw new DiagnosticError([{ file: t.file, line: 1, col: 1, code: "E201", message: `upstream schema folder "${x.dir}" (extension ${x.extension}) does not exist` }]);
      return xu.file(x.file);
    });
    const files = [...(k.file ? [up.file(k.file)] : []), ...extra];
    const docs = files.map((f) => f.doc);
    if (!docs.length) continue;
    for (const f of files) {
      for (const [name, def] of Object.entries<any>(f.doc.definitions ?? {})) {
        if (definitions[name] && JSON.stringify(definitions[name]) !== JSON.stringify(def)) {
          const p = lineCol(f.text, jsonOffset(f.text, ["definitions", name]));
          throw new DiagnosticError([{ file: f.where, line: p.line, col: p.col, code: "E507", message: `definition "${name}" differs from the one in ${definedIn[name] ?? "another file"}; the ${t.surface} message types cannot be merged (give one of them another name)` }]);
        }
        definitions[name] = def;
        definedIn[name] ??= f.where;
      }
    }
    const doc = docs[0];
    const title: string = (doc.title ?? k.kind).replace(/[^A-Za-z0-9]/g, "");
    const { definitions: _d, $schema: _s, ...rest } = doc;
    // Extension files add their members to the kind's union.
    definitions[title] = docs.length > 1 ? { ...rest, oneOf: docs.flatMap((d) => d.oneOf ?? []), title } : { ...rest, title };
    (names as any)[k.kind] = title;
    roots[k.kind] = { $ref: `#/definitions/${title}` };
  }
  const root = { title: "UpstreamMessages", type: "object", additionalProperties: false, properties: roots, definitions };
  let code: string;
  try {
    code = await compile(root as any, "UpstreamMessages", {
      bannerComment: "",
      additionalProperties: false,
      unreachableDefinitions: false,
      format: false,
      strictIndexSignatures: false,
    });
  } catch (e) {
    const f = t.kinds.find((k) => k.file)?.file;
    throw new DiagnosticError([{ file: f ? `${t.upstream.dir}/${f}` : t.file, line: 1, col: 1, code: "E508", message: `the ${t.surface} message types cannot be generated from the upstream schemas: ${(e as Error).message.split("\n")[0]}` }]);
  }
  code = code.replace(/export interface UpstreamMessages \{[\s\S]*?\n\}\n/, "");
  return { code: `${header}\n/* eslint-disable */\n${code}`, names };
}

/** The rows' examples as a vitest file. */
export function emitExampleTests(t: TableIR, header: string): string {
  const cases = t.rows.flatMap((r) => r.examples.map((ex) => ({ rule: r.rule, ex })));
  const body = cases
    .map(({ ex }) => `  it(${JSON.stringify(`${ex.name} (${t.file}:${ex.line})`)}, () => {
    check(${JSON.stringify(ex.given)}, ${JSON.stringify(ex.input)}, ${JSON.stringify(ex.out)});
  });`)
    .join("\n");
  return `${header}
import { describe, it } from "vitest";
import { table } from "../mappers/${t.surface}.gen.js";
import { expectExample, type ExpectedEvent } from "../../test/support/examples.js";

const check = (given: unknown[], input: unknown, out: ExpectedEvent[]) => expectExample(table, given, input, out);

describe(${JSON.stringify(`${t.surface}: table examples (${t.file})`)}, () => {
${body}
});
`;
}

/** A test that fails when the pinned upstream schema has a method the table doesn't mention, or the table names one it lacks. */
export function emitCoverageTest(t: TableIR, header: string): string {
  const checks = t.kinds
    .filter((k) => k.file || k.extraFiles?.length)
    .map((k) => {
      const older = k.file ? (t.upstream.versions ?? []) : [];
      const files = [...(k.file ? [`${t.upstream.dir}/${k.file}`] : []), ...older.map((pv) => `${pv.dir}/${k.file}`), ...(k.extraFiles ?? []).map((x) => `${x.dir}/${x.file}`)];
      const names = [...(k.file ? [`${t.upstream.package}@${[t.upstream.version, ...older.map((pv) => pv.version)].join("|")} (${k.file})`] : []), ...(k.extraFiles ?? []).map((x) => `${x.extension} (${x.file})`)];
      return `  it(${JSON.stringify(`every ${k.kind} method of ${names.join(" + ")} is mapped or ignored, and no other`)}, () => {
    const upstream = ${older.length ? `[...new Set(${JSON.stringify(files)}.flatMap((f) => methodsOf(f, ${JSON.stringify(k.tag)})))]` : `${JSON.stringify(files)}.flatMap((f) => methodsOf(f, ${JSON.stringify(k.tag)}))`}.sort();
    // Method patterns (\`cursor/*\`) catch what upstream does not list; they are not upstream methods.
    const mapped = Object.keys(table.rows[${JSON.stringify(k.kind)}] ?? {}).filter((m) => !m.endsWith("*"));
    const ignored = ${t.ignored.some((g) => g.when) ? `Object.entries(table.ignored[${JSON.stringify(k.kind)}] ?? {}).filter(([m, id]) => !m.endsWith("*") && !table.ignoreWhen?.[id]).map(([m]) => m)` : `Object.keys(table.ignored[${JSON.stringify(k.kind)}] ?? {}).filter((m) => !m.endsWith("*"))`};
    const mentioned = new Set([...mapped, ...ignored${t.ignored.some((g) => g.when) ? `, ...Object.keys(table.ignored[${JSON.stringify(k.kind)}] ?? {}).filter((m) => !m.endsWith("*"))` : ""}]);${unlistedOf(t, k.kind).length ? `
    // methods the provider sends that its schema does not list (ignore entries marked unlisted)
    for (const m of ${JSON.stringify(unlistedOf(t, k.kind))}) mentioned.delete(m);` : ""}
    expect(upstream.filter((m) => !mentioned.has(m)), "upstream methods the table does not mention").toEqual([]);
    expect([...mentioned].filter((m) => !upstream.includes(m)), "table methods upstream does not have").toEqual([]);
    expect(mapped.filter((m) => ignored.includes(m)), "methods both mapped and ignored").toEqual([]);
  });`;
    })
    .join("\n");
  // Tables pinning several versions: each version's methods are mapped or ignored by entries that apply to it.
  const pinned = t.upstream.versions ? [{ version: t.upstream.version, dir: t.upstream.dir }, ...t.upstream.versions] : [];
  const versionChecks = pinned.flatMap((pv) => t.kinds.filter((k) => k.file).map((k) => `  it(${JSON.stringify(`every ${k.kind} type of ${t.upstream.package}@${pv.version} (${k.file}) is mapped or ignored by a row or entry for that version`)}, () => {
    const upstream = methodsOf(${JSON.stringify(`${pv.dir}/${k.file}`)}, ${JSON.stringify(k.tag)});
    const at = (versions: readonly string[] | undefined) => versions === undefined || versions.includes(${JSON.stringify(pv.version)});
    const mapped = Object.entries(table.rows[${JSON.stringify(k.kind)}] ?? {}).filter(([, rows]) => rows.some((r) => at(r.versions))).map(([m]) => m);
    const ignored = Object.entries(table.ignored[${JSON.stringify(k.kind)}] ?? {}).filter(([, id]) => at(table.ignoreVersions?.[id])).map(([m]) => m);
    const mentioned = new Set([...mapped, ...ignored]);
    expect(upstream.filter((m) => !mentioned.has(m)), "upstream types the table does not account for at this version").toEqual([]);
  });`)).join("\n");
  return `${header}
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { table } from "../mappers/${t.surface}.gen.js";

/** A message union's schema: one variant per type, each naming its type in the tag field (an enum of one, or a const). */
type Union = { oneOf: { properties: Record<string, { enum: [string] } | { const: string }> }[] };

function methodsOf(file: string, tag: string): string[] {
  const doc: Union = JSON.parse(readFileSync(new URL(\`../../\${file}\`, import.meta.url), "utf8"));
  return doc.oneOf.map((v) => v.properties[tag]).map((t) => ("enum" in t ? t.enum[0] : t.const)).sort();
}

describe(${JSON.stringify(`${t.surface}: upstream coverage`)}, () => {
${checks}${versionChecks ? `\n${versionChecks}` : ""}
});
`;
}

export function buildCompatibility(model: CanonicalModel, tables: TableIR[]): Compatibility {
  const out: Compatibility = {
    $comment: "Generated by agentnorm codegen from mappings/*.yaml and schemas/upstream. DO NOT EDIT; run npm run codegen.",
    canonicalEventTypes: model.eventTypes,
    surfaces: {},
  };
  const reach = reachableTypes(tables);
  for (const t of [...tables].sort((a, b) => a.surface.localeCompare(b.surface))) {
    const kinds: Compatibility["surfaces"][string]["kinds"] = {};
    const events: Record<string, Set<string>> = {};
    for (const k of t.kinds) {
      const methods: Record<string, any> = {};
      const rows = t.rows.filter((r) => r.kind === k.kind);
      for (const r of rows) {
        const types = [...reach(t, r)];
        for (const m of r.methods) {
          const entry = (methods[m] ??= { status: "mapped", rules: [], events: [] });
          entry.rules.push(r.rule);
          entry.events = [...new Set([...entry.events, ...types])].sort();
        }
        for (const ty of types) (events[ty] ??= new Set()).add(`${k.kind}:${r.methods.join("|")}`);
        if (hasDispatch(r.steps)) (events["(dispatch)"] ??= new Set()).add(`${k.kind}:${r.methods.join("|")}`);
      }
      // An ignore entry with `when` beside rows of the method ignores only some of its messages: the method stays mapped.
      for (const g of t.ignored.filter((g) => g.kind === k.kind)) {
        for (const m of g.methods) {
          if (g.unlisted) methods[m] = { status: "ignored", reason: g.reason, unlisted: true };
          else if (g.when && methods[m]?.status === "mapped") methods[m].ignoredWhen = g.reason;
          else methods[m] = { status: "ignored", reason: g.reason };
        }
      }
      for (const m of k.upstreamMethods ?? []) if (!methods[m]) methods[m] = { status: "missing" };
      const sorted = Object.fromEntries(Object.entries(methods).sort(([a], [b]) => a.localeCompare(b)));
      // Method patterns (`cursor/*`, `*`) catch methods upstream does not list: counted apart from the mapped methods.
      const vals = Object.entries<any>(sorted).filter(([m, x]) => !m.endsWith("*") && !x.unlisted).map(([, x]) => x);
      const patterns = Object.keys(sorted).filter((m) => m.endsWith("*")).length;
      // Methods the provider sends that its schema does not list (ignore entries marked unlisted): counted apart too.
      const unlisted = Object.values<any>(sorted).filter((x) => x.unlisted).length;
      // Several pinned versions: which versions have each method, and the counts per version (rows and ignore
      // entries count at the versions they apply to).
      let versions: Record<string, { total: number; mapped: number; ignored: number; missing: number }> | undefined;
      if (k.versionMethods) {
        versions = {};
        for (const [ver, ms] of Object.entries(k.versionMethods)) {
          const at = (vs: string[] | undefined) => !vs || vs.includes(ver);
          let mapped = 0, ignored = 0;
          for (const m of ms) {
            if (rows.some((r) => r.methods.includes(m) && at(r.versions))) mapped++;
            else if (t.ignored.some((g) => g.kind === k.kind && g.methods.includes(m) && at(g.versions))) ignored++;
            (sorted[m].versions ??= []).push(ver);
          }
          versions[ver] = { total: ms.length, mapped, ignored, missing: ms.length - mapped - ignored };
        }
      }
      kinds[k.kind] = {
        total: k.upstreamMethods ? k.upstreamMethods.length : null,
        mapped: vals.filter((x) => x.status === "mapped").length,
        ignored: vals.filter((x) => x.status === "ignored").length,
        missing: vals.filter((x) => x.status === "missing").length,
        ...(patterns ? { patterns } : {}),
        ...(unlisted ? { unlisted } : {}),
        ...(versions ? { versions } : {}),
        ...(k.subtypeCoverage ? { subtypes: k.subtypeCoverage } : {}),
        methods: sorted,
      };
    }
    const answers = answersOf(model, t);
    out.surfaces[t.surface] = {
      table: t.file,
      upstream: t.upstream,
      kinds,
      events: Object.fromEntries(Object.entries(events).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()])),
      ...(answers ? { answers } : {}),
      ...(t.live ? { live: t.live.map(({ line: _line, ...l }) => l) } : {}),
    };
  }
  return out;
}

/**
 * What answerRequest can answer for a surface's requests: per row that opens requests and request type, the reply
 * decisions some case answers over the row's default transport (the cases in order: one with a body in an envelope
 * of that transport answers, one that fails whatever the request is stops; a `when` that tests payload.requestType
 * counts for the types it admits, other conditions may hold; the type's kind rules out the rest: a host call takes
 * completed or failed, other requests never do), or why the row is not answered; per request type, the union.
 */
function answersOf(model: CanonicalModel, t: TableIR): NonNullable<Compatibility["surfaces"][string]["answers"]> | undefined {
  const requestRows = t.rows.filter((r) => r.request);
  if (!requestRows.length) return undefined;
  const kindOf = (type: string) => Object.entries(model.requestKinds).find(([, ts]) => ts.includes(type))?.[0] ?? "permission";
  const admits = (c: AnswerCaseIR, type: string) => c.when.every((w) => {
    if (w.k === "state" || w.path.k !== "path" || w.path.root !== "payload" || w.path.segs.join(".") !== "requestType") return true;
    return w.k === "eq" ? w.value === type : w.k === "not" ? w.value !== type : w.k === "in" ? w.values.includes(type) : true;
  });
  const order = (ds: Iterable<string>) => ANSWER_DECISIONS.filter((d) => new Set(ds).has(d));
  const onlyType = (c: AnswerCaseIR) => c.when.every((w) => w.k !== "state" && w.path.k === "path" && w.path.root === "payload" && w.path.segs.join(".") === "requestType");
  const envelopes = new Map((t.answering?.envelopes ?? []).map((e) => [e.name, e]));
  /** Over `transport`, the cases tried in order: one that answers, before one that always fails. */
  const answers = (cases: AnswerCaseIR[], d: string, type: string, transport: string | undefined): boolean => {
    for (const c of cases) {
      if (!c.decisions.includes(d) || (c.transport !== undefined && c.transport !== transport) || !admits(c, type)) continue;
      if (c.body && c.via.some((n) => { const e = envelopes.get(n); return e && (e.transport === undefined || e.transport === transport); })) return true;
      if (c.fail && onlyType(c)) return false;
    }
    return false;
  };
  const byType: Record<string, Set<string>> = {};
  const rows: Record<string, { requestTypes: string[]; transport?: string; decisions?: Record<string, string[]>; none?: string }> = {};
  for (const r of requestRows) {
    const types = r.request!.requestTypes;
    if (!r.answers || r.answers.none !== undefined) { rows[r.rule] = { requestTypes: types, none: r.answers?.none ?? "(no answers)" }; continue; }
    const transport = r.answers.transport ?? t.answering?.transports[0];
    const decisions: Record<string, string[]> = {};
    for (const type of types) {
      const host = kindOf(type) === "host_call";
      const ds = ANSWER_DECISIONS.filter((d) => (d === "completed" || d === "failed") === host && answers(r.answers!.cases, d, type, transport));
      decisions[type] = order(ds);
      for (const d of ds) (byType[type] ??= new Set()).add(d);
    }
    rows[r.rule] = { requestTypes: types, ...(transport !== undefined ? { transport } : {}), decisions };
  }
  return {
    ...(t.answering?.transports.length ? { transports: t.answering.transports } : {}),
    requestTypes: Object.fromEntries(Object.keys(byType).sort().map((k) => [k, order(byType[k])])),
    rows,
  };
}

function hasDispatch(steps: StepIR[]): boolean {
  return steps.some((s) => s.k === "dispatch" || (s.k === "each" && hasDispatch(s.steps)));
}

/**
 * The canonical event types a row can produce: what its steps emit (a snapshot emits content.delta), plus what the
 * rows its dispatch steps reach emit — the rows of the target table matching the dispatched message's method or type
 * when the message names it literally, else every row of the target table.
 */
export function reachableTypes(tables: TableIR[]): (t: TableIR, r: RowIR) => Set<string> {
  const bySurface = new Map(tables.map((t) => [t.surface, t]));
  const own = new Map<RowIR, Set<string>>();
  const edges = new Map<RowIR, RowIR[]>();
  for (const t of tables) {
    for (const r of t.rows) {
      const types = new Set<string>();
      const next: RowIR[] = [];
      const walk = (steps: StepIR[]) => {
        for (const s of steps) {
          if (s.k === "emit") types.add(s.type);
          else if (s.k === "snapshot") types.add("content.delta");
          else if (s.k === "each") walk(s.steps);
          else if (s.k === "dispatch") {
            const target = bySurface.get(s.surface ?? t.surface);
            if (!target) continue;
            const tags = new Set(target.protocol === "tagged" ? target.kinds.map((k) => k.tag) : ["method"]);
            const named = s.message.k === "obj" ? s.message.entries.find(([k, e]) => tags.has(k) && e.k === "lit" && typeof e.v === "string")?.[1] : undefined;
            const method = named?.k === "lit" ? String(named.v) : undefined;
            next.push(...target.rows.filter((tr) => method === undefined || tr.methods.includes(method)));
          }
        }
      };
      walk(r.steps);
      own.set(r, types);
      edges.set(r, next);
    }
  }
  // Fixpoint: a row reaches what the rows it dispatches to reach (tables may dispatch to themselves).
  for (let changed = true; changed;) {
    changed = false;
    for (const [r, next] of edges) {
      const set = own.get(r)!;
      for (const n of next) for (const ty of own.get(n)!) if (!set.has(ty)) { set.add(ty); changed = true; }
    }
  }
  return (_t, r) => own.get(r) ?? new Set();
}

/** The methods of a kind that ignore entries say the upstream schema does not list (`unlisted: true`). */
function unlistedOf(t: TableIR, kind: string): string[] {
  return t.ignored.filter((g) => g.kind === kind && g.unlisted).flatMap((g) => g.methods);
}
