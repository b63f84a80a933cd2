/**
 * A keyed text a row grows chunk by chunk (`set: [V, K], value: { $concat: [{ $var: [V, K] }, CHUNK] }`) and parses
 * with `$json` (Claude's streamed tool input): the generator turns the set into VarStore.append and the read into
 * VarStore.jsonAt, which keeps what the text says of itself as JSON as the chunks arrive. The value and what `$json`
 * gives must be exactly those of concat + json; the whole text is parsed only when it may be whole (reading it on
 * every chunk made a long tool input quadratic).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { VarStore } from "../src/normalize/var-store.js";
import { concat, json } from "../src/normalize/row-util.js";
import { createNormalizer } from "../src/index.js";
import { loadGenerator } from "./generator/gen.js";
import { rng } from "./support/secret-classes.js";


const PIECES = ["{", "}", "[", "]", '"', "\\", '\\"', "a", "1", ",", ":", " ", "\n", "\u00a0", "\\u00", "null", '"k":', "true"];

/** Texts that are JSON (some ending in white space), and texts that are not (cut, unbalanced, stray characters). */
function texts(): string[] {
  const r = rng(7);
  const out: string[] = [
    JSON.stringify({ command: "ls -la", description: 'a "quoted" {brace} [and] \\ back' }),
    JSON.stringify([1, { a: ["}", "]", "\\"] }, "x"]) + "  \n",
    '{"a": "\\\\"}',
    '{"a": "\\\\\\""}',
    "}{",
    "]",
    '{"a":1}\u00a0',
    '{"a":1} x',
    "  ",
    "",
  ];
  for (let i = 0; i < 1500; i++) {
    const n = 1 + Math.floor(r() * 14);
    let t = "";
    for (let j = 0; j < n; j++) t += PIECES[Math.floor(r() * PIECES.length)];
    out.push(t);
  }
  for (let i = 0; i < 300; i++) out.push(JSON.stringify({ k: String(i), v: [i, { s: "}]\\\"".repeat(i % 4) }] }) + (i % 3 ? "" : " "));
  return out;
}

/** `t` cut into chunks at random places (escapes and strings split across chunks). */
function chunks(t: string, r: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.length;) {
    const n = Math.floor(r() * 5);
    out.push(t.slice(i, i + n));
    i += n;
  }
  return out;
}

describe("a text appended chunk by chunk (VarStore.append / jsonAt)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("holds what concat builds, and jsonAt after every chunk gives what json of the text gives", () => {
    const r = rng(11);
    let checked = 0, parsed = 0;
    for (const t of texts()) {
      const store = new VarStore("json");
      let ref: unknown = r() < 0.3 ? "" : undefined;
      if (ref !== undefined) store.set("k", ref);
      for (const c of chunks(t, r)) {
        // a non-text part counts as "", as in concat
        const part = r() < 0.05 ? 42 : c;
        store.append("k", part);
        ref = concat(ref, part);
        expect(store.get("k")).toBe(ref);
        const want = json(ref);
        expect(store.jsonAt("k")).toEqual(want);
        checked++;
        if (want !== undefined) parsed++;
      }
    }
    expect(checked).toBeGreaterThan(5000);
    expect(parsed).toBeGreaterThan(100);
  });

  it("a value set otherwise is read once, then kept up chunk by chunk; set() and deleting forget what was kept", () => {
    const store = new VarStore("json");
    store.set("k", '{"a": "}');
    store.append("k", '"}');
    expect(store.jsonAt("k")).toEqual({ a: "}" });
    store.set("k", '["');
    store.append("k", "]");
    expect(store.jsonAt("k")).toBeUndefined();
    store.append("k", '"]');
    expect(store.jsonAt("k")).toEqual(["]"]);
    store.set("k", null);
    expect(store.jsonAt("k")).toBeUndefined();
    store.append("k", "[1]");
    expect(store.jsonAt("k")).toEqual([1]);
  });

  it("parses a long streamed text only when it may be whole, not on every chunk", () => {
    const text = JSON.stringify({ file_path: "/tmp/x.js", content: "function f() { return [1, 2]; }\n".repeat(400) });
    const store = new VarStore("json");
    const parse = vi.spyOn(JSON, "parse");
    let inputs = 0;
    // chunks that end in "}" or "]" again and again (json of the whole text would try to parse each time)
    for (const c of text.match(/[^}\]]*[}\]]|[^}\]]+$/g)!) {
      store.append("k", c);
      if (store.jsonAt("k") !== undefined) inputs++;
    }
    expect(text.match(/[}\]]/g)!.length).toBeGreaterThan(500);
    expect(inputs).toBe(1);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it("the generator appends where a set grows a keyed text by itself, and reads $json of a keyed variable through its store", async () => {
    const { emitMapper } = await loadGenerator();
    const rowBody = (emitMapper as any).rowBody as (r: unknown, surface: string) => string;
    const lit = (v: unknown) => ({ k: "lit", v });
    const path = (...segs: string[]) => ({ k: "path", root: "msg", segs });
    const key = [lit("json"), path("id")];
    const set = (value: unknown) => ({ k: "set", key, value, cond: [] });
    const row = (steps: unknown[]) => ({ rule: "r", kind: "notification", methods: ["m"], line: 1, when: [], ids: [], steps, examples: [] });
    const grows = rowBody(row([set({ k: "concat", items: [{ k: "var", key }, path("chunk")] }), { k: "emit", type: "x", cond: [], line: 1, payload: { k: "obj", entries: [["input", { k: "json", of: { k: "var", key } }]] } }]), "t");
    expect(grows).toContain("cx.appendVarIn(cx.vars.json, m?.id, m?.chunk);");
    expect(grows).toContain("input: cx.vars.json.jsonAt(m?.id)");
    // another variable first, or the variable not first: a plain set
    const other = rowBody(row([set({ k: "concat", items: [path("chunk"), { k: "var", key }] })]), "t");
    expect(other).toContain("cx.setVarIn(cx.vars.json, m?.id, concat(m?.chunk, ");
  });

  it("a Claude tool input streamed in thousands of chunks: the item's input once it parses, as before", () => {
    const n = createNormalizer({ surface: "claude-sdk" });
    const sid = "s1";
    const se = (uuid: string, event: unknown) => ({ type: "stream_event", session_id: sid, parent_tool_use_id: null, uuid, event });
    n.push(se("u1", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [] } }));
    n.push(se("u2", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "Write", input: {} } }));
    const input = { file_path: "/tmp/x.js", content: "if (a) { b(); }\n".repeat(600) };
    const text = JSON.stringify(input);
    const updates: any[] = [];
    for (let i = 0; i < text.length; i += 7) updates.push(...n.push(se(`d${i}`, { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: text.slice(i, i + 7) } })));
    expect(updates.length).toBe(Math.ceil(text.length / 7));
    expect(updates.every((e) => e.type === "item.updated")).toBe(true);
    const withInput = updates.filter((e) => e.payload.data.input !== undefined);
    expect(withInput).toHaveLength(1);
    expect(withInput[0]).toBe(updates.at(-1));
    expect(withInput[0].payload.data.input).toEqual(input);
  });
});
