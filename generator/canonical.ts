/**
 * Canonical model stage: schemas/canonical/canonical.yaml → an in-memory model, then the published
 * JSON Schema, the TypeScript types (json-schema-to-typescript + ts-morph) and the ajv standalone validator.
 */
import { compile } from "json-schema-to-typescript";
import { Ajv } from "ajv";
import standaloneModule from "ajv/dist/standalone/index.js";
// ajv ships CommonJS: under NodeNext the default import is the module object.
const standaloneCode = ((standaloneModule as any).default ?? standaloneModule) as typeof standaloneModule.default;
import { SourcedYaml, type Diagnostic } from "./diagnostics.ts";

export interface CanonicalModel {
  file: string;
  src: SourcedYaml;
  version: number;
  ids: Record<string, string>; // IdKind → prefix
  enums: Record<string, string[]>;
  defs: Record<string, any>;
  eventTypes: string[];
  payloads: Record<string, any>; // event type → JSON Schema (with #/enums|#/defs|#/ids refs)
  envelope: { required: string[]; properties: Record<string, any> };
  /** role → id kind, envelope field, providerRefs field. */
  roles: Record<string, { id: string; field?: string; ref?: string }>;
  /** entity → its lifecycle: opening, body and ending event types, and the tables' default guards. */
  lifecycle: Record<string, LifecycleEntity>;
}

export type GuardKind = "once" | "open" | "notStale";
export interface LifecycleEntity { role: string; opens: string[]; body: string[]; ends: string[]; guards: Record<string, GuardKind> }

const REF = /^#\/(enums|defs|ids)\/(.+)$/;

export function loadCanonical(file: string, text: string): { model?: CanonicalModel; diagnostics: Diagnostic[] } {
  const src = new SourcedYaml(file, text);
  const ds = [...src.parseErrors];
  if (ds.length) return { diagnostics: ds };
  const v = src.value ?? {};
  for (const key of ["ids", "enums", "eventTypes", "payloads", "envelope"]) {
    if (!v[key]) ds.push(src.diag([], "E101", `canonical model is missing the "${key}" section`));
  }
  if (ds.length) return { diagnostics: ds };
  const model: CanonicalModel = {
    file, src, version: v.version ?? 1, ids: v.ids, enums: v.enums, defs: mergeVariants(v.defs ?? {}), eventTypes: v.eventTypes,
    payloads: v.payloads, envelope: v.envelope, roles: v.roles ?? {},
    lifecycle: Object.fromEntries(Object.entries<any>(v.lifecycle ?? {}).map(([k, l]) => [k, { role: l.role, opens: l.opens ?? [], body: l.body ?? [], ends: l.ends ?? [], guards: l.guards ?? {} }])),
  };
  // The lifecycle names event types of the model, roles of `roles`, and guards from its own vocabulary.
  for (const [name, l] of Object.entries(model.lifecycle)) {
    if (!(l.role in model.roles)) ds.push(src.diag(["lifecycle", name, "role"], "E106", `unknown role "${l.role}" (roles: ${Object.keys(model.roles).join(", ")})`));
    for (const part of ["opens", "body", "ends"] as const) {
      l[part].forEach((t, i) => { if (!(t in model.payloads)) ds.push(src.diag(["lifecycle", name, part, i], "E107", `unknown event type "${t}"`)); });
    }
    for (const [t, g] of Object.entries(l.guards)) {
      if (![...l.opens, ...l.body, ...l.ends].includes(t)) ds.push(src.diag(["lifecycle", name, "guards", t], "E107", `guard for "${t}", which is not an event of the ${name} lifecycle`));
      if (!["once", "open", "notStale"].includes(g)) ds.push(src.diag(["lifecycle", name, "guards", t], "E108", `unknown guard "${g}" (once, open, notStale)`));
    }
  }
  for (const [role, r] of Object.entries(model.roles)) if (!(r.id in model.ids)) ds.push(src.diag(["roles", role, "id"], "E106", `unknown id kind "${r.id}"`));
  // A def with `variants` is a union discriminated on one property: each variant names the values it takes.
  for (const [name, d] of Object.entries<any>(v.defs ?? {})) {
    if (!d.variants) continue;
    if (typeof d.discriminator !== "string" || !(d.required ?? []).includes(d.discriminator)) ds.push(src.diag(["defs", name], "E106", `def "${name}" has variants: it needs "discriminator: <property>", listed under required`));
    const seenValue = new Map<string, string>();
    for (const [vn, x] of Object.entries<any>(d.variants)) {
      if (!Array.isArray(x.itemTypes) || !x.itemTypes.length) { ds.push(src.diag(["defs", name, "variants", vn], "E106", `variant "${vn}" needs itemTypes: [values of ${d.discriminator}]`)); continue; }
      for (const t of x.itemTypes) {
        if (seenValue.has(t)) ds.push(src.diag(["defs", name, "variants", vn], "E106", `"${t}" is in variants ${seenValue.get(t)} and ${vn}`));
        seenValue.set(t, vn);
      }
    }
  }
  // The event-type list and the payload map must be the same set (the TS types prove it again at compile time).
  const listed = new Set(model.eventTypes);
  const seen = new Set<string>();
  model.eventTypes.forEach((t, i) => {
    if (seen.has(t)) ds.push(src.diag(["eventTypes", i], "E102", `event type "${t}" is listed twice`));
    seen.add(t);
    if (!(t in model.payloads)) ds.push(src.diag(["eventTypes", i], "E103", `event type "${t}" has no entry under payloads`));
  });
  for (const t of Object.keys(model.payloads)) {
    if (!listed.has(t)) ds.push(src.diag(["payloads", t], "E104", `payload "${t}" is not in eventTypes`, true));
  }
  // Every #/… reference must resolve.
  walkRefs(v, [], (ref, path) => {
    const m = REF.exec(ref);
    if (!m || !(m[2] in (v[m[1]] ?? {}))) ds.push(src.diag(path, "E105", `unresolved reference "${ref}"`));
  });
  return { model, diagnostics: ds };
}

