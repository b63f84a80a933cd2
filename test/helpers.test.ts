import { describe, expect, it } from "vitest";
import { appendText, decisionName, decodeChunk, inc, itemTitle, joinText, parseJson, planSteps, str } from "../src/helpers.js";
import { joinKey } from "../src/normalize/row-util.js";

describe("row helpers", () => {
  it("decodeChunk: base64 → UTF-8 text, byte arrays, plain text passes through, bad input → undefined", () => {
    expect(decodeChunk(Buffer.from("héllo\nwörld", "utf8").toString("base64"))).toBe("héllo\nwörld");
    expect(decodeChunk([104, 105])).toBe("hi");
    expect(decodeChunk("not base64!")).toBe("not base64!");
    expect(decodeChunk([300])).toBeUndefined();
    expect(decodeChunk(42)).toBeUndefined();
    expect(decodeChunk(Buffer.from([0xff, 0x41]).toString("base64"))).toBe("\uFFFDA");
  });
  it("decisionName, joinText, str, num", () => {
    expect(decisionName("accept")).toBe("accept");
    expect(decisionName({ acceptWithExecpolicyAmendment: { x: 1 } })).toBe("acceptWithExecpolicyAmendment");
    expect(decisionName({ a: 1, b: 2 })).toBeUndefined();
    expect(joinText(["a", null, "b"])).toBe("a\n\nb");
    expect(str(null)).toBeUndefined();
    expect(str(3)).toBe("3");
  });
  it("itemTitle and planSteps", () => {
    expect(itemTitle({ command: ["bash", "-lc", "ls"] })).toBe("bash -lc ls");
    // argv is shown as the shell line Codex streams live for the same command (quoted where needed)
    expect(itemTitle({ command: ["/bin/bash", "-lc", "cat missing.txt"] })).toBe("/bin/bash -lc 'cat missing.txt'");
    expect(itemTitle({ command: ["sh", "-c", "echo 'hi'", ""] })).toBe(`sh -c 'echo '"'"'hi'"'"'' ''`);
    expect(itemTitle({ changes: [{ path: "a.ts" }, { path: "b.ts" }] })).toBe("a.ts, b.ts");
    expect(planSteps([{ text: "a", completed: true }, { step: "b", status: "in_progress" }, { content: "c" }])).toEqual([
      { step: "a", status: "completed" }, { step: "b", status: "inProgress" }, { step: "c", status: "pending" },
    ]);
  });
  it("appendText, parseJson, joinKey, inc", () => {
    expect(appendText(undefined, "{")).toBe("{");
    expect(appendText("{", 3)).toBe("{");
    expect(parseJson('{"a": ')).toBeUndefined();
    expect(parseJson('{"a": 1}')).toEqual({ a: 1 });
    expect(parseJson('{"a": "}')).toBeUndefined();
    expect(parseJson("42")).toBeUndefined();
    expect(joinKey("msg_1", 0)).toBe("msg_1:0");
    expect(joinKey("msg_1", undefined)).toBeUndefined();
    expect(inc(undefined)).toBe(1);
    expect(inc(2)).toBe(3);
  });
});
