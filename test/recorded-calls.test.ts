/**
 * Recorded calls without a JSON-RPC envelope (acp.yaml's `recorded-*` input wrappers, dispatch.ts classifyRpc): a
 * record of any shape never throws, every event it makes is canonical, and every line is accounted for once.
 */
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const HOSTILE = [
  { kind: "sessionUpdate", payload: 5 },
  { kind: "sessionUpdate", payload: [] },
  { kind: "sessionUpdate", payload: { sessionId: 7, update: "x" } },
  { kind: "extNotification", payload: { method: 7 } },
  { kind: "extNotification", payload: { method: "_x/y", params: 3 } },
  { kind: "request", method: ["x"], payload: {} },
  { kind: "request", method: "session/request_permission", payload: "s" },
  { kind: "response", method: "constructor", payload: {} },
  { kind: "response", method: "__proto__", payload: { a: 1 } },
  { kind: "notification", method: "", payload: {} },
  { kind: "promptResponse", payload: null },
  { kind: "promptResponse", payload: { stopReason: 5 } },
  { kind: "newSession", payload: { sessionId: { a: 1 } } },
  { kind: "requestPermission", payload: { options: "x", toolCall: 3 } },
  { kind: "createElicitation", payload: { requestedSchema: [] } },
];

describe("acp: recorded calls", () => {
  it("hostile records: no throw, canonical events, each line counted once; a record naming no method is malformed", () => {
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
    const events = HOSTILE.flatMap((l) => n.pushLine(JSON.stringify(l)));
    events.push(...n.end());
    expect(events.filter((e) => !validateCanonicalEvent(e)).map((e) => e.type)).toEqual([]);
    const o = n.stats().outcomes;
    expect(o.mapped + o.ignored + o.silent + o.held + o.unknown + o.malformed).toBe(HOSTILE.length);
    const noMethod = events.filter((e) => e.type === "runtime.error" && /names no method/.test(String((e.payload as { message: string }).message)));
    expect(noMethod).toHaveLength(2);
  });

  it("a recorded request gets ids of its own, recorded-1, recorded-2, … (pending until the stream ends)", () => {
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
    const ask = (id: string) => ({ kind: "requestPermission", payload: { sessionId: "s1", toolCall: { toolCallId: id, title: "rm x", kind: "execute" }, options: [] } });
    const opened = [...n.pushLine(JSON.stringify(ask("c1"))), ...n.pushLine(JSON.stringify(ask("c2")))].filter((e) => e.type === "request.opened");
    expect(opened.map((e) => (e as { providerRefs?: { providerRequestId?: string } }).providerRefs?.providerRequestId)).toEqual(["recorded-1", "recorded-2"]);
    const open = n.end().filter((e) => e.type === "runtime.warning" && /request still open/.test(String((e.payload as { message: string }).message)));
    expect(open).toHaveLength(2);
  });
});
