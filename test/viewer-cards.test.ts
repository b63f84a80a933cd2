/**
 * The viewer's cards and header on recordings (src/view/transcript-view.ts, src/view/data.ts): a failed call's text
 * once, cards outside turns where they happened (end-of-stream warnings last), a recorder's own lines folded into
 * one neutral card, no empty card for a whitespace-only message, a header that counts the warning cards it shows,
 * and option labels for every provider.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { loadInput, viewerData } from "../src/view/data.js";
import { transcriptView } from "../src/view/transcript-view.js";
import type { TranscriptBlock, TranscriptView } from "../src/view/types.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const read = (f: string) => readFileSync(join(ROOT, f), "utf8");
const APPROVAL = "fixtures/codex-app-server/approval-session.ndjson";

/** The approval session as canonical events (plain objects). */
function approvalEvents(): any[] {
  const n = createNormalizer({ surface: "codex-app-server", includeRaw: false, ids: counterIds(), clock: steppingClock() });
  const out = [...read(APPROVAL).split("\n").filter(Boolean).flatMap((l) => n.pushLine(l)), ...n.end()];
  return out.map((e) => JSON.parse(JSON.stringify(e)));
}
const allCards = (v: TranscriptView): TranscriptBlock[] => {
  const walk = (bs: readonly TranscriptBlock[]): TranscriptBlock[] => bs.flatMap((b) => [b, ...walk(b.children ?? [])]);
  return [...walk(v.preamble), ...v.turns.flatMap((t) => walk(t.blocks))];
};

describe("viewer cards", () => {
  it("a failed call whose output and error hold the same text shows it once", () => {
    const evs = approvalEvents();
    const done = evs.find((e) => e.type === "item.completed" && e.payload.itemType === "command_execution" && e.payload.status === "completed")!;
    const kept = evs.filter((e) => !(e.type === "content.delta" && e.itemId === done.itemId));
    done.payload = { ...done.payload, status: "failed", output: "cat: missing.txt: No such file or directory", error: "cat: missing.txt: No such file or directory" };
    const card = allCards(transcriptView(kept)).find((b) => b.kind === "tool" && b.seqs.includes(done.sequence))!;
    expect(card.status).toBe("failed");
    expect(card.output).toBe("cat: missing.txt: No such file or directory");
  });

  it("a card outside any turn stands where it happened: an end-of-stream warning is the last card, not above the first turn", () => {
    const evs = approvalEvents();
    const last = evs[evs.length - 1];
    const base = { schemaVersion: last.schemaVersion, provider: last.provider, sessionId: last.sessionId, threadId: last.threadId, createdAt: last.createdAt };
    const early = { ...base, eventId: "evt_early", sequence: 0.5, type: "runtime.warning", payload: { message: "before anything" }, raw: { source: "agentnorm.runtime", rule: "agentnorm#end" } };
    const end = { ...base, eventId: "evt_end", sequence: last.sequence + 1, type: "runtime.warning", payload: { message: "stream ended with a request still open" }, raw: { source: "agentnorm.runtime", rule: "agentnorm#end" } };
    const v = transcriptView([early, ...evs, end]);
    const lastTurn = v.turns[v.turns.length - 1];
    expect(lastTurn.blocks[lastTurn.blocks.length - 1]).toMatchObject({ kind: "notice", title: "stream ended with a request still open" });
    expect(v.preamble.map((b) => b.title)).toContain("before anything");
    expect(v.preamble.map((b) => b.title)).not.toContain("stream ended with a request still open");
  });

  it("a recorder's own lines (not messages of the surface) fold into one neutral card, not red error cards above the first turn", () => {
    // (a line naming a capture channel that is no direction is counted as ignored: no card at all, see below)
    const meta = (i: number) => JSON.stringify({ ts: `2026-01-01T00:00:0${i}.000Z`, probe: "scenario", scenario: `step ${i}`, result: {} });
    const lines = read(APPROVAL).split("\n").filter(Boolean);
    const text = [meta(1), meta(2), meta(3), ...lines].join("\n") + "\n";
    const data = viewerData(loadInput(text, { from: "codex-app-server" }));
    const pre = data.transcript.preamble;
    expect(pre.filter((b) => b.kind === "error")).toEqual([]);
    const folded = pre.filter((b) => b.label === "input");
    expect(folded).toHaveLength(1);
    expect(folded[0]).toMatchObject({ kind: "status", title: "3 input line(s) not read as messages of the stream" });
    expect(folded[0].text!.split("\n")).toHaveLength(3);
    // still counted: three errors in the header, each on its event
    expect(data.problems.filter((p) => p.kind === "error" && folded[0].seqs.includes(p.sequence!))).toHaveLength(3);
    // a probe's scenario records ({ts, channel: "scenario-result", …}) are the capture's own lines: no card, no problem
    const scenario = (i: number) => JSON.stringify({ ts: `2026-01-01T00:00:0${i}.000Z`, channel: "scenario-result", scenario: `step ${i}`, result: {} });
    const quiet = viewerData(loadInput([scenario(1), scenario(2), ...lines].join("\n") + "\n", { from: "codex-app-server" }));
    expect(quiet.transcript.preamble.filter((b) => b.label === "input" || b.kind === "error")).toEqual([]);
    expect(quiet.problems.filter((p) => p.kind === "error")).toEqual([]);
  });

  it("a whitespace-only assistant message makes no card", () => {
    const evs = approvalEvents();
    const msg = evs.find((e) => e.type === "item.completed" && e.payload.itemType === "assistant_message")!;
    expect(msg).toBeDefined();
    const before = allCards(transcriptView(evs)).filter((b) => b.kind === "text").length;
    const kept = evs.filter((e) => !(e.type === "content.delta" && e.itemId === msg.itemId)).map((e) => (e.itemId === msg.itemId && e.type.startsWith("item.") ? { ...e, payload: { ...e.payload, text: " \n\t " } } : e));
    const cards = allCards(transcriptView(kept)).filter((b) => b.kind === "text");
    expect(cards.some((b) => !(b.text ?? "").trim())).toBe(false);
    expect(cards.length).toBe(before - 1);
  });

  it("the header counts the warning cards the transcript shows (a failed Stop hook)", () => {
    const data = viewerData(loadInput(read("fixtures/recorded/claude-sdk/2.1.337/stop-hook.transcript.ndjson"), { from: "claude-transcript" }));
    const notices = allCards(data.transcript).filter((b) => b.kind === "notice");
    expect(notices.length).toBeGreaterThan(0);
    for (const b of notices) expect(data.problems.some((p) => p.kind === "warning" && b.seqs.includes(p.sequence!)), String(b.title)).toBe(true);
  });

  it("every option has a label: the provider's own, or the canonical decision's words (Codex gives none)", () => {
    const codex = allCards(viewerData(loadInput(read(APPROVAL), { from: "codex-app-server" })).transcript).filter((b) => b.options?.length);
    expect(codex.length).toBeGreaterThan(0);
    for (const b of codex) for (const o of b.options!) {
      expect(o.label, o.decision).toBeTruthy();
      expect(o.label).not.toBe(o.decision);
    }
    expect(codex.flatMap((b) => b.options!).find((o) => o.decision === "allow_once")?.label).toBe("Allow once");
    const claude = allCards(viewerData(loadInput(read("fixtures/recorded/acp/approval.ndjson"), { from: "acp" })).transcript).filter((b) => b.options?.length);
    expect(claude.length).toBeGreaterThan(0);
    for (const b of claude) for (const o of b.options!) expect(o.label).toBeTruthy();
  });
});
