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
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
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
