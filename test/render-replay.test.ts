/**
 * A committed canonical stream that reproduces a rendering issue (fixtures/render/README.md), replayed through the
 * accumulator: a tool card whose output and completion arrive after later text, and cumulative message snapshots
 * after their deltas. The test shows the issue with the completion-ordered renderer (src/render/transcript.ts) and that
 * the accumulator renders by identity and sequence instead.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { renderTranscript } from "../src/render/transcript.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIR = join(ROOT, "fixtures/render");
const CANONICAL = join(DIR, "interleaved-tools.ndjson");
const events: CanonicalEvent[] = readFileSync(CANONICAL, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

describe("render replay: interleaved-tools (a tool card completing after later text)", () => {
  it("the committed canonical stream is exactly what the normalizer makes of the provider stream, and schema-valid", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock(), includeRaw: false });
    const lines = readFileSync(join(DIR, "interleaved-tools.codex-app-server.ndjson"), "utf8").split("\n").filter(Boolean);
    const out = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
    expect(out.map(serializeEvent).join("\n") + "\n").toBe(readFileSync(CANONICAL, "utf8"));
    expect(events.every((e) => validateCanonicalEvent(e))).toBe(true);
    expect(n.stats().unknown).toBe(0);
  });

  it("reproduces the issue: a completion-ordered renderer moves the npm test card below later text", () => {
    const old = renderTranscript(events).split("\n");
    const card = old.findIndex((l) => l.includes("'npm test'"));
    const later = old.findIndex((l) => l.startsWith("assistant: One file is modified"));
    expect(card).toBeGreaterThan(later);
    // and appending a message's cumulative snapshot to its deltas would print it twice
    const first = events.filter((e) => e.itemId === "itm_2");
    const streamed = first.filter((e) => e.type === "content.delta").map((e) => (e.payload as any).delta).join("");
    const snapshot = (first.find((e) => e.type === "item.completed")!.payload as any).data.text;
    expect(snapshot).toBe(streamed);
  });

  it("the accumulator keeps the card where the tool started, each text once, output in its terminal block", () => {
    const acc = createAccumulator();
    acc.applyAll(events);
    const snap = acc.snapshot();
    expect(snap.problems).toEqual([]);
    const blocks = snapshotBlocks(snap).map((b: any) => [b.blockId, b.kind, b.text ?? b.status]);
    expect(blocks).toEqual([
      ["itm_1:text", "text", "Run the tests and tell me what changed."],
      ["itm_2:text", "text", "I'll run the tests in the background and check git meanwhile."],
      ["itm_3:tool", "tool", "completed"],
      ["itm_3:terminal", "terminal", " RUN  v3.2.4 /home/user/project\n ✓ test/list.test.ts (4 tests)\n"],
      ["itm_4:tool", "tool", "completed"],
      ["itm_4:terminal", "terminal", " M src/cli.ts\n"],
      // the tail the deltas lost came as one more delta from the completion snapshot: the whole text, once
      ["itm_5:text", "text", "One file is modified (src/cli.ts); the tests are still running."],
    ]);
    // the late output delta (#16) went to the earlier tool's terminal block, not to the text streaming at the time
    expect((snapshotBlocks(snap).find((b) => b.blockId === "itm_3:terminal") as any).sequences).toEqual([9, 16]);
    const text = renderSnapshotText(snap);
    expect(text.indexOf("'npm test'")).toBeLessThan(text.indexOf("One file is modified"));
    expect(text.split("check git meanwhile.").length).toBe(2);
  });

  it("replaying in chunks with snapshots in between gives the same final snapshot (no state consumed by snapshot())", () => {
    const a = createAccumulator();
    const mid: string[] = [];
    for (const e of events) { a.apply(e); if (e.sequence % 4 === 0) mid.push(JSON.stringify(a.snapshot())); }
    const b = createAccumulator();
    b.applyAll(events);
    expect(a.snapshot()).toEqual(b.snapshot());
    expect(mid.length).toBe(5);
  });
});
