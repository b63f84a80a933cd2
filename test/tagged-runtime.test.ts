/** The runtime's tagged-protocol path (input wrappers, tag → kind, wrapper ignores), on a hand-built table. */
import { describe, expect, it } from "vitest";
import { counterIds, createNormalizer, steppingClock } from "../src/index.js";
import type { SurfaceTable } from "../src/tables.js";

const table: SurfaceTable = {
  surface: "mini-tagged",
  provider: "codex",
  protocol: "tagged",
  file: "(test)",
  upstream: { package: "@example/mini", version: "1.0.0" },
  tags: { event: "type", turns: "type", blocks: "type", legacy: "type" },
  sources: { event: "codex.eventmsg", turns: "codex.sdk.thread-event", blocks: "claude.sdk.message", legacy: "codex.eventmsg" },
  input: (line: any) => {
    if (line?.kind === "codex_event") return { wrapper: "tui", message: line.payload?.msg, meta: { id: line.payload?.id } };
    if (line?.kind !== undefined) return { ignore: "mini-tagged#input-other-tui" };
    if (line?.type === "event_msg") return { wrapper: "rollout", message: line.payload };
    if (line?.msg !== undefined) return { wrapper: "bare", message: line.msg, meta: { id: line.id } };
    if (typeof line?.type === "string") return { wrapper: "plain", message: line };
    return undefined;
  },
  rows: {
    event: {
      task_started: [{ rule: "mini-tagged#task-started", line: 1, run: (_m: any, cx) => { cx.ref({ role: "turn", op: "open", field: "meta.id" }, cx.meta?.id ?? "t0"); if (cx.isNew("turn")) cx.emit("turn.started", {}); return true; } }],
    },
    turns: {
      "turn.started": [{ rule: "mini-tagged#turn-started", line: 3, run: (_m: any, cx) => { cx.ref({ role: "turn", op: "mint" }); cx.emit("turn.started", {}); return true; } }],
      "item.started": [{ rule: "mini-tagged#item", line: 4, run: (m: any, cx) => { cx.ref({ role: "turn", op: "current" }); cx.ref({ role: "item", op: "open", field: "id", required: true }, m.id); cx.emit("item.started", { itemType: "unknown" }); return true; } }],
      "turn.completed": [{ rule: "mini-tagged#turn-completed", line: 5, run: (_m: any, cx) => { cx.ref({ role: "turn", op: "closeCurrent" }); if (cx.wasOpen("turn")) cx.emit("turn.completed", { state: "completed" }); return true; } }],
    },
    blocks: {
      "block.start": [{ rule: "mini-tagged#block-start", line: 6, run: (m: any, cx) => { cx.ref({ role: "item", op: "open", field: "id", required: true }, m.id); cx.setVarNamed(["block", m.index], m.id); cx.emit("item.started", { itemType: "dynamic_tool_call" }); return true; } }],
      "block.delta": [{ rule: "mini-tagged#block-delta", line: 7, run: (m: any, cx) => { cx.ref({ role: "item", op: "use", field: "block (value)", required: true }, cx.getVar(["block", m.index])); cx.emit("item.updated", { itemType: "dynamic_tool_call", data: m.partial }); return true; } }],
      "block.forget": [{ rule: "mini-tagged#block-forget", line: 8, run: (m: any, cx) => { cx.setVarNamed(["block", m.index], null); cx.emit("runtime.warning", { message: "forgot" }); return true; } }],
    },
    legacy: {
      agent_message_delta: [{ rule: "mini-tagged#legacy-delta", line: 2, run: (m: any, cx) => { cx.ref({ role: "item", op: "mint" }); cx.emit("content.delta", { streamKind: "assistant_text", delta: m.delta }); return true; } }],
    },
  },
  ignored: { event: { token_count: "mini-tagged#ignored-event-1" } },
  ignoreReasons: { "mini-tagged#ignored-event-1": "test", "mini-tagged#input-other-tui": "test" },
};

const make = () => createNormalizer({ surface: table, ids: counterIds(), clock: steppingClock() });

