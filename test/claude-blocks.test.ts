/**
 * Claude messages with many content blocks: every block is mapped, however many a message carries (a parallel tool
 * batch of 12 is ordinary traffic). The shapes are those of a real non-streaming session (claude -p stream-json of a
 * CLI before 2.x, which batches blocks into one assistant message and the tool results into one user message).
 */
import { describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { verifyEvents } from "../src/verify/verify.js";

const SESSION = "aab34d6d-c5f0-4c13-b0b3-1172413b1da2";
const N = 12;
const toolId = (i: number) => `toolu_01KuZjMC9SbdMQwtdce1xK${String(i).padStart(2, "0")}`;
const tools = [
  { name: "Read", input: (i: number) => ({ file_path: `/home/user/project/src/module${i}.py` }) },
  { name: "Bash", input: (i: number) => ({ command: `wc -l src/module${i}.py`, description: "Count lines" }) },
  { name: "Grep", input: (i: number) => ({ pattern: `def handler${i}`, path: "src" }) },
];

const init = { type: "system", subtype: "init", cwd: "/home/user/project", session_id: SESSION, tools: ["Read", "Bash", "Grep"], mcp_servers: [], model: "claude-opus-4-20250514", permissionMode: "default", apiKeySource: "none", uuid: "0b8c8f7e-1a7e-4a55-9a4c-3f1c2b9e0d01" };
const prompt = { type: "user", message: { role: "user", content: "Summarize every module." }, parent_tool_use_id: null, session_id: SESSION };
const assistant = {
  type: "assistant",
  message: {
    id: "msg_013N76e9CUpUFzPnoPJLGLbr", type: "message", role: "assistant", model: "claude-opus-4-20250514",
    content: Array.from({ length: N }, (_, i) => ({ type: "tool_use", id: toolId(i), name: tools[i % 3].name, input: tools[i % 3].input(i) })),
    stop_reason: "tool_use", stop_sequence: null,
    usage: { input_tokens: 4, cache_creation_input_tokens: 24744, cache_read_input_tokens: 0, output_tokens: 412, service_tier: "standard" },
  },
  parent_tool_use_id: null, session_id: SESSION, uuid: "5f0e3c1a-7b2d-4c9e-8a6f-2d4b1e9c7a10",
};
const results = {
  type: "user",
  message: {
    role: "user",
    content: Array.from({ length: N }, (_, i) => ({ tool_use_id: toolId(i), type: "tool_result", content: i === 7 ? "grep: src: No such file or directory" : `${40 + i} src/module${i}.py`, is_error: i === 7 })),
  },
  parent_tool_use_id: null, session_id: SESSION, uuid: "9c2d4e6f-8a1b-4c3d-9e5f-7a6b8c9d0e11",
};

function run(messages: unknown[]): CanonicalEvent[] {
  const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock() });
  return [...messages.flatMap((m) => n.push(m, { direction: "in" })), ...n.end()];
}

describe("claude-sdk: a message with 12 content blocks", () => {
  const events = run([init, prompt, assistant, results]);
  const started = events.filter((e) => e.type === "item.started" && e.providerRefs?.providerItemId?.startsWith("toolu_"));
  const completed = events.filter((e) => e.type === "item.completed" && e.providerRefs?.providerItemId?.startsWith("toolu_"));

  it("starts one tool item per tool_use block, in block order", () => {
    expect(started.map((e) => e.providerRefs?.providerItemId)).toEqual(Array.from({ length: N }, (_, i) => toolId(i)));
    expect(new Set(started.map((e) => e.itemId)).size).toBe(N);
    expect(started.map((e) => (e.payload as any).itemType)).toEqual(Array.from({ length: N }, (_, i) => ["dynamic_tool_call", "command_execution", "dynamic_tool_call"][i % 3]));
  });

  it("completes every one of them from the 12 tool_result blocks, the failed one as failed", () => {
    expect(completed.map((e) => e.providerRefs?.providerItemId)).toEqual(Array.from({ length: N }, (_, i) => toolId(i)));
    expect(completed.map((e) => e.itemId)).toEqual(started.map((e) => e.itemId));
    expect(completed.map((e) => (e.payload as any).status)).toEqual(Array.from({ length: N }, (_, i) => (i === 7 ? "failed" : "completed")));
  });

  it("says nothing was left out, and the stream keeps the grammar", () => {
    // (the turn has no result line here: the end-of-stream report of the open turn is the only warning)
    expect(events.filter((e) => (e.type === "runtime.warning" && e.raw?.rule !== "agentnorm#end") || e.type === "runtime.error")).toEqual([]);
    expect(verifyEvents(events).violations).toEqual([]);
  });

  it("a mixed message (thinking, text, tool uses) maps every block as its own item", () => {
    const mixed = { ...assistant, message: { ...assistant.message, content: [{ type: "thinking", thinking: "Plan the reads.", signature: "c2ln" }, { type: "text", text: "Reading them all." }, ...assistant.message.content] } };
    const ev = run([init, prompt, mixed]);
    const types = ev.filter((e) => e.type === "item.started").map((e) => (e.payload as any).itemType);
    expect(types.slice(0, 3)).toEqual(["user_message", "reasoning", "assistant_message"]);
    expect(types.length).toBe(3 + N);
    expect(ev.filter((e) => e.type === "content.delta").map((e) => (e.payload as any).delta)).toEqual(["Plan the reads.", "Reading them all."]);
  });
});

describe("claude-transcript: the same 12-block lines restored", () => {
  it("starts and completes all 12 tool items", () => {
    const n = createNormalizer({ surface: "claude-transcript", ids: counterIds(), clock: steppingClock() });
    const line = (m: any, uuid: string, parentUuid: string | null) => ({ ...m, parentUuid, isSidechain: false, userType: "external", cwd: "/home/user/project", sessionId: SESSION, version: "1.0.51", uuid, timestamp: "2026-11-20T10:00:00.000Z" });
    const lines = [
      line({ type: "user", message: { role: "user", content: "Summarize every module." } }, "u-1", null),
      line({ type: "assistant", message: assistant.message }, "a-1", "u-1"),
      line({ type: "user", message: results.message, toolUseResult: "…" }, "u-2", "a-1"),
    ];
    const events = [...lines.flatMap((l) => n.push(l)), ...n.end()];
    const tool = (t: string) => events.filter((e) => e.type === t && e.providerRefs?.providerItemId?.startsWith("toolu_"));
    expect(tool("item.started")).toHaveLength(N);
    expect(tool("item.completed")).toHaveLength(N);
    expect(events.filter((e) => e.type === "runtime.warning" && e.raw?.rule !== "agentnorm#end")).toEqual([]);
  });
});