/**
 * The model's view of a union def: its common properties plus every variant's (what a table row may set; the
 * published schema checks the combination per variant). `variants` stays for buildJsonSchema.
 */
function mergeVariants(defs: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [name, d] of Object.entries<any>(defs)) {
    if (!d.variants) { out[name] = d; continue; }
    const properties = { ...d.properties };
    for (const x of Object.values<any>(d.variants)) for (const [k, ps] of Object.entries(x.properties ?? {})) if (!(k in properties)) properties[k] = ps;
    out[name] = { ...d, properties, commonProperties: d.properties };
  }
  return out;
}

function walkRefs(node: any, path: (string | number)[], f: (ref: string, path: (string | number)[]) => void): void {
  if (Array.isArray(node)) node.forEach((x, i) => walkRefs(x, [...path, i], f));
  else if (node && typeof node === "object") {
    for (const [k, x] of Object.entries(node)) {
      if (k === "$ref" && typeof x === "string") f(x, [...path, k]);
      else walkRefs(x, [...path, k], f);
    }
  }
}

/** "thread.token-usage.updated" → "ThreadTokenUsageUpdated" */
export function pascal(type: string): string {
  return type.split(/[.\-_/]/).filter(Boolean).map((s) => s[0].toUpperCase() + s.slice(1)).join("");
}
export const payloadDefName = (type: string) => `${pascal(type)}Payload`;
export const eventDefName = (type: string) => `${pascal(type)}Event`;

/** Rewrite the model's #/enums|defs|ids refs to JSON Schema #/definitions refs, recursively. */
function rewrite(node: any): any {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node && typeof node === "object") {
    const out: any = {};
    for (const [k, x] of Object.entries(node)) {
      if (k === "$ref" && typeof x === "string") {
        const m = REF.exec(x)!;
        out.$ref = `#/definitions/${m[2]}`;
      } else out[k] = rewrite(x);
    }
    return out;
  }
  return node;
}

function payloadSchema(s: any): any {
  if (s.$ref) return rewrite(s);
  return { type: "object", additionalProperties: false, ...rewrite(s), properties: rewrite(s.properties ?? {}) };
}

