/**
 * Surface inventories and their comparison, for the drift check (`npm run drift`).
 *
 * An inventory is what a table has to account for at one upstream version: per message kind, the method (or type)
 * names of the kind's union file — read with the generator's own reader (UpstreamSchemas.methods, the one codegen's
 * coverage check uses) — and per method a set of facts about its schema: the field paths it declares
 * (`params.item.status`) and the string values its enums and consts allow (`params.item.type = "webSearch"`, the
 * subtypes). A newer version is derived into a folder of the same files (tools/sync's code paths), then compared with
 * what the tables account for: the methods generated/compatibility.json lists as mapped or ignored, and the facts
 * of the pinned schemas in schemas/upstream/ the tables were checked against.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { UpstreamSchemas, isMethodPattern } from "../../generator/upstream.ts";

export interface KindSpec { kind: string; file: string; tag: string; dir?: string }

/** A table's upstream section (the part the drift check needs). */
export interface TableUpstream {
  surface: string; package: string; version: string; dir: string; kinds: KindSpec[];
  /** Every pinned version (the main one first) with its folder: tables covering several versions list them in `versions`. */
  versions: { version: string; dir: string }[];
  /** Kinds an extension of the table adds, each with its own folder (`dir`). */
  extensionKinds: KindSpec[];
}

export function readTableUpstream(root: string, surface: string): TableUpstream {
  const doc = parse(readFileSync(join(root, "mappings", `${surface}.yaml`), "utf8"));
  const up = doc.upstream;
  const protocol = doc.protocol;
  const kindsOf = (ks: any, dir?: string): KindSpec[] => Object.entries<any>(ks ?? {})
    .filter(([, k]) => typeof k?.file === "string")
    .map(([kind, k]) => ({ kind, file: k.file, tag: k.tag ?? (protocol === "jsonrpc" ? "method" : "type"), ...(dir ? { dir } : {}) }));
  const kinds = kindsOf(up.kinds);
  const versions = [{ version: String(up.version), dir: String(up.dir) }, ...(Array.isArray(up.versions) ? up.versions.map((v: any) => ({ version: String(v.version), dir: String(v.dir) })) : [])];
  const extensionKinds = (Array.isArray(up.extensions) ? up.extensions : []).flatMap((e: any) => kindsOf(e.kinds, String(e.dir)).map((k) => ({ ...k, tag: kinds.find((x) => x.kind === k.kind)?.tag ?? k.tag })));
  return { surface, package: String(up.package), version: String(up.version), dir: String(up.dir), kinds, versions, extensionKinds };
}

/** The table pinned at another of its versions (`versions`): the same kinds in that version's folder. */
export function atVersion(t: TableUpstream, version: string): TableUpstream {
  const v = t.versions.find((x) => x.version === version);
  if (!v) throw new Error(`mappings/${t.surface}.yaml pins no version ${version} (it pins ${t.versions.map((x) => x.version).join(", ")})`);
  return { ...t, version: v.version, dir: v.dir };
}

/** What generated/compatibility.json says a table accounts for: kind → method → mapped | ignored. */
export function accounted(root: string, surface: string): Map<string, Map<string, "mapped" | "ignored">> {
  const compat = JSON.parse(readFileSync(join(root, "generated/compatibility.json"), "utf8"));
  const s = compat.surfaces?.[surface];
  if (!s) throw new Error(`generated/compatibility.json has no surface "${surface}"`);
  const out = new Map<string, Map<string, "mapped" | "ignored">>();
  for (const [kind, k] of Object.entries<any>(s.kinds ?? {})) {
    out.set(kind, new Map(Object.entries<any>(k.methods ?? {}).map(([m, v]) => [m, v.status === "ignored" ? "ignored" : "mapped"])));
  }
  return out;
}

/** The method patterns (`cursor/*`, `_*`) of a kind that would catch `method`. */
function patternsFor(methods: Map<string, unknown> | undefined, method: string): string[] {
  return [...(methods?.keys() ?? [])].filter((p) => isMethodPattern(p) && method.startsWith(p.slice(0, -1)));
}

/**
 * Facts of a schema node: `field <path>` for each declared property, `value <path> = "<v>"` for each string an enum
 * or const allows. Follows local $refs (each once per path), oneOf/anyOf/allOf (at the same path), items (`[]`) and
 * additionalProperties schemas (`*`). Fields are collected to `maxDepth` levels, values one level further (so with
 * maxDepth 1: the top-level fields and the values of top-level fields, e.g. `subtype`).
 *
 * A fact inside a variant of a discriminated union names the variant: `field duration_ms @ subtype = "task_notification"`
 * (a discriminator: a property that is one string literal in at least two variants of the union, with different
 * values). The values of a union's literal properties (its discriminators, and a literal all its variants share) are
 * not qualified (`value subtype = "task_notification"`, `value type = "system"`); other values are
 * (`value reason = "x" @ subtype = "y"`).
 */
