import { describe, expect, it } from "vitest";
import { decodeChunk } from "../mappings/helpers/codex.js";
import { add, concat, joinKey, json, objects, str, tagOf, text, variantOf } from "../src/normalize/row-util.js";

describe("codex helpers", () => {
  it("decodeChunk: base64 → UTF-8 text, byte arrays, plain text passes through, bad input → undefined", () => {
    expect(decodeChunk(Buffer.from("héllo\nwörld", "utf8").toString("base64"))).toBe("héllo\nwörld");
    expect(decodeChunk([104, 105])).toBe("hi");
    expect(decodeChunk("not base64!")).toBe("not base64!");
    expect(decodeChunk([300])).toBeUndefined();
    expect(decodeChunk(42)).toBeUndefined();
    expect(decodeChunk(Buffer.from([0xff, 0x41]).toString("base64"))).toBe("\uFFFDA");
  });
});

describe("the DSL's value operators", () => {
  it("$str: strings and finite numbers as text; null and other values are absent", () => {
    expect(str("a")).toBe("a");
    expect(str(3)).toBe("3");
    expect(str(null)).toBeUndefined();
    expect(str(Number.NaN)).toBeUndefined();
    expect(str({})).toBeUndefined();
  });
  it("$text: a string, or the parts of a list (strings, typed blocks, untyped blocks) joined", () => {
    expect(text(["a", null, "b"], "\n\n", "strings", false)).toBe("a\n\nb");
    expect(text(["ls", "", "pwd"], ", ", "strings", true)).toBe("ls, pwd");
    expect(text([], ", ", "strings", true)).toBeUndefined();
    expect(text("", "\n", "blocks", true)).toBeUndefined();
    expect(text("", "", "untypedBlocks", false)).toBe("");
    expect(text([{ type: "text", text: "a" }, { type: "image" }, { text: "b" }, { type: "text", text: "c" }], "\n", "blocks", true)).toBe("a\nc");
    expect(text([{ type: "text", text: "a" }, { type: "image" }, { text: "b" }], "", "untypedBlocks", false)).toBe("ab");
    expect(text(42, "", "strings", false)).toBeUndefined();
  });
  it("$tag and $variant: externally tagged values", () => {
    expect(tagOf("accept")).toBe("accept");
    expect(tagOf({ acceptWithExecpolicyAmendment: { x: 1 } })).toBe("acceptWithExecpolicyAmendment");
    expect(tagOf({ shellToolCall: { args: {} }, extra: 1 })).toBe("shellToolCall");
    expect(tagOf({ a: 1, b: 2 })).toBeUndefined();
    expect(tagOf({})).toBeUndefined();
    expect(variantOf({ shellToolCall: { args: { command: "ls" } } })).toEqual({ args: { command: "ls" } });
    expect(variantOf("x")).toBeUndefined();
  });
  it("$json: complete object/array texts only", () => {
    expect(json('{"a": ')).toBeUndefined();
    expect(json('{"a": 1}')).toEqual({ a: 1 });
    expect(json('{"a": "}')).toBeUndefined();
    expect(json("42")).toBeUndefined();
  });
  it("$concat, $add, $join, $list's objects", () => {
    expect(concat(undefined, "{")).toBe("{");
    expect(concat("{", 3)).toBe("{");
    expect(add(undefined, 1)).toBe(1);
    expect(add(2, 1)).toBe(3);
    expect(joinKey("msg_1", 0)).toBe("msg_1:0");
    expect(joinKey("msg_1", undefined)).toBeUndefined();
    expect(objects([1, null, { a: 1 }, "x", [2]])).toEqual([{ a: 1 }, [2]]);
    expect(objects(undefined)).toEqual([]);
  });
});
