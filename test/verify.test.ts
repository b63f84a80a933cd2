/**
 * The stream verifier (src/verify/verify.ts): each rule fires on a stream built to break it and stays quiet on the
 * fixed version; every fixture in fixtures/ (provider streams normalized, committed canonical outputs as they
 * are) verifies clean; `agentnorm verify` exits 1 on a violation and prints NDJSON with --json.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createVerifier, verifyEvents, VERIFY_RULES, type VerifyFinding } from "../src/verify/verify.js";
import { expectVerified } from "./support/verify.js";
import { DEV_BASE, devFolder } from "./support/dev-recordings.js";
import { knownVerifierWarnings, recordings } from "./support/recorded.js";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-verify-test-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A canonical event builder: sequence and eventId advance by themselves. */
function stream() {
  let seq = 0;
  const out: any[] = [];
  const add = (type: string, payload: any, ids: Record<string, string> = {}, extra: Record<string, unknown> = {}) => {
    seq++;
    out.push({ eventId: `evt_${seq}`, schemaVersion: 2, sequence: seq, type, provider: "codex", sessionId: "ses_1", createdAt: "2026-01-01T00:00:00.000Z", ...ids, payload, raw: { source: "agentnorm.runtime", rule: "t#r", payload: null }, ...extra });
    return out[out.length - 1];
  };
  return { out, add };
}

const rules = (fs: VerifyFinding[]) => fs.map((f) => f.rule);

/** A small well-formed session: a turn with an item that streams, a request that resolves, user input answered. */
function goodSession() {
  const s = stream();
  s.add("thread.started", {}, { threadId: "thr_1" });
  s.add("turn.started", {}, { threadId: "thr_1", turnId: "trn_1" });
  s.add("item.started", { itemType: "command_execution", status: "inProgress" }, { turnId: "trn_1", itemId: "itm_1" }, { providerRefs: { providerItemId: "call_1" } });
  s.add("content.delta", { streamKind: "command_output", delta: "ok" }, { turnId: "trn_1", itemId: "itm_1" }, { providerRefs: { providerItemId: "call_1" } });
  s.add("request.opened", { requestType: "command_execution_approval" }, { turnId: "trn_1", requestId: "req_1" }, { providerRefs: { providerRequestId: "0" } });
  s.add("request.resolved", { requestType: "command_execution_approval", decision: "allow_once" }, { turnId: "trn_1", requestId: "req_1" });
  s.add("user-input.requested", { questions: [] }, { requestId: "req_2" });
  s.add("user-input.resolved", { answers: {} }, { requestId: "req_2" });
  s.add("item.completed", { itemType: "command_execution", status: "completed" }, { turnId: "trn_1", itemId: "itm_1" }, { providerRefs: { providerItemId: "call_1" } });
  s.add("turn.completed", { state: "completed" }, { turnId: "trn_1" });
  return s;
}

