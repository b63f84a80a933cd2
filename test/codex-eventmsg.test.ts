/**
 * codex-eventmsg beyond single-row examples: input wrappers, upstream coverage (EventMsg + legacy tags), and the
 * multi-message behaviours — text reconstruction, approvals resolved by the action starting, turns closing what
 * they leave open, restored (rollout) items versus live streams.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { verifyEvents } from "../src/verify/verify.js";

const SURFACE = "codex-eventmsg";
const table = SURFACES[SURFACE];
const make = () => createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
const P = (e: CanonicalEvent): any => e.payload as any;

/** Push messages; return all events (and check each is canonical). */
function run(messages: unknown[], n = make()): CanonicalEvent[] {
  const out = messages.flatMap((m) => n.push(m));
  for (const e of out) expect(validateCanonicalEvent(e), `${e.type} is canonical`).toBe(true);
  return out;
}
const sub = (id: string, msg: object) => ({ id, msg });
const assistantText = (events: CanonicalEvent[]) => events.filter((e) => e.type === "content.delta" && P(e).streamKind === "assistant_text").map((e) => P(e).delta).join("");

function tags(file: string): string[] {
  const doc = JSON.parse(readFileSync(new URL(`../schemas/upstream/codex-eventmsg/0.171.0/${file}`, import.meta.url), "utf8"));
  return doc.oneOf.map((v: any) => v.properties.type.enum[0]);
}

describe("codex-eventmsg: upstream coverage", () => {
  it("all 86 EventMsg tags of 0.171.0 and the 14 legacy tags are mapped or ignored (with a reason)", () => {
    const event = tags("EventMsg.json");
    const legacy = tags("LegacyEventMsg.json");
    expect(event).toHaveLength(86);
    expect(legacy).toHaveLength(14);
    const known = (kind: "event" | "legacy", t: string) => table.rows[kind]?.[t] !== undefined || table.ignored[kind]?.[t] !== undefined;
    expect(event.filter((t) => !known("event", t))).toEqual([]);
    expect(legacy.filter((t) => !known("legacy", t))).toEqual([]);
    for (const id of Object.values(table.ignored).flatMap((m) => Object.values(m ?? {}))) expect(table.ignoreReasons[id]?.length ?? 0).toBeGreaterThanOrEqual(12);
  });

  it("turn_started / turn_complete (serde aliases) behave like task_started / task_complete", () => {
    const out = run([sub("u1", { type: "turn_started", turn_id: "u1" }), sub("u1", { type: "turn_complete", turn_id: "u1", last_agent_message: null })]);
    // the stream names no session: the runtime starts the turn's thread first (agentnorm#implicit-start)
    expect(out.map((e) => e.type)).toEqual(["thread.started", "turn.started", "turn.completed"]);
    expect(out[1].turnId).toBe(out[2].turnId);
    expect(out[1].threadId).toBe(out[0].threadId);
  });
});

