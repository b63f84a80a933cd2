/**
 * serializeEvent writes the events the normalizer builds field by field (every event has the envelope's one shape);
 * its text must be exactly what JSON.stringify gives with raw.payload's source text spliced in — checked here
 * against that reference on every bundled recording, and on events a host changed (those take the generic path).
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { SOURCE_TEXT } from "../src/normalize/envelope.js";

/** The reference: JSON.stringify, raw.payload written as its source text (when it has one) where it stands. */
function reference(e: CanonicalEvent): string {
  const raw = e.raw as any;
  const text: string | undefined = raw?.[SOURCE_TEXT];
  if (text === undefined) return JSON.stringify(e);
  const MARK = "\u0000payload\u0000";
  return JSON.stringify(e, function (this: unknown, k, v) { return this === raw && k === "payload" ? MARK : v; }).replace(JSON.stringify(MARK), () => text);
}

const ROOT = join(__dirname, "..");
const files = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ndjson") && !d.name.endsWith(".expected.ndjson") ? [join(dir, d.name)] : []));
const SURFACE: Record<string, string> = { "codex-app-server": "codex-app-server", "codex-exec": "codex-exec", "claude-sdk": "claude-sdk", opencode: "opencode", acp: "acp" };

describe("serializeEvent", () => {
  it("writes exactly JSON.stringify's text (raw.payload spliced) for every event of the bundled recordings", () => {
    let n = 0;
    for (const [dir, surface] of Object.entries(SURFACE)) {
      for (const f of files(`fixtures/recorded/${dir}`)) {
        for (const includeRaw of [true, false]) {
          const norm = createNormalizer({ surface, includeRaw });
          for (const line of readFileSync(join(ROOT, f), "utf8").split("\n")) {
            for (const e of norm.pushLine(line)) {
              expect(serializeEvent(e)).toBe(reference(e));
              n++;
            }
          }
        }
      }
    }
    expect(n).toBeGreaterThan(10_000);
  });

  it("every event has the envelope's one shape: the same keys in the same order", () => {
    const norm = createNormalizer({ surface: "codex-app-server" });
    const shapes = new Set<string>();
    for (const f of files("fixtures/recorded/codex-app-server")) for (const line of readFileSync(join(ROOT, f), "utf8").split("\n")) for (const e of norm.pushLine(line)) shapes.add(Object.keys(e).join(","));
    expect([...shapes]).toEqual(["eventId,schemaVersion,sequence,type,provider,sessionId,createdAt,threadId,turnId,itemId,requestId,parentId,providerRefs,payload,raw"]);
  });

  it("events a host changed are written as JSON.stringify writes them", () => {
    const norm = createNormalizer({ surface: "codex-app-server" });
    const line = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8").split("\n").find((l) => l.includes('"turn/started"'))!;
    const [e] = norm.pushLine(line);
    const quoted = { ...e, turnId: 'a"b\\c\u0001' } as unknown as CanonicalEvent;
    expect(serializeEvent(quoted)).toBe(reference(quoted));
    expect(JSON.parse(serializeEvent(quoted)).turnId).toBe('a"b\\c\u0001');
    const extra = { ...e, note: "added" } as unknown as CanonicalEvent;
    expect(JSON.parse(serializeEvent(extra)).note).toBe("added");
    expect(JSON.parse(serializeEvent(extra))).toEqual(JSON.parse(reference(extra)));
    const rawExtra = { ...e, raw: { ...(e.raw as object), payloadRef: "evt_1", odd: 'x"y' } } as unknown as CanonicalEvent;
    expect(serializeEvent(rawExtra)).toBe(reference(rawExtra));
    // provider ids that need escaping, a ref that is not a string, a raw key that needs escaping
    for (const providerRefs of [{ providerThreadId: 'q"\n' }, { providerThreadId: "t", n: 1 }, { 'k"': "v" }, {}]) {
      const refs = { ...e, providerRefs } as unknown as CanonicalEvent;
      expect(serializeEvent(refs)).toBe(reference(refs));
    }
    const rawKey = { ...e, raw: { ...(e.raw as object), 'k\u0002': 1, method: "a\\b" } } as unknown as CanonicalEvent;
    expect(serializeEvent(rawKey)).toBe(reference(rawKey));
    const lone = { ...e, payload: { ...(e.payload as object), s: "\ud800" } } as unknown as CanonicalEvent;
    expect(serializeEvent(lone)).toBe(reference(lone));
  });

  it("a host's id factory and clock are checked (the envelope is not validated per event)", () => {
    expect(() => createNormalizer({ surface: "codex-app-server", ids: () => 'bad"id' })).toThrow(/id factory returned/);
    const n = createNormalizer({ surface: "codex-app-server", clock: () => "yesterday" });
    const out = n.push({ method: "thread/started", params: { thread: { id: "t" } } });
    expect(out.map((e) => e.type)).toEqual(["thread.started", "runtime.warning"]);
    expect((out[1].payload as { message: string }).message).toMatch(/clock: returned "yesterday", not an RFC 3339 date-time/);
    expect(Date.parse(out[0].createdAt)).toBeGreaterThan(Date.UTC(2026, 0, 1));
    // said once
    expect(n.push({ method: "thread/started", params: { thread: { id: "u" } } }).map((e) => e.type)).toEqual(["thread.started"]);
  });
});
