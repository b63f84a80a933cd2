/**
 * The accumulator's incremental read API (getBlock / getStep / getTurn / getSession / getSessions and
 * change.changedBlockIds): after every event, the views equal what snapshot() shows, a redraw of
 * changedBlockIds alone keeps a mirror equal to the snapshot, and unchanged parts keep their references.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAccumulator, snapshotBlocks, type Accumulator, type AccumulatorOptions, type Block } from "../src/render/accumulator.js";
import type { CanonicalEvent } from "../src/normalize/normalizer.js";

const ROOT = join(import.meta.dirname, "..", "fixtures", "recorded");
function expectedFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...expectedFiles(p));
    else if (name.endsWith(".expected.ndjson")) out.push(p);
  }
  return out;
}
const FILES = expectedFiles(ROOT);
const load = (f: string): CanonicalEvent[] => readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** Applies the events; after each one, redraws only changedBlockIds into a mirror and checks it against snapshot(). */
function replayChecked(events: CanonicalEvent[], options: AccumulatorOptions = {}) {
  const acc = createAccumulator(options);
  const mirror = new Map<string, Block>();
  let checks = 0;
  acc.subscribe((change) => {
    for (const id of change.changedBlockIds) {
      const b = acc.getBlock(id, change.sessionId);
      if (b) mirror.set(id, b);
    }
  });
  for (const e of events) {
    const before = new Map(mirror);
    const change = acc.apply(e);
    const snap = acc.snapshot();
    const live = snapshotBlocks(snap);
    for (const b of live) {
      expect(plain(mirror.get(b.blockId)), `${b.blockId} after #${e.sequence}`).toEqual(plain(b));
      checks++;
      // unchanged blocks keep their reference
      if (change && !change.changedBlockIds.includes(b.blockId) && before.has(b.blockId)) expect(acc.getBlock(b.blockId, change.sessionId)).toBe(before.get(b.blockId));
    }
    for (const s of snap.sessions) expect(plain(acc.getSession(s.sessionId))).toEqual(plain(s));
  }
  return { acc, checks };
}

describe("accumulator views: a redraw of changedBlockIds keeps a mirror equal to snapshot()", () => {
  it("found the recorded fixtures", () => expect(FILES.length).toBeGreaterThan(20));
  for (const f of FILES) {
    const name = f.slice(ROOT.length + 1);
    it(name, () => {
      const events = load(f);
      const { checks } = replayChecked(events);
      expect(checks).toBeGreaterThan(0);
    });
  }
  it("with retainTurns: retired blocks are gone from the views, retained ones equal the snapshot", () => {
    const events = load(FILES.find((f) => f.endsWith("codex-app-server/two-turn.expected.ndjson"))!);
    const { acc } = replayChecked(events, { retainTurns: 0 });
    const snap = acc.snapshot();
    expect(snap.retired!.turns).toBeGreaterThan(0);
    const firstTurn = events.find((e) => e.type === "turn.started")!.turnId!;
    expect(acc.getTurn(firstTurn)).toBeUndefined();
    expect(plain(acc.getSessions())).toEqual(plain(snap.sessions));
  });
});

/** A hand-built stream (sequence and eventId count up). */
function stream() {
  let seq = 0;
  const events: CanonicalEvent[] = [];
  const ev = (type: string, payload: object = {}, ids: Partial<Record<"turnId" | "itemId" | "requestId" | "parentId", string>> = {}) => {
    seq++;
    events.push({ eventId: `evt_${seq}`, sequence: seq, type, provider: "codex", sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...ids, payload } as unknown as CanonicalEvent);
  };
  return { ev, events };
}

describe("accumulator views: stable references", () => {
  const { ev, events } = stream();
  ev("turn.started", {}, { turnId: "trn_1" });
  ev("item.started", { itemType: "assistant_message", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" });
  ev("content.delta", { streamKind: "assistant_text", delta: "Hel" }, { turnId: "trn_1", itemId: "itm_1" });
  ev("turn.completed", { state: "completed" }, { turnId: "trn_1" });
  ev("turn.started", {}, { turnId: "trn_2" });
  ev("item.started", { itemType: "command_execution", status: "inProgress", command: "ls" }, { turnId: "trn_2", itemId: "itm_2" });
  ev("request.opened", { requestType: "command_execution_approval" }, { turnId: "trn_2", itemId: "itm_2", requestId: "req_1" });
  ev("content.delta", { streamKind: "command_output", delta: "a\n" }, { turnId: "trn_2", itemId: "itm_2" });
  ev("request.resolved", { requestType: "command_execution_approval", decision: "accept" }, { turnId: "trn_2", itemId: "itm_2", requestId: "req_1" });

  function upTo(n: number): Accumulator {
    const a = createAccumulator();
    a.applyAll(events.slice(0, n));
    return a;
  }

  it("a block, step and turn keep their reference until they change; an ended turn keeps it while another streams", () => {
    const a = upTo(5);
    const t1 = a.getTurn("trn_1");
    const text = a.getBlock("itm_1:text");
    expect(text).toMatchObject({ text: "Hel", streaming: false });
    const s0 = a.getSession();
    const all0 = a.getSessions();
    expect(a.getSessions()).toBe(all0);
    for (const e of events.slice(5)) a.apply(e);
    expect(a.getTurn("trn_1")).toBe(t1);
    expect(a.getBlock("itm_1:text")).toBe(text);
    const s1 = a.getSession()!;
    expect(s1).not.toBe(s0);
    expect(s1.turns[0]).toBe(t1);
    expect(a.getSessions()).not.toBe(all0);
    const tool = a.getBlock("itm_2:tool") as Extract<Block, { kind: "tool" }>;
    expect(a.getStep("itm_2")!.blocks[0]).toBe(tool);
    expect(a.getTurn("trn_2")!.steps[0]).toBe(a.getStep("itm_2"));
    expect(tool.awaitingRequests).toEqual([]);
  });

  it("a view is a value: later events don't change an object already handed out", () => {
    const a = upTo(3);
    const text = a.getBlock("itm_1:text")!;
    a.apply(events[3]);
    expect(text).toMatchObject({ text: "Hel", streaming: true, sequences: [2, 3] });
    expect(a.getBlock("itm_1:text")).toMatchObject({ streaming: false, sequences: [2, 3] });
  });

  it("changedBlockIds adds blocks changed as a side effect; blockIds stays the event's own", () => {
    const a = upTo(2);
    a.apply(events[2]);
    const endTurn = a.apply(events[3])!;
    expect(endTurn.blockIds).toEqual([]);
    expect(endTurn.changedBlockIds).toEqual(["itm_1:text"]); // its stream closed with the turn
    for (const e of events.slice(4, 6)) a.apply(e);
    const opened = a.apply(events[6])!;
    expect(opened.blockIds).toEqual(["req_1:request"]);
    expect(opened.changedBlockIds).toEqual(["req_1:request", "itm_2:tool"]); // the tool now awaits it
    a.apply(events[7]);
    const resolved = a.apply(events[8])!;
    expect(resolved.changedBlockIds).toEqual(["req_1:request", "itm_2:tool"]);
    expect(a.snapshot().events!.find((r) => r.sequence === 9)!.blockIds).toEqual(["req_1:request"]);
  });

  it("unknown ids give undefined; sessionId picks among sessions", () => {
    const a = upTo(9);
    expect(a.getBlock("nope")).toBeUndefined();
    expect(a.getTurn("trn_1", "ses_other")).toBeUndefined();
    expect(a.getTurn("trn_1", "ses_1")).toBe(a.getTurn("trn_1"));
    expect(a.getSession("ses_other")).toBeUndefined();
  });
});