describe("codex-eventmsg: input wrappers", () => {
  it("TUI log: codex_event lines are unwrapped (submission id → turn), other kinds are counted and skipped", () => {
    const n = make();
    const a = run([
      { ts: "t", dir: "meta", kind: "session_start", cwd: "/w" },
      { ts: "t", dir: "from_tui", kind: "op", payload: { type: "shutdown" } },
      { ts: "t", dir: "to_tui", kind: "app_event", variant: "RequestRedraw" },
      { ts: "t", dir: "to_tui", kind: "codex_event", payload: { id: "1", msg: { type: "task_started" } } },
    ], n);
    expect(a.map((e) => [e.type, e.providerRefs?.providerTurnId])).toEqual([["thread.started", undefined], ["turn.started", "1"]]);
    expect(a[0].raw?.payload).toMatchObject({ kind: "codex_event" }); // raw keeps the whole line
    expect(n.stats().ignored[`${SURFACE}#input-tui-other`]).toBe(3);
  });

  it("bare {id, msg}, bare EventMsg and rollout lines all reach the same rows", () => {
    expect(run([sub("7", { type: "shutdown_complete" })]).map((e) => e.type)).toEqual(["session.exited"]);
    expect(run([{ type: "shutdown_complete" }]).map((e) => e.type)).toEqual(["session.exited"]);
    expect(run([{ timestamp: "t", type: "event_msg", payload: { type: "shutdown_complete" } }]).map((e) => e.type)).toEqual(["session.exited"]);
    // an EventMsg with a `kind` field is not mistaken for a TUI line (those also have `dir`)
    expect(run([{ type: "sub_agent_activity", event_id: "e1", agent_thread_id: "t2", agent_path: "/root/a", kind: "started" }]).map((e) => e.type)).toEqual(["item.started"]);
  });

  it("other rollout lines are counted and skipped; non-JSON log lines are counted warnings (pushLine)", () => {
    const n = make();
    expect(n.pushLine(JSON.stringify({ timestamp: "t", type: "response_item", payload: { type: "message", role: "user", content: [] } }))).toEqual([]);
    expect(n.stats().ignored[`${SURFACE}#input-rollout-other`]).toBe(1);
    const w = n.pushLine("\u001b[2m2025-09-27T03:52:30Z\u001b[0m INFO codex_core::config: cwd not set", { lineNumber: 1 });
    expect(w.map((e) => [e.type, e.raw?.rule])).toEqual([["runtime.warning", "agentnorm#non-json"]]);
    expect(n.stats().unknown).toBe(1);
    expect(n.stats().invalid).toBe(0);
  });

  it("a line no wrapper knows is an unknown warning, not an error", () => {
    const out = run([{ foo: 1 }]);
    expect(out.map((e) => e.type)).toEqual(["runtime.warning"]);
  });
});

