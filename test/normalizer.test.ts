/**
 * Runtime behaviour of the normalizer through the real codex-app-server table: canonical ids (EVENTS.md §1.6),
 * sequence, determinism, request correlation in both directions, unknown/ignored/malformed input, end(),
 * deltas vs snapshots, restored-history parity, schema validity of every fixture event.
 */
import { afterEach, describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent, type Direction, type Normalizer } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { VERSION } from "../src/version.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURE_DIR = join(ROOT, "fixtures/codex-app-server");
const FIXTURES = readdirSync(FIXTURE_DIR).filter((f) => f.endsWith(".ndjson")).sort();
const SURFACE = "codex-app-server";
const TABLE = SURFACES[SURFACE];

const det = (): Normalizer => createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
const P = (e: CanonicalEvent): any => e.payload as any;
const types = (evs: CanonicalEvent[]): string[] => evs.map((e) => e.type);
const ofType = (evs: CanonicalEvent[], t: string): CanonicalEvent[] => evs.filter((e) => e.type === t);

function fixtureLines(name: string): string[] {
  return readFileSync(join(FIXTURE_DIR, name), "utf8").split("\n").filter((l) => l.trim() !== "");
}

/** Normalize a whole fixture (plus end()); returns all events and, per input line, the events it produced. */
function runFixture(name: string, n: Normalizer = det()): { events: CanonicalEvent[]; perLine: CanonicalEvent[][]; endEvents: CanonicalEvent[] } {
  const perLine: CanonicalEvent[][] = [];
  fixtureLines(name).forEach((line, i) => perLine.push(n.pushLine(line, { lineNumber: i + 1 })));
  const endEvents = n.end();
  return { events: [...perLine.flat(), ...endEvents], perLine, endEvents };
}

const ID_FIELDS: Record<string, string> = {
  eventId: "evt", sessionId: "ses", threadId: "thr", turnId: "trn", itemId: "itm", requestId: "req", parentId: "itm",
};

/** Every id-like value of the provider messages (keys `id` or ending in `Id`, at any depth). */
function providerIds(lines: string[]): { strings: Set<string>; numbers: Set<string> } {
  const strings = new Set<string>();
  const numbers = new Set<string>();
  const walk = (v: unknown, key?: string): void => {
    if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
    else if (key !== undefined && (key === "id" || /Id$/.test(key))) {
      if (typeof v === "string" && v !== "") strings.add(v);
      else if (typeof v === "number") numbers.add(String(v));
    }
  };
  for (const l of lines) walk(JSON.parse(l));
  return { strings, numbers };
}

// Push helpers for hand-made messages.
const T = "thread-A";
const U = "turn-1";
const approval = (id: number | string, itemId = "cmd-1") => ({
  id, method: "item/commandExecution/requestApproval",
  params: { threadId: T, turnId: U, itemId, startedAtMs: 1, command: "npm test" },
});
const initialize = (id: number | string) => ({ method: "initialize", id, params: { clientInfo: { name: "t", title: "t", version: "1" } } });
const initializeResult = (id: number | string) => ({ id, result: { userAgent: "tester/0.171.0", codexHome: "/h/.codex", platformFamily: "unix", platformOs: "linux" } });
const itemStarted = (item: Record<string, unknown>, threadId = T, turnId = U) => ({ method: "item/started", params: { threadId, turnId, startedAtMs: 1, item } });
const itemCompleted = (item: Record<string, unknown>, threadId = T, turnId = U) => ({ method: "item/completed", params: { threadId, turnId, completedAtMs: 2, item } });
const agentDelta = (itemId: string, delta: string) => ({ method: "item/agentMessage/delta", params: { threadId: T, turnId: U, itemId, delta } });

