/**
 * Emit stage: the lifecycle grammar module (generated/grammar.gen.ts) from the canonical model's `roles` and
 * `lifecycle` sections. The runtime (src/normalize/), the verifier (src/verify/) read it; the tables' default
 * guards come from the same model entries (tables.ts lifecycleGuard). Pure: a function of the model.
 */
import { LIFECYCLE_PHASES, VERIFY_FINDINGS, type CanonicalModel } from "./canonical.ts";

const q = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => `[${xs.map(q).join(", ")}]`;
const obj = (o: Record<string, string | undefined>) => {
  const kv = Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${q(v!)}`);
  return kv.length ? `{ ${kv.join(", ")} }` : "{}";
};

/** Lookups the runtime needs, derived from the lifecycle (exported for tests). */
export function grammarLookups(m: CanonicalModel) {
  const eventLifecycle: [type: string, entity: string, phase: string][] = [];
  const needsId: [type: string, role: string][] = [];
  for (const [name, l] of Object.entries(m.lifecycle)) {
    for (const phase of LIFECYCLE_PHASES) {
      for (const t of l[phase]) {
        eventLifecycle.push([t, name, phase]);
        if (l.needsId) needsId.push([t, l.role]);
      }
    }
  }
  return { eventLifecycle, needsId };
}

export function emitGrammar(m: CanonicalModel, hdr: string): string {
  const roles = Object.entries(m.roles);
  const entities = Object.entries(m.lifecycle);
  const { eventLifecycle, needsId } = grammarLookups(m);
  const L: string[] = [hdr, ""];
  L.push(`import type { CanonicalRuntimeEventType, IdKind } from "./canonical.gen.js";`, "");
  L.push("/** Identity roles (canonical.yaml `roles`): the id kind each role mints. */");
  L.push("export const ROLE_KIND = {");
  for (const [r, x] of roles) L.push(`  ${r}: ${q(x.id)},`);
  L.push("} as const satisfies Record<string, IdKind>;");
  L.push("export type GrammarRole = keyof typeof ROLE_KIND;", "");
  L.push("/** The envelope field that carries each role's canonical id. */");
  L.push("export const ENVELOPE_FIELD: Partial<Record<GrammarRole, string>> = {");
  for (const [r, x] of roles) if (x.field) L.push(`  ${r}: ${q(x.field)},`);
  L.push("};", "");
  const fields = roles.filter(([, x]) => x.field).map(([, x]) => x.field!);
  L.push("/** The envelope's role fields, in the order every event carries them. */");
  L.push(`export const ENVELOPE_FIELDS = [${fields.map(q).join(", ")}] as const;`, "");
  L.push("/**");
  L.push(" * A new event in the envelope's one shape: every field present from the start, in this order (role fields,");
  L.push(" * providerRefs, payload and raw undefined until set), so all events share one hidden class and one key order.");
  L.push(" */");
  L.push("export function newEvent(eventId: string, schemaVersion: number, sequence: number, type: string, provider: string, sessionId: string, createdAt: string): Record<string, unknown> {");
  L.push(`  return { eventId, schemaVersion, sequence, type, provider, sessionId, createdAt, ${fields.map((f) => `${f}: undefined, `).join("")}providerRefs: undefined, payload: undefined, raw: undefined };`);
  L.push("}", "");
  L.push("/** The providerRefs field that carries each role's provider id. */");
  L.push("export const REF_FIELD: Partial<Record<GrammarRole, string>> = {");
  for (const [r, x] of roles) if (x.ref) L.push(`  ${r}: ${q(x.ref)},`);
  L.push("};", "");
  L.push("export type LifecycleName = " + entities.map(([n]) => q(n)).join(" | ") + ";");
  L.push("export type LifecyclePhase = " + LIFECYCLE_PHASES.map(q).join(" | ") + ";");
  L.push(`export type VerifyFindingKind = ${VERIFY_FINDINGS.map((k) => JSON.stringify(k)).join(" | ")};`);
  L.push("export interface LifecycleEntry {");
  L.push("  /** The role whose id names the entity. */");
  L.push("  role: GrammarRole;");
  L.push("  opens: readonly CanonicalRuntimeEventType[];");
  L.push("  body: readonly CanonicalRuntimeEventType[];");
  L.push("  ends: readonly CanonicalRuntimeEventType[];");
  L.push("  /** The entity an opening event belongs to. */");
  L.push("  within?: LifecycleName;");
  L.push("  /** Its events are never emitted without the role's id. */");
  L.push("  needsId: boolean;");
  L.push("  /** The verifier's rule per finding (VERIFY_RULES names). */");
  L.push("  verify: { [P in LifecyclePhase]: Partial<Record<VerifyFindingKind, string>> } & { openAtEnd?: string };");
  L.push("}", "");
  L.push("/** The lifecycle grammar (canonical.yaml `lifecycle`), innermost entity first. */");
  L.push("export const LIFECYCLE: Record<LifecycleName, LifecycleEntry> = {");
  for (const [n, l] of entities) {
    L.push(`  ${q(n)}: {`);
    L.push(`    role: ${q(l.role)},`);
    for (const p of LIFECYCLE_PHASES) L.push(`    ${p}: ${list(l[p])},`);
    if (l.within) L.push(`    within: ${q(l.within)},`);
    L.push(`    needsId: ${l.needsId},`);
    L.push("    verify: {");
    for (const p of LIFECYCLE_PHASES) L.push(`      ${p}: ${obj(l.verify[p])},`);
    if (l.verify.openAtEnd) L.push(`      openAtEnd: ${q(l.verify.openAtEnd)},`);
    L.push("    },");
    L.push("  },");
  }
  L.push("};", "");
  L.push("/** Event type → the lifecycle entity it belongs to and its part (opens, body or ends). */");
  L.push("export const EVENT_LIFECYCLE: Partial<Record<CanonicalRuntimeEventType, { entity: LifecycleName; phase: LifecyclePhase }>> = {");
  for (const [t, n, p] of eventLifecycle) L.push(`  ${q(t)}: { entity: ${q(n)}, phase: ${q(p)} },`);
  L.push("};", "");
  L.push("/** Event type → the role it is never emitted without (entities with `needsId`). */");
  L.push("export const NEEDS_ID: Partial<Record<CanonicalRuntimeEventType, GrammarRole>> = {");
  for (const [t, r] of needsId) L.push(`  ${q(t)}: ${q(r)},`);
  L.push("};");
  return L.join("\n") + "\n";
}
