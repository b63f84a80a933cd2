/**
 * Interleaving recordings (test/sessions.test.ts): several recordings of one surface merged into one stream, as a
 * host logging several sessions to one file (or several threads on one connection) would write it, and the canonical
 * events of each session compared with those of its recording normalized alone.
 *
 * What "the same" means (canon):
 * - events are compared per canonical session, in sequence order; `eventId`, `sequence` and `sessionId` are left out;
 * - canonical ids (thr_, trn_, itm_, req_, tsk_ — envelope fields, providerRefs aside, and anywhere in the payload)
 *   are renamed by first appearance within the session, so the counters of the other sessions do not show;
 *   providerRefs.providerRequestId likewise (JSON-RPC ids are renumbered to keep one connection's ids unique);
 * - the clock is constant (createdAt is the message's own time, else the epoch), and raw.payload is left out.
 *
 * How recordings are merged (the lines a session can be told by):
 * - a line is keyed when it names its session (the surface table's `sessions:` paths);
 * - a line naming none stays right after the line before it in its recording (the runtime puts it in the session of
 *   the last line that named one: that is the only thing that says where it belongs);
 * - the first recording's lines before its first keyed line open the stream; another recording's lines before its
 *   first keyed line (a connection's handshake, a prompt sent before the session said its id) cannot be told apart
 *   from the session before them and are left out — of the merged stream and of that recording's own run alike —
 *   except a JSON-RPC request whose answer names the session (thread/start, session/new), kept with its answer;
 * - the blocks (a keyed line and the unkeyed lines after it) of all recordings are interleaved in a random order
 *   that keeps each recording's own order;
 * - a provider session id two recordings share is renamed in the later one (`<id>~<n>`), and the JSON-RPC ids of each
 *   recording after the first are offset (ids are unique only per connection).
 */
import { readFileSync } from "node:fs";
import { SURFACES } from "../../generated/surfaces.gen.js";
import { unwrap } from "../../src/capture/unwrap.js";
import { createNormalizer, type CanonicalEvent } from "../../src/normalize/normalizer.js";
import { counterIds } from "../../src/normalize/ids.js";
import { sessionKey } from "../../src/normalize/sessions.js";
import type { SurfaceTable } from "../../src/normalize/table-types.js";

export interface Recording {
  name: string;
  lines: string[];
}

export function readRecording(file: string, name = file): Recording {
  return { name, lines: readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "") };
}

/** The message inside a line, what the table's input wrappers make of it, its type / method, and its session id. */
export function lineSession(surface: string, text: string): { key?: string; request?: { id: string }; responseTo?: string } {
  const t = SURFACES[surface as keyof typeof SURFACES];
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  const w = unwrap(parsed);
  let m: any = w.message;
  let meta: any;
  let method: string | undefined;
  if (t.protocol === "tagged") {
    const found = t.input?.(m, w.message === parsed ? undefined : parsed);
    if (!found || "ignore" in found) return {};
    m = found.message;
    meta = found.meta;
    if (!m || typeof m !== "object") return {};
    method = (typeof found.type === "string" ? found.type : undefined) ?? Object.values(t.tags).map((tag) => m[tag]).find((v) => typeof v === "string");
  } else if (m && typeof m === "object") method = typeof m.method === "string" ? m.method : undefined;
  if (!m || typeof m !== "object") return {};
  const key = t.session ? sessionKey(t.session(m, { meta, method: method ?? "" }).key) : undefined;
  const isId = (x: unknown) => typeof x === "string" || typeof x === "number";
  if (t.protocol === "jsonrpc" && isId(m.id)) {
    if (typeof m.method === "string") return { key, request: { id: String(m.id) } };
    return { key, responseTo: String(m.id) };
  }
  return { key };
}

/** A recording cut into blocks: each starts at a keyed line (the first may be the stream's opening lines). */
export interface Blocks {
  name: string;
  /** The recording's lines kept (its own run uses exactly these). */
  kept: string[];
  blocks: string[][];
  keys: Set<string>;
}

export function toBlocks(surface: string, r: Recording, first: boolean): Blocks {
  const info = r.lines.map((l) => lineSession(surface, l));
  const keys = new Set(info.flatMap((x) => (x.key !== undefined ? [x.key] : [])));
  const firstKeyed = info.findIndex((x) => x.key !== undefined);
  if (firstKeyed < 0) return { name: r.name, kept: first ? r.lines : [], blocks: first ? [r.lines] : [], keys };
  // another recording's opening lines are left out, but a JSON-RPC request whose answer names the session is kept
  // with that answer
  const carried = new Map<number, string>();
  if (!first && SURFACES[surface as keyof typeof SURFACES].protocol === "jsonrpc") {
    const i = info.findIndex((x, k) => k >= firstKeyed && x.key !== undefined && x.responseTo !== undefined);
    const j = i < 0 ? -1 : info.findIndex((x, k) => k < firstKeyed && x.request?.id === info[i].responseTo);
    if (j >= 0) carried.set(i, r.lines[j]);
  }
  const blocks: string[][] = [];
  for (let i = firstKeyed; i < r.lines.length; i++) {
    if (info[i].key !== undefined || i === firstKeyed) blocks.push(carried.has(i) ? [carried.get(i)!, r.lines[i]] : [r.lines[i]]);
    else blocks[blocks.length - 1].push(r.lines[i]);
  }
  if (first) blocks[0].unshift(...r.lines.slice(0, firstKeyed));
  return { name: r.name, kept: blocks.flat(), blocks, keys };
}

