/**
 * `npm run bench`: normalize throughput on a synthetic Codex app-server stream of ≥ 1M lines, built from
 * the bundled fixtures with fresh provider ids per copy, reported as a ratio to floors measured in the same run.
 *
 *  - normalizer: pushLine(line) + serializeEvent(event) for every output — the CLI's job, in process.
 *  - floor (the headline): JSON.parse of every line + JSON.stringify of the same output objects, built beforehand
 *    (no mapping). The only work left out is the mapping itself, so ratio = floor / normalizer says how close
 *    the mapping comes to pure parse + print. Target ≥ 0.5.
 *  - inputFloor (for reference): JSON.parse of every line + JSON.stringify of the *input* object once per output
 *    event. Canonical events carry an envelope and the raw message, so they are larger than the input; this
 *    ratio also counts the cost of that bigger output.
 *  - accumulator (render side): the canonical events of each block applied to a fresh accumulator (one per block of
 *    50k input lines, like one long session), then snapshot(). Its floor, measured in the same run on the same
 *    events: group every event by item in a Map, push each delta's text onto an array and join them at the end
 *    (the least a renderer keyed by identity can do). accumulatorRatio = floor / accumulator.
 *  - redraw: the documented live-UI pattern (getBlock of every changed block on every change) over 100k events, as
 *    a ratio to applying them without reading (target ≤ 2×). `--redraw-only` runs just this part.
 *  - accumulatorLinearity: the time to apply 2N deltas to one block over the time for N (≈ 2 when appending is
 *    O(1) amortised; 4 would mean the text is re-copied per delta).
 *  - open items: time per line with 10 vs 10,000 items open elsewhere (flat: a turn's end looks at its own items).
 * Runs in blocks so memory stays bounded; the best of --rounds rounds is reported.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createNormalizer, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { createAccumulator } from "../src/render/accumulator.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
const target = opt("--lines") ?? 1_000_000;
const rounds = opt("--rounds") ?? 3;
const BLOCK = 50_000;

const templates = ["approval-session.ndjson", "error-and-interrupt.ndjson"].map((f) =>
  readFileSync(`${root}fixtures/codex-app-server/${f}`, "utf8").split("\n").filter((l) => l.trim()),
);
// Provider ids look like UUIDs or call_/msg_/rs_ ids: give every copy its own by suffixing them.
const ID = /"(019[0-9a-f-]{20,}|01a2[0-9a-f-]{20,}|call_[A-Za-z0-9_]+|msg_[A-Za-z0-9_]+|rs_[A-Za-z0-9_]+)"/g;
const lines: string[] = [];
for (let copy = 0; lines.length < target; copy++) {
  for (const l of templates[copy % templates.length]) lines.push(l.replace(ID, (_, id) => `"${id}-${copy}"`));
}
const mb = lines.reduce((a, l) => a + l.length, 0) / 1e6;
process.stderr.write(`bench: ${lines.length.toLocaleString("en")} lines, ${mb.toFixed(0)} MB of input\n`);

function runNormalizer(): { ms: number; events: number; bytes: number } {
  const t0 = performance.now();
  const n = createNormalizer({ surface: "codex-app-server" });
  let events = 0;
  let bytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const out = n.pushLine(lines[i]);
    events += out.length;
    for (let j = 0; j < out.length; j++) bytes += serializeEvent(out[j]).length;
  }
  const tail = n.end();
  events += tail.length;
  for (const e of tail) bytes += serializeEvent(e).length;
  return { ms: performance.now() - t0, events, bytes };
}

/** Floors, block by block: outputs are built (untimed) by a normalizer that runs along, then timed parse + print. */
function runFloors(): { floor: number; inputFloor: number } {
  const n = createNormalizer({ surface: "codex-app-server" });
  let floor = 0;
  let inputFloor = 0;
  let sink = 0;
  for (let start = 0; start < lines.length; start += BLOCK) {
    const end = Math.min(lines.length, start + BLOCK);
    const outs: CanonicalEvent[][] = [];
    for (let i = start; i < end; i++) outs.push(n.pushLine(lines[i]));
    let t0 = performance.now();
    for (let i = start; i < end; i++) {
      JSON.parse(lines[i]);
      const out = outs[i - start];
      for (let j = 0; j < out.length; j++) sink += JSON.stringify(out[j]).length;
    }
    floor += performance.now() - t0;
    t0 = performance.now();
    for (let i = start; i < end; i++) {
      const o = JSON.parse(lines[i]);
      for (let j = 0; j < outs[i - start].length; j++) sink += JSON.stringify(o).length;
    }
    inputFloor += performance.now() - t0;
  }
  if (sink < 0) console.log(sink);
  return { floor, inputFloor };
}

