/**
 * `agentnorm view` without a browser: input detection, the data a page embeds, safe embedding, self-containment,
 * the transcript model, and the CLI. The page in a real browser: test/viewer.browser.test.ts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { COMPATIBILITY } from "./support/compatibility.js";
import { createCaptureWriter } from "../src/capture/capture.js";
import { detectInput, loadInput, viewerData, ViewerInputError } from "../src/view/data.js";
import { matrixHtml, scriptJson, viewerHtml } from "../src/view/html.js";
import { transcriptView } from "../src/view/transcript-view.js";
import type { TranscriptBlock } from "../src/view/types.js";
import { markdownHtml } from "../src/view/markdown.js";
import { isRetrying, requestKind } from "../src/view/labels.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import fc from "fast-check";
import { embeddedData, longStream, problemCapture, problemStream, viewerFixtures } from "./support/viewer.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-view-test-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const ndjson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).join("\n") + "\n";
const read = (f: string) => readFileSync(join(ROOT, f), "utf8");

/** Everything in the page that would load something: src/href attributes, url(), @import. */
function networkRefs(html: string): string[] {
  const refs: string[] = [];
  for (const m of html.matchAll(/\b(?:src|href|action|poster|srcset)\s*=\s*["']?([^"'\s>]+)/gi)) refs.push(m[0]);
  for (const m of html.matchAll(/url\(\s*["']?(?!data:)([^)"']+)/gi)) refs.push(m[0]);
  for (const m of html.matchAll(/@import/gi)) refs.push(m[0]);
  for (const m of html.matchAll(/<(?:link|iframe|object|embed)\b/gi)) refs.push(m[0]);
  return refs;
}
function allBlocks(bs: TranscriptBlock[]): TranscriptBlock[] {
  return bs.flatMap((b) => [b, ...allBlocks(b.children ?? [])]);
}

describe("scriptJson (data embedded in a <script> element)", () => {
  it("escapes what could end or confuse the element, and parses back unchanged", () => {
    const v = { a: "</script><script>alert(1)</script>", b: "<!-- x -->", c: "line\u2028sep\u2029par", d: "&amp; > <" };
    const s = scriptJson(v);
    expect(s).not.toMatch(/<\/script/i);
    expect(s).not.toContain("<!--");
    expect(s).not.toContain("\u2028");
    expect(s).not.toContain("\u2029");
    expect(s).not.toMatch(/[<>&]/);
    expect(JSON.parse(s)).toEqual(v);
  });
});

describe("viewer input", () => {
  it("detects a capture, a canonical stream and native messages", () => {
    expect(detectInput({ schemaVersion: 1, captureId: "c", stage: "native_in", eventType: "x", payload: {} })).toBe("capture");
    expect(detectInput({ schemaVersion: 1, sequence: 1, stage: "normalized_out", eventType: "x", payload: {} })).toBe("capture"); // a sanitized fixture
    expect(detectInput(problemStream()[0])).toBe("canonical");
    expect(detectInput({ method: "turn/started", params: {} })).toBe("native");
    expect(detectInput("not json")).toBe("native");
  });

  it("native messages need --from, and an unknown surface is refused", () => {
    const text = read("fixtures/codex-app-server/approval-session.ndjson");
    expect(() => loadInput(text)).toThrow(ViewerInputError);
    expect(() => loadInput(text)).toThrow(/--from/);
    expect(() => loadInput(text, { from: "nope" })).toThrow(/unknown surface "nope"/);
    expect(() => loadInput("\n\n")).toThrow(/empty/);
  });

  it("a native recording: every event links to the message behind it (raw.payload lives once, in natives)", () => {
    const text = read("fixtures/recorded/codex-app-server/shell.ndjson");
    const lines = text.split("\n").filter((l) => l.trim());
    const loaded = loadInput(text, { from: "codex-app-server" });
    expect(loaded.kind).toBe("native");
    expect(loaded.natives.length).toBe(lines.length);
    expect(loaded.events.length).toBeGreaterThan(10);
    for (const e of loaded.events) {
      expect((e.raw as any)?.payload, `#${e.sequence} keeps no raw.payload`).toBeUndefined();
      expect(e.native, `#${e.sequence} ${e.type} links to a native`).toBeTypeOf("number");
      expect(loaded.natives[e.native!].events).toContain(e.sequence);
    }
    // The native behind item.started of the command is the line that carried it.
    const start = loaded.events.find((e) => e.type === "item.started" && (e.payload as any).itemType === "command_execution")!;
    const n = loaded.natives[start.native!];
    expect(JSON.parse(lines[n.line! - 1])).toEqual(n.payload);
    expect((n.payload as any).message.method).toBe("item/started");
    expect(n.dir).toBe("in");
  });

  it("a canonical stream: consecutive events with the same raw.payload share one native", () => {
    const evs = problemStream();
    const loaded = loadInput(ndjson(evs));
    expect(loaded.kind).toBe("canonical");
    expect(loaded.events.map((e) => e.sequence)).toEqual(evs.map((e) => e.sequence));
    // Every event has a raw.payload (null for one): distinct consecutive payloads → distinct natives.
    const unknown = loaded.events.find((e) => e.raw?.rule === "agentnorm#unknown")!;
    expect(loaded.natives[unknown.native!].payload).toEqual({ method: "x/y", params: {} });
    const ended = loaded.events.find((e) => e.raw?.rule === "agentnorm#end")!;
    expect(ended.native).toBeUndefined();
  });

  it("a canonical line that is not an event, or not JSON, is an error problem naming its line; the rest is shown", () => {
    const said: [number, string][] = [];
    const loaded = loadInput(ndjson([problemStream()[0], { eventId: "evt_2", sequence: "2", type: 3, payload: {} }]) + "{not json\n", { onLineProblem: (l, m) => said.push([l, m]) });
    expect(loaded.events.map((e) => e.sequence)).toEqual([problemStream()[0].sequence]);
    expect(loaded.problems).toEqual([
      { kind: "error", message: "line 2: not a canonical event (needs at least sequence and type)" },
      { kind: "error", message: "line 3: not valid JSON" },
    ]);
    expect(said.map(([l]) => l)).toEqual([2, 3]);
  });

  it("a capture: normalized_out events, their redactions, and the native_in before them", () => {
    const text = problemCapture();
    expect(text).not.toContain("sk-proj-");
    const loaded = loadInput(text);
    expect(loaded.kind).toBe("capture");
    expect(loaded.events.length).toBe(problemStream().length);
    expect(loaded.problems.map((r) => [r.sequence, r.kind])).toEqual([[3, "redaction"], [6, "redaction"]]);
    expect(loaded.problems[0].message).toBe("env at /payload/payload/data/env/OPENAI_API_KEY");
    expect(loaded.problems[1].message).toBe("secret_field at /payload/payload/data/headers/authorization");

    // A sanitized fixture of src/capture/capture.ts (no captureId/timestamp): native_in + normalized_out (without
    // raw.payload) + legacy_out. Each event links to the native_in line before it.
    const w = createCaptureWriter({ provider: "codex", source: "codex-app-server" });
    const [e1, e2] = problemStream().map((e) => ({ ...e, raw: { ...e.raw, payload: null } }));
    const strip = (line: string) => { const { captureId: _c, timestamp: _t, ...r } = JSON.parse(line); return JSON.stringify(r) + "\n"; };
    const cap = [
      w.line("native_in", "a", { method: "a", params: { token: "t0ps3cret" } }, { sessionId: "ses_1", turnId: null, direction: "in" }),
      w.line("normalized_out", e1.type, e1, { sessionId: "ses_1", turnId: null }),
      w.line("legacy_out", "[MESSAGE_START]", "[MESSAGE_START]", { sessionId: "ses_1", turnId: null }),
      w.line("native_in", "b", { method: "b" }, { sessionId: "ses_1", turnId: null, direction: "out" }),
      w.line("normalized_out", e2.type, e2, { sessionId: "ses_1", turnId: "trn_1" }),
    ].map(strip).join("");
    const l2 = loadInput(cap);
    expect(l2.kind).toBe("capture");
    expect(l2.natives.map((n) => n.payload)).toEqual([{ method: "a", params: { token: "<REDACTED:secret_field>" } }, { method: "b" }]);
    expect(l2.natives.map((n) => [n.line, n.dir])).toEqual([[1, "in"], [4, "out"]]);
    expect(l2.events.map((e) => e.native)).toEqual([0, 1]);
    expect(l2.problems).toEqual([{ kind: "redaction", sequence: 1, message: "native line 1: secret_field at /payload/params/token" }]);

    // A bad line is an error problem naming its line and field; the rest is read.
    const bad = cap.split("\n");
    bad[3] = bad[3].replace(`"stage":"native_in"`, `"stage":"elsewhere"`);
    const l3 = loadInput(bad.join("\n"));
    expect(l3.problems.filter((p) => p.kind === "error").map((p) => p.message)).toEqual([expect.stringMatching(/^capture line 4: stage: must be one of/)]);
    expect(l3.events.length).toBe(2);
  });

  it("a capture with only native_in is normalized with --from", () => {
    const lines = read("fixtures/recorded/codex-app-server/plain.ndjson").split("\n").filter((l) => l.trim());
    const w = createCaptureWriter({ provider: "codex" });
    const cap = lines.map((l) => { const { dir, message } = JSON.parse(l); return w.line("native_in", "x", message, { sessionId: null, turnId: null, direction: dir }); }).join("");
    expect(() => loadInput(cap)).toThrow(/--from/);
    const loaded = loadInput(cap, { from: "codex-app-server" });
    const direct = loadInput(lines.join("\n"), { from: "codex-app-server" });
    expect(loaded.events.map((e) => e.type)).toEqual(direct.events.map((e) => e.type));
    expect(loaded.natives.length).toBe(lines.length);
  });
});

describe("viewer data", () => {
  it("problems: verifier violations, runtime errors, warnings and unknown passthrough by sequence, capture redactions, accumulator repairs", () => {
    const data = viewerData(loadInput(problemCapture()));
    const by = (k: string) => data.problems.filter((p) => p.kind === k).map((p) => p.sequence);
    expect(by("unknown")).toEqual([5]);
    expect(by("warning")).toEqual([7]);
    expect(by("error")).toEqual([8]);
    expect(by("redaction")).toEqual([3, 6]);
    expect(by("violation")).toEqual([9]);
    expect(by("repair")).toEqual([9]);
    expect(data.problems.find((p) => p.kind === "violation")!.message).toMatch(/^\[after-completion\] /);
    expect(data.meta.verified).toBe(true);
  });

  it("the transcript: a tool card with its command, output, status and duration, built from its events' sequences", () => {
    const t = transcriptView(problemStream());
    expect(t.turns.length).toBe(1);
    const tool = allBlocks(t.turns[0].blocks).find((b) => b.kind === "tool")!;
    expect(tool).toMatchObject({ id: "itm_1:tool", status: "completed", detail: { command: "echo hi" }, output: "hi\n", durationMs: 12 });
    expect(tool.seqs).toEqual([3, 4, 6, 9]);
    expect(t.turns[0].seqs).toEqual([2, 10]);
    expect(t.turns[0].state).toBe("completed");
  });

  it("the transcript: thinking, permission under its tool with the decision, questions, plan, diff, nested activity", () => {
    const loaded = loadInput(read("fixtures/codex-app-server/approval-session.ndjson"), { from: "codex-app-server" });
    const t = transcriptView(loaded.events);
    const blocks = allBlocks([...t.preamble, ...t.turns.flatMap((x) => x.blocks)]);
    const kinds = new Set(blocks.map((b) => b.kind));
    for (const k of ["user", "thinking", "tool", "permission", "question", "plan", "diff", "text"]) expect(kinds, k).toContain(k);
    const cmd = blocks.find((b) => b.kind === "tool" && b.subtype === "command_execution" && b.children?.some((c) => c.kind === "permission"))!;
    expect(cmd, "a command card holds its approval").toBeDefined();
    expect(cmd.children!.find((c) => c.kind === "permission")!.status).toMatch(/allow_once/);
    expect(cmd.output).toContain("passed");
    const diff = blocks.find((b) => b.kind === "diff")!;
    expect(diff.diff).toMatch(/^\+/m);
    // Every event sequence a block names exists, and blocks' sequences ascend.
    const seqs = new Set(loaded.events.map((e) => e.sequence));
    for (const b of blocks) {
      for (const s of b.seqs) expect(seqs.has(s)).toBe(true);
      expect([...b.seqs].sort((a, c) => a - c)).toEqual(b.seqs);
    }
    // Nested activity: an event with parentId hangs under its parent's card.
    const nested = transcriptView([
      { sequence: 1, type: "turn.started", sessionId: "ses_1", turnId: "trn_1", payload: {} },
      { sequence: 2, type: "item.started", sessionId: "ses_1", turnId: "trn_1", itemId: "itm_1", payload: { itemType: "collab_agent_tool_call", title: "subagent" } },
      { sequence: 3, type: "item.started", sessionId: "ses_1", turnId: "trn_1", itemId: "itm_2", parentId: "itm_1", payload: { itemType: "command_execution", command: "ls" } },
      { sequence: 4, type: "content.delta", sessionId: "ses_1", turnId: "trn_1", itemId: "itm_3", parentId: "itm_1", payload: { streamKind: "assistant_text", delta: "sub says hi" } },
    ]);
    expect(nested.turns[0].blocks.length).toBe(1);
    expect(nested.turns[0].blocks[0].children?.map((c) => [c.id, c.kind])).toEqual([["itm_2:tool", "tool"], ["itm_3:text", "text"]]);
    expect(nested.turns[0].blocks[0].children?.[0]).toMatchObject({ detail: { command: "ls" }, title: "ls" });
    expect(nested.repairs).toEqual([]);
  });
});

describe("viewer on real streams: names, requests, retries, counts", () => {
  const schema = JSON.parse(read("generated/canonical.schema.json"));
  const REQUEST_TYPES: string[] = (schema.definitions ?? schema.$defs).CanonicalRequestType.enum;

  it("requests are named for what they are, from the canonical request type and options", () => {
    expect(REQUEST_TYPES.length).toBeGreaterThan(5);
    for (const t of REQUEST_TYPES) {
      const k = requestKind(t);
      expect(k.label, t).not.toMatch(/_/);
      if (t.endsWith("_approval")) expect(k.kind, t).toBe("permission");
      else expect(k.kind, t).not.toBe("permission"); // host tool calls, auth refresh, user input are no permissions
    }
    expect(requestKind("dynamic_tool_call")).toEqual({ kind: "request", label: "host tool call" });
    expect(requestKind("auth_tokens_refresh")).toEqual({ kind: "request", label: "auth refresh" });
    expect(requestKind("tool_user_input")).toEqual({ kind: "question", label: "user input" });
    // A request of no specific type that offers allow/reject options (or was decided so) is a permission.
    expect(requestKind("unknown", [{ decision: "allow_once" }, { decision: "reject_once" }]).kind).toBe("permission");
    expect(requestKind("unknown", undefined, "reject_always").kind).toBe("permission");
    expect(requestKind("unknown", [{ decision: "answered" }])).toEqual({ kind: "request", label: "request" });
    expect(requestKind("dynamic_tool_call", [{ decision: "completed" }]).label).toBe("host tool call");
  });

  it("a retrying runtime error is a warning; a final one an error (codex app-server, willRetry in the canonical detail)", () => {
    const loaded = loadInput(read("fixtures/codex-app-server/error-and-interrupt.ndjson"), { from: "codex-app-server" });
    const errors = loaded.events.filter((e) => e.type === "runtime.error");
    const retry = errors.find((e) => isRetrying(e.payload))!;
    const final = errors.find((e) => !isRetrying(e.payload) && /retry limit/.test((e.payload as any).message))!;
    expect(retry, "the fixture has a retrying error").toBeDefined();
    expect(final, "and a final one").toBeDefined();
    const data = viewerData(loaded);
    const at = (seq: number) => data.problems.filter((p) => p.sequence === seq).map((p) => p.kind);
    expect(at(retry.sequence)).toEqual(["warning"]);
    expect(data.problems.find((p) => p.sequence === retry.sequence)!.message).toMatch(/^retrying: Reconnecting/);
    expect(at(final.sequence)).toEqual(["error"]);
    const blocks = allBlocks([...data.transcript.preamble, ...data.transcript.turns.flatMap((t) => t.blocks)]);
    const card = (seq: number) => blocks.find((b) => b.seqs.includes(seq) && (b.kind === "notice" || b.kind === "error"))!;
    expect(card(retry.sequence)).toMatchObject({ kind: "notice", retrying: true, label: "retrying" });
    expect(card(final.sequence).kind).toBe("error");
    expect(card(final.sequence).retrying).toBeUndefined();
  });

  it("permission cards carry the canonical options and decision; other requests are request cards", () => {
    const loaded = loadInput(read("fixtures/recorded/acp/claude-code/approval.ndjson"), { from: "acp" });
    const opened = loaded.events.find((e) => e.type === "request.opened")!;
    const resolved = loaded.events.find((e) => e.type === "request.resolved" && e.requestId === opened.requestId)!;
    const t = transcriptView(loaded.events);
    const blocks = allBlocks(t.turns.flatMap((x) => x.blocks));
    const perm = blocks.find((b) => b.id === `${opened.requestId}:request`)!;
    expect(perm.kind).toBe("permission"); // requestType unknown, but it offers allow/reject
    expect(perm.options).toEqual((opened.payload as any).options.map((o: any) => ({ decision: o.decision, ...(o.label ? { label: o.label } : {}) })));
    expect(perm.options!.length).toBeGreaterThan(1);
    expect(perm.decision).toBe((resolved.payload as any).decision);
    // It sits under the tool it gates.
    expect(blocks.find((b) => b.kind === "tool" && b.children?.includes(perm))).toBeDefined();

    const ev = (sequence: number, type: string, payload: unknown, extra: Record<string, unknown> = {}) => ({ eventId: `evt_${sequence}`, sequence, type, sessionId: "ses_1", turnId: "trn_1", payload, ...extra });
    const other = transcriptView([
      ev(1, "turn.started", {}),
      ev(2, "request.opened", { requestType: "dynamic_tool_call", detail: "lookup_ticket", args: { tool: "lookup_ticket" } }, { requestId: "req_1" }),
      ev(3, "request.resolved", { requestType: "dynamic_tool_call", decision: "completed" }, { requestId: "req_1" }),
      ev(4, "request.opened", { requestType: "auth_tokens_refresh", detail: "unauthorized" }, { requestId: "req_2" }),
      ev(5, "request.opened", { requestType: "tool_user_input" }, { requestId: "req_3" }),
    ]);
    const cards = allBlocks(other.turns[0].blocks);
    expect(cards.map((b) => [b.id, b.kind, b.label])).toEqual([["req_1:request", "request", "host tool call"], ["req_2:request", "request", "auth refresh"], ["req_3:request", "question", "user input"]]);
    expect(cards[0]).toMatchObject({ title: "lookup_ticket", decision: "completed", status: "completed" });
    expect(cards[1]).toMatchObject({ status: "open" });
    expect(cards[1].decision).toBeUndefined();
  });

  it("a capture's header counts are the ones `capture check` reports (every stage's redactions, bad lines)", () => {
    const files = viewerFixtures(ROOT).filter((f) => f.surface === "capture").map((f) => f.file);
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) {
      const text = read(f);
      const data = viewerData(loadInput(text));
      const c = data.meta.capture!;
      const recs = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      expect(c.lines, f).toBe(recs.length);
      expect(c.records, f).toBe(recs.length);
      expect(c.redactions, f).toBe(recs.reduce((a, r) => a + r.redactions.length, 0));
      expect(data.problems.filter((p) => p.kind === "redaction").length, f).toBe(c.redactions);
      for (const st of ["native_in", "normalized_out", "legacy_out"]) expect(c.stages[st], f).toBe(recs.filter((r) => r.stage === st).length);
    }
    // A legacy_out redaction counts too, and a bad line is a problem on both sides.
    const lines = problemCapture().split("\n").filter(Boolean);
    const legacy = { ...JSON.parse(lines[2]), stage: "legacy_out", eventType: "legacy", payload: "[TOOL] <REDACTED>", redactions: [{ path: "/payload", kind: "secret_field" }] };
    const text = [...lines.slice(0, 3), JSON.stringify({ ...legacy, sequence: 4 }), ...lines.slice(3).map((l) => { const o = JSON.parse(l); return JSON.stringify({ ...o, sequence: o.sequence + 1 }); }), "{not json"].join("\n");
    const data = viewerData(loadInput(text));
    expect(data.meta.capture).toMatchObject({ redactions: 3, problems: 1, stages: { legacy_out: 1 } });
    expect(data.problems.filter((p) => p.kind === "redaction").length).toBe(3);
    expect(data.problems.some((p) => p.kind === "error" && /^capture line \d+/.test(p.message))).toBe(true);
  });

  it("random canonical ids keep distinct short labels in the page (no common-prefix cut)", () => {
    const n = createNormalizer({ surface: "codex-app-server", includeRaw: true });
    const lines = read("fixtures/codex-app-server/approval-session.ndjson").split("\n").filter(Boolean);
    const evs = [...lines.flatMap((l) => n.pushLine(l)), ...n.end()];
    const items = [...new Set(evs.map((e) => e.itemId).filter(Boolean))] as string[];
    expect(items.length).toBeGreaterThan(3);
    // The ids share a long prefix: cutting them would make them all look the same.
    expect(new Set(items.map((i) => i.slice(0, 14))).size).toBe(1);
    const data = viewerData(loadInput(ndjson(evs.map((e) => JSON.parse(JSON.stringify(e))))));
    expect(data.events.length).toBe(evs.length); // the labels themselves are made in the page (viewer.browser.test.ts)
  });
});

describe("Markdown renderer (no HTML passthrough)", () => {
  it("renders what agents write", () => {
    const h = markdownHtml("# Plan\nSome **bold**, *it*, `a<b>` and ~~old~~.\n\n- one\n- [x] done\n\n1. first\n2. second\n\n```ts\nconst x = 1 < 2;\n```\n\n> note\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n---\n[docs](https://example.com/x)");
    expect(h).toContain(`<h3 class="md-h">Plan</h3>`);
    expect(h).toContain("<strong>bold</strong>");
    expect(h).toContain("<em>it</em>");
    expect(h).toContain("<code>a&lt;b&gt;</code>");
    expect(h).toContain("<del>old</del>");
    expect(h).toContain("<ul><li>one</li><li class=\"task\"><span class=\"md-check\">☑</span> done</li></ul>");
    expect(h).toContain("<ol><li>first</li><li>second</li></ol>");
    expect(h).toContain(`<pre class="md-code" data-lang="ts"><code>const x = 1 &lt; 2;</code></pre>`);
    expect(h).toContain("<blockquote><p>note</p></blockquote>");
    expect(h).toContain(`<th style="text-align:right">b</th>`);
    expect(h).toContain("<hr>");
    // Links are shown, not followed: no href anywhere.
    expect(h).toContain(`<span class="md-link">docs</span> <span class="md-url">(https://example.com/x)</span>`);
    expect(markdownHtml("snake_case_name and 2*3*4")).toBe("<p>snake_case_name and 2*3*4</p>");
  });

  it("HTML in the text is text: <script>, event handlers, javascript: links", () => {
    const h = markdownHtml(`<script>alert(1)</script>\n<img src=x onerror="alert(1)">\n[x](javascript:alert(1))\n**<b>bold</b>**\n\`\`\`\n</code></pre><script>\n\`\`\``);
    expect(h).not.toMatch(/<(script|img|b)\b/i);
    expect(h).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(h).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(h).toContain("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;");
    expect(h).not.toContain("href");
  });

  it("for any input, the output has only the renderer's own tags and attributes", () => {
    const TAGS = new Set(["p", "br", "strong", "em", "del", "code", "pre", "span", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "hr"]);
    const ATTR = /^(class="(md-[a-z]+|task)"|data-lang="[^"<>]*"|start="\d+"|style="text-align:(left|right|center)")$/;
    const alphabet = fc.constantFrom("<", ">", "&", "\"", "'", "*", "_", "`", "~", "[", "]", "(", ")", "#", "-", "|", ":", ">", " ", "\n", "a", "1", ".", "script", "img", "onerror=", "javascript:", "https://x");
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 60 }).map((xs) => xs.join("")), (src) => {
      const h = markdownHtml(src);
      for (const m of h.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)) {
        if (!TAGS.has(m[1])) return false;
        for (const a of m[2].trim().match(/[a-z-]+="[^"]*"/g) ?? []) if (!ATTR.test(a)) return false;
        if (m[2].trim().replace(/[a-z-]+="[^"]*"/g, "").trim()) return false;
      }
      // No raw < outside the renderer's tags.
      return !/<(?!\/?(p|br|strong|em|del|code|pre|span|h[3-6]|ul|ol|li|blockquote|table|thead|tbody|tr|th|td|hr)\b)/.test(h);
    }), { numRuns: 400, seed: 20 });
  });
});

describe("viewer page", () => {
  const pages = viewerFixtures(ROOT).map((f) => ({ f, html: viewerHtml(viewerData(loadInput(read(f.file), { from: f.from }))) }));

  it("there is a fixture for several surfaces", () => {
    expect(new Set(pages.map((p) => p.f.surface)).size).toBeGreaterThanOrEqual(4);
  });

  it("is self-contained: inline CSS and JS, nothing that loads from anywhere", () => {
    for (const { f, html } of pages) {
      expect(networkRefs(html), f.label).toEqual([]);
      expect(html, f.label).not.toMatch(/(?:src|href)\s*=\s*["']?https?:\/\//i);
      expect(html).not.toMatch(/<script[^>]*\bsrc=/i);
      expect((html.match(/<script\b/g) ?? []).length).toBe(2);
      expect((html.match(/<\/script>/g) ?? []).length).toBe(2);
      expect(html).toContain("Content-Security-Policy");
      expect(html).toMatch(/default-src 'none'/);
    }
  });

  it("embeds the data so that it parses back exactly, even with </script> and U+2028 in payloads", () => {
    const data = viewerData(loadInput(ndjson(problemStream())));
    const html = viewerHtml(data);
    expect((html.match(/<\/script>/g) ?? []).length).toBe(2);
    expect(html).not.toContain("\u2028");
    expect(embeddedData(html)).toEqual(JSON.parse(JSON.stringify(data)));
    expect(JSON.stringify(embeddedData(html))).toContain("</script><script>alert(1)</script>");
  });

  it("the page script is the esbuild bundle of src/view/app.ts, inlined", () => {
    const html = pages[0].html;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    expect(script.length).toBeGreaterThan(5000);
    expect(script).toContain("agentnorm-data");
    expect(script).not.toMatch(/\bimport\s*[({"']|\brequire\(/);
  });

  it("a 100k-event stream makes one page (the timeline is virtualized in the page)", () => {
    const data = viewerData(loadInput(ndjson(longStream(1000, 96))));
    expect(data.events.length).toBe(100_000);
    expect(data.transcript.turns.length).toBe(1000);
    const html = viewerHtml(data);
    expect(embeddedData(html).events.length).toBe(100_000);
  });
});

describe("compatibility matrix page", () => {
  it("lists every canonical event type × surface from the generated matrix, self-contained", () => {
    const html = matrixHtml(COMPATIBILITY as any, "agentnorm test");
    expect(networkRefs(html)).toEqual([]);
    for (const t of COMPATIBILITY.canonicalEventTypes) expect(html).toContain(`<td class="mono">${t}</td>`);
    for (const s of Object.keys(COMPATIBILITY.surfaces)) expect(html).toContain(`<th>${s}</th>`);
    const ticks = (html.match(/<td class="y"/g) ?? []).length;
    const expected = Object.values(COMPATIBILITY.surfaces).reduce((n, s: any) => {
      const set = new Set<string>();
      for (const k of Object.values(s.kinds) as any[]) for (const m of Object.values(k.methods) as any[]) for (const e of m.events ?? []) set.add(e);
      return n + COMPATIBILITY.canonicalEventTypes.filter((t) => set.has(t)).length;
    }, 0);
    expect(ticks).toBe(expected);
    expect(ticks).toBeGreaterThan(20);
  });
});

describe("agentnorm view (CLI)", () => {
  const DIST = join(ROOT, "dist/src/cli/cli.js");
  const run = (args: string[]) => spawnSync(process.execPath, [DIST, ...args], { cwd: TMP, encoding: "utf8", maxBuffer: 64 << 20 });
  it.skipIf(!existsSync(DIST))("writes the page, summarises on stderr; usage errors exit 2; unreadable input exits 1", () => {
    const out = join(TMP, "shell.html");
    const r = run(["view", "--from", "codex-app-server", join(ROOT, "fixtures/recorded/codex-app-server/shell.ndjson"), "-o", out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/native input, \d+ event\(s\)/);
    const html = readFileSync(out, "utf8");
    expect(embeddedData(html).meta.surface).toBe("codex-app-server");
    // Default output name: <input>.html in the current directory.
    const canonical = join(TMP, "stream.ndjson");
    writeFileSync(canonical, ndjson(problemStream()));
    const d = run(["view", canonical]);
    expect(d.status, d.stderr).toBe(0);
    expect(existsSync(join(TMP, "stream.html"))).toBe(true);
    expect(d.stderr).toMatch(/1 unknown/);
    expect(run(["view"]).status).toBe(2);
    expect(run(["view", "--from", "nope", canonical]).status).toBe(2);
    const missing = run(["view", join(TMP, "missing.ndjson")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no such file/);
    // native messages without --from: the surface is detected and said
    const native = run(["view", join(ROOT, "fixtures/recorded/codex-app-server/shell.ndjson"), "-o", "-"]);
    expect(native.status, native.stderr).toBe(0);
    expect(native.stderr).toMatch(/detected codex-app-server native messages \(confidence \d+%/);
    expect(native.stdout).toMatch(/^<!doctype html>/);
    const m = run(["matrix", "--html"]);
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toMatch(/^<!doctype html>/);
    expect(m.stdout).toContain(`id="matrix"`);
  });

  it.skipIf(!existsSync(DIST))("a capture's counts in the page are what `agentnorm capture check` prints", () => {
    for (const f of viewerFixtures(ROOT).filter((x) => x.surface === "capture")) {
      const r = run(["capture", "check", join(ROOT, f.file)]);
      const m = /: (fixture|capture), (\d+) of (\d+) line\(s\) valid \(([^)]*)\), (\d+) redaction\(s\), (\d+) problem\(s\)/.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      const c = viewerData(loadInput(read(f.file))).meta.capture!;
      expect([c.kind, c.records, c.lines, Object.entries(c.stages).map(([k, n]) => `${k} ${n}`).join(", "), c.redactions, c.problems], f.file).toEqual([m![1], Number(m![2]), Number(m![3]), m![4], Number(m![5]), Number(m![6])]);
    }
  });
});