describe("codex-eventmsg: text reconstruction", () => {
  it("legacy deltas then agent_message: the text is streamed once, the final adds nothing", () => {
    const out = run([
      sub("test", { type: "task_started" }),
      ...["Hey", "!", " How", " can", " I", " help", "?"].map((d) => sub("test", { type: "agent_message_delta", delta: d })),
      sub("test", { type: "agent_message", message: "Hey! How can I help?" }),
      sub("test", { type: "task_complete", last_agent_message: "Hey! How can I help?" }),
    ]);
    expect(assistantText(out)).toBe("Hey! How can I help?");
    const items = new Set(out.filter((e) => e.type.startsWith("item.") || e.type === "content.delta").map((e) => e.itemId));
    expect(items.size).toBe(1);
    expect(out.map((e) => e.type).filter((t) => t !== "content.delta")).toEqual(["thread.started", "turn.started", "item.started", "item.completed", "turn.completed"]);
  });

  it("no deltas: the completed text is emitted once; a truncated stream is completed from the final text", () => {
    expect(assistantText(run([sub("1", { type: "task_started" }), sub("1", { type: "agent_message", message: "Done." })]))).toBe("Done.");
    expect(assistantText(run([
      sub("1", { type: "task_started" }),
      sub("1", { type: "agent_message_delta", delta: "Do" }),
      sub("1", { type: "agent_message", message: "Done." }),
    ]))).toBe("Done.");
  });

  it("each turn has its own assistant item", () => {
    const out = run([
      sub("1", { type: "task_started" }), sub("1", { type: "agent_message_delta", delta: "A" }), sub("1", { type: "agent_message", message: "A" }), sub("1", { type: "task_complete" }),
      sub("3", { type: "task_started" }), sub("3", { type: "agent_message_delta", delta: "B" }), sub("3", { type: "agent_message", message: "B" }), sub("3", { type: "task_complete" }),
    ]);
    const done = out.filter((e) => e.type === "item.completed");
    expect(done.map((e) => P(e).data.text)).toEqual(["A", "B"]);
    expect(done[0].itemId).not.toBe(done[1].itemId);
    expect(done[0].turnId).not.toBe(done[1].turnId);
  });

  it("several messages in one turn: each is its own item, text once, also when a later one had no deltas", () => {
    const out = run([
      sub("1", { type: "task_started" }),
      sub("1", { type: "agent_message_delta", delta: "Looking." }), sub("1", { type: "agent_message", message: "Looking." }),
      sub("1", { type: "agent_message_delta", delta: "Found it." }), sub("1", { type: "agent_message", message: "Found it." }),
      sub("1", { type: "agent_message", message: "Done." }),
    ]);
    expect(assistantText(out)).toBe("Looking.Found it.Done.");
    const done = out.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
    expect(done.map((e) => P(e).data.text)).toEqual(["Looking.", "Found it.", "Done."]);
    expect(new Set(done.map((e) => e.itemId)).size).toBe(3);
  });

  it("0.171 items: content deltas and item_completed share the item id; reasoning parts keep their index", () => {
    const out = run([
      sub("u1", { type: "task_started", turn_id: "u1" }),
      sub("u1", { type: "item_started", thread_id: "t1", turn_id: "u1", started_at_ms: 1, item: { type: "Reasoning", id: "rs_1", summary_text: [], raw_content: [] } }),
      sub("u1", { type: "reasoning_content_delta", thread_id: "t1", turn_id: "u1", item_id: "rs_1", summary_index: 0, delta: "**Plan**" }),
      sub("u1", { type: "item_completed", thread_id: "t1", turn_id: "u1", item: { type: "Reasoning", id: "rs_1", summary_text: ["**Plan**", "Then act."], raw_content: [] } }),
      sub("u1", { type: "item_started", thread_id: "t1", turn_id: "u1", started_at_ms: 2, item: { type: "AgentMessage", id: "msg_1", content: [] } }),
      sub("u1", { type: "agent_message_content_delta", thread_id: "t1", turn_id: "u1", item_id: "msg_1", delta: "Hello" }),
      sub("u1", { type: "item_completed", thread_id: "t1", turn_id: "u1", item: { type: "AgentMessage", id: "msg_1", content: [{ type: "Text", text: "Hello" }] } }),
      sub("u1", { type: "task_complete", turn_id: "u1", last_agent_message: "Hello" }),
    ]);
    expect(assistantText(out)).toBe("Hello");
    const summary = out.filter((e) => P(e).streamKind === "reasoning_summary_text").map((e) => [P(e).summaryIndex, P(e).delta]);
    expect(summary).toEqual([[0, "**Plan**"], [1, "Then act."]]);
    expect(out.filter((e) => e.type === "item.completed").map((e) => P(e).itemType)).toEqual(["reasoning", "assistant_message"]);
  });

  it("restored (rollout) items come whole and in order; a live-style final of the same id is not emitted twice", () => {
    const line = (payload: object) => ({ timestamp: "t", type: "event_msg", payload });
    const out = run([
      line({ type: "task_started", turn_id: "u1" }),
      line({ type: "item_completed", thread_id: "t1", turn_id: "u1", item: { type: "AgentMessage", id: "msg_1", content: [{ type: "Text", text: "Noted: 42." }] } }),
      line({ type: "item_completed", thread_id: "t1", turn_id: "u1", item: { type: "AgentMessage", id: "msg_1", content: [{ type: "Text", text: "Noted: 42." }] } }),
      line({ type: "task_complete", turn_id: "u1", last_agent_message: "Noted: 42." }),
    ]);
    expect(out.map((e) => e.type)).toEqual(["thread.started", "turn.started", "item.started", "content.delta", "item.completed", "turn.completed"]);
    expect(assistantText(out)).toBe("Noted: 42.");
  });
});