/** The published JSON Schema (draft-07): one `oneOf` branch per event type, discriminated on `type`. */
export function buildJsonSchema(m: CanonicalModel): any {
  const definitions: Record<string, any> = {};
  for (const [name, prefix] of Object.entries(m.ids)) {
    definitions[name] = { type: "string", pattern: `^${prefix}_[A-Za-z0-9._:-]+$`, tsType: name, description: `Canonical ${name}, minted by agentnorm (prefix "${prefix}_"). Never a provider id.` };
  }
  for (const [name, values] of Object.entries(m.enums)) definitions[name] = { type: "string", enum: values };
  for (const [name, s] of Object.entries(m.defs)) {
    if (!s.variants) { definitions[name] = { title: name, ...payloadSchema(s) }; continue; }
    // A union discriminated on `s.discriminator`: one closed object per variant (common + own properties).
    const disc = s.discriminator as string;
    const common = s.commonProperties ?? {};
    const variants = Object.entries<any>(s.variants);
    for (const [vn, x] of variants) {
      definitions[vn] = {
        title: vn,
        type: "object",
        additionalProperties: false,
        required: s.required,
        properties: rewrite({ ...common, [disc]: x.itemTypes.length === 1 ? { const: x.itemTypes[0] } : { enum: x.itemTypes }, ...x.properties }),
      };
    }
    definitions[name] = {
      title: name,
      description: `A union discriminated on "${disc}": one branch per group of ${disc} values.`,
      type: "object",
      required: s.required,
      properties: rewrite({ [disc]: common[disc] }),
      discriminator: { propertyName: disc },
      tsType: variants.map(([vn]) => vn).join(" | "),
      oneOf: variants.map(([vn]) => ({ $ref: `#/definitions/${vn}` })),
    };
  }
  definitions.CanonicalRuntimeEventType = { type: "string", enum: m.eventTypes };
  for (const t of m.eventTypes) definitions[payloadDefName(t)] = { title: payloadDefName(t), ...payloadSchema(m.payloads[t]) };
  // Object-valued envelope fields become shared definitions, so the validator checks them in one function.
  const envProps: Record<string, any> = {};
  for (const [k, x] of Object.entries<any>(rewrite(m.envelope.properties))) {
    if (x.type === "object") {
      const name = k === "raw" ? "RuntimeEventRaw" : pascal(k);
      definitions[name] = { title: name, ...x };
      envProps[k] = { $ref: `#/definitions/${name}` };
    } else envProps[k] = x;
  }
  // The envelope is checked once; the discriminated branches only pair `type` with its payload.
  definitions.RuntimeEventEnvelope = {
    type: "object",
    additionalProperties: false,
    required: m.envelope.required,
    properties: { ...envProps, type: { $ref: "#/definitions/CanonicalRuntimeEventType" }, payload: {} },
  };
  for (const t of m.eventTypes) {
    definitions[eventDefName(t)] = {
      type: "object",
      required: ["type", "payload"],
      properties: { type: { const: t }, payload: { $ref: `#/definitions/${payloadDefName(t)}` } },
    };
  }
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "agentnorm:canonical-event.schema.json",
    title: "ProviderRuntimeEventV2",
    description: "One canonical agentnorm runtime event (EVENTS.md §1, plus sequence, parentId and raw.rule). Generated from schemas/canonical/canonical.yaml.",
    allOf: [
      { $ref: "#/definitions/RuntimeEventEnvelope" },
      {
        type: "object",
        required: ["type"],
        properties: { type: { $ref: "#/definitions/CanonicalRuntimeEventType" } },
        discriminator: { propertyName: "type" },
        oneOf: m.eventTypes.map((t) => ({ $ref: `#/definitions/${eventDefName(t)}` })),
      },
    ],
    definitions,
  };
}

/** Strip generator-only keywords (tsType) for the published schema and ajv. */
export function publishedSchema(schema: any): any {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === "tsType" ? undefined : v)));
}

