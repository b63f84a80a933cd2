/**
 * Streamed text redacted across delta boundaries (src/capture/stream-redact.ts): a secret split over two or more
 * deltas — of an answer or of thinking, on four surfaces — leaves no fragment in any capture stage; nothing of the
 * text around it is lost; the capture sanitizes and replays clean. And the hold itself: what is held, until when,
 * and that it is never dropped.
 */
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createCaptureWriter, readCapture } from "../src/capture/capture.js";
import { createRedactor } from "../src/capture/redact.js";
import { convertRecording, replayFixture, sanitizeCapture } from "../src/capture/replay.js";
import { split, STREAM_HOLD, StreamRedactor, type StreamPiece } from "../src/capture/stream-redact.js";
import { AN, B64U, gen } from "./support/secret-classes.js";
import { planter } from "./support/stream-plant.js";

const repo = fileURLToPath(new URL("../", import.meta.url));
const REDACT = { home: "/nonexistent-home", project: "/nonexistent-project", tmp: "/nonexistent-tmp" };

const PLANTERS = [
  planter(repo, "codex-app-server", "fixtures/recorded/codex-app-server/two-turn.ndjson", "assistant_text"),
  planter(repo, "codex-app-server", "fixtures/recorded/codex-app-server/shell.ndjson", "reasoning_summary_text"),
  planter(repo, "claude-sdk", "fixtures/recorded/claude-sdk/two-turn.ndjson", "assistant_text"),
  planter(repo, "claude-sdk", "fixtures/recorded/claude-sdk/two-turn.ndjson", "reasoning_text"),
  planter(repo, "acp", "fixtures/recorded/acp/two-turn.ndjson", "assistant_text"),
  planter(repo, "acp", "fixtures/recorded/acp/two-turn.ndjson", "reasoning_text"),
  planter(repo, "opencode", "fixtures/recorded/opencode/two-turn.ndjson", "assistant_text"),
  planter(repo, "opencode", "fixtures/recorded/opencode/two-turn.ndjson", "reasoning_text"),
];

/** Secrets that need their whole span (or their context) to be recognised: split, each part is harmless alone. */
const MAKERS: ((g: ReturnType<typeof gen>) => { text: string; secret: string })[] = [
  (g) => { const s = `sk-ant-api03-${g.pick(B64U, 64)}`; return { text: `Use the key ${s} for the call.`, secret: s.slice(13) }; },
  (g) => { const s = `ghp_${g.pick(AN, 36)}`; return { text: `export GITHUB_TOKEN=${s}`, secret: s.slice(4) }; },
  (g) => { const s = g.password(); return { text: `The database password: ${s} (rotate it).`, secret: s }; },
  (g) => { const s = g.pick(AN, 40); return { text: `curl -H "Authorization: Bearer ${s}" https://api.example.com`, secret: s }; },
  (g) => { const s = `${g.pick(AN, 6)}@${g.pick(AN, 8)}`; return { text: `DATABASE_URL=postgres://app:${s}@db:5432/app`, secret: s }; },
  (g) => { const s = g.pick(AN, 48); return { text: `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r${s}\n${g.pick(AN, 60)}\n-----END OPENSSH PRIVATE KEY-----`, secret: s }; },
  (g) => { const u = g.login(); return { text: `I looked in /home/${u}/project/.env and found nothing.`, secret: u }; },
  (g) => { const s = `${g.pick("123456789", 9)}:AA${g.pick(B64U, 33)}`; return { text: `Your bot token is ${s} now.`, secret: s.slice(12) }; },
];

/** Every 8-character window of the secret: none may appear (a half is a leak too). */
function fragments(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i += 3) out.push(secret.slice(i, i + 8));
  return out;
}

/** Cut `text` at the given fractions into non-empty pieces. */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((f) => Math.max(1, Math.min(text.length - 1, Math.floor(f * text.length)))))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let last = 0;
  for (const p of points) { pieces.push(text.slice(last, p)); last = p; }
  pieces.push(text.slice(last));
  return pieces.filter((p) => p !== "");
}

function captureOf(native: string, surface: string, redact: object | false = REDACT) {
  const w = createCaptureWriter({ provider: "test", source: surface, captureId: "stream", clock: () => 0, redact: redact as any });
  return convertRecording(native, surface, w);
}

