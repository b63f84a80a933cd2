/**
 * A generated Codex app-server stream (bench/view-large.ts, test/view-bounded.test.ts): a thread, then `turns` turns of
 * an answer (`deltas` deltas of `size` characters) and a command — 12 lines a turn.
 */
export const CODEX_THREAD = "019a0000-0000-7000-8000-00000000aaaa";
const T = CODEX_THREAD;

export function* codexLines(turns: number, size = 200, deltas = 5): Generator<string> {
  const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(size / 27)).slice(0, size);
  yield JSON.stringify({ method: "thread/started", params: { thread: { id: T } } });
  for (let i = 0; i < turns; i++) {
    const turnId = `turn-${i}`;
    yield JSON.stringify({ method: "turn/started", params: { threadId: T, turn: { id: turnId, items: [], status: "inProgress" } } });
    yield JSON.stringify({ method: "item/started", params: { threadId: T, turnId, startedAtMs: 1, item: { type: "agentMessage", id: `m-${i}`, text: "" } } });
    for (let k = 0; k < deltas; k++) yield JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: T, turnId, itemId: `m-${i}`, delta: text } });
    yield JSON.stringify({ method: "item/completed", params: { threadId: T, turnId, completedAtMs: 2, item: { type: "agentMessage", id: `m-${i}`, text: text.repeat(deltas) } } });
    yield JSON.stringify({ method: "item/started", params: { threadId: T, turnId, startedAtMs: 1, item: { type: "commandExecution", id: `c-${i}`, command: "ls", status: "inProgress" } } });
    yield JSON.stringify({ method: "item/commandExecution/outputDelta", params: { threadId: T, turnId, itemId: `c-${i}`, delta: text } });
    yield JSON.stringify({ method: "item/completed", params: { threadId: T, turnId, completedAtMs: 2, item: { type: "commandExecution", id: `c-${i}`, command: "ls", status: "completed", aggregatedOutput: text, exitCode: 0 } } });
    yield JSON.stringify({ method: "turn/completed", params: { threadId: T, turn: { id: turnId, items: [], status: "completed" } } });
  }
}
