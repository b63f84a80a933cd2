/**
 * Capture logs (src/capture/capture.ts): writer → reader round trip, the reader's per-line errors, the published JSON
 * Schema agreeing with the reader, sanitize determinism, and prototype safety.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import {
  CAPTURE_STAGES, createCaptureWriter, readCapture, serializeRecords, validateRecord, type CaptureEnvelope,
} from "../src/capture/capture.js";
import { sanitizeCapture } from "../src/capture/replay.js";

const schema = JSON.parse(readFileSync(fileURLToPath(new URL("../schemas/capture/capture-envelope.schema.json", import.meta.url)), "utf8"));
// ajv is CommonJS: the default import is the class or the module object carrying it on `.default`.
type AjvClass = typeof import("ajv").default;
const AjvCtor: AjvClass = (Ajv as unknown as { default?: AjvClass }).default ?? (Ajv as unknown as AjvClass);
const ajv = new AjvCtor({ allErrors: true, strict: false, allowUnionTypes: true, formats: { "date-time": true } });
const validateSchema = ajv.compile(schema);

function fixedWriter(redact?: false) {
  let t = Date.UTC(2026, 0, 1);
  return createCaptureWriter({ provider: "codex", source: "codex-app-server", captureId: "cap-1", clock: () => t++, redact });
}

function sample(): string {
  const w = fixedWriter();
  let s = "";
  s += w.line("native_in", "turn/start", { method: "turn/start", id: 1, params: { input: [{ type: "text", text: "hi" }] } }, { sessionId: "ses_a", direction: "out" });
  s += w.line("normalized_out", "turn.started", { type: "turn.started", sessionId: "ses_a", turnId: "trn_a" }, { sessionId: "ses_a", turnId: "trn_a" });
  s += w.line("legacy_out", "[MESSAGE_START]", "[MESSAGE_START]", { sessionId: "ses_a", turnId: "trn_a", notes: "marker" });
  return s;
}

describe("capture writer and reader", () => {
  it("round trip: every record the writer produces reads back equal, with 1..N sequences across stages", () => {
    const text = sample();
    const r = readCapture(text);
    expect(r.errors).toEqual([]);
    expect(r.lines).toBe(3);
    expect(r.records.map((x) => [x.sequence, x.stage, x.eventType])).toEqual([
      [1, "native_in", "turn/start"], [2, "normalized_out", "turn.started"], [3, "legacy_out", "[MESSAGE_START]"],
    ]);
    const first = r.records[0] as CaptureEnvelope;
    expect(first).toMatchObject({ schemaVersion: 1, captureId: "cap-1", timestamp: "2026-01-01T00:00:00.000Z", provider: "codex", source: "codex-app-server", sessionId: "ses_a", turnId: null, direction: "out", redactions: [] });
    expect(serializeRecords(r.records)).toBe(text);
  });

  it("every written record validates against the published JSON Schema, and so does its sanitized fixture form", () => {
    const r = readCapture(sample());
    for (const rec of r.records) expect(validateSchema(rec), JSON.stringify(validateSchema.errors)).toBe(true);
    for (const rec of sanitizeCapture(r.records)) {
      expect("captureId" in rec || "timestamp" in rec).toBe(false);
      expect(validateSchema(rec), JSON.stringify(validateSchema.errors)).toBe(true);
    }
  });

  it("the reader reports each bad line with its line number and field, and keeps every good line", () => {
    const good = sample().split("\n").filter(Boolean);
    const bad0 = JSON.parse(good[0]);
    const lines = [
      good[0],
      "{not json",
      JSON.stringify({ ...bad0, stage: "render_in" }),
      JSON.stringify({ ...bad0, sequence: 0 }),
      good[1],
      "",
      JSON.stringify((({ provider, ...rest }) => rest)(bad0)),
      JSON.stringify({ ...bad0, captureId: undefined }),
      JSON.stringify({ ...bad0, redactions: [{ path: "/payload", secret: "x" }] }),
      JSON.stringify({ ...bad0, extra: 1 }),
      "[1,2]",
      good[2],
    ];
    const r = readCapture(lines.join("\n") + "\n");
    expect(r.records.map((x) => x.sequence)).toEqual([1, 2, 3]);
    expect(r.errors.map((e) => [e.line, e.field])).toEqual([
      [2, ""], [3, "stage"], [4, "sequence"], [7, "provider"], [8, "captureId"], [9, "redactions/0"], [10, "extra"], [11, ""],
    ]);
    expect(r.errors[0].message).toMatch(/not JSON/);
    expect(r.errors[1].message).toMatch(/native_in, normalized_out, legacy_out/);
    // The JSON Schema rejects the same lines.
    for (const i of [2, 3, 6, 7, 8, 9, 10]) expect(validateSchema(JSON.parse(lines[i])), `line ${i + 1}`).toBe(false);
  });

  it("a sequence that goes backwards is reported (record kept)", () => {
    const [a, b] = sample().split("\n");
    const r = readCapture(`${b}\n${a}\n`);
    expect(r.records).toHaveLength(2);
    expect(r.errors).toEqual([{ line: 2, field: "sequence", message: expect.stringMatching(/1 does not follow 2/) }]);
  });

  it("validateRecord knows the stages the envelope names", () => {
    expect(CAPTURE_STAGES).toEqual(["native_in", "normalized_out", "legacy_out"]);
    expect(validateRecord(null)).toEqual([{ field: "", message: expect.any(String) }]);
  });
});

describe("sanitize", () => {
  const capture = () => {
    let t = 1_700_000_000_000;
    const w = createCaptureWriter({ provider: "codex", source: "codex-app-server", clock: () => (t += 17) });
    const sid = `ses_${Math.random().toString(36).slice(2)}-1`;
    const tid = `trn_${Math.random().toString(36).slice(2)}-1`;
    let s = "";
    s += w.line("native_in", "turn/started", { method: "turn/started", params: { threadId: "0d5b2f3e-1111-4222-8333-944455556666", turn: { id: "9a8b7c6d-1111-4222-8333-944455556666" } } }, { sessionId: sid });
    s += w.line("normalized_out", "turn.started", { eventId: `evt_${Math.random().toString(36).slice(2)}-1`, sessionId: sid, turnId: tid, createdAt: new Date(t).toISOString(), sequence: 1, type: "turn.started", providerRefs: { providerTurnId: "9a8b7c6d-1111-4222-8333-944455556666" }, payload: {}, raw: { source: "x", payload: { big: "copy" } } }, { sessionId: sid, turnId: tid });
    return s;
  };

  it("drops timestamp and captureId, renumbers canonical ids and UUIDs stably: two captures of the same run give the same bytes", () => {
    const a = serializeRecords(sanitizeCapture(readCapture(capture()).records));
    const b = serializeRecords(sanitizeCapture(readCapture(capture()).records));
    expect(a).toBe(b);
    expect(a).not.toMatch(/captureId|timestamp/);
    const [n, e] = readCapture(a).records;
    expect(n.sessionId).toBe("ses_1");
    expect((n.payload as any).params.turn.id).toBe("00000000-0000-4000-8000-000000000002");
    expect(e).toMatchObject({ sessionId: "ses_1", turnId: "trn_1", payload: { eventId: "evt_1", turnId: "trn_1", createdAt: "2026-01-01T00:00:00.000Z", providerRefs: { providerTurnId: "00000000-0000-4000-8000-000000000002" } } });
    // raw.payload is dropped from normalized_out (native_in holds the message): no key at all, not null
    expect(Object.keys((e.payload as any).raw ?? {})).not.toContain("payload");
  });

  it("is idempotent: sanitizing a fixture again changes nothing", () => {
    const once = serializeRecords(sanitizeCapture(readCapture(capture()).records));
    expect(serializeRecords(sanitizeCapture(readCapture(once).records))).toBe(once);
  });
});

describe("prototype safety", () => {
  it("__proto__ / constructor / prototype keys in payloads of every stage stay data and pollute nothing", () => {
    const hostile = () => JSON.parse('{"__proto__":{"polluted":"yes","token":"sk-proto0000000000000000000"},"constructor":{"prototype":{"polluted2":"yes"}},"a":{"__proto__":{"polluted3":"yes"}}}');
    const w = fixedWriter();
    let s = "";
    for (const stage of CAPTURE_STAGES) s += w.line(stage, "x", hostile());
    const r = readCapture(s);
    const fixture = sanitizeCapture(r.records);
    const text = serializeRecords(fixture);
    expect(({} as any).polluted).toBeUndefined();
    expect(({} as any).polluted2).toBeUndefined();
    expect(({} as any).polluted3).toBeUndefined();
    expect((Object.prototype as any).token).toBeUndefined();
    for (const rec of fixture) {
      const p = rec.payload as Record<string, unknown>;
      expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
      expect(Object.hasOwn(p, "__proto__")).toBe(true);
      expect((p as any).polluted).toBeUndefined(); // not reachable through the prototype chain
    }
    expect(text).toContain('"__proto__":{"polluted":"yes","token":"<REDACTED:secret_field>"}');
    expect(text).not.toContain("sk-proto");
  });
});
