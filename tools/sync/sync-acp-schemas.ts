/**
 * Maintainer script (`npx tsx tools/sync/sync-acp-schemas.ts [--version 2.4.0]`): regenerate
 * schemas/upstream/acp/<version>/ from the Agent Client Protocol SDK's shipped JSON Schema.
 *
 * It installs @agentclientprotocol/sdk@<version> into a temporary folder (npm install --ignore-scripts),
 * vendors schema/v1/schema.json verbatim, and derives the per-kind union files our generator reads
 * (AgentNotification.json, AgentRequest.json, ClientRequest.json, ClientNotification.json: `oneOf` of
 * `{method: {enum: [m]}, params: {$ref: <X>Params}}`) plus one `<X>Response.json` per request method, so the
 * generator's Params→Response lookup works. Method names come from the schema (`x-method`/`x-side` of the defs
 * the `AgentRequest`/… unions reference) and are cross-checked against the package's AGENT_METHODS /
 * CLIENT_METHODS / PROTOCOL_METHODS constants. `_`-prefixed extension methods are listed nowhere. CI never runs
 * this: the output is committed. `npm run drift` imports deriveAcp to derive a newer version's files the same way.
 *
 * The package's other three schemas — ACP v1 with its unstable methods (`schema/v1/schema.unstable.json`), the v2 draft
 * (`schema/v2/schema.json`) and the v2 draft with its unstable methods (`schema/v2/schema.unstable.json`) — are pinned
 * beside it (deriveAcpVariants): schemas/upstream/acp-unstable/<version>, acp-v2/<version>, acp-v2-unstable/<version>,
 * each the schema verbatim plus the same per-kind union files for the methods no schema before it in that order has
 * (so mappings/acp.yaml takes them as `upstream.extensions` and the generator's coverage check holds every method of
 * every schema), with only the definitions those methods reach.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMain, listFiles, npmInstall, sha256Rows } from "./sync-util.ts";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const PKG = "@agentclientprotocol/sdk";

/** The derived files use `definitions` (draft-07 spelling): generator/emit-other.ts merges `definitions` of kind files. */
const rewriteRefs = (x: any): any =>
  Array.isArray(x) ? x.map(rewriteRefs)
  : x && typeof x === "object" ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, "#/definitions/") : rewriteRefs(v)]))
  : x;

/**
 * Our generator's path resolver (generator/upstream.ts) reads a node's `allOf` members *instead of* the node's own
 * `properties` when it has both, and the ACP schema puts discriminator/own properties beside `allOf`/`anyOf`
 * (`{properties: {sessionUpdate: {const}}, allOf: [{$ref: ContentChunk}]}`). Rewrite such nodes, without changing
 * what they accept, as `{allOf: [{properties, required}, ...allOf, {anyOf}, {oneOf}]}`.
 */
const hoistProperties = (x: any): any => {
  if (Array.isArray(x)) return x.map(hoistProperties);
  if (!x || typeof x !== "object") return x;
  const n: any = Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "properties" ? Object.fromEntries(Object.entries(v as any).map(([pk, pv]) => [pk, hoistProperties(pv)])) : hoistProperties(v)]));
  // `{description, allOf: [{$ref}]}` (a documented reference) → `{description, $ref}`: the resolver does not look
  // through an allOf nested in another allOf.
  const ANNOTATION = (k: string) => k === "description" || k === "title" || k === "default" || k.startsWith("x-");
  if (Array.isArray(n.allOf) && n.allOf.length === 1 && typeof n.allOf[0]?.$ref === "string" && Object.keys(n).every((k) => k === "allOf" || ANNOTATION(k))) {
    const { allOf, ...rest } = n;
    return { ...rest, $ref: allOf[0].$ref };
  }
  if (!n.properties || !(n.allOf || n.anyOf || n.oneOf)) return n;
  const { properties, required, allOf, anyOf, oneOf, ...rest } = n;
  return { ...rest, allOf: [{ type: "object", properties, ...(required ? { required } : {}) }, ...(allOf ?? []), ...(anyOf ? [{ anyOf }] : []), ...(oneOf ? [{ oneOf }] : [])] };
};

