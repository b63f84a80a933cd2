/**
 * The runtime: state around the generated tables, and its public API (push, pushLine, end, stats). Its parts:
 * dispatch.ts classifies each provider message (JSON-RPC structure, not provider methods) and finds its rows;
 * scope.ts runs a row (the RowContext) and keeps entities to the lifecycle grammar (lifecycle.ts, from
 * generated/grammar.gen.ts); envelope.ts builds the canonical envelope; entities.ts and vars.ts hold the state.
 * Memory is bounded by what is open, not by history. Uses no Node APIs, so it runs in a browser or webview too.
 */
import { MAX_NESTING, textNestsDeeper, valueNestsDeeper } from "./nesting.js";
import type { RuntimeSessionId } from "../../generated/canonical.gen.js";
import type { SurfaceName } from "../../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";
import type { Role, SurfaceTable } from "./table-types.js";
import { randomIds, type IdFactory } from "./ids.js";
import { unwrap } from "../capture/unwrap.js";
import { compileTable, PendingCalls, type Compiled } from "./compiled.js";
import { dispatch } from "./dispatch.js";
import type { Entity } from "./entities.js";
import { Envelope, SOURCE_TEXT } from "./envelope.js";
import { ENVELOPE_FIELDS } from "../../generated/grammar.gen.js";
import { article, REPORTED_OPEN } from "./lifecycle.js";
import { emitRuntime } from "./scope.js";
import type { CanonicalEvent, Counters, Direction, NormalizerState, NormalizerStats } from "./state.js";
import { Sessions, type Partition } from "./sessions.js";
import { selectPinned } from "../model/versions.js";
import { InvalidOptionError, UnknownSurfaceError } from "../errors.js";

export type { CanonicalEvent, Direction, NormalizerStats } from "./state.js";
export { IMPLICIT_START, LATE } from "./scope.js";

export interface NormalizerOptions {
  /** Surface name (see SURFACE_NAMES; another string throws UnknownSurfaceError) or a compiled table (agentnorm/tables). */
  surface: SurfaceName | (string & {}) | SurfaceTable;
  /** Time source for createdAt: epoch ms, a Date or an ISO string. Default: Date.now. */
  clock?: () => number | Date | string;
  /** Id factory: returns the part after the kind prefix. Default: random UUIDs. */
  ids?: IdFactory;
  /** Keep the provider message in each event's raw.payload (default true). */
  includeRaw?: boolean;
  /** Validate every emitted event against the canonical schema; failures add a runtime.error (default false). */
  validate?: boolean;
  /**
   * The upstream version of the stream, for surfaces whose table covers several (claude-sdk: "0.2.62" or the version
   * Claude Code reports, "2.1.62"): rows apply by the pinned version it selects, whatever the stream says. Default:
   * what the stream says (claude-sdk: `claude_code_version` of system/init), else the table's newest pinned version.
   */
  upstreamVersion?: string;
  /**
   * The first event's sequence is this + 1 (default 0): a stream that continues canonical events the host already
   * holds — a stored session's history (agentnorm/sessions' openSession), then the live session resuming it
   * (agentnorm/live's connect({ resume, sequenceAfter })) — so the accumulator sees one growing sequence.
   */
  sequenceAfter?: number;
}

export interface PushOptions {
  /** "in" = from the agent (server → client), "out" = from the client. Inferred when absent. */
  direction?: Direction;
  /** The capture wrapper the message came in ({dir, channel, …}), when the caller removed one (pushLine does). */
  capture?: unknown;
}

