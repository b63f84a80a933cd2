/**
 * Dispatch: classify a provider message by its structure (JSON-RPC kinds from method/id/result, or a tagged
 * protocol's tag fields after the table's input wrappers), find its rows in the surface table and run them.
 * No provider knowledge: methods and types are keys of the generated tables.
 */
import type { RuntimeEventSource } from "../../generated/canonical.gen.js";
import type { SessionSlots } from "../../generated/vars.gen.js";
import type { Kind, Row } from "./table-types.js";
import type { CanonicalEvent, Direction, DispatchOptions, NormalizerState } from "./state.js";
import { ANSWERED_TWICE, emitRuntime, Scope, type MessageAt } from "./scope.js";
import { ignoreKey, JSONRPC_KINDS, type Compiled, type Pending } from "./compiled.js";
import type { Partition } from "./sessions.js";
import { MAX_SESSIONS } from "./sessions.js";

/** The JSON-RPC kinds the client sends (a `response` answers the agent's request). */
const CLIENT_KINDS: ReadonlySet<Kind> = new Set(["clientRequest", "clientNotification", "response"]);

type Classified =
  | { kind: Kind; method: string; request?: any; message?: any; meta?: any; pending?: Pending; answers?: Pending }
  | { error: string; warn?: boolean; rule?: string }
  | { ignored: string };

/** JSON-RPC: the kind from the message's structure; the direction (or what the table knows) decides sides. */
function classify(rt: NormalizerState, known: Record<Kind, Set<string>>, m: any, direction: Direction | undefined): Classified {
  const hasMethod = typeof m.method === "string";
  const id = m.id;
  const hasId = typeof id === "string" || typeof id === "number";
  const knows = (k: Kind, method: string) => known[k]?.has(method) ?? false;
  if (hasMethod && hasId) {
    const kind: Kind = direction === "in" ? "request" : direction === "out" ? "clientRequest" : knows("request", m.method) || !knows("clientRequest", m.method) ? "request" : "clientRequest";
    const pending = rt.pending.add(kind === "request" ? "server" : "client", String(id), m.method, m);
    return { kind, method: m.method, pending };
  }
  if (hasMethod) {
    const kind: Kind = direction === "in" ? "notification" : direction === "out" ? "clientNotification" : knows("notification", m.method) || !knows("clientNotification", m.method) ? "notification" : "clientNotification";
    return { kind, method: m.method };
  }
  if (hasId && ("result" in m || "error" in m)) {
    const key = String(id);
    const s = rt.pending.server.get(key);
    const c = rt.pending.client.get(key);
    const useServer = direction === "out" ? !!s : direction === "in" ? false : !!s && (!c || s.order > c.order);
    const p = useServer ? s : direction === "out" ? undefined : c;
    if (!p) {
      // A call answered before: a second answer (said as such, naming the call), not an unknown id.
      const as = rt.pending.answered.server.get(key);
      const ac = rt.pending.answered.client.get(key);
      const a = direction === "out" ? as : direction === "in" ? ac : as && (!ac || as.order > ac.order) ? as : ac;
      if (a) return { error: `second answer to request id ${JSON.stringify(id)} (${a.method}): that request was already answered; this answer is not mapped`, warn: true, rule: ANSWERED_TWICE };
      return { error: `response to unknown request id ${JSON.stringify(id)}`, warn: true, rule: "agentnorm#runtime" };
    }
    rt.pending.answer(useServer ? "server" : "client", key, p);
    return { kind: useServer ? "response" : "clientResponse", method: p.method, request: p.message, answers: p };
  }
  return { error: "not a JSON-RPC message (no method, and no id with result or error)" };
}

/** JSON-RPC kinds whose message is a call (a request: it gets an id), and the answers (a result). */
const REQUEST_KINDS: ReadonlySet<Kind> = new Set(["request", "clientRequest"]);
const RESPONSE_KINDS: ReadonlySet<Kind> = new Set(["response", "clientResponse"]);