/**
 * Derive the folder's schema files from an installed package (`pkgDir` = node_modules/@agentclientprotocol/sdk) into
 * `dest` (created; not emptied): schema.json verbatim plus the per-kind unions and response files. Returns one line
 * per derived file (for PROVENANCE.md).
 */
export async function deriveAcp(pkgDir: string, dest: string): Promise<string[]> {
  const schemaText = readFileSync(join(pkgDir, "schema/v1/schema.json"), "utf8");
  const schema = JSON.parse(schemaText);
  const defs: Record<string, any> = schema.$defs;
  const consts = await import(pathToFileURL(join(pkgDir, "dist/v1/schema/index.js")).href);

  /** The concrete member defs a union ($defs.AgentRequest, …) lists under params (or result), with their x-method. */
  const members = (union: string): { def: string; method: string }[] => {
    const out: { def: string; method: string }[] = [];
    const walk = (n: any) => {
      if (!n || typeof n !== "object") return;
      if (Array.isArray(n)) return n.forEach(walk);
      if (typeof n.$ref === "string") {
        const name = n.$ref.replace(/^#\/\$defs\//, "");
        const m = defs[name]?.["x-method"];
        if (typeof m === "string" && !m.startsWith("_")) out.push({ def: name, method: m });
        return;
      }
      for (const k of ["anyOf", "oneOf", "allOf"]) if (n[k]) walk(n[k]);
    };
    walk(defs[union].properties.params);
    return out;
  };
  const protocolNotifications = Object.entries(defs)
    .filter(([, d]) => d?.["x-side"] === "protocol" && typeof d["x-method"] === "string")
    .map(([name, d]) => ({ def: name, method: d["x-method"] as string }));

  const paramsAlias = (def: string) => def.replace(/Request$/, "") + "Params";
  const kinds: { file: string; title: string; union: string; extra?: typeof protocolNotifications; request: boolean; side: string }[] = [
    { file: "AgentNotification.json", title: "AcpAgentNotificationMessage", union: "AgentNotification", extra: protocolNotifications, request: false, side: "client" },
    { file: "AgentRequest.json", title: "AcpAgentRequestMessage", union: "AgentRequest", request: true, side: "client" },
    { file: "ClientRequest.json", title: "AcpClientRequestMessage", union: "ClientRequest", request: true, side: "agent" },
    { file: "ClientNotification.json", title: "AcpClientNotificationMessage", union: "ClientNotification", extra: protocolNotifications, request: false, side: "agent" },
  ];
  const aliases: Record<string, any> = {};
  const plan = kinds.map((k) => {
    const list = [...members(k.union), ...(k.extra ?? [])];
    for (const m of list) {
      const a = paramsAlias(m.def);
      if (defs[a] && !aliases[a]) throw new Error(`alias ${a} collides with an upstream $def`);
      aliases[a] = { $ref: `#/definitions/${m.def}` };
    }
    return { ...k, list };
  });
  const definitions = { ...hoistProperties(rewriteRefs(defs)), ...aliases };

  // Cross-check the method sets against the package's constants.
  const fromSchema = new Set(plan.flatMap((k) => k.list.map((m) => m.method)));
  const fromConsts = new Set<string>([...Object.values<string>(consts.AGENT_METHODS), ...Object.values<string>(consts.CLIENT_METHODS), ...Object.values<string>(consts.PROTOCOL_METHODS ?? {})]);
  const diff = [...fromSchema].filter((m) => !fromConsts.has(m)).concat([...fromConsts].filter((m) => !fromSchema.has(m)));
  if (diff.length) throw new Error(`schema method set differs from AGENT_METHODS/CLIENT_METHODS/PROTOCOL_METHODS: ${diff.join(", ")}`);

  mkdirSync(dest, { recursive: true });
  writeFileSync(join(dest, "schema.json"), schemaText);
  const derived: string[] = [];
  for (const k of plan) {
    const doc = {
      title: k.title,
      description: `Derived from schema.json $defs.${k.union} by tools/sync/sync-acp-schemas.ts: one member per x-method.`,
      oneOf: k.list.map((m) => ({
        type: "object",
        required: k.request ? ["id", "method"] : ["method"],
        properties: {
          ...(k.request ? { id: { $ref: "#/definitions/RequestId" } } : {}),
          method: { enum: [m.method] },
          params: { $ref: `#/definitions/${paramsAlias(m.def)}` },
        },
      })),
      definitions,
    };
    writeFileSync(join(dest, k.file), JSON.stringify(doc, null, 2) + "\n");
    derived.push(`${k.file}: ${k.list.map((m) => `\`${m.method}\``).join(", ")}`);
    if (!k.request) continue;
    for (const m of k.list) {
      const resp = Object.entries(defs).find(([name, d]) => name.endsWith("Response") && d?.["x-method"] === m.method && d["x-side"] === k.side)?.[0];
      if (!resp) throw new Error(`no response def for ${m.method}`);
      const file = `${paramsAlias(m.def).replace(/Params$/, "Response")}.json`;
      writeFileSync(join(dest, file), JSON.stringify({ title: resp, $ref: `#/definitions/${resp}`, definitions }, null, 2) + "\n");
      derived.push(`${file}: result of \`${m.method}\` (→ \`${resp}\`)`);
    }
  }
  return derived;
}