export interface Normalizer {
  readonly sessionId: RuntimeSessionId;
  readonly surface: SurfaceTable;
  /** Map one provider message. Never throws on provider data. */
  push(message: unknown, options?: PushOptions): CanonicalEvent[];
  /** Parse one NDJSON line (optionally a {direction|dir, message|frame} wrapper) and push it. */
  pushLine(line: string, options?: PushOptions & { lineNumber?: number }): CanonicalEvent[];
  /** End of stream: reports items, requests and turns that are still open. */
  end(): CanonicalEvent[];
  stats(): NormalizerStats;
  /** The pinned upstream version the surface's rows apply by now (see NormalizerOptions.upstreamVersion). */
  upstreamVersion(): string;
  /**
   * An event on the host's behalf, in this session's sequence (the live layer, agentnorm/live: a turn the agent
   * never ended after an interrupt, a request settled as cancelled on close, the agent's exit, a warning). The
   * turn / request / thread named by canonical id must be open (else only the other ids are used); an ending event
   * ends it, so what the provider says about it later is reported as late, not emitted twice.
   */
  hostEvent(e: HostEvent): CanonicalEvent[];
}

/** What Normalizer.hostEvent emits. */
export interface HostEvent {
  type: "runtime.warning" | "runtime.error" | "turn.completed" | "request.resolved" | "session.exited" | "session.state.changed";
  payload: Record<string, unknown>;
  threadId?: string;
  turnId?: string;
  requestId?: string;
  /** raw.rule (default agentnorm#live). */
  rule?: string;
}

export { MAX_NESTING };
/** stats().ignored key of a recorder's own line in a capture (capture/unwrap.ts `record`). */
const CAPTURE_RECORD = "agentnorm#capture-record: a recorder's own line in a capture (a channel naming no direction, no message), not a protocol message";
/** Nodes the normalizer's depth check looks at before it lets a huge but so-far-shallow message through to the mapping. */
const NESTING_BUDGET = 1_000_000;

/**
 * A normalizer over the tables given (`surfaces`: the tables by name that `options.surface` and dispatch steps may
 * name). The package root passes every surface; agentnorm/surfaces/<name> passes one surface's tables.
 */
