/**
 * The versioned contract: every event states the stream's schemaVersion; the published JSON Schema compiles in
 * ajv's strict mode with only the date-time format docs/versioning.md names; createdAt is a date-time; and the project's own
 * consumers (accumulator, chat_event projection, verifier) follow the forward-compatibility rule: unknown fields
 * and event types are ignored, not fatal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CANONICAL_SCHEMA_VERSION } from "../generated/canonical.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { toChatEvents } from "../src/render/chat-event.js";
import { createVerifier } from "../src/verify/verify.js";

const ROOT = join(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const AjvCtor = require("ajv").default;
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "generated/canonical.schema.json"), "utf8"));
const DOC = readFileSync(join(ROOT, "docs/versioning.md"), "utf8");
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

const events = () => {
  const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
  return readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8").split("\n").filter(Boolean).flatMap((l) => n.pushLine(l));
};

describe("the canonical stream states its schema version", () => {
  it("every event carries schemaVersion, the schema's const", () => {
    const evs = events();
    expect(evs.length).toBeGreaterThan(20);
    expect(new Set(evs.map((e) => e.schemaVersion))).toEqual(new Set([CANONICAL_SCHEMA_VERSION]));
    expect(SCHEMA.definitions.RuntimeEventEnvelope.properties.schemaVersion.const).toBe(CANONICAL_SCHEMA_VERSION);
    expect(SCHEMA.definitions.RuntimeEventEnvelope.required).toContain("schemaVersion");
  });

  it("an event of another schemaVersion, or without one, is not valid", () => {
    const e = events()[0];
    expect(validateCanonicalEvent(e)).toBe(true);
    expect(validateCanonicalEvent({ ...e, schemaVersion: CANONICAL_SCHEMA_VERSION + 1 })).toBe(false);
    const { schemaVersion: _drop, ...without } = e as any;
    expect(validateCanonicalEvent(without)).toBe(false);
  });

  it("createdAt is an RFC 3339 date-time (format: date-time), checked by the shipped validator", () => {
    const e = events()[0];
    expect(JSON.stringify(SCHEMA)).toContain('"format":"date-time"');
    expect(events().every((x) => RFC3339.test(x.createdAt))).toBe(true);
    expect(validateCanonicalEvent({ ...e, createdAt: "yesterday" })).toBe(false);
    expect(validateCanonicalEvent({ ...e, createdAt: "2026-13-01T00:00:00Z" })).toBe(false);
    expect(validateCanonicalEvent({ ...e, createdAt: "2026-02-11T15:30:41.542+02:00" })).toBe(true);
  });
});

describe("the published schema compiles in ajv's strict mode as shipped", () => {
  it("with only the date-time format docs/versioning.md names (no discriminator option)", () => {
    expect(DOC).toMatch(/new Ajv\(\{ strict: true \}\)/);
    expect(DOC).toMatch(/date-time/);
    expect(JSON.stringify(SCHEMA)).not.toContain('"discriminator"');
    const ajv = new AjvCtor({ strict: true });
    ajv.addFormat("date-time", RFC3339);
    const validate = ajv.compile(SCHEMA);
    for (const e of events()) expect(validate(e), JSON.stringify(validate.errors)).toBe(true);
  });

  it("strict mode refuses it without the date-time format (so the doc's list is the whole list)", () => {
    expect(() => new AjvCtor({ strict: true }).compile(SCHEMA)).toThrow(/date-time/);
  });
});

describe("forward compatibility: consumers ignore unknown fields and event types", () => {
  // The same stream twice: as is (with a gap in sequence), and with fields and an event type from a later version.
  const pair = () => {
    const base = events();
    const i = base.findIndex((e) => e.type === "turn.started");
    base.forEach((e, k) => ((e as any).sequence = k + 1 + (k > i ? 1 : 0)));
    const later: any[] = base.map((e) => ({ ...e, addedLater: { x: 1 }, payload: { ...(e.payload as object), alsoLater: true } }));
    later.splice(i + 1, 0, { ...base[i], eventId: "evt_later", sequence: i + 2, type: "turn.something-new", payload: { y: 2 } });
    return { base, later };
  };

  it("the accumulator renders the same transcript with and without them", () => {
    const { base, later } = pair();
    const a = createAccumulator();
    base.forEach((e) => a.apply(e));
    const b = createAccumulator();
    expect(() => later.forEach((e) => b.apply(e))).not.toThrow();
    const shape = (acc: ReturnType<typeof createAccumulator>) => JSON.stringify(acc.snapshot().sessions.map((s: any) => s.turns.map((t: any) => [t.state, (t.steps ?? []).map((st: any) => (st.blocks ?? []).map((bl: any) => [bl.kind, bl.text ?? bl.status]))])));
    expect(shape(b)).toBe(shape(a));
    expect(b.snapshot().problems.filter((p: any) => p.kind === "unknown-event-type").map((p: any) => p.sequence)).toEqual([later.find((e) => e.type === "turn.something-new").sequence]);
    expect(shape(a).length).toBeGreaterThan(50);
  });

  it("the chat_event projection skips an unknown type and keeps the rest", () => {
    const { base, later } = pair();
    const kinds = (rs: ReturnType<typeof toChatEvents>) => rs.map((r) => `${r.kind}:${r.phase}`);
    expect(kinds(toChatEvents(later))).toEqual(kinds(toChatEvents(base)));
    expect(toChatEvents(base).length).toBeGreaterThan(10);
  });
});

describe("the verifier checks sequence order, not time order", () => {
  it("provider times that go backwards are not a finding", () => {
    const evs = events();
    const v = createVerifier();
    const findings = evs.flatMap((e, k) => v.push({ ...e, createdAt: new Date(Date.UTC(2026, 0, 1) - k * 1000).toISOString() }));
    expect(findings.filter((f) => f.severity === "violation")).toEqual([]);
  });
});