describe("a secret split across streamed deltas", () => {
  it("property: any split, any surface, text or thinking — no fragment in any stage, nothing lost, replays clean", () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: PLANTERS.length - 1 }),
      fc.integer({ min: 0, max: MAKERS.length - 1 }),
      fc.integer({ min: 1, max: 1 << 30 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
      (pi, mi, seed, at) => {
        const p = PLANTERS[pi];
        const { text, secret } = MAKERS[mi](gen(seed));
        const pieces = cut(`Here it is.\n${text}\nDone.\n`, at);
        const cap = captureOf(p.with(pieces), p.surface);
        const leaks = fragments(secret).filter((f) => cap.includes(f) || cap.includes(JSON.stringify(f).slice(1, -1)));
        expect(leaks, `${p.surface} ${p.kind}: ${JSON.stringify(pieces)}`).toEqual([]);
        // every delta is still there, in order, with the words around the secret
        const records = readCapture(cap).records;
        const deltas = records.filter((r) => r.stage === "normalized_out" && r.eventType === "content.delta" && (r.payload as any).payload.streamKind === p.kind);
        const mine = deltas.slice(0, pieces.length).map((r) => (r.payload as any).payload.delta as string);
        expect(mine.every((d) => d !== "")).toBe(true);
        const joined = mine.join("");
        for (const w of ["Here it is.", "Done."]) expect(joined).toContain(w);
        // sanitized, it replays clean
        const res = replayFixture(sanitizeCapture(records, { redact: REDACT }));
        expect(res.diff).toBe("");
      },
    ), { numRuns: 120, seed: 31 });
  });

  it("the same split written without redaction and sanitized afterwards: no fragment in the fixture, replays clean", () => {
    const g = gen(7);
    for (const p of PLANTERS) {
      for (const make of MAKERS) {
        const { text, secret } = make(g);
        const pieces = cut(`${text}\n`, [0.3, 0.5, 0.7]);
        const records = readCapture(captureOf(p.with(pieces), p.surface, false)).records;
        const fixture = sanitizeCapture(records, { redact: REDACT });
        const bytes = JSON.stringify(fixture);
        expect(fragments(secret).filter((f) => bytes.includes(f)), `${p.surface} ${p.kind}: ${JSON.stringify(pieces)}`).toEqual([]);
        expect(replayFixture(fixture).diff, `${p.surface} ${p.kind}`).toBe("");
      }
    }
  });
});

describe("the hold (stream-redact.ts)", () => {
  const pieces = (s: StreamRedactor, key: string, texts: string[]) => texts.map((t) => s.add(key, t));

  it("a delta is held until its line ends; the line is judged whole and split back, no piece empty", () => {
    const s = new StreamRedactor(createRedactor());
    const key = `sk-ant-api03-${"Q7".repeat(30)}`;
    const ps = pieces(s, "a", ["the key ", key.slice(0, 9), key.slice(9, 20), key.slice(20), " ok"]);
    expect(ps.map((p) => p.done)).toEqual([false, false, false, false, false]);
    const end = s.add("a", "\n");
    expect([...ps, end].every((p) => p.done)).toBe(true);
    expect(ps.map((p) => p.out).join("") + end.out).toBe("the key <REDACTED:api_key> ok\n");
    expect(ps.every((p) => p.out !== "")).toBe(true);
    expect(ps.map((p) => p.out).join("")).not.toContain("Q7Q7");
  });

  it("streams are separate: another item's delta is judged on its own", () => {
    const s = new StreamRedactor(createRedactor());
    const a = s.add("a", "password: ");
    const b = s.add("b", "hunter2hunter2\n");
    expect(b.done).toBe(true);
    expect(b.out).toBe("hunter2hunter2\n");
    const a2 = s.add("a", "hunter2hunter2\n");
    expect([a.out, a2.out]).toEqual(["password: ", "<REDACTED:assignment>\n"]);
  });

  it(`the bound: a line is held up to ${STREAM_HOLD.LINE_CHARS} characters, then judged to its last blank; with no blank, up to ${STREAM_HOLD.MAX_CHARS}`, () => {
    const s = new StreamRedactor(createRedactor());
    const words: StreamPiece[] = [];
    let n = 0;
    while (n <= STREAM_HOLD.LINE_CHARS) { const w = s.add("a", "lorem ipsum "); words.push(w); n += 12; }
    expect(words.filter((p) => p.done).length).toBe(words.length);
    const t = new StreamRedactor(createRedactor());
    const blob: StreamPiece[] = [];
    n = 0;
    while (n <= STREAM_HOLD.MAX_CHARS) { blob.push(t.add("a", "x".repeat(100))); n += 100; }
    expect(blob.every((p) => p.done)).toBe(true);
    expect(t.held).toBe(0);
  });

  it("nothing is dropped: flush judges what an item left held; the context carries a header or a key block over a released line", () => {
    const s = new StreamRedactor(createRedactor());
    const p = s.add("a", "no newline at the end");
    expect(p.done).toBe(false);
    s.flush((k) => k === "a");
    expect(p.done && p.out).toBe("no newline at the end");
    const t = new StreamRedactor(createRedactor());
    const head = t.add("k", "-----BEGIN RSA PRIVATE KEY-----\n");
    const body = t.add("k", `MIIE${"A1b2".repeat(15)}\n`);
    expect(head.out + body.out).not.toContain("A1b2");
  });

  it("property: one line judged at once is the redaction of the whole line, split back over the deltas", () => {
    fc.assert(fc.property(
      fc.integer({ min: 0, max: MAKERS.length - 1 }),
      fc.integer({ min: 1, max: 1 << 30 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
      (mi, seed, at) => {
        const { text } = MAKERS[mi](gen(seed));
        const line = text.replace(/\n/g, " ");
        const ps: StreamPiece[] = cut(line, at).map((t) => ({ text: t, out: t, done: false }));
        split(createRedactor(), "", ps);
        expect(ps.map((p) => p.out).join("")).toBe(createRedactor().redactTracked(line).text);
        expect(ps.every((p) => p.out !== "" || p.text === "")).toBe(true);
      },
    ), { numRuns: 200, seed: 32 });
  });
});