/** Accumulator and its floor, block by block, on the canonical events of the same stream (built untimed). */
function runAccumulator(): { acc: number; accFloor: number; events: number } {
  const n = createNormalizer({ surface: "codex-app-server" });
  let acc = 0;
  let accFloor = 0;
  let events = 0;
  let sink = 0;
  for (let start = 0; start < lines.length; start += BLOCK) {
    const end = Math.min(lines.length, start + BLOCK);
    const evs: CanonicalEvent[] = [];
    for (let i = start; i < end; i++) for (const e of n.pushLine(lines[i])) evs.push(e);
    events += evs.length;
    let t0 = performance.now();
    const a = createAccumulator();
    for (let i = 0; i < evs.length; i++) a.apply(evs[i]);
    sink += a.snapshot().eventCount;
    acc += performance.now() - t0;
    t0 = performance.now();
    const groups = new Map<string, { events: CanonicalEvent[]; text: string[] }>();
    for (let i = 0; i < evs.length; i++) {
      const e = evs[i];
      const key = e.itemId ?? e.requestId ?? e.turnId ?? e.type;
      let g = groups.get(key);
      if (!g) { g = { events: [], text: [] }; groups.set(key, g); }
      g.events.push(e);
      if (e.type === "content.delta") g.text.push((e.payload as { delta: string }).delta);
    }
    for (const g of groups.values()) sink += g.text.join("").length + g.events.length;
    accFloor += performance.now() - t0;
  }
  if (sink < 0) console.log(sink);
  return { acc, accFloor, events };
}

/** Time to apply N deltas to one text block (best of 3). */
function deltaRun(count: number): number {
  const evs: CanonicalEvent[] = [];
  for (let i = 0; i < count; i++) {
    evs.push({ eventId: `evt_${i + 1}`, sequence: i + 1, type: "content.delta", provider: "codex", sessionId: "ses_1", createdAt: "", turnId: "trn_1", itemId: "itm_1", payload: { streamKind: "assistant_text", delta: "token " } } as unknown as CanonicalEvent);
  }
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    const a = createAccumulator({ eventLog: false });
    for (const e of evs) a.apply(e);
    if (a.snapshot().eventCount !== count) throw new Error("bench: accumulator lost events");
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * The documented redraw pattern (docs/accumulator.md): subscribe, and on every change read each changed block with
 * getBlock() and hand it to the view (here: its text length is summed). Timed against applying the same events with
 * no subscriber and no reads. Target: redraw ≤ 2× apply.
 */
function runRedraw(count: number): { events: number; applyMs: number; redrawMs: number; reads: number } {
  const n = createNormalizer({ surface: "codex-app-server" });
  const evs: CanonicalEvent[] = [];
  for (let i = 0; i < lines.length && evs.length < count; i++) for (const e of n.pushLine(lines[i])) evs.push(e);
  evs.length = Math.min(evs.length, count);
  let applyMs = Infinity;
  let redrawMs = Infinity;
  let reads = 0;
  let sink = 0;
  for (let r = 0; r < 3; r++) {
    let t0 = performance.now();
    const plain = createAccumulator();
    for (let i = 0; i < evs.length; i++) plain.apply(evs[i]);
    applyMs = Math.min(applyMs, performance.now() - t0);
    t0 = performance.now();
    const acc = createAccumulator();
    reads = 0;
    acc.subscribe((change) => {
      for (const id of change.changedBlockIds) {
        const b = acc.getBlock(id, change.sessionId) as { text?: string; kind: string } | undefined;
        if (b) { sink += (b.text?.length ?? 0) + b.kind.length; reads++; }
      }
    });
    for (let i = 0; i < evs.length; i++) acc.apply(evs[i]);
    redrawMs = Math.min(redrawMs, performance.now() - t0);
  }
  if (sink < 0) console.log(sink);
  return { events: evs.length, applyMs, redrawMs, reads };
}

/**
 * Cost per line with many items open elsewhere: N items still open in up to 100 other threads, each with its turn
 * open (left open for the whole run), then the same stream of complete sessions is timed. A turn's end completes its own open items;
 * if it looked at every open item of every turn, the time per line would grow with N. Target: N = 10,000 costs at
 * most 1.5× N = 10 (best of 3 each).
 */
function openItemsRun(open: number, measureLines: number): number {
  const opening = templates[0].filter((l) => /"method":"(thread\/started|turn\/started|item\/started)"/.test(l));
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const n = createNormalizer({ surface: "codex-app-server" });
    // in at most 100 threads (each its own session: a stream keeps MAX_SESSIONS of them), each with its turn open
    const threads = Math.min(open, 100);
    for (let k = 0; k < open; k++) {
      for (const l of opening) {
        if (k >= threads && !l.includes('"item/started"')) continue;
        n.pushLine(l.replace(ID, (_, id: string) => `"${id}-open${/^01/.test(id) ? k % threads : k}"`));
      }
    }
    const t0 = performance.now();
    for (let i = 0; i < measureLines; i++) n.pushLine(lines[i]);
    best = Math.min(best, performance.now() - t0);
    if (r === 0 && n.stats().held.items < open) throw new Error(`bench: expected ${open} open items, held ${n.stats().held.items}`);
  }
  return best;
}
{
  const few = openItemsRun(10, 50_000);
  const many = openItemsRun(10_000, 50_000);
  const ratio = many / few;
  process.stderr.write(`open items: 50,000 lines with 10 items open elsewhere ${few.toFixed(0)} ms, with 10,000 open ${many.toFixed(0)} ms: ×${ratio.toFixed(2)} (target ≤ 1.5×: ${ratio <= 1.5 ? "pass" : "FAIL"})\n`);
  console.log(JSON.stringify({ openItems: "time per line, 10 vs 10,000 items open elsewhere", lines: 50_000, ms10: Math.round(few), ms10000: Math.round(many), ratio: Number(ratio.toFixed(2)), target: 1.5, pass: ratio <= 1.5 }));
}
if (args.includes("--open-items-only")) process.exit(0);

