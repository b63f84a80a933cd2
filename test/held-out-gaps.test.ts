/**
 * The held-out gap classes of issue 32 (Deliver 4), each shown by a recording of our own and fixed for the class:
 * the test first checks that the recording has the shape of the class, then what the normalized stream does with it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { toChatEvents } from "../src/render/chat-event.js";
import { formatFinding, verifyEvents } from "../src/verify/verify.js";

const ROOT = join(import.meta.dirname, "..");
const REC = join(ROOT, "fixtures/recorded");
const P = (e: CanonicalEvent): any => e.payload as any;

function run(surface: string, file: string) {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
  return { events, captures: lines.map((l) => JSON.parse(l)), stats: n.stats() };
}
const violations = (events: CanonicalEvent[]) => verifyEvents(events).violations.map(formatFinding);
const rendered = (events: CanonicalEvent[]) => {
  const acc = createAccumulator();
  acc.applyAll(events);
  return { snap: acc.snapshot(), text: renderSnapshotText(acc.snapshot()) };
};
const count = (text: string, part: string) => text.split(part).length - 1;

describe("1. Claude Code 2.1.62 retrying a stream that broke off mid-message (claude-sdk/stream-retry.ndjson)", () => {
  const file = join(REC, "claude-sdk/stream-retry.ndjson");
  const ANSWER = "An overloaded API rejects work it has no capacity for, so the failure is usually temporary. Retrying after a short wait lets the request succeed once the load drops.";

  it("the recording has the class: message A's text deltas, no block or message stop, then an assistant message B carrying the whole answer", () => {
    const msgs = run("claude-sdk", file).captures.filter((c) => c.dir === "in").map((c) => c.message);
    const start = msgs.findIndex((m) => m.type === "stream_event" && m.event.type === "message_start");
    const answer = msgs.findIndex((m) => m.type === "assistant");
    const a = msgs[start].event.message.id;
    expect(msgs[answer].message.id).not.toBe(a);
    expect(msgs[answer].message.content[0].text).toBe(ANSWER);
    const between = msgs.slice(start + 1, answer).map((m) => m.event?.type ?? m.type);
    expect(between).toContain("content_block_delta");
    expect(between.filter((t) => ["content_block_stop", "message_stop"].includes(t))).toEqual([]);
    expect(msgs.some((m) => m.abandoned_blocks !== undefined)).toBe(false);
  });

  for (const [version, f] of [["2.1.62", file], ["2.1.333 (abandoned_blocks)", join(REC, "claude-sdk/2.1.333/stream-retry.ndjson")]] as const) {
    it(`${version}: the abandoned partial ends superseded, the answer renders once`, () => {
      const { events } = run("claude-sdk", f);
      const superseded = events.filter((e) => e.type === "item.completed" && P(e).status === "superseded");
      expect(superseded.map((e) => P(e).itemType)).toEqual(["assistant_message"]);
      const partial = events.filter((e) => e.type === "content.delta" && e.itemId === superseded[0].itemId).map((e) => P(e).delta).join("");
      expect(ANSWER.startsWith(partial) && partial.length > 0 && partial.length < ANSWER.length).toBe(true);
      // the other assistant items: the answer, once
      const shown = events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message" && P(e).status !== "superseded");
      expect(shown.map((e) => P(e).text)).toEqual([ANSWER]);
      expect(events.filter((e) => e.type === "turn.completed").map((e) => P(e).state)).toEqual(["completed"]);
      const { snap, text } = rendered(events);
      expect(count(text, "An overloaded API"), text).toBe(1);
      expect(snap.sessions.flatMap((s) => s.turns.flatMap((t) => t.steps)).filter((s) => s.superseded).map((s) => s.itemId)).toEqual([superseded[0].itemId]);
      expect(toChatEvents(events).filter((c) => c.stepId === superseded[0].itemId).at(-1)?.phase).toBe("superseded");
      expect(violations(events)).toEqual([]);
    });
  }
});