/** The package's schemas beyond stable v1, in the order they are pinned (each derives only what the ones before it lack). */
export const ACP_VARIANTS = [
  { name: "acp-unstable", schema: "schema/v1/schema.unstable.json", consts: "dist/v1/unstable/schema/index.js", what: "ACP v1 with its unstable methods", suffix: "Unstable" },
  { name: "acp-v2", schema: "schema/v2/schema.json", consts: "dist/v2/schema/index.js", what: "the ACP v2 draft (stable part)", suffix: "V2" },
  { name: "acp-v2-unstable", schema: "schema/v2/schema.unstable.json", consts: "dist/v2/unstable/schema/index.js", what: "the ACP v2 draft with its unstable methods", suffix: "V2Unstable" },
] as const;

/** `n` with every `#/definitions/X` ref renamed by `rename` (X → rename(X)). */
const renameRefs = (n: any, rename: Map<string, string>): any =>
  Array.isArray(n) ? n.map((x) => renameRefs(x, rename))
  : n && typeof n === "object" ? Object.fromEntries(Object.entries(n).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/definitions/") ? `#/definitions/${rename.get(v.slice(14)) ?? v.slice(14)}` : renameRefs(v, rename)]))
  : n;

/**
 * The generator merges the definitions of a surface's kind files into one type module, and a name must mean one
 * schema there. Of `defs` (reached from `roots`), each definition whose content — its refs renamed — differs from the
 * one `taken` has under that name gets the name + `suffix`, until nothing changes. Returns the renamed definitions.
 */
function disambiguate(defs: Record<string, any>, roots: string[], taken: Map<string, string>, suffix: string): { defs: Record<string, any>; rename: Map<string, string> } {
  const rename = new Map<string, string>();
  const closure = reachable(defs, roots);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, def] of Object.entries(closure)) {
      if (rename.has(name)) continue;
      const had = taken.get(name);
      if (had !== undefined && had !== JSON.stringify(renameRefs(def, rename))) {
        const to = `${name}${suffix}`;
        if (taken.has(to) || to in closure) throw new Error(`cannot rename ${name}: ${to} is taken`);
        rename.set(name, to);
        changed = true;
      }
    }
  }
  const out = Object.fromEntries(Object.entries(closure).map(([name, def]) => [rename.get(name) ?? name, renameRefs(def, rename)]));
  return { defs: Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b))), rename };
}

/** Our kinds: the union file, its $defs union, the side that answers (for Response defs), requests or not. */
const KINDS = [
  { file: "AgentNotification.json", title: "AcpAgentNotificationMessage", union: "AgentNotification", request: false, side: "client" },
  { file: "AgentRequest.json", title: "AcpAgentRequestMessage", union: "AgentRequest", request: true, side: "client" },
  { file: "ClientRequest.json", title: "AcpClientRequestMessage", union: "ClientRequest", request: true, side: "agent" },
  { file: "ClientNotification.json", title: "AcpClientNotificationMessage", union: "ClientNotification", request: false, side: "agent" },
] as const;
type KindFile = (typeof KINDS)[number]["file"];

