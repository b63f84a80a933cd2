import { describe, expect, it } from "vitest";
import { counterIds, createNormalizer, toClaudePermissionResult } from "../src/index.js";

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
    expect(out.map((e) => [e.type, (e.payload as any).decision])).toEqual([["request.resolved", "deny"]]);
  });
});