/**
 * Cost per chunk of a tool input streamed in small chunks (Claude's input_json_delta: the row appends each chunk to
 * the item's text and parses it once it is whole): a 16× longer input must cost about the same per chunk. Time of
 * the chunks only, best of 3; target ≤ 1.5×.
 */
function streamedInputRun(kb: number): { ms: number; chunks: number } {
  const text = JSON.stringify({ file_path: "/tmp/x.js", content: "function f() { return [1, 2]; }\n".repeat(kb * 32) });
  const se = (uuid: string, event: unknown) => ({ type: "stream_event", session_id: "s1", parent_tool_use_id: null, uuid, event });
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const n = createNormalizer({ surface: "claude-sdk" });
    n.push(se("u1", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [] } }));
    n.push(se("u2", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "Write", input: {} } }));
    const deltas = [];
    for (let i = 0; i < text.length; i += 20) deltas.push(se(`d${i}`, { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: text.slice(i, i + 20) } }));
    const t0 = performance.now();
    for (const d of deltas) n.push(d);
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, chunks: Math.ceil(text.length / 20) };
}
{
  streamedInputRun(80); // warm-up
  const short = streamedInputRun(20);
  const long = streamedInputRun(320);
  const ratio = (long.ms / long.chunks) / (short.ms / short.chunks);
  process.stderr.write(`streamed tool input: ${short.chunks.toLocaleString("en")} chunks (20 KB) ${short.ms.toFixed(0)} ms, ${long.chunks.toLocaleString("en")} chunks (320 KB) ${long.ms.toFixed(0)} ms: ×${ratio.toFixed(2)} per chunk (target ≤ 1.5×: ${ratio <= 1.5 ? "pass" : "FAIL"})\n`);
  console.log(JSON.stringify({ streamedInput: "time per chunk, a 20 KB vs a 320 KB tool input", chunks20KB: short.chunks, ms20KB: Math.round(short.ms), chunks320KB: long.chunks, ms320KB: Math.round(long.ms), ratio: Number(ratio.toFixed(2)), target: 1.5, pass: ratio <= 1.5 }));
}
if (args.includes("--streamed-input-only")) process.exit(0);

const redraw = runRedraw(100_000);
const redrawRatio = redraw.redrawMs / redraw.applyMs;
process.stderr.write(`accumulator redraw pattern: ${redraw.events.toLocaleString("en")} events, apply ${redraw.applyMs.toFixed(0)} ms, apply + getBlock of every changed block (${redraw.reads.toLocaleString("en")} reads) ${redraw.redrawMs.toFixed(0)} ms: ×${redrawRatio.toFixed(2)} (target ≤ 2×: ${redrawRatio <= 2 ? "pass" : "FAIL"})\n`);
console.log(JSON.stringify({ redraw: "getBlock per changed block", events: redraw.events, applyMs: Math.round(redraw.applyMs), redrawMs: Math.round(redraw.redrawMs), reads: redraw.reads, ratio: Number(redrawRatio.toFixed(2)), target: 2, pass: redrawRatio <= 2 }));
if (args.includes("--redraw-only")) process.exit(0);

