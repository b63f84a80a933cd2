/** Memory is bounded by what is open, not by history: state released on close, closed ids remembered up to a cap. */
import { describe, expect, it } from "vitest";
import { counterIds, createNormalizer } from "../src/index.js";

const T = "019a0000-0000-7000-8000-00000000aaaa";

function turn(i: number): unknown[] {
  const turnId = `turn-${i}`;
  const item = (n: number) => ({ type: "agentMessage", id: `msg-${i}-${n}`, text: "" });
  const msgs: unknown[] = [{ method: "turn/started", params: { threadId: T, turn: { id: turnId, items: [], status: "inProgress" } } }];
  for (let n = 0; n < 3; n++) {
    msgs.push({ method: "item/started", params: { threadId: T, turnId, startedAtMs: 1, item: item(n) } });
    msgs.push({ method: "item/agentMessage/delta", params: { threadId: T, turnId, itemId: `msg-${i}-${n}`, delta: "x".repeat(50) } });
    msgs.push({ method: "item/completed", params: { threadId: T, turnId, completedAtMs: 2, item: { ...item(n), text: "x".repeat(50) } } });
  }
  msgs.push({ id: i, method: "item/commandExecution/requestApproval", params: { threadId: T, turnId, itemId: `msg-${i}-0`, startedAtMs: 1 } });
  msgs.push({ id: i, result: { decision: "accept" } });
  msgs.push({ method: "turn/completed", params: { threadId: T, turn: { id: turnId, items: [], status: "completed" } } });
  return msgs;
}

describe("memory is bounded by what is open", () => {
  it("after 5,000 completed turns nothing is held open, and remembered closed ids stay under the cap", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds() });
    n.push({ method: "thread/started", params: { thread: { id: T } } });
    let mid: ReturnType<typeof n.stats>["held"] | undefined;
    for (let i = 0; i < 5000; i++) {
      for (const m of turn(i)) n.push(m, { direction: "id" in (m as object) && !("method" in (m as object)) ? "out" : "in" });
      if (i === 100) mid = n.stats().held;
    }
    const held = n.stats().held;
    expect(held).toMatchObject({ turns: 0, items: 0, requests: 0, pendingCalls: 0, threads: 1 });
    // remembered closed ids are capped per role, so they stop growing with history
    expect(held.remembered).toBeLessThanOrEqual(4 * 1024);
    expect(held.remembered).toBeGreaterThan(mid!.remembered);
    expect(n.stats().events).toBeGreaterThan(5000 * 10);
  });

  it("an item that is started but never completed stays held until end() reports it", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds() });
    n.push({ method: "item/started", params: { threadId: T, turnId: "u", startedAtMs: 1, item: { type: "agentMessage", id: "open-1", text: "" } } });
    expect(n.stats().held.items).toBe(1);
    const tail = n.end();
    expect(tail.filter((e) => e.type === "runtime.warning" && e.itemId)).toHaveLength(1);
    expect(n.stats().held.items).toBe(0);
  });
});

describe("session variables", () => {
  it("are bounded in two generations: the most recently used survive, the rest are dropped and counted", async () => {
    const { SessionVars, VAR_LIMIT } = await import("../src/normalize/vars.js");
    const v = new SessionVars();
    v.set("keep", 1);
    for (let i = 0; i < 3 * VAR_LIMIT; i++) {
      v.set(`k${i}`, i);
      if (i % 100 === 0) expect(v.get("keep")).toBe(1); // read often: never dropped
    }
    expect(v.get("keep")).toBe(1);
    expect(v.get("k0")).toBeUndefined(); // not used for 3 × VAR_LIMIT sets
    expect(v.get(`k${3 * VAR_LIMIT - 1}`)).toBe(3 * VAR_LIMIT - 1);
    // every one of the last VAR_LIMIT set survives
    for (let i = 2 * VAR_LIMIT; i < 3 * VAR_LIMIT; i++) expect(v.has(`k${i}`)).toBe(true);
    expect(v.size).toBeLessThanOrEqual(2 * VAR_LIMIT);
    expect(v.dropped).toBeGreaterThan(0);
    expect(v.dropped + v.size).toBe(3 * VAR_LIMIT + 1);
    v.set("keep", null);
    expect(v.has("keep")).toBe(false);
  });
});