/**
 * JSON-RPC, after the table's input wrappers: a line a wrapper matches is a recorded call without a JSON-RPC envelope
 * (a test harness's `{kind, payload}`), which the wrapper names the kind and method of; it becomes the JSON-RPC
 * message it records. It has no id: a request gets `recorded-<n>` (pending, as any call), a response answers no call
 * the stream holds (its method says what it answers). Any other line is classified as JSON-RPC.
 */
function classifyRpc(rt: NormalizerState, ct: Compiled, m: any, o: DispatchOptions): Classified {
  const input = ct.table.input;
  const w = input && o.skipInput !== true ? input(m, o.capture) : undefined;
  if (!w) return classify(rt, ct.known, m, o.direction);
  if ("ignore" in w) return { ignored: w.ignore };
  const kind = w.kind;
  if (kind === undefined || !JSONRPC_KINDS.includes(kind)) return { error: `${ct.table.surface}: input wrapper "${w.wrapper}" names no JSON-RPC kind (got ${JSON.stringify(kind) ?? "nothing"})` };
  if (typeof w.type !== "string") return { error: `${ct.table.surface}: input wrapper "${w.wrapper}": the record names no method (got ${JSON.stringify(w.type) ?? "nothing"})` };
  const method = w.type;
  if (REQUEST_KINDS.has(kind)) {
    const id = rt.pending.recordedId();
    const message = { jsonrpc: "2.0", id, method, params: w.message };
    return { kind, method, message, meta: w.meta, pending: rt.pending.add(kind === "request" ? "server" : "client", id, method, message) };
  }
  if (RESPONSE_KINDS.has(kind)) return { kind, method, message: { jsonrpc: "2.0", id: rt.pending.recordedId(), result: w.message }, meta: w.meta };
  return { kind, method, message: { jsonrpc: "2.0", method, params: w.message }, meta: w.meta };
}

