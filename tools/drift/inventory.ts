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

export interface KindSpec { kind: string; file: string; tag: string }

/** A table's upstream section (the part the drift check needs). */
export interface TableUpstream { surface: string; package: string; version: string; dir: string; kinds: KindSpec[] }

export function readTableUpstream(root: string, surface: string): TableUpstream {
  const doc = parse(readFileSync(join(root, "mappings", `${surface}.yaml`), "utf8"));
  const up = doc.upstream;
  const protocol = doc.protocol;
  const kinds: KindSpec[] = Object.entries<any>(up.kinds ?? {})
    .filter(([, k]) => typeof k?.file === "string")
    .map(([kind, k]) => ({ kind, file: k.file, tag: k.tag ?? (protocol === "jsonrpc" ? "method" : "type") }));
  return { surface, package: String(up.package), version: String(up.version), dir: String(up.dir), kinds };
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
 */
export function facts(doc: any, node: any, maxDepth: number): Set<string> {
  const out = new Set<string>();
  const walk = (n: any, path: string, depth: number, refs: ReadonlySet<string>): void => {
    if (!n || typeof n !== "object" || Array.isArray(n) || depth > maxDepth) return;
    if (typeof n.$ref === "string") {
      const ref: string = n.$ref;
      if (refs.has(ref) || !ref.startsWith("#/")) return;
      const target = ref.slice(2).split("/").reduce((x: any, k) => x?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], doc);
      walk(target, path, depth, new Set([...refs, ref]));
    }
    for (const k of ["oneOf", "anyOf", "allOf"]) if (Array.isArray(n[k])) for (const a of n[k]) walk(a, path, depth, refs);
    if (Array.isArray(n.enum)) for (const v of n.enum) if (typeof v === "string") out.add(`value ${path || "(root)"} = ${JSON.stringify(v)}`);
    if (typeof n.const === "string") out.add(`value ${path || "(root)"} = ${JSON.stringify(n.const)}`);
    if (n.properties && typeof n.properties === "object") {
      for (const [k, v] of Object.entries(n.properties)) {
        const p = path ? `${path}.${k}` : k;
        if (depth < maxDepth) out.add(`field ${p}`);
        walk(v, p, depth + 1, refs);
      }
    }
    if (n.items && typeof n.items === "object") walk(n.items, `${path}[]`, depth + 1, refs);
    if (n.additionalProperties && typeof n.additionalProperties === "object") walk(n.additionalProperties, `${path}.*`, depth + 1, refs);
  };
  walk(node, "", 0, new Set());
  return out;
}

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
  drift: boolean;
}

/**
 * Compare a derived folder (the newer version's files, same names as the pinned folder) with a table.
 * `maxDepth`: how deep facts are collected (see facts()); `kinds`: restrict to these kinds.
 */
export function compareSurface(root: string, table: TableUpstream, derivedDir: string, checked: string, opts: { maxDepth?: number; kinds?: string[] } = {}): SurfaceDrift {
  const maxDepth = opts.maxDepth ?? 6;
  const pinned = new UpstreamSchemas(join(root, table.dir), table.dir);
  const derived = new UpstreamSchemas(derivedDir);
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
    const before = pinned.methods(k.file, k.tag);
    const known = acc.get(k.kind);
    const newMethods = [...now.keys()].filter((m) => !known?.has(m)).sort().map((m) => ({ method: m, caughtBy: patternsFor(known, m) }));
    const goneMethods = [...before.keys()].filter((m) => !now.has(m)).sort();
    const newFacts: KindDrift["newFacts"] = [];
    for (const [m, u] of [...now].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const b = before.get(m);
      if (!b) continue;
      const had = facts(b.message.doc, b.message.node, maxDepth);
      // values (new subtypes / variants) first, then fields
      const extra = [...facts(u.message.doc, u.message.node, maxDepth)].filter((f) => !had.has(f)).sort((a, b) => (a.startsWith("value") === b.startsWith("value") ? (a < b ? -1 : a > b ? 1 : 0) : a.startsWith("value") ? -1 : 1));
      if (extra.length) newFacts.push({ method: m, facts: extra });
    }
    kinds.push({ kind: k.kind, file: k.file, newMethods, goneMethods, newFacts });
  }
  const drift = kinds.some((k) => k.newMethods.length > 0 || k.newFacts.length > 0);
  return { surface: table.surface, pinned: table.version, checked, kinds, notDerived, drift };
}
