/**
 * Conformance against real recorded Codex app-server streams (third-party data, read from
 * ../shared/recordings/dev/codex-app-server/ next to the repository, never copied into it).
 * Skipped, with a visible notice, when that folder is absent. Only dev/ is read — never acceptance/.
 *
 * Formats (../shared/recordings/README.md):
 * - recorded-*.ndjson: bare JSON-RPC lines; the sibling .dir file has one direction (in/out) per line.
 * - codex-commitmsg-*.jsonl: {commit, pr, direction, frame} wrappers (direction "unmarked" = unknown); an older
 *   protocol, so only "no exception, schema-valid output" is asserted.
 * - *.raw.txt: verbatim blocks, not replayed.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createNormalizer, type CanonicalEvent, type Direction } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { SURFACES } from "../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";
import { expectVerified } from "./support/verify.js";

const SURFACE = "codex-app-server";
const dev = devFolder(SURFACE);
const { dir: DIR, present } = dev;
const files = dev.list(".ndjson", ".jsonl");
const recorded = files.filter((f) => /^recorded-0\.171\.0-.*\.ndjson$/.test(f));
const commitmsg = files.filter((f) => /^codex-commitmsg-.*\.jsonl$/.test(f));

const WRAPPER_DIRECTION: Record<string, Direction | undefined> = {
  in: "in", out: "out", "server->client": "in", "client->server": "out", unmarked: undefined,
};

interface Input { message: unknown; direction?: Direction; line: number }

function readInputs(file: string): Input[] {
  const text = readFileSync(join(DIR, file), "utf8");
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  if (file.endsWith(".ndjson")) {
    const dirFile = join(DIR, file.replace(/\.ndjson$/, ".dir"));
    const dirs = existsSync(dirFile) ? readFileSync(dirFile, "utf8").split("\n").map((d) => d.trim()) : [];
    if (existsSync(dirFile)) expect(dirs.filter((d) => d !== "").length, `${file}: one direction per line`).toBe(lines.filter((l) => l.trim() !== "").length);
    const out: Input[] = [];
    lines.forEach((l, i) => {
      if (l.trim() === "") return;
      out.push({ message: JSON.parse(l), direction: dirs[i] === "in" || dirs[i] === "out" ? (dirs[i] as Direction) : undefined, line: i + 1 });
    });
    return out;
  }
  return lines.filter((l) => l.trim() !== "").map((l, i) => {
    const w = JSON.parse(l);
    expect(w, `${file}:${i + 1} is a {direction, frame} wrapper`).toHaveProperty("frame");
    const d = String(w.direction);
    expect(Object.keys(WRAPPER_DIRECTION), `${file}:${i + 1} direction ${d}`).toContain(d);
    return { message: w.frame, direction: WRAPPER_DIRECTION[d], line: i + 1 };
  });
}

interface Run { events: CanonicalEvent[]; perInput: CanonicalEvent[][]; endEvents: CanonicalEvent[]; inputs: Input[] }

function replay(file: string): Run {
  const inputs = readInputs(file);
  const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
  const perInput: CanonicalEvent[][] = [];
  for (const x of inputs) perInput.push(n.push(x.message, { direction: x.direction }));
  const endEvents = n.end();
  return { events: [...perInput.flat(), ...endEvents], perInput, endEvents, inputs };
}

const P = (e: CanonicalEvent): any => e.payload as any;

function schemaFailures(events: CanonicalEvent[]): string[] {
  return events.filter((e) => !validateCanonicalEvent(e)).map((e) => {
    validateCanonicalEvent(e);
    return `#${e.sequence} ${e.type}: ${JSON.stringify((validateCanonicalEvent as any).errors)}`;
  });
}

function sequenceProblems(events: CanonicalEvent[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < events.length; i++) if (!(events[i].sequence > events[i - 1].sequence)) out.push(`#${i}: ${events[i - 1].sequence} then ${events[i].sequence}`);
  return out;
}

/** Methods the table mentions: a key of table.rows[kind] or table.ignored[kind], any kind. */
function mentionedMethods(): Set<string> {
  const t = SURFACES[SURFACE];
  const out = new Set<string>();
  for (const byMethod of Object.values(t.rows)) for (const m of Object.keys(byMethod ?? {})) if (m !== "*") out.add(m);
  for (const byMethod of Object.values(t.ignored)) for (const m of Object.keys(byMethod ?? {})) out.add(m);
  return out;
}

