import { createNormalizer } from "../src/normalize/normalizer.js";
const N = 300000;
const init = { type: "system", subtype: "init", session_id: "s1", model: "m", tools: [], cwd: "/w", uuid: "u0", claude_code_version: "2.1.62" };
const start = { type: "stream_event", session_id: "s1", uuid: "u1", event: { type: "message_start", message: { id: "msg_1", model: "m", role: "assistant", content: [], usage: {} } } };
const bstart = { type: "stream_event", session_id: "s1", uuid: "u2", event: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } };
const msgs = Array.from({ length: N }, (_, i) => ({ type: "stream_event", session_id: "s1", uuid: "u" + i, parent_tool_use_id: null, event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hello " } } }));
for (let r = 0; r < 4; r++) {
  const n = createNormalizer({ surface: "claude-sdk" });
  for (const s of [init, start, bstart]) n.push(s);
  const t = process.hrtime.bigint();
  for (const m of msgs) n.push(m);
  console.log((Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "µs");
}
const n = createNormalizer({ surface: "claude-sdk" });
console.log(JSON.stringify([init, start, bstart, msgs[0]].flatMap(m => n.push(m)).at(-1)));
console.log(JSON.stringify(n.push({ type: "stream_event", session_id: "s1", uuid: "x", event: { type: "ping" } })));
