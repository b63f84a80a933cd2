/**
 * Maintainer script (`npm run schemas:sync:opencode [-- --version 1.18.33]`): regenerate schemas/upstream/opencode/<version>/
 * from the TypeScript types of the opencode SDK (@opencode-ai/sdk), which ships no JSON Schema.
 *
 * It installs @opencode-ai/sdk@<version> into a temporary folder (npm install --ignore-scripts) and derives JSON Schema
 * (draft-07) from its generated typings with ts-json-schema-generator (a devDependency):
 * - Event.json — the `/event` (and `/global/event` payload) union of both API generations the SDK ships: every member of
 *   the v2 `Event` union (dist/v2/gen/types.gen.d.ts) and of the v1 `Event` union (dist/gen/types.gen.d.ts), one `oneOf`
 *   entry per `type` value. A type both generations have is `{properties: {type: {const}}, anyOf: [v2 member, v1 member]}`
 *   (their shapes differ, e.g. permission.replied `{requestID, reply}` vs `{permissionID, response}`); v1 definitions are
 *   renamed `V1<Name>` so the two generations' same-named types (Part, Session, …) stay apart.
 * - MessageEntry.json — one element of `GET /session/{id}/message` (`SessionMessagesResponses[200][number]`:
 *   `{info: Message, parts: Part[]}`), the restored history (surface opencode-history).
 * - RunEvent.json — the lines `opencode run --format json` prints: the SDK has no type for them; their shape is the
 *   `emit(type, data)` calls of packages/opencode/src/cli/cmd/run.ts (see PROVENANCE.md), typed with the SDK's part types.
 * CI never runs this: the output is committed. `npm run drift` imports deriveOpencode to derive a newer version's files
 * the same way.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createGenerator } from "ts-json-schema-generator";
import { isMain, listFiles, npmInstall, sha256Rows } from "./sync-util.ts";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const PKG = "@opencode-ai/sdk";

/** The upstream repository's root LICENSE (the npm tarball ships none; its package.json says "license": "MIT"). */
const LICENSE = `MIT License

Copyright (c) 2025 opencode

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;

/** Where `opencode run --format json` is defined (read for RunEvent.json; nothing of it is copied). */
const RUN_SOURCE = "anomalyco/opencode packages/opencode/src/cli/cmd/run.ts @ 00f9806cfed20c911d483abb471162a726d250ab";

type Schema = Record<string, any>;

function generate(path: string, type: string): Schema {
  const g = createGenerator({ path, type, skipTypeCheck: true, expose: "export", topRef: true, jsDoc: "extended", additionalProperties: false });
  return g.createSchema(type) as Schema;
}

/** Rename definitions (and the $refs to them) with a prefix. */
function prefixDefs(defs: Record<string, Schema>, prefix: string): Record<string, Schema> {
  const rename = (x: any): any =>
    Array.isArray(x) ? x.map(rename)
    : x && typeof x === "object" ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? v.replace(/^#\/definitions\//, `#/definitions/${prefix}`) : rename(v)]))
    : x;
  return Object.fromEntries(Object.entries(defs).map(([k, v]) => [prefix + k, rename(v)]));
}