export function facts(doc: any, node: any, maxDepth: number): Set<string> {
  const out = new Set<string>();
  const deref = (n: any, refs: ReadonlySet<string>): [any, ReadonlySet<string>] => {
    while (n && typeof n === "object" && typeof n.$ref === "string") {
      const ref: string = n.$ref;
      if (refs.has(ref) || !ref.startsWith("#/")) return [undefined, refs];
      refs = new Set([...refs, ref]);
      n = ref.slice(2).split("/").reduce((x: any, k) => x?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], doc);
    }
    return [n, refs];
  };
  /** The one string literal a property schema is, if it is one. */
  const literal = (n: any, refs: ReadonlySet<string>): string | undefined => {
    const [s] = deref(n, refs);
    if (typeof s?.const === "string") return s.const;
    if (Array.isArray(s?.enum) && s.enum.length === 1 && typeof s.enum[0] === "string") return s.enum[0];
    return undefined;
  };
  /**
   * Per variant of a union: its discriminating literals (`subtype = "x"`); and the paths of the union's literal
   * properties (discriminators, and literals every variant shares like a `type` above subtypes), whose values are not
   * qualified by the variant.
   */
  const labels = (alts: any[], path: string, refs: ReadonlySet<string>): { per: string[][]; literalPaths: string[] } => {
    const props = alts.map((a) => deref(a, refs)[0]?.properties ?? {});
    const keys = new Set(props.flatMap((p) => Object.keys(p)));
    const full = (k: string) => `${path ? `${path}.` : ""}${k}`;
    const lits = (k: string) => props.map((p) => (p[k] ? literal(p[k], refs) : undefined));
    const disc = [...keys].filter((k) => new Set(lits(k).filter((x) => x !== undefined)).size >= 2);
    const shared = [...keys].filter((k) => { const l = lits(k); return l.every((x) => x !== undefined) && new Set(l).size === 1; });
    return {
      per: props.map((p) => disc.flatMap((k) => {
        const v = p[k] ? literal(p[k], refs) : undefined;
        return v === undefined ? [] : [`${full(k)} = ${JSON.stringify(v)}`];
      })),
      literalPaths: [...disc, ...shared].map(full),
    };
  };
  const q = (quals: string[]) => (quals.length ? ` @ ${quals.join(", ")}` : "");
  const walk = (n0: any, path: string, depth: number, refs0: ReadonlySet<string>, quals: string[], literalPaths: ReadonlySet<string>): void => {
    const [n, refs] = deref(n0, refs0);
    if (!n || typeof n !== "object" || Array.isArray(n) || depth > maxDepth) return;
    for (const k of ["oneOf", "anyOf"]) {
      if (!Array.isArray(n[k])) continue;
      const { per, literalPaths: lp } = labels(n[k], path, refs);
      const inner = new Set([...literalPaths, ...lp]);
      n[k].forEach((a: any, i: number) => walk(a, path, depth, refs, [...quals, ...per[i]], inner));
    }
    if (Array.isArray(n.allOf)) for (const a of n.allOf) walk(a, path, depth, refs, quals, literalPaths);
    const at = path || "(root)";
    const vq = literalPaths.has(path) ? "" : q(quals);
    if (Array.isArray(n.enum)) for (const v of n.enum) if (typeof v === "string") out.add(`value ${at} = ${JSON.stringify(v)}${vq}`);
    if (typeof n.const === "string") out.add(`value ${at} = ${JSON.stringify(n.const)}${vq}`);
    if (n.properties && typeof n.properties === "object") {
      for (const [k, v] of Object.entries(n.properties)) {
        const p = path ? `${path}.${k}` : k;
        // a union's literal fields (its discriminator, a shared `type`) are not qualified by the variant
        if (depth < maxDepth) out.add(`field ${p}${literalPaths.has(p) ? "" : q(quals)}`);
        walk(v, p, depth + 1, refs, quals, literalPaths);
      }
    }
    if (n.items && typeof n.items === "object") walk(n.items, `${path}[]`, depth + 1, refs, quals, literalPaths);
    if (n.additionalProperties && typeof n.additionalProperties === "object") walk(n.additionalProperties, `${path}.*`, depth + 1, refs, quals, literalPaths);
  };
  walk(node, "", 0, new Set(), [], new Set());
  return out;
}

/** A fact without the variant it is in (`field x @ subtype = "y"` → `field x`). */
export const unqualified = (f: string) => f.replace(/ @ .*$/, "");