/** What one variant has and what was derived from it (for its PROVENANCE.md and the next variant). */
export interface VariantResult {
  name: string;
  /** Every method of the schema, per kind file. */
  methods: Record<KindFile, string[]>;
  /** The methods derived here (no schema pinned before has them), per kind file; empty kinds have no file. */
  derived: Record<KindFile, string[]>;
  /** One line per derived file. */
  lines: string[];
}

/** The defs `roots` reach through `#/definitions/` refs (themselves included). */
function reachable(definitions: Record<string, any>, roots: string[]): Record<string, any> {
  const keep = new Set<string>();
  const todo = [...roots];
  const scan = (n: any) => {
    if (Array.isArray(n)) return n.forEach(scan);
    if (!n || typeof n !== "object") return;
    for (const [k, v] of Object.entries(n)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/definitions/")) todo.push(v.slice("#/definitions/".length));
      else scan(v);
    }
  };
  while (todo.length) {
    const d = todo.pop()!;
    if (keep.has(d)) continue;
    if (!(d in definitions)) throw new Error(`$ref to a missing definition ${d}`);
    keep.add(d);
    scan(definitions[d]);
  }
  return Object.fromEntries([...keep].sort().map((k) => [k, definitions[k]]));
}

/**
 * Pin the package's other schemas (ACP_VARIANTS) under `root/schemas/upstream/<name>/<version>/`: each folder gets the
 * schema verbatim (its upstream file name), the package's LICENSE, the per-kind union files of the methods that neither
 * stable v1 nor an earlier variant has (built as deriveAcp builds them; only the definitions they reach), a
 * `<X>Response.json` per derived request, and PROVENANCE.md. The proxy-chain methods (`x-side: proxy`, exchanged by a
 * conductor and its proxies) join the kinds by direction: the conductor's requests to a proxy (`proxy/initialize`,
 * `proxy/successor`) as client requests, the proxy's `proxy/successor` to the conductor as an agent request, the
 * `proxy/successor` notification both ways. Method sets are cross-checked against the variant's own constants module.
 */