/** The members of a union definition: name → its `type` literal. */
function members(defs: Record<string, Schema>, union: string, prefix = ""): { def: string; type: string }[] {
  const u = defs[prefix + union];
  return (u.anyOf ?? u.oneOf).map((m: Schema) => {
    const def = String(m.$ref).replace(/^#\/definitions\//, "");
    const t = defs[def]?.properties?.type;
    const type = t?.const ?? t?.enum?.[0];
    if (typeof type !== "string") throw new Error(`${def}: no type literal`);
    return { def, type };
  });
}

/**
 * Derive Event.json, MessageEntry.json and RunEvent.json from an installed package (`pkgDir` =
 * node_modules/@opencode-ai/sdk of version `version`) into `dest` (created; not emptied). Returns one line per derived
 * file (for PROVENANCE.md).
 */
export function deriveOpencode(pkgDir: string, version: string, dest: string): string[] {
  const v2 = generate(join(pkgDir, "dist/v2/gen/types.gen.d.ts"), "Event");
  const v1 = generate(join(pkgDir, "dist/gen/types.gen.d.ts"), "Event");
  const v2Defs: Record<string, Schema> = v2.definitions;
  const v1Defs = prefixDefs(v1.definitions, "V1");
  const m2 = members(v2Defs, "Event");
  const m1 = members(v1Defs, "Event", "V1");
  const byType = new Map<string, { v2?: string; v1?: string }>();
  for (const m of m2) byType.set(m.type, { ...byType.get(m.type), v2: m.def });
  for (const m of m1) byType.set(m.type, { ...byType.get(m.type), v1: m.def });
  const { Event: _e2, ...defs2 } = v2Defs;
  const { V1Event: _e1, ...defs1 } = v1Defs;
  const definitions = { ...defs2, ...defs1 };
  const oneOf = [...byType].map(([type, g]) =>
    g.v2 && g.v1
      ? {
          type: "object", title: type, required: ["type", "properties"],
          // declared here too (either generation's shape), so field paths resolve on the member itself
          properties: { id: { type: "string" }, type: { const: type }, properties: { anyOf: [{ $ref: `#/definitions/${g.v2}/properties/properties` }, { $ref: `#/definitions/${g.v1}/properties/properties` }] } },
          anyOf: [{ $ref: `#/definitions/${g.v2}` }, { $ref: `#/definitions/${g.v1}` }],
        }
      : { title: type, ...(definitions[(g.v2 ?? g.v1)!] as Schema) },
  );
  const both = [...byType].filter(([, g]) => g.v2 && g.v1).map(([t]) => t);
  const only2 = [...byType].filter(([, g]) => g.v2 && !g.v1).map(([t]) => t);
  const only1 = [...byType].filter(([, g]) => !g.v2 && g.v1).map(([t]) => t);
  const eventDoc = {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "OpencodeEvent",
    description: `The /event and /global/event payloads of opencode (${PKG} ${version}): the v2 Event union (${m2.length} members) and the v1 Event union (${m1.length}), one oneOf entry per type (${byType.size}). Derived by tools/sync/sync-opencode-schemas.ts; see PROVENANCE.md.`,
    oneOf,
    definitions,
  };

  const responses = generate(join(pkgDir, "dist/v2/gen/types.gen.d.ts"), "SessionMessagesResponses");
  const entrySchema = responses.definitions.SessionMessagesResponses?.properties?.["200"]?.items;
  if (!entrySchema?.properties?.info || !entrySchema?.properties?.parts) throw new Error("SessionMessagesResponses[200] is not an array of {info, parts}");
  const { SessionMessagesResponses: _r, ...entryDefs } = responses.definitions;
  // A union file of one member, so the history table's kind has a method set and checked paths. Entries carry no
  // type field: `type` is declared (not required) as the name agentnorm's input wrapper gives every entry.
  const entryDoc = {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "OpencodeMessageEntry",
    description: `One element of GET /session/{sessionID}/message (${PKG} ${version} v2 SessionMessagesResponses[200][number]): a message and its parts.`,
    oneOf: [{ ...entrySchema, title: "entry", properties: { type: { const: "entry", description: "not in the data: the name agentnorm's input wrapper gives an entry" }, ...entrySchema.properties } }],
    definitions: entryDefs,
  };

  // opencode run --format json: {type, timestamp, sessionID, ...data} per emit() call of run.ts.
  const env = { timestamp: { type: "number" }, sessionID: { type: "string" } };
  const line = (type: string, description: string, props: Schema, required: string[]) => ({
    type: "object", title: type, description, additionalProperties: false, required: ["type", "timestamp", "sessionID", ...required],
    properties: { type: { const: type }, ...env, ...props },
  });
  const errorUnion = v2Defs.EventSessionError.properties.properties.properties.error;
  const runDoc = {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "OpencodeRunEvent",
    description: `Lines of \`opencode run --format json\`: JSON.stringify({type, timestamp: Date.now(), sessionID, ...data}) per emit() call of ${RUN_SOURCE}; parts typed with ${PKG} ${version} v2 types. The SDK has no type for these lines.`,
    oneOf: [
      line("step_start", "message.part.updated of a step-start part", { part: { $ref: "#/definitions/StepStartPart" } }, ["part"]),
      line("step_finish", "message.part.updated of a step-finish part", { part: { $ref: "#/definitions/StepFinishPart" } }, ["part"]),
      line("text", "message.part.updated of a text part once it has time.end", { part: { $ref: "#/definitions/TextPart" } }, ["part"]),
      line("reasoning", "message.part.updated of a reasoning part once it has time.end (with --thinking)", { part: { $ref: "#/definitions/ReasoningPart" } }, ["part"]),
      line("tool_use", "message.part.updated of a tool part in state completed or error", { part: { $ref: "#/definitions/ToolPart" } }, ["part"]),
      line("error", "session.error of the session (its error), or the error result of the prompt/command call", { error: errorUnion }, ["error"]),
      line("done", "the session went idle (newer versions; not after --attach)", { reason: { const: "idle" }, rejected: { type: "array", items: { type: "string" }, description: "permission kinds auto-rejected" } }, ["reason"]),
    ],
    definitions: v2Defs,
  };

  mkdirSync(dest, { recursive: true });
  writeFileSync(join(dest, "Event.json"), JSON.stringify(eventDoc, null, 2) + "\n");
  writeFileSync(join(dest, "MessageEntry.json"), JSON.stringify(entryDoc, null, 2) + "\n");
  writeFileSync(join(dest, "RunEvent.json"), JSON.stringify(runDoc, null, 2) + "\n");
  const derived = [
    `Event.json: ${byType.size} types — in both generations (${both.length}): ${both.map((t) => `\`${t}\``).join(", ")}; v2 only (${only2.length}): ${only2.map((t) => `\`${t}\``).join(", ")}; v1 only (${only1.length}): ${only1.map((t) => `\`${t}\``).join(", ")}`,
    "MessageEntry.json: `SessionMessagesResponses[200][number]` of the v2 typings, as a one-member union (`oneOf`) that also declares an optional `type: \"entry\"` — not in the data: the name agentnorm's input wrapper gives each entry, so the table has a method to map and its paths are checked",
    `RunEvent.json: ${runDoc.oneOf.map((o) => `\`${o.title}\``).join(", ")}`,
  ];
  return derived;
}

function main(): void {
  const args = process.argv.slice(2);
  const vi = args.indexOf("--version");
  const version = vi >= 0 ? args[vi + 1] : "1.18.33";
  if (!version || !/^\d+\.\d+\.\d+/.test(version)) {
    console.error("usage: npm run schemas:sync:opencode -- [--version X.Y.Z]");
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), "agentnorm-opencode-"));
  try {
    console.error(`installing ${PKG}@${version} into ${work} …`);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "opencode-schema-sync", private: true, type: "module" }));
    npmInstall(work, [`${PKG}@${version}`]);
    const pkgDir = join(work, "node_modules", PKG);
    const pkgVersion = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
    if (pkgVersion !== version) throw new Error(`installed ${pkgVersion}, wanted ${version}`);
    const dest = join(root, "schemas/upstream/opencode", version);
    rmSync(dest, { recursive: true, force: true });
    const derived = deriveOpencode(pkgDir, version, dest);
    writeFileSync(join(dest, "LICENSE"), LICENSE);
    writeFileSync(join(dest, "PROVENANCE.md"), provenance(version, derived, sha256Rows(dest)));
    console.error(`wrote ${listFiles(dest).length} files to ${relative(root, dest)}; now run npm run codegen`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function provenance(version: string, derived: string[], sums: string[]): string {
  return `# Provenance: opencode server events, ${PKG} ${version}