describe("verifier rules", () => {
  it("a well-formed session has no finding", () => {
    const r = verifyEvents(goodSession().out);
    expect(r.events).toBe(10);
    expect([...r.violations, ...r.warnings]).toEqual([]);
  });

  it("every rule is documented", () => {
    for (const k of ["schema", "sequence", "id-format", "provider-id", "item-not-started", "after-completion", "turn-terminal", "request-open-at-end", "user-input-not-requested"]) expect(VERIFY_RULES).toHaveProperty(k);
  });

  it("schema: an event the canonical schema rejects, with its sequence number and the path", () => {
    const s = goodSession();
    s.out[3].payload.streamKind = "bogus";
    const r = verifyEvents(s.out);
    expect(r.violations).toEqual([expect.objectContaining({ rule: "schema", sequence: 4, type: "content.delta", severity: "violation" })]);
    expect(r.violations[0].reason).toMatch(/streamKind|allowed values|must be equal/);
    expect(rules(verifyEvents([42]).violations)).toEqual(["schema"]);
  });

  it("sequence: must strictly increase (equal or lower is a violation)", () => {
    const s = goodSession();
    s.out[4].sequence = 4;
    expect(verifyEvents(s.out).violations.map((v) => [v.rule, v.sequence])).toEqual([["sequence", 4]]);
  });

  it("event-id-unique and id-format", () => {
    const s = goodSession();
    s.out[2].eventId = "evt_1";
    expect(rules(verifyEvents(s.out).violations)).toEqual(["event-id-unique"]);
    const t = goodSession();
    t.out[2].itemId = "call_1"; // a provider id in a canonical field (no prefix)
    const r = verifyEvents(t.out);
    expect(rules(r.violations)).toContain("id-format");
  });

  it("provider-id: a canonical field holding a value that is a provider id (even one shaped like a canonical id)", () => {
    const s = goodSession();
    // opencode's own ids look like ses_…/msg_…: prefix alone can't tell them apart
    s.add("item.started", { itemType: "assistant_message", status: "inProgress" }, { itemId: "itm_9" }, { providerRefs: { providerItemId: "itm_9" } });
    s.add("item.completed", { itemType: "assistant_message", status: "completed" }, { itemId: "itm_9" });
    expect(rules(verifyEvents(s.out).violations)).toEqual(["provider-id", "provider-id"]);
  });

  it("id-stable: one canonical id, one provider id", () => {
    const s = goodSession();
    s.out[3].providerRefs = { providerItemId: "call_2" };
    expect(rules(verifyEvents(s.out).violations)).toEqual(["id-stable"]);
  });

  it("items: start first, start once, nothing after completion; deltas only on open items", () => {
    const s = goodSession();
    s.add("content.delta", { streamKind: "command_output", delta: "late" }, { itemId: "itm_1" });
    s.add("item.updated", { itemType: "command_execution" }, { itemId: "itm_1" });
    s.add("item.completed", { itemType: "command_execution", status: "completed" }, { itemId: "itm_1" });
    s.add("item.started", { itemType: "command_execution" }, { itemId: "itm_1" });
    s.add("content.delta", { streamKind: "assistant_text", delta: "x" }, { itemId: "itm_2" });
    s.add("content.delta", { streamKind: "assistant_text", delta: "x" });
    s.add("item.started", { itemType: "reasoning" }, { itemId: "itm_3" });
    s.add("item.started", { itemType: "reasoning" }, { itemId: "itm_3" });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([
      [11, "after-completion"], [12, "after-completion"], [13, "after-completion"], [14, "after-completion"],
      [15, "item-not-started"], [16, "item-not-started"], [18, "item-restarted"],
    ]);
    expect(r.violations[0].reason).toContain("after its item.completed (#9)");
  });

  it("turn-before-thread: a turn may start only in a thread whose thread.started came first — and names one", () => {
    const s = goodSession();
    s.add("turn.started", {}, { threadId: "thr_2", turnId: "trn_2" });
    s.add("thread.started", {}, { threadId: "thr_2" });
    s.add("turn.started", {}, { threadId: "thr_2", turnId: "trn_3" });
    s.add("turn.started", {}, { turnId: "trn_4" });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([[11, "turn-before-thread"], [14, "turn-before-thread"]]);
    expect(r.violations[0].reason).toBe("turn trn_2 starts in thread thr_2, which no thread.started opened before it");
    // a turn naming no thread starts in none (Claude's first prompt before system/init used to): the thread starts first, always
    expect(r.violations[1].reason).toBe("turn trn_4 starts in no thread: turn.started names no threadId");
  });

  it("turns: one terminal event — completed or aborted, not both; nothing starts after it", () => {
    const s = goodSession();
    s.add("turn.aborted", { reason: "interrupted" }, { turnId: "trn_1" });
    s.add("item.started", { itemType: "reasoning" }, { turnId: "trn_1", itemId: "itm_5" });
    s.add("turn.started", {}, { threadId: "thr_1", turnId: "trn_1" });
    s.add("turn.started", {}, { threadId: "thr_1", turnId: "trn_2" });
    s.add("turn.started", {}, { threadId: "thr_1", turnId: "trn_2" });
    s.add("turn.completed", { state: "completed" }, { turnId: "trn_3" });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([[11, "turn-terminal"], [12, "after-turn-end"], [13, "after-turn-end"], [15, "turn-restarted"]]);
    expect(r.violations[0].reason).toContain("turn.aborted after turn.completed (#10)");
    expect(r.warnings.map((w) => w.rule)).toEqual(["turn-not-started", "item-open-at-end", "turn-open-at-end"]);
  });

  it("a terminal event naming no turn is a turn no turn.started opened (warning): a stream that ended a turn it never began", () => {
    const s = goodSession();
    s.add("turn.completed", { state: "completed" }, {});
    const r = verifyEvents(s.out);
    expect(r.violations).toEqual([]);
    expect(r.warnings.map((w) => [w.sequence, w.rule, w.reason])).toEqual([[s.out.length, "turn-not-started", "turn.completed names no turnId"]]);
  });

  it("after-turn-end: background work outlives its turn — items nested under an open background item of that turn may start after its end; nothing else may", () => {
    const s = goodSession();
    const T = { turnId: "trn_2" };
    s.add("turn.started", {}, T);
    s.add("item.started", { itemType: "collab_agent_tool_call", status: "inProgress" }, { ...T, itemId: "itm_10" });
    s.add("item.updated", { itemType: "collab_agent_tool_call", status: "inProgress", background: true }, { ...T, itemId: "itm_10" });
    s.add("item.started", { itemType: "command_execution", status: "inProgress" }, { ...T, itemId: "itm_11" });
    s.add("turn.completed", { state: "completed" }, T);
    const ok1 = s.add("item.started", { itemType: "command_execution", status: "inProgress" }, { ...T, itemId: "itm_12", parentId: "itm_10" });
    // nested twice: a subagent's own subagent
    const ok2 = s.add("item.started", { itemType: "assistant_message", status: "inProgress" }, { ...T, itemId: "itm_13", parentId: "itm_12" });
    s.add("item.completed", { itemType: "assistant_message", status: "completed" }, { ...T, itemId: "itm_13", parentId: "itm_12" });
    s.add("item.completed", { itemType: "command_execution", status: "completed" }, { ...T, itemId: "itm_12", parentId: "itm_10" });
    // not under background work: under a foreground item, under nothing
    const bad1 = s.add("item.started", { itemType: "reasoning", status: "inProgress" }, { ...T, itemId: "itm_14", parentId: "itm_11" });
    const bad2 = s.add("item.started", { itemType: "reasoning", status: "inProgress" }, { ...T, itemId: "itm_15" });
    s.add("item.completed", { itemType: "collab_agent_tool_call", status: "completed" }, { ...T, itemId: "itm_10" });
    // the background item ended: nothing more starts under it
    const bad3 = s.add("item.started", { itemType: "reasoning", status: "inProgress" }, { ...T, itemId: "itm_16", parentId: "itm_10" });
    // under a background item of another turn
    s.add("turn.started", {}, { turnId: "trn_3" });
    s.add("item.started", { itemType: "dynamic_tool_call", status: "inProgress", background: true }, { turnId: "trn_3", itemId: "itm_17" });
    s.add("turn.completed", { state: "completed" }, { turnId: "trn_3" });
    const bad4 = s.add("item.started", { itemType: "reasoning", status: "inProgress" }, { ...T, itemId: "itm_18", parentId: "itm_17" });
    const ok3 = s.add("item.started", { itemType: "reasoning", status: "inProgress" }, { turnId: "trn_3", itemId: "itm_19", parentId: "itm_17" });
    const r = verifyEvents(s.out);
    const after = r.violations.filter((v) => v.rule === "after-turn-end").map((v) => v.sequence);
    expect(after).toEqual([bad1.sequence, bad2.sequence, bad3.sequence, bad4.sequence]);
    for (const ok of [ok1, ok2, ok3]) expect(after).not.toContain(ok.sequence);
  });

  it("requests: opened once, resolved once, only if opened; open at end is a warning that says whether it was reported", () => {
    const s = goodSession();
    s.add("request.resolved", { requestType: "unknown" }, { requestId: "req_1" });
    s.add("request.resolved", { requestType: "unknown" }, { requestId: "req_7" });
    s.add("request.opened", { requestType: "unknown" }, { requestId: "req_8" });
    s.add("request.opened", { requestType: "unknown" }, { requestId: "req_8" });
    s.add("request.opened", { requestType: "unknown" }, { requestId: "req_9" });
    s.add("runtime.warning", { message: "stream ended with a request still open" }, { requestId: "req_9" }, { raw: { source: "agentnorm.runtime", rule: "agentnorm#end", payload: null } });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([[11, "request-resolved-twice"], [12, "request-not-opened"], [14, "request-reopened"]]);
    expect(r.warnings.map((w) => [w.rule, w.sequence])).toEqual([["request-open-at-end", 13], ["request-open-at-end", 15]]);
    expect(r.warnings[0].reason).toContain("cut short");
    expect(r.warnings[1].reason).toContain("reported it open");
  });

  it("request correlation: the resolution names the turn and item its opening named", () => {
    const s = goodSession();
    s.add("request.opened", { requestType: "unknown" }, { requestId: "req_5", turnId: "trn_1", itemId: "itm_1" });
    s.add("request.resolved", { requestType: "unknown" }, { requestId: "req_5" });
    s.add("request.opened", { requestType: "unknown" }, { requestId: "req_6", turnId: "trn_1" });
    s.add("request.resolved", { requestType: "unknown" }, { requestId: "req_6", turnId: "trn_1" });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([[12, "request-correlation"], [12, "request-correlation"]]);
    expect(r.violations[0].reason).toContain("names turnId (none), its request.opened (#11) trn_1");
  });

  it("user input: resolved only after requested, each once; unanswered at end is a warning", () => {
    const s = goodSession();
    s.add("user-input.resolved", { answers: {} }, { requestId: "req_2" });
    s.add("user-input.resolved", { answers: {} }, { requestId: "req_3" });
    s.add("user-input.requested", { questions: [] }, { requestId: "req_4" });
    s.add("user-input.requested", { questions: [] }, { requestId: "req_4" });
    s.add("user-input.requested", { questions: [] });
    const r = verifyEvents(s.out);
    expect(r.violations.map((v) => [v.sequence, v.rule])).toEqual([[11, "user-input-twice"], [12, "user-input-not-requested"], [14, "user-input-twice"], [15, "user-input-not-requested"]]);
    expect(r.warnings.map((w) => w.rule)).toEqual(["user-input-open-at-end"]);
  });

  it("sessions are independent: the same ids in two sessions are two lifecycles", () => {
    const a = goodSession().out;
    const b = goodSession().out.map((e) => ({ ...e, sessionId: "ses_2", eventId: e.eventId.replace("evt_", "evt_b") }));
    expect(verifyEvents([...a, ...b]).violations).toEqual([]);
  });

  it("streaming use: push returns the findings of one event, end the open-state warnings", () => {
    const v = createVerifier();
    const s = goodSession();
    for (const e of s.out.slice(0, 5)) expect(v.push(e)).toEqual([]);
    expect(rules(v.end())).toEqual(["request-open-at-end", "item-open-at-end", "turn-open-at-end"]);
    expect(v.count).toBe(5);
  });

  it("catches a normalizer that breaks the grammar: the old turn_aborted mapping (aborted AND completed)", () => {
    const s = stream();
    s.add("thread.started", {}, { threadId: "thr_1" });
    s.add("turn.started", {}, { threadId: "thr_1", turnId: "trn_1" });
    s.add("turn.aborted", { reason: "interrupted" }, { turnId: "trn_1" });
    s.add("turn.completed", { state: "interrupted" }, { turnId: "trn_1" });
    expect(rules(verifyEvents(s.out).violations)).toEqual(["turn-terminal"]);
  });
});

