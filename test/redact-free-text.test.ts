/**
 * Free-text secrets (headers, assignments, URL credentials, .netrc / .pgpass lines, private keys) and home
 * directories, in every position a capture meets them — field values, free text, JSON inside strings (twice
 * nested), diffs, legacy marker lines — written through all three capture stages by one writer (the one shared
 * redaction pass), plus a real Claude SDK stream whose tool output carries them: 0 leaks anywhere.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CAPTURE_STAGES, createCaptureWriter, readCapture, serializeRecords } from "../src/capture/capture.js";
import { createRedactor } from "../src/capture/redact.js";
import { capturingNormalizer, sanitizeCapture } from "../src/capture/replay.js";
import { unwrapCaptureLine } from "../src/capture/unwrap.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createNormalizer } from "../src/normalize/normalizer.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
const r = rng(20261202);
const AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const pick = (n: number) => Array.from({ length: n }, () => AN[Math.floor(r() * AN.length)]).join("");

interface Secret { kind: string; value: string; text: string }
/** Each maker: the secret value and the text it sits in (the value is what must not appear). */
const MAKERS: [string, (v: string) => string][] = [
  ["cookie", (v) => `> GET / HTTP/1.1\n> Cookie: session=${v}; theme=dark\n`],
  ["set-cookie", (v) => `< Set-Cookie: sid=${v}; Path=/; HttpOnly`],
  ["authorization-digest", (v) => `Authorization: Digest username="bob", response="${v}"`],
  ["authorization-token", (v) => `curl -H 'Authorization: token ${v}' https://api.example.com`],
  ["password-assignment", (v) => `DB password=${v.slice(0, 9)} host=db`],
  ["token-assignment", (v) => `export token=${v}`],
  ["secret-assignment", (v) => `secret = "${v}"`],
  ["url-credentials", (v) => `DATABASE_URL postgres://admin:${v}@db.internal:5432/app`],
  ["url-credentials-https", (v) => `git clone https://bob:${v}@git.example.com/r.git`],
  ["netrc-one-line", (v) => `machine api.example.com login bob password ${v}`],
  ["netrc-lines", (v) => `machine api.example.com\n  login bob\n  password ${v}\n`],
  ["pgpass", (v) => `cat ~/.pgpass\ndb.internal:5432:app:admin:${v}\n`],
  ["openssh-key", (v) => `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${v}\n-----END OPENSSH PRIVATE KEY-----\n`],
  ["home-ssh", (v) => `ls /home/u${v.toLowerCase().slice(0, 10)}/.ssh/\nid_rsa`],
];
const PER_KIND = 4;
const secrets: Secret[] = [];
for (const [kind, make] of MAKERS) {
  for (let i = 0; i < PER_KIND; i++) {
    const value = pick(24);
    const text = make(value);
    secrets.push({ kind, value: kind === "home-ssh" ? `u${value.toLowerCase().slice(0, 10)}` : kind === "password-assignment" ? value.slice(0, 9) : value, text });
  }
}

/** The positions: each takes the secret's text and gives a payload of the stage's shape. */
const POSITIONS: [string, (t: string) => unknown][] = [
  ["field value", (t) => ({ params: { output: t } })],
  ["free text", (t) => ({ item: { text: `Running the command.\n${t}\nDone, see above.` } })],
  ["nested JSON string", (t) => ({ content: JSON.stringify({ stdout: t, exitCode: 0 }) })],
  ["twice-nested JSON string", (t) => ({ result: JSON.stringify({ content: JSON.stringify([{ type: "text", text: t }]) }) })],
  ["diff", (t) => ({ changes: [{ path: "config/.env", diff: `--- a/config/.env\n+++ b/config/.env\n@@ -1,2 +1,3 @@\n ok=1\n${t.split("\n").map((l) => `+${l}`).join("\n")}\n` }] })],
  ["legacy tool result", (t) => `[TOOL_RESULT] ${JSON.stringify({ tool_use_id: "toolu_1", content: t, is_error: false })}`],
  ["legacy delta", (t) => `[CONTENT_DELTA] ${JSON.stringify(t)}`],
  ["legacy chat event", (t) => `[CHAT_EVENT] ${JSON.stringify({ kind: "tool", tool: { result: t } })}`],
];

/** The ways the value can show in the bytes written: as is and JSON-escaped (once and twice). */
function needles(v: string): string[] {
  const once = JSON.stringify(v).slice(1, -1);
  return [...new Set([v, once, JSON.stringify(once).slice(1, -1)])];
}