const results: { norm: number; floor: number; inputFloor: number; acc: number; accFloor: number }[] = [];
let last: ReturnType<typeof runNormalizer> | undefined;
for (let r = 0; r < rounds; r++) {
  last = runNormalizer();
  const f = runFloors();
  const a = runAccumulator();
  results.push({ norm: last.ms, ...f, acc: a.acc, accFloor: a.accFloor });
  process.stderr.write(`round ${r + 1}: normalizer ${last.ms.toFixed(0)} ms, floor ${f.floor.toFixed(0)} ms (ratio ${(f.floor / last.ms).toFixed(2)}), input floor ${f.inputFloor.toFixed(0)} ms (ratio ${(f.inputFloor / last.ms).toFixed(2)}); accumulator ${a.acc.toFixed(0)} ms for ${a.events.toLocaleString("en")} events, floor ${a.accFloor.toFixed(0)} ms (ratio ${(a.accFloor / a.acc).toFixed(2)})\n`);
}
const best = (k: "norm" | "floor" | "inputFloor" | "acc" | "accFloor") => Math.min(...results.map((x) => x[k]));
const DELTAS = 200_000;
const linearity = deltaRun(2 * DELTAS) / deltaRun(DELTAS);
process.stderr.write(`accumulator linearity: ${DELTAS.toLocaleString("en")} → ${(2 * DELTAS).toLocaleString("en")} deltas on one block: ×${linearity.toFixed(2)} time\n`);
const ratio = best("floor") / best("norm");
console.log(JSON.stringify({
  lines: lines.length,
  inputMB: Number(mb.toFixed(1)),
  events: last!.events,
  outputMB: Number((last!.bytes / 1e6).toFixed(1)),
  normalizerMs: Math.round(best("norm")),
  floorMs: Math.round(best("floor")),
  inputFloorMs: Math.round(best("inputFloor")),
  linesPerSecond: Math.round(lines.length / (best("norm") / 1000)),
  eventsPerSecond: Math.round(last!.events / (best("norm") / 1000)),
  ratio: Number(ratio.toFixed(3)),
  inputFloorRatio: Number((best("inputFloor") / best("norm")).toFixed(3)),
  target: 0.5,
  pass: ratio >= 0.5,
  accumulatorMs: Math.round(best("acc")),
  accumulatorFloorMs: Math.round(best("accFloor")),
  accumulatorRatio: Number((best("accFloor") / best("acc")).toFixed(3)),
  accumulatorLinearity: Number(linearity.toFixed(2)),
}));

// ───────────────────────────── resource bounds ─────────────────────────────
// Heap after 1M canonical events vs after 100k, for a session whose turns complete: memory must be bounded by what
// is open, not by history (target: within 2×). Lines are generated on the fly (fresh provider ids per copy) and
// outputs dropped, so the heap holds only what the subject keeps. Needs --expose-gc (npm run bench passes it).

interface HeapSubject {
  name: string;
  /** Shown for contrast only (no target): e.g. the unbounded accumulator a viewer uses. */
  contrast?: boolean;
  /** Feed one input line; return the number of canonical events it produced. */
  make(): { push(line: string): number; held(): unknown; release?(): void };
  /**
   * Fed one long session per template (its thread kept, started once and never closed; every copy more turns of
   * it) instead of a thread per copy: what a per-session bound (the accumulator's retainTurns) is for.
   */
  oneSession?: boolean;
}

