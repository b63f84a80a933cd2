/**
 * The input forms readers take besides NDJSON (src/capture/unwrap.ts): JSON written over several lines — messages
 * pretty-printed one after another, or one document holding the stream in a `messages` / `events` array.
 */
import { describe, expect, it } from "vitest";
import { documentMessages, jsonValues, mayBeDocument, streamIn } from "../src/capture/unwrap.js";

describe("jsonValues: the JSON values of a text, one after another", () => {
  it("splits pretty-printed values at their ends, whatever the line breaks", () => {
    const a = { type: "x", text: "a } ] { [ \" brace", n: [1, { b: "}" }] };
    const b = { type: "y", s: "back\\slash \\\" quote" };
    const text = `\uFEFF${JSON.stringify(a, null, 2)}\n\n${JSON.stringify(b, null, 4)}  ${JSON.stringify([1, 2])}\r\n`;
    expect(jsonValues(text)).toEqual([a, b, [1, 2]]);
  });
  it("is undefined for anything that is not such a sequence", () => {
    for (const bad of ['{"a":1} x', '{"a":1', '{"a":1}}', '"str"', "42", '{"a": tru}', '{"a":"unterminated}']) expect(jsonValues(bad), bad).toBeUndefined();
    expect(jsonValues("")).toEqual([]);
  });
});

describe("documentMessages / streamIn / mayBeDocument", () => {
  it("one document holding a stream gives its messages (or events); several values are the messages themselves", () => {
    const msgs = [{ type: "a" }, { type: "b" }];
    expect(documentMessages(JSON.stringify({ meta: { n: 2 }, messages: msgs }, null, 2))).toEqual(msgs);
    expect(documentMessages(JSON.stringify({ events: msgs }))).toEqual(msgs);
    // one value holding no stream is one message
    expect(documentMessages(JSON.stringify({ type: "a", messages: ["not", "objects"] }, null, 2))).toEqual([{ type: "a", messages: ["not", "objects"] }]);
    expect(documentMessages(msgs.map((m) => JSON.stringify(m, null, 2)).join("\n"))).toEqual(msgs);
    expect(documentMessages("{ not json")).toBeUndefined();
    expect(streamIn({ messages: [] })).toBeUndefined();
    expect(streamIn([{ type: "a" }])).toBeUndefined();
    // any other name: the one field holding a list of objects, in a document that is no message itself
    expect(streamIn({ name: "run", records: msgs, tags: ["x"] })).toEqual(msgs);
    expect(streamIn({ records: msgs, other: [{ a: 1 }] })).toBeUndefined();
    expect(streamIn({ type: "system", mcp_servers: [{ name: "s" }] })).toBeUndefined();
    expect(streamIn({ method: "m", params: {}, items: msgs })).toBeUndefined();
    expect(streamIn({ messages: msgs, other: [{ a: 1 }] })).toEqual(msgs);
  });
  it("a reader reads the input whole only when it starts with '{' over several lines, or is that one line", () => {
    expect(mayBeDocument("{", false)).toBe(true);
    expect(mayBeDocument('  "messages": [', false)).toBe(false);
    expect(mayBeDocument('{"type":"a"}', false)).toBe(false);
    expect(mayBeDocument('{"type":"a"}', true)).toBe(true);
    expect(mayBeDocument("\uFEFF{", false)).toBe(true);
  });
});