describeDev(`conformance: ${SURFACE} dev recordings`, present, DIR, () => {

  it("finds the recordings", () => {
    expect(recorded.length).toBeGreaterThanOrEqual(1);
    expect(files.length).toBe(recorded.length + commitmsg.length);
  });

  for (const file of files) {
    describe(file, () => {
      it("replays without an exception; every event is canonical; sequence strictly increases", () => {
        let run: Run | undefined;
        expect(() => { run = replay(file); }).not.toThrow();
        expect(run!.inputs.length).toBeGreaterThan(0);
        expect(run!.events.length).toBeGreaterThan(0);
        expect(schemaFailures(run!.events)).toEqual([]);
        expect(sequenceProblems(run!.events)).toEqual([]);
        // commitmsg files are excerpts from many commits, not one session: verified per commit below
        if (!commitmsg.includes(file)) expectVerified(run!.events, file);
        // an exception inside the runtime is reported as a runtime.error "internal error"
        expect(run!.events.filter((e) => e.type === "runtime.error" && /internal error/.test(P(e).message))).toEqual([]);
      });
    });
  }

  for (const file of commitmsg) {
    it(`${file}: each commit's excerpt, replayed on its own, passes the stream verifier`, () => {
      const lines = readFileSync(join(DIR, file), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
      const commits = [...new Set(lines.map((w) => w.commit as string))];
      expect(commits.length).toBeGreaterThan(1);
      for (const commit of commits) {
        const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
        const events = lines.filter((w) => w.commit === commit).flatMap((w) => n.push(w.frame, { direction: WRAPPER_DIRECTION[String(w.direction)] }));
        expectVerified([...events, ...n.end()], `${file} @${commit.slice(0, 7)}`);
      }
    });
  }

  for (const file of recorded) {
    describe(`${file} (0.171.0 session)`, () => {
      let cached: Run | undefined;
      const get = (): Run => (cached ??= replay(file));
      const mentioned = mentionedMethods();

      it("no 'unknown' warning for a method the table mentions; no uncorrelated response", () => {
        const bad = get().events
          .filter((e) => e.type === "runtime.warning" && /unknown/i.test(P(e).message))
          .filter((e) => {
            const method = e.raw?.method ?? P(e).detail?.method;
            return method === undefined || mentioned.has(method);
          })
          .map((e) => `#${e.sequence} ${P(e).message}`);
        expect(bad).toEqual([]);
      });

      it("no validation_error runtime.error", () => {
        const bad = get().events.filter((e) => e.type === "runtime.error" && P(e).class === "validation_error").map((e) => `#${e.sequence} ${P(e).message}`);
        expect(bad).toEqual([]);
      });

      it("every request.opened has a request.resolved with the same requestId", () => {
        const opened = get().events.filter((e) => e.type === "request.opened");
        const resolved = get().events.filter((e) => e.type === "request.resolved");
        for (const o of opened) {
          expect(o.requestId, `#${o.sequence} request.opened has a requestId`).toMatch(/^req_/);
          expect(resolved.filter((r) => r.requestId === o.requestId), `resolutions of ${o.requestId}`).toHaveLength(1);
        }
        for (const r of resolved) expect(opened.some((o) => o.requestId === r.requestId), `${r.requestId} was opened`).toBe(true);
        // the sessions' server requests are all in the recording
        const serverRequests = get().inputs.filter((x) => x.direction === "in" && (x.message as any).method !== undefined && (x.message as any).id !== undefined);
        expect(opened.length).toBe(serverRequests.length);
      });

      it("every item.started has an item.completed; items start once", () => {
        const started = get().events.filter((e) => e.type === "item.started");
        const completed = get().events.filter((e) => e.type === "item.completed");
        expect(started.length).toBeGreaterThan(0);
        for (const s of started) {
          expect(started.filter((x) => x.itemId === s.itemId), `starts of ${s.itemId}`).toHaveLength(1);
          expect(completed.filter((c) => c.itemId === s.itemId), `completions of ${s.itemId} (${P(s).itemType})`).toHaveLength(1);
        }
        for (const c of completed) expect(started.some((s) => s.itemId === c.itemId), `${c.itemId} was started`).toBe(true);
      });

      it("exactly one turn.completed per turn.started", () => {
        const started = get().events.filter((e) => e.type === "turn.started");
        const completed = get().events.filter((e) => e.type === "turn.completed");
        expect(started.length).toBeGreaterThan(0);
        for (const s of started) expect(completed.filter((c) => c.turnId === s.turnId), `completions of ${s.turnId}`).toHaveLength(1);
        expect(completed.length).toBe(started.length);
      });

      it("nothing is left open at the end", () => {
        expect(get().endEvents.map((e) => `${e.type}: ${P(e).message}`)).toEqual([]);
      });

      it("the transcript has no duplicated assistant text after the final thread/read", () => {
        const streamed = new Map<string, string>();
        for (const e of get().events) {
          if (e.type === "content.delta" && P(e).streamKind === "assistant_text" && e.itemId) streamed.set(e.itemId, (streamed.get(e.itemId) ?? "") + P(e).delta);
        }
        const finals = get().events.filter((e) => e.type === "item.completed" && P(e).itemType === "assistant_message");
        expect(finals.length).toBeGreaterThan(0);
        for (const f of finals) {
          const text = P(f).data?.text;
          expect(typeof text).toBe("string");
          const got = streamed.get(f.itemId!) ?? "";
          expect(got.length, `assistant_text characters for ${f.itemId}`).toBe(text.length);
          expect(got).toBe(text);
        }
        // the session ends with a thread/read whose replay adds no item, delta or turn events
        const lastRead = get().inputs.map((x, i) => ({ x, i })).filter(({ x }) => (x.message as any).method === "thread/read").pop();
        expect(lastRead, "the recording has a thread/read").toBeDefined();
        const respIndex = get().inputs.findIndex((x, i) => i > lastRead!.i && (x.message as any).id === (lastRead!.x.message as any).id && "result" in (x.message as any));
        expect(respIndex).toBeGreaterThan(lastRead!.i);
        expect(get().perInput[respIndex].filter((e) => /^(item\.|content\.delta|turn\.|thread\.started)/.test(e.type)).map((e) => e.type)).toEqual([]);
      });
    });
  }
});

/** A normalizer with thread t1 and its turn u1 started; `note` pushes a notification from the agent. */
function inTurn() {
  const n = createNormalizer({ surface: SURFACE, ids: counterIds(), clock: steppingClock() });
  const note = (method: string, params: object) => n.push({ method, params }, { direction: "in" });
  note("thread/started", { thread: { id: "t1" } });
  note("turn/started", { threadId: "t1", turn: { id: "u1", items: [], status: "inProgress" } });
  return { n, note };
}

describe("codex-app-server: a delta replaced by an error is not counted as delivered", () => {
  it("the completed item's text then comes out whole, not from the rejected delta's end", () => {
    const { n, note } = inTurn();
    note("item/started", { threadId: "t1", turnId: "u1", item: { type: "reasoning", id: "r1", summary: [], content: [] } });
    // contentIndex as a string: not canonical, so this delta becomes a runtime.error
    const bad = note("item/reasoning/textDelta", { threadId: "t1", turnId: "u1", itemId: "r1", delta: "Think", contentIndex: "0" });
    expect(bad.map((e) => e.type)).toEqual(["runtime.error"]);
    const done = note("item/completed", { threadId: "t1", turnId: "u1", item: { type: "reasoning", id: "r1", summary: [], content: ["Thinking done"] } });
    const text = done.filter((e) => e.type === "content.delta" && P(e).streamKind === "reasoning_text").map((e) => P(e).delta).join("");
    expect(text).toBe("Thinking done");
  });
});

describe("codex-app-server: what app-servers before the pinned version sent beside the v2 notifications", () => {
  it("codex/event/* and rawResponseItem/* are ignored with their reason (pattern ignore entries); the v2 notification next to them maps", () => {
    const { n, note } = inTurn();
    const legacy = note("codex/event/item_completed", { conversationId: "t1", id: "0", msg: { type: "item_completed", thread_id: "t1", turn_id: "u1", item: { Reasoning: { id: "r1", summary_text: ["Hi"] } } } });
    const raw = note("rawResponseItem/completed", { threadId: "t1", turnId: "u1", item: { type: "reasoning", id: "r1" } });
    expect([...legacy, ...raw]).toEqual([]);
    const v2 = note("item/completed", { threadId: "t1", turnId: "u1", item: { type: "reasoning", id: "r1", summary: ["Hi"], content: [] } });
    expect(v2.map((e) => e.type)).toContain("item.completed");
    const ignored = Object.keys(n.stats().ignored);
    expect(ignored).toEqual([
      expect.stringMatching(/^codex-app-server#ignored-notification-\d+:codex\/event\/item_completed$/),
      expect.stringMatching(/^codex-app-server#ignored-notification-\d+:rawResponseItem\/completed$/),
    ]);
    expect(n.stats().outcomes.ignored).toBe(2);
    expect(n.stats().unknown).toBe(0);
    // only the prefix: a method that merely contains it is still unknown
    const other = note("x/codex/event/y", {});
    expect(other.map((e) => e.type)).toEqual(["runtime.warning"]);
  });
});