describe("codex-eventmsg: commands, patches and approvals", () => {
  it("approval → command begins (implied approval) → output (base64) → end: one request, one item, output once", () => {
    const out = run([
      sub("1", { type: "task_started" }),
      sub("1", { type: "exec_approval_request", call_id: "c1", command: ["python3", "hello.py"], cwd: "/w", parsed_cmd: [] }),
      sub("1", { type: "exec_command_begin", call_id: "c1", turn_id: "1", command: ["python3", "hello.py"], cwd: "/w", parsed_cmd: [] }),
      sub("1", { type: "exec_command_output_delta", call_id: "c1", stream: "stdout", chunk: Buffer.from("Hello\n").toString("base64") }),
      sub("1", { type: "exec_command_end", call_id: "c1", turn_id: "1", command: ["python3", "hello.py"], cwd: "/w", parsed_cmd: [], exit_code: 0, status: "completed", stdout: "Hello\n", stderr: "", aggregated_output: "Hello\n", formatted_output: "Hello\n", duration: { secs: 0, nanos: 1 } }),
      sub("1", { type: "task_complete" }),
    ]);
    expect(out.map((e) => e.type)).toEqual(["thread.started", "turn.started", "request.opened", "request.resolved", "item.started", "content.delta", "item.completed", "turn.completed"]);
    const resolved = out.find((e) => e.type === "request.resolved")!;
    expect(P(resolved)).toMatchObject({ requestType: "command_execution_approval", providerRequestType: "exec_approval_request", decision: "allow_once" });
    expect(resolved.requestId).toBe(out.find((e) => e.type === "request.opened")!.requestId);
    expect(out.filter((e) => e.type === "content.delta").map((e) => P(e).delta)).toEqual(["Hello\n"]);
    expect(new Set(out.filter((e) => e.itemId).map((e) => e.itemId)).size).toBe(1);
  });

  it("a fast command with no output deltas gets its aggregated output once", () => {
    const out = run([
      sub("1", { type: "exec_command_begin", call_id: "c2", turn_id: "1", command: ["echo", "hi"], cwd: "/w", parsed_cmd: [] }),
      sub("1", { type: "exec_command_end", call_id: "c2", turn_id: "1", command: ["echo", "hi"], cwd: "/w", parsed_cmd: [], exit_code: 0, stdout: "hi\n", stderr: "", aggregated_output: "hi\n", formatted_output: "hi\n", duration: { secs: 0, nanos: 1 } }),
    ]);
    expect(out.filter((e) => e.type === "content.delta").map((e) => P(e).delta)).toEqual(["hi\n"]);
  });

  it("a request never answered on the stream is resolved when its turn completes; nothing stays open", () => {
    const n = make();
    const out = run([
      sub("1", { type: "task_started" }),
      sub("1", { type: "apply_patch_approval_request", call_id: "p1", changes: {} }),
      sub("1", { type: "task_complete" }),
    ], n);
    expect(out.filter((e) => e.type === "request.resolved").map((e) => P(e).decision)).toEqual(["reject_once"]);
    expect(n.end()).toEqual([]);
  });

  it("approved patch: begin resolves the request, end carries the apply output once", () => {
    const out = run([
      sub("1", { type: "apply_patch_approval_request", call_id: "p2", changes: { "/w/a.py": { type: "update", unified_diff: "@@" } } }),
      sub("1", { type: "patch_apply_begin", call_id: "p2", auto_approved: false, changes: {} }),
      sub("1", { type: "patch_apply_end", call_id: "p2", stdout: "Success.\n", stderr: "", success: true, status: "completed" }),
    ]);
    expect(out.map((e) => e.type)).toEqual(["request.opened", "request.resolved", "item.started", "content.delta", "item.completed"]);
    expect(P(out[4])).toMatchObject({ itemType: "file_change", status: "completed" });
  });

  it("an interrupted turn completes the command it abandoned (failed) and aborts (turn.aborted is its one terminal event)", () => {
    const n = make();
    const out = run([
      sub("1", { type: "task_started" }),
      sub("1", { type: "exec_command_begin", call_id: "c3", turn_id: "1", command: ["sleep", "60"], cwd: "/w", parsed_cmd: [] }),
      sub("1", { type: "turn_aborted", reason: "interrupted" }),
    ], n);
    expect(out.slice(3).map((e) => [e.type, P(e).status ?? P(e).state ?? P(e).reason])).toEqual([["item.completed", "failed"], ["turn.aborted", "interrupted"]]);
    expect(n.end()).toEqual([]);
  });
});