/** Rename in `b` the provider session ids it shares with `taken` (`<id>~<tag>`), and offset its JSON-RPC ids by `offset`. */
export function separate(surface: string, b: Recording, taken: Set<string>, offset: number, tag = "2"): Recording {
  const shared = [...new Set(b.lines.flatMap((l) => { const k = lineSession(surface, l).key; return k !== undefined && taken.has(k) ? [k] : []; }))];
  const jsonrpc = SURFACES[surface as keyof typeof SURFACES].protocol === "jsonrpc";
  const lines = b.lines.map((line) => {
    let l = line;
    for (const k of shared) l = l.split(JSON.stringify(k)).join(JSON.stringify(`${k}~${tag}`));
    if (!jsonrpc || offset === 0) return l;
    let parsed: any;
    try { parsed = JSON.parse(l); } catch { return l; }
    const w = unwrap(parsed);
    const m: any = w.message;
    if (!m || typeof m !== "object") return l;
    const shift = (x: unknown) => (typeof x === "number" ? x + offset : typeof x === "string" ? `${x}~${offset}` : x);
    if ("id" in m) m.id = shift(m.id);
    if (m.params && typeof m.params === "object" && "requestId" in m.params) m.params.requestId = shift(m.params.requestId);
    return JSON.stringify(parsed);
  });
  return { name: b.name, lines };
}

/** One run: the events of every line, then of end(). `table`: another compiled table for the surface (a control). */
export function run(surface: string, lines: string[], table?: SurfaceTable): CanonicalEvent[] {
  const n = createNormalizer({ surface: table ?? surface, ids: counterIds(), clock: () => 0, includeRaw: false });
  const out: CanonicalEvent[] = [];
  lines.forEach((l, i) => out.push(...n.pushLine(l, { lineNumber: i + 1 })));
  out.push(...n.end());
  return out;
}

/** Canonical ids of the counter factory (also inside provider keys a table builds from one, e.g. `user:<session>:trn_2`). */
const ID = /\b(?:thr|trn|itm|req|tsk)_\d+\b/g;

/** The events as compared: see the file's comment. */
export function canon(events: CanonicalEvent[]): unknown[] {
  const names = new Map<string, string>();
  const rename = (v: string): string => {
    let n = names.get(v);
    if (n === undefined) {
      const kind = v.slice(0, 3);
      let i = 1;
      for (const x of names.values()) if (x.startsWith(kind)) i++;
      names.set(v, (n = `${kind}_#${i}`));
    }
    return n;
  };
  const requests = new Map<string, string>();
  const walk = (x: any): any => {
    if (typeof x === "string") return x.replace(ID, rename);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  return events.map((e) => {
    const { eventId: _e, sequence: _s, sessionId: _id, providerRefs, ...rest } = e as any;
    const refs = providerRefs ? walk(providerRefs) : undefined;
    if (refs?.providerRequestId !== undefined) {
      const k = String(refs.providerRequestId);
      if (!requests.has(k)) requests.set(k, `request#${requests.size + 1}`);
      refs.providerRequestId = requests.get(k);
    }
    return { ...walk(JSON.parse(JSON.stringify(rest))), ...(refs ? { providerRefs: refs } : {}) };
  });
}

/** Merge the blocks in the order `picks` gives (picks[i]: which recording's next block; exhausted ones are skipped). */
export function merge(all: Blocks[], picks: number[]): { lines: string[]; from: number[] } {
  const next = all.map(() => 0);
  const lines: string[] = [];
  const from: number[] = [];
  const take = (r: number) => { for (const l of all[r].blocks[next[r]++]) { lines.push(l); from.push(r); } };
  if (all[0].blocks.length) take(0); // the first recording opens the stream
  for (const p of picks) {
    const left = all.map((b, i) => (next[i] < b.blocks.length ? i : -1)).filter((i) => i >= 0);
    if (!left.length) break;
    take(left[p % left.length]);
  }
  for (let r = 0; r < all.length; r++) while (next[r] < all[r].blocks.length) take(r);
  return { lines, from };
}

/** The events of the merged run per recording: the session its keyed lines went to. */
export function bySession(surface: string, lines: string[], from: number[], count: number, table?: SurfaceTable): { sessions: Map<string, CanonicalEvent[]>; of: (string | undefined)[] } {
  const n = createNormalizer({ surface: table ?? surface, ids: counterIds(), clock: () => 0, includeRaw: false });
  const sessions = new Map<string, CanonicalEvent[]>();
  const of: (string | undefined)[] = new Array(count).fill(undefined);
  const add = (e: CanonicalEvent) => { let l = sessions.get(e.sessionId); if (!l) sessions.set(e.sessionId, (l = [])); l.push(e); };
  lines.forEach((l, i) => {
    const evs = n.pushLine(l, { lineNumber: i + 1 });
    if (of[from[i]] === undefined && lineSession(surface, l).key !== undefined && evs.length) of[from[i]] = evs[evs.length - 1].sessionId;
    evs.forEach(add);
  });
  n.end().forEach(add);
  return { sessions, of };
}
