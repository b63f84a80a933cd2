/**
 * Canonical model stage: schemas/canonical/canonical.yaml → an in-memory model, then the published
 * JSON Schema, the TypeScript types (json-schema-to-typescript + ts-morph) and the validator (generator/validator.ts).
 */
import { compile } from "json-schema-to-typescript";
import { Ajv, type Options } from "ajv";
import { DiagnosticError, SourcedYaml, type Diagnostic } from "./diagnostics.ts";
import { compileValidator, UnsupportedSchema } from "./validator.ts";

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
  /** What each request type asks of the host (kind → CanonicalRequestType values), for renderers. */
  requestKinds: Record<string, string[]>;
}

export type GuardKind = "once" | "open" | "notStale";
export type LifecyclePhase = "opens" | "body" | "ends";
export const LIFECYCLE_PHASES: readonly LifecyclePhase[] = ["opens", "body", "ends"];
/** The verifier's findings per lifecycle part (values: VERIFY_RULES names). */
export type VerifyFindingKind = "noId" | "notOpen" | "again" | "afterEnd" | "withinEnded" | "withinNotOpened" | "withinNoId";
export const VERIFY_FINDINGS: readonly VerifyFindingKind[] = ["noId", "notOpen", "again", "afterEnd", "withinEnded", "withinNotOpened", "withinNoId"];
export interface LifecycleVerify {
  opens: Partial<Record<VerifyFindingKind, string>>;
  body: Partial<Record<VerifyFindingKind, string>>;
  ends: Partial<Record<VerifyFindingKind, string>>;
  openAtEnd?: string;
}
export interface LifecycleEntity {
  role: string; opens: string[]; body: string[]; ends: string[]; guards: Record<string, GuardKind>;
  /** The entity an opening event belongs to (another lifecycle entry). */
  within?: string;
  /** Its events are never emitted without the role's id. */
  needsId: boolean;
  verify: LifecycleVerify;
}

const REF = /^#\/(enums|defs|ids)\/(.+)$/;