export async function deriveAcpVariants(pkgDir: string, root: string, version: string): Promise<VariantResult[]> {
  const stable = JSON.parse(readFileSync(join(pkgDir, "schema/v1/schema.json"), "utf8")).$defs;
  // the definitions the stable kind files give the generator's merged type module, by name (variants add theirs)
  const taken = new Map<string, string>(Object.entries(hoistProperties(rewriteRefs(stable))).map(([k, v]) => [k, JSON.stringify(v)]));
  const seen = new Map<KindFile, Set<string>>(KINDS.map((k) => [k.file, new Set(unionMembers(stable, k.union).map((m) => m.method))]));
  for (const d of Object.values<any>(stable)) if (d?.["x-side"] === "protocol" && typeof d["x-method"] === "string") for (const f of ["AgentNotification.json", "ClientNotification.json"] as const) seen.get(f)!.add(d["x-method"]);
  const out: VariantResult[] = [];
  for (const v of ACP_VARIANTS) {
    const text = readFileSync(join(pkgDir, v.schema), "utf8");
    const defs: Record<string, any> = JSON.parse(text).$defs;
    const consts = await import(pathToFileURL(join(pkgDir, v.consts)).href);
    const protocol = Object.entries(defs).filter(([, d]) => d?.["x-side"] === "protocol" && typeof d["x-method"] === "string").map(([def, d]) => ({ def, method: d["x-method"] as string }));
    const proxyReq = defs.ProxyRequest ? unionMembers(defs, "ProxyRequest") : [];
    const proxyNote = defs.ProxyNotification ? unionMembers(defs, "ProxyNotification") : [];
    const lists: Record<KindFile, { def: string; method: string }[]> = {
      "AgentNotification.json": [...unionMembers(defs, "AgentNotification"), ...protocol, ...proxyNote],
      "AgentRequest.json": [...unionMembers(defs, "AgentRequest"), ...proxyReq.filter((m) => m.method === "proxy/successor")],
      "ClientRequest.json": [...unionMembers(defs, "ClientRequest"), ...proxyReq],
      "ClientNotification.json": [...unionMembers(defs, "ClientNotification"), ...protocol, ...proxyNote],
    };
    // the method set against the package's constants for this schema
    const fromSchema = new Set(Object.values(lists).flat().map((m) => m.method));
    const fromConsts = new Set<string>(["AGENT_METHODS", "CLIENT_METHODS", "PROTOCOL_METHODS", "PROXY_METHODS"].flatMap((c) => Object.values<string>(consts[c] ?? {})));
    const diff = [...fromSchema].filter((m) => !fromConsts.has(m)).concat([...fromConsts].filter((m) => !fromSchema.has(m)));
    if (diff.length) throw new Error(`${v.schema}: method set differs from the constants of ${v.consts}: ${diff.join(", ")}`);

    const dest = join(root, "schemas/upstream", v.name, version);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    writeFileSync(join(dest, basename(v.schema)), text);
    cpSync(join(pkgDir, "LICENSE"), join(dest, "LICENSE"));
    const all = hoistProperties(rewriteRefs(defs));
    const res: VariantResult = { name: v.name, methods: {} as VariantResult["methods"], derived: {} as VariantResult["derived"], lines: [] };
    for (const k of KINDS) {
      const list = lists[k.file];
      res.methods[k.file] = [...new Set(list.map((m) => m.method))];
      const fresh = list.filter((m, i) => !seen.get(k.file)!.has(m.method) && list.findIndex((x) => x.method === m.method) === i);
      res.derived[k.file] = fresh.map((m) => m.method);
      for (const m of fresh) seen.get(k.file)!.add(m.method);
      if (!fresh.length) continue;
      const aliases = Object.fromEntries(fresh.map((m) => [paramsAliasOf(m.def), { $ref: `#/definitions/${m.def}` }]));
      for (const a of Object.keys(aliases)) if (defs[a]) throw new Error(`alias ${a} collides with an upstream $def`);
      const { defs: kept, rename } = disambiguate({ ...all, ...aliases }, [...Object.keys(aliases), ...(k.request ? ["RequestId"] : [])], taken, v.suffix);
      for (const [name, def] of Object.entries(kept)) taken.set(name, JSON.stringify(def));
      const ref = (name: string) => `#/definitions/${rename.get(name) ?? name}`;
      const doc = {
        title: k.title,
        description: `Derived from ${basename(v.schema)} ($defs.${k.union}${lists[k.file].some((m) => m.method.startsWith("proxy/")) ? " and the proxy-chain unions" : ""}) by tools/sync/sync-acp-schemas.ts: one member per x-method that no schema pinned before has.`,
        oneOf: fresh.map((m) => ({
          type: "object",
          required: k.request ? ["id", "method"] : ["method"],
          properties: {
            ...(k.request ? { id: { $ref: ref("RequestId") } } : {}),
            method: { enum: [m.method] },
            params: { $ref: ref(paramsAliasOf(m.def)) },
          },
        })),
        definitions: kept,
      };
      writeFileSync(join(dest, k.file), JSON.stringify(doc, null, 2) + "\n");
      res.lines.push(`${k.file}: ${fresh.map((m) => `\`${m.method}\``).join(", ")}`);
      if (!k.request) continue;
      for (const m of fresh) {
        const candidates = Object.entries(defs).filter(([name, d]) => name.endsWith("Response") && d?.["x-method"] === m.method);
        const resp = (candidates.find(([, d]) => d["x-side"] === k.side) ?? candidates[0])?.[0];
        if (!resp) throw new Error(`${v.schema}: no response def for ${m.method}`);
        const file = `${paramsAliasOf(m.def).replace(/Params$/, "Response")}.json`;
        writeFileSync(join(dest, file), JSON.stringify({ title: resp, $ref: `#/definitions/${resp}`, definitions: reachable(all, [resp]) }, null, 2) + "\n");
        res.lines.push(`${file}: result of \`${m.method}\` (→ \`${resp}\`)`);
      }
    }
    writeFileSync(join(dest, "PROVENANCE.md"), variantProvenance(v, version, res, sha256Rows(dest)));
    out.push(res);
  }
  return out;
}

