/**
 * `npm run bench -- --peers`: agentnorm side by side with hand-written converters that do part of its job, and the
 * floor ratio of every surface. The method is described in bench/README.md.
 *
 * Peers (installed at pinned versions into a cache outside the repository, never dependencies of the package):
 *  - Claude SDK messages → `@zed-industries/claude-code-acp` (its prompt loop's per-message conversion:
 *    `streamEventToAcpNotifications` for stream events, `toAcpNotifications` for assistant/user messages)
 *  - opencode `/event` payloads → `ai-sdk-provider-opencode-sdk` (`convertEventToStreamParts`, one stream state
 *    per session)
 *  - Codex app-server lines → `ai-sdk-provider-codex-cli` (app-server mode: its notification router and stream
 *    emitter, one router per running turn, as its language model subscribes them; the module does not export
 *    them, so the bench loads a copy of its bundle that adds the export line — the code is unchanged)
 *  - render accumulation → `@ag-ui/client` (`defaultApplyEvents`: the reducer an AG-UI client applies events with)
 *
 * Every side gets the same input lines (or events), chunk by chunk, alternating which goes first; a side's time is
 * the sum over chunks. Each converter parses its line and serializes what it produces (JSON.stringify), as the
 * normalizer does (pushLine + serializeEvent), so the ratio compares the whole job from a line to bytes out.
 * Ratios < 1 mean agentnorm is faster. Under each peer row, the fair in-memory row: both sides given parsed messages,
 * both making objects, nothing serialized. Then the CLI path (NDJSON in → NDJSON out) against JSON.parse +
 * JSON.stringify of the same lines, per surface.
 */
import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createNormalizer, serializeEvent, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";
import { shareRawPayloads } from "../src/normalize/raw-stream.js";
import { chunks, expand, loadCorpus, type Corpus } from "./corpus.js";

// dist/bench/ when built, bench/ under tsx
const root = fileURLToPath(new URL(import.meta.url.includes("/dist/bench/") ? "../../" : "../", import.meta.url));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : undefined);
const ROUNDS = opt("--rounds") ?? 3;
const SCALE = opt("--scale") ?? 1;
const only = args.includes("--only") ? args[args.indexOf("--only") + 1].split(",") : undefined;
/** `--surfaces a,b`: the floors of these surfaces only. */
const surfaces = args.includes("--surfaces") ? args[args.indexOf("--surfaces") + 1].split(",") : undefined;
const log = (s: string) => process.stderr.write(s + "\n");

export const PEERS = {
  claude: "@zed-industries/claude-code-acp@0.16.2",
  opencode: "ai-sdk-provider-opencode-sdk@3.0.6",
  codex: "ai-sdk-provider-codex-cli@2.2.1",
  agui: "@ag-ui/client@1.0.0",
} as const;

const CACHE = process.env.AGENTNORM_BENCH_CACHE ?? join(homedir(), ".cache", "agentnorm-bench");