export interface KindDrift {
  kind: string;
  file: string;
  /** Upstream methods the table neither maps nor ignores (with the patterns that would catch them at run time). */
  newMethods: { method: string; caughtBy: string[] }[];
  /** Methods of the pinned schema the newer version no longer has (informational: the table keeps them for old streams). */
  goneMethods: string[];
  /** Per method in both versions: facts of the newer schema the pinned one does not have. */
  newFacts: { method: string; facts: string[] }[];
}

export interface SurfaceDrift {
  surface: string;
  pinned: string;
  checked: string;
  kinds: KindDrift[];
  /** Kinds the derived folder has no file for (not re-derivable from the package). */
  notDerived: string[];
  /** What the newer version was compared with: the pinned version derived the same way, or the pinned schema folder. */
  against: "pinned derivation" | "pinned schema";
  drift: boolean;
}

const byValueFirst = (a: string, b: string) => (a.startsWith("value") === b.startsWith("value") ? (a < b ? -1 : a > b ? 1 : 0) : a.startsWith("value") ? -1 : 1);

/**
 * Compare a derived folder (the newer version's files, same names as the pinned folder) with a table.
 * `maxDepth`: how deep facts are collected (see facts()); `kinds`: restrict to these kinds.
 *
 * `baselineDir`: the pinned version derived the same way (for packages whose pinned folder is written by hand, in
 * another form than a derivation: Claude's merged members, Cursor's and the Codex SDK's hand translations). Then
 * what is new is what the newer derivation has and the pinned one has not — the pinned version checked against
 * itself gives nothing — and a fact counts as known also when the pinned folder declares it. Without a baseline the
 * newer derivation is compared with the pinned folder; when that folder is written by hand (`handWritten`), a fact of
 * a variant (`@ subtype = …`) then also counts as known when the folder declares it without the variant (its members
 * may be merged), so a field that moves to another subtype is not seen.
 */
export function compareSurface(root: string, table: TableUpstream, derivedDir: string, checked: string, opts: { maxDepth?: number; kinds?: string[]; baselineDir?: string; handWritten?: boolean } = {}): SurfaceDrift {
  const maxDepth = opts.maxDepth ?? 6;
  const pinned = new UpstreamSchemas(join(root, table.dir), table.dir);
  const derived = new UpstreamSchemas(derivedDir);
  const base = opts.baselineDir ? new UpstreamSchemas(opts.baselineDir) : undefined;
  const acc = accounted(root, table.surface);
  const kinds: KindDrift[] = [];
  const notDerived: string[] = [];
  for (const k of table.kinds) {
    if (opts.kinds && !opts.kinds.includes(k.kind)) continue;
    if (!derived.exists(k.file)) {
      notDerived.push(k.kind);
      continue;
    }
    const now = derived.methods(k.file, k.tag);
    const schema = pinned.methods(k.file, k.tag);
    const baseline = base?.exists(k.file) ? base.methods(k.file, k.tag) : undefined;
    const before = baseline ?? schema;
    const known = acc.get(k.kind);
    const newMethods = [...now.keys()].filter((m) => !known?.has(m) && !baseline?.has(m)).sort().map((m) => ({ method: m, caughtBy: patternsFor(known, m) }));
    const goneMethods = [...before.keys()].filter((m) => !now.has(m)).sort();
    const newFacts: KindDrift["newFacts"] = [];
    for (const [m, u] of [...now].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const b = baseline?.get(m);
      const p = schema.get(m);
      if (!b && !p) continue;
      const had = new Set([...(b ? facts(b.message.doc, b.message.node, maxDepth) : []), ...(p ? facts(p.message.doc, p.message.node, maxDepth) : [])]);
      const anywhere = new Set([...had].map(unqualified));
      const loose = !baseline && opts.handWritten;
      // a fact outside any variant is known when the pinned version has it in some variant (a union that became one
      // member); a fact of a variant must be on that variant (loose: anywhere)
      const isKnown = (f: string) => had.has(f) || ((loose || f === unqualified(f)) && anywhere.has(unqualified(f)));
      // values (new subtypes / variants) first, then fields
      const extra = [...facts(u.message.doc, u.message.node, maxDepth)].filter((f) => !isKnown(f)).sort(byValueFirst);
      if (extra.length) newFacts.push({ method: m, facts: extra });
    }
    kinds.push({ kind: k.kind, file: k.file, newMethods, goneMethods, newFacts });
  }
  const drift = kinds.some((k) => k.newMethods.length > 0 || k.newFacts.length > 0);
  return { surface: table.surface, pinned: table.version, checked, kinds, notDerived, against: base ? "pinned derivation" : "pinned schema", drift };
}
