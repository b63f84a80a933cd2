/** The runtime side of hold rows (RowContext.hold): messages wait for a session variable, then replay in order. */
import { describe, expect, it } from "vitest";
import { counterIds, createNormalizer, steppingClock } from "../src/index.js";
import type { SurfaceTable } from "../src/tables.js";

const table: SurfaceTable = {
  surface: "mini-hold",
  provider: "opencode",
  protocol: "tagged",
  file: "(test)",
  upstream: { package: "@example/mini", version: "1.0.0" },
  tags: { event: "type" },
  sources: { event: "opencode.event" },
  rows: {
    event: {
      part: [
        { rule: "mini-hold#wait", line: 1, run: (m: any, cx) => cx.hold(["role", m.message]) },
        { rule: "mini-hold#part", line: 2, run: (m: any, cx) => { cx.ref({ role: "item", op: "use", field: "message", required: true }, m.message); cx.emit("content.delta", { streamKind: cx.getVar(["role", m.message]) === "user" ? "unknown" : "assistant_text", delta: m.text }); return true; } },
      ],
      role: [{ rule: "mini-hold#role", line: 3, run: (m: any, cx) => { cx.setVarNamed(["role", m.message], m.role); cx.emit("runtime.warning", { message: `role ${m.role}` }); return true; } }],
    },
  },
  ignored: {},
  ignoreReasons: {},
};

const make = () => createNormalizer({ surface: table, ids: counterIds(), clock: steppingClock() });
// item.started is the runtime's implicit start for the first delta of an item (agentnorm#implicit-start)
const show = (evs: any[]) => evs.filter((e) => e.type !== "item.started").map((e) => (e.type === "content.delta" ? `${e.payload.streamKind}:${e.payload.delta}` : e.payload.message));

describe("hold rows", () => {
  it("hold messages until the variable is set, then run them through the rows after the setting row, in arrival order", () => {
    const n = make();
    expect(n.push({ type: "part", message: "m1", text: "a" })).toEqual([]);
    expect(n.push({ type: "part", message: "m1", text: "b" })).toEqual([]);
    expect(n.push({ type: "part", message: "m2", text: "x" })).toEqual([]);
    expect(show(n.push({ type: "role", message: "m1", role: "assistant" }))).toEqual(["role assistant", "assistant_text:a", "assistant_text:b"]);
    expect(show(n.push({ type: "part", message: "m1", text: "c" }))).toEqual(["assistant_text:c"]); // set: the hold row no longer applies
    expect(show(n.push({ type: "role", message: "m2", role: "user" }))).toEqual(["role user", "unknown:x"]);
  });

  it("end() reports each message still waiting, with its key", () => {
    const n = make();
    n.push({ type: "part", message: "m9", text: "lost?" });
    const end = n.end();
    expect(end.map((e) => [e.type, (e.payload as any).message, e.raw?.rule])).toEqual([["runtime.warning", "stream ended with a message still waiting for role:m9", "agentnorm#end"]]);
    expect(n.end()).toEqual([]);
  });

  it("a generated table's hold (opencode: a text part before its message's role) waits in the role variable's slot and runs when the role is set, in arrival order", () => {
    const n = createNormalizer({ surface: "opencode", ids: counterIds(), clock: steppingClock() });
    const part = (id: string, text: string) => ({ type: "message.part.updated", properties: { sessionID: "s1", part: { id, sessionID: "s1", messageID: "m1", type: "text", text }, time: 1 } });
    expect(n.push(part("p1", "Fix it"))).toEqual([]);
    expect(n.push(part("p2", "and test it"))).toEqual([]);
    expect(n.stats().outcomes.held).toBe(2);
    const out = n.push({ type: "message.updated", properties: { sessionID: "s1", info: { id: "m1", sessionID: "s1", role: "user", time: { created: 1 }, agent: "build", model: { providerID: "p", modelID: "gpt" } } } });
    expect(out.filter((e) => e.type === "item.completed").map((e) => (e.payload as any).detail)).toEqual(["Fix it", "and test it"]);
    expect(n.end().filter((e) => e.type === "runtime.warning" && /still waiting/.test((e.payload as any).message))).toEqual([]);
  });
});
