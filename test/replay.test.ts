/**
 * Sanitize and replay (src/capture/replay.ts): every real-agent recording of every normalizable surface converts to a
 * capture, sanitizes to a fixture and replays clean — and the fixture's normalized_out is the committed expected
 * output; the committed fixtures in fixtures/replay/ replay clean; a tampered expectation fails with a diff;
 * update rewrites it; normalized_out replay goes through a pluggable snapshot function.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createCaptureWriter, readCapture, serializeRecords, type FixtureRecord } from "../src/capture/capture.js";
import { capturingNormalizer, comparableEvents, convertRecording, diffLines, eventsSnapshot, replayFixture, sanitizeCapture } from "../src/capture/replay.js";
import { unwrapCaptureLine } from "../src/capture/unwrap.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { recordings } from "./support/recorded.js";

const repo = fileURLToPath(new URL("../", import.meta.url));
const REDACT = { home: "/nonexistent-home", project: "/nonexistent-project", tmp: "/nonexistent-tmp" };

function fixtureFor(file: string, surface: string): FixtureRecord[] {
  const w = createCaptureWriter({ provider: "test", source: surface, clock: () => Date.now(), redact: REDACT });
  const capture = readCapture(convertRecording(readFileSync(join(repo, file), "utf8"), surface, w));
  expect(capture.errors).toEqual([]);
  return sanitizeCapture(capture.records, { redact: REDACT });
}

const all = recordings(repo).filter((r) => r.normalizable);
const surfaces = [...new Set(all.map((r) => r.surface))];

describe("recorded fixtures → capture → fixture → replay", () => {
  it("covers at least three surfaces", () => {
    expect(surfaces.length).toBeGreaterThanOrEqual(3);
  });

  for (const r of all) {
    it(`${r.surface}/${r.scenario}: replays clean; normalized_out equals ${r.expectedFile}`, () => {
      const fixture = fixtureFor(r.file, r.surface);
      const res = replayFixture(fixture);
      expect(res.mode).toBe("native_in");
      expect(res.diff).toBe("");
      expect(res.ok).toBe(true);
      const expected = readFileSync(join(repo, r.expectedFile), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const recorded = fixture.filter((x) => x.stage === "normalized_out").map((x) => x.payload);
      expect(comparableEvents(recorded)).toEqual(comparableEvents(expected));
    });
  }

  it("sanitize is deterministic: converting and sanitizing twice gives the same bytes", () => {
    const r = all.find((x) => x.surface === "claude-sdk") ?? all[0];
    expect(serializeRecords(fixtureFor(r.file, r.surface))).toBe(serializeRecords(fixtureFor(r.file, r.surface)));
  });
});

describe("committed replay fixtures (fixtures/replay/)", () => {
  const dir = join(repo, "fixtures/replay");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ndjson"));
  it("there are native_in fixtures of at least three surfaces and a normalized_out one", () => {
    const natives = files.filter((f) => f.endsWith(".fixture.ndjson")).map((f) => readCapture(readFileSync(join(dir, f), "utf8")).records.find((x) => x.stage === "native_in")?.source);
    expect(new Set(natives).size).toBeGreaterThanOrEqual(3);
    expect(files.some((f) => !f.endsWith(".fixture.ndjson"))).toBe(true);
  });
  for (const f of files) {
    it(`${f} replays clean and is in sanitized form`, () => {
      const text = readFileSync(join(dir, f), "utf8");
      const { records, errors } = readCapture(text);
      expect(errors).toEqual([]);
      expect(serializeRecords(sanitizeCapture(records, { redact: REDACT }))).toBe(text);
      const snapFile = join(dir, f.replace(/(\.fixture)?\.ndjson$/, ".snapshot.json"));
      const expectedSnapshot = records.some((x) => x.stage === "native_in") ? undefined : JSON.parse(readFileSync(snapFile, "utf8"));
      const res = replayFixture(records as FixtureRecord[], { expectedSnapshot });
      expect(res.diff).toBe("");
      expect(res.ok).toBe(true);
    });
  }
});

describe("replay failures and --update", () => {
  const base = () => readCapture(readFileSync(join(repo, "fixtures/replay/acp-approval.fixture.ndjson"), "utf8")).records as FixtureRecord[];

  it("a tampered expectation fails with a readable diff naming the event; update restores it", () => {
    const records = base();
    const i = records.findIndex((x) => x.stage === "normalized_out" && x.eventType === "content.delta");
    const tampered = structuredClone(records);
    (tampered[i].payload as any).payload.delta = "TAMPERED TEXT";
    const res = replayFixture(tampered, { update: true });
    expect(res.ok).toBe(false);
    const seq = (records[i].payload as any).sequence;
    expect(res.diff.split("\n")[0]).toBe(`1 event(s) only in the fixture (-), 1 only in the replay (+); first difference at event ${seq}`);
    expect(res.diff).toContain(`- {"eventId":"evt_${seq}"`);
    expect(res.diff).toContain('"delta":"TAMPERED TEXT"');
    expect(res.diff).toMatch(/^\+ .*"type":"content.delta"/m);
    expect(serializeRecords(res.updatedFixture!)).toBe(serializeRecords(records));
  });

  it("a missing and an extra event are shown as - and + lines", () => {
    const records = base();
    const outs = records.filter((x) => x.stage === "normalized_out");
    const dropped = records.filter((x) => x !== outs[3]);
    const res = replayFixture(dropped, { update: true });
    expect(res.ok).toBe(false);
    expect(res.diff.split("\n").filter((l) => l.startsWith("+ "))).toHaveLength(1);
    expect(res.diff.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(0);
    expect(serializeRecords(res.updatedFixture!)).toBe(serializeRecords(records));
  });

  it("a changed native_in message changes the replay (the fixture is really replayed)", () => {
    const records = structuredClone(base());
    const n = records.find((x) => x.stage === "native_in" && JSON.stringify(x.payload).includes("agent_thought_chunk"))!;
    const before = JSON.stringify(n.payload);
    n.payload = JSON.parse(before.replace(/"text":"[^"]*"/, '"text":"something else"'));
    expect(JSON.stringify(n.payload)).not.toBe(before);
    const res = replayFixture(records);
    expect(res.ok).toBe(false);
    expect(res.diff).toContain("something else");
  });

  it("native_in replay needs a known surface", () => {
    const res = replayFixture(base(), { surface: "nope" });
    expect(res.ok).toBe(false);
    expect(res.diff).toMatch(/unknown surface "nope"/);
  });

  it("normalized_out replay uses the snapshot function it is given (the accumulator hook) and diffs snapshots", () => {
    const records = base().filter((x) => x.stage === "normalized_out");
    const counts = (events: any[]) => {
      const by: Record<string, number> = {};
      for (const e of events) by[e.type] = (by[e.type] ?? 0) + 1;
      return by;
    };
    const first = replayFixture(records, { snapshot: counts });
    expect(first.ok).toBe(false);
    expect(first.diff).toMatch(/no expected snapshot/);
    const expectedSnapshot = first.snapshot;
    expect(replayFixture(records, { snapshot: counts, expectedSnapshot }).ok).toBe(true);
    const fewer = records.filter((x) => x.eventType !== "content.delta");
    const res = replayFixture(fewer, { snapshot: counts, expectedSnapshot });
    expect(res.ok).toBe(false);
    expect(res.diff).toMatch(/^- {3}"content.delta": \d+,?$/m);
  });

  it("normalized_out replay compares the accumulator's snapshot by default, or what a given snapshot function returns", () => {
    const records = base().filter((x) => x.stage === "normalized_out");
    const events = records.map((x) => x.payload as any);
    const byEvents = replayFixture(records, { snapshot: eventsSnapshot, expectedSnapshot: eventsSnapshot(events) });
    expect(byEvents.ok).toBe(true);
    // the default is the accumulator: the events' own snapshot is not what it expects
    const byAccumulator = replayFixture(records, { expectedSnapshot: eventsSnapshot(events) });
    expect(byAccumulator.ok).toBe(false);
    expect(byAccumulator.snapshot).toMatchObject({ sessions: [expect.objectContaining({ sessionId: "ses_1" })] });
    expect(replayFixture(records, { expectedSnapshot: byAccumulator.snapshot }).ok).toBe(true);
  });
});

describe("legacy_out (projection hook)", () => {
  const marker = (e: CanonicalEvent) => (e.type === "content.delta" ? [`[CONTENT_DELTA] ${(e.payload as any).delta}`] : e.type === "turn.completed" ? ["[MESSAGE_END]"] : []);
  const capture = () => {
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock(), includeRaw: false });
    const w = createCaptureWriter({ provider: "acp", source: "acp", clock: () => 0, redact: REDACT });
    const c = capturingNormalizer(n, w, { surface: "acp", legacy: marker });
    let text = "";
    for (const line of readFileSync(join(repo, "fixtures/recorded/acp/two-turn.ndjson"), "utf8").split("\n").filter(Boolean)) {
      const { message, meta } = unwrapCaptureLine(JSON.parse(line));
      text += c.push(message, meta).lines;
    }
    return sanitizeCapture(readCapture(text + c.end().lines).records, { redact: REDACT });
  };

  it("capture writes legacy_out records after their event; replay checks them with the projection", () => {
    const fx = capture();
    const legacy = fx.filter((x) => x.stage === "legacy_out");
    expect(legacy.length).toBeGreaterThan(1);
    expect(legacy.map((x) => x.eventType)).toContain("[MESSAGE_END]");
    expect(fx[fx.indexOf(legacy[0]) - 1].stage).toBe("normalized_out");
    expect(replayFixture(fx, { legacy: marker }).ok).toBe(true);
    const other = replayFixture(fx, { legacy: (e) => marker(e).map((l) => l.toLowerCase()) });
    expect(other.ok).toBe(false);
    expect(other.diff).toMatch(/^legacy_out:\n/m);
  });

  it("by default, legacy_out is checked with the chat_event legacy projection", () => {
    const fx = capture();
    // the capture above used a toy projection: the default one ([CHAT_EVENT] lines and all) disagrees
    const res = replayFixture(fx);
    expect(res.ok).toBe(false);
    expect(res.diff).toMatch(/^legacy_out:/m);
    expect(res.diff).toMatch(/^\+ \[CHAT_EVENT\] \{/m);
  });

  it("without a projection (legacy: false), legacy_out is reported as not checked and kept in place by update", () => {
    const fx = capture();
    const res = replayFixture(fx, { update: true, legacy: false });
    expect(res.ok).toBe(true);
    expect(res.notes.join(" ")).toMatch(/legacy_out records not checked/);
    expect(serializeRecords(res.updatedFixture!)).toBe(serializeRecords(fx));
  });
});

describe("diffLines", () => {
  it("is empty for equal input and marks changes with context", () => {
    expect(diffLines(["a", "b"], ["a", "b"])).toBe("");
    const d = diffLines(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"]);
    expect(d).toBe("1 line(s) only in the fixture (-), 2 only in the replay (+); first difference at line 2\n@@ line 1 (fixture) / 1 (replay) @@\n  a\n- b\n+ x\n  c\n  d\n+ e\n");
  });
});