function pushAll(n: Normalizer, msgs: (unknown | [unknown, Direction | undefined])[]): CanonicalEvent[] {
  const out: CanonicalEvent[] = [];
  for (const m of msgs) {
    if (Array.isArray(m) && m.length === 2 && (m[1] === "in" || m[1] === "out" || m[1] === undefined)) out.push(...n.push(m[0], { direction: m[1] }));
    else out.push(...n.push(m));
  }
  return out;
}

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("canonical ids (EVENTS.md §1.6)", () => {
  for (const name of FIXTURES) {
    for (const mode of ["counter", "random"] as const) {
      it(`${name} (${mode} ids): canonical fields carry their prefixes and never a provider id`, () => {
        const n = mode === "counter" ? det() : createNormalizer({ surface: SURFACE });
        const { events } = runFixture(name, n);
        expect(events.length).toBeGreaterThan(10);
        const { strings, numbers } = providerIds(fixtureLines(name));
        expect(strings.size).toBeGreaterThan(3);
        const problems: string[] = [];
        for (const e of events as any[]) {
          for (const [field, prefix] of Object.entries(ID_FIELDS)) {
            const v = e[field];
            if (v === undefined) continue;
            if (typeof v !== "string" || !new RegExp(`^${prefix}_[A-Za-z0-9._:-]+$`).test(v)) problems.push(`#${e.sequence} ${field}=${JSON.stringify(v)} lacks prefix ${prefix}_`);
            if (strings.has(v) || numbers.has(v)) problems.push(`#${e.sequence} ${field} is a provider id: ${v}`);
            for (const s of strings) if (s.length >= 6 && v.includes(s)) problems.push(`#${e.sequence} ${field}=${v} embeds provider id ${s}`);
          }
          // providerRefs hold provider ids, and only those
          for (const [k, v] of Object.entries(e.providerRefs ?? {})) {
            if (!strings.has(v as string) && !numbers.has(v as string)) problems.push(`#${e.sequence} providerRefs.${k}=${JSON.stringify(v)} is not a provider id of the input`);
          }
        }
        expect(problems).toEqual([]);
      });
    }

    it(`${name}: provider ↔ canonical ids are a consistent one-to-one mapping per role`, () => {
      const { events } = runFixture(name);
      const pairs: [string, string][] = [["threadId", "providerThreadId"], ["turnId", "providerTurnId"], ["itemId", "providerItemId"], ["requestId", "providerRequestId"]];
      let checked = 0;
      for (const [field, ref] of pairs) {
        const p2c = new Map<string, string>();
        const c2p = new Map<string, string>();
        for (const e of events as any[]) {
          const c = e[field];
          const p = e.providerRefs?.[ref];
          if (c === undefined) continue;
          // a canonical id minted from a provider id carries that id in providerRefs
          expect(p, `#${e.sequence} ${e.type} has ${field} but no providerRefs.${ref}`).toBeTypeOf("string");
          if (p2c.has(p)) expect(p2c.get(p), `${ref} ${p}`).toBe(c);
          else p2c.set(p, c);
          if (c2p.has(c)) expect(c2p.get(c), `${field} ${c}`).toBe(p);
          else c2p.set(c, p);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(20);
    });
  }

  it("the same provider item id maps to the same canonical id across started / delta / completed", () => {
    const n = det();
    const evs = pushAll(n, [
      itemStarted({ type: "agentMessage", id: "m-1", text: "" }),
      agentDelta("m-1", "Hel"),
      agentDelta("m-1", "lo"),
      itemCompleted({ type: "agentMessage", id: "m-1", text: "Hello" }),
    ]);
    expect(types(evs)).toEqual(["item.started", "content.delta", "content.delta", "item.completed"]);
    const ids = new Set(evs.map((e) => e.itemId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^itm_/);
    for (const e of evs) expect(e.providerRefs?.providerItemId).toBe("m-1");
  });

  it("different provider threads / items get different canonical ids; a known thread keeps its id", () => {
    const n = det();
    const a = n.push({ method: "thread/started", params: { thread: { id: "thread-1" } } });
    const b = n.push({ method: "thread/started", params: { thread: { id: "thread-2" } } });
    const a2 = n.push({ method: "thread/status/changed", params: { threadId: "thread-1", status: { type: "idle" } } });
    expect(a[0].threadId).toMatch(/^thr_/);
    expect(b[0].threadId).toMatch(/^thr_/);
    expect(a[0].threadId).not.toBe(b[0].threadId);
    expect(a2[0].threadId).toBe(a[0].threadId);
    const i1 = n.push(itemStarted({ type: "agentMessage", id: "x-1", text: "" }, "thread-1"));
    const i2 = n.push(itemStarted({ type: "agentMessage", id: "x-2", text: "" }, "thread-2"));
    expect(i1[0].itemId).not.toBe(i2[0].itemId);
    expect(i1[0].threadId).toBe(a[0].threadId);
    expect(i2[0].threadId).toBe(b[0].threadId);
  });

  it("hostile provider ids (__proto__, constructor) are ordinary ids", () => {
    const n = det();
    const evs = pushAll(n, [
      JSON.parse('{"method":"item/started","params":{"threadId":"constructor","turnId":"__proto__","item":{"type":"agentMessage","id":"__proto__","text":""}}}'),
      JSON.parse('{"method":"item/agentMessage/delta","params":{"threadId":"constructor","turnId":"__proto__","itemId":"__proto__","delta":"hi"}}'),
      JSON.parse('{"method":"item/completed","params":{"threadId":"constructor","turnId":"__proto__","item":{"type":"agentMessage","id":"__proto__","text":"hi"}}}'),
    ]);
    expect(types(evs)).toEqual(["item.started", "content.delta", "item.completed"]);
    expect(new Set(evs.map((e) => e.itemId)).size).toBe(1);
    expect(new Set(evs.map((e) => e.threadId)).size).toBe(1);
    expect(evs[0].providerRefs).toMatchObject({ providerThreadId: "constructor", providerTurnId: "__proto__", providerItemId: "__proto__" });
    for (const e of evs) expect(validateCanonicalEvent(e)).toBe(true);
  });
});

describe("sequence and determinism", () => {
  for (const name of FIXTURES) {
    it(`${name}: sequence increases by exactly 1 per event, end() included`, () => {
      const { events, endEvents } = runFixture(name);
      expect(events.length).toBeGreaterThan(10);
      for (let i = 1; i < events.length; i++) expect(events[i].sequence, `event ${i} (${events[i].type})`).toBe(events[i - 1].sequence + 1);
      // eventIds are unique
      expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
      void endEvents;
    });
  }

  it("each normalizer has its own sequence", () => {
    const a = runFixture(FIXTURES[0]).events;
    const b = runFixture(FIXTURES[0]).events;
    expect(b[0].sequence).toBe(a[0].sequence);
    const n1 = det();
    const n2 = det();
    const x = n1.push({ method: "thread/started", params: { thread: { id: "t" } } });
    n1.push({ method: "thread/archived", params: { threadId: "t" } });
    const y = n2.push({ method: "thread/started", params: { thread: { id: "t" } } });
    expect(y[0].sequence).toBe(x[0].sequence);
  });

  for (const name of FIXTURES) {
    it(`${name}: two runs with counterIds + steppingClock produce identical JSON`, () => {
      const a = JSON.stringify(runFixture(name).events);
      const b = JSON.stringify(runFixture(name).events);
      expect(a.length).toBeGreaterThan(1000);
      expect(b).toBe(a);
    });
  }

  it("default (random) ids: valid but different across runs", () => {
    const n1 = createNormalizer({ surface: SURFACE });
    const n2 = createNormalizer({ surface: SURFACE });
    const a = runFixture(FIXTURES[0], n1).events;
    const b = runFixture(FIXTURES[0], n2).events;
    expect(types(b)).toEqual(types(a));
    for (const e of [...a, ...b]) expect(validateCanonicalEvent(e), `${e.type} ${JSON.stringify((validateCanonicalEvent as any).errors)}`).toBe(true);
    expect(n1.sessionId).toMatch(/^ses_/);
    expect(n1.sessionId).not.toBe(n2.sessionId);
    const idsA = new Set(a.map((e) => e.eventId));
    for (const e of b) expect(idsA.has(e.eventId)).toBe(false);
    const threadA = a.find((e) => e.threadId)!.threadId;
    const threadB = b.find((e) => e.threadId)!.threadId;
    expect(threadA).not.toBe(threadB);
    // createdAt comes from the real clock and is an ISO timestamp
    for (const e of a) expect(Number.isNaN(Date.parse(e.createdAt))).toBe(false);
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("request correlation", () => {
  for (const answerDirection of ["out", undefined] as const) {
    it(`approval request → answer (direction ${answerDirection ?? "inferred"}) → serverRequest/resolved: one opened, one resolved`, () => {
      const n = det();
      const opened = n.push(approval(0), { direction: answerDirection === "out" ? "in" : undefined });
      const answered = n.push({ id: 0, result: { decision: "accept" } }, { direction: answerDirection });
      const late = n.push({ method: "serverRequest/resolved", params: { threadId: T, requestId: 0 } });
      const all = [...opened, ...answered, ...late];
      const o = ofType(all, "request.opened");
      const r = ofType(all, "request.resolved");
      expect(o).toHaveLength(1);
      expect(r).toHaveLength(1);
      expect(o[0].requestId).toMatch(/^req_/);
      expect(r[0].requestId).toBe(o[0].requestId);
      expect(P(o[0]).requestType).toBe("command_execution_approval");
      expect(P(r[0]).requestType).toBe("command_execution_approval");
      expect(P(r[0]).decision).toBe("allow_once");
      expect(r[0].providerRefs?.providerRequestId).toBe("0");
      expect(answered.map((e) => e.type)).toEqual(["request.resolved"]);
      expect(late).toEqual([]);
      expect(ofType(all, "runtime.warning")).toEqual([]);
      expect(n.end()).toEqual([]);
    });
  }

  for (const order of ["server request answered first", "client request answered first"] as const) {
    it(`overlapping ids: client request 0 and server request 0 pending together (${order})`, () => {
      const n = det();
      expect(n.push(initialize(0), { direction: "out" })).toEqual([]);
      const opened = n.push(approval(0), { direction: "in" });
      expect(types(opened)).toEqual(["request.opened"]);
      const answerApproval = () => n.push({ id: 0, result: { decision: "decline" } }, { direction: "out" });
      const answerInit = () => n.push(initializeResult(0), { direction: "in" });
      let ra: CanonicalEvent[], ri: CanonicalEvent[];
      if (order === "server request answered first") { ra = answerApproval(); ri = answerInit(); }
      else { ri = answerInit(); ra = answerApproval(); }
      expect(types(ra)).toEqual(["request.resolved"]);
      expect(ra[0].requestId).toBe(opened[0].requestId);
      expect(P(ra[0])).toMatchObject({ requestType: "command_execution_approval", decision: "reject_once" });
      expect(types(ri)).toEqual(["session.started", "session.configured"]);
      expect(P(ri[0]).message).toBe("tester/0.171.0");
      expect(n.stats().unknown).toBe(0);
      expect(n.end()).toEqual([]);
    });
  }

  it("serverRequest/resolved before the client's answer resolves once (requestType kept); the late answer adds nothing", () => {
    const n = det();
    const opened = n.push(approval(0), { direction: "in" });
    const resolved = n.push({ method: "serverRequest/resolved", params: { threadId: T, requestId: 0 } });
    expect(types(resolved)).toEqual(["request.resolved"]);
    expect(resolved[0].requestId).toBe(opened[0].requestId);
    expect(P(resolved[0]).requestType).toBe("command_execution_approval");
    const late = n.push({ id: 0, result: { decision: "accept" } }, { direction: "out" });
    expect(late).toEqual([]);
    expect(n.stats().unknown).toBe(0);
    expect(n.end()).toEqual([]);
  });

  it("item/tool/requestUserInput → user-input.requested + request.opened; its answer → user-input.resolved + request.resolved", () => {
    const n = det();
    const questions = [{ id: "lang", header: "Language", question: "Which language?", options: [{ label: "Python", description: "py" }] }];
    const asked = n.push({ id: 5, method: "item/tool/requestUserInput", params: { threadId: T, turnId: U, itemId: "q-1", isBlocking: true, questions } }, { direction: "in" });
    expect(types(asked)).toEqual(["user-input.requested", "request.opened"]);
    expect(P(asked[0]).questions).toEqual([{ id: "lang", prompt: "Which language?", header: "Language", options: [{ id: "Python", label: "Python", description: "py" }], multiSelect: false, freeText: false }]);
    expect(P(asked[0]).data).toEqual(questions);
    expect(P(asked[1]).requestType).toBe("tool_user_input");
    expect(asked[0].requestId).toMatch(/^req_/);
    expect(asked[1].requestId).toBe(asked[0].requestId);
    const answers = { lang: { answers: ["Python"] } };
    const answered = n.push({ id: 5, result: { answers } }, { direction: "out" });
    expect(types(answered)).toEqual(["user-input.resolved", "request.resolved"]);
    expect(P(answered[0]).answers).toEqual({ lang: ["Python"] });
    expect(P(answered[0]).data).toEqual(answers);
    expect(P(answered[1]).requestType).toBe("tool_user_input");
    for (const e of answered) expect(e.requestId).toBe(asked[0].requestId);
    expect(n.push({ method: "serverRequest/resolved", params: { threadId: T, requestId: 5 } })).toEqual([]);
  });

  // JSON-RPC ids only need to be unique among *pending* requests: once request 0 is answered, a new request 0 is a
  // different request (the dev recording codex-commitmsg-approval-frames.jsonl has exactly this).
  it("a server request id reused after the earlier request was answered is a new request", () => {
    const n = det();
    const first = pushAll(n, [
      [approval(0, "cmd-1"), "in"],
      [{ id: 0, result: { decision: "accept" } }, "out"],
      { method: "serverRequest/resolved", params: { threadId: T, requestId: 0 } },
    ]);
    const second = pushAll(n, [
      [approval(0, "cmd-2"), "in"],
      [{ id: 0, result: { decision: "decline" } }, "out"],
    ]);
    const o1 = ofType(first, "request.opened");
    const o2 = ofType(second, "request.opened");
    expect(o1).toHaveLength(1);
    expect(o2).toHaveLength(1);
    expect(o2[0].requestId, "the second request gets its own canonical id").not.toBe(o1[0].requestId);
    const r2 = ofType(second, "request.resolved");
    expect(r2, "the answer to the second request resolves it").toHaveLength(1);
    expect(r2[0].requestId).toBe(o2[0].requestId);
    expect(P(r2[0]).decision).toBe("reject_once");
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("unknown, ignored and malformed input", () => {
  afterEach(() => {
    delete (Object.prototype as any).polluted;
  });

  it("an unknown notification method → exactly one runtime.warning carrying the raw message; stats().unknown + 1", () => {
    const n = det();
    const msg = { method: "brand/new_thing", params: { threadId: T, x: [1, 2, 3] } };
    const before = n.stats().unknown;
    const evs = n.push(msg);
    expect(types(evs)).toEqual(["runtime.warning"]);
    expect(evs[0].raw?.payload).toEqual(msg);
    expect(P(evs[0]).message).toContain("brand/new_thing");
    expect(n.stats().unknown).toBe(before + 1);
    expect(validateCanonicalEvent(evs[0])).toBe(true);
  });

  it("an ignored method → no events, counted under its ignore entry", () => {
    const n = det();
    const entry = TABLE.ignored.notification?.["skills/changed"];
    expect(entry, "skills/changed is listed under `ignored` in the table").toBeTypeOf("string");
    expect(n.push({ method: "skills/changed", params: {} })).toEqual([]);
    expect(n.push({ method: "skills/changed", params: {} })).toEqual([]);
    const s = n.stats();
    expect(s.ignored[`${entry!}:skills/changed`]).toBe(2); // the key names the entry and the method
    expect(s.unknown).toBe(0);
    expect(s.events).toBe(0);
  });

  it("a response to an unknown id → runtime.warning", () => {
    const n = det();
    const msg = { id: 4242, result: { ok: true } };
    const evs = n.push(msg);
    expect(types(evs)).toEqual(["runtime.warning"]);
    expect(P(evs[0]).message).toContain("4242");
    expect(evs[0].raw?.payload).toEqual(msg);
    const evs2 = n.push({ id: 4243, error: { code: 1, message: "x" } }, { direction: "out" });
    expect(types(evs2)).toEqual(["runtime.warning"]);
  });

  // Method names are looked up in plain objects; names of Object.prototype members must still be "unknown".
  for (const method of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    it(`a method named "${method}" is an unknown method → runtime.warning (not an internal error)`, () => {
      const n = det();
      const msg = JSON.parse(JSON.stringify({ method, params: {} }));
      const evs = n.push(msg);
      expect(types(evs)).toEqual(["runtime.warning"]);
      expect(evs[0].raw?.payload).toEqual(msg);
      expect(n.stats().unknown).toBe(1);
      expect(n.stats().invalid).toBe(0);
    });
  }

  it("malformed messages never throw and each yields one runtime.error validation_error", () => {
    const n = det();
    const inputs: unknown[] = [null, 42, [1], "x", {}, true];
    for (const x of inputs) {
      let evs: CanonicalEvent[] = [];
      expect(() => { evs = n.push(x); }).not.toThrow();
      const errs = ofType(evs, "runtime.error");
      expect(errs, `input ${JSON.stringify(x)}`).toHaveLength(1);
      expect(P(errs[0]).class).toBe("validation_error");
      expect(validateCanonicalEvent(errs[0])).toBe(true);
    }
    expect(n.stats().invalid).toBe(inputs.length);
  });

  // push(message: unknown) from JS can receive undefined (e.g. a missing field of a caller's wrapper); the
  // runtime.error it yields must still be a canonical event (raw.payload is required by the schema).
  it("push(undefined) never throws and yields a schema-valid runtime.error validation_error", () => {
    const n = det();
    let evs: CanonicalEvent[] = [];
    expect(() => { evs = n.push(undefined); }).not.toThrow();
    expect(types(evs)).toEqual(["runtime.error"]);
    expect(P(evs[0]).class).toBe("validation_error");
    expect(validateCanonicalEvent(evs[0]), JSON.stringify((validateCanonicalEvent as any).errors)).toBe(true);
  });

  it("pushLine with invalid JSON → runtime.error validation_error naming the line number", () => {
    const n = det();
    let evs: CanonicalEvent[] = [];
    expect(() => { evs = n.pushLine("{not json", { lineNumber: 7 }); }).not.toThrow();
    expect(types(evs)).toEqual(["runtime.error"]);
    expect(P(evs[0]).class).toBe("validation_error");
    expect(P(evs[0]).message).toMatch(/\b7\b/);
    expect(validateCanonicalEvent(evs[0])).toBe(true);
    expect(n.stats().invalid).toBe(1);
    // blank lines are not messages
    expect(n.pushLine("   ")).toEqual([]);
  });

  it("pushLine: a recorder's own line in a capture (a channel naming no direction, no message) → no events, counted as ignored", () => {
    const n = det();
    const line = JSON.stringify({ ts: "2026-03-01T01:36:40.875Z", channel: "scenario-result", scenario: "session/prompt", result: { stopReason: "end_turn" } });
    expect(n.pushLine(line, { lineNumber: 3 })).toEqual([]);
    const s = n.stats();
    expect(s.outcomes.ignored).toBe(1);
    expect(s.invalid).toBe(0);
    expect(Object.entries(s.ignored)).toEqual([[expect.stringMatching(/^agentnorm#capture-record: /), 1]]);
    // one key, whatever the channel (a hostile stream's channel names do not grow the stats)
    n.pushLine(JSON.stringify({ channel: "x".repeat(50), note: 1 }));
    expect(Object.keys(n.stats().ignored)).toHaveLength(1);
    // a capture wrapper with a direction still carries its message; a line naming a method is a message, whatever its channel
    expect(types(n.pushLine(JSON.stringify({ ts: "x", channel: "server->client", message: { method: "brand/new_thing", params: {} } })))).toEqual(["runtime.warning"]);
    expect(types(n.pushLine(JSON.stringify({ channel: "scenario-result", method: "brand/new_thing", params: {} })))).toEqual(["runtime.warning"]);
    // a wrapper of our own recorder's (seq, dir) is never the recorder's own line, whatever it lacks
    expect(types(n.pushLine(JSON.stringify({ seq: 4, dir: "out", channel: "permission" })))).not.toEqual([]);
    expect(n.stats().outcomes.ignored).toBe(2);
  });

  it("a known method missing a required id → no orphan item event, validation_errors naming the field and the event", () => {
    const n = det();
    const evs = n.push({ method: "item/agentMessage/delta", params: { threadId: T, turnId: U, delta: "orphan text" } });
    expect(ofType(evs, "content.delta")).toHaveLength(0);
    const errs = ofType(evs, "runtime.error");
    expect(errs).toHaveLength(2);
    for (const e of errs) expect(P(e).class).toBe("validation_error");
    expect(P(errs[0]).message).toContain("content.delta needs an item");
    expect(P(errs[1]).message).toContain("itemId");
    expect(errs[0].raw?.payload).toMatchObject({ params: { delta: "orphan text" } });
    for (const e of evs) expect(validateCanonicalEvent(e)).toBe(true);
  });

  it("hostile keys (__proto__, constructor.prototype) in provider data do not pollute Object.prototype", () => {
    const n = det();
    const lines = [
      '{"method":"thread/started","params":{"thread":{"id":"t-h","__proto__":{"polluted":true}},"__proto__":{"polluted":true}}}',
      '{"method":"item/started","params":{"threadId":"t-h","turnId":"u-h","__proto__":{"polluted":true},"item":{"type":"agentMessage","id":"m-h","text":"","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}}',
      '{"method":"item/completed","params":{"threadId":"t-h","turnId":"u-h","item":{"type":"agentMessage","id":"m-h","text":"x","__proto__":{"polluted":true}}}}',
      '{"id":9,"method":"item/commandExecution/requestApproval","params":{"threadId":"t-h","turnId":"u-h","itemId":"c","__proto__":{"polluted":true}}}',
      '{"id":9,"result":{"decision":"accept","__proto__":{"polluted":true}}}',
      '{"method":"thread/read","id":10,"params":{"threadId":"t-h2"}}',
      '{"id":10,"result":{"__proto__":{"polluted":true},"thread":{"id":"t-h2","__proto__":{"polluted":true},"turns":[{"id":"u2","status":"completed","__proto__":{"polluted":true},"items":[{"type":"agentMessage","id":"m2","text":"y","__proto__":{"polluted":true}}]}]}}}',
      '{"direction":"in","message":{"method":"warning","params":{"message":"w","__proto__":{"polluted":true}}},"__proto__":{"polluted":true}}',
      '{"method":"item/started","params":{"threadId":"t-h","turnId":"u-h","item":{"type":"__proto__","id":"m-k","status":"constructor"}}}',
    ];
    const evs: CanonicalEvent[] = [];
    for (const l of lines) evs.push(...n.pushLine(l));
    expect(({} as any).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
    expect(types(evs)).toContain("item.started");
    expect(types(evs)).toContain("request.resolved");
    expect(types(evs)).toContain("runtime.warning");
    for (const e of evs) expect(validateCanonicalEvent(e), `${e.type}: ${JSON.stringify((validateCanonicalEvent as any).errors)}`).toBe(true);
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("end()", () => {
  it("reports an item still open and a request still unanswered, once", () => {
    const n = det();
    const started = n.push(itemStarted({ type: "commandExecution", id: "cmd-open", command: "sleep 100", cwd: "/w", commandActions: [], status: "inProgress" }));
    const opened = n.push(approval(3, "cmd-open"), { direction: "in" });
    expect(types(started)).toEqual(["item.started"]);
    expect(types(opened)).toEqual(["request.opened"]);
    const itemId = started[0].itemId!;
    const requestId = opened[0].requestId!;
    const end1 = n.end();
    expect(end1.length).toBeGreaterThan(0);
    for (const e of end1) {
      expect(e.type).toBe("runtime.warning");
      expect(validateCanonicalEvent(e)).toBe(true);
    }
    const aboutItem = end1.filter((e) => e.itemId === itemId);
    const aboutRequest = end1.filter((e) => e.requestId === requestId);
    expect(aboutItem, "a warning with itemId set").toHaveLength(1);
    expect(aboutRequest, "a warning with requestId set").toHaveLength(1);
    expect(P(aboutItem[0]).message).toMatch(/item/);
    expect(P(aboutRequest[0]).message).toMatch(/request/);
    // sequence continues
    expect(end1[0].sequence).toBe(opened[0].sequence + 1);
    const end2 = n.end();
    expect(end2.filter((e) => e.itemId === itemId || e.requestId === requestId)).toEqual([]);
    expect(end2).toEqual([]);
  });

  it("a fully answered fixture ends with nothing open", () => {
    for (const name of FIXTURES) {
      const { endEvents } = runFixture(name);
      expect(endEvents, name).toEqual([]);
    }
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("deltas vs snapshots", () => {
  it("3 deltas then item/completed with the full text → exactly 3 content.delta, nothing extra", () => {
    const n = det();
    const evs = pushAll(n, [
      itemStarted({ type: "agentMessage", id: "m", text: "" }),
      agentDelta("m", "Hello, "),
      agentDelta("m", "wide "),
      agentDelta("m", "world."),
      itemCompleted({ type: "agentMessage", id: "m", text: "Hello, wide world." }),
    ]);
    const deltas = ofType(evs, "content.delta");
    expect(deltas).toHaveLength(3);
    expect(deltas.map((e) => P(e).delta).join("")).toBe("Hello, wide world.");
    expect(types(evs)).toEqual(["item.started", "content.delta", "content.delta", "content.delta", "item.completed"]);
  });

  it("item/completed with text and no prior deltas → one content.delta with the whole text, before item.completed", () => {
    const n = det();
    const evs = pushAll(n, [
      itemStarted({ type: "agentMessage", id: "m", text: "" }),
      itemCompleted({ type: "agentMessage", id: "m", text: "All in one go." }),
    ]);
    expect(types(evs)).toEqual(["item.started", "content.delta", "item.completed"]);
    expect(P(evs[1])).toEqual({ streamKind: "assistant_text", delta: "All in one go." });
    expect(evs[1].itemId).toBe(evs[0].itemId);
  });

  it("a snapshot that extends the streamed text emits only the missing suffix", () => {
    const n = det();
    const evs = pushAll(n, [
      itemStarted({ type: "agentMessage", id: "m", text: "" }),
      agentDelta("m", "The quick "),
      agentDelta("m", "brown"),
      itemCompleted({ type: "agentMessage", id: "m", text: "The quick brown fox." }),
    ]);
    const deltas = ofType(evs, "content.delta").map((e) => P(e).delta);
    expect(deltas).toEqual(["The quick ", "brown", " fox."]);
    expect(evs[evs.length - 1].type).toBe("item.completed");
  });

  it("reasoning summary parts are completed per summaryIndex", () => {
    const n = det();
    const evs = pushAll(n, [
      itemStarted({ type: "reasoning", id: "r", summary: [], content: [] }),
      { method: "item/reasoning/summaryTextDelta", params: { threadId: T, turnId: U, itemId: "r", summaryIndex: 0, delta: "First " } },
      itemCompleted({ type: "reasoning", id: "r", summary: ["First part.", "Second part."], content: [] }),
    ]);
    const deltas = ofType(evs, "content.delta").map((e) => [P(e).summaryIndex, P(e).delta]);
    expect(deltas).toEqual([[0, "First "], [0, "part."], [1, "Second part."]]);
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("restored history (thread/read) parity", () => {
  const NAME = "approval-session.ndjson";

  /** The last client request with method thread/read and the response with its id. */
  function lastThreadRead(lines: string[]): { request: any; response: any; responseIndex: number } {
    const msgs = lines.map((l) => JSON.parse(l));
    let reqIndex = -1;
    msgs.forEach((m, i) => { if (m.method === "thread/read" && m.id !== undefined) reqIndex = i; });
    expect(reqIndex).toBeGreaterThanOrEqual(0);
    const request = msgs[reqIndex];
    const responseIndex = msgs.findIndex((m, i) => i > reqIndex && m.method === undefined && m.id === request.id && "result" in m);
    expect(responseIndex).toBeGreaterThan(reqIndex);
    return { request, response: msgs[responseIndex], responseIndex };
  }

  const ITEM_EVENTS = new Set(["item.started", "item.completed", "content.delta"]);
  /** (providerItemId, type, itemType, streamKind) per item event, consecutive identical delta entries collapsed. */
  function itemTrace(evs: CanonicalEvent[]): string[] {
    const out: string[] = [];
    for (const e of evs) {
      if (!ITEM_EVENTS.has(e.type) || !e.itemId) continue;
      const k = [e.providerRefs?.providerItemId, e.type, P(e).itemType ?? "", P(e).streamKind ?? ""].join(" | ");
      if (e.type === "content.delta" && out[out.length - 1] === k) continue;
      out.push(k);
    }
    return out;
  }
  function textPerItem(evs: CanonicalEvent[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of ofType(evs, "content.delta")) {
      const k = `${e.providerRefs?.providerItemId} ${P(e).streamKind}:${P(e).summaryIndex ?? P(e).contentIndex ?? ""}`;
      out[k] = (out[k] ?? "") + P(e).delta;
    }
    return out;
  }

  it("a fresh normalizer fed only thread/read + its response yields the live items and texts", () => {
    const lines = fixtureLines(NAME);
    const live = runFixture(NAME).events;
    const { request, response } = lastThreadRead(lines);
    const n = det();
    const restored = [...n.push(request, { direction: "out" }), ...n.push(response, { direction: "in" }), ...n.end()];
    expect(ofType(restored, "runtime.warning")).toEqual([]);
    expect(ofType(restored, "runtime.error")).toEqual([]);

    const liveTrace = itemTrace(live);
    const restoredTrace = itemTrace(restored);
    expect(liveTrace.length).toBeGreaterThanOrEqual(12);
    expect(restoredTrace).toEqual(liveTrace);

    const liveText = textPerItem(live);
    const restoredText = textPerItem(restored);
    const textKinds = Object.keys(liveText).filter((k) => /assistant_text|reasoning/.test(k));
    expect(textKinds.length).toBeGreaterThanOrEqual(2);
    expect(restoredText).toEqual(liveText);

    // the restored thread / turn lifecycle is present too
    expect(ofType(restored, "thread.started")).toHaveLength(1);
    expect(ofType(restored, "turn.started")).toHaveLength(1);
    expect(ofType(restored, "turn.completed")).toHaveLength(1);
  });

  it("in the live run, the final thread/read replay emits no duplicate item events", () => {
    const lines = fixtureLines(NAME);
    const { responseIndex } = lastThreadRead(lines);
    const { perLine, events } = runFixture(NAME);
    const fromReplay = perLine[responseIndex];
    expect(fromReplay.filter((e) => /^(item\.|content\.delta|turn\.|thread\.started)/.test(e.type))).toEqual([]);
    // and over the whole live run every provider item starts and completes once
    const started = new Map<string, number>();
    const completed = new Map<string, number>();
    for (const e of events) {
      const p = e.providerRefs?.providerItemId;
      if (!p) continue;
      if (e.type === "item.started") started.set(p, (started.get(p) ?? 0) + 1);
      if (e.type === "item.completed") completed.set(p, (completed.get(p) ?? 0) + 1);
    }
    expect(started.size).toBeGreaterThanOrEqual(6);
    for (const [p, c] of started) {
      expect(c, `item.started for ${p}`).toBe(1);
      expect(completed.get(p), `item.completed for ${p}`).toBe(1);
    }
  });
});

// ─────────────────────────────────────────────────────────────────────────────────────────────

describe("schema validity and packaging", () => {
  for (const name of FIXTURES) {
    it(`${name}: every event validates against the canonical schema`, () => {
      const { events } = runFixture(name);
      const bad = events
        .filter((e) => !validateCanonicalEvent(e))
        .map((e) => { validateCanonicalEvent(e); return `#${e.sequence} ${e.type}: ${JSON.stringify((validateCanonicalEvent as any).errors)}`; });
      expect(bad).toEqual([]);
      // and the fixtures are mapped without runtime problems
      expect(events.filter((e) => e.type === "runtime.warning" || (e.type === "runtime.error" && P(e).class !== "provider_error"))).toEqual([]);
    });
  }

  it("the validator module is standalone (no require, no import)", () => {
    const text = readFileSync(join(ROOT, "generated/validators/canonical-event.gen.ts"), "utf8");
    expect(text.length).toBeGreaterThan(10_000);
    expect(text).not.toContain("require(");
    expect(text).not.toMatch(/(^|;)\s*import\s*[\w{*"']/m); // static import statements
    expect(text).not.toMatch(/\bimport\s*\(/); // dynamic import()
    expect(text).toContain("export const validateCanonicalEvent");
  });

  it("the validator rejects events that break the schema", () => {
    const [good] = det().push({ method: "thread/started", params: { thread: { id: "t" } } });
    expect(validateCanonicalEvent(good)).toBe(true);
    expect(validateCanonicalEvent({ ...good, threadId: "t" })).toBe(false); // a provider id in a canonical field
    expect(validateCanonicalEvent({ ...good, type: "nope" })).toBe(false);
    expect(validateCanonicalEvent({ ...good, payload: { providerThreadId: 5 } })).toBe(false);
  });

  it("src/version.ts VERSION equals package.json version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(VERSION).toBe(pkg.version);
  });
});

describe("unwrap: capture wrappers vs messages that carry a message field", () => {
  it("unwraps {dir, message} capture lines but leaves typed messages (Claude SDK) alone", async () => {
    const { unwrap } = await import("../src/capture/unwrap.js");
    expect(unwrap({ seq: 1, dir: "in", message: { method: "x" } })).toEqual({ message: { method: "x" }, direction: "in" });
    const claude = { type: "assistant", message: { id: "msg_1", content: [] }, session_id: "s" };
    expect(unwrap(claude)).toEqual({ message: claude });
  });

  it("a wrapper naming a direction may hold the message as `m`, or as its JSON text in `json`; client logs' direction words", async () => {
    const { unwrap } = await import("../src/capture/unwrap.js");
    const msg = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    expect(unwrap({ dir: "out", m: msg })).toEqual({ message: msg, direction: "out" });
    expect(unwrap({ ts: "2025-01-01T00:00:00Z", direction: "fromClient", json: JSON.stringify(msg) })).toEqual({ message: msg, direction: "out", fromText: true });
    expect(unwrap({ direction: "fromAgent", json: ` ${JSON.stringify(msg)}` }).direction).toBe("in");
    for (const [word, dir] of [["inbound", "in"], ["outbound", "out"], ["toAgent", "out"], ["toClient", "in"], ["fromServer", "in"], ["toServer", "out"]]) {
      expect(unwrap({ direction: word, m: msg }).direction).toBe(dir);
    }
    // no direction word: `m` and `json` are nobody's wrapper (Codex's {id, msg} and any message with such fields stay whole)
    for (const x of [{ m: msg }, { json: JSON.stringify(msg) }, { dir: "sideways", m: msg }, { id: "0", msg: { type: "task_started" } }]) expect(unwrap(x)).toEqual({ message: x });
    // json that is no object's text is not unwrapped
    for (const json of ["not json", "[1,2]", "42", '{"a":'] as const) expect(unwrap({ dir: "in", json })).toEqual({ message: { dir: "in", json } });
  });

  it("a message held as JSON text is checked for nesting like any pushed message (its text was a string to the line's scan)", () => {
    const deep = "[".repeat(3000) + "]".repeat(3000);
    const line = JSON.stringify({ direction: "fromAgent", json: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":${deep}}}` });
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
    let out: CanonicalEvent[] = [];
    expect(() => { out = n.pushLine(line); }).not.toThrow();
    expect(out.map((e) => [e.type, (e.payload as any).message])).toEqual([["runtime.error", "message nests deeper than 1000 levels: not mapped"]]);
    expect(n.stats().outcomes.malformed).toBe(1);
  });
});
