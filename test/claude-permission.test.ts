import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { counterIds, createNormalizer, toClaudePermissionResult } from "../src/index.js";
import { expectVerified } from "./support/verify.js";

describe("toClaudePermissionResult (canonical decision → canUseTool's PermissionResult)", () => {
  const input = { command: "ls" };
  it("allow keeps the input; allow_always adds the permission updates; deny carries a message; interrupt stops", () => {
    expect(toClaudePermissionResult({ decision: "allow", input, toolUseID: "toolu_1" })).toEqual({ behavior: "allow", updatedInput: input, toolUseID: "toolu_1" });
    expect(toClaudePermissionResult({ decision: "allow_always", input, updatedPermissions: [{ type: "addRules" }] })).toEqual({ behavior: "allow", updatedInput: input, updatedPermissions: [{ type: "addRules" }] });
    expect(toClaudePermissionResult({ decision: "allow", input, updatedPermissions: [{ type: "addRules" }] })).not.toHaveProperty("updatedPermissions");
    expect(toClaudePermissionResult({ decision: "deny", input, message: "No." })).toEqual({ behavior: "deny", message: "No." });
    expect(toClaudePermissionResult({ decision: "deny_and_interrupt", input })).toMatchObject({ behavior: "deny", interrupt: true });
  });
  it("round trip: the result, fed back through the claude-sdk table, resolves the request with the same decision", () => {
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds() });
    n.push({ toolName: "Bash", input, options: { toolUseID: "toolu_9" } });
    const out = n.push(toClaudePermissionResult({ decision: "deny", input, message: "Not now.", toolUseID: "toolu_9" }));
    expect(out.map((e) => [e.type, (e.payload as any).decision])).toEqual([["request.resolved", "reject_once"]]);
  });
});

describe("claude-permission surface on the approvals fixture (fixtures/claude-permission/approvals.ndjson)", () => {
  it("every canUseTool call opens a request and its result resolves it with the host's decision; nothing unknown; verifier clean", () => {
    const lines = readFileSync(new URL("../fixtures/claude-permission/approvals.ndjson", import.meta.url), "utf8").split("\n").filter(Boolean);
    const n = createNormalizer({ surface: "claude-permission", ids: counterIds() });
    const events = [...lines.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
    expect(n.stats().unknown).toBe(0);
    const opened = events.filter((e) => e.type === "request.opened");
    const resolved = events.filter((e) => e.type === "request.resolved");
    // detail: the SDK's decisionReason, else what the tool would do (command, file); the tool input stays in args
    expect(opened.map((e) => [(e.payload as any).requestType, (e.payload as any).detail, (e.payload as any).args.input.command ?? (e.payload as any).args.input.file_path])).toEqual([
      ["command_execution_approval", "echo hello > notes.txt", "echo hello > notes.txt"],
      ["command_execution_approval", "rm README.md", "rm README.md"],
      ["file_change_approval", "/sandbox/work/hello.py", "/sandbox/work/hello.py"],
    ]);
    expect(resolved.map((e) => [e.requestId, (e.payload as any).decision])).toEqual([[opened[0].requestId, "allow_once"], [opened[1].requestId, "reject_once"], [opened[2].requestId, "allow_once"]]);
    expectVerified(events, "approvals.ndjson");
  });
});

describe("claude-permission pins SDK 0.3.337 beside 0.3.333 and 0.2.62", () => {
  const elicitation = { type: "control_request", request_id: "r1", request: { subtype: "elicitation", mcp_server_name: "s", message: "Where?" } };
  it("an elicitation control request opens a question at 0.3.337 and 0.3.333; at 0.2.62 (no such prompt) it is one more control command", () => {
    const now = createNormalizer({ surface: "claude-permission", ids: counterIds() });
    expect(now.upstreamVersion()).toBe("0.3.337");
    expect(now.push(elicitation).map((e) => e.type)).toEqual(["request.opened", "user-input.requested"]);
    const before = createNormalizer({ surface: "claude-permission", ids: counterIds(), upstreamVersion: "0.3.333" });
    expect(before.push(elicitation).map((e) => e.type)).toEqual(["request.opened", "user-input.requested"]);
    const old = createNormalizer({ surface: "claude-permission", ids: counterIds(), upstreamVersion: "0.2.62" });
    expect(old.upstreamVersion()).toBe("0.2.62");
    expect(old.push(elicitation).map((e) => e.type)).toEqual(["session.configured"]);
  });
  it("the stdio transport's keep_alive frame is ignored at 0.3.x (counted, no event) and unknown at 0.2.62", () => {
    const now = createNormalizer({ surface: "claude-permission", ids: counterIds() });
    expect(now.push({ type: "keep_alive" })).toEqual([]);
    expect(now.stats().unknown).toBe(0);
    const old = createNormalizer({ surface: "claude-permission", ids: counterIds(), upstreamVersion: "2.1.62" });
    expect(old.push({ type: "keep_alive" }).map((e) => e.type)).toEqual(["runtime.warning"]);
  });
});
