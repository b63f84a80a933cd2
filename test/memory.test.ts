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
  it("a keyed variable's store is bounded in two generations: the most recently used survive, the rest are dropped and counted", async () => {
    const { VarStore, VAR_LIMIT } = await import("../src/normalize/var-store.js");
    const v = new VarStore("item");
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
    // one key part is the key itself: 1 and "1" are one key (as when the parts were joined with ":")
    v.set(1, "one");
    expect(v.get("1")).toBe("one");
  });

  it("a session's slots: one bound over all its keyed variables (the most recently used survive, whichever variable), drops counted in stats().held.variablesDropped", async () => {
    const { SessionVars, VAR_LIMIT } = await import("../src/normalize/vars.js");
    const v = new SessionVars();
    // "turn" and "item" are keyed variables of the generated record; an unkeyed one ("tk") is one field
    v.set(["turn", "s1"], "T1");
    v.set(["turn", "s2"], "T2");
    v.set(["tk"], "K");
    for (let i = 0; i < 3 * VAR_LIMIT; i++) {
      v.set(["item", `m${i}`], i);
      // a variable in use stays: s1 is read all along, s2 never again
      if (i % 1000 === 0) expect(v.get(["turn", "s1"])).toBe("T1");
    }
    expect(v.get(["turn", "s1"])).toBe("T1");
    expect(v.get(["turn", "s2"])).toBeUndefined(); // pushed out by the other variable's values
    expect(v.get(["tk"])).toBe("K"); // unkeyed: one value, not bounded by the others
    // the session holds at most 2 × VAR_LIMIT values over its stores, the last VAR_LIMIT set always
    expect(v.slots.item.size + v.slots.turn.size).toBeLessThanOrEqual(2 * VAR_LIMIT);
    for (let i = 2 * VAR_LIMIT; i < 3 * VAR_LIMIT; i++) expect(v.slots.item.has(`m${i}`)).toBe(true);
    expect(v.dropped).toBe(v.slots.item.dropped + v.slots.turn.dropped);
    expect(v.dropped + v.slots.item.size + v.slots.turn.size).toBe(3 * VAR_LIMIT + 2);
    expect(v.size).toBe(v.slots.item.size + v.slots.turn.size + 1);
    v.set(["tk"], null);
    expect(v.slots.tk).toBeUndefined();
    // a name no table declares is kept too (by its whole key), and bounded by the same budget
    v.set(["hand-written", 1, 2], "x");
    expect(v.get(["hand-written", "1", "2"])).toBe("x");
    expect(v.size).toBe(v.slots.item.size + v.slots.turn.size + 1);
  });

  it("the bound is per session: two sessions' slots do not push each other's values out", async () => {
    const { SessionVars, VAR_LIMIT } = await import("../src/normalize/vars.js");
    const a = new SessionVars();
    const b = new SessionVars();
    a.set(["turn", "s1"], "A");
    for (let i = 0; i < 3 * VAR_LIMIT; i++) b.set(["item", `m${i}`], i);
    expect(a.get(["turn", "s1"])).toBe("A");
    expect(a.dropped).toBe(0);
    expect(b.dropped).toBeGreaterThan(0);
  });

  it("a normalizer's variables stay bounded over a long stream, and the drops reach stats()", () => {
    const n = createNormalizer({ surface: "opencode", ids: counterIds() });
    // each message sets its role (a keyed variable): 3 × VAR_LIMIT of them
    for (let i = 0; i < 3 * 4096; i++) n.push({ type: "message.updated", properties: { sessionID: "s1", info: { id: `m${i}`, sessionID: "s1", role: "assistant", time: { created: 1 }, modelID: "gpt", providerID: "p" } } });
    const held = n.stats().held;
    expect(held.variables).toBeLessThanOrEqual(2 * 4096);
    expect(held.variablesDropped).toBeGreaterThan(0);
    expect(held.variables + held.variablesDropped).toBe(3 * 4096);
  });
});