export function loadCanonical(file: string, text: string): { model?: CanonicalModel; diagnostics: Diagnostic[] } {
  const src = new SourcedYaml(file, text);
  const ds = [...src.parseErrors];
  if (ds.length) return { diagnostics: ds };
  const v = src.value ?? {};
  if (typeof v !== "object" || Array.isArray(v)) return { diagnostics: [src.diag([], "E110", `the canonical model must be a mapping of sections (ids, enums, defs, eventTypes, payloads, envelope)`)] };
  for (const key of ["ids", "enums", "eventTypes", "payloads", "envelope"]) {
    if (!v[key]) ds.push(src.diag([], "E101", `canonical model is missing the "${key}" section`));
  }
  if (ds.length) return { diagnostics: ds };
  ds.push(...shapeProblems(src, v));
  if (ds.length) return { diagnostics: ds };
  const model: CanonicalModel = {
    file, src, version: v.version ?? 1, ids: v.ids, enums: v.enums, defs: mergeVariants(v.defs ?? {}), eventTypes: v.eventTypes,
    payloads: v.payloads, envelope: { required: v.envelope.required ?? [], properties: v.envelope.properties }, roles: v.roles ?? {},
    lifecycle: Object.fromEntries(Object.entries<any>(v.lifecycle ?? {}).map(([k, l]) => [k, {
      role: l.role, opens: l.opens ?? [], body: l.body ?? [], ends: l.ends ?? [], guards: l.guards ?? {},
      ...(l.within !== undefined ? { within: l.within } : {}), needsId: l.needsId === true,
      verify: { opens: l.verify?.opens ?? {}, body: l.verify?.body ?? {}, ends: l.verify?.ends ?? {}, ...(l.verify?.openAtEnd !== undefined ? { openAtEnd: l.verify.openAtEnd } : {}) },
    }])),
    requestKinds: v.requestKinds ?? {},
  };
  // Every request type has exactly one request kind (renderers pick the card by it).
  if (v.requestKinds !== undefined) {
    const types = new Set(model.enums.CanonicalRequestType ?? []);
    const kindOf = new Map<string, string>();
    if (!isMap(v.requestKinds)) ds.push(src.diag(["requestKinds"], "E114", `requestKinds must be a mapping of kind → list of CanonicalRequestType values`));
    else for (const [k, list] of Object.entries<any>(v.requestKinds)) {
      if (!/^[a-z][a-z_]*$/.test(k)) ds.push(src.diag(["requestKinds", k], "E114", `request kind "${k}" must be a lower-case name (letters and _)`));
      if (!Array.isArray(list)) { ds.push(src.diag(["requestKinds", k], "E114", `request kind "${k}" takes a list of CanonicalRequestType values`)); continue; }
      list.forEach((t: unknown, i: number) => {
        if (typeof t !== "string" || !types.has(t)) ds.push(src.diag(["requestKinds", k, i], "E114", `"${String(t)}" is not a CanonicalRequestType value`));
        else if (kindOf.has(t)) ds.push(src.diag(["requestKinds", k, i], "E114", `"${t}" is already of request kind "${kindOf.get(t)}"`));
        else kindOf.set(t, k);
      });
    }
    for (const t of types) if (isMap(v.requestKinds) && !kindOf.has(t)) ds.push(src.diag(["requestKinds"], "E114", `CanonicalRequestType "${t}" has no request kind`));
  }
  const eventOf = new Map<string, string>();
  // The lifecycle names event types of the model, roles of `roles`, and guards from its own vocabulary.
  for (const [name, l] of Object.entries(model.lifecycle)) {
    if (!(l.role in model.roles)) ds.push(src.diag(["lifecycle", name, "role"], "E106", `unknown role "${l.role}" (roles: ${Object.keys(model.roles).join(", ")})`));
    for (const part of ["opens", "body", "ends"] as const) {
      l[part].forEach((t, i) => { if (!(t in model.payloads)) ds.push(src.diag(["lifecycle", name, part, i], "E107", `unknown event type "${t}"`)); });
    }
    for (const part of LIFECYCLE_PHASES) for (const t of l[part]) {
      if (eventOf.has(t)) ds.push(src.diag(["lifecycle", name, part], "E107", `event type "${t}" is already in the ${eventOf.get(t)} lifecycle (an event type belongs to one entity)`));
      else eventOf.set(t, name);
    }
    if (l.within !== undefined && !(l.within in model.lifecycle)) ds.push(src.diag(["lifecycle", name, "within"], "E109", `"within" names "${l.within}", which is not a lifecycle entry (${Object.keys(model.lifecycle).join(", ")})`));
    const rawVerify = (v.lifecycle[name] as any).verify ?? {};
    for (const [part, rules] of Object.entries<any>(rawVerify)) {
      if (part === "openAtEnd") { if (typeof rules !== "string") ds.push(src.diag(["lifecycle", name, "verify", part], "E109", `openAtEnd takes a rule name`)); continue; }
      if (!(LIFECYCLE_PHASES as string[]).includes(part)) { ds.push(src.diag(["lifecycle", name, "verify", part], "E109", `unknown verify key "${part}" (${LIFECYCLE_PHASES.join(", ")}, openAtEnd)`)); continue; }
      for (const [finding, rule] of Object.entries<any>(rules ?? {})) {
        if (!(VERIFY_FINDINGS as string[]).includes(finding)) ds.push(src.diag(["lifecycle", name, "verify", part, finding], "E109", `unknown finding "${finding}" (${VERIFY_FINDINGS.join(", ")})`));
        else if (typeof rule !== "string") ds.push(src.diag(["lifecycle", name, "verify", part, finding], "E109", `${finding} takes a rule name`));
      }
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

const isMap = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
const kindOf = (x: unknown) => (Array.isArray(x) ? "a list" : x === null ? "null" : isMap(x) ? "a mapping" : `a ${typeof x}`);
/** Enums the generator itself reads (raw sources, providers, content streams). */
export const REQUIRED_ENUMS = ["ProviderKind", "RuntimeEventSource", "ContentStreamKind", "CanonicalItemType"];

/** Each section has the shape the later stages read (E110), and the enums the generator relies on exist (E111). */
function shapeProblems(src: SourcedYaml, v: any): Diagnostic[] {
  const ds: Diagnostic[] = [];
  const need = (ok: boolean, path: (string | number)[], what: string, got: unknown) => {
    if (!ok) ds.push(src.diag(path, "E110", `${path.join(".")} must be ${what}, not ${kindOf(got)}`));
    return ok;
  };
  if (need(isMap(v.ids), ["ids"], "a mapping of id kind → prefix", v.ids)) {
    for (const [k, x] of Object.entries(v.ids)) need(typeof x === "string" && /^[a-z][a-z0-9]*$/.test(x), ["ids", k], "a lower-case prefix (letters and digits)", x);
  }
  if (need(isMap(v.enums), ["enums"], "a mapping of enum name → list of values", v.enums)) {
    for (const [k, x] of Object.entries(v.enums)) {
      if (need(Array.isArray(x), ["enums", k], "a list of strings", x)) (x as unknown[]).forEach((y, i) => need(typeof y === "string", ["enums", k, i], "a string", y));
    }
    for (const e of REQUIRED_ENUMS) if (!(e in v.enums)) ds.push(src.diag(["enums"], "E111", `the canonical model must define enum "${e}" (the mapping tables are checked against it)`, true));
  }
  if (v.defs !== undefined) need(isMap(v.defs), ["defs"], "a mapping of definition name → JSON Schema", v.defs);
  if (need(Array.isArray(v.eventTypes), ["eventTypes"], "a list of event type names", v.eventTypes)) {
    (v.eventTypes as unknown[]).forEach((t, i) => need(typeof t === "string", ["eventTypes", i], "a string", t));
  }
  if (need(isMap(v.payloads), ["payloads"], "a mapping of event type → payload JSON Schema", v.payloads)) {
    for (const [k, x] of Object.entries(v.payloads)) need(isMap(x), ["payloads", k], "a JSON Schema (a mapping)", x);
  }
  if (need(isMap(v.envelope), ["envelope"], "a mapping with required and properties", v.envelope)) {
    need(Array.isArray(v.envelope.required ?? []), ["envelope", "required"], "a list of field names", v.envelope.required);
    if (need(isMap(v.envelope.properties), ["envelope", "properties"], "a mapping of field → JSON Schema", v.envelope.properties)) {
      for (const [k, x] of Object.entries(v.envelope.properties)) need(isMap(x), ["envelope", "properties", k], "a JSON Schema (a mapping)", x);
    }
  }
  if (v.roles !== undefined && need(isMap(v.roles), ["roles"], "a mapping of role → { id, field?, ref? }", v.roles)) {
    for (const [k, x] of Object.entries<any>(v.roles)) {
      if (need(isMap(x), ["roles", k], "a mapping { id, field?, ref? }", x)) for (const f of ["id", "field", "ref"]) if (x[f] !== undefined || f === "id") need(typeof x[f] === "string", ["roles", k, f], "a string", x[f]);
    }
  }
  if (v.lifecycle !== undefined && need(isMap(v.lifecycle), ["lifecycle"], "a mapping of entity → { role, opens, body, ends, guards }", v.lifecycle)) {
    for (const [k, x] of Object.entries<any>(v.lifecycle)) {
      if (!need(isMap(x), ["lifecycle", k], "a mapping { role, opens, body, ends, guards }", x)) continue;
      need(typeof x.role === "string", ["lifecycle", k, "role"], "a role name", x.role);
      for (const part of ["opens", "body", "ends"]) if (x[part] !== undefined && need(Array.isArray(x[part]), ["lifecycle", k, part], "a list of event types", x[part])) (x[part] as unknown[]).forEach((t, i) => need(typeof t === "string", ["lifecycle", k, part, i], "an event type", t));
      if (x.guards !== undefined) need(isMap(x.guards), ["lifecycle", k, "guards"], "a mapping of event type → guard", x.guards);
    }
  }
  return ds;
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
    description: "One canonical agentnorm runtime event (the envelope with sequence, parentId and raw.rule, and one payload per type). Generated from schemas/canonical/canonical.yaml.",
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

/**
 * The schema the precompiled validator is built from: generator-only keywords (tsType) stripped. It keeps the
 * OpenAPI `discriminator` keyword (ajv's `discriminator: true`), so the validator goes straight to the branch of an
 * event's `type` (and a payload's `itemType`) instead of trying every branch.
 */
export function validatorSchema(schema: any): any {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === "tsType" ? undefined : v)));
}

/**
 * The published schema (generated/canonical.schema.json): plain draft-07, compiling in ajv's strict mode with no
 * option but a `date-time` format (ajv-formats). `discriminator` is not a JSON Schema keyword, so it is left out:
 * each `oneOf` branch pins the discriminating property with `const`/`enum`, so at most one branch can match, and
 * the schema accepts exactly what the validator accepts.
 */
export function publishedSchema(schema: any): any {
  return JSON.parse(JSON.stringify(schema, function (this: any, k, v) {
    if (k === "tsType") return undefined;
    if (k === "discriminator" && Array.isArray(this?.oneOf) && v && typeof v === "object" && typeof v.propertyName === "string") return undefined;
    return v;
  }));
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
  let ts: string;
  try {
    ts = await compile(root as any, "CanonicalModelTypes", {
      bannerComment: "",
      additionalProperties: false,
      unreachableDefinitions: true,
      strictIndexSignatures: true,
      format: false,
      declareExternallyReferenced: true,
    });
  } catch (e) {
    throw new DiagnosticError([m.src.diag([], "E113", `TypeScript types cannot be generated from the canonical model: ${(e as Error).message.split("\n")[0]}`)]);
  }
  // The synthetic root only exists to reach every definition.
  ts = ts.replace(/export interface CanonicalModelTypes \{[\s\S]*?\n\}\n/, "");
  // json-schema-to-typescript's "referenced by … via the definition …" notes say nothing to a reader: our own
  // docs (the model's descriptions, and the payload notes below) replace them.
  ts = ts.replace(/\/\*\*\n \* This interface was referenced by `CanonicalModelTypes`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n \*\/\n/g, "");
  ts = ts.replace(/\n \* ?\n \* This interface was referenced by `CanonicalModelTypes`'s JSON-Schema\n \* via the `definition` "[^"]+"\./g, "");
  /** Put `doc` first in the declaration's doc comment (creating one when it has none). */
  const document = (name: string, kind: "interface|type" | "type", doc: string) => {
    const re = new RegExp(`(^|\\n)(\\/\\*\\*\\n(?:(?! \\*\\/)[^\\n]*\\n)* \\*\\/\\n)?(export (?:${kind}) ${name}\\b)`);
    ts = ts.replace(re, (_, pre, comment: string | undefined, decl) => comment ? `${pre}/**\n * ${doc}\n *${comment.slice(3)}${decl}` : `${pre}/** ${doc} */\n${decl}`);
  };
  for (const t of m.eventTypes) {
    const name = payloadDefName(t);
    const roles = Object.entries(m.lifecycle).flatMap(([entity, l]) => LIFECYCLE_PHASES.filter((ph) => l[ph].includes(t)).map((ph) => `${ph === "opens" ? "opens" : ph === "ends" ? "ends" : "is part of"} the ${entity} lifecycle`));
    document(name, "interface|type", `The payload of \`${t}\` events${roles.length ? ` (it ${roles.join("; ")})` : ""}.`);
  }
  for (const [name, values] of Object.entries(m.enums)) document(name, "type", `One of ${values.length} values (listed at run time as \`${constName(name)}\`).`);
  document("CanonicalRuntimeEventType", "type", "Every canonical event type (listed at run time as `CANONICAL_EVENT_TYPES`; by name: `EventType`).");
  // Branded ids keep one kind of id from being passed as another; the brand is optional, so a plain string (an
  // event parsed from JSON, a literal in a test) is accepted without a cast.
  const brands = Object.entries(m.ids)
    .map(([name, prefix]) => `/** Canonical id (prefix \`${prefix}_\`), minted by agentnorm; never a provider id. Any string is accepted; the brand only keeps one kind of id from standing in for another. */\nexport type ${name} = string & { readonly __brand?: "${name}" };`)
    .join("\n");
  const lines: string[] = [];
  lines.push(brands, "", ts.trim(), "");
  lines.push(`export const CANONICAL_EVENT_TYPES = ${JSON.stringify(m.eventTypes, null, 2)} as const;`);
  lines.push(`export const ID_PREFIXES = ${JSON.stringify(m.ids, null, 2)} as const;`);
  lines.push(`export type IdKind = keyof typeof ID_PREFIXES;`);
  lines.push(`/** RFC 3339 date-time: the \`date-time\` format the validator checks createdAt with. */`, `export const DATE_TIME_FORMAT = /${DATE_TIME.source}/;`);
  const sv = m.envelope.properties.schemaVersion?.const;
  if (sv !== undefined) lines.push(`/** The canonical stream's contract version (every event's schemaVersion); changes only for a breaking change. */`, `export const CANONICAL_SCHEMA_VERSION = ${JSON.stringify(sv)} as const;`);
  for (const [name, values] of Object.entries(m.enums)) {
    lines.push(`export const ${constName(name)} = ${JSON.stringify(values)} as const;`);
  }
  if (Object.keys(m.requestKinds).length) {
    const byType = Object.fromEntries(Object.entries(m.requestKinds).flatMap(([k, ts]) => ts.map((t) => [t, k])));
    lines.push(
      "/** What a request asks of the host: a renderer picks its card by this (canonical.yaml `requestKinds`). */",
      `export type RequestKind = ${Object.keys(m.requestKinds).map((k) => JSON.stringify(k)).join(" | ")};`,
      "/** The request kind of each request type, as a type (`RequestTypeOfKind<\"question\">` is the types of that kind). */",
      `export interface RequestKindByType { ${Object.entries(byType).map(([t, k]) => `${JSON.stringify(t)}: ${JSON.stringify(k)};`).join(" ")} }`,
      "/** The request types of a request kind. */",
      "export type RequestTypeOfKind<K extends RequestKind> = { [T in CanonicalRequestType]: RequestKindByType[T] extends K ? T : never }[CanonicalRequestType];",
      `export const REQUEST_KIND: { readonly [T in CanonicalRequestType]: RequestKindByType[T] } = ${JSON.stringify(byType, null, 2)};`,
    );
  }
  lines.push("", "/** Payload of each canonical event type. */", "export interface RuntimeEventPayloadByType {");
  for (const t of m.eventTypes) lines.push(`  ${JSON.stringify(t)}: ${payloadDefName(t)};`);
  lines.push("}", "");
  const env = m.envelope.properties;
  const req = new Set(m.envelope.required);
  lines.push("/** The envelope every event shares (ids, sequence, parentId, raw.rule). */");
  lines.push("export interface RuntimeEventBase<TType extends CanonicalRuntimeEventType, TPayload> {");
  for (const [k, s] of Object.entries<any>(env)) {
    if (s.description) lines.push(`  /** ${s.description} */`);
    lines.push(`  ${k}${req.has(k) ? "" : "?"}: ${envType(k, s)};`);
  }
  lines.push("  type: TType;", "  payload: TPayload;", "}", "");
  lines.push(
    "type CanonicalRuntimeEventTypeFromPayloadMap = keyof RuntimeEventPayloadByType;",
    "// Compile-time proof that the event-type list and the payload map are the same set (not exported: no API).",
    "type MissingPayloadTypes = Exclude<CanonicalRuntimeEventType, CanonicalRuntimeEventTypeFromPayloadMap>;",
    "type ExtraPayloadTypes = Exclude<CanonicalRuntimeEventTypeFromPayloadMap, CanonicalRuntimeEventType>;",
    "type AssertNever<T extends never> = T;",
    "type EventTypeSetsAgree = [AssertNever<MissingPayloadTypes>, AssertNever<ExtraPayloadTypes>];",
    "type ListedEventTypesAgree = AssertNever<Exclude<(typeof CANONICAL_EVENT_TYPES)[number], CanonicalRuntimeEventType> | Exclude<CanonicalRuntimeEventType, (typeof CANONICAL_EVENT_TYPES)[number]>>;",
    "",
    "/** The canonical event: a discriminated union on `type`. */",
    "export type ProviderRuntimeEventV2 = {",
    "  [TType in CanonicalRuntimeEventTypeFromPayloadMap]: RuntimeEventBase<TType, RuntimeEventPayloadByType[TType]>;",
    "}[CanonicalRuntimeEventTypeFromPayloadMap];",
    "/** A canonical event; `CanonicalEvent<\"content.delta\">` is the event of that type (its payload typed). */",
    "export type CanonicalEvent<T extends CanonicalRuntimeEventType = CanonicalRuntimeEventType> = Extract<ProviderRuntimeEventV2, { type: T }>;",
    "/** The event of one type: the same as `CanonicalEvent<T>`. */",
    "export type EventOf<T extends CanonicalRuntimeEventType> = Extract<ProviderRuntimeEventV2, { type: T }>;",
    "/** The payload of one event type. */",
    "export type PayloadOf<T extends CanonicalRuntimeEventType> = RuntimeEventPayloadByType[T];",
    "",
    "/** Every canonical event type by a constant name: `EventType.ContentDelta === \"content.delta\"`. */",
    `export const EventType = {\n${m.eventTypes.map((t) => `  ${eventConstName(t)}: ${JSON.stringify(t)},`).join("\n")}\n} as const;`,
    "export type EventType = (typeof EventType)[keyof typeof EventType];",
  );
  return lines.join("\n") + "\n";
}

/** "thread.token-usage.updated" → ThreadTokenUsageUpdated. */
function eventConstName(type: string): string {
  return type.split(/[.\-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
}

function constName(enumName: string): string {
  return enumName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase() + "_VALUES";
}

function envType(key: string, s: any): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.$ref) return REF.exec(s.$ref)![2];
  if (s.type === "object") return key === "raw" ? "RuntimeEventRaw" : pascal(key);
  if (s.type === "integer" || s.type === "number") return "number";
  if (s.type === "string") return "string";
  return "unknown";
}

/** RFC 3339 date-time (the `date-time` format), as a RegExp so the standalone validator inlines it (no import). */
const DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt](?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** Annotation keywords: they say nothing a validator checks. */
const ANNOTATIONS = new Set(["description", "title", "$comment", "examples"]);

/** A schema without its annotations (in every subschema; a property named like one stays). */
function withoutAnnotations(s: any, inProperties = false): any {
  if (Array.isArray(s)) return s.map((x) => withoutAnnotations(x));
  if (!s || typeof s !== "object") return s;
  const out: any = {};
  for (const [k, v] of Object.entries(s)) {
    if (!inProperties && ANNOTATIONS.has(k) && (k !== "title" || typeof v === "string")) continue;
    // under properties / definitions / patternProperties the keys are names, not keywords; `enum` and `const` are data
    out[k] = k === "enum" || k === "const" || k === "default" ? v : withoutAnnotations(v, !inProperties && (k === "properties" || k === "definitions" || k === "patternProperties"));
  }
  return out;
}

/**
 * The options ajv was given when it generated the validator (before generator/validator.ts did): the generated
 * validator behaves as ajv with these options does, and test/generator/validator-parity.test.ts holds it to that.
 */
export function referenceAjv(compileChecks: Partial<Pick<Options, "strictTypes" | "strictRequired" | "allowUnionTypes">> = {}): Ajv {
  return new Ajv({ inlineRefs: false, discriminator: true, strict: true, allErrors: false, messages: true, keywords: ["tsType"], formats: { "date-time": DATE_TIME }, ...compileChecks });
}

/** The schema the validator is compiled from: the validator schema without annotations (see withoutAnnotations). */
export function validatorInput(schema: any): any {
  return withoutAnnotations(validatorSchema(schema));
}

/** The event types and the definitions of their payloads (what PAYLOAD_VALIDATORS checks), from the schema. */
export function payloadDefinitions(published: any): [string, string][] {
  const payloads: [string, string][] = [];
  for (const ref of (published.allOf?.[1]?.oneOf ?? []) as { $ref: string }[]) {
    const name = ref.$ref.replace("#/definitions/", "");
    const def = published.definitions?.[name];
    const type = def?.properties?.type?.const;
    const payload = def?.properties?.payload;
    if (typeof type !== "string" || !payload) continue;
    const m = typeof payload.$ref === "string" ? /^#\/definitions\/([^/]+)$/.exec(payload.$ref) : null;
    if (!m) throw new DiagnosticError([{ file: "schemas/canonical/canonical.yaml", line: 1, col: 1, code: "E112", message: `the payload of "${type}" must be a definition (a $ref) for its validator` }]);
    payloads.push([type, m[1]]);
  }
  return payloads;
}

/**
 * The validator module for the published schema (generator/validator.ts compiles it; it imports nothing), with
 * one validator per event type for its payload alone (the runtime builds the envelope itself, typed; what a row
 * builds from provider data is the payload).
 */
export function buildValidator(schema: any, model?: CanonicalModel): string {
  const published = validatorInput(schema);
  // A schema written wrong in canonical.yaml is the user's mistake: report it there (E112), not as a stack trace.
  // ajv (a devDependency, at generation time only) checks it against the draft-07 meta-schema.
  const ajv = referenceAjv();
  if (!ajv.validateSchema(published)) {
    const errs = (ajv.errors ?? []).filter((e, i, all) => all.findIndex((x) => x.instancePath === e.instancePath) === i).slice(0, 5);
    throw new DiagnosticError(errs.map((e) => canonicalDiag(model, e.instancePath.split("/").slice(1).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~")), "E112", `invalid JSON Schema: ${e.instancePath.split("/").pop() || "(root)"} ${e.message}`)));
  }
  try {
    return compileValidator(published, { formats: { "date-time": DATE_TIME }, rootExport: "validateCanonicalEvent", payloads: payloadDefinitions(published) });
  } catch (e) {
    if (!(e instanceof UnsupportedSchema)) throw e;
    // a keyword the validator does not implement: at that keyword in canonical.yaml when it is written there
    const at = e.keyword && model ? findKey(model.src.value, e.keyword) : undefined;
    const message = `the canonical schema does not compile: ${e.message}`;
    throw new DiagnosticError([at ? model!.src.diag(at, "E112", message, true) : canonicalDiag(model, e.path, "E112", message)]);
  }
}

/** A diagnostic at the canonical.yaml node a published-schema path (`definitions/<Name>/…`) came from. */
function canonicalDiag(model: CanonicalModel | undefined, schemaPath: (string | number)[], code: string, message: string, atKey = false): Diagnostic {
  if (!model) return { file: "schemas/canonical/canonical.yaml", line: 1, col: 1, code, message };
  let path: (string | number)[] = schemaPath;
  if (schemaPath[0] === "definitions" && schemaPath[1]) {
    const name = String(schemaPath[1]);
    const rest = schemaPath.slice(2);
    const type = model.eventTypes.find((t) => payloadDefName(t) === name);
    path = type ? ["payloads", type, ...rest]
      : name in model.defs ? ["defs", name, ...rest.slice(rest[0] === "title" ? 1 : 0)]
      : name in model.enums ? ["enums", name]
      : name in model.ids ? ["ids", name]
      : ["envelope"];
  } else if (schemaPath.length) path = [];
  return model.src.diag(path, code, message, atKey);
}

/** The path of the first mapping key named `key` (depth first), for pointing at a misspelt keyword. */
function findKey(node: any, key: string, path: (string | number)[] = []): (string | number)[] | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) { const p = findKey(node[i], key, [...path, i]); if (p) return p; }
  } else if (node && typeof node === "object") {
    for (const [k, x] of Object.entries(node)) {
      if (k === key) return [...path, k];
      const p = findKey(x, key, [...path, k]);
      if (p) return p;
    }
  }
  return undefined;
}