describe("codex-eventmsg: collab", () => {
  it("collab calls are collab_agent_tool_call items in the sender's thread, linked to the sub-agent they act on", () => {
    const out = run([
      sub("1", { type: "collab_agent_spawn_begin", call_id: "k1", sender_thread_id: "t1", prompt: "Explore" }),
      sub("1", { type: "collab_agent_spawn_end", call_id: "k1", sender_thread_id: "t1", new_thread_id: "t2", prompt: "Explore", status: "running" }),
      sub("1", { type: "sub_agent_activity", event_id: "e1", agent_thread_id: "t2", agent_path: "/root/scout", kind: "started" }),
      sub("1", { type: "collab_agent_interaction_begin", call_id: "k2", sender_thread_id: "t1", receiver_thread_id: "t2", prompt: "Also tests/" }),
      sub("1", { type: "collab_agent_interaction_end", call_id: "k2", sender_thread_id: "t1", receiver_thread_id: "t2", prompt: "Also tests/", status: { completed: "ok" } }),
    ]);
    const agent = out.find((e) => e.type === "item.started" && P(e).title === "/root/scout")!;
    expect(out.filter((e) => e.raw?.rule?.includes("collab")).every((e) => P(e).itemType === "collab_agent_tool_call")).toBe(true);
    expect(out.filter((e) => e.raw?.rule?.includes("interaction")).map((e) => e.parentId)).toEqual([agent.itemId, agent.itemId]);
    expect(out.find((e) => e.raw?.rule?.includes("spawn-end"))!.parentId).toBe(agent.itemId);
    expect(new Set(out.filter((e) => e.raw?.rule?.includes("collab")).map((e) => e.threadId)).size).toBe(1);
  });
});

describe("Codex command titles", () => {
  // An argv with no string in it says nothing to title the command by: no title (not an empty one), no command.
  const cases: [string, (cmd: unknown) => unknown[]][] = [
    ["codex-eventmsg", (cmd) => [sub("u1", { type: "item_started", thread_id: "t1", turn_id: "u1", started_at_ms: 1, item: { type: "CommandExecution", id: "c1", command: cmd, cwd: "/w" } })]],
    ["codex-eventmsg", (cmd) => [sub("u1", { type: "exec_command_begin", call_id: "c1", turn_id: "u1", command: cmd, cwd: "/w", parsed_cmd: [] })]],
    ["codex-rollout", (cmd) => [{ timestamp: "2026-01-01T00:00:00.000Z", type: "response_item", payload: { type: "local_shell_call", call_id: "c1", status: "in_progress", action: { type: "exec", command: cmd, working_directory: "/w" } } }]],
  ];
  for (const [surface, messages] of cases) {
    it(`${surface}: ${JSON.stringify(messages([])[0]).slice(0, 60)}…`, () => {
      for (const [cmd, title] of [[[], undefined], [[1, null], undefined], [["ls", "-la"], "ls -la"], [[""], "''"]] as const) {
        const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
        const started = messages(cmd).flatMap((m) => n.push(m)).filter((e) => e.type === "item.started");
        expect(started, JSON.stringify(cmd)).toHaveLength(1);
        expect(P(started[0]).title, JSON.stringify(cmd)).toBe(title);
        expect("title" in P(started[0]), JSON.stringify(cmd)).toBe(title !== undefined);
      }
    });
  }
});

describe("an answer names where its request was asked", () => {
  it("a turn's end settling a request still open from an earlier turn: the resolution names the earlier turn and the request's item", () => {
    const out = run([
      sub("u1", { type: "task_started", turn_id: "u1" }),
      sub("u1", { type: "exec_approval_request", call_id: "c1", turn_id: "u1", command: ["rm", "x"], cwd: "/w", parsed_cmd: [] }),
      sub("u2", { type: "task_started", turn_id: "u2" }),
      sub("u2", { type: "turn_aborted", reason: "interrupted", turn_id: "u2" }),
    ]);
    const opened = out.find((e) => e.type === "request.opened")!;
    const resolved = out.find((e) => e.type === "request.resolved")!;
    const turns = out.filter((e) => e.type === "turn.started").map((e) => e.turnId);
    expect(turns).toHaveLength(2);
    expect(opened.turnId).toBe(turns[0]);
    expect(resolved.requestId).toBe(opened.requestId);
    expect([resolved.turnId, resolved.itemId]).toEqual([opened.turnId, opened.itemId]);
    expect(resolved.providerRefs?.providerTurnId).toBe("u1");
    expect(verifyEvents(out).violations).toEqual([]);
  });
});