describe("tagged protocol runtime", () => {
  it("unwraps each wrapper, keeps the whole line as raw.payload and exposes the wrapper's meta", () => {
    const n = make();
    const tui = { kind: "codex_event", payload: { id: "sub-1", msg: { type: "task_started" } } };
    // the turn names no thread: the runtime starts one first (a turn starts in a thread, always)
    const [t, e] = n.push(tui);
    expect(t.type).toBe("thread.started");
    expect(e.type).toBe("turn.started");
    expect(e.threadId).toBe(t.threadId);
    expect(e.providerRefs?.providerTurnId).toBe("sub-1");
    expect(e.raw?.payload).toEqual(tui);
    expect(e.raw?.method).toBe("task_started");
    expect(n.push({ id: "sub-1", msg: { type: "task_started" } })).toEqual([]); // same turn: not opened twice
    expect(n.push({ type: "event_msg", payload: { type: "task_started" } }).map((x) => x.type)).toEqual(["turn.started"]);
  });

  it("finds the kind whose table knows the tag (legacy types in their own kind)", () => {
    const n = make();
    const out = n.push({ id: "1", msg: { type: "agent_message_delta", delta: "hi" } });
    expect(out.map((x) => [x.type, (x.payload as any).delta, x.raw?.rule])).toEqual([["item.started", undefined, "agentnorm#implicit-start"], ["content.delta", "hi", "mini-tagged#legacy-delta"]]);
  });

  it("counts wrapper ignores and ignored types, warns on unknown types and unmatched lines, errors on untagged messages", () => {
    const n = make();
    expect(n.push({ kind: "app_event", payload: {} })).toEqual([]);
    expect(n.push({ id: "1", msg: { type: "token_count" } })).toEqual([]);
    expect(n.stats().ignored).toEqual({ "mini-tagged#input-other-tui": 1, "mini-tagged#ignored-event-1:token_count": 1 });
    const unknown = n.push({ id: "1", msg: { type: "brand_new_event" } });
    expect(unknown.map((x) => [x.type, (x.payload as any).message])).toEqual([["runtime.warning", 'mini-tagged: unknown event type "brand_new_event"']]);
    const nomatch = n.push({ foo: 1, type: 7 });
    expect(nomatch.map((x) => x.type)).toEqual(["runtime.warning"]);
    expect(nomatch[0].raw?.payload).toEqual({ foo: 1, type: 7 });
    const untagged = n.push({ id: "1", msg: { nope: true } });
    expect(untagged.map((x) => [x.type, (x.payload as any).class])).toEqual([["runtime.error", "validation_error"]]);
    expect(n.stats().unknown).toBe(2);
  });

  it("turns without provider ids: mint opens, current attaches, closeCurrent closes", () => {
    const n = make();
    const a = n.push({ type: "turn.started" }).filter((x) => x.type !== "thread.started");
    const b = n.push({ type: "item.started", id: "i1" });
    const c = n.push({ type: "turn.completed" });
    expect([a[0].turnId, b[0].turnId, c[0].turnId]).toEqual(["trn_1", "trn_1", "trn_1"]);
    expect(c.map((x) => x.type)).toEqual(["turn.completed"]);
    expect(n.push({ type: "turn.completed" })).toEqual([]); // nothing current any more
    // the second turn starts in the thread the first one did (no second thread.started)
    const second = n.push({ type: "turn.started" });
    expect(second.map((x) => [x.type, x.turnId])).toEqual([["turn.started", "trn_2"]]);
    expect(second[0].threadId).toBe(a[0].threadId);
  });

  it("session variables carry index → identity between rows; deleting one makes the id missing", () => {
    const n = make();
    const start = n.push({ type: "block.start", id: "toolu_1", index: 0 });
    const delta = n.push({ type: "block.delta", index: 0, partial: '{"a":' });
    expect(delta[0].itemId).toBe(start[0].itemId);
    expect(delta[0].providerRefs?.providerItemId).toBe("toolu_1");
    n.push({ type: "block.forget", index: 0 });
    const orphan = n.push({ type: "block.delta", index: 0, partial: "1}" });
    expect(orphan.map((e) => e.type)).toEqual(["runtime.error", "runtime.error"]);
    expect((orphan[0].payload as any).message).toMatch(/item\.updated needs an item/);
    expect((orphan[1].payload as any).message).toMatch(/block \(value\): expected an id/);
  });
});
