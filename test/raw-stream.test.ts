/**
 * raw.payload once per native message in a written stream (src/normalize/raw-stream.ts): the holder / payloadRef /
 * payloadShared form, its resolution back to the in-memory form, the schema, the CLI output size on a big line
 * (checked by bytes, not time), and the readers (render, verify, view) on the written form.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";
import { createNormalizer, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { createRawResolver, resolveRawPayloads, shareRawPayloads, SHARE_MIN } from "../src/normalize/raw-stream.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist/src/cli/cli.js");
const FIXTURE = join(ROOT, "fixtures/codex-app-server/approval-session.ndjson");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-raw-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function normalizeLines(lines: string[]): CanonicalEvent[][] {
  const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
  const out = lines.map((l, i) => n.pushLine(l, { lineNumber: i + 1 }));
  out.push(n.end());
  return out;
}
const written = (batches: CanonicalEvent[][]) => batches.flatMap((b) => shareRawPayloads(b)).map((e) => JSON.parse(serializeEvent(e)));
const plain = (batches: CanonicalEvent[][]) => batches.flat().map((e) => JSON.parse(JSON.stringify(e)));

describe("raw.payload once per native message", () => {
  const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);

  it("each message is written once; every other event of it names the holder; the written events validate", () => {
    const batches = normalizeLines(lines);
    const out = written(batches);
    const holders = new Map(out.filter((e) => "payload" in e.raw).map((e) => [e.eventId, e]));
    const refs = out.filter((e) => e.raw.payloadRef);
    expect(refs.length).toBeGreaterThan(0);
    for (const e of refs) {
      expect(e.raw).not.toHaveProperty("payload");
      expect(holders.has(e.raw.payloadRef)).toBe(true);
    }
    // each native message text appears once as a holder's payload
    const texts = out.filter((e) => "payload" in e.raw && e.raw.payload !== null).map((e) => JSON.stringify(e.raw.payload));
    expect(new Set(texts).size).toBe(texts.length);
    for (const e of out) expect(validateCanonicalEvent(e), JSON.stringify((validateCanonicalEvent as any).errors)).toBe(true);
  });

  it("resolving the written stream gives back exactly the in-memory events", () => {
    const batches = normalizeLines(lines);
    expect(resolveRawPayloads(written(batches))).toEqual(plain(batches));
    // and streaming, one event at a time
    const r = createRawResolver();
    const got = written(batches).flatMap((e) => r.push(e));
    got.push(...r.end());
    expect(got).toEqual(plain(batches));
    expect(r.unresolved()).toBe(0);
  });

  it("a long string the holder carries verbatim is written once (payloadShared), and resolves back", () => {
    const big = "y".repeat(SHARE_MIN * 3);
    const msgs = [
      ...lines.slice(0, 12),
      JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "thr-a", turnId: "turn-new", itemId: "msg-big", delta: big } }),
    ];
    const batches = normalizeLines(msgs);
    const last = batches[batches.length - 2];
    expect(last.length).toBeGreaterThanOrEqual(2); // the synthesized item.started and the delta
    const out = written([last]);
    const text = out.map((e) => JSON.stringify(e)).join("\n");
    expect(text.split(big).length - 1).toBe(1);
    const holder = out.find((e) => e.raw.payloadShared)!;
    expect(holder.raw.payloadShared).toEqual({ "/params/delta": "/payload/delta" });
    expect(holder.raw.payload.params.delta).toBeNull();
    expect(resolveRawPayloads(out)).toEqual(plain([last]));
  });

  it("a ref that names no event in the stream is passed on unresolved and counted", () => {
    const r = createRawResolver();
    const e = { eventId: "evt_9", sequence: 9, type: "content.delta", raw: { source: "x", payloadRef: "evt_404" } } as unknown as CanonicalEvent;
    expect([...r.push(e), ...r.end()]).toEqual([e]);
    expect(r.unresolved()).toBe(1);
  });
});

const hasDist = existsSync(DIST);
const cliIt = hasDist ? it : it.skip;
const cli = (args: string[], input?: string) => spawnSync(process.execPath, [DIST, ...args], { cwd: ROOT, encoding: "utf8", input: input ?? "", maxBuffer: 512 * 1024 * 1024 });

describe("the CLI on a 50 MB line (output size, not time)", () => {
  cliIt("normalize: output ≤ 1.2 × input with raw; --no-raw has no raw.payload; readers resolve the written form", () => {
    const head = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).slice(0, 12);
    const big = "z".repeat(50 * 1024 * 1024);
    const file = join(TMP, "big.ndjson");
    writeFileSync(file, [...head, JSON.stringify({ method: "item/agentMessage/delta", params: { threadId: "thr-a", turnId: "turn-new", itemId: "msg-big", delta: big } })].join("\n") + "\n");
    const inBytes = statSync(file).size;
    const out = join(TMP, "big.out.ndjson");
    const r = spawnSync("sh", ["-c", `node "${DIST}" normalize --from codex-app-server --quiet "${file}" > "${out}"`], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const outBytes = statSync(out).size;
    const ratio = outBytes / inBytes;
    console.log(`50 MB line: input ${inBytes} B, output ${outBytes} B, ratio ${ratio.toFixed(3)}`);
    expect(ratio).toBeLessThanOrEqual(1.2);
    // the delta event and the synthesized item.started are both there, and the big text is written once
    const text = readFileSync(out, "utf8");
    expect(text.split(big).length - 1).toBe(1);
    // --no-raw: no payload key at all
    const noRaw = spawnSync("sh", ["-c", `node "${DIST}" normalize --from codex-app-server --quiet --no-raw "${file}" | grep -c '"payload":null}' || true`], { encoding: "utf8" });
    expect(noRaw.stdout.trim()).toBe("0");
    // readers on the written form: verify and render take it as it is
    const v = spawnSync(process.execPath, [DIST, "verify", "--quiet", out], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
    expect(v.stderr).not.toMatch(/payloadRef/);
    expect(v.status, v.stderr.slice(0, 500)).toBe(0);
  }, 240_000);

  cliIt("view on a written stream links events to messages exactly as on the per-event form", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
    const batches = [...lines.map((l) => n.pushLine(l)), n.end()];
    const perEvent = join(TMP, "per-event.ndjson");
    const stream = join(TMP, "stream.ndjson");
    writeFileSync(perEvent, plain(batches).map((e) => JSON.stringify(e)).join("\n") + "\n");
    writeFileSync(stream, written(batches).map((e) => JSON.stringify(e)).join("\n") + "\n");
    const links = (f: string) => {
      const r = cli(["view", f, "-o", "-", "--quiet", "--title", "t"]);
      expect(r.status, r.stderr).toBe(0);
      const m = /<script type="application\/json" id="agentnorm-data">([\s\S]*?)<\/script>/.exec(r.stdout);
      expect(m).not.toBeNull();
      const data = JSON.parse(m![1]);
      return { links: data.events.map((e: any) => e.native ?? null), natives: data.natives.map((x: any) => JSON.stringify(x.payload)) };
    };
    expect(readFileSync(stream, "utf8")).toContain('"payloadRef"');
    const a = links(stream);
    const b = links(perEvent);
    expect(a.links.filter((x: unknown) => x !== null).length).toBeGreaterThan(40);
    expect(a.links).toEqual(b.links);
    expect(a.natives).toEqual(b.natives);
  });
});

describe("a written stream cut apart", () => {
  cliIt("render names the events whose raw.payloadRef holder is missing (and --strict fails on them)", () => {
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock() });
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
    const out = written([...lines.map((l) => n.pushLine(l)), n.end()]);
    const holderIds = new Set(out.filter((e) => e.raw.payloadRef).map((e) => e.raw.payloadRef));
    const cut = out.filter((e) => !holderIds.has(e.eventId));
    const missing = cut.filter((e) => e.raw.payloadRef).length;
    expect(missing).toBeGreaterThan(0);
    const f = join(TMP, "cut.ndjson");
    writeFileSync(f, cut.map((e) => JSON.stringify(e)).join("\n") + "\n");
    const r = cli(["render", f]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`${missing} event(s) name a raw.payloadRef holder that is not in the input`);
    expect(cli(["render", "--strict", f]).status).toBe(1);
  });
});