const paramsAliasOf = (def: string) => def.replace(/Request$/, "") + "Params";

/** The concrete member defs (with an x-method, not `_`-prefixed) a union def lists under `params`. */
function unionMembers(defs: Record<string, any>, union: string): { def: string; method: string }[] {
  const out: { def: string; method: string }[] = [];
  const walk = (n: any) => {
    if (!n || typeof n !== "object") return;
    if (Array.isArray(n)) return n.forEach(walk);
    if (typeof n.$ref === "string") {
      const name = n.$ref.replace(/^#\/\$defs\//, "");
      const m = defs[name]?.["x-method"];
      if (typeof m === "string" && !m.startsWith("_")) out.push({ def: name, method: m });
      return;
    }
    for (const k of ["anyOf", "oneOf", "allOf"]) if (n[k]) walk(n[k]);
  };
  walk(defs[union]?.properties?.params);
  return out;
}

function variantProvenance(v: (typeof ACP_VARIANTS)[number], version: string, r: VariantResult, sums: string[]): string {
  const file = basename(v.schema);
  const kinds = KINDS.map((k) => {
    const fresh = new Set(r.derived[k.file]);
    const ms = r.methods[k.file].map((m) => (fresh.has(m) ? `**\`${m}\`**` : `\`${m}\``)).join(", ");
    return `| ${k.file.replace(/\.json$/, "")} | ${ms || "—"} |`;
  });
  const none = KINDS.every((k) => !r.derived[k.file].length);
  return `# Provenance: ${v.what} — JSON Schema of ${PKG} ${version}

- **What:** the JSON Schema (draft 2020-12) of ${v.what}, as the package ships it beside stable ACP v1 (which is pinned in
  \`schemas/upstream/acp/${version}\`).
- **Source:** \`${v.schema}\` of the npm package \`${PKG}@${version}\`, vendored verbatim as \`${file}\`. \`LICENSE\` is the
  package's license file (Apache License 2.0). Upstream: https://github.com/agentclientprotocol/agent-client-protocol
- **Derived files** (written by \`npx tsx tools/sync/sync-acp-schemas.ts --version ${version}\`, never edited by hand): the
  per-kind union files \`mappings/acp.yaml\` reads (\`upstream.extensions\`), built as for stable v1 (see its PROVENANCE.md),
  for the methods **in bold** below only — the ones neither stable v1 nor a schema pinned before this one (in the order
  acp-unstable, acp-v2, acp-v2-unstable) has; the others are typed by that earlier schema. Each file keeps only the
  definitions its members reach; a definition whose content differs from the one of the same name in stable v1 (or in a
  schema pinned before) is renamed with the suffix \`${v.suffix}\` (refs with it), since the generator merges the kind
  files' definitions into one type module. The proxy-chain methods (\`x-side: proxy\`, between a conductor and its proxies) are
  listed by direction: the conductor's requests to a proxy as ClientRequest, the proxy's \`proxy/successor\` to the
  conductor as AgentRequest, the \`proxy/successor\` notification in both notification kinds. The method set was
  cross-checked against the package's constants for this schema (\`${v.consts}\`: AGENT_METHODS, CLIENT_METHODS,
  PROTOCOL_METHODS, PROXY_METHODS).${none ? `
- **No derived file:** every method of this schema is in stable v1 or in a schema pinned before it; the schema is pinned
  (and checked by codegen's provenance stage) so that a later version that adds one is seen.` : `
${r.lines.map((d) => `  - ${d}`).join("\n")}`}

Every method of \`${file}\` by kind (bold: derived here):

| kind | methods |
|---|---|
${kinds.join("\n")}

| file | sha256 |
|---|---|
${sums.join("\n")}
`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const vi = args.indexOf("--version");
  const version = vi >= 0 ? args[vi + 1] : "2.4.0";
  if (!version || !/^\d+\.\d+\.\d+/.test(version)) {
    console.error("usage: npx tsx tools/sync/sync-acp-schemas.ts [--version X.Y.Z]");
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), "agentnorm-acp-"));
  try {
    console.error(`installing ${PKG}@${version} into ${work} …`);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "acp-schema-sync", private: true }));
    npmInstall(work, [`${PKG}@${version}`]);
    const pkgDir = join(work, "node_modules", PKG);
    const dest = join(root, "schemas/upstream/acp", version);
    rmSync(dest, { recursive: true, force: true });
    const derived = await deriveAcp(pkgDir, dest);
    cpSync(join(pkgDir, "LICENSE"), join(dest, "LICENSE"));
    const files = listFiles(dest);
    const sums = sha256Rows(dest);
    writeFileSync(join(dest, "PROVENANCE.md"), provenance(version, derived, sums));
    console.error(`wrote ${files.length} files to ${relative(root, dest)}; now update mappings/acp.yaml (upstream.version/dir) and run npm run codegen`);
    for (const r of await deriveAcpVariants(pkgDir, root, version)) {
      const n = KINDS.reduce((a, k) => a + r.derived[k.file].length, 0);
      console.error(`wrote schemas/upstream/${r.name}/${version}: ${n} method(s) no earlier schema has (mappings/acp.yaml upstream.extensions)`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function provenance(version: string, derived: string[], sums: string[]): string {
  return `# Provenance: Agent Client Protocol (ACP) v1 JSON Schema, ${PKG} ${version}

- **What:** the JSON Schema (draft 2020-12) of ACP v1 (JSON-RPC 2.0 over stdio between a client/editor and an agent).
- **Source:** \`schema/v1/schema.json\` of the npm package \`${PKG}@${version}\`, vendored verbatim as \`schema.json\`.
  \`LICENSE\` is the package's license file (Apache License 2.0). Upstream: https://github.com/agentclientprotocol/agent-client-protocol
- **Derived files** (written by \`npx tsx tools/sync/sync-acp-schemas.ts --version ${version}\`, never edited by hand): the per-kind
  unions our generator reads. For each of \`$defs.AgentNotification\`, \`AgentRequest\` (agent→client requests), \`ClientRequest\`
  (client→agent requests) and \`ClientNotification\`, every member def its \`params\` union references that carries an \`x-method\`
  becomes \`{type: object, required: [method], properties: {method: {enum: [<x-method>]}, params: {$ref: <X>Params}}}\`, where
  \`<X>Params\` is an alias def (\`$ref\` to the real def; \`<X>\` = the def's name without a trailing \`Request\`). The protocol-level
  \`$/cancel_request\` (\`x-side: protocol\`, sendable by either side) is listed in both notification files. Extension methods
  (\`ExtMethodRequest\`/\`ExtNotification\`, any \`_\`-prefixed name) are listed nowhere. Request members also declare \`id\` (\`RequestId\`).
  Each file carries all of schema.json's \`$defs\` under \`definitions\` (refs rewritten \`#/$defs/\` → \`#/definitions/\`)
  plus the alias defs; a def node that has \`properties\` beside \`allOf\`/\`anyOf\`/\`oneOf\` is rewritten, accepting the same
  documents, as \`{allOf: [{type: object, properties, required}, …allOf, {anyOf}, {oneOf}]}\` (our generator's path resolver
  reads \`allOf\` members instead of sibling properties), and a documented single reference \`{description, allOf: [{$ref}]}\`
  becomes \`{description, $ref}\`. For every request method,
  \`<X>Response.json\` is \`{$ref: <the def with the same x-method and x-side whose name ends in Response>}\` with the same definitions.
  The method sets were cross-checked against the package's \`AGENT_METHODS\`, \`CLIENT_METHODS\` and \`PROTOCOL_METHODS\`
  (dist/v1/schema/index.js).
${derived.map((d) => `  - ${d}`).join("\n")}

| file | sha256 |
|---|---|
${sums.join("\n")}
`;
}

if (isMain(import.meta.url)) await main();
