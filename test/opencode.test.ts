/**
 * The opencode surfaces beyond single-row examples:
 * - parity: our recorded opencode serve sessions (fixtures/recorded/opencode/<s>.ndjson, the live /event stream) and the
 *   same sessions' restored history (<s>.messages.ndjson, GET /session/{id}/message) give the same items and turns;
 * - wrappers: /global/event {directory, payload} and bare payloads give what the capture lines give;
 * - late roles: parts that arrive before their message.updated are held, and user text never becomes assistant text;
 * - the reverse helpers against the reply bodies our recorder actually sent;
 * - the CLI (--from opencode | opencode-history | opencode-run).
 * Conformance over the shared dev recordings is in test/conformance.opencode.test.ts.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { toOpencodePermissionReply, toOpencodePermissionReplyBody, toOpencodePermissionResponseBodyV1, toOpencodeQuestionReplyBody } from "../src/index.js";
import { completedItems } from "./support/streams.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIX = join(ROOT, "fixtures/recorded/opencode");
const P = (e: CanonicalEvent): any => e.payload as any;
const readLines = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");

function run(surface: string, lines: string[] | unknown[]) {
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), validate: true });
  const events = lines.flatMap((l, i) => (typeof l === "string" ? n.pushLine(l, { lineNumber: i + 1 }) : n.push(l)));
  const end = n.end();
  return { events: [...events, ...end], end, stats: n.stats() };
}
const turns = (events: CanonicalEvent[]) => events.filter((e) => e.type === "turn.started" || e.type === "turn.completed").map((e) => (e.type === "turn.completed" ? `completed:${P(e).state}` : "started"));
const problems = (events: CanonicalEvent[]) =>
  events.filter((e) => !validateCanonicalEvent(e) || e.type === "runtime.warning" && !/retry|scripted/.test(P(e).message) || (e.type === "runtime.error" && P(e).class === "validation_error")).map((e) => `#${e.sequence} ${e.type} ${JSON.stringify(e.payload).slice(0, 160)}`);
const strip = (events: CanonicalEvent[]) => events.map(({ raw, ...e }) => ({ ...e, raw: { source: raw?.source, method: raw?.method } }));

const scenarios = existsSync(FIX) ? readdirSync(FIX).filter((f) => f.endsWith(".messages.ndjson")).map((f) => f.replace(/\.messages\.ndjson$/, "")).sort() : [];

describe("opencode: live /event stream vs restored history of the same session (parity, our recorded pairs)", () => {
  it("has the 9 recorded pairs", () => expect(scenarios).toEqual(["approval", "edit", "failing-tool", "interrupt", "model-error", "plain", "question", "shell", "two-turn"]));

  for (const s of scenarios) {
    describe(s, () => {
      const live = () => run("opencode", readLines(join(FIX, `${s}.ndjson`)));
      const restored = () => run("opencode-history", readLines(join(FIX, `${s}.messages.ndjson`)));

      it("the restored stream is clean: schema-valid, nothing unknown, nothing left open", () => {
        const r = restored();
        expect(problems(r.events)).toEqual([]);
        expect(r.stats.unknown).toBe(0);
        expect(r.end).toEqual([]);
      });

      it("same items (type, status, nesting, text per stream kind) in the same order, and the same turns", () => {
        const l = live();
        const r = restored();
        const li = completedItems(l.events);
        const ri = completedItems(r.events);
        expect(li.length).toBeGreaterThan(0);
        if (s === "interrupt") {
          // By construction (see mappings/opencode-history.yaml): the killed command is failed live (its turn ended
          // first, interrupted) and completed in history (opencode finished the part after the abort).
          const cmd = (xs: typeof li) => xs.findIndex((x) => x.type === "command_execution");
          expect(li[cmd(li)].status).toBe("failed");
          expect(ri[cmd(ri)].status).toBe("completed");
          ri[cmd(ri)] = { ...ri[cmd(ri)], status: "failed" };
        }
        expect(ri).toEqual(li);
        expect(turns(r.events)).toEqual(turns(l.events));
      });
    });
  }
});

describe("opencode: input wrappers", () => {
  const caps = readLines(join(FIX, "plain.ndjson")).map((l) => JSON.parse(l));
  const events = caps.filter((c) => c.channel === "event").map((c) => c.message);
  const base = strip(run("opencode", caps.map((c) => JSON.stringify(c))).events);

  it("capture lines, bare payloads, /global/event wrappers and kimaki lines give the same canonical events", () => {
    expect(base.length).toBeGreaterThan(20);
    expect(strip(run("opencode", events.map((m) => JSON.stringify(m))).events)).toEqual(base);
    expect(strip(run("opencode", events.map((m) => JSON.stringify({ directory: "/sandbox/work", payload: m }))).events)).toEqual(base);
    expect(strip(run("opencode", events.map((m, i) => JSON.stringify({ timestamp: i, threadId: "t", projectDirectory: "/w", event: m }))).events)).toEqual(base);
    expect(strip(run("opencode", caps).events)).toEqual(base); // push() of whole capture lines
  });

  it("counts the recorder's http lines under their ignore entry and unknown types as warnings", () => {
    const r = run("opencode", readLines(join(FIX, "plain.ndjson")));
    expect(r.stats.ignored["opencode#input-http-captured"]).toBe(caps.filter((c) => c.channel === "http").length);
    const u = run("opencode", [{ type: "brand.new.event", properties: {} }]);
    expect(u.events.map((e) => [e.type, P(e).message])).toEqual([["runtime.warning", 'opencode: unknown event type "brand.new.event"']]);
  });

  it("the server's keep-alive, which the pinned Event union does not list, is ignored between a turn's events (bare, wrapped in /global/event)", () => {
    const lines = readLines(join(FIX, "plain.ndjson"));
    const beat = (i: number) => JSON.stringify(i % 2 ? { type: "server.heartbeat", properties: {} } : { payload: { id: `hb${i}`, type: "server.heartbeat", properties: {} } });
    const beaten = lines.flatMap((l, i) => [beat(i), l]);
    const plain = run("opencode", lines);
    const r = run("opencode", beaten);
    expect(r.stats.unknown).toBe(0);
    const key = Object.keys(r.stats.ignored).find((k) => k.endsWith(":server.heartbeat"));
    expect(key).toMatch(/^opencode#ignored-event-\d+:server\.heartbeat$/);
    expect(r.stats.ignored[key!]).toBe(lines.length);
    expect(strip(r.events).map(({ eventId: _e, createdAt: _c, sequence: _s, ...e }) => e)).toEqual(strip(plain.events).map(({ eventId: _e, createdAt: _c, sequence: _s, ...e }) => e));
  });
});

describe("opencode: session scoping", () => {
  it("two sessions interleaved event by event keep their own turns, items and text", () => {
    const events = readLines(join(FIX, "two-turn.ndjson")).map((l) => JSON.parse(l)).filter((c) => c.channel === "event").map((c) => c.message);
    const other = events.map((m) => JSON.parse(JSON.stringify(m).replace(/(ses|msg|prt|per|que)_0/g, "$1_B")));
    const mixed = events.flatMap((m, i) => [m, other[i]]);
    const alone = run("opencode", events);
    const both = run("opencode", mixed);
    expect(problems(both.events)).toEqual([]);
    expect(both.end).toEqual([]);
    const byThread = new Map<string, CanonicalEvent[]>();
    for (const e of both.events) if (e.threadId) byThread.set(e.threadId, [...(byThread.get(e.threadId) ?? []), e]);
    expect(byThread.size).toBe(2);
    for (const evs of byThread.values()) {
      expect(turns(evs)).toEqual(turns(alone.events));
      expect(completedItems(evs)).toEqual(completedItems(alone.events));
    }
  });
});

describe("opencode: long turns", () => {
  it("a turn with 6,000 tool parts (more than the 4,096 session variables) keeps its turn and closes at idle", () => {
    const msgs: any[] = [
      { type: "message.updated", properties: { sessionID: "s1", info: { id: "m1", sessionID: "s1", role: "user", time: { created: 1 }, agent: "build", model: { providerID: "p", modelID: "gpt" } } } },
    ];
    for (let i = 0; i < 6000; i++) {
      msgs.push({ type: "message.part.updated", properties: { sessionID: "s1", part: { id: `t${i}`, sessionID: "s1", messageID: "a1", type: "tool", callID: `c${i}`, tool: "read", state: { status: "completed", input: {}, output: "", title: "x", metadata: {}, time: { start: 1, end: 2 } } } } });
    }
    msgs.push({ type: "session.status", properties: { sessionID: "s1", status: { type: "idle" } } });
    const r = run("opencode", msgs);
    const done = r.events.filter((e) => e.type === "item.completed");
    expect(done.length).toBe(6000);
    expect(done.every((e) => e.turnId === "trn_1")).toBe(true);
    expect(turns(r.events)).toEqual(["started", "completed:completed"]);
    expect(r.end).toEqual([]);
  });
});

describe("opencode: late roles (parts before their message.updated)", () => {
  // The real stream with every message.updated moved after that message's parts and deltas.
  const lines = readLines(join(FIX, "approval.ndjson")).map((l) => JSON.parse(l)).filter((c) => c.channel === "event").map((c) => c.message);
  const late: any[] = [];
  const pending = new Map<string, any>();
  for (const m of lines) {
    if (m.type === "message.updated" && !pending.has(m.properties.info.id) && !late.some((x) => x.type === "message.part.updated" && x.properties.part.messageID === m.properties.info.id)) {
      pending.set(m.properties.info.id, m);
      continue;
    }
    late.push(m);
    const mid = m.type === "message.part.updated" ? m.properties.part.messageID : undefined;
    if (mid && pending.has(mid) && m.properties.part.type === "step-finish") { late.push(pending.get(mid)); pending.delete(mid); }
  }
  late.push(...pending.values());

  it("the reordering is real: text parts come before their role", () => {
    const firstText = late.findIndex((m) => m.type === "message.part.updated" && m.properties.part.type === "text");
    const role = late.findIndex((m) => m.type === "message.updated" && m.properties.info.id === late[firstText].properties.part.messageID);
    expect(firstText).toBeGreaterThanOrEqual(0);
    expect(role).toBeGreaterThan(firstText);
  });

  it("gives the same items as the ordered stream: user text stays user text, assistant text is complete", () => {
    const ordered = completedItems(run("opencode", lines).events);
    const r = run("opencode", late);
    expect(problems(r.events)).toEqual([]);
    expect(completedItems(r.events)).toEqual(ordered);
    const prompt = "Create notes.txt with the word hello, then delete README.md.";
    expect(r.events.filter((e) => e.type === "content.delta").map((e) => P(e).delta).join("")).not.toContain(prompt);
    expect(r.events.filter((e) => e.type === "item.completed" && P(e).itemType === "user_message").map((e) => P(e).detail)).toEqual([prompt]);
  });
});

describe("opencode: reply bodies (reverse of the permission and question rows)", () => {
  it("map canonical and provider decisions to once / always / reject, refusing what is not understood", () => {
    expect(["once", "accept", "allow_once", "approved"].map(toOpencodePermissionReply)).toEqual(["once", "once", "once", "once"]);
    expect(["always", "acceptForSession", "allow_always"].map(toOpencodePermissionReply)).toEqual(["always", "always", "always"]);
    expect(["reject", "decline", "reject_always", "cancelled", "??", "constructor"].map(toOpencodePermissionReply)).toEqual(["reject", "reject", "reject", "reject", "reject", "reject"]);
    expect(toOpencodePermissionResponseBodyV1("accept")).toEqual({ response: "once" });
    expect(toOpencodePermissionReplyBody("once", "ignored on approval")).toEqual({ reply: "once" });
    expect(toOpencodeQuestionReplyBody(["Python", ["a", "b"]], 3)).toEqual({ answers: [["Python"], ["a", "b"], []] });
  });

  it("round trip: the decision and answers the normalizer reports rebuild the bodies our recorder sent", () => {
    for (const s of ["approval", "question"]) {
      const caps = readLines(join(FIX, `${s}.ndjson`)).map((l) => JSON.parse(l));
      const sent = caps.filter((c) => c.channel === "http" && c.dir === "out" && /^\/(permission|question)\/[^/]+\/reply$/.test(c.message.path));
      const { events } = run("opencode", caps);
      const resolved = events.filter((e) => e.type === "request.resolved");
      const answers = events.filter((e) => e.type === "user-input.resolved");
      expect(sent.length).toBe(resolved.length);
      let q = 0;
      sent.forEach((c, i) => {
        const decision = P(resolved[i]).decision;
        if (c.message.path.startsWith("/question/")) expect(toOpencodeQuestionReplyBody(P(answers[q++]).data)).toEqual(c.message.body);
        else expect(toOpencodePermissionReplyBody(decision, c.message.body.message)).toEqual(c.message.body);
      });
    }
  });
});

describe("opencode: CLI", () => {
  const cli = (args: string[], input?: string) => {
    const dist = join(ROOT, "dist/src/cli/cli.js");
    const opts = { cwd: ROOT, encoding: "utf8" as const, timeout: 60_000, input };
    return existsSync(dist) ? spawnSync(process.execPath, [dist, ...args], opts) : spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], opts);
  };
  const parse = (out: string) => out.split("\n").filter((l) => l).map((l) => JSON.parse(l));

  it("--from opencode gives the committed expected output of a recording", () => {
    const r = cli(["normalize", "--from", "opencode", "--deterministic", "--no-raw", "--quiet", join(FIX, "question.ndjson")]);
    expect(r.status, r.stderr).toBe(0);
    const expected = parse(readFileSync(join(FIX, "question.expected.ndjson"), "utf8"));
    expect(parse(r.stdout).map((e) => [e.type, e.payload])).toEqual(expected.map((e) => [e.type, e.payload]));
  });

  it("--from opencode-history reads the session.messages output as NDJSON or as one JSON array, with the same result", () => {
    const file = join(FIX, "two-turn.messages.ndjson");
    const a = cli(["normalize", "--from", "opencode-history", "--deterministic", "--no-raw", "--quiet", file]);
    expect(a.status, a.stderr).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-oc-"));
    try {
      const arr = join(dir, "messages.json");
      writeFileSync(arr, JSON.stringify(readLines(file).map((l) => JSON.parse(l)), null, 2));
      const b = cli(["normalize", "--from", "opencode-history", "--deterministic", "--no-raw", "--quiet", arr]);
      expect(b.status, b.stderr).toBe(0);
      const ev = parse(a.stdout);
      expect(ev.filter((e) => e.type === "turn.completed").length).toBe(2);
      expect(parse(b.stdout).map((e) => [e.type, e.payload])).toEqual(ev.map((e) => [e.type, e.payload]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--from opencode-run maps run --format json lines (one turn)", () => {
    const lines = [
      { type: "step_start", timestamp: 1, sessionID: "s1", part: { id: "p0", sessionID: "s1", messageID: "a1", type: "step-start" } },
      { type: "text", timestamp: 2, sessionID: "s1", part: { id: "p1", sessionID: "s1", messageID: "a1", type: "text", text: "hi", time: { start: 1, end: 2 } } },
      { type: "step_finish", timestamp: 3, sessionID: "s1", part: { id: "p2", sessionID: "s1", messageID: "a1", type: "step-finish", reason: "stop", cost: 0, tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } } },
    ];
    const r = cli(["normalize", "--from", "opencode-run", "--quiet", "-"], lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(r.status, r.stderr).toBe(0);
    expect(parse(r.stdout).map((e) => e.type)).toEqual(["thread.started", "turn.started", "item.started", "content.delta", "item.completed", "thread.token-usage.updated", "turn.completed"]);
  });
});