/** Tagged protocols: unwrap the input line, then find the kind whose tag field names a known type. */
function classifyTagged(ct: Compiled, m: any, skipInput: boolean, capture: unknown): Classified {
  let message = m;
  let meta: any;
  const input = ct.table.input;
  if (input && !skipInput) {
    const w = input(m, capture);
    if (!w) return { error: `${ct.table.surface}: no input wrapper of the table matches this line`, warn: true };
    if ("ignore" in w) return { ignored: w.ignore };
    message = w.message;
    meta = w.meta;
    if (w.type !== undefined) {
      if (typeof w.type !== "string") return { error: `${ct.table.surface}: input wrapper "${w.wrapper}": the line names no type (got ${JSON.stringify(w.type) ?? "nothing"})` };
      // The wrapper names the message's type (messages with no tag field of their own).
      const kind = w.kind ?? ct.kindOf.get(w.type) ?? ct.kinds[0];
      if (message === null || typeof message !== "object" || Array.isArray(message)) return { error: `${ct.table.surface}: the message is not a JSON object` };
      return { kind, method: w.type, message, meta };
    }
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return { error: `${ct.table.surface}: the message is not a JSON object` };
  let first: unknown;
  for (const kind of ct.kinds) {
    const v = message[ct.table.tags[kind]];
    if (first === undefined) first = v;
    if (typeof v === "string" && ct.known[kind].has(v)) return { kind, method: v, message, meta };
  }
  const tag = ct.table.tags[ct.kinds[0]];
  if (typeof first !== "string") return { error: `${ct.table.surface}: the message has no "${tag}" naming its type` };
  return { kind: ct.kinds[0], method: first, message, meta };
}

const bump = (counts: Record<string, number>, key: string) => { counts[key] = (counts[key] ?? 0) + 1; };

/** Map one message through a table: its rows in order (the first that matches runs), else ignore entries, else a warning. */
export function dispatch(rt: NormalizerState, m: unknown, o: DispatchOptions): void {
  const { out, depth } = o;
  const ct = o.ct ?? rt.main;
  const raw = o.raw === undefined ? m : o.raw;
  const { stats } = rt;
  if (m === null || typeof m !== "object" || Array.isArray(m)) {
    stats.invalid++;
    emitRuntime(rt, { out, type: "runtime.error", payload: { message: `message is not a JSON object (got ${Array.isArray(m) ? "an array" : m === null ? "null" : typeof m})`, class: "validation_error" }, raw });
    return;
  }
  const c = ct.table.protocol === "tagged" ? classifyTagged(ct, m, o.skipInput === true, o.capture) : classifyRpc(rt, ct, m, o);
  if ("ignored" in c) { bump(stats.ignored, c.ignored); if (o.top) rt.outcome = "ignored"; return; }
  if ("error" in c) {
    if (c.warn) { stats.unknown++; emitRuntime(rt, { out, type: "runtime.warning", payload: { message: c.error }, raw, rule: c.rule ?? "agentnorm#unknown" }); }
    else { stats.invalid++; emitRuntime(rt, { out, type: "runtime.error", payload: { message: c.error, class: "validation_error" }, raw }); }
    return;
  }
  const { kind, method } = c;
  if (o.top && ct.table.session) {
    // The session the message belongs to (the table's `sessions:`): its state becomes the active one.
    // the client's messages follow the sessions the agent's open (CLIENT_KINDS; tagged: those pushed as "out")
    const fromClient = ct.table.protocol === "jsonrpc" ? CLIENT_KINDS.has(kind) : o.direction === "out";
    rt.activate(rt.sessions.route(ct.table.session(c.message ?? m, { meta: c.meta ?? o.meta, method }), c.answers?.session, fromClient));
    if (c.pending) c.pending.session = rt.sessions.current;
    if (rt.sessions.dropped.length) forgotten(rt, out, rt.sessions.dropped);
  }
  const own = ct.table.methodSources?.[kind];
  const source: RuntimeEventSource = (own && Object.hasOwn(own, method) ? own[method] : undefined) ?? ct.table.sources[kind] ?? "agentnorm.runtime";
  const at: MessageAt = {
    out, message: c.message ?? m, request: c.request, source, method, depth, ct, raw, direction: o.direction,
    meta: c.meta ?? o.meta, line: o.line === undefined ? raw : o.line, top: o.top,
  };
  // Tables pinning several upstream versions: rows and ignore entries with `versions` apply to those only.
  const run = new MessageRun(rt, ct, at, ct.table.upstream.versions ? rt.versionOf(ct.table) : undefined);
  // The message's own time (the table's `time`) dates its events, nested dispatches included; else the clock.
  const time = ct.table.time;
  if (time === undefined) { mapMessage(rt, ct, at, kind, method, run); return; }
  const env = rt.envelope;
  const outer = env.timeFrom(time, at.message, at);
  try {
    mapMessage(rt, ct, at, kind, method, run);
  } finally {
    env.timeDone(outer);
  }
}

/** One message's way through its table's rows and ignore entries (one object per message, no closures). */
class MessageRun {
  constructor(readonly rt: NormalizerState, readonly ct: Compiled, readonly at: MessageAt, readonly version: string | undefined) {}

  applies(versions: readonly string[] | undefined): boolean {
    return this.version === undefined || versions === undefined || versions.includes(this.version);
  }

  ignoredAt(id: string | undefined, message: unknown): string | undefined {
    if (id === undefined || !this.applies(this.ct.table.ignoreVersions?.[id])) return undefined;
    const when = this.ct.table.ignoreWhen?.[id];
    return !when || when(message, this) ? id : undefined;
  }

  /** What an ignore entry's `when` reads: the session variables. */
  get vars(): SessionSlots {
    return this.rt.vars.slots;
  }

  tryRows(rows: readonly Row[] | undefined): boolean {
    if (!rows) return false;
    const { rt, at } = this;
    const { out, depth } = at;
    const { stats } = rt;
    const startLength = out.length;
    // One scope for the message: a row that does not match returns at its guard, before it touches the scope
    // (the generator emits the guard first; guards only read), so the next row reuses it.
    let s: Scope | undefined;
    for (const row of rows) {
      if (!this.applies(row.versions)) continue;
      if (s) s.rule = row.rule;
      else s = new Scope(rt, at, row.rule);
      let matched: boolean;
      try {
        matched = row.run(at.message, s);
      } catch (err) {
        stats.invalid++;
        emitRuntime(rt, { out, type: "runtime.error", payload: { message: `${row.rule} failed on this message: ${(err as Error)?.message ?? String(err)}`, class: "validation_error" }, raw: at.raw, source: at.source, method: at.method });
        return true;
      }
      if (matched) {
        s.finish();
        if (depth === 0 && out.length === startLength) bump(stats.silent, row.rule);
        return true;
      }
    }
    return false;
  }
}

function mapMessage(rt: NormalizerState, ct: Compiled, at: MessageAt, kind: Kind, method: string, run: MessageRun): void {
  const { out, raw, source } = at;
  const { stats } = rt;
  const version = run.version;
  const byKind = ct.rowsOf.get(kind);
  const rows = byKind?.get(method);
  // compiled dispatch: the rows a generated switch chose (the others test the same field against other values)
  const pick = rows && ct.picksOf.get(kind)?.get(method);
  if (run.tryRows(pick ? pick(at.message) : rows)) return;
  const ign = run.ignoredAt(ct.ignoredOf.get(kind)?.get(method), at.message);
  if (ign) return ignored(rt, ct, at, ign, method);
  // patterns, longest prefix first: a pattern row's rows, or an ignore entry's id
  for (const [prefix, rowsOrIgnore] of ct.patternsOf.get(kind) ?? []) {
    if (!method.startsWith(prefix)) continue;
    if (typeof rowsOrIgnore !== "string") { if (run.tryRows(rowsOrIgnore)) return; continue; }
    const ignoredBy = run.ignoredAt(rowsOrIgnore, at.message);
    if (ignoredBy) return ignored(rt, ct, at, ignoredBy, method);
  }
  if (kind === "response" || kind === "clientResponse") {
    const requestKind = kind === "response" ? "request" : "clientRequest";
    const asked = run.ignoredAt(ct.ignoredOf.get(requestKind)?.get(method) ?? ignorePattern(ct, requestKind, method), at.request);
    if (asked) return ignored(rt, ct, at, asked, method);
  }
  stats.unknown++;
  const what = byKind?.has(method) || ct.ignoredOf.get(kind)?.has(method)
    ? `no row for ${kind} "${method}" matched this message${version !== undefined ? ` (at ${ct.table.upstream.package}@${version})` : ""}`
    : `unknown ${kind} ${ct.table.protocol === "tagged" ? "type" : "method"} "${method}"`;
  emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `${ct.table.surface}: ${what}`, detail: { kind, method } }, raw, source, method, rule: "agentnorm#unknown" });
}

