/**
 * Hostile input: prototype keys never reach prototypes (every surface, through push, pushLine, raw
 * payloads and session variables); lines of many megabytes and nesting thousands deep are handled or rejected
 * with the line number, without blowing the stack; invalid UTF-8 and NUL bytes; a malformed line is reported with
 * its number and the stream goes on; the CLI never leaves a partial output line (a signal mid-stream, a reader
 * that goes away).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { createNormalizer, MAX_NESTING, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { material } from "./fuzz/fuzz.js";
import { expectVerified } from "./support/verify.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-hostile-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
const make = (surface: string) => createNormalizer({ surface, ids: counterIds(), clock: steppingClock() });
const P = (e: CanonicalEvent): any => e.payload;

const PROTO_CHECK = () => {
  expect(({} as any).polluted, "Object.prototype polluted").toBeUndefined();
  expect(([] as any).polluted, "Array.prototype polluted").toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
  expect(typeof Object.prototype.toString).toBe("function");
  expect(({}).constructor).toBe(Object);
};

/** Add __proto__ / constructor / prototype keys at every object level of a JSON text (as own keys, as JSON.parse makes them). */
function poison(text: string): string {
  return text.replace(/\{(?=")/g, '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},');
}

describe("prototype keys never reach prototypes", () => {
  for (const surface of SURFACE_NAMES) {
    it(`${surface}: every example and recorded message, poisoned at every level, through pushLine and push`, () => {
      const corpus = material(surface).corpus;
      const n = make(surface);
      const events: CanonicalEvent[] = [];
      for (const m of corpus) {
        const text = poison(JSON.stringify(m));
        events.push(...n.pushLine(text));
        events.push(...n.push(JSON.parse(text)));
      }
      events.push(...n.end());
      PROTO_CHECK();
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(validateCanonicalEvent(e), `${e.type} is canonical`).toBe(true);
      // raw payloads keep the keys as data (own properties), not as prototypes
      const withRaw = events.find((e) => e.raw?.payload && typeof e.raw.payload === "object" && Object.hasOwn(e.raw.payload as object, "__proto__"));
      expect(withRaw, "a raw payload carrying the poisoned keys as own data").toBeDefined();
      expect(Object.getPrototypeOf(withRaw!.raw!.payload)).toBe(Object.prototype);
      expect(JSON.parse(serializeEvent(withRaw!)).raw.payload.__proto__).toEqual({ polluted: "yes" });
    });
  }

  it("provider ids named __proto__ / constructor / prototype are ordinary ids (entity maps, session variables)", () => {
    // ACP keys session variables by sessionId and JSON-RPC id (`seg:<session>`, `permission-options:<id>`, `turn:<session>`)
    const n = make("acp");
    const S = "__proto__";
    const lines = [
      { direction: "out", message: { jsonrpc: "2.0", id: "constructor", method: "session/prompt", params: { sessionId: S, prompt: [] } } },
      { direction: "in", message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } } } },
      { direction: "in", message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: { sessionUpdate: "tool_call", toolCallId: "prototype", title: "ls", kind: "execute" } } } },
      { direction: "in", message: { jsonrpc: "2.0", id: "__proto__", method: "session/request_permission", params: { sessionId: S, toolCall: { toolCallId: "prototype" }, options: [{ optionId: "constructor", name: "Allow", kind: "allow_once" }] } } },
      { direction: "out", message: { jsonrpc: "2.0", id: "__proto__", result: { outcome: { outcome: "selected", optionId: "constructor" } } } },
      { direction: "in", message: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: { sessionUpdate: "tool_call_update", toolCallId: "prototype", status: "completed" } } } },
      { direction: "in", message: { jsonrpc: "2.0", id: "constructor", result: { stopReason: "end_turn" } } },
    ];
    const events = lines.flatMap((l) => n.pushLine(JSON.stringify(l)));
    const end = n.end();
    PROTO_CHECK();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["turn.started", "item.started", "content.delta", "request.opened", "request.resolved", "item.completed", "turn.completed"]));
    expect(P(events.find((e) => e.type === "request.resolved")!).decision).toBe("allow_once"); // read back from the session variable
    expect(end).toEqual([]);
    expectVerified([...events, ...end]);
  });
});

