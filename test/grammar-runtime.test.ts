/**
 * Runtime guarantees the stream verifier found missing: an item's body never comes before its start
 * (a stream joined mid-way), and a JSON-RPC request id reused while still pending is a new canonical request.
 */
import { describe, expect, it } from "vitest";
import { createNormalizer, IMPLICIT_START } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { verifyEvents } from "../src/verify/verify.js";

const make = (surface: string) => createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
const P = (e: any) => e.payload;

describe("implicit item start", () => {
  it("a delta for an item no item/started announced: item.started (agentnorm#implicit-start) comes first, typed from the stream", () => {
    const n = make("codex-app-server");
    const a = n.push({ method: "item/agentMessage/delta", params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: "Hel" } });
    const b = n.push({ method: "item/agentMessage/delta", params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: "lo" } });
    expect(a.map((e) => [e.type, e.raw?.rule])).toEqual([["item.started", IMPLICIT_START], ["content.delta", "codex-app-server#item-agent-message-delta"]]);
    expect(P(a[0])).toEqual({ itemType: "assistant_message", status: "inProgress" });
    expect(a[0].itemId).toBe(a[1].itemId);
    expect(b.map((e) => e.type)).toEqual(["content.delta"]);
    expect(n.stats().rules[IMPLICIT_START]).toBe(1);
    expect(verifyEvents([...a, ...b]).violations).toEqual([]);
  });

  it("a completion for an item never started: item.started carries the completion's item type", () => {
    const n = make("codex-app-server");
    const out = n.push({ method: "item/completed", params: { threadId: "t1", turnId: "u1", item: { type: "reasoning", id: "rs_1", summary: [], content: [] } } });
    expect(out.map((e) => e.type)).toEqual(["item.started", "item.completed"]);
    expect(P(out[0]).itemType).toBe("reasoning");
    expect(verifyEvents(out).violations).toEqual([]);
  });

  it("an item started the ordinary way gets no second start", () => {
    const n = make("codex-app-server");
    const out = [
      ...n.push({ method: "item/started", params: { threadId: "t1", turnId: "u1", item: { type: "agentMessage", id: "m1", text: "" } } }),
      ...n.push({ method: "item/agentMessage/delta", params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: "x" } }),
    ];
    expect(out.map((e) => e.type)).toEqual(["item.started", "content.delta"]);
    expect(out.some((e) => e.raw?.rule === IMPLICIT_START)).toBe(false);
  });
});

describe("request ids reused while pending", () => {
  it("two server requests with the same JSON-RPC id: two canonical requests; the answer resolves the second; end() reports the first", () => {
    const n = make("codex-app-server");
    const ask = (cmd: string) => n.push({ id: 0, method: "item/commandExecution/requestApproval", params: { threadId: "t1", turnId: "u1", itemId: "c1", command: cmd } }, { direction: "in" });
    const first = ask("ls");
    const second = ask("rm");
    const opened = [...first, ...second].filter((e) => e.type === "request.opened");
    expect(opened).toHaveLength(2);
    expect(opened[0].requestId).not.toBe(opened[1].requestId);
    const answer = n.push({ id: 0, result: { decision: "accept" } }, { direction: "out" });
    const resolved = answer.filter((e) => e.type === "request.resolved");
    expect(resolved.map((e) => e.requestId)).toEqual([opened[1].requestId]);
    const end = n.end();
    expect(end.filter((e) => e.raw?.rule === "agentnorm#end" && e.requestId === opened[0].requestId)).toHaveLength(1);
    const r = verifyEvents([...first, ...second, ...answer, ...end]);
    expect(r.violations).toEqual([]);
    expect(r.warnings.filter((w) => w.rule === "request-open-at-end").map((w) => w.reason)).toEqual([expect.stringContaining("reported it open")]);
  });
});

describe("request lifecycle kept by the runtime", () => {
  it("a resolution with no request.opened seen: request.opened (implicit) comes first; a repeated resolution is a late warning", () => {
    const n = make("codex-eventmsg");
    const out = [
      ...n.push({ id: "1", msg: { type: "task_started", turn_id: "1" } }),
      ...n.push({ id: "1", msg: { type: "exec_command_end", call_id: "c1", turn_id: "1", exit_code: 0, stdout: "", stderr: "", aggregated_output: "", duration: { secs: 0, nanos: 1 }, formatted_output: "" } }),
    ];
    expect(verifyEvents(out).violations).toEqual([]);
    const n2 = make("acp");
    const ev = [
      ...n2.push({ jsonrpc: "2.0", id: 5, method: "session/request_permission", params: { sessionId: "s", toolCall: { toolCallId: "t" }, options: [{ optionId: "a", name: "Allow", kind: "allow_once" }] } }, { direction: "in" }),
      ...n2.push({ jsonrpc: "2.0", id: 5, result: { outcome: { outcome: "selected", optionId: "a" } } }, { direction: "out" }),
    ];
    // the same answer again: nothing pending any more → an uncorrelated response warning, never a second request.resolved
    const again = n2.push({ jsonrpc: "2.0", id: 5, result: { outcome: { outcome: "selected", optionId: "a" } } }, { direction: "out" });
    expect([...ev, ...again].filter((e) => e.type === "request.resolved")).toHaveLength(1);
    expect(verifyEvents([...ev, ...again]).violations).toEqual([]);
  });
});

describe("bounded memory of ids", () => {
  it("ids a stream only mentions (never opened) are remembered in a bounded memory, not held open", () => {
    const n = make("codex-app-server");
    for (let i = 0; i < 20_000; i++) n.push({ id: i, method: "item/commandExecution/requestApproval", params: { threadId: "t", turnId: "u", itemId: `never-started-${i}`, command: "ls" } }, { direction: "in" }) && n.push({ id: i, result: { decision: "accept" } }, { direction: "out" });
    const held = n.stats().held;
    expect(held.items).toBe(0);
    expect(held.requests).toBe(0);
    expect(held.remembered).toBeLessThan(4096 * 2 + 1024 * 4 + 10);
  });
});

describe("turn.aborted is a turn's terminal event (codex-eventmsg)", () => {
  it("an interrupted turn: turn.aborted only (no turn.completed), and the transcript shows it", async () => {
    const { renderTranscript } = await import("../src/render/transcript.js");
    const n = make("codex-eventmsg");
    const out = [
      ...n.push({ id: "1", msg: { type: "task_started" } }),
      ...n.push({ id: "1", msg: { type: "agent_message_delta", delta: "Hi" } }),
      ...n.push({ id: "1", msg: { type: "turn_aborted", reason: "interrupted" } }),
      ...n.end(),
    ];
    expect(out.filter((e) => e.type.startsWith("turn.")).map((e) => e.type)).toEqual(["turn.started", "turn.aborted"]);
    expect(verifyEvents(out).violations).toEqual([]);
    expect(renderTranscript(out)).toContain("turn aborted: interrupted");
  });
});
