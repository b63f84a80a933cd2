/**
 * A thread's thread.started precedes its first turn on every surface: a stream that joins mid-session (an opencode
 * event stream recorded after session.created, a Claude SDK stream whose first message is not system/init) gets
 * the thread started by the runtime before the turn, and the verifier holds every committed recording to it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { verifyEvents } from "../src/verify/verify.js";

const ROOT = join(import.meta.dirname, "..");

describe("the runtime starts a turn's thread first when the stream never did", () => {
  it("opencode: a message of a session whose session.created was never seen", () => {
    const n = createNormalizer({ surface: "opencode", ids: counterIds(), clock: steppingClock() });
    const evs = n.push({ type: "message.updated", properties: { sessionID: "s1", info: { id: "m1", sessionID: "s1", role: "user", time: { created: 1770823841000 }, agent: "build", model: { providerID: "p", modelID: "gpt" } } } });
    const types = evs.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(["thread.started", "turn.started"]);
    expect(evs[0].raw?.rule).toBe("agentnorm#implicit-start");
    expect(evs[0].threadId).toBe(evs[1]!.threadId);
    expect(evs[0].payload).toEqual({ providerThreadId: "s1" });
    // the thread is not started twice when its session.created arrives late
    const late = n.push({ type: "session.created", properties: { sessionID: "s1", info: { id: "s1", slug: "x", projectID: "p", directory: "/w", title: "t", version: "1.18.33", time: { created: 1, updated: 1 } } } });
    expect(late.filter((e) => e.type === "thread.started")).toEqual([]);
    expect(verifyEvents([...evs, ...late]).violations).toEqual([]);
  });

  it("a stream that starts its thread first gets no synthesized start", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
    const evs = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8").split("\n").filter(Boolean).flatMap((l) => n.pushLine(l));
    expect(evs.filter((e) => e.raw?.rule === "agentnorm#implicit-start" && e.type === "thread.started")).toEqual([]);
    expect(evs.findIndex((e) => e.type === "thread.started")).toBeLessThan(evs.findIndex((e) => e.type === "turn.started"));
  });
});

describe("every committed expected output starts each turn's thread first", () => {
  const files: string[] = [];
  const walk = (d: string) => { for (const f of readdirSync(d, { withFileTypes: true })) f.isDirectory() ? walk(join(d, f.name)) : f.name.endsWith(".expected.ndjson") && files.push(join(d, f.name)); };
  walk(join(ROOT, "fixtures/recorded"));
  it(`${files.length} files, no turn-before-thread finding`, () => {
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const evs = readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
      expect(verifyEvents(evs).violations.filter((v) => v.rule === "turn-before-thread"), f).toEqual([]);
    }
  });
});