export function createNormalizerWith(options: NormalizerOptions, surfaces: Readonly<Record<string, SurfaceTable>>): Normalizer {
  const table = typeof options.surface === "string" ? (Object.hasOwn(surfaces, options.surface) ? surfaces[options.surface] : undefined) : options.surface;
  if (!table) throw new UnknownSurfaceError(String(options.surface), Object.keys(surfaces));
  if (options.sequenceAfter !== undefined && !(Number.isSafeInteger(options.sequenceAfter) && options.sequenceAfter >= 0)) {
    throw new InvalidOptionError("sequenceAfter", `sequenceAfter must be an integer ≥ 0, got ${JSON.stringify(options.sequenceAfter)}`);
  }
  const envelope = new Envelope({ clock: options.clock ?? Date.now, ids: options.ids ?? randomIds(), checkIds: options.ids !== undefined, includeRaw: options.includeRaw !== false, sequenceAfter: options.sequenceAfter });
  const sessionId = envelope.sessionId;
  const compiledTables = new Map<SurfaceTable, Compiled>();
  const compiled = (t: SurfaceTable): Compiled => {
    let c = compiledTables.get(t);
    if (!c) compiledTables.set(t, (c = compileTable(t)));
    return c;
  };
  const stats: Counters = { messages: 0, events: 0, ignored: {}, silent: {}, unknown: 0, invalid: 0, rules: {}, outcomes: { mapped: 0, ignored: 0, silent: 0, held: 0, unknown: 0, malformed: 0, blank: 0 } };
  const sessions = new Sessions<Compiled>(() => envelope.mint("RuntimeSessionId") as RuntimeSessionId, sessionId);
  const first = sessions.current;
  const rt: NormalizerState = {
    entities: first.entities,
    vars: first.vars,
    sessions,
    activate(p) {
      rt.entities = p.entities;
      rt.vars = p.vars;
      rt.statedVersions = p.statedVersions;
      envelope.sessionId = p.sessionId;
    },
    pending: new PendingCalls(),
    envelope,
    stats,
    main: compiled(table),
    recordDeltas: table.snapshots !== false,
    table(surface) {
      const t = Object.hasOwn(surfaces, surface) ? surfaces[surface] : undefined;
      if (!t) throw new UnknownSurfaceError(surface, Object.keys(surfaces), `dispatch: unknown surface "${surface}"`);
      return compiled(t);
    },
    dispatch: (m, o) => dispatch(rt, m, o),
    statedVersions: first.statedVersions,
    versionOf(t) {
      const versions = t.upstream.versions;
      if (!versions) return t.upstream.version;
      const stated = options.upstreamVersion ?? rt.statedVersions.get(t.upstream.package);
      return (stated !== undefined ? selectPinned({ current: t.upstream.version, pinned: versions }, stated) : undefined) ?? t.upstream.version;
    },
  };
  if (options.upstreamVersion !== undefined && table.upstream.versions && selectPinned({ current: table.upstream.version, pinned: table.upstream.versions }, options.upstreamVersion) === undefined) {
    throw new Error(`upstreamVersion "${options.upstreamVersion}" is not a version of ${table.upstream.package} (pinned: ${table.upstream.versions.map((v) => v.version).join(", ")})`);
  }
  const { pending } = rt;
  /** pushLine already checked the nesting of the message it is pushing. */
  let depthChecked = false;

  function validateAll(out: CanonicalEvent[]): void {
    if (!options.validate) return;
    const n = out.length;
    for (let i = 0; i < n; i++) {
      if (!validateCanonicalEvent(out[i])) {
        stats.invalid++;
        emitRuntime(rt, { out, type: "runtime.error", payload: { message: `event ${out[i].sequence} (${out[i].type}) does not match the canonical schema`, class: "validation_error", detail: { errors: (validateCanonicalEvent as any).errors } }, raw: out[i] });
      }
    }
  }

  const normalizer: Normalizer = {
    sessionId,
    surface: table,
    push(message, opts) {
      const out: CanonicalEvent[] = [];
      stats.messages++;
      if (!depthChecked && message !== null && typeof message === "object" && valueNestsDeeper(message, MAX_NESTING, NESTING_BUDGET)) {
        stats.invalid++;
        stats.outcomes.malformed++;
        emitRuntime(rt, { out, type: "runtime.error", payload: { message: `message nests deeper than ${MAX_NESTING} levels: not mapped`, class: "validation_error", detail: { maxNesting: MAX_NESTING } }, raw: null });
        stats.events += out.length;
        return out;
      }
      const invalid = stats.invalid, unknown = stats.unknown;
      rt.outcome = undefined;
      try {
        dispatch(rt, message, { direction: opts?.direction, out, depth: 0, capture: opts?.capture, top: true });
      } catch (err) {
        stats.invalid++;
        emitRuntime(rt, { out, type: "runtime.error", payload: { message: `internal error: ${(err as Error)?.message ?? String(err)}`, class: "unknown" }, raw: message });
      }
      if (envelope.clockProblem !== undefined) {
        const t = envelope.clockProblem;
        envelope.clockProblem = undefined;
        emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `clock: returned ${JSON.stringify(t)}, not an RFC 3339 date-time; createdAt is the system time`, detail: { clock: t } }, raw: null, rule: "agentnorm#clock" });
      }
      validateAll(out);
      stats.events += out.length;
      // what became of the message, once (NormalizerStats.outcomes)
      const o = stats.outcomes;
      if (stats.invalid > invalid) o.malformed++;
      else if (stats.unknown > unknown) o.unknown++;
      else if (out.length) o.mapped++;
      else if (rt.outcome) o[rt.outcome]++;
      else o.silent++;
      return out;
    },
    pushLine(line, opts) {
      const text = line.trim();
      if (text === "") { stats.outcomes.blank++; return []; }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        const out: CanonicalEvent[] = [];
        stats.messages++;
        const where = opts?.lineNumber !== undefined ? `line ${opts.lineNumber}: ` : "";
        if (table.nonJsonLines === "warning") {
          stats.unknown++;
          stats.outcomes.unknown++;
          emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `${where}skipped a line that is not JSON`, detail: { line: opts?.lineNumber, nonJson: true } }, raw: text, rule: "agentnorm#non-json" });
        } else {
          stats.invalid++;
          stats.outcomes.malformed++;
          emitRuntime(rt, { out, type: "runtime.error", payload: { message: `${where}not valid JSON (${(err as Error).message})`, class: "validation_error", detail: { line: opts?.lineNumber } }, raw: text });
        }
        stats.events += out.length;
        return out;
      }
      if (text.length > 2 * MAX_NESTING && textNestsDeeper(text, MAX_NESTING)) {
        const out: CanonicalEvent[] = [];
        stats.messages++;
        stats.invalid++;
        stats.outcomes.malformed++;
        const where = opts?.lineNumber !== undefined ? `line ${opts.lineNumber}: ` : "";
        emitRuntime(rt, { out, type: "runtime.error", payload: { message: `${where}JSON nests deeper than ${MAX_NESTING} levels: not mapped`, class: "validation_error", detail: { line: opts?.lineNumber, maxNesting: MAX_NESTING, length: text.length, start: text.slice(0, 200) } }, raw: null });
        stats.events += out.length;
        return out;
      }
      const w = unwrap(parsed);
      if (w.record !== undefined) {
        // a recorder's own line in a capture (a probe's scenario result): no protocol message, counted as ignored (one
        // key whatever the channel: a stream's channel names do not grow the stats)
        stats.messages++;
        stats.outcomes.ignored++;
        stats.ignored[CAPTURE_RECORD] = (stats.ignored[CAPTURE_RECORD] ?? 0) + 1;
        return [];
      }
      if (w.message === parsed && parsed !== null && typeof parsed === "object") {
        envelope.lineMessage = parsed;
        envelope.lineText = text;
      }
      // the text scan above (a line no longer than 2 × MAX_NESTING can't nest deeper); a message the wrapper held as
      // JSON text was a string there, unscanned: push() walks it
      depthChecked = w.fromText !== true;
      try {
        return normalizer.push(w.message, { direction: opts?.direction ?? w.direction, capture: w.message === parsed ? undefined : parsed });
      } finally {
        envelope.lineMessage = envelope.lineText = undefined;
        depthChecked = false;
      }
    },
    end() {
      const out: CanonicalEvent[] = [];
      // each session in the order the stream opened them: the table's end message, held messages, what is open
      for (const p of sessions.all) {
        rt.activate(p);
        if (table.atEnd) {
          // the table's own end-of-stream message (atEnd:), mapped before what is still open is reported
          const m = { [table.tags[table.atEnd.kind]]: table.atEnd.method };
          try {
            dispatch(rt, m, { direction: "in", out, depth: 0 });
          } catch (err) {
            stats.invalid++;
            emitRuntime(rt, { out, type: "runtime.error", payload: { message: `internal error: ${(err as Error)?.message ?? String(err)}`, class: "unknown" }, raw: m });
          }
        }
        for (const [k, list] of rt.vars.drain()) {
          for (const h of list) emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `stream ended with a message still waiting for ${k}`, detail: { key: k } }, raw: h.raw, rule: "agentnorm#end" });
        }
        for (const role of REPORTED_OPEN) {
          for (const e of p.entities[role].live.values()) {
            if (!e.open) continue;
            const ids: Partial<Record<Role, Entity>> = { [role]: e };
            emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `stream ended with ${article(role)} still open`, detail: { role, providerId: e.providerId, state: e.state } }, raw: null, ids, rule: "agentnorm#end" });
          }
        }
      }
      for (const [space, m] of [["server", pending.server], ["client", pending.client]] as const) {
        for (const [id, p] of m) {
          const s = p.session && !p.session.gone ? p.session : sessions.current;
          rt.activate(s);
          if (space === "server" && s.entities.request.live.get(`server:${id}`)?.open) continue;
          emitRuntime(rt, { out, type: "runtime.warning", payload: { message: `stream ended before the ${space === "server" ? "client" : "agent"} answered ${p.method} (id ${id})`, detail: { method: p.method, id } }, raw: p.message, method: p.method, rule: "agentnorm#end" });
        }
        m.clear();
      }
      for (const p of sessions.all) for (const r of REPORTED_OPEN) p.entities[r].clear();
      validateAll(out);
      stats.events += out.length;
      return out;
    },
    stats: () => {
      const held = { sessions: sessions.all.size, threads: 0, turns: 0, items: 0, requests: 0, pendingCalls: pending.size, remembered: 0, variables: 0, variablesDropped: 0 };
      for (const { entities: t, vars } of sessions.all) {
        held.threads += t.thread.live.size;
        held.turns += t.turn.live.size;
        held.items += t.item.live.size;
        held.requests += t.request.live.size;
        held.remembered += (["thread", "turn", "item", "request"] as Role[]).reduce((a, r) => a + t[r].recent.size + t[r].idle.size, 0);
        held.variables += vars.size;
        held.variablesDropped += vars.dropped;
      }
      return { ...structuredCloneStats(stats), held };
    },
    upstreamVersion: () => rt.versionOf(table),
    hostEvent(h) {
      const out: CanonicalEvent[] = [];
      const ids: Partial<Record<Role, Entity>> = {};
      // the session that holds the entities named (the current one when it names none it knows)
      const named = ([["thread", h.threadId], ["turn", h.turnId], ["request", h.requestId]] as const).filter(([, id]) => id !== undefined);
      const holds = (p: Partition<Compiled>) => named.some(([role, id]) => [...p.entities[role].live.values(), p.entities[role].lastOpened].some((e) => e !== undefined && e.id === id && e.open));
      if (sessions.all.size > 1 && named.length && !holds(sessions.current)) {
        const p = [...sessions.all].find(holds);
        if (p) sessions.current = p;
      }
      rt.activate(sessions.current);
      const entities = rt.entities;
      const find = (role: Role, id: string | undefined) => {
        if (id === undefined) return;
        for (const e of entities[role].live.values()) if (e.id === id && e.open) { ids[role] = e; return; }
        // a minted entity (no provider id: e.g. a turn the table mints) is not keyed; it is the last one opened
        const last = entities[role].lastOpened;
        if (last && last.id === id && last.open) ids[role] = last;
      };
      find("thread", h.threadId);
      find("turn", h.turnId);
      find("request", h.requestId);
      if (h.turnId !== undefined && !ids.turn && (h.type === "turn.completed")) return out;
      if (h.requestId !== undefined && !ids.request && h.type === "request.resolved") return out;
      // a turn the host ends takes its open items with it (failed: they were cut off), as a table's closeOpen would
      const closeOpen = h.type === "turn.completed" && ids.turn ? { status: "failed" as const, detail: `the turn ended (${String(h.payload.state ?? "")}) before this item did` } : undefined;
      emitRuntime(rt, { out, type: h.type, payload: h.payload, raw: null, ids, rule: h.rule ?? "agentnorm#live", closeOpen });
      validateAll(out);
      stats.events += out.length;
      return out;
    },
  };
  return normalizer;
}