const heapSubjects: HeapSubject[] = [
  {
    name: "normalizer",
    make() {
      const n = createNormalizer({ surface: "codex-app-server" });
      return { push: (line) => n.pushLine(line).length, held: () => n.stats().held };
    },
  },
  // The accumulator is fed the normalizer's events for the same lines. Its own heap is measured without the
  // normalizer's share (the line above): heap with it minus heap after release() drops it (one run per checkpoint).
  // retainTurns bounds it; the default (unlimited, a viewer's choice) keeps every turn and is shown for contrast.
  ...[{ retainTurns: 50 }, {}].map((opts): HeapSubject => ({
    name: opts.retainTurns === undefined ? "accumulator (unlimited)" : `accumulator (retainTurns ${opts.retainTurns})`,
    contrast: opts.retainTurns === undefined,
    // retainTurns bounds a session's turns (sessions are not retired: one accumulator per session)
    oneSession: true,
    make() {
      const n = createNormalizer({ surface: "codex-app-server" });
      let a: ReturnType<typeof createAccumulator> | undefined = createAccumulator(opts);
      return {
        push: (line) => {
          const out = n.pushLine(line);
          for (const e of out) a!.apply(e);
          return out.length;
        },
        held: () => (opts.retainTurns === undefined ? a!.stats() : { ...a!.stats(), retired: a!.snapshot().retired }),
        release: () => {
          a = undefined;
          // V8 keeps the last accumulator reachable from the accumulator code's inline caches until other objects
          // pass through them (measured: without this, every other release freed nothing): run a throwaway one.
          const d = createAccumulator(opts);
          const n2 = createNormalizer({ surface: "codex-app-server" });
          for (const l of templates[0]) for (const e of n2.pushLine(l)) d.apply(e);
        },
      };
    },
  })),
];

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function measureHeap(subject: HeapSubject, checkpoints: number[]): { events: number; heapMB: number; held: unknown }[] {
  // A subject that can release what it measures: heap with it minus heap without it, one fresh run per checkpoint.
  if (subject.make().release) return checkpoints.map((cp) => measureOwnHeap(subject, cp));
  const s = subject.make();
  const out: { events: number; heapMB: number; held: unknown }[] = [];
  let events = 0;
  let next = 0;
  const base = heapAfterGc();
  for (let copy = 0; next < checkpoints.length; copy++) {
    // each copy is one thread whose turns complete; the thread is closed at the end (a long-running server hosting
    // many short threads); the open state between copies is nothing
    const t = templates[copy % templates.length];
    const threadId = /"method":"thread\/started","params":\{"thread":\{"id":"([^"]+)"/.exec(t.join("\n"))?.[1];
    const lines = threadId ? [...t, `{"method":"thread/closed","params":{"threadId":"${threadId}"}}`] : t;
    for (const l of lines) {
      events += s.push(l.replace(ID, (_, id) => `"${id}-${copy}"`));
      if (next < checkpoints.length && events >= checkpoints[next]) {
        out.push({ events, heapMB: Number(((heapAfterGc() - base) / 1e6).toFixed(2)), held: s.held() });
        next++;
      }
    }
  }
  return out;
}

function measureOwnHeap(subject: HeapSubject, checkpoint: number): { events: number; heapMB: number; held: unknown } {
  const s = subject.make();
  let events = 0;
  for (let copy = 0; events < checkpoint; copy++) {
    const t = templates[copy % templates.length];
    const threadId = /"method":"thread\/started","params":\{"thread":\{"id":"([^"]+)"/.exec(t.join("\n"))?.[1];
    const lines = subject.oneSession
      ? (copy < templates.length ? t : t.filter((l) => !l.includes('"method":"thread/started"')))
      : threadId ? [...t, `{"method":"thread/closed","params":{"threadId":"${threadId}"}}`] : t;
    for (const l of lines) {
      events += s.push(l.replace(ID, (_, id) => (subject.oneSession && id === threadId ? `"${id}"` : `"${id}-${copy}"`)));
      if (events >= checkpoint) break;
    }
  }
  const held = s.held();
  const withIt = heapAfterGc();
  s.release!();
  const without = heapAfterGc();
  return { events, heapMB: Number(((withIt - without) / 1e6).toFixed(2)), held };
}

if ((globalThis as { gc?: unknown }).gc) {
  for (const subject of heapSubjects) {
    const [small, large] = measureHeap(subject, [100_000, 1_000_000]);
    const ratio = large.heapMB / Math.max(small.heapMB, 0.001);
    // a few hundred kB of noise dominates when the subject holds almost nothing: 2× or within 1 MB
    const pass = subject.contrast ? null : ratio <= 2 || large.heapMB - small.heapMB < 1;
    process.stderr.write(`heap (${subject.name}): +${small.heapMB} MB after ${small.events.toLocaleString("en")} events, +${large.heapMB} MB after ${large.events.toLocaleString("en")} events (×${ratio.toFixed(2)}, ${subject.contrast ? "contrast, no target" : `target ≤ 2×: ${pass ? "pass" : "FAIL"}`}); held ${JSON.stringify(large.held)}\n`);
    console.log(JSON.stringify({ heap: subject.name, events100k: small.events, heapMB100k: small.heapMB, events1M: large.events, heapMB1M: large.heapMB, ratio: Number(ratio.toFixed(2)), held1M: large.held, target: subject.contrast ? null : 2, pass }));
  }
} else {
  process.stderr.write("heap: skipped (run with node --expose-gc, as npm run bench does)\n");
}