describe("huge and deep lines", () => {
  it("a line of 40 MB is mapped (one delta of 40 MB), and the next line still maps", () => {
    const n = make("codex-app-server");
    const big = "x".repeat(40 * 1024 * 1024);
    const out = n.pushLine(JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "m", delta: big } }), { lineNumber: 1 });
    const delta = out.find((e) => e.type === "content.delta");
    expect(P(delta!).delta.length).toBe(big.length);
    expect(n.pushLine('{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"m","delta":"!"}}', { lineNumber: 2 }).map((e) => e.type)).toEqual(["content.delta"]);
  });

  for (const depth of [MAX_NESTING + 10, 50_000, 1_000_000]) {
    it(`nesting ${depth.toLocaleString("en")} deep: rejected with the line number (no stack overflow), the stream goes on`, () => {
      const n = make("codex-app-server");
      const deep = "[".repeat(depth) + "]".repeat(depth);
      const out = n.pushLine(`{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"m","text":"","x":${deep}}}}`, { lineNumber: 7 });
      expect(out.map((e) => [e.type, P(e).class])).toEqual([["runtime.error", "validation_error"]]);
      expect(P(out[0]).message).toBe(`line 7: JSON nests deeper than ${MAX_NESTING} levels: not mapped`);
      expect(() => serializeEvent(out[0])).not.toThrow();
      expect(n.stats().invalid).toBe(1);
      // the same object through push(): rejected too
      const obj = JSON.parse(`{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"m","text":"","x":${deep}}}}`);
      const viaPush = n.push(obj);
      expect(viaPush.map((e) => e.type)).toEqual(["runtime.error"]);
      expect(P(viaPush[0]).message).toContain(`deeper than ${MAX_NESTING}`);
      const next = n.pushLine('{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"m2","text":""}}}', { lineNumber: 8 });
      expect(next.map((e) => e.type)).toEqual(["item.started"]);
    });
  }

  it("nesting just under the limit is mapped and serializes", () => {
    const n = make("codex-app-server");
    const depth = MAX_NESTING - 10;
    const deep = "[".repeat(depth) + "]".repeat(depth);
    const out = n.pushLine(`{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"m","text":"","x":${deep}}}}`);
    expect(out.map((e) => e.type)).toEqual(["item.started"]);
    for (const e of out) expect(() => JSON.stringify(e)).not.toThrow();
  });

  it("brackets inside strings do not count as nesting", () => {
    const n = make("codex-app-server");
    const text = "[{".repeat(5000) + '\\"';
    const out = n.pushLine(JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "m", delta: text } }));
    expect(out.map((e) => e.type)).toEqual(["item.started", "content.delta"]);
  });

  it("a malformed line is reported with its number and the stream goes on", () => {
    const n = make("codex-app-server");
    const a = n.pushLine('{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"m","text":""}}}', { lineNumber: 1 });
    const bad = n.pushLine('{"method":"item/agentMessage/delta", "params": {', { lineNumber: 2 });
    const c = n.pushLine('{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"m","delta":"ok"}}', { lineNumber: 3 });
    expect(a.map((e) => e.type)).toEqual(["item.started"]);
    expect(bad.map((e) => [e.type, P(e).detail?.line])).toEqual([["runtime.error", 2]]);
    expect(P(bad[0]).message).toMatch(/^line 2: not valid JSON/);
    expect(c.map((e) => e.type)).toEqual(["content.delta"]);
    expect(c[0].itemId).toBe(a[0].itemId);
  });
});

// ───────────────────────────── through the built CLI ─────────────────────────────

const DIST = join(ROOT, "dist/src/cli/cli.js");
const haveDist = existsSync(DIST);
const cliIt = haveDist ? it : it.skip;

function parseAll(stdout: string): { lines: string[]; bad: string[] } {
  const lines = stdout.split("\n");
  const last = lines.pop();
  const bad = lines.filter((l) => { try { JSON.parse(l); return false; } catch { return true; } });
  if (last !== "") bad.push(`(unterminated last line of ${last!.length} chars)`);
  return { lines, bad };
}

