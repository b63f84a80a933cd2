/**
 * `agentnorm render` names tools in words and says what a failed call reported (issue #34, render): on recorded
 * streams, an ordinary read tool and a subagent call are labelled by their tool name or kind (never the canonical
 * enum value `dynamic_tool_call` / `collab_agent_tool_call`); a failed call whose reason sits in its `output` prints
 * the reason; a shell call prints its command, not its description.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { describeDev, devFolder } from "./support/dev-recordings.js";

const REC = join(import.meta.dirname, "..", "fixtures", "recorded");
const load = (rel: string) => readFileSync(join(REC, rel), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
function render(events: unknown[]) {
  const a = createAccumulator();
  a.applyAll(events);
  return { text: renderSnapshotText(a.snapshot()), blocks: snapshotBlocks(a.snapshot()) as any[] };
}

describe("tool labels and failures in the terminal render", () => {
  it("a Read tool is labelled read, not (dynamic_tool_call)", () => {
    const { text, blocks } = render(load("claude-sdk/edit.expected.ndjson"));
    expect(blocks.some((b) => b.kind === "tool" && b.itemType === "dynamic_tool_call" && b.toolName === "read")).toBe(true);
    expect(text).toContain("⚙ /sandbox/work/hello.py (read) [completed]");
    expect(text).not.toContain("(dynamic_tool_call)");
  });

  it("a Task (subagent) call is labelled by its tool name, not (collab_agent_tool_call)", () => {
    const { text, blocks } = render(load("claude-sdk/2.1.337/subagent-progress.expected.ndjson"));
    expect(blocks.some((b) => b.kind === "tool" && b.itemType === "collab_agent_tool_call")).toBe(true);
    expect(text).toContain("⧉ Run the slow check (task) [completed]");
    expect(text).not.toContain("(collab_agent_tool_call)");
  });

  it("no recorded stream prints a canonical item type as a tool's label", () => {
    const seen: string[] = [];
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith(".expected.ndjson") ? [join(dir, d.name)] : []));
    for (const f of walk(REC)) {
      const a = createAccumulator();
      a.applyAll(readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)));
      const bad = renderSnapshotText(a.snapshot()).split("\n").filter((l) => /\((dynamic_tool_call|collab_agent_tool_call|mcp_tool_call|web_search|image_view|unknown)\) \[/.test(l));
      seen.push(...bad.map((l) => `${f}: ${l}`));
    }
    expect(seen).toEqual([]);
  });

  it("a failed ACP call whose reason is in its output prints the reason", () => {
    const { text, blocks } = render(load("acp/gemini/edit-miss.expected.ndjson"));
    const failed = blocks.find((b) => b.kind === "tool" && b.status === "failed");
    expect(failed?.error).toBeUndefined();
    expect(String(failed?.result)).toContain("Could not find an exact match");
    expect(text).toMatch(/\[failed\]\n {2}│ Could not find an exact match for 'old_string'/);
  });

  it("an opencode bash call prints its command, not its description", () => {
    const n = createNormalizer({ surface: "opencode", ids: counterIds(), clock: steppingClock() });
    const part = (status: string, extra: object) => ({ type: "message.part.updated", properties: { sessionID: "s1", part: { id: "t1", sessionID: "s1", messageID: "a1", type: "tool", callID: "c1", tool: "bash", state: { status, input: { command: "ls -la", description: "Lists the files" }, time: { start: 1 }, ...extra } }, time: 1 } });
    const events = [
      { type: "message.updated", properties: { sessionID: "s1", info: { id: "a1", sessionID: "s1", role: "assistant", parentID: "m1", time: { created: 1 }, modelID: "m", providerID: "p", mode: "build", agent: "build", path: { cwd: "/w", root: "/w" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } } } },
      part("running", {}),
      part("completed", { output: "a\n", title: "Lists the files", metadata: { exit: 0 }, time: { start: 1, end: 2 } }),
    ].flatMap((m) => n.push(m));
    const { text, blocks } = render(events);
    const cmd = blocks.find((b) => b.kind === "tool" && b.itemType === "command_execution");
    expect(cmd.title).toBe("Lists the files");
    expect(cmd.command).toBe("ls -la");
    expect(text).toContain("$ ls -la [completed]");
    expect(text).not.toContain("$ Lists the files [");
  });

  it("an opencode tool whose call never finished is titled by its input (an interrupted shell: its command)", () => {
    const { text, blocks } = render(load("opencode/interrupt.expected.ndjson"));
    const cmd = blocks.find((b) => b.kind === "tool" && b.itemType === "command_execution");
    expect(cmd.title).toBe(cmd.command);
    expect(text).toContain(`$ ${cmd.command} [failed]`);
  });

  it("a command keeps its short title when the command only wraps it in a shell", () => {
    const { text, blocks } = render(load("acp/codex/approval.expected.ndjson"));
    const cmd = blocks.find((b) => b.kind === "tool" && b.itemType === "command_execution" && b.command !== b.title && b.command?.includes(b.title));
    expect(cmd).toBeDefined();
    expect(text).toContain(`$ ${cmd.title} [`);
    expect(text).not.toContain(`$ ${cmd.command} [`);
  });

  const dev = devFolder("acp-agents", "render labels");
  describeDev("a failed ACP read (dev recording)", dev.present && dev.list("recorded-gemini-acp-two-turn.ndjson").length > 0, dev.dir, () => {
    it("prints the reason its output carries", () => {
      const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
      const lines = readFileSync(join(dev.dir, "recorded-gemini-acp-two-turn.ndjson"), "utf8").split("\n").filter((l) => l.trim());
      const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
      const { text } = render(events);
      expect(text).toMatch(/⚙ missing\.txt \(read\) \[failed\]\n {2}│ File not found: /);
    });
  });
});
