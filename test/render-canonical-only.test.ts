/**
 * The render side reads canonical fields only (issue #33): every file under src/render, src/view, src/answer and
 * src/live is scanned, and a file fails when its code (comments left out)
 * - reads an event's `raw` or an item's provider-shaped `data`;
 * - reads inside a request's `args` or `resolution` (the provider's own tool input / reply);
 * - mentions a provider by name (codex, claude, opencode, cursor, gemini, acp, anthropic, openai — in identifiers and
 *   string literals); or
 * - names a provider method, message type or native field: every method the tables map or ignore
 *   (generated/compatibility.json) that is not a plain word or canonical vocabulary, plus the native fields the render
 *   side used to read (NATIVE_FIELDS).
 * What a file may do anyway is in ALLOWED, each entry with its reason; an entry that no longer matches anything fails
 * too, so the list only shrinks with the code. Scope: src/live's drivers and src/answer's reply shapers are the
 * provider-facing edge (they speak each provider's protocol, from the tables' live and answering sections): they are
 * allowed provider names, methods and native fields per file, and are still held to the raw / data rules.
 * Checked in behaviour too: an item whose `data` says something else renders from its typed fields, and every
 * fixture renders the same with its provider data stripped (a provider-blind render).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import { toChatEvents } from "../src/render/chat-event.js";
import { renderSnapshotText } from "../src/render/render-text.js";
import { renderTranscript } from "../src/render/transcript.js";
import { transcriptView } from "../src/view/transcript-view.js";
import { CANONICAL_EVENT_TYPES, CANONICAL_ITEM_TYPE_VALUES, CANONICAL_REQUEST_TYPE_VALUES, CONTENT_STREAM_KIND_VALUES } from "../generated/canonical.gen.js";

const ROOT = join(import.meta.dirname, "..");
const FOLDERS = ["src/render", "src/view", "src/answer", "src/live"];

const filesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : /\.(ts|mts|js|mjs)$/.test(d.name) ? [join(dir, d.name)] : []));
const FILES = FOLDERS.flatMap(filesUnder).map((f) => relative(ROOT, join(ROOT, f))).sort();

/** The source without comments (string literals kept: a provider method is usually one). */
function code(text: string): string {
  let out = "";
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "*") { const end = text.indexOf("*/", i + 2); i = end < 0 ? text.length : end + 2; out += " "; continue; }
    if (c === "/" && text[i + 1] === "/") { const end = text.indexOf("\n", i); i = end < 0 ? text.length : end; continue; }
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}
/** The same without string literals' contents (for property reads). */
const noStrings = (src: string) => src.replace(/`(?:\\.|[^`\\])*`/g, "``").replace(/"(?:\\.|[^"\\])*"/g, '""').replace(/'(?:\\.|[^'\\])*'/g, "''");

const PROVIDERS = ["codex", "claude", "opencode", "cursor", "gemini", "acp", "anthropic", "openai"];

/** Provider-named request types the canonical model still carries (#33 item 3 renames them): provider words here. */
const PROVIDER_NAMED_REQUEST_TYPES = ["apply_patch_approval", "exec_command_approval"];
/** Native fields the render side read before it read canonical fields only (and must not again). */
const NATIVE_FIELDS = ["aggregatedOutput", "aggregated_output", "updatedInput", "sessionUpdate", "tool_use_id", "tool_use", "tool_result", "content_block", "callID", "messageID", "sessionID", "canUseTool", "control_request", "control_response", "requestApproval", ...PROVIDER_NAMED_REQUEST_TYPES];

/** Canonical vocabulary: never a provider's word here, even when a table's method has the same spelling. */
const CANONICAL = new Set<string>([...CANONICAL_EVENT_TYPES, ...CANONICAL_ITEM_TYPE_VALUES, ...CANONICAL_REQUEST_TYPE_VALUES.filter((t) => !PROVIDER_NAMED_REQUEST_TYPES.includes(t)), ...CONTENT_STREAM_KIND_VALUES]);

/** Every provider method / message type the tables know, that is not a plain word nor canonical vocabulary. */
function nativeMethods(): Set<string> {
  const compat = JSON.parse(readFileSync(join(ROOT, "generated/compatibility.json"), "utf8"));
  const out = new Set<string>();
  for (const s of Object.values<any>(compat.surfaces)) {
    for (const kind of Object.values<any>(s.kinds ?? {})) {
      for (const m of Object.keys(kind.methods ?? {})) {
        const name = m.replace(/[*]/g, "").replace(/[/._-]+$/, "");
        if (name.length < 6 || CANONICAL.has(name) || CANONICAL.has(m)) continue;
        if (/[/.]/.test(name) || /_/.test(name) || /[a-z][A-Z]/.test(name)) out.add(name);
      }
    }
  }
  return out;
}
const NATIVE = new Set([...nativeMethods(), ...NATIVE_FIELDS].filter((m) => !CANONICAL.has(m)));

type Rule = "raw" | "data" | "args-resolution" | "provider-name" | "native-name";
interface Finding { file: string; rule: Rule; match: string }

function scan(file: string, text: string): Finding[] {
  const src = code(text);
  const bare = noStrings(src);
  const out: Finding[] = [];
  const add = (rule: Rule, match: string) => out.push({ file, rule, match });
  for (const m of bare.matchAll(/\??\.raw\b(?!\s*:)|\[\s*["'`]raw["'`]\s*\]/g)) add("raw", m[0]);
  for (const m of bare.matchAll(/\??\.data\b(?!\s*:)|\[\s*["'`]data["'`]\s*\]/g)) add("data", m[0]);
  for (const m of bare.matchAll(/\b(args|resolution)\s*\??\.\s*[A-Za-z_$][\w$]*|\b(args|resolution)\s*\??\.?\s*\[/g)) add("args-resolution", m[0].replace(/\s+/g, ""));
  // identifiers and string literals: provider names (as words: camelCase and separators split) and native names
  const tokens = new Set<string>();
  for (const m of src.matchAll(/"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|`((?:\\.|[^`\\])*)`|([A-Za-z_$][\w$]*)/g)) tokens.add(m[1] ?? m[2] ?? m[3] ?? m[4]);
  for (const t of tokens) {
    const words = t.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/);
    for (const p of PROVIDERS) if (words.includes(p)) add("provider-name", `${p} in ${JSON.stringify(t.length > 60 ? t.slice(0, 57) + "..." : t)}`);
    if (NATIVE.has(t)) add("native-name", t);
    else for (const n of NATIVE) if ((n.includes("/") || n.includes(".")) && t.includes(n) && t !== n && /[\s"'`(,:]/.test(t)) add("native-name", `${n} in ${JSON.stringify(t.slice(0, 60))}`);
  }
  return out;
}

/**
 * What a file may do anyway: file (a path, or a folder ending in "/"), the rule, which matches (a RegExp over the
 * finding's match; absent: all of the rule's findings in that file), and why.
 */
interface Allowance { file: string; rule: Rule; match?: RegExp; reason: string }
const ALLOWED: Allowance[] = [
  // ── the provider-facing edge: the reply shapers (src/answer) ──
  { file: "src/answer/", rule: "provider-name", reason: "the answer side turns a canonical decision into each provider's reply: its public functions and reply kinds are named for the provider they answer (toClaudePermissionResult, toAcpPermissionResponse, toOpencodePermissionReply, kind claude-can-use-tool …), from the answering tables" },
  { file: "src/answer/", rule: "native-name", reason: "the replies are the providers' own shapes (control_response, updatedInput, canUseTool …): building them is what the answer side is for" },
  { file: "src/answer/answer.ts", rule: "raw", reason: "the answering row is found by the table rule that made the request (the event's raw.rule / raw.source: the tables' provenance, not provider data)" },
  // ── the provider-facing edge: the live drivers and their wiring (src/live) ──
  { file: "src/live/drivers/", rule: "provider-name", reason: "a driver speaks one provider's protocol (spawns its program, names its transport) — the live layer's per-provider edge; its calls come from the tables' live sections" },
  { file: "src/live/drivers/", rule: "native-name", reason: "a driver sends and reads the provider's own methods (session/prompt, turn/start, control_request …) on the wire" },
  { file: "src/live/drivers/", rule: "args-resolution", reason: "a driver answers a provider request with the reply the answer tables built from its args / resolution" },
  { file: "src/live/", rule: "provider-name", match: /^acp in /, reason: "ACP is the protocol the live layer's generic agent client speaks (AcpPreset, ACP_PRESETS, isAcpAgent: the agents started over it)" },
  { file: "src/live/index.ts", rule: "provider-name", reason: "the driver registry: each agent name a host passes to connect() → its driver module" },
  { file: "src/live/types.ts", rule: "provider-name", reason: "the agent names a host may pick (the AgentName type and the ACP agents' presets): the live layer's public vocabulary" },
  { file: "src/live/session.ts", rule: "raw", reason: "a driver handle's raw transport frames (h.raw, for the capture tap), not an event's raw" },
  // ── the viewer page: its native pane shows the provider message behind each event ──
  { file: "src/view/stream.ts", rule: "raw", reason: "the viewer pairs each event with the provider message it came from (raw.payload → the native pane) and flags unknown input (raw.rule); the transcript cards never read it" },
  { file: "src/view/verifier.ts", rule: "raw", reason: "the verifier is given each event with its native message re-attached (raw.payload), as the normalizer made it" },
  { file: "src/view/style.ts", rule: "provider-name", match: /^cursor in /, reason: "the CSS `cursor` property, not the Cursor agent" },
];

function allowed(f: Finding): Allowance | undefined {
  return ALLOWED.find((a) => (a.file.endsWith("/") ? f.file.startsWith(a.file) : f.file === a.file) && a.rule === f.rule && (!a.match || a.match.test(f.match)));
}

describe("render side reads canonical fields only", () => {
  it("covers every file under src/render, src/view, src/answer and src/live", () => {
    for (const dir of FOLDERS) expect(FILES.some((f) => f.startsWith(dir + "/")), dir).toBe(true);
    expect(FILES).toContain("src/render/transcript.ts");
    expect(FILES).toContain("src/answer/answer.ts");
    expect(FILES).toContain("src/live/drivers/acp.ts");
    expect(FILES.length).toBeGreaterThan(40);
  });

  const findings = FILES.flatMap((f) => scan(f, readFileSync(join(ROOT, f), "utf8")));
  for (const f of FILES) {
    it(`${f}: no raw, data, args / resolution internals, provider names or native names (beyond its allowances)`, () => {
      const bad = findings.filter((x) => x.file === f && !allowed(x)).map((x) => `${x.rule}: ${x.match}`);
      expect(bad.join("\n")).toBe("");
    });
  }

  it("every allowance is still needed (the list shrinks with the code)", () => {
    const unused = ALLOWED.filter((a) => !findings.some((f) => allowed(f) === a)).map((a) => `${a.file} ${a.rule} ${a.match ?? ""}`);
    expect(unused.join("\n")).toBe("");
  });

  it("the scan finds what it looks for", () => {
    const found = (text: string) => scan("x.ts", text).map((f) => `${f.rule}: ${f.match}`);
    expect(found("x = p.data.command")).toContain("data: .data");
    expect(found("y = e?.raw")).toContain("raw: ?.raw");
    expect(found("q = b.args?.input?.questions")).toContain("args-resolution: args?.input");
    expect(found("a = p.resolution.updatedInput")).toEqual(expect.arrayContaining(["args-resolution: resolution.updatedInput", "native-name: updatedInput"]));
    expect(found("const out = b.aggregatedOutput")).toContain("native-name: aggregatedOutput");
    expect(found('if (m === "session/update") go()')).toContain("native-name: session/update");
    expect(found('const s = "claude-sdk"')).toContain('provider-name: claude in "claude-sdk"');
    expect(found("toCodexReply(x)")).toContain('provider-name: codex in "toCodexReply"');
    // comments may name anything; canonical words are not provider words
    expect(found("// Claude's data.aggregatedOutput\n/* session/update */ x = 1")).toEqual([]);
    expect(found('const t = "command_execution"; e.type === "item.completed"')).toEqual([]);
    expect(NATIVE.has("session/update")).toBe(true);
    expect(NATIVE.size).toBeGreaterThan(50);
  });
});

describe("render side reads canonical fields only — in behaviour", () => {
  const events = [
    { type: "turn.started", payload: {}, turnId: "trn_1" },
    { type: "item.started", turnId: "trn_1", itemId: "itm_1", payload: { itemType: "command_execution", status: "inProgress", command: "ls", data: { command: "rm -rf /", aggregatedOutput: "from data" } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_1", payload: { itemType: "command_execution", status: "completed", command: "ls", exitCode: 0, output: "a.txt\n", data: { aggregatedOutput: "from data", exitCode: 9 } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_2", payload: { itemType: "file_change", status: "completed", files: [{ path: "a.py", change: "update", diff: "@@ -1 +1 @@\n-a\n+b" }], data: { changes: [{ path: "wrong.py", diff: "x" }] } } },
    { type: "item.completed", turnId: "trn_1", itemId: "itm_3", payload: { itemType: "user_message", status: "completed", text: "hello", data: { content: "from data" } } },
  ].map((e, i) => ({ eventId: `evt_${i + 1}`, schemaVersion: 2, sequence: i + 1, provider: "codex", sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...e }));

  it("the accumulator renders typed fields, not data", () => {
    const a = createAccumulator();
    a.applyAll(events);
    const bl = snapshotBlocks(a.snapshot()) as any[];
    const tool = bl.find((b) => b.blockId === "itm_1:tool");
    expect(tool).toMatchObject({ kind: "tool", command: "ls", exitCode: 0, status: "completed" });
    expect(tool.data).toBeUndefined();
    expect(bl.find((b) => b.blockId === "itm_1:terminal")?.text).toBe("a.txt\n");
    expect(bl.find((b) => b.blockId === "itm_2:diff")?.files).toEqual([{ path: "a.py", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b" }]);
    expect(bl.find((b) => b.blockId === "itm_3:text")?.text).toBe("hello");
  });

  it("the chat_event projection carries typed fields, not data", () => {
    const recs = toChatEvents(events as any);
    const tool = recs.filter((r) => r.kind === "tool" && r.toolCallId === "itm_1").pop()!;
    expect(tool.tool).toMatchObject({ command: "ls", exitCode: 0, result: "a.txt\n" });
    expect(recs.find((r) => r.kind === "diff")?.diff?.files).toEqual([{ path: "a.py", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b" }]);
    expect(recs.find((r) => r.role === "user" && r.phase === "completed")?.text).toBe("hello");
  });

  it("the transcript prints typed fields, not data", () => {
    const t = renderTranscript(events as any);
    expect(t).toContain("user:      hello");
    expect(t).toContain("$ ls  [completed]\n           a.txt");
    expect(t).not.toContain("from data");
  });
});

describe("a provider-blind render equals the canonical render, on every recorded stream", () => {
  const REC = join(ROOT, "fixtures");
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith(".expected.ndjson") || d.name === "interleaved-tools.ndjson" ? [join(dir, d.name)] : []));
  const streams = walk(REC).sort();
  /** The event as a renderer that knows no provider sees it: no raw, no provider refs, no item data, no provider name. */
  const blind = (e: any) => {
    const { raw, providerRefs, ...rest } = e;
    const payload = rest.payload && typeof rest.payload === "object" ? { ...rest.payload } : rest.payload;
    if (payload && typeof payload === "object") delete payload.data;
    return { ...rest, provider: "unknown", payload };
  };
  /** What a provider-aware render adds: the provider's name and native ids (dropped before comparing). */
  const chat = (events: any[]) => toChatEvents(events).map(({ provider, providerRefs, messageId, partId, ...r }: any) => {
    for (const k of ["permission", "question", "hostCall"]) if (r[k]) { const { providerRequestId, ...rest } = r[k]; r[k] = rest; }
    return r;
  });
  const view = (events: any[]) => transcriptView(events);
  const text = (events: any[]) => {
    const a = createAccumulator();
    a.applyAll(events);
    const snap = a.snapshot();
    for (const s of snap.sessions) { s.provider = "unknown" as any; for (const t of s.turns) delete t.providerTurnId; }
    return renderSnapshotText(snap);
  };

  it("covers the recorded streams of every surface", () => {
    expect(streams.length).toBeGreaterThan(100);
  });

  for (const f of streams) {
    it(relative(ROOT, f), () => {
      const events = readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      const blinded = events.map(blind);
      expect(text(blinded)).toBe(text(events));
      expect(renderTranscript(blinded)).toBe(renderTranscript(events));
      expect(chat(blinded)).toEqual(chat(events));
      expect(view(blinded)).toEqual(view(events));
    });
  }
});