describe("every fixture verifies", () => {
  const provider = join(ROOT, "fixtures/codex-app-server");
  for (const f of readdirSync(provider).filter((x) => x.endsWith(".ndjson"))) {
    it(`fixtures/codex-app-server/${f} (normalized)`, () => {
      const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
      const events: CanonicalEvent[] = [];
      readFileSync(join(provider, f), "utf8").split("\n").forEach((l, i) => events.push(...n.pushLine(l, { lineNumber: i + 1 })));
      events.push(...n.end());
      expect(events.length).toBeGreaterThan(5);
      expectVerified(events, f);
    });
  }
  const recorded = join(ROOT, "fixtures/recorded");
  const expectedFiles = existsSync(recorded) ? readdirSync(recorded, { recursive: true, encoding: "utf8" }).filter((x) => x.endsWith(".expected.ndjson")).sort() : [];
  it("the committed canonical outputs exist", () => expect(expectedFiles.length).toBeGreaterThan(5));
  const refs = recordings(ROOT);
  for (const f of expectedFiles) {
    it(`fixtures/recorded/${f} (committed canonical output)`, () => {
      const events = readFileSync(join(recorded, f), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      const r = expectVerified(events, f);
      // no warnings, except those the manifest entry documents as known issues ("verifier <rule> #<sequence>")
      const known = knownVerifierWarnings(refs.find((x) => x.expectedFile === `fixtures/recorded/${f}`));
      expect(r.warnings.map((w) => `verifier ${w.rule} #${w.sequence}`)).toEqual(known);
    });
  }
});

/**
 * Dev recordings whose folder has no conformance suite of its own (those suites run expectVerified themselves):
 * every line through pushLine of the folder's surface (a folder named like a surface, or `<folder>-…`), then the
 * verifier. Folders of surfaces that do not exist yet are listed as skipped; they are picked up when the surface is.
 */
const COVERED = new Set(["acp", "claude-stream-json", "claude-transcript", "codex-app-server", "codex-eventmsg", "codex-exec", "codex-rollout"]);
const EXTRA: Record<string, { surface: string; endings: string[] }[]> = {
  "claude-wire": [{ surface: "claude-sdk", endings: [".sdk.jsonl", ".wire.jsonl"] }], // (its .transcript.jsonl: conformance.claude-transcript)
};
describe("dev recordings without a conformance suite of their own", () => {
  const folders = existsSync(DEV_BASE) && !/(^|[\\/])acceptance([\\/]|$)/.test(DEV_BASE) ? readdirSync(DEV_BASE).filter((f) => !COVERED.has(f)).sort() : [];
  if (!folders.length) it.skip(`no dev recordings at ${DEV_BASE}`, () => {});
  for (const folder of folders) {
    const surface = SURFACE_NAMES.find((s) => s === folder || s.startsWith(`${folder}-`));
    const plans = EXTRA[folder] ?? (surface ? [{ surface, endings: [".jsonl", ".ndjson", ".json"] }] : []);
    if (!plans.length) { it.skip(`${folder}: no ${folder} surface yet`, () => {}); continue; }
    const dev = devFolder(folder);
    for (const plan of plans) {
      for (const f of dev.list(...plan.endings)) {
        it(`${folder}/${f} through ${plan.surface}: zero violations`, () => {
          const n = createNormalizer({ surface: plan.surface, ids: counterIds(), clock: steppingClock() });
          const events: CanonicalEvent[] = [];
          readFileSync(join(dev.dir, f), "utf8").split("\n").forEach((l, i) => events.push(...n.pushLine(l, { lineNumber: i + 1 })));
          events.push(...n.end());
          expect(events.length).toBeGreaterThan(0);
          expectVerified(events, `${folder}/${f}`);
        });
      }
    }
  }
});

describe("agentnorm verify (CLI)", () => {
  const cli = (args: string[], input = "") => {
    const dist = join(ROOT, "dist/src/cli/cli.js");
    if (existsSync(dist)) return spawnSync(process.execPath, [dist, ...args], { cwd: ROOT, encoding: "utf8", input, timeout: 60_000 });
    return spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), ...args], { cwd: ROOT, encoding: "utf8", input, timeout: 60_000 });
  };

  it("exit 0 on a clean stream (file or stdin), with a summary on stderr", () => {
    const file = join(TMP, "good.ndjson");
    writeFileSync(file, goodSession().out.map((e) => JSON.stringify(e)).join("\n") + "\n");
    const r = cli(["verify", file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("10 event(s) verified; 0 violation(s), 0 warning(s)");
    expect(cli(["verify", "-"], readFileSync(file, "utf8")).status).toBe(0);
  });

  it("exit 1 on a violation, listed on stderr with sequence and rule; --json prints NDJSON findings; bad lines are reported with their number", () => {
    const s = goodSession();
    s.add("item.updated", { itemType: "command_execution" }, { itemId: "itm_1" });
    const text = s.out.map((e) => JSON.stringify(e)).join("\n") + "\n{oops\n";
    const r = cli(["verify", "-"], text);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/#11 item\.updated \[after-completion\]/);
    expect(r.stderr).toMatch(/line 12: not valid JSON/);
    const j = cli(["verify", "--json", "-"], text);
    expect(j.status).toBe(1);
    const found = j.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(found.map((x) => [x.rule, x.sequence ?? x.line])).toEqual([["after-completion", 11], ["json", 12]]);
  });

  it("normalize | verify: the fixture session passes end to end", () => {
    const n = cli(["normalize", "--from", "codex-app-server", "fixtures/codex-app-server/error-and-interrupt.ndjson", "--quiet"]);
    expect(n.status).toBe(0);
    const r = cli(["verify", "-"], n.stdout);
    expect(r.stderr).toMatch(/0 violation\(s\)/);
    expect(r.status).toBe(0);
  });

  it("usage errors exit 2; a missing file exits 1", () => {
    expect(cli(["verify", "a", "b"]).status).toBe(2);
    expect(cli(["verify", join(TMP, "nope.ndjson")]).status).toBe(1);
    expect(cli(["verify", "--rules"]).stdout).toContain("after-completion");
  });
});
