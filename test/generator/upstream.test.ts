/**
 * Upstream stage: method sets, path resolution (resolvePath), union expansion (variants) and enum values
 * (enumValues) on the real pinned Codex app-server schema (0.171.0), plus a few edge cases on the mini
 * fixture upstream.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { CODEX_DIR, MINI_UPSTREAM, loadGenerator, type Generator, type SchemaRef, type UpstreamSchemas } from "./gen.ts";

let gen: Generator;
let codex: UpstreamSchemas;
let mini: UpstreamSchemas;

beforeAll(async () => {
  gen = await loadGenerator();
  codex = new gen.upstream.UpstreamSchemas(CODEX_DIR);
  mini = new gen.upstream.UpstreamSchemas(MINI_UPSTREAM);
});

const resolve = (root: SchemaRef, path: string) => gen.upstream.resolvePath(root, path.split("."));
const message = (up: UpstreamSchemas, file: string, method: string): SchemaRef => {
  const m = up.methods(file).get(method);
  if (!m) throw new Error(`${method} is not a method of ${file}`);
  return m.message;
};
const def = (up: UpstreamSchemas, file: string, name: string): SchemaRef => ({ file, doc: up.doc(file), node: { $ref: `#/definitions/${name}` } });

describe("method sets", () => {
  it("reads the JSON-RPC union files of Codex 0.171.0", () => {
    const n = codex.methods("ServerNotification.json");
    expect(n.size).toBe(87);
    expect(n.has("item/started")).toBe(true);
    expect(n.get("item/started")?.paramsRefName).toBe("ItemStartedNotification");
    const r = codex.methods("ServerRequest.json");
    expect(r.size).toBe(10);
    expect(r.get("mcpServer/elicitation/request")?.paramsRefName).toBe("McpServerElicitationRequestParams");
  });

  it("reads the mini upstream's four methods", () => {
    expect([...mini.methods("Notifications.json").keys()]).toEqual(["thing/started", "thing/status", "thing/delta", "misc/noise"]);
  });
});

describe("resolvePath on item/started", () => {
  let itemStarted: SchemaRef;
  beforeAll(() => {
    itemStarted = message(codex, "ServerNotification.json", "item/started");
  });

  it("params.item.id resolves through every ThreadItem variant and is required", () => {
    const r = resolve(itemStarted, "params.item.id");
    expect(r.ok).toBe(true);
    expect(r.required).toBe(true);
    // one target per ThreadItem alternative, each a string
    expect(r.targets).toHaveLength(gen.upstream.variants(def(codex, "ServerNotification.json", "ThreadItem")).length);
    for (const t of r.targets) expect(t.node.type).toBe("string");
  });

  it("params.item.text resolves through the ThreadItem union but is not required (only some items have text)", () => {
    const r = resolve(itemStarted, "params.item.text");
    expect(r.ok).toBe(true);
    expect(r.required).toBe(false);
    const all = gen.upstream.variants(def(codex, "ServerNotification.json", "ThreadItem"));
    const withText = all.filter((v) => v.node.properties && Object.hasOwn(v.node.properties, "text"));
    expect(withText.map((v) => v.node.properties.type.enum[0]).sort()).toEqual(["agentMessage", "plan"]);
    expect(r.targets).toHaveLength(withText.length);
    expect(withText.length).toBeLessThan(all.length);
  });

  it("params.threadId and params.item.type are required; params.item.status is not", () => {
    expect(resolve(itemStarted, "params.threadId")).toMatchObject({ ok: true, required: true });
    expect(resolve(itemStarted, "params.item.type")).toMatchObject({ ok: true, required: true });
    expect(resolve(itemStarted, "params.item.status")).toMatchObject({ ok: true, required: false });
  });

  it("params.nope fails at segment 1 with the names that exist there", () => {
    const r = resolve(itemStarted, "params.nope");
    expect(r.ok).toBe(false);
    expect(r.targets).toEqual([]);
    expect(r.failedAt).toBe(1);
    expect(r.known).toEqual(["item", "startedAtMs", "threadId", "turnId"]);
  });

  it("params.item.nope fails at segment 2 with the union's field names (sorted)", () => {
    const r = resolve(itemStarted, "params.item.nope");
    expect(r.ok).toBe(false);
    expect(r.failedAt).toBe(2);
    expect(r.known).toEqual(expect.arrayContaining(["id", "type", "text", "command", "status"]));
    expect(r.known).toEqual([...(r.known ?? [])].sort());
  });

  it("the empty path resolves to the root itself", () => {
    const r = gen.upstream.resolvePath(itemStarted, []);
    expect(r).toMatchObject({ ok: true, required: true });
    expect(r.targets).toEqual([itemStarted]);
  });
});

describe("properties declared beside a oneOf (McpServerElicitationRequestParams)", () => {
  let elicitation: SchemaRef;
  beforeAll(() => {
    elicitation = message(codex, "ServerRequest.json", "mcpServer/elicitation/request");
  });

  it("params.threadId (beside the oneOf) resolves, and is required", () => {
    const r = resolve(elicitation, "params.threadId");
    expect(r.ok).toBe(true);
    expect(r.required).toBe(true);
    for (const t of r.targets) expect(t.node.type).toBe("string");
  });

  it("params.message (in every alternative) is required; params.url (only the url mode) is not", () => {
    expect(resolve(elicitation, "params.message")).toMatchObject({ ok: true, required: true });
    const url = resolve(elicitation, "params.url");
    expect(url).toMatchObject({ ok: true, required: false });
    expect(url.targets).toHaveLength(1);
  });

  it("variants() carries the outer properties into every alternative", () => {
    const vs = gen.upstream.variants(def(codex, "ServerRequest.json", "McpServerElicitationRequestParams"));
    expect(vs).toHaveLength(4);
    for (const v of vs) {
      expect(Object.keys(v.node.properties)).toEqual(expect.arrayContaining(["threadId", "serverName", "message", "mode"]));
      expect(v.node.required).toEqual(expect.arrayContaining(["threadId", "serverName", "message", "mode"]));
    }
  });

  it("a missing field lists both the outer and the alternatives' names", () => {
    const r = resolve(elicitation, "params.nope");
    expect(r.ok).toBe(false);
    expect(r.failedAt).toBe(1);
    expect(r.known).toEqual(expect.arrayContaining(["threadId", "serverName", "message", "url", "elicitationId"]));
  });
});

describe("enumValues", () => {
  it("lists the ThreadItem type values (agentMessage among them)", () => {
    const r = resolve(message(codex, "ServerNotification.json", "item/started"), "params.item.type");
    const values = gen.upstream.enumValues(r.targets);
    expect(values).toBeDefined();
    expect(values).toContain("agentMessage");
    expect(values).toContain("commandExecution");
    const fromVariants = new Set(gen.upstream.variants(def(codex, "ServerNotification.json", "ThreadItem")).map((v) => v.node.properties.type.enum[0]));
    expect(new Set(values)).toEqual(fromVariants);
    expect(values).toHaveLength(fromVariants.size); // no duplicates
  });

  it("is undefined for an open-ended string", () => {
    const r = resolve(message(codex, "ServerNotification.json", "item/started"), "params.threadId");
    expect(gen.upstream.enumValues(r.targets)).toBeUndefined();
  });

  it("lists a plain enum of the mini upstream", () => {
    const r = resolve(message(mini, "Notifications.json", "thing/status"), "params.status");
    expect(gen.upstream.enumValues(r.targets)).toEqual(["idle", "busy", "broken"]);
    const k = resolve(message(mini, "Notifications.json", "thing/started"), "params.thing.kind");
    expect(gen.upstream.enumValues(k.targets)).toEqual(["alpha", "beta"]);
  });
});

describe("resolvePath edge cases (mini upstream)", () => {
  let started: SchemaRef;
  beforeAll(() => {
    started = message(mini, "Notifications.json", "thing/started");
  });

  it("nested objects: params.thing.detail.text resolves; it is not required because detail is optional", () => {
    expect(resolve(started, "params.thing.detail.text")).toMatchObject({ ok: true, required: false });
    expect(resolve(started, "params.thing.id")).toMatchObject({ ok: true, required: true });
  });

  it("numeric segments index arrays (and an element is never required)", () => {
    const r = resolve(started, "params.thing.detail.lines.0");
    expect(r).toMatchObject({ ok: true, required: false });
    expect(r.targets.map((t) => t.node)).toEqual([{ type: "string" }]);
    expect(resolve(started, "params.thing.detail.text.0").ok).toBe(false);
  });

  it("a field under a nullable parent is not required, even when the parent key itself is required", () => {
    // owner is required but may be null (anyOf [Owner, null]); Owner.id is required inside Owner.
    // In valid input {owner: null}, params.owner.id is absent, so it must not be reported as always present.
    expect(resolve(started, "params.owner")).toMatchObject({ ok: true });
    expect(resolve(started, "params.owner.id")).toMatchObject({ ok: true, required: false });
  });

  it("a field under a parent typed [object, null] is not required either", () => {
    expect(resolve(started, "params.origin")).toMatchObject({ ok: true, required: true });
    expect(resolve(started, "params.origin.host")).toMatchObject({ ok: true, required: false });
  });
});

describe("responseSchema", () => {
  it("finds <X>Response for <X>Params (under v2/), and nothing for an unknown name", () => {
    const tr = codex.methods("ClientRequest.json").get("thread/read");
    expect(tr?.paramsRefName).toBe("ThreadReadParams");
    expect(codex.responseSchema(tr?.paramsRefName)?.file).toBe("v2/ThreadReadResponse.json");
    expect(codex.responseSchema("NoSuchThingParams")).toBeUndefined();
    expect(codex.responseSchema(undefined)).toBeUndefined();
  });
});

describe("resolvePath through allOf", () => {
  it("sees properties beside an allOf and inside nested allOf members", async () => {
    const { resolvePath } = await import("../../generator/upstream.ts");
    const doc = {
      definitions: {
        Base: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
        Mid: { allOf: [{ $ref: "#/definitions/Base" }, { properties: { kind: { enum: ["a", "b"] } } }] },
      },
    };
    const node = { properties: { own: { type: "string" } }, required: ["own"], allOf: [{ $ref: "#/definitions/Mid" }] };
    const root = { file: "(test)", doc, node };
    expect(resolvePath(root, ["own"]).ok).toBe(true);
    expect(resolvePath(root, ["id"]).ok).toBe(true);
    expect(resolvePath(root, ["kind"]).ok).toBe(true);
    const bad = resolvePath(root, ["nope"]);
    expect(bad.ok).toBe(false);
    expect(bad.known).toEqual(expect.arrayContaining(["own", "id", "kind"]));
  });
});
