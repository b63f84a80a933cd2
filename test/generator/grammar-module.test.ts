/**
 * The lifecycle grammar is written once (schemas/canonical/canonical.yaml `roles` + `lifecycle`) and emitted as
 * generated/grammar.gen.ts; the runtime (src/normalize/lifecycle.ts) and the verifier read that module.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { loadCanonical } from "../../generator/canonical.ts";
import { emitGrammar, grammarLookups } from "../../generator/emit-grammar.ts";
import { formatDiagnostic } from "../../generator/diagnostics.ts";
import * as G from "../../generated/grammar.gen.js";
import { VERIFY_RULES } from "../../src/verify/verify.js";

const FILE = "schemas/canonical/canonical.yaml";
const TEXT = readFileSync(FILE, "utf8");
const YAML = parse(TEXT);
const load = (text: string) => loadCanonical(FILE, text);
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;

describe("generated/grammar.gen.ts agrees with canonical.yaml", () => {
  it("roles: id kind, envelope field and providerRefs field per role", () => {
    for (const [role, r] of Object.entries<any>(YAML.roles)) {
      expect((G.ROLE_KIND as Record<string, string>)[role]).toBe(r.id);
      expect((G.ENVELOPE_FIELD as Record<string, string | undefined>)[role]).toBe(r.field);
      expect((G.REF_FIELD as Record<string, string | undefined>)[role]).toBe(r.ref);
    }
    expect(Object.keys(G.ROLE_KIND)).toEqual(Object.keys(YAML.roles));
  });

  it("lifecycle: every entry, in order, with its events, within, needsId and verifier rules", () => {
    expect(Object.keys(G.LIFECYCLE)).toEqual(Object.keys(YAML.lifecycle));
    for (const [name, l] of Object.entries<any>(YAML.lifecycle)) {
      const g = (G.LIFECYCLE as Record<string, G.LifecycleEntry>)[name];
      expect(g.role).toBe(l.role);
      expect([g.opens, g.body, g.ends]).toEqual([l.opens ?? [], l.body ?? [], l.ends ?? []]);
      expect(g.within).toBe(l.within);
      expect(g.needsId).toBe(l.needsId === true);
      expect(g.verify).toEqual({ opens: {}, body: {}, ends: {}, ...l.verify });
    }
  });

  it("derived lookups: each lifecycle event once, with its entity and part; NEEDS_ID for needsId entities", () => {
    const expected: Record<string, { entity: string; phase: string }> = {};
    const needs: Record<string, string> = {};
    for (const [name, l] of Object.entries<any>(YAML.lifecycle)) {
      for (const phase of ["opens", "body", "ends"]) {
        for (const t of l[phase] ?? []) {
          expect(expected[t], `${t} in two lifecycles`).toBeUndefined();
          expected[t] = { entity: name, phase };
          if (l.needsId) needs[t] = l.role;
        }
      }
    }
    expect(G.EVENT_LIFECYCLE).toEqual(expected);
    expect(G.NEEDS_ID).toEqual(needs);
    expect(G.EVENT_LIFECYCLE["item.started"]).toEqual({ entity: "item", phase: "opens" });
    expect(G.NEEDS_ID["turn.started"]).toBeUndefined();
  });

  it("the committed module is what the emitter writes for the committed model", () => {
    const { model, diagnostics } = load(TEXT);
    expect(diagnostics.filter((d) => !d.code.startsWith("W"))).toEqual([]);
    const hdr = readFileSync("generated/grammar.gen.ts", "utf8").split("\n").slice(0, 2).join("\n");
    expect(emitGrammar(model!, hdr)).toBe(readFileSync("generated/grammar.gen.ts", "utf8"));
  });

  it("every verifier rule the grammar names is a VERIFY_RULES rule", () => {
    for (const [name, l] of Object.entries(G.LIFECYCLE)) {
      const names = [...Object.values(l.verify.opens), ...Object.values(l.verify.body), ...Object.values(l.verify.ends), ...(l.verify.openAtEnd ? [l.verify.openAtEnd] : [])];
      for (const r of names) expect(Object.keys(VERIFY_RULES), `${name}: ${r}`).toContain(r);
    }
  });
});

describe("a changed lifecycle entry changes what is derived from it", () => {
  it("moving content.delta out of the item body and marking turns needsId changes the lookups and the module", () => {
    const changed = TEXT
      .replace("body: [item.updated, content.delta]", "body: [item.updated]")
      .replace("    ends: [turn.completed, turn.aborted]\n", "    ends: [turn.completed, turn.aborted]\n    needsId: true\n");
    expect(changed).not.toBe(TEXT);
    const { model, diagnostics } = load(changed);
    expect(diagnostics.filter((d) => !d.code.startsWith("W"))).toEqual([]);
    const { eventLifecycle, needsId } = grammarLookups(model!);
    expect(eventLifecycle.find(([t]) => t === "content.delta")).toBeUndefined();
    expect(needsId).toContainEqual(["turn.started", "turn"]);
    expect(needsId).toContainEqual(["turn.aborted", "turn"]);
    const code = emitGrammar(model!, "// test");
    expect(code).toContain(`body: ["item.updated"],`);
    expect(code).not.toContain(`"content.delta": { entity: "item"`);
    expect(code).toContain(`"turn.started": "turn",`);
  });

  it("mistakes in the lifecycle are diagnostics at their line (E107, E109)", () => {
    const twice = TEXT.replace("body: [task.progress]", "body: [task.progress, item.updated]");
    const d1 = load(twice).diagnostics.map(formatDiagnostic);
    expect(d1).toContainEqual(expect.stringMatching(new RegExp(`^${FILE}:${lineOf(twice, "body: [task.progress, item.updated]")}:\\d+ error E107 event type "item.updated" is already in the item lifecycle`)));
    const within = TEXT.replace("within: turn", "within: session");
    expect(load(within).diagnostics.map(formatDiagnostic)).toContainEqual(`${FILE}:${lineOf(within, "within: session")}:13 error E109 "within" names "session", which is not a lifecycle entry (request, user-input, item, turn, thread, task)`);
    const finding = TEXT.replace("opens: { again: request-reopened }", "opens: { twice: request-reopened }");
    expect(load(finding).diagnostics.map(formatDiagnostic)).toContainEqual(expect.stringMatching(new RegExp(`^${FILE}:${lineOf(finding, "twice: request-reopened")}:\\d+ error E109 unknown finding "twice"`)));
  });
});

describe("the runtime and the verifier read the grammar module", () => {
  afterEach(() => {
    vi.doUnmock("../../generated/grammar.gen.js");
    vi.resetModules();
  });

  /** The runtime and verifier, loaded against a changed copy of the grammar module. */
  async function withGrammar(change: (g: typeof G) => void) {
    vi.resetModules();
    vi.doMock("../../generated/grammar.gen.js", async (importOriginal) => {
      const actual = await importOriginal<typeof G>();
      const g = structuredClone({ ROLE_KIND: actual.ROLE_KIND, ENVELOPE_FIELD: actual.ENVELOPE_FIELD, REF_FIELD: actual.REF_FIELD, LIFECYCLE: actual.LIFECYCLE, EVENT_LIFECYCLE: actual.EVENT_LIFECYCLE, NEEDS_ID: actual.NEEDS_ID }) as any;
      g.ENVELOPE_FIELDS = actual.ENVELOPE_FIELDS;
      g.newEvent = actual.newEvent;
      change(g);
      return g;
    });
    const runtime = await import("../../src/normalize/normalizer.js");
    const ids = await import("../../src/normalize/ids.js");
    const verify = await import("../../src/verify/verify.js");
    return { make: (surface: string) => runtime.createNormalizer({ surface, ids: ids.counterIds(), clock: ids.steppingClock() }), verify: verify.verifyEvents, IMPLICIT_START: runtime.IMPLICIT_START };
  }
  const delta = { method: "item/agentMessage/delta", params: { threadId: "t1", turnId: "u1", itemId: "m1", delta: "Hi" } };
  const started = { method: "item/started", params: { threadId: "t1", turnId: "u1", item: { type: "agentMessage", id: "m1", text: "" } } };

  it("as committed: a delta first gets an implicit item.started; a repeated item.started is an item-restarted violation", async () => {
    const { make, verify, IMPLICIT_START } = await withGrammar(() => {});
    const out = make("codex-app-server").push(delta);
    expect(out.map((e) => [e.type, e.raw?.rule])).toEqual([["item.started", IMPLICIT_START], ["content.delta", "codex-app-server#item-agent-message-delta"]]);
    const s = make("codex-app-server").push(started)[0];
    expect(verify([s, { ...s, eventId: "evt_x", sequence: s.sequence + 1 }]).violations.map((v) => v.rule)).toEqual(["item-restarted"]);
  });

  it("content.delta no longer in the item lifecycle: the runtime synthesizes no item.started before it", async () => {
    const { make } = await withGrammar((g: any) => {
      g.LIFECYCLE.item.body = ["item.updated"];
      delete g.EVENT_LIFECYCLE["content.delta"];
      delete g.NEEDS_ID["content.delta"];
    });
    expect(make("codex-app-server").push(delta).map((e) => e.type)).toEqual(["content.delta"]);
  });

  it("the item's verifier rule for a second opening renamed in the grammar: the verifier reports that rule", async () => {
    const { make, verify } = await withGrammar((g: any) => { g.LIFECYCLE.item.verify.opens.again = "turn-restarted"; });
    const s = make("codex-app-server").push(started)[0];
    expect(verify([s, { ...s, eventId: "evt_x", sequence: s.sequence + 1 }]).violations.map((v) => v.rule)).toEqual(["turn-restarted"]);
  });

  it("the envelope field of a role comes from the grammar", async () => {
    const { make } = await withGrammar((g: any) => { g.ENVELOPE_FIELD.item = "parentId"; });
    const e = make("codex-app-server").push(started)[0] as any;
    expect(e.itemId).toBeUndefined();
    expect(e.parentId).toMatch(/^itm_/);
  });
});