describe("free-text redaction", () => {
  it("each pattern alone: the value goes, the words around it stay", () => {
    const red = createRedactor();
    const cases: [string, string, string][] = [
      ["Cookie: session=abc123; theme=dark", "Cookie: <REDACTED:header>", "header"],
      ["see postgres://admin:hunter2@db:5432/x", "see postgres://admin:<REDACTED:url_credentials>@db:5432/x", "url_credentials"],
      ["machine h login u password pw1234", "machine h login u password <REDACTED:netrc>", "netrc"],
      ["h:5432:db:user:pw1234", "h:5432:db:user:<REDACTED:pgpass>", "pgpass"],
      ["password=abc", "password=<REDACTED:assignment>", "assignment"],
    ];
    for (const [input, want, kind] of cases) {
      const out = red.redact({ t: input });
      expect((out.value as any).t, input).toBe(want);
      expect(out.redactions.map((x) => x.kind), input).toContain(kind);
    }
    // usage counts and plain prose stay
    expect(createRedactor().redact({ t: "input_tokens: 1200, tokens: 12, the password prompt appeared" }).value).toEqual({ t: "input_tokens: 1200, tokens: 12, the password prompt appeared" });
  });

  it(`0 leaks: ${MAKERS.length} kinds × ${PER_KIND} secrets × ${POSITIONS.length} positions × ${CAPTURE_STAGES.length} stages, capture and sanitized fixture`, () => {
    const w = createCaptureWriter({ provider: "claude", source: "claude-sdk", captureId: "free", clock: () => 0 });
    let text = "";
    let placements = 0;
    secrets.forEach((s, i) => {
      for (const [, make] of POSITIONS) {
        for (const stage of CAPTURE_STAGES) {
          let payload = make(s.text);
          // native_in / normalized_out carry objects; legacy_out carries lines (a legacy position stays a line)
          if (stage === "legacy_out" && typeof payload !== "string") payload = `[CHAT_EVENT] ${JSON.stringify(payload)}`;
          if (stage === "normalized_out" && typeof payload !== "string") payload = { type: "item.completed", payload, raw: { source: "x", payload } };
          text += w.line(stage, "x", payload, i % 5 === 0 ? { notes: s.text } : undefined);
          placements++;
        }
      }
    });
    const fixture = serializeRecords(sanitizeCapture(readCapture(text).records));
    const leaks: string[] = [];
    for (const s of secrets) for (const n of needles(s.value)) {
      if (text.includes(n)) leaks.push(`capture: ${s.kind}`);
      if (fixture.includes(n)) leaks.push(`fixture: ${s.kind}`);
    }
    console.log(`free-text redaction: ${secrets.length} secrets (${MAKERS.length} kinds), ${placements} placements, ${leaks.length} leaks`);
    expect([...new Set(leaks)]).toEqual([]);
    expect(readCapture(text).errors).toEqual([]);
    // the words around the secrets survive (the capture is still useful)
    expect(text).toContain("Cookie: <REDACTED:header>");
    expect(text).toContain("postgres://admin:<REDACTED:url_credentials>@db.internal:5432/app");
    expect(text).toContain("<HOME>/.ssh/");
  });

  it("0 leaks through a real Claude SDK stream: tool output with the secrets → native_in, normalized_out and legacy_out", () => {
    const file = fileURLToPath(new URL("../fixtures/recorded/claude-sdk/shell.ndjson", import.meta.url));
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    let k = 0;
    const used: Secret[] = [];
    const seeded = lines.map((line) => {
      const o = JSON.parse(line);
      const m = o.message;
      if (m?.type === "user" && Array.isArray(m.message?.content)) {
        for (const c of m.message.content) {
          if (c.type === "tool_result" && typeof c.content === "string") {
            const batch = secrets.slice(k, k + 14);
            k += 14;
            used.push(...batch);
            c.content += "\n" + batch.map((s) => s.text).join("\n");
            if (m.tool_use_result) m.tool_use_result.stdout = c.content;
          }
        }
      }
      return JSON.stringify(o);
    });
    expect(used.length).toBeGreaterThan(0);
    const n = createNormalizer({ surface: "claude-sdk", ids: counterIds(), clock: steppingClock(), includeRaw: true });
    const w = createCaptureWriter({ provider: "claude", source: "claude-sdk", captureId: "free-2", clock: () => 0 });
    const c = capturingNormalizer(n, w, { surface: "claude-sdk" });
    let text = "";
    let eventsText = "";
    for (const line of seeded) {
      const { message, meta } = unwrapCaptureLine(JSON.parse(line));
      const out = c.push(message, meta);
      text += out.lines;
      eventsText += JSON.stringify(out.events);
    }
    text += c.end().lines;
    // the secrets did reach the canonical events (so every stage had something to redact)
    expect(used.some((s) => eventsText.includes(JSON.stringify(s.value).slice(1, -1)))).toBe(true);
    const stages = new Set(readCapture(text).records.map((x) => x.stage));
    expect(stages).toEqual(new Set(CAPTURE_STAGES));
    const leaks = used.filter((s) => needles(s.value).some((x) => text.includes(x))).map((s) => s.kind);
    console.log(`free-text redaction (claude-sdk stream): ${used.length} secrets in tool output; ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
  });
});