/**
 * One event as a JSON line (no newline). Same result as JSON.stringify(event), except that raw.payload is the
 * provider's own text when the message came through pushLine (not re-serialized: faster, and byte-faithful).
 */
export function serializeEvent(e: CanonicalEvent): string {
  return writeEvent(e) ?? serializeAny(e);
}

/** JSON.stringify would escape a string holding one of these (quote, backslash, controls, surrogates). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Own keys of an event in the envelope's one shape (envelope.ts builds every event with newEvent). */
const SHAPE_KEYS = 10 + ENVELOPE_FIELDS.length;

/**
 * The fast path: an event in the envelope's one shape (every field present, in newEvent's order), written field by
 * field — the same text JSON.stringify gives, without its generic walk of the envelope. Undefined when the event is
 * not in that shape or a value is not what the envelope holds (then the generic path writes it).
 */
function writeEvent(e: any): string | undefined {
  let n = 0;
  for (const _ in e) n++;
  if (n !== SHAPE_KEYS) return undefined;
  const { eventId, schemaVersion, sequence, type, provider, sessionId, createdAt } = e;
  if (typeof eventId !== "string" || typeof type !== "string" || typeof provider !== "string" || typeof sessionId !== "string" || typeof createdAt !== "string") return undefined;
  if (!Number.isFinite(schemaVersion) || !Number.isFinite(sequence)) return undefined;
  let check = eventId + type + provider + sessionId + createdAt;
  let s = `{"eventId":"${eventId}","schemaVersion":${schemaVersion},"sequence":${sequence},"type":"${type}","provider":"${provider}","sessionId":"${sessionId}","createdAt":"${createdAt}"`;
  for (let i = 0; i < ENVELOPE_FIELDS.length; i++) {
    const f = ENVELOPE_FIELDS[i];
    const v = e[f];
    if (v === undefined) continue;
    if (typeof v !== "string") return undefined;
    check += v;
    s += `,"${f}":"${v}"`;
  }
  if (NEEDS_ESCAPE.test(check)) return undefined;
  const refs = e.providerRefs;
  if (refs !== undefined) {
    if (refs === null || typeof refs !== "object" || Array.isArray(refs)) return undefined;
    // provider ids by name: written as they are when no key or id needs escaping (one check for all)
    let r: string | undefined = "";
    let rc = "";
    for (const k in refs) {
      const v = refs[k];
      if (typeof v !== "string") { r = undefined; break; }
      r += `${rc === "" ? "" : ","}"${k}":"${v}"`;
      rc += k + v;
    }
    s += `,"providerRefs":${r !== undefined && !NEEDS_ESCAPE.test(rc) ? `{${r}}` : JSON.stringify(refs)}`;
  }
  if (e.payload !== undefined) {
    const p = JSON.stringify(e.payload);
    if (p === undefined) return undefined;
    s += `,"payload":${p}`;
  }
  const raw = e.raw;
  if (raw === undefined) return s + "}";
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  s += `,"raw":{`;
  let first = true;
  // the keys and texts written as they are, checked once at the end (else each is written by JSON.stringify)
  let plain = "";
  let rest = "";
  for (const k in raw) {
    const v = raw[k];
    let text: string | undefined;
    if (k === "payload") text = raw[SOURCE_TEXT] ?? JSON.stringify(v);
    else if (typeof v === "string") { text = `"${v}"`; plain += v; }
    else text = JSON.stringify(v);
    if (text === undefined) continue; // JSON.stringify leaves such a key out too
    rest += `${first ? "" : ","}"${k}":${text}`;
    plain += k;
    first = false;
  }
  return s + (NEEDS_ESCAPE.test(plain) ? escapedRaw(raw) : rest) + "}}";
}