/** A message an ignore entry ignores: counted under the entry and the method (the outcome of a pushed message). */
function ignored(rt: NormalizerState, ct: Compiled, at: MessageAt, id: string, method: string): void {
  bump(rt.stats.ignored, ignoreKey(ct, id, method));
  if (at.top) rt.outcome = "ignored";
}

/** The ignore entry whose pattern (the longest) matches the method, if one does. */
function ignorePattern(ct: Compiled, kind: Kind, method: string): string | undefined {
  for (const [prefix, x] of ct.patternsOf.get(kind) ?? []) if (typeof x === "string" && method.startsWith(prefix)) return x;
  return undefined;
}

/** Sessions the bound (MAX_SESSIONS) made the runtime forget: said, with what was still open in them. */
function forgotten(rt: NormalizerState, out: CanonicalEvent[], gone: Partition<Compiled>[]): void {
  for (const p of gone) {
    let open = 0;
    for (const r of ["thread", "turn", "item", "request"] as const) for (const e of p.entities[r].live.values()) if (e.open) open++;
    emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `more than ${MAX_SESSIONS} sessions in one stream: the least recently used one (${p.sessionId}, provider id ${p.keys[0] ?? "none"}) is forgotten${open ? ` with ${open} entities still open` : ""}; a later message of it starts a new session`, detail: { sessionId: p.sessionId, providerSessionIds: p.keys.slice(0, 8), open } }, raw: null, rule: "agentnorm#sessions" });
  }
  rt.sessions.dropped.length = 0;
}