- **What:** JSON Schema (draft-07) for opencode's server-sent events (\`GET /event\`, and the \`payload\` of \`GET /global/event\`),
  its restored history (\`GET /session/{id}/message\`) and the lines of \`opencode run --format json\`.
- **Why this version:** our recordings (fixtures/recorded/opencode, fixtures/recorded/acp) were made with \`opencode-ai@1.18.33\`
  (fixtures/recorded/manifest.json; the server's /global/health answers \`"version":"1.18.33"\`). opencode publishes the SDK
  from the same monorepo with the same version number, so \`${PKG}@${version}\` is the client of exactly that server.
- **Source:** the TypeScript typings of the npm package \`${PKG}@${version}\` (generated there by @hey-api/openapi-ts from opencode's
  OpenAPI spec; the package ships no JSON Schema and no OpenAPI document): \`dist/v2/gen/types.gen.d.ts\` (v2) and
  \`dist/gen/types.gen.d.ts\` (v1). Converted with ts-json-schema-generator (devDependency) by
  \`npm run schemas:sync:opencode -- --version ${version}\` (tools/sync/sync-opencode-schemas.ts); never edited by hand.
  \`opencode run --format json\` has no SDK type: RunEvent.json is written from the \`emit(type, data)\` calls of
  ${RUN_SOURCE} (read, not copied; a later revision than ${version}: the \`done\` line is newer and
  absent from older runs, e.g. the dev recording takopi-opencode-run-json-success.jsonl): each line is
  \`{type, timestamp, sessionID, ...data}\`.
- **License:** MIT. The npm tarball ships no LICENSE file (its package.json says \`"license": "MIT"\`); \`LICENSE\` is the notice of
  the upstream repository's root (https://github.com/anomalyco/opencode, formerly sst/opencode), "Copyright (c) 2025 opencode".
- **Derived files:**
${derived.map((d) => `  - ${d}`).join("\n")}

| file | sha256 |
|---|---|
${sums.join("\n")}
`;
}

if (isMain(import.meta.url)) main();