/** TypeScript types for the model, via json-schema-to-typescript for the payload shapes. */
export async function buildTypes(m: CanonicalModel, schema: any): Promise<string> {
  const defs = { ...schema.definitions };
  for (const t of m.eventTypes) delete defs[eventDefName(t)];
  for (const name of Object.keys(m.ids)) delete defs[name];
  delete defs.RuntimeEventEnvelope; // written out below as RuntimeEventBase<TType, TPayload>
  const idRefs = new Set(Object.keys(m.ids).map((k) => `#/definitions/${k}`));
  const inlineIds = (node: any): any =>
    Array.isArray(node) ? node.map(inlineIds)
    : node && typeof node === "object"
      ? node.$ref && idRefs.has(node.$ref) ? { type: "string", tsType: node.$ref.split("/").pop() }
        : Object.fromEntries(Object.entries(node).map(([k, x]) => [k, inlineIds(x)]))
      : node;
  const root = {
    title: "CanonicalModelTypes",
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(defs).map((k) => [k, { $ref: `#/definitions/${k}` }])),
    definitions: Object.fromEntries(
      Object.entries(defs).map(([k, d]: [string, any]) => [k, inlineIds({ ...d, title: k })]),
    ),
  };
  let ts = await compile(root as any, "CanonicalModelTypes", {
    bannerComment: "",
    additionalProperties: false,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    format: false,
    declareExternallyReferenced: true,
  });
  // The synthetic root only exists to reach every definition.
  ts = ts.replace(/export interface CanonicalModelTypes \{[\s\S]*?\n\}\n/, "");
  const brands = Object.entries(m.ids)
    .map(([name, prefix]) => `/** Canonical id (prefix \`${prefix}_\`), minted by agentnorm; never a provider id (EVENTS.md §1.6). */\nexport type ${name} = string & { readonly __brand: "${name}" };`)
    .join("\n");
  const lines: string[] = [];
  lines.push(brands, "", ts.trim(), "");
  lines.push(`export const CANONICAL_EVENT_TYPES = ${JSON.stringify(m.eventTypes, null, 2)} as const;`);
  lines.push(`export const ID_PREFIXES = ${JSON.stringify(m.ids, null, 2)} as const;`);
  lines.push(`export type IdKind = keyof typeof ID_PREFIXES;`);
  for (const [name, values] of Object.entries(m.enums)) {
    lines.push(`export const ${constName(name)} = ${JSON.stringify(values)} as const;`);
  }
  lines.push("", "/** Payload of each canonical event type (EVENTS.md §1.5). */", "export interface RuntimeEventPayloadByType {");
  for (const t of m.eventTypes) lines.push(`  ${JSON.stringify(t)}: ${payloadDefName(t)};`);
  lines.push("}", "");
  const env = m.envelope.properties;
  const req = new Set(m.envelope.required);
  lines.push("/** The envelope every event shares (EVENTS.md §1.1 + sequence, parentId, raw.rule). */");
  lines.push("export interface RuntimeEventBase<TType extends CanonicalRuntimeEventType, TPayload> {");
  for (const [k, s] of Object.entries<any>(env)) {
    if (s.description) lines.push(`  /** ${s.description} */`);
    lines.push(`  ${k}${req.has(k) ? "" : "?"}: ${envType(k, s)};`);
  }
  lines.push("  type: TType;", "  payload: TPayload;", "}", "");
  lines.push(
    "export type CanonicalRuntimeEventTypeFromPayloadMap = keyof RuntimeEventPayloadByType;",
    "/** Compile-time proof that the event-type list and the payload map are the same set: both must be `never`. */",
    "export type MissingPayloadTypes = Exclude<CanonicalRuntimeEventType, CanonicalRuntimeEventTypeFromPayloadMap>;",
    "export type ExtraPayloadTypes = Exclude<CanonicalRuntimeEventTypeFromPayloadMap, CanonicalRuntimeEventType>;",
    "type AssertNever<T extends never> = T;",
    "export type EventTypeSetsAgree = [AssertNever<MissingPayloadTypes>, AssertNever<ExtraPayloadTypes>];",
    "export type ListedEventTypesAgree = AssertNever<Exclude<(typeof CANONICAL_EVENT_TYPES)[number], CanonicalRuntimeEventType> | Exclude<CanonicalRuntimeEventType, (typeof CANONICAL_EVENT_TYPES)[number]>>;",
    "",
    "/** The canonical event: a discriminated union on `type`. */",
    "export type ProviderRuntimeEventV2 = {",
    "  [TType in CanonicalRuntimeEventTypeFromPayloadMap]: RuntimeEventBase<TType, RuntimeEventPayloadByType[TType]>;",
    "}[CanonicalRuntimeEventTypeFromPayloadMap];",
    "export type CanonicalEvent<T extends CanonicalRuntimeEventType = CanonicalRuntimeEventType> = Extract<ProviderRuntimeEventV2, { type: T }>;",
  );
  return lines.join("\n") + "\n";
}

function constName(enumName: string): string {
  return enumName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase() + "_VALUES";
}

function envType(key: string, s: any): string {
  if (s.$ref) return REF.exec(s.$ref)![2];
  if (s.type === "object") return key === "raw" ? "RuntimeEventRaw" : pascal(key);
  if (s.type === "integer" || s.type === "number") return "number";
  if (s.type === "string") return "string";
  return "unknown";
}

/** ajv standalone ESM code for the published schema; must import nothing at run time. */
export function buildValidator(schema: any): string {
  const ajv = new Ajv({ code: { source: true, esm: true, lines: false }, inlineRefs: false, discriminator: true, strict: true, allErrors: false, messages: true, keywords: ["tsType"] });
  ajv.addSchema(publishedSchema(schema), "event");
  const code = standaloneCode(ajv, { validateCanonicalEvent: "event" });
  if (/\brequire\(|^import /m.test(code)) {
    throw new Error("ajv standalone output needs a runtime import; change the canonical schema to avoid that keyword");
  }
  return code;
}
