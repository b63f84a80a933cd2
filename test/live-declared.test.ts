/**
 * The live agents the tables declare (`live:`, generated/live.gen.ts and the matrix's `live`) against the drivers
 * (src/live/index.ts DRIVERS): every driver is declared by exactly one table, the one of its surface; every declared
 * agent has a driver; and a call declared `{ none: REASON }` is refused by the driver where that can be seen without
 * running an agent (answer: send() rejects; load: history() rejects). Driver constructors start nothing.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { DRIVERS, LiveError } from "../src/live/index.js";
import type { DriverHost, LiveAgent, LiveAgentName, ResolvedOptions } from "../src/live/types.js";
import type { RequestAnswer } from "../src/answer/answer.js";
import { LIVE_CALL_NAMES, LIVE_DECLARED, type LiveCallName } from "../generated/live.gen.js";
import { COMPATIBILITY } from "./support/compatibility.js";

/** Per surface of the matrix, the agents its table declares. */
const declaredBy = Object.entries(COMPATIBILITY.surfaces).flatMap(([surface, s]) => (s.live ?? []).map((l) => ({ surface, agent: l.agent })));

const host: DriverHost = { frame: () => [], host: () => undefined, warn: () => undefined, gate: () => undefined, log: () => undefined };
const options = (agent: LiveAgent): ResolvedOptions => ({
  agent, cwd: tmpdir(), bin: "/nonexistent/agentnorm-live-declared", env: {},
  timeouts: { startMs: 1_000, requestMs: 1_000, interruptGraceMs: 1_000, closeGraceMs: 1_000 },
});

/** The calls whose refusal a driver shows without a running agent, and how. */
const REFUSAL: Partial<Record<LiveCallName, (agent: LiveAgentName) => Promise<unknown>>> = {
  answer: (agent) => DRIVERS[agent].create(host, options(agent)).send({ kind: "jsonrpc", message: { id: 1, result: {} } } as unknown as RequestAnswer, { type: "request.opened" } as never),
  load: (agent) => DRIVERS[agent].create(host, options(agent)).history("some-session"),
  // the session refuses setMode / setModel (code unsupported) when the driver has no such method
  mode: async (agent) => { if (!DRIVERS[agent].create(host, options(agent)).setMode) throw new LiveError("unsupported", "no setMode"); },
  model: async (agent) => { if (!DRIVERS[agent].create(host, options(agent)).setModel) throw new LiveError("unsupported", "no setModel"); },
};

describe("live agents: declared by the tables", () => {
  it("every driver is declared by exactly one table, with its surface", () => {
    for (const [agent, factory] of Object.entries(DRIVERS)) {
      const tables = declaredBy.filter((d) => d.agent === agent);
      expect(tables.map((d) => d.surface), `tables declaring ${agent}`).toEqual([factory.surface]);
      expect(LIVE_DECLARED[agent]?.surface, agent).toBe(factory.surface);
      expect(factory.agent).toBe(agent);
    }
  });

  it("every declared agent has a driver", () => {
    for (const { agent } of declaredBy) expect(Object.keys(DRIVERS), agent).toContain(agent);
    expect(Object.keys(LIVE_DECLARED).sort()).toEqual(Object.keys(DRIVERS).sort());
  });

  it("every declaration says every call: how, or why not", () => {
    for (const d of Object.values(LIVE_DECLARED)) {
      expect(Object.keys(d.calls).sort(), d.agent).toEqual([...LIVE_CALL_NAMES].sort());
      for (const c of LIVE_CALL_NAMES) {
        const v = d.calls[c];
        expect(typeof v === "string" ? v : v.none, `${d.agent}.${c}`).toMatch(/\S/);
      }
    }
  });

  for (const d of Object.values(LIVE_DECLARED)) {
    for (const c of LIVE_CALL_NAMES) {
      const v = d.calls[c];
      if (typeof v === "string" || !REFUSAL[c]) continue;
      it(`${d.agent}: ${c} is declared none, and the driver refuses it`, async () => {
        await expect(REFUSAL[c]!(d.agent as LiveAgentName)).rejects.toBeInstanceOf(LiveError);
      });
    }
  }

  it("what the brief's agents declare (cursor: answer and load none; the others load)", () => {
    expect(LIVE_DECLARED.cursor.calls.answer).toHaveProperty("none");
    expect(LIVE_DECLARED.cursor.calls.load).toHaveProperty("none");
    for (const a of ["codex", "opencode", "claude", "claude-sdk"]) expect(typeof LIVE_DECLARED[a].calls.load, a).toBe("string");
  });

  it("a call the table declares is one the driver has (mode, model)", () => {
    for (const d of Object.values(LIVE_DECLARED)) {
      const driver = DRIVERS[d.agent as LiveAgentName].create(host, options(d.agent as LiveAgentName));
      expect(typeof driver.setMode === "function", `${d.agent}.setMode`).toBe(typeof d.calls.mode === "string");
      expect(typeof driver.setModel === "function", `${d.agent}.setModel`).toBe(typeof d.calls.model === "string");
    }
  });
});
