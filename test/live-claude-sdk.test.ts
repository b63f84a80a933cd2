/**
 * The claude-sdk driver (`connect({ agent: "claude-sdk" })`, the Agent SDK's query()) against a stand-in SDK module
 * that replays a recording of the real SDK (test/support/fake-claude-sdk.mjs) — the callbacks, the spawn hook, the
 * interrupt, mode and model calls — and the missing-package error from a copy of the built package that has no SDK
 * beside it. The real SDK (0.3.337, Claude Code 2.1.337): test/live/claude.test.ts under npm run test:live.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type LiveSession } from "../src/live/index.js";
import { groupMembers } from "../src/live/process.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { P, readUntil, isEnd } from "./support/live-events.js";
// @ts-expect-error a plain ES module of the tests
import { makeSdk } from "./support/fake-claude-sdk.mjs";

const posix = process.platform !== "win32";
const recording = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "recorded", "claude-sdk", "2.1.333", `${name}.ndjson`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

function fake(lines: unknown[], script: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): { session: Promise<LiveSession>; calls: any } {
  const { module, calls } = makeSdk(lines, script);
  return {
    calls,
    session: connect({ agent: "claude-sdk", cwd: tmpdir(), claudeSdk: { module }, timeouts: { startMs: 10_000, requestMs: 5_000, interruptGraceMs: 2_000, closeGraceMs: 500 }, ...extra }),
  };
}
const types = (events: CanonicalEvent[]) => events.map((e) => e.type);

describe.skipIf(!posix)("live claude-sdk driver (a stand-in SDK module)", () => {
  it("approval: canUseTool calls become requests; answer() settles each callback with the PermissionResult (naming its tool use); the events are the recording's", async () => {
    const lines = recording("approval");
    const { session, calls } = fake(lines);
    const s = await session;
    // our session id, given to query() (the CLI states it only later, in system/init)
    expect(calls.sessionId).toBe(s.providerSessionId);
    expect(s.providerSessionId).toMatch(/^[0-9a-f-]{36}$/);
    const prompt = lines.find((l: any) => l.dir === "out" && !l.channel).message.message.content;
    const { turnId } = await s.prompt(prompt);
    const decisions = ["allow_once", "reject_once"] as const;
    let n = 0;
    const events = await readUntil(s, async (e) => {
      if (e.type === "request.opened") await s.answer(e, { decision: decisions[n++] });
      return isEnd(turnId)(e);
    });
    expect(n).toBe(2);
    // each callback got the table's answer for the sdk transport, with the request's toolUseID
    const asked = lines.filter((l: any) => l.channel === "permission" && l.dir === "in").map((l: any) => l.message.options.toolUseID);
    expect(calls.results.map((r: any) => [r.behavior, r.toolUseID])).toEqual([["allow", asked[0]], ["deny", asked[1]]]);
    expect(calls.results[0].updatedInput).toEqual(lines.find((l: any) => l.channel === "permission").message.input);
    const resolved = events.filter((e) => e.type === "request.resolved").map((e) => P(e).decision);
    expect(resolved).toEqual(["allow_once", "reject_once"]);
    // the same canonical event types as the recording itself, normalized offline
    const n2 = createNormalizer({ surface: "claude-sdk" });
    const offline: CanonicalEvent[] = [];
    for (const l of lines) offline.push(...n2.pushLine(JSON.stringify(l)));
    const strip = (ev: CanonicalEvent[]) => types(ev).filter((t) => t !== "session.started" && t !== "runtime.warning");
    expect(strip(events)).toEqual(strip(offline).slice(0, strip(events).length));
    expect(events.filter((e) => e.type === "runtime.warning")).toEqual([]);
    expect(s.pending()).toEqual([]);
    await expect(s.answer(events.find((e) => e.type === "request.opened")!, { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
    const pid = s.pid!;
    await s.close();
    expect(groupMembers(pid), "the spawned process's group is gone after close()").toEqual([]);
  });

  it("a request the SDK withdraws (its AbortSignal) is settled as cancelled, and a late answer is refused", async () => {
    const { session } = fake(recording("approval"), { withdraw: 1 });
    const s = await session;
    const { turnId } = await s.prompt("go");
    const events = await readUntil(s, async (e) => {
      if (e.type === "request.opened" && P(e).detail?.includes?.("rm ")) await s.answer(e, { decision: "reject_once" });
      return isEnd(turnId)(e);
    });
    const first = events.find((e) => e.type === "request.opened")!;
    const settled = events.find((e) => e.type === "request.resolved" && e.requestId === first.requestId)!;
    expect(P(settled)).toMatchObject({ decision: "cancelled", resolution: { reason: "Claude Code withdrew the request" } });
    await expect(s.answer(first, { decision: "allow_once" })).rejects.toMatchObject({ code: "not_pending" });
    await s.close();
  });

  it("cancel() with a request pending: the callback gets the table's cancelled answer (deny + interrupt), query.interrupt() is called, the turn ends", async () => {
    const { session, calls } = fake(recording("approval"));
    const s = await session;
    const { turnId } = await s.prompt("go");
    await readUntil(s, (e) => e.type === "request.opened");
    const cancelled = s.cancel();
    const after = await readUntil(s, isEnd(turnId));
    await cancelled;
    expect(calls.results[0]).toMatchObject({ behavior: "deny", interrupt: true });
    expect(calls.interrupts).toBe(1);
    expect(after.some((e) => e.type === "request.resolved")).toBe(true);
    expect(s.pending()).toEqual([]);
    await s.close();
  });

  it("setMode / setModel go to query.setPermissionMode / setModel; the resume option is passed as resume", async () => {
    const { session, calls } = fake(recording("plain"));
    const s = await session;
    await s.setMode("acceptEdits");
    await s.setModel("claude-opus-4-6");
    expect(calls.modes).toEqual(["acceptEdits"]);
    expect(calls.models).toEqual(["claude-opus-4-6"]);
    await expect(s.setMode("")).rejects.toMatchObject({ code: "invalid_option" });
    await s.close();
    const r = fake(recording("plain"), {}, { resume: "11111111-2222-4333-8444-555555555555" });
    const t = await r.session;
    expect(r.calls.resume).toBe("11111111-2222-4333-8444-555555555555");
    expect(r.calls.sessionId).toBeUndefined();
    expect(t.providerSessionId).toBe("11111111-2222-4333-8444-555555555555");
    await t.close();
  });

  it("a module without query() is refused at connect with a one-line error", async () => {
    await expect(connect({ agent: "claude-sdk", cwd: tmpdir(), claudeSdk: { module: {} } })).rejects.toMatchObject({ code: "start_failed", message: expect.stringContaining("has no query() function") });
  });

  it("the built package without the SDK installed: connect() fails with START_FAILED naming the package to install", async () => {
    const pkg = join(import.meta.dirname, "..", "dist", "pkg");
    expect(existsSync(join(pkg, "live.js")), "npm run build ran (npm test builds first)").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "agentnorm-no-sdk-"));
    try {
      cpSync(pkg, join(dir, "pkg"), { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      // a plain node process (vitest would resolve the import from this repository's node_modules)
      const script = `import("./pkg/live.js").then((live) => live.connect({ agent: "claude-sdk", cwd: process.cwd() })).then(() => console.log("connected"), (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })));`;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8", timeout: 30_000 }).trim();
      const err = JSON.parse(out);
      expect(err).toMatchObject({ name: "LiveError", code: "start_failed" });
      expect(err.message).toContain("npm install @anthropic-ai/claude-agent-sdk");
      expect(err.message.split("\n").length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