describe("the CLI (dist/src/cli/cli.js)", () => {
  let bigInput: string;
  beforeAll(() => {
    // a long session: the approval fixture, its provider ids made unique per copy
    const lines = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8").split("\n").filter((l) => l.trim());
    const out: string[] = [];
    for (let copy = 0; out.length < 150_000; copy++) for (const l of lines) out.push(l.replace(/"(019[0-9a-f-]{20,}|call_[A-Za-z0-9_]+|msg_[A-Za-z0-9_]+|rs_[A-Za-z0-9_]+)"/g, (_, id) => `"${id}-${copy}"`));
    bigInput = join(TMP, "big.ndjson");
    writeFileSync(bigInput, out.join("\n") + "\n");
  });

  cliIt("invalid UTF-8, NUL bytes and a malformed line: reported with their line numbers, exit 0, every output line is JSON", () => {
    const file = join(TMP, "bytes.ndjson");
    const good = (id: string, text: string) => Buffer.from(JSON.stringify({ method: "item/started", params: { threadId: "t", turnId: "u", item: { type: "agentMessage", id, text } } }) + "\n");
    writeFileSync(file, Buffer.concat([
      good("a", "fine"),
      Buffer.from('{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"b","text":"bad \xff\xfe utf8"}}}\n', "latin1"),
      Buffer.from('{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"agentMessage","id":"c","text":"nul \u0000 raw"}}}\n'),
      Buffer.from([0, 0, 0, 10]),
      Buffer.from("{not json\n"),
      good("d", "after"),
    ]));
    const r = spawnSync(process.execPath, [DIST, "normalize", "--from", "codex-app-server", file], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const { lines, bad } = parseAll(r.stdout);
    expect(bad).toEqual([]);
    const events = lines.map((l) => JSON.parse(l));
    const started = events.filter((e) => e.type === "item.started").map((e) => e.providerRefs.providerItemId);
    expect(started).toEqual(["a", "b", "d"]); // invalid UTF-8 decodes to U+FFFD; the raw NUL makes line 3 invalid JSON
    expect(events.find((e) => e.providerRefs?.providerItemId === "b").raw.payload.params.item.text).toContain("\uFFFD");
    expect(r.stderr).toMatch(/:3: not valid JSON/);
    expect(r.stderr).toMatch(/:4: not valid JSON/);
    expect(r.stderr).toMatch(/:5: not valid JSON/);
  });

  cliIt("SIGTERM mid-stream: output stops at a line boundary, exit 143, stderr says where", async () => {
    const child = spawn(process.execPath, [DIST, "normalize", "--from", "codex-app-server", bigInput, "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let err = "";
    let signalled = false;
    child.stderr.on("data", (d) => { err += d; });
    const code = await new Promise<number | null>((res) => {
      child.stdout.on("data", (d: Buffer) => {
        chunks.push(d);
        if (!signalled && Buffer.concat(chunks).length > 2_000_000) { signalled = true; child.kill("SIGTERM"); }
      });
      child.on("close", (c) => res(c));
    });
    expect(signalled).toBe(true);
    const out = Buffer.concat(chunks).toString("utf8");
    const { lines, bad } = parseAll(out);
    expect(bad).toEqual([]);
    expect(lines.length).toBeGreaterThan(1000);
    expect(code).toBe(143);
    expect(err).toMatch(/stopped by SIGTERM after line \d+/);
  });

  cliIt("a reader that goes away (EPIPE): exit 0, no error, and what it read is whole lines", async () => {
    const child = spawn(process.execPath, [DIST, "normalize", "--from", "codex-app-server", bigInput, "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => { err += d; });
    const got: Buffer[] = [];
    const code = await new Promise<number | null>((res) => {
      child.stdout.once("data", (d: Buffer) => { got.push(d); child.stdout.destroy(); });
      child.on("close", (c) => res(c));
    });
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(got.length).toBe(1);
  });
});