/** Install the pinned peers into the cache once (a stamp names the pinned set); returns the folder. */
function installPeers(): string {
  const specs = Object.values(PEERS);
  const dir = join(CACHE, "peers");
  const stamp = join(dir, ".installed-" + specs.join("+").replace(/[^A-Za-z0-9@.+-]/g, "_"));
  if (existsSync(stamp)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agentnorm-bench-peers", private: true }));
  log(`bench: installing ${specs.join(", ")} into ${dir} …`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", ...specs], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  writeFileSync(stamp, new Date().toISOString());
  return dir;
}

// ───────────────────────────── measurement ─────────────────────────────

interface Side<T> {
  /** A fresh converter (state and all) for one pass. */
  make(): (chunk: T[]) => number | Promise<number>;
  /** Untimed, just before a chunk is timed: what the converter is given (e.g. the chunk's lines, parsed afresh). */
  prepare?(chunk: T[]): unknown;
}

async function timed(f: (chunk: any) => number | Promise<number>, chunk: unknown): Promise<[number, number]> {
  const t0 = performance.now();
  const r = f(chunk);
  const n = typeof r === "number" ? r : await r;
  return [performance.now() - t0, n];
}

/** What a side is given for a chunk (prepared untimed, just before its timing). */
const input = <T>(side: Side<T>, chunk: T[]): unknown => (side.prepare ? side.prepare(chunk) : chunk);

/** Both sides over the same chunks, alternating which goes first; best of ROUNDS per side, ratio ours ÷ theirs. */
async function sideBySide<T>(chunkList: T[][], ours: Side<T>, theirs: Side<T>): Promise<{ oursMs: number; theirsMs: number; ratio: number; ratios: number[] }> {
  // a warm-up pass over every chunk, with throwaway state (both sides' code optimized before timing)
  {
    const a = ours.make();
    const b = theirs.make();
    for (const c of chunkList) { await timed(a, input(ours, c)); await timed(b, input(theirs, c)); }
  }
  const ratios: number[] = [];
  let bestOurs = Infinity;
  let bestTheirs = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const a = ours.make();
    const b = theirs.make();
    let ta = 0;
    let tb = 0;
    for (let i = 0; i < chunkList.length; i++) {
      const c = chunkList[i];
      if ((i + r) % 2 === 0) { ta += (await timed(a, input(ours, c)))[0]; tb += (await timed(b, input(theirs, c)))[0]; }
      else { tb += (await timed(b, input(theirs, c)))[0]; ta += (await timed(a, input(ours, c)))[0]; }
    }
    ratios.push(ta / tb);
    bestOurs = Math.min(bestOurs, ta);
    bestTheirs = Math.min(bestTheirs, tb);
  }
  ratios.sort((x, y) => x - y);
  return { oursMs: bestOurs, theirsMs: bestTheirs, ratio: ratios[Math.floor(ratios.length / 2)], ratios };
}

/**
 * The bound a mapping of no cost would reach: JSON.parse of every line + JSON.stringify of the canonical events
 * agentnorm makes for it (made by a normalizer running along, untimed), against the peer on the same chunks,
 * alternating which goes first; best of ROUNDS per side after a warm-up round. Also the bytes each side writes.
 */
async function outputBound(idx: number[][], lines: string[], peerLines: string[], surface: string, peer: Side<string>): Promise<{ boundMs: number; peerMs: number; oursBytes: number; peerBytes: number }> {
  let boundMs = Infinity, peerMs = Infinity, oursBytes = 0, peerBytes = 0;
  for (let r = -1; r < ROUNDS; r++) {
    const along = createNormalizer({ surface });
    const p = peer.make();
    let ta = 0, tb = 0, ba = 0, bb = 0;
    for (let i = 0; i < idx.length; i++) {
      const chunk = lines.slice(idx[i][0], idx[i][idx[i].length - 1] + 1);
      const peerChunk = peerLines.slice(idx[i][0], idx[i][idx[i].length - 1] + 1);
      const outs = chunk.map((l) => along.pushLine(l));
      const bound = () => {
        const t0 = performance.now();
        for (let j = 0; j < chunk.length; j++) {
          JSON.parse(chunk[j]);
          const o = outs[j];
          for (let k = 0; k < o.length; k++) ba += JSON.stringify(o[k]).length;
        }
        ta += performance.now() - t0;
      };
      const theirs = async () => { const [t, n] = await timed(p, peerChunk); tb += t; bb += n; };
      if ((i + r) % 2 === 0) { bound(); await theirs(); } else { await theirs(); bound(); }
    }
    if (r < 0) continue;
    boundMs = Math.min(boundMs, ta);
    peerMs = Math.min(peerMs, tb);
    oursBytes = ba;
    peerBytes = bb;
  }
  return { boundMs, peerMs, oursBytes, peerBytes };
}

/** agentnorm's job on lines: pushLine + serializeEvent of every event (default options: raw payloads on). */
function normalizerSide(surface: string, opts: Record<string, unknown> = {}): Side<string> {
  return {
    make() {
      const n = createNormalizer({ surface, ...opts });
      return (chunk) => {
        let bytes = 0;
        for (let i = 0; i < chunk.length; i++) {
          const out = n.pushLine(chunk[i]);
          for (let j = 0; j < out.length; j++) bytes += serializeEvent(out[j]).length;
        }
        return bytes;
      };
    },
  };
}

// ───────────────────────────── peers ─────────────────────────────

type Any = any;

/**
 * A peer in two forms: `lines` parses each line and serializes what it makes (the whole job, beside pushLine +
 * serializeEvent); `objects` is given the parsed messages and makes objects, nothing serialized (beside push).
 */
interface Peer { lines: Side<string>; objects: Side<unknown> }

/** Both forms of a converter `make()` returns: `convert(message, out)` makes the outputs of one parsed message. */
function bothForms(make: () => (message: Any, out: (o: unknown) => void) => void): Peer {
  return {
    lines: {
      make() {
        const convert = make();
        let bytes = 0;
        const out = (o: unknown) => { bytes += JSON.stringify(o).length; };
        return (chunk) => {
          bytes = 0;
          for (let i = 0; i < chunk.length; i++) convert(JSON.parse(chunk[i]), out);
          return bytes;
        };
      },
    },
    objects: {
      make() {
        const convert = make();
        let n = 0;
        const out = () => { n++; };
        return (chunk) => {
          n = 0;
          for (let i = 0; i < chunk.length; i++) convert(chunk[i], out);
          return n;
        };
      },
    },
  };
}

async function claudePeer(dir: string): Promise<Peer> {
  const mod: Any = await import(pathToFileURL(join(dir, "node_modules/@zed-industries/claude-code-acp/dist/acp-agent.js")).href);
  const logger = { log() {}, error() {} };
  const client = { async sessionUpdate() {} };
  return bothForms(() => {
    const toolUseCache: Record<string, unknown> = {};
    return (message, emit) => {
      const sessionId = message.session_id;
      let out: unknown[] = [];
      // the peer's prompt loop (ClaudeAcpAgent.prompt), minus its awaits
      if (message.type === "stream_event") out = mod.streamEventToAcpNotifications(message, sessionId, toolUseCache, client, logger);
      else if (message.type === "user" || message.type === "assistant") {
        const content = message.message?.content;
        if (typeof content === "string" && (content.includes("<local-command-stdout>") || content.includes("<local-command-stderr>"))) out = [];
        else if (message.type === "user" && (typeof content === "string" || (Array.isArray(content) && content.length === 1 && content[0].type === "text"))) out = [];
        else if (Array.isArray(content)) {
          const c = message.type === "assistant" ? content.filter((x: Any) => !["text", "thinking"].includes(x.type)) : content;
          out = mod.toAcpNotifications(c, message.message.role, sessionId, toolUseCache, client, logger);
        }
      }
      for (let j = 0; j < out.length; j++) emit(out[j]);
    };
  });
}

async function opencodePeer(dir: string): Promise<Peer> {
  const mod: Any = await import(pathToFileURL(join(dir, "node_modules/ai-sdk-provider-opencode-sdk/dist/index.js")).href);
  return bothForms(() => {
    const states = new Map<string, unknown>();
    return (event, emit) => {
      const p = event.properties ?? {};
      const sid: string | undefined = p.part?.sessionID ?? p.info?.sessionID ?? p.sessionID;
      if (sid === undefined) return; // the peer's isEventForSession drops it
      let state = states.get(sid);
      if (!state) { state = mod.createStreamState(); states.set(sid, state); }
      const parts = mod.convertEventToStreamParts(event, state, mod.silentLogger);
      for (let j = 0; j < parts.length; j++) emit(parts[j]);
    };
  });
}

/**
 * The Codex peer's bundle does not export its RPC client, router and emitter: the bench loads a copy with one export
 * line added, and two expressions of `handleLine` widened so that it also takes a message already parsed (what the
 * in-memory row gives it; a line goes through the unchanged path).
 */
function codexCopy(pkgDir: string): string {
  const copy = join(pkgDir, "index.bench-internals.js");
  const exportLine = "\nexport { AppServerRpcClient as __Client, AppServerNotificationRouter as __Router, AppServerStreamEmitter as __Emitter };\n";
  let src = readFileSync(join(pkgDir, "index.js"), "utf8");
  for (const [from, to] of [
    ["const trimmed = line.trim();", "const trimmed = typeof line === \"string\" ? line.trim() : line;"],
    ["parsed = JSON.parse(trimmed);", "parsed = typeof trimmed === \"string\" ? JSON.parse(trimmed) : trimmed;"],
  ]) {
    if (src.split(from).length !== 2) throw new Error(`bench: ${PEERS.codex}: "${from}" is not in its bundle once`);
    src = src.replace(from, to);
  }
  src += exportLine;
  if (!existsSync(copy) || readFileSync(copy, "utf8") !== src) writeFileSync(copy, src);
  return copy;
}

async function codexPeer(dir: string): Promise<Peer> {
  const mod: Any = await import(pathToFileURL(codexCopy(join(dir, "node_modules/ai-sdk-provider-codex-cli/dist"))).href);
  const form = (serialize: boolean): Side<Any> => ({
    make() {
      // the RPC client's line handling (JSON.parse, its JSON-RPC and notification schemas) feeds the routers of
      // the running turns, as the language model wires them; nothing is spawned
      const client = new mod.__Client({ logger: false });
      client.setMaxListeners(0);
      const routers = new Map<string, () => void>();
      const ended: string[] = [];
      let n = 0;
      const controller = { enqueue(p: unknown) { n += serialize ? JSON.stringify(p).length : 1; }, close() {}, error() {} };
      client.on("notification", (method: string, params: Any) => {
        if (method === "turn/started" && typeof params.threadId === "string") {
          const emitter = new mod.__Emitter(controller, { modelId: "bench", threadId: params.threadId, includeRawChunks: false });
          const router = new mod.__Router({ client, emitter, threadId: params.threadId, onUsage() {}, onThreadTurnCompleted() {}, onTurnCompleted() {}, onError() {} });
          routers.get(params.threadId)?.();
          routers.set(params.threadId, router.subscribe());
          router.setTurnId(params.turn?.id);
        } else if (method === "turn/completed" && typeof params.threadId === "string") ended.push(params.threadId);
      });
      return (chunk) => {
        n = 0;
        for (let i = 0; i < chunk.length; i++) {
          if (chunk[i] === "" || chunk[i] === undefined) continue; // a line the peer does not see
          client.handleLine(chunk[i]);
          // a turn's router unsubscribes once its turn/completed went through it
          while (ended.length) { const t = ended.pop()!; routers.get(t)?.(); routers.delete(t); }
        }
        return n;
      };
    },
  });
  return { lines: form(true), objects: form(false) };
}

/**
 * Canonical events → AG-UI events (untimed, beforehand), for one long session: one run, a step per turn, a text
 * message per assistant/reasoning item, a tool call (start, args, end, result) per other item.
 */
function agUiConverter(runId: string): (events: CanonicalEvent[]) => unknown[] {
  let started = false;
  const P = (e: CanonicalEvent): Any => e.payload as Any;
  return (events) => {
    const ev: unknown[] = [];
    if (!started) { ev.push({ type: "RUN_STARTED", threadId: runId, runId }); started = true; }
    for (const e of events) {
      const item = P(e)?.item ?? P(e);
      if (e.type === "turn.started") ev.push({ type: "STEP_STARTED", stepName: e.turnId });
      else if (e.type === "turn.completed") ev.push({ type: "STEP_FINISHED", stepName: e.turnId });
      else if (e.type === "item.started" && e.itemId) {
        if (item.itemType === "assistant_message" || item.itemType === "reasoning") ev.push({ type: "TEXT_MESSAGE_START", messageId: e.itemId, role: "assistant" });
        else if (item.itemType !== "user_message") ev.push({ type: "TOOL_CALL_START", toolCallId: e.itemId, toolCallName: item.itemType ?? "tool" });
      } else if (e.type === "content.delta" && e.itemId) {
        const d = P(e);
        if (d.streamKind === "assistant_text" || d.streamKind === "reasoning_text" || d.streamKind === "reasoning_summary_text") ev.push({ type: "TEXT_MESSAGE_CONTENT", messageId: e.itemId, delta: d.delta || " " });
        else ev.push({ type: "TOOL_CALL_ARGS", toolCallId: e.itemId, delta: d.delta || " " });
      } else if (e.type === "item.completed" && e.itemId) {
        if (item.itemType === "assistant_message" || item.itemType === "reasoning") ev.push({ type: "TEXT_MESSAGE_END", messageId: e.itemId });
        else if (item.itemType !== "user_message") {
          ev.push({ type: "TOOL_CALL_END", toolCallId: e.itemId });
          ev.push({ type: "TOOL_CALL_RESULT", messageId: `${e.itemId}-result`, toolCallId: e.itemId, content: JSON.stringify(item.content ?? {}) });
        }
      }
    }
    return ev;
  };
}

async function aguiPeer(dir: string): Promise<Side<{ canonical: CanonicalEvent[]; agui: unknown[] }>> {
  const mod: Any = await import(pathToFileURL(join(dir, "node_modules/@ag-ui/client/dist/index.mjs")).href);
  const { from } = createRequire(join(dir, "node_modules/@ag-ui/client/package.json"))("rxjs");
  const BenchAgent: any = class extends mod.AbstractAgent { run() { throw new Error("bench agent: not run"); } };
  return {
    make() {
      // a chunk is one thread: an agent and a run of its own (the reducer works in promise jobs: timed until the
      // run's mutations complete)
      return async (chunk) => {
        let n = 0;
        for (const c of chunk) {
          const agent = new BenchAgent({ threadId: "bench" });
          const input = { threadId: "bench", runId: "bench", messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
          await new Promise<void>((resolve, reject) => {
            defaultApplyEventsOf(mod)(input, from(c.agui), agent, []).subscribe({ next() { n++; }, error: reject, complete: resolve });
          });
        }
        return n;
      };
    },
  };
}
const defaultApplyEventsOf = (mod: Any) => mod.defaultApplyEvents;

// ───────────────────────────── runs ─────────────────────────────

const results: Record<string, unknown>[] = [];
function report(row: Record<string, unknown>, line: string) {
  results.push(row);
  log(line);
  console.log(JSON.stringify(row));
}

const want = (k: string) => !only || only.includes(k);
const peersDir = want("peers") || want("claude") || want("opencode") || want("codex") || want("agui") ? installPeers() : "";
const CHUNK = 1000;

/**
 * Side by side on the same chunks; `peerCorpus` (aligned line for line) blanks what the peer itself sent. Three rows:
 * the whole job (lines in, bytes out), the bound of a mapping of no cost, and the fair in-memory row (each side
 * given the chunk's messages parsed afresh, untimed, and making objects: `push` against the peer's conversion,
 * nothing serialized on either side).
 */
async function peerRow(key: string, label: string, surface: string, corpus: Corpus | undefined, target: number, peer: Promise<Peer>, inMemoryTarget: number, extra: Record<string, unknown> = {}, peerCorpus?: Corpus) {
  if (!corpus) { log(`peers: ${key}: no input for ${surface} — skipped`); return; }
  const lines = expand(corpus, Math.round(target * SCALE));
  const peerLines = peerCorpus ? expand(peerCorpus, lines.length) : lines;
  const ours = normalizerSide(surface, extra);
  const theirs = await peer;
  const idx = chunks(lines.map((_, i) => i), CHUNK);
  const at = (ls: string[], side: Side<string>): Side<number> => ({ make() { const f = side.make(); return (c) => f(ls.slice(c[0], c[c.length - 1] + 1)); } });
  const r = await sideBySide(idx, at(lines, ours), at(peerLines, theirs.lines));
  report(
    { peer: key, package: PEERS[key as keyof typeof PEERS], surface, lines: lines.length, ...extra, agentnormMs: Math.round(r.oursMs), peerMs: Math.round(r.theirsMs), ratio: Number(r.ratio.toFixed(3)), ratios: r.ratios.map((x) => Number(x.toFixed(3))), target: 1, pass: r.ratio < 1 },
    `peer ${label}: ${lines.length.toLocaleString("en")} lines, agentnorm ${r.oursMs.toFixed(0)} ms, ${PEERS[key as keyof typeof PEERS]} ${r.theirsMs.toFixed(0)} ms: agentnorm ÷ peer ${r.ratio.toFixed(2)} (rounds ${r.ratios.map((x) => x.toFixed(2)).join(", ")}; target < 1: ${r.ratio < 1 ? "pass" : "FAIL"})`,
  );
  // what no mapping can go below: parsing the lines and printing agentnorm's events, against the peer
  const b = await outputBound(idx, lines, peerLines, surface, theirs.lines);
  const bound = b.boundMs / b.peerMs;
  const mb = (n: number) => (n / 1e6).toFixed(1);
  report(
    { peer: key, bound: true, surface, lines: lines.length, boundMs: Math.round(b.boundMs), peerMs: Math.round(b.peerMs), ratio: Number(bound.toFixed(3)), agentnormBytes: b.oursBytes, peerBytes: b.peerBytes },
    `  ${key}: parse + print of agentnorm's events alone (a mapping of no cost) ÷ peer ${bound.toFixed(2)}; bytes written: agentnorm ${mb(b.oursBytes)} MB, peer ${mb(b.peerBytes)} MB (${(b.oursBytes / Math.max(1, b.peerBytes)).toFixed(1)}×)`,
  );
  // the fair in-memory row: parsed messages in, objects out, no stringify on either side
  const parsed = (ls: string[]) => (c: number[]): unknown[] => {
    const out = new Array<unknown>(c.length);
    for (let i = 0; i < c.length; i++) out[i] = ls[c[i]] === "" ? undefined : JSON.parse(ls[c[i]]);
    return out;
  };
  const oursObjects: Side<number> = {
    prepare: parsed(lines),
    make() {
      const n = createNormalizer({ surface, ...extra });
      return ((msgs: unknown[]) => {
        let k = 0;
        for (let i = 0; i < msgs.length; i++) k += n.push(msgs[i]).length;
        return k;
      }) as unknown as (c: number[]) => number;
    },
  };
  const peerObjects: Side<number> = { prepare: parsed(peerLines), make: theirs.objects.make as unknown as Side<number>["make"] };
  const m = await sideBySide(idx, oursObjects, peerObjects);
  const pass = inMemoryTarget === 1 ? m.ratio < 1 : m.ratio <= inMemoryTarget;
  report(
    { peer: key, inMemory: true, package: PEERS[key as keyof typeof PEERS], surface, lines: lines.length, agentnormMs: Math.round(m.oursMs), peerMs: Math.round(m.theirsMs), ratio: Number(m.ratio.toFixed(3)), ratios: m.ratios.map((x) => Number(x.toFixed(3))), target: inMemoryTarget, pass },
    `  ${key} in memory (parsed in, objects out, no stringify): agentnorm push ${m.oursMs.toFixed(0)} ms, peer ${m.theirsMs.toFixed(0)} ms: agentnorm ÷ peer ${m.ratio.toFixed(2)} (rounds ${m.ratios.map((x) => x.toFixed(2)).join(", ")}; target ${inMemoryTarget === 1 ? "<" : "≤"} ${inMemoryTarget}: ${pass ? "pass" : "FAIL"})`,
  );
}

if (want("peers") || want("claude")) {
  const c = loadCorpus(root, "claude-sdk", (r) => r.dir === "in");
  await peerRow("claude", "Claude SDK messages", "claude-sdk", c, 200_000, claudePeer(peersDir), 3);
}
if (want("peers") || want("opencode")) {
  const c = loadCorpus(root, "opencode", (r) => r.channel === "event");
  await peerRow("opencode", "opencode /event payloads", "opencode", c, 100_000, opencodePeer(peersDir), 3);
}
if (want("peers") || want("codex")) {
  // the recordings (they say which side sent a line): the client's own lines are blank for the peer
  const files = (f: string) => f.includes("/recorded/");
  const c = loadCorpus(root, "codex-app-server", () => true, { files });
  const pc = loadCorpus(root, "codex-app-server", () => true, { files, mask: (r) => r.dir === "out" });
  await peerRow("codex", "Codex app-server lines", "codex-app-server", c, 40_000, codexPeer(peersDir), 1, {}, pc);
}
if (want("peers") || want("agui")) {
  const c = loadCorpus(root, "codex-app-server")!;
  const lines = expand(c, Math.round(40_000 * SCALE));
  const n = createNormalizer({ surface: "codex-app-server" });
  // per thread (a view renders one thread): its canonical events, and the same as one AG-UI run. (One run for
  // everything makes AG-UI quadratic — it clones its state per event —; that is the contrast row below.)
  const byThread = new Map<string, CanonicalEvent[]>();
  for (const l of lines) for (const e of n.pushLine(l)) {
    const k = e.threadId ?? "";
    let list = byThread.get(k);
    if (!list) byThread.set(k, (list = []));
    list.push(e);
  }
  const perChunk = [...byThread.values()].map((canonical) => ({ canonical, agui: [...agUiConverter("bench")(canonical), { type: "RUN_FINISHED", threadId: "bench", runId: "bench" }] }));
  const events = perChunk.reduce((a, c) => a + c.canonical.length, 0);
  const ours: Side<(typeof perChunk)[number]> = {
    make() {
      return (chunk) => {
        let k = 0;
        for (const c of chunk) {
          const a = createAccumulator();
          for (let i = 0; i < c.canonical.length; i++) { a.apply(c.canonical[i]); k++; }
        }
        return k;
      };
    },
  };
  // chunks of whole threads, about 1,000 events each (the size of the other rows' chunks: alternating every
  // thread of ~30 events would time each side cold, its caches taken by the other)
  const threadChunks: (typeof perChunk)[] = [];
  for (let i = 0, n = 0; i < perChunk.length; i++) {
    if (n === 0) threadChunks.push([]);
    threadChunks[threadChunks.length - 1].push(perChunk[i]);
    n += perChunk[i].canonical.length;
    if (n >= CHUNK) n = 0;
  }
  const r = await sideBySide(threadChunks, ours, await aguiPeer(peersDir));
  report(
    { peer: "agui", package: PEERS.agui, input: "render accumulation", events, agentnormMs: Math.round(r.oursMs), peerMs: Math.round(r.theirsMs), ratio: Number(r.ratio.toFixed(3)), ratios: r.ratios.map((x) => Number(x.toFixed(3))), target: 0.25, pass: r.ratio <= 0.25 },
    `peer render accumulation: ${events.toLocaleString("en")} events, agentnorm accumulator ${r.oursMs.toFixed(0)} ms, ${PEERS.agui} defaultApplyEvents ${r.theirsMs.toFixed(0)} ms: ratio ${r.ratio.toFixed(2)} (target ≤ 0.25, i.e. ≥ 4× ahead: ${r.ratio <= 0.25 ? "pass" : "FAIL"})`,
  );
  // One long session as one run (the first 10,000 events of all threads): AG-UI clones its state per event, so its
  // time grows with the run; shown for contrast, no target.
  const long = [...byThread.values()].flat().slice(0, Math.round(10_000 * SCALE));
  const longChunk = { canonical: long, agui: [...agUiConverter("bench")(long), { type: "RUN_FINISHED", threadId: "bench", runId: "bench" }] };
  const rl = await sideBySide([[longChunk]], ours, await aguiPeer(peersDir));
  report(
    { peer: "agui", package: PEERS.agui, input: "render accumulation, one long run", events: long.length, agentnormMs: Math.round(rl.oursMs), peerMs: Math.round(rl.theirsMs), ratio: Number(rl.ratio.toFixed(4)), contrast: true },
    `peer render accumulation, one long run: ${long.length.toLocaleString("en")} events, agentnorm ${rl.oursMs.toFixed(1)} ms, ${PEERS.agui} ${rl.theirsMs.toFixed(0)} ms: ratio ${rl.ratio.toFixed(4)} (contrast, no target)`,
  );
}

// ───────────────────────────── floors per surface ─────────────────────────────
// floor = JSON.parse of every line + JSON.stringify of the same output events (built beforehand, untimed);
// ratio = floor ÷ agentnorm (pushLine + serializeEvent). 1 would mean the mapping costs nothing.

/**
 * Per chunk: the normalizer (timed), and the floor on the same lines with the events a second normalizer made for
 * them (made untimed, then timed parse + print), alternating which goes first. Best of ROUNDS per side, after a
 * warm-up round.
 */
async function floorRun(parts: string[][], surface: string, floorOf: (p: string[], outs: CanonicalEvent[][]) => number, onWarnings: (n: number) => void): Promise<{ oursMs: number; floorMs: number }> {
  let bestOurs = Infinity;
  let bestFloor = Infinity;
  for (let r = -1; r < ROUNDS; r++) {
    const ours = normalizerSide(surface).make() as (c: string[]) => number;
    const along = createNormalizer({ surface });
    let ta = 0;
    let tb = 0;
    let warnings = 0;
    for (let i = 0; i < parts.length; i++) {
      const outs = parts[i].map((l) => along.pushLine(l));
      for (const o of outs) for (const e of o) if (e.type === "runtime.warning") warnings++;
      const runOurs = () => { const t0 = performance.now(); ours(parts[i]); ta += performance.now() - t0; };
      const runFloor = () => { const t0 = performance.now(); floorOf(parts[i], outs); tb += performance.now() - t0; };
      if ((i + r) % 2 === 0) { runOurs(); runFloor(); } else { runFloor(); runOurs(); }
    }
    onWarnings(warnings);
    if (r < 0) continue; // warm-up
    bestOurs = Math.min(bestOurs, ta);
    bestFloor = Math.min(bestFloor, tb);
  }
  return { oursMs: bestOurs, floorMs: bestFloor };
}

if (want("peers") || want("floors")) {
  const FLOOR_LINES = Math.round(100_000 * SCALE);
  const ratios: number[] = [];
  for (const surface of SURFACE_NAMES) {
    if (surfaces && !surfaces.includes(surface)) continue;
    const c = loadCorpus(root, surface);
    if (!c) { log(`floor ${surface}: no recording (bundled or in ../shared/recordings/dev) — skipped`); continue; }
    const lines = expand(c, FLOOR_LINES);
    const parts = chunks(lines, CHUNK);
    // The floor's events come from a second normalizer running along, chunk by chunk, untimed: only the chunk's
    // events are alive at a time (held all at once, they would make every collection of the timed side dearer).
    let warnings = 0;
    const floorOf = (p: string[], outs: CanonicalEvent[][]): number => {
      let bytes = 0;
      for (let i = 0; i < p.length; i++) {
        JSON.parse(p[i]);
        const out = outs[i];
        for (let j = 0; j < out.length; j++) bytes += JSON.stringify(out[j]).length;
      }
      return bytes;
    };
    const r = await floorRun(parts, surface, floorOf, (w) => { warnings = w; });
    const ratio = r.floorMs / r.oursMs;
    ratios.push(ratio);
    report(
      { floor: surface, origin: c.origin, lines: lines.length, warnings, agentnormMs: Math.round(r.oursMs), floorMs: Math.round(r.floorMs), ratio: Number(ratio.toFixed(3)), target: 0.5, pass: ratio >= 0.5 },
      `floor ${surface} (${c.origin}): ${lines.length.toLocaleString("en")} lines, agentnorm ${r.oursMs.toFixed(0)} ms, parse + print ${r.floorMs.toFixed(0)} ms: ratio ${ratio.toFixed(2)} (target ≥ 0.5: ${ratio >= 0.5 ? "pass" : "FAIL"})${warnings ? `; ${warnings} runtime.warning events` : ""}`,
    );
  }
  if (ratios.length) {
    const s = [...ratios].sort((a, b) => a - b);
    const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    report({ floors: ratios.length, median: Number(median.toFixed(3)), min: Number(s[0].toFixed(3)), target: 0.6, pass: median >= 0.6 && s[0] >= 0.5 }, `floors: median ${median.toFixed(2)} over ${ratios.length} surfaces, lowest ${s[0].toFixed(2)} (targets: median ≥ 0.6, every surface ≥ 0.5: ${median >= 0.6 && s[0] >= 0.5 ? "pass" : "FAIL"})`);
  }
}

// ───────────────────────────── the CLI path against its floor ─────────────────────────────
// NDJSON text in → NDJSON text out as `agentnorm normalize` does it (pushLine per line, shareRawPayloads,
// serializeEvent + "\n" per event, in-process: no pipes, no process start), against JSON.parse + JSON.stringify of
// the same lines (each line parsed and printed again, "\n" after each). Ratio = agentnorm ÷ floor; target ≤ 2.

/** Each line of an NDJSON text, in order (what the CLI's line reader hands normalize). */
function eachLine(text: string, f: (line: string) => void): void {
  for (let start = 0; start < text.length;) {
    let nl = text.indexOf("\n", start);
    if (nl < 0) nl = text.length;
    f(text.slice(start, nl));
    start = nl + 1;
  }
}

if (want("peers") || want("floors") || want("cli")) {
  const CLI_LINES = Math.round(100_000 * SCALE);
  const ratios: number[] = [];
  for (const surface of SURFACE_NAMES) {
    if (surfaces && !surfaces.includes(surface)) continue;
    const c = loadCorpus(root, surface);
    if (!c) { log(`cli ${surface}: no recording (bundled or in ../shared/recordings/dev) — skipped`); continue; }
    const texts = chunks(expand(c, CLI_LINES), CHUNK).map((p) => [p.join("\n") + "\n"]);
    const cli: Side<string> = {
      make() {
        const n = createNormalizer({ surface });
        let lineNumber = 0;
        return (chunk) => {
          let out = "";
          eachLine(chunk[0], (line) => {
            const events = n.pushLine(line, { lineNumber: ++lineNumber });
            for (const e of shareRawPayloads(events)) out += serializeEvent(e) + "\n";
          });
          return out.length;
        };
      },
    };
    const floor: Side<string> = {
      make() {
        return (chunk) => {
          let out = "";
          eachLine(chunk[0], (line) => { out += JSON.stringify(JSON.parse(line)) + "\n"; });
          return out.length;
        };
      },
    };
    const r = await sideBySide(texts, cli, floor);
    ratios.push(r.ratio);
    const pass = r.ratio <= 2;
    report(
      { cli: surface, origin: c.origin, lines: Math.min(CLI_LINES, texts.length * CHUNK), agentnormMs: Math.round(r.oursMs), floorMs: Math.round(r.theirsMs), ratio: Number(r.ratio.toFixed(3)), target: 2, pass },
      `cli ${surface} (${c.origin}): NDJSON → NDJSON ${r.oursMs.toFixed(0)} ms, JSON.parse + JSON.stringify of the same lines ${r.theirsMs.toFixed(0)} ms: ${r.ratio.toFixed(2)}× the floor (target ≤ 2: ${pass ? "pass" : "FAIL"})`,
    );
  }
  if (ratios.length) {
    const s = [...ratios].sort((a, b) => a - b);
    log(`cli: ${s[s.length - 1].toFixed(2)}× the floor at most over ${ratios.length} surfaces, median ${s[Math.floor(s.length / 2)].toFixed(2)}×`);
  }
}

const failed = results.filter((r) => r.pass === false).length;
if (failed) process.exitCode = 1;
// a full run (no --only) is the result the README's peer figures are checked against (test/figures.test.ts)
if (!only) {
  const out = join(root, "bench/results/peers.json");
  writeFileSync(out, JSON.stringify({ node: process.version, rows: results.map(({ ratios: _r, ...row }) => row) }, null, 2) + "\n");
  log(`→ bench/results/peers.json`);
}
