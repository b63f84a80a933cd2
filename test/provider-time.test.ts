/**
 * Provider time: an event's createdAt is the time its native message carries (the table's `time:`), and the
 * normalizer's clock only when the message carries none (or an unreadable one).
 */
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { timeOf } from "../src/normalize/row-util.js";

const CLOCK = "2026-01-01T00:00:00.000Z";
const make = (surface: string) => createNormalizer({ surface, ids: counterIds(), clock: steppingClock(Date.parse(CLOCK)) });
const times = (surface: string, messages: unknown[]) => {
  const n = make(surface);
  return messages.flatMap((m) => n.push(m)).map((e) => [e.type, e.createdAt] as const);
};

describe("timeOf", () => {
  it("reads ISO strings and epoch numbers, and refuses the rest", () => {
    expect(timeOf("2025-09-25T02:12:23.966Z", "ms")).toBe("2025-09-25T02:12:23.966Z");
    expect(timeOf("2025-09-25T04:12:23+02:00", "ms")).toBe("2025-09-25T02:12:23.000Z");
    expect(timeOf(1770823841542, "ms")).toBe("2026-02-11T15:30:41.542Z");
    expect(timeOf(1770823841, "s")).toBe("2026-02-11T15:30:41.000Z");
    for (const bad of ["t", "yesterday", "", null, undefined, {}, Number.NaN, -5, 0, 1e20, "2025-13-45T99:00:00Z"]) expect(timeOf(bad, "ms"), String(bad)).toBeUndefined();
  });
});

describe("createdAt is the provider's time when the message carries one", () => {
  it("claude-transcript: each line's timestamp", () => {
    const ev = times("claude-transcript", [
      { type: "user", uuid: "u1", parentUuid: null, sessionId: "s1", timestamp: "2025-06-01T10:00:00.000Z", message: { role: "user", content: "hello" } },
      { type: "assistant", uuid: "a1", parentUuid: "u1", sessionId: "s1", timestamp: "2025-06-01T10:00:05.250Z", message: { id: "msg_1", role: "assistant", model: "m", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" } },
    ]);
    expect(ev.length).toBeGreaterThan(2);
    const user = ev.filter(([t]) => t === "item.completed")[0];
    expect(user[1]).toBe("2025-06-01T10:00:00.000Z");
    expect(ev.filter(([t]) => t === "content.delta").map(([, c]) => c)).toEqual(["2025-06-01T10:00:05.250Z"]);
    expect(ev.every(([, c]) => c.startsWith("2025-06-01T10:00:0"))).toBe(true);
  });

  it("codex-app-server: emittedAtMs, else the item's completedAtMs / startedAtMs, else the clock", () => {
    const ev = times("codex-app-server", [
      { method: "thread/started", params: { thread: { id: "t1" } } },
      { method: "turn/started", emittedAtMs: 1770823841000, params: { threadId: "t1", turn: { id: "u1", items: [], status: "inProgress" } } },
      { method: "item/started", params: { threadId: "t1", turnId: "u1", startedAtMs: 1770823842000, item: { type: "agentMessage", id: "m1", text: "" } } },
    ]);
    expect(ev[0]).toEqual(["thread.started", CLOCK]);
    expect(ev.find(([t]) => t === "turn.started")![1]).toBe("2026-02-11T15:30:41.000Z");
    expect(ev.find(([t]) => t === "item.started")![1]).toBe("2026-02-11T15:30:42.000Z");
  });

  it("codex-eventmsg: a rollout line's timestamp (the wrapper's meta), nothing for a bare EventMsg", () => {
    const ev = times("codex-eventmsg", [
      { timestamp: "2025-09-25T02:12:23.966Z", type: "event_msg", payload: { type: "task_started", turn_id: "u1" } },
      { type: "agent_message", message: "hi" },
    ]);
    expect(ev[0][1]).toBe("2025-09-25T02:12:23.966Z");
    expect(ev.at(-1)![1]).not.toBe("2025-09-25T02:12:23.966Z");
    expect(ev.at(-1)![1].startsWith("2026-01-01T")).toBe(true);
  });

  it("an unreadable time falls back to the clock (nothing lost)", () => {
    const ev = times("cursor-cli", [
      { type: "system", subtype: "init", session_id: "s1", model: "m", cwd: "/w", permissionMode: "default", apiKeySource: "login" },
      { type: "thinking", subtype: "delta", text: "a", session_id: "s1", timestamp_ms: "soon" },
      { type: "thinking", subtype: "delta", text: "b", session_id: "s1", timestamp_ms: 1770823841542 },
    ]);
    const deltas = ev.filter(([t]) => t === "content.delta").map(([, c]) => c);
    expect(deltas).toHaveLength(2);
    expect(deltas[0].startsWith("2026-01-01T")).toBe(true);
    expect(deltas[1]).toBe("2026-02-11T15:30:41.542Z");
  });

  it("a dispatched message without a time of its own keeps the time of the message that carried it", () => {
    // opencode-history entries dispatch their parts to the opencode table; a part with no time keeps the entry's.
    const ev = times("opencode-history", [
      { info: { id: "m1", sessionID: "s1", role: "user", time: { created: 1770823841000 }, agent: "build", model: { providerID: "p", modelID: "gpt" } }, parts: [{ id: "p1", sessionID: "s1", messageID: "m1", type: "text", text: "Fix the bug" }] },
    ]);
    expect(ev.length).toBeGreaterThan(1);
    expect(ev.every(([, c]) => c === "2026-02-11T15:30:41.000Z"), JSON.stringify(ev)).toBe(true);
  });
});