/** raw's members when a key or text needs escaping: each written as JSON.stringify writes it, in order. */
function escapedRaw(raw: any): string {
  let s = "";
  for (const k in raw) {
    const v = raw[k];
    const text: string | undefined = k === "payload" ? raw[SOURCE_TEXT] ?? JSON.stringify(v) : JSON.stringify(v);
    if (text === undefined) continue;
    s += `${s === "" ? "" : ","}${JSON.stringify(k)}:${text}`;
  }
  return s;
}

/** Any event: JSON.stringify, with raw.payload's source text spliced in when it has one. */
function serializeAny(e: CanonicalEvent): string {
  const raw = e.raw as { payload?: unknown; [SOURCE_TEXT]?: string } | undefined;
  const text = raw?.[SOURCE_TEXT];
  if (text === undefined) return JSON.stringify(e);
  const p = raw!.payload;
  raw!.payload = undefined;
  let s: string;
  try {
    s = JSON.stringify(e);
  } finally {
    raw!.payload = p;
  }
  // raw is the envelope's last field and payload raw's last: `…,"rule":"x"}}` → `…,"rule":"x","payload":TEXT}}`.
  return s.endsWith("}}") ? `${s.slice(0, -2)},"payload":${text}}}` : JSON.stringify(e);
}

function structuredCloneStats(s: Counters): Counters {
  return { ...s, ignored: { ...s.ignored }, silent: { ...s.silent }, rules: { ...s.rules }, outcomes: { ...s.outcomes } };
}
