/**
 * The generic ACP surface (`acp`) beyond single-row examples: our recordings of `opencode acp` 1.18.33
 * (fixtures/recorded/acp/*.ndjson, capture lines {seq, dir, message}: the live connection `<scenario>.ndjson` and the
 * session/load of the same session by a second process, `<scenario>.load.ndjson`) replayed whole, a permission
 * answer's decision and the permission response, and the CLI with `--from acp`.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { toAcpPermissionResponse } from "../src/answer/acp-permission.js";
import { expectVerified } from "./support/verify.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIX = join(ROOT, "fixtures/recorded/acp");
const fixtures = readdirSync(FIX).filter((f) => f.endsWith(".ndjson") && !f.endsWith(".expected.ndjson")).sort();

interface Capture { seq: number; dir: "in" | "out"; message: any }
const captures = (f: string): Capture[] => readFileSync(join(FIX, f), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

function replay(f: string) {
  const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
  const events: CanonicalEvent[] = [];
  for (const l of readFileSync(join(FIX, f), "utf8").split("\n")) if (l.trim()) events.push(...n.pushLine(l));
  events.push(...n.end());
  return { events, stats: n.stats() };
}
const P = (e: CanonicalEvent): any => e.payload as any;
const STOP: Record<string, string> = { end_turn: "completed", max_tokens: "completed", max_turn_requests: "completed", refusal: "failed", cancelled: "cancelled" };

describe("acp: recorded opencode acp sessions", () => {
  it("has the recordings", () => expect(fixtures.length).toBeGreaterThanOrEqual(8));

  for (const f of fixtures) {
    describe(f, () => {
      const { events, stats } = replay(f);
      const caps = captures(f);

      it("0 unknown, 0 invalid; every event is canonical", () => {
        expect(stats.unknown).toBe(0);
        expect(stats.invalid).toBe(0);
        expect(events.filter((e) => !validateCanonicalEvent(e)).map((e) => e.type)).toEqual([]);
      });

      it("raw.source is acp.* (not Cursor's cursor.acp.*) or the runtime's own", () => {
        expect([...new Set(events.map((e) => (e as any).raw?.source))].filter((x) => !/^acp\.(notification|request|response)$/.test(x) && x !== "agentnorm.runtime")).toEqual([]);
      });

      it("the stream verifier finds no violation", () => {
        expectVerified(events, f);
      });

      it("concatenated chunks equal the text of each message (assistant and reasoning)", () => {
        for (const [kind, stream] of [["agent_message_chunk", "assistant_text"], ["agent_thought_chunk", "reasoning_text"]] as const) {
          const want = new Map<string, string>();
          for (const c of caps) {
            const u = c.message?.params?.update;
            if (u?.sessionUpdate === kind && u.content?.type === "text") want.set(u.messageId, (want.get(u.messageId) ?? "") + u.content.text);
          }
          const got = new Map<string, string>();
          for (const e of events) if (e.type === "content.delta" && P(e).streamKind === stream) got.set((e as any).itemId, (got.get((e as any).itemId) ?? "") + P(e).delta);
          expect([...got.values()]).toEqual([...want.values()]);
        }
      });

      it("every tool call and permission request is closed; nothing is left open at the end", () => {
        const started = events.filter((e) => e.type === "item.started").map((e) => (e as any).itemId);
        const completed = new Set(events.filter((e) => e.type === "item.completed").map((e) => (e as any).itemId));
        expect(started.filter((id) => !completed.has(id))).toEqual([]);
        const toolCalls = new Set(caps.map((c) => c.message?.params?.update).filter((u) => u?.sessionUpdate === "tool_call").map((u) => u.toolCallId));
        const toolStarts = events.filter((e) => e.type === "item.started" && !["assistant_message", "reasoning", "user_message"].includes(P(e).itemType));
        expect(toolStarts.length).toBe(toolCalls.size);
        expect(events.filter((e) => e.type === "request.resolved").length).toBe(events.filter((e) => e.type === "request.opened").length);
        expect(events.filter((e) => e.type === "request.opened").length).toBe(caps.filter((c) => c.message?.method === "session/request_permission").length);
        expect(events.filter((e) => (e as any).raw?.rule === "agentnorm#end").map((e) => P(e).message)).toEqual([]);
      });

      if (f.endsWith(".load.ndjson")) {
        it("session/load: one completed turn per replayed user message, the user message first in it", () => {
          const users = [...new Set(caps.map((c) => c.message?.params?.update).filter((u) => u?.sessionUpdate === "user_message_chunk").map((u) => u.messageId))];
          const started = events.filter((e) => e.type === "turn.started");
          expect(started.length).toBe(users.length);
          expect(users.length).toBeGreaterThan(0);
          const done = events.filter((e) => e.type === "turn.completed");
          expect(done.map((e) => (e as any).turnId)).toEqual(started.map((e) => (e as any).turnId));
          expect(done.map((e) => P(e).state)).toEqual(users.map(() => "completed"));
          for (const t of started) {
            const first = events.find((e) => (e as any).turnId === (t as any).turnId && e.type.startsWith("item."));
            expect(P(first!).itemType).toBe("user_message");
          }
          // the last turn ends with the load's answer, before the session is reported started
          const types = events.map((e) => e.type);
          expect(types.lastIndexOf("turn.completed")).toBeLessThan(types.indexOf("session.started"));
        });
        return;
      }

      it("every prompt turn completes, with its stop reason mapped", () => {
        const prompts = caps.filter((c) => c.dir === "out" && c.message?.method === "session/prompt").map((c) => c.message.id);
        const answers = caps.filter((c) => c.dir === "in" && prompts.includes(c.message?.id) && !c.message.method).map((c) => c.message);
        const done = events.filter((e) => e.type === "turn.completed");
        expect(events.filter((e) => e.type === "turn.started").length).toBe(prompts.length);
        expect(done.length).toBe(answers.length);
        answers.forEach((a, i) => {
          if (a.error) expect(P(done[i])).toMatchObject({ state: "failed", errorMessage: a.error.message });
          else expect(P(done[i])).toMatchObject({ state: STOP[a.result.stopReason], stopReason: a.result.stopReason });
        });
      });
    });
  }

  it("approval: the permission decisions are the selected options' kinds", () => {
    const { events } = replay("approval.ndjson");
    expect(events.filter((e) => e.type === "request.resolved").map((e) => P(e).decision)).toEqual(["allow_once", "reject_once"]);
    expect(events.filter((e) => e.type === "item.completed" && !["assistant_message", "reasoning", "user_message"].includes(P(e).itemType)).map((e) => P(e).status)).toEqual(["completed", "failed"]);
    // text items complete with their turn, as completed
    expect(events.filter((e) => e.type === "item.completed" && ["assistant_message", "reasoning"].includes(P(e).itemType)).map((e) => P(e).status).every((s) => s === "completed")).toBe(true);
  });

  it("interrupt: session/cancel is a warning and the turn completes cancelled", () => {
    const { events } = replay("interrupt.ndjson");
    expect(events.some((e) => e.type === "runtime.warning" && /session\/cancel/.test(P(e).message))).toBe(true);
    expect(P(events.find((e) => e.type === "turn.completed")!)).toMatchObject({ state: "cancelled", stopReason: "cancelled" });
  });
});

describe("acp: permissions", () => {
  const options = [
    { optionId: "once", name: "Allow once", kind: "allow_once" },
    { optionId: "always", name: "Always allow", kind: "allow_always" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ];
  /** The decision of the request.resolved an answer to a session/request_permission offering `offered` makes. */
  const decision = (outcome: unknown, offered?: unknown[]): unknown => {
    const n = createNormalizer({ surface: "acp", ids: counterIds(), clock: steppingClock() });
    n.push({ id: 0, method: "session/request_permission", params: { sessionId: "s1", toolCall: { toolCallId: "c1", kind: "execute" }, ...(offered ? { options: offered } : {}) } });
    const events = n.push({ id: 0, result: { outcome } }, { direction: "out" });
    const resolved = events.find((e) => e.type === "request.resolved");
    if (!resolved) throw new Error(`no request.resolved: ${JSON.stringify(events)}`);
    return P(resolved).decision;
  };
  it("an answer's decision: the selected option's kind among the options offered, else its id; cancelled as is", () => {
    expect(decision({ outcome: "selected", optionId: "always" }, options)).toBe("allow_always");
    expect(decision({ outcome: "selected", optionId: "reject" }, options)).toBe("reject_once");
    // an option without a kind, or none offered: the id (a decision when it is one)
    expect(decision({ outcome: "selected", optionId: "reject_always" }, [{ optionId: "reject_always", name: "No" }])).toBe("reject_always");
    expect(decision({ outcome: "selected", optionId: "allow_once" })).toBe("allow_once");
    expect(decision({ outcome: "selected", optionId: "zzz" }, options)).toBeUndefined();
    expect(decision({ outcome: "cancelled" }, options)).toBe("cancelled");
  });
  it("toAcpPermissionResponse picks the option by kind, or cancels", () => {
    expect(toAcpPermissionResponse("allow_once", options)).toEqual({ outcome: { outcome: "selected", optionId: "once" } });
    expect(toAcpPermissionResponse("accept", options)).toEqual({ outcome: { outcome: "selected", optionId: "once" } });
    expect(toAcpPermissionResponse("acceptForSession", options)).toEqual({ outcome: { outcome: "selected", optionId: "always" } });
    expect(toAcpPermissionResponse("reject_always", options)).toEqual({ outcome: { outcome: "selected", optionId: "reject" } });
    expect(toAcpPermissionResponse("decline", options)).toEqual({ outcome: { outcome: "selected", optionId: "reject" } });
    expect(toAcpPermissionResponse("cancelled", options)).toEqual({ outcome: { outcome: "cancelled" } });
    expect(toAcpPermissionResponse("decline", [options[0]])).toEqual({ outcome: { outcome: "cancelled" } });
    expect(toAcpPermissionResponse("always", options)).toEqual({ outcome: { outcome: "selected", optionId: "always" } });
  });
});

describe("acp: CLI", () => {
  it("normalize --from acp reads a capture file: exit 0, canonical NDJSON", () => {
    const dist = join(ROOT, "dist/src/cli/cli.js");
    const file = join(FIX, "shell.ndjson");
    const r = existsSync(dist)
      ? spawnSync(process.execPath, [dist, "normalize", "--from", "acp", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 })
      : spawnSync(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "src/cli/cli.ts"), "normalize", "--from", "acp", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const events = r.stdout.split("\n").filter((l) => l).map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(5);
    expect(events.every((e) => validateCanonicalEvent(e))).toBe(true);
    expect(events.every((e) => e.provider === "acp")).toBe(true);
    expect(events.map((e) => e.type)).toContain("turn.completed");
  });
});
