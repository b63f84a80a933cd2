/**
 * The ACP schemas pinned beside stable v1 (schemas/upstream/acp-unstable, acp-v2, acp-v2-unstable: tools/sync/
 * sync-acp-schemas.ts): every method of each vendored schema is in a method file the acp table reads — stable v1's or
 * the first variant that has it — so codegen's coverage check (generated/tests/acp.coverage.test.ts) covers them all;
 * no method is listed twice; each derived file's definitions resolve.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const UP = join(import.meta.dirname, "..", "schemas", "upstream");
const KINDS = { AgentNotification: "AgentNotification.json", AgentRequest: "AgentRequest.json", ClientRequest: "ClientRequest.json", ClientNotification: "ClientNotification.json" } as const;
const VARIANTS = [
  { dir: "acp-unstable/2.4.0", schema: "schema.unstable.json" },
  { dir: "acp-v2/2.4.0", schema: "schema.json" },
  { dir: "acp-v2-unstable/2.4.0", schema: "schema.unstable.json" },
];
const json = (p: string) => JSON.parse(readFileSync(p, "utf8"));
const methodsOf = (file: string): string[] => (existsSync(file) ? json(file).oneOf.map((m: any) => m.properties.method.enum[0]) : []);

/** A schema's methods per kind, as the sync tool lists them (unions, protocol methods both ways, proxy methods by direction). */
function schemaMethods(schema: any): Record<keyof typeof KINDS, Set<string>> {
  const defs = schema.$defs;
  const members = (union: string): string[] => {
    const out: string[] = [];
    const walk = (n: any): void => {
      if (!n || typeof n !== "object") return;
      if (Array.isArray(n)) return n.forEach(walk);
      if (typeof n.$ref === "string") {
        const m = defs[n.$ref.split("/").pop()]?.["x-method"];
        if (typeof m === "string" && !m.startsWith("_")) out.push(m);
        return;
      }
      for (const k of ["anyOf", "oneOf", "allOf"]) if (n[k]) walk(n[k]);
    };
    walk(defs[union]?.properties?.params);
    return out;
  };
  const protocol = Object.values<any>(defs).filter((d) => d?.["x-side"] === "protocol").map((d) => d["x-method"] as string);
  const proxyReq = members("ProxyRequest");
  const proxyNote = members("ProxyNotification");
  return {
    AgentNotification: new Set([...members("AgentNotification"), ...protocol, ...proxyNote]),
    AgentRequest: new Set([...members("AgentRequest"), ...proxyReq.filter((m) => m === "proxy/successor")]),
    ClientRequest: new Set([...members("ClientRequest"), ...proxyReq]),
    ClientNotification: new Set([...members("ClientNotification"), ...protocol, ...proxyNote]),
  };
}

describe("ACP v1-unstable / v2 schemas pinned beside stable v1", () => {
  const listed: Record<string, Set<string>> = Object.fromEntries(Object.entries(KINDS).map(([k, f]) => [k, new Set(methodsOf(join(UP, "acp/2.4.0", f)))]));
  for (const v of VARIANTS) {
    it(`${v.dir}: each of its methods is listed once, here or by a schema pinned before`, () => {
      const all = schemaMethods(json(join(UP, v.dir, v.schema)));
      for (const [kind, file] of Object.entries(KINDS)) {
        const here = methodsOf(join(UP, v.dir, file));
        expect(here.filter((m) => listed[kind]!.has(m)), `${v.dir} ${kind}: listed before`).toEqual([]);
        for (const m of here) listed[kind]!.add(m);
        expect([...all[kind as keyof typeof KINDS]].filter((m) => !listed[kind]!.has(m)), `${v.dir} ${kind}: not listed anywhere`).toEqual([]);
        // every $ref of the derived file resolves in it
        if (!here.length) continue;
        const doc = json(join(UP, v.dir, file));
        const refs = JSON.stringify(doc).match(/"#\/definitions\/[^"]+"/g) ?? [];
        expect(refs.map((r) => r.slice(15, -1)).filter((d) => !(d in doc.definitions))).toEqual([]);
      }
    });
  }

  it("the methods the variants add (ACP 2.4.0): 17 in v1 unstable, 4 in the v2 draft, none in v2 unstable", () => {
    const count = (dir: string) => Object.values(KINDS).reduce((a, f) => a + methodsOf(join(UP, dir, f)).length, 0);
    expect(VARIANTS.map((v) => count(v.dir))).toEqual([17, 4, 0]);
    expect(methodsOf(join(UP, "acp-v2/2.4.0", KINDS.ClientRequest)).sort()).toEqual(["auth/login", "auth/logout", "terminal/cancel", "tool_call/cancel"]);
  });
});
