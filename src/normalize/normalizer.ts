/**
 * The runtime: state around the generated tables. Classifies each provider message (JSON-RPC structure, not
 * provider methods), finds its rows in the surface table, runs them with a RowContext, and builds the
 * canonical envelope (ids, sequence, providerRefs, raw). Holds provider → canonical id maps, open items,
 * open requests and pending JSON-RPC requests; memory is bounded by what is open, not by history.
 * Uses no Node APIs, so it runs in a browser or webview too.
 */
import type { IdKind, ProviderRuntimeEventV2, RuntimeEventSource, RuntimeSessionId } from "../../generated/canonical.gen.js";
import { ID_PREFIXES } from "../../generated/canonical.gen.js";
import { SURFACES, SURFACE_NAMES } from "../../generated/surfaces.gen.js";
import { validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";
import type { Kind, Op, Role, Row, RowContext, SurfaceTable } from "./table-types.js";
import { randomIds, type IdFactory } from "./ids.js";
import { unwrap } from "../capture/unwrap.js";

export type Direction = "in" | "out";
export type CanonicalEvent = ProviderRuntimeEventV2;

export interface NormalizerOptions {
  /** Surface name (see SURFACE_NAMES) or a compiled table. */
  surface: string | SurfaceTable;
  /** Time source for createdAt: epoch ms, a Date or an ISO string. Default: Date.now. */
  clock?: () => number | Date | string;
  /** Id factory: returns the part after the kind prefix. Default: random UUIDs. */
  ids?: IdFactory;
  /** Keep the provider message in each event's raw.payload (default true). */
  includeRaw?: boolean;
  /** Validate every emitted event against the canonical schema; failures add a runtime.error (default false). */
  validate?: boolean;
}

export interface PushOptions {
  /** "in" = from the agent (server → client), "out" = from the client. Inferred when absent. */
  direction?: Direction;
  /** The capture wrapper the message came in ({dir, channel, …}), when the caller removed one (pushLine does). */
  capture?: unknown;
}

export interface NormalizerStats {
  messages: number;
  events: number;
  /** Messages deliberately not mapped, per ignore entry. */
  ignored: Record<string, number>;
  /** Messages a row matched that emitted nothing (its guards found nothing new: e.g. a repeated completion), per rule. */
  silent: Record<string, number>;
  /** Messages no row or ignore entry knows (each produced a runtime.warning). */
  unknown: number;
  /** Malformed input (each produced a runtime.error validation_error). */
  invalid: number;
  /** Events per rule. */
  rules: Record<string, number>;
  /** What the runtime holds now: open entities per role, pending JSON-RPC calls, remembered ids (closed or only named; bounded). */
  held: { threads: number; turns: number; items: number; requests: number; pendingCalls: number; remembered: number };
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
}

interface Entity {
  id: string;
  providerId?: string;
  open: boolean;
  state: Record<string, unknown>;
  /** content.delta text delivered so far, per "<streamKind>:<index>". */
  delivered?: Map<string, string[]>;
  /** Items: the turn they were opened in (for closeOpen). */
  turn?: Entity;
  /** The key the entity is stored under (absent for minted entities). */
  key?: string;
  /** Items: an item.started was emitted for it. */
  started?: boolean;
  /** Items: item.completed was emitted; turns: their terminal event (turn.completed / turn.aborted). */
  done?: boolean;
  /** Requests: request.opened / request.resolved / user-input.requested / user-input.resolved emitted. */
  opened?: boolean;
  resolved?: boolean;
  asked?: boolean;
  answered?: boolean;
  /** Requests: the turn and item the first of request.opened / user-input.requested named (its answer names them too). */
  openedIn?: { turnId?: string; itemId?: string; providerTurnId?: string; providerItemId?: string };
}

const ROLE_KIND: Record<Role, IdKind> = {
  session: "RuntimeSessionId", thread: "ThreadId", turn: "TurnId", item: "RuntimeItemId",
  request: "RuntimeRequestId", task: "RuntimeTaskId", parent: "RuntimeItemId",
};
const ENVELOPE_FIELD: Partial<Record<Role, string>> = { thread: "threadId", turn: "turnId", item: "itemId", request: "requestId", parent: "parentId" };
const REF_FIELD: Partial<Record<Role, string>> = {
  session: "providerSessionId", thread: "providerThreadId", turn: "providerTurnId", item: "providerItemId",
  request: "providerRequestId", parent: "providerParentId",
};
const INDEX_FIELD: Record<string, "summaryIndex" | "contentIndex"> = { reasoning_summary_text: "summaryIndex", reasoning_text: "contentIndex" };
/** Deepest nesting of a provider message the runtime maps (deeper: a validation_error; its events could not be serialized). */
export const MAX_NESTING = 1000;

/** Does this JSON text nest deeper than `max`? (A scan that skips strings; no parsing.) */
function textNestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) { if (++depth > max) return true; }
    else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Does this value nest deeper than `max`? (Iterative: no recursion, so no stack to blow.) */
function valueNestsDeeper(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  let seen = 0;
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d >= max) return true;
    if (++seen > 1_000_000) return false; // huge but shallow enough so far: let the mapping decide
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push([v[i], d + 1]);
    else for (const k in v) stack.push([(v as Record<string, unknown>)[k], d + 1]);
  }
  return false;
}

/** raw.rule of the runtime's own events. */
const RUNTIME_RULE = "agentnorm#runtime";
/** Events that are about one item or request: they need its id. */
const NEEDS: Record<string, Role | undefined> = {
  "item.started": "item", "item.updated": "item", "item.completed": "item", "content.delta": "item",
  "request.opened": "request", "request.resolved": "request", "user-input.requested": "request", "user-input.resolved": "request",
};
/** Events that are about one item. */
const ITEM_EVENT: Record<string, boolean> = { "item.started": true, "item.updated": true, "item.completed": true, "content.delta": true };
/** Events that open or end a turn: never twice for one turn. */
const TURN_EVENT: Record<string, boolean> = { "turn.started": true, "turn.completed": true, "turn.aborted": true };
/** raw.rule of the warning that replaces an event about an item or turn that already ended. */
export const LATE = "agentnorm#late";
/** Events about an item's body: the runtime makes sure its item.started came first. */
const ITEM_BODY: Record<string, boolean> = { "item.updated": true, "item.completed": true, "content.delta": true };
/** The item type a content stream implies (for an item.started the runtime synthesizes before a delta). */
const STREAM_ITEM: Record<string, string | undefined> = {
  assistant_text: "assistant_message", reasoning_text: "reasoning", reasoning_summary_text: "reasoning", plan_text: "plan",
  command_output: "command_execution", file_change_output: "file_change",
};
/** raw.rule of an item.started the runtime synthesizes (an item's body came first). */
export const IMPLICIT_START = "agentnorm#implicit-start";
const RECENT_LIMIT = 1024;
const IDLE_LIMIT = 4096;
const VAR_LIMIT = 4096;
const WAS_OPEN = 1;
const FRESH = 2;
const STALE = 4;
/** How deep dispatch steps may nest (a row dispatching to rows that dispatch…); tables iterate with `each`, not by nesting. */
const MAX_DISPATCH_DEPTH = 64;
const HOLD_LIMIT = 4096;

/** Entities of one role: open/known ones, plus a bounded memory of closed ones. */
class EntityTable {
  /** Open entities (what end() reports): bounded by what the provider keeps open. */
  live = new Map<string, Entity>();
  /** Named but never opened (e.g. ids a message mentions in passing): a bounded memory, oldest out first. */
  idle = new Map<string, Entity>();
  /** Closed: a bounded memory, so late or replayed messages about them are recognized. */
  recent = new Map<string, Entity>();
  lastOpened?: Entity;
  find(key: string): Entity | undefined {
    return this.live.get(key) ?? this.idle.get(key) ?? this.recent.get(key);
  }
  remember(key: string, e: Entity): void {
    this.idle.set(key, e);
    if (this.idle.size > IDLE_LIMIT) this.idle.delete(this.idle.keys().next().value!);
  }
  /** An entity became open: it moves to live. */
  opened(e: Entity): void {
    if (e.key === undefined || this.idle.get(e.key) !== e) return;
    this.idle.delete(e.key);
    this.live.set(e.key, e);
  }
  close(key: string | undefined, e: Entity): void {
    e.open = false;
    e.delivered = undefined;
    if (key === undefined) return;
    this.live.delete(key);
    if (this.idle.get(key) === e) this.idle.delete(key);
    this.recent.set(key, e);
    if (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value!);
  }
}

interface Pending { method: string; message: any; order: number }

/** A table prepared for dispatch (Maps, so method names like "constructor" or "__proto__" are just unknown). */
interface Compiled {
  table: SurfaceTable;
  kinds: Kind[];
  rowsOf: Map<Kind, Map<string, readonly Row[]>>;
  /** Per kind: method patterns (`cursor/*`, `*`) as [prefix, rows], longest prefix first. */
  patternsOf: Map<Kind, [string, readonly Row[]][]>;
  ignoredOf: Map<Kind, Map<string, string>>;
  /** Types/methods each kind knows (rows or ignore entries): infers JSON-RPC directions and tagged kinds. */
  known: Record<Kind, Set<string>>;
}

const JSONRPC_KINDS: Kind[] = ["notification", "request", "response", "clientRequest", "clientNotification", "clientResponse"];

function compileTable(t: SurfaceTable): Compiled {
  const kinds = t.protocol === "tagged" ? Object.keys(t.tags) : JSONRPC_KINDS;
  const rowsOf = new Map(kinds.map((k) => [k, new Map(Object.entries(t.rows[k] ?? {}))] as const));
  const patternsOf = new Map(kinds.map((k) => [k, Object.entries(t.rows[k] ?? {})
    .filter(([m]) => m.endsWith("*"))
    .map(([m, rows]) => [m.slice(0, -1), rows] as [string, readonly Row[]])
    .sort((a, b) => b[0].length - a[0].length)] as const));
  const ignoredOf = new Map(kinds.map((k) => [k, new Map(Object.entries(t.ignored[k] ?? {}))] as const));
  const known: Record<Kind, Set<string>> = Object.create(null);
  for (const k of kinds) known[k] = new Set([...rowsOf.get(k)!.keys(), ...ignoredOf.get(k)!.keys()]);
  return { table: t, kinds, rowsOf, patternsOf, ignoredOf, known };
}

export function createNormalizer(options: NormalizerOptions): Normalizer {
  const table = typeof options.surface === "string" ? SURFACES[options.surface] : options.surface;
  if (!table) throw new Error(`unknown surface "${String(options.surface)}"; known surfaces: ${SURFACE_NAMES.join(", ")}`);
  const clock = options.clock ?? Date.now;
  const idf = options.ids ?? randomIds();
  const includeRaw = options.includeRaw !== false;
  const mint = (kind: IdKind) => `${ID_PREFIXES[kind]}_${idf(kind)}`;
  const sessionId = mint("RuntimeSessionId") as RuntimeSessionId;
  let sequence = 0;
  /** Session variables set by rows (`set:`), bounded: the least recently set or read go first. */
  const vars = new Map<string, unknown>();
  /** Messages held by hold rows, per session variable they wait for (bounded: HOLD_LIMIT in all). */
  interface Held { message: any; raw: unknown; line: unknown; meta: unknown; ct: Compiled }
  const held = new Map<string, Held[]>();
  let heldCount = 0;
  /** The message pushLine is pushing, and its source text (for serializeEvent). */
  let lineMessage: unknown;
  let lineText: string | undefined;
  /** pushLine already checked the nesting of the message it is pushing. */
  let depthChecked = false;
  let pendingOrder = 0;
  const entities: Record<Role, EntityTable> = {
    session: new EntityTable(), thread: new EntityTable(), turn: new EntityTable(), item: new EntityTable(),
    request: new EntityTable(), task: new EntityTable(), parent: new EntityTable(),
  };
  entities.parent = entities.item; // a parent is an item
  const pending = { server: new Map<string, Pending>(), client: new Map<string, Pending>() };
  const compiledTables = new Map<SurfaceTable, Compiled>();
  const compiled = (t: SurfaceTable): Compiled => {
    let c = compiledTables.get(t);
    if (!c) compiledTables.set(t, (c = compileTable(t)));
    return c;
  };
  const main = compiled(table);
  const known = main.known;
  const stats: Omit<NormalizerStats, "held"> = { messages: 0, events: 0, ignored: {}, silent: {}, unknown: 0, invalid: 0, rules: {} };

  let lastT: number | undefined;
  let lastIso = "";
  const now = (): string => {
    const t = clock();
    if (typeof t === "string") return t;
    const ms = typeof t === "number" ? t : t.getTime();
    if (ms !== lastT) {
      lastT = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };

  /** One row execution: the RowContext the generated code talks to. */
  class Scope implements RowContext {
    ids: Partial<Record<Role, Entity>> = {};
    /** Per role: WAS_OPEN (open before this row), FRESH (opened by this row), STALE (closed before this row). */
    flags: Partial<Record<Role, number>> = {};
    closes?: [Role, string | undefined, Entity][];
    problems?: string[];
    /** Held messages whose variable this row set: dispatched again after the row. */
    released?: Held[];
    constructor(
      readonly out: CanonicalEvent[],
      readonly message: any,
      readonly request: any,
      readonly rule: string,
      readonly source: RuntimeEventSource,
      readonly method: string | undefined,
      readonly depth: number,
      readonly ct: Compiled = main,
      /** What raw.payload carries: the whole input line (wrapper included), not just the inner message. */
      readonly raw: unknown = message,
      readonly meta: any = undefined,
      readonly line: any = raw,
    ) {}

    ref(role: Role, providerId: unknown, op: Op, space: "server" | "client" | undefined, field: string | undefined, required: boolean, scope?: "turn"): void {
      const t = entities[role];
      if (op === "current" || op === "closeCurrent") {
        const e = t.lastOpened?.open ? t.lastOpened : undefined;
        if (e) {
          this.ids[role] = e;
          this.flags[role] = WAS_OPEN;
          if (op === "closeCurrent") (this.closes ??= []).push([role, e.key, e]);
        }
        return;
      }
      if (op === "mint") {
        const e: Entity = { id: mint(ROLE_KIND[role]), open: true, state: {} };
        t.lastOpened = e;
        this.ids[role] = e; this.flags[role] = FRESH;
        return;
      }
      if (typeof providerId !== "string" && typeof providerId !== "number") {
        if (required || providerId != null) (this.problems ??= []).push(`${field ?? role}: expected an id (string or number), got ${providerId === undefined ? "nothing" : JSON.stringify(providerId)}`);
        return;
      }
      const pid = String(providerId);
      const key = role === "request" ? `${space ?? "server"}:${pid}` : scope === "turn" ? `${this.ids.turn?.id ?? ""}|${pid}` : pid;
      let e = t.find(key);
      if (e && op === "open" && role === "request" && !e.open) {
        // JSON-RPC ids are unique only while pending: a new request reusing an answered id is a new request.
        t.recent.delete(key);
        e = undefined;
      } else if (e && op === "open" && role === "request" && e.open && this.flags[role] === undefined) {
        // Reused while still pending (a provider protocol error): a new request. The earlier one stays open under
        // another key, so end() reports it; one canonical request is never opened twice.
        t.live.delete(key);
        e.key = `${key}#${e.id}`;
        t.live.set(e.key, e);
        e = undefined;
      }
      if (!e) {
        e = { id: mint(ROLE_KIND[role]), providerId: pid, open: false, state: {}, key };
        t.remember(key, e);
      }
      this.ids[role] = e;
      const stale = !e.open && t.recent.has(key);
      let flags = e.open ? WAS_OPEN : stale ? STALE : 0;
      if (op === "open") {
        // First sighting opens; later sightings update. A remembered closed entity is not reopened,
        // so a restored history replayed after the live stream does not emit it twice.
        if (!e.open && !stale) {
          e.open = true;
          t.opened(e);
          flags |= FRESH;
          t.lastOpened = e;
          if (role === "item") e.turn = this.ids.turn;
        }
      } else if (op === "close") {
        (this.closes ??= []).push([role, key, e]);
      }
      this.flags[role] = flags;
    }

    emit(type: string, payload: any, rule = this.rule): void {
      dropUndefined(payload, 0);
      const item = this.ids.item;
      const turn = this.ids.turn;
      const request = this.ids.request;
      const late = item?.done && ITEM_EVENT[type] ? "an item" : turn?.done && TURN_EVENT[type] ? "a turn"
        : request && ((request.resolved && (type === "request.opened" || type === "request.resolved")) || (request.answered && (type === "user-input.requested" || type === "user-input.resolved")) || (request.opened && type === "request.opened" && !request.resolved) || (request.asked && type === "user-input.requested")) ? "a request" : undefined;
      if (late) {
        // Late or repeated (a duplicated or reordered line): the item, turn or request already ended (or began).
        // Reported, not re-emitted: an entity's lifecycle events come once each.
        emitRuntime(this.out, "runtime.warning", { message: `${rule}: ${type} for ${late} that already ${type.endsWith("opened") || type.endsWith("requested") || type === "turn.started" ? "began" : "ended"} (a late or repeated message) — not emitted`, detail: { type } }, this.raw, this.source, this.method, undefined, LATE);
        return;
      }
      if (request && type === "request.resolved" && !request.opened) {
        // resolved with no request.opened seen (the stream joined mid-way): open it first, as for items
        this.emit("request.opened", { requestType: typeof payload.requestType === "string" ? payload.requestType : "unknown" }, IMPLICIT_START);
        if (!request.opened) { this.reject(type, "its request could not be opened", undefined); return; }
      }
      if (request && type === "user-input.resolved" && !request.asked) {
        this.emit("user-input.requested", { questions: null }, IMPLICIT_START);
        if (!request.asked) { this.reject(type, "its user-input request could not be made", undefined); return; }
      }
      if (turn?.done && type === "item.started") {
        // An item starting after its turn ended belongs to no turn.
        const ids = { ...this.ids };
        delete ids.turn;
        const saved = this.ids;
        this.ids = ids;
        try { this.emit(type, payload, rule); } finally { this.ids = saved; }
        return;
      }
      const needs = NEEDS[type];
      if (needs && !this.ids[needs]) {
        // An item/request event the message names no usable id for (bad provider data): reported, never emitted bare.
        this.reject(type, `${type} needs ${needs === "item" ? "an item" : "a request"}, and this message names none (or not as a string or number)`, undefined);
        return;
      }
      if (item && !item.started) {
        // The item grammar holds even when the stream joined mid-way (or the provider skipped the start): an item's
        // first event is its item.started, synthesized from what the row says about the item when needed.
        if (ITEM_BODY[type]) {
          const title = typeof payload.title === "string" && payload.title.length <= 1000 ? { title: payload.title } : {};
          this.emit("item.started", { itemType: (typeof payload.itemType === "string" ? payload.itemType : (item.state.itemType as string | undefined) ?? STREAM_ITEM[payload.streamKind]) ?? "unknown", status: "inProgress", ...title }, IMPLICIT_START);
          if (!item.started) {
            // the start itself was not canonical (bad data): the body can't come without it
            this.reject(type, `its item could not be started`, undefined);
            return;
          }
          if (type !== "item.completed" && !item.open && item.key !== undefined) {
            // now open: its turn's end completes it, or end() reports it
            item.open = true;
            entities.item.opened(item);
            item.turn ??= this.ids.turn;
          }
        }
      }
      const ev: any = { eventId: mint("EventId"), sequence: ++sequence, type, provider: this.ct.table.provider, sessionId, createdAt: now() };
      let refs: Record<string, string> | undefined;
      for (const role in this.ids) {
        const e = this.ids[role as Role]!;
        const f = ENVELOPE_FIELD[role as Role];
        if (f) ev[f] = e.id;
        const rf = REF_FIELD[role as Role];
        if (rf && e.providerId !== undefined) (refs ??= {})[rf] = e.providerId;
        if (this.flags[role as Role]! & FRESH) {
          for (const k in payload) {
            const v = payload[k];
            if (v === null || typeof v !== "object") e.state[k] = v;
          }
        }
      }
      if (request && (type === "request.resolved" || type === "user-input.resolved") && request.openedIn) {
        // An answer belongs where its request was asked, whether or not the answering message says so.
        const o = request.openedIn;
        if (ev.turnId === undefined && o.turnId !== undefined) {
          ev.turnId = o.turnId;
          if (o.providerTurnId !== undefined) (refs ??= {}).providerTurnId ??= o.providerTurnId;
        }
        if (ev.itemId === undefined && o.itemId !== undefined) {
          ev.itemId = o.itemId;
          if (o.providerItemId !== undefined) (refs ??= {}).providerItemId ??= o.providerItemId;
        }
      }
      if (refs) ev.providerRefs = refs;
      ev.payload = payload;
      const msg = this.raw === undefined ? null : this.raw;
      if (includeRaw) {
        ev.raw = this.method === undefined ? { source: this.source, rule, payload: msg } : { source: this.source, method: this.method, rule, payload: msg };
        if (msg === lineMessage && lineText !== undefined) ev.raw[SOURCE_TEXT] = lineText;
      }
      else ev.raw = this.method === undefined ? { source: this.source, rule, payload: null } : { source: this.source, method: this.method, rule, payload: null };
      if (type === "content.delta" && this.ids.item && typeof payload.delta === "string") {
        const item = this.ids.item;
        const k = `${payload.streamKind}:${payload.summaryIndex ?? payload.contentIndex ?? ""}`;
        const d = (item.delivered ??= new Map());
        const chunks = d.get(k);
        if (chunks) chunks.push(payload.delta);
        else d.set(k, [payload.delta]);
      }
      if (rule !== RUNTIME_RULE && !validateCanonicalEvent(ev)) {
        // Provider data of the wrong shape reached a typed canonical field: the event is replaced by an error
        // carrying the message, so every event out of the runtime is canonical.
        const errors = ((validateCanonicalEvent as any).errors ?? []) as { instancePath?: string; message?: string }[];
        this.reject(type, errors.slice(0, 3).map((x) => `${x.instancePath || "/"} ${x.message}`).join("; "), errors.slice(0, 5));
        return;
      }
      stats.rules[rule] = (stats.rules[rule] ?? 0) + 1;
      this.out.push(ev as CanonicalEvent);
      if (request && (type === "request.opened" || type === "user-input.requested")) request.openedIn ??= { turnId: ev.turnId, itemId: ev.itemId, providerTurnId: ev.providerRefs?.providerTurnId, providerItemId: ev.providerRefs?.providerItemId };
      if (type === "item.started" && item) item.started = true;
      else if (request && type === "request.opened") request.opened = true;
      else if (request && type === "request.resolved") request.resolved = true;
      else if (request && type === "user-input.requested") request.asked = true;
      else if (request && type === "user-input.resolved") request.answered = true;
      else if (type === "item.completed" && item) item.done = true;
      else if ((type === "turn.completed" || type === "turn.aborted") && turn) turn.done = true;
    }

    /** A row's event that can't be emitted as it stands: a runtime.error (validation_error) in its place. */
    reject(type: string, why: string, errors: unknown): void {
      stats.invalid++;
      emitRuntime(this.out, "runtime.error", { message: `${this.rule}: the ${type} this message maps to is not canonical: ${why}`, class: "validation_error", detail: { type, ...(errors ? { errors } : {}) } }, this.raw, this.source, this.method);
    }

    isNew(role: Role): boolean {
      return ((this.flags[role] ?? 0) & FRESH) !== 0;
    }
    wasOpen(role: Role): boolean {
      return ((this.flags[role] ?? 0) & WAS_OPEN) !== 0;
    }
    isStale(role: Role): boolean {
      return ((this.flags[role] ?? 0) & STALE) !== 0;
    }
    id(role: Role): any {
      return this.ids[role]?.id;
    }
    state(role: Role, field: string): any {
      return this.ids[role]?.state[field];
    }

    snapshot(stream: string, text: unknown, index: number | undefined): void {
      const item = this.ids.item;
      if (typeof text !== "string" || text === "" || !item || (this.flags.item ?? 0) & STALE) return;
      const key = `${stream}:${index ?? ""}`;
      const chunks = item.delivered?.get(key);
      let rest = text;
      if (chunks) {
        const delivered = chunks.length === 1 ? chunks[0] : chunks.join("");
        if (chunks.length > 1) item.delivered!.set(key, [delivered]);
        if (!text.startsWith(delivered)) return; // the snapshot disagrees with the deltas: keep what was streamed
        rest = text.slice(delivered.length);
      }
      if (rest === "") return;
      const p: any = { streamKind: stream, delta: rest };
      const f = INDEX_FIELD[stream];
      if (f && index !== undefined) p[f] = index;
      this.emit("content.delta", p);
    }

    snapshotParts(stream: string, parts: unknown): void {
      if (!Array.isArray(parts)) return;
      parts.forEach((p, i) => this.snapshot(stream, typeof p === "string" ? p : (p as any)?.text, i));
    }

    replay(message: unknown, surface?: string): void {
      if (this.tooDeep(message)) return;
      dispatch(message, "in", this.out, this.depth + 1, surface === undefined ? this.ct : this.target(surface), message, true);
    }

    setVar(key: unknown[], value: unknown): void {
      const k = key.map(String).join(":");
      vars.delete(k);
      if (value === null || value === undefined) return;
      vars.set(k, value);
      const waiting = held.get(k);
      if (waiting) {
        held.delete(k);
        heldCount -= waiting.length;
        (this.released ??= []).push(...waiting);
      }
      if (vars.size > VAR_LIMIT) vars.delete(vars.keys().next().value!);
    }
    getVar(key: unknown[]): any {
      const k = key.map(String).join(":");
      const v = vars.get(k);
      if (v !== undefined) {
        // A variable in use stays (e.g. the open turn of a session during a turn with thousands of parts).
        vars.delete(k);
        vars.set(k, v);
      }
      return v;
    }

    hold(key: unknown[]): boolean {
      if (key.some((p) => p === undefined || p === null)) return false;
      const k = key.map(String).join(":");
      if (vars.has(k)) return false;
      if (heldCount >= HOLD_LIMIT) {
        emitRuntime(this.out, "runtime.warning", { message: `${this.rule}: more than ${HOLD_LIMIT} messages held; dispatching this one without waiting for ${k}`, detail: { key: k } }, this.raw, this.source, this.method, undefined, "agentnorm#hold");
        return false;
      }
      const list = held.get(k);
      const h: Held = { message: this.message, raw: this.raw, line: this.line, meta: this.meta, ct: this.ct };
      if (list) list.push(h);
      else held.set(k, [h]);
      heldCount++;
      return true;
    }

    closeOpen(status: "completed" | "failed" | "declined", detail: string | undefined, completes?: readonly string[]): void {
      const turn = this.ids.turn;
      if (!turn) return;
      const items = entities.item;
      const left = [...items.live.values()].filter((e) => e.open && e.turn === turn);
      const saved = this.ids.item;
      const savedFlags = this.flags.item;
      for (const e of left) {
        this.ids.item = e;
        this.flags.item = WAS_OPEN;
        const itemType = (e.state.itemType as string) ?? "unknown";
        if (completes?.includes(itemType)) this.emit("item.completed", { itemType, status: "completed" });
        else this.emit("item.completed", { itemType, status, ...(detail ? { detail } : {}) });
        items.close(e.key, e);
      }
      if (saved) { this.ids.item = saved; this.flags.item = savedFlags; } else { delete this.ids.item; delete this.flags.item; }
    }

    delegate(surface: string, message: unknown): void {
      if (this.tooDeep(message)) return;
      // The target table's input wrappers run too (they may name the message's kind/type), without a capture.
      dispatch(message, "in", this.out, this.depth + 1, this.target(surface), this.raw, false, this.line, this.meta);
    }

    target(surface: string): Compiled {
      const t = SURFACES[surface];
      if (!t) throw new Error(`dispatch: unknown surface "${surface}"`);
      return compiled(t);
    }

    /** Dispatch nests (a dispatched message's rows may dispatch again): past the limit, said, never silently. */
    tooDeep(message: unknown): boolean {
      if (this.depth < MAX_DISPATCH_DEPTH) return false;
      emitRuntime(this.out, "runtime.warning", { message: `${this.rule}: dispatch nested deeper than ${MAX_DISPATCH_DEPTH} levels; this message was not mapped`, detail: { message } }, this.raw, this.source, this.method, undefined, "agentnorm#dispatch-depth");
      return true;
    }

    finish(): void {
      if (this.problems) {
        stats.invalid++;
        emitRuntime(this.out, "runtime.error", { message: `${this.rule}: ${this.problems.join("; ")}`, class: "validation_error", detail: { problems: this.problems } }, this.raw, this.source, this.method, this.ids);
      }
      if (this.closes) for (const [role, key, e] of this.closes) entities[role].close(key, e);
      // Messages that waited for a variable this row set go through the rows again, in arrival order.
      if (this.released) for (const h of this.released) dispatch(h.message, undefined, this.out, 0, h.ct, h.raw, true, h.line, h.meta);
    }
  }

  function emitRuntime(out: CanonicalEvent[], type: "runtime.warning" | "runtime.error", payload: any, message: unknown, source: RuntimeEventSource = "agentnorm.runtime", method?: string, ids?: Partial<Record<Role, Entity>>, rule = "agentnorm#runtime"): void {
    const s = new Scope(out, message, undefined, rule, source, method, 0);
    if (ids) for (const r in ids) s.ids[r as Role] = ids[r as Role];
    s.emit(type, payload);
  }

  function classify(m: any, direction: Direction | undefined): { kind: Kind; method: string; request?: any } | { error: string; warn?: boolean } {
    const hasMethod = typeof m.method === "string";
    const id = m.id;
    const hasId = typeof id === "string" || typeof id === "number";
    const knows = (k: Kind, method: string) => known[k]?.has(method) ?? false;
    if (hasMethod && hasId) {
      const kind: Kind = direction === "in" ? "request" : direction === "out" ? "clientRequest" : knows("request", m.method) || !knows("clientRequest", m.method) ? "request" : "clientRequest";
      const space = kind === "request" ? pending.server : pending.client;
      space.set(String(id), { method: m.method, message: m, order: ++pendingOrder });
      return { kind, method: m.method };
    }
    if (hasMethod) {
      const kind: Kind = direction === "in" ? "notification" : direction === "out" ? "clientNotification" : knows("notification", m.method) || !knows("clientNotification", m.method) ? "notification" : "clientNotification";
      return { kind, method: m.method };
    }
    if (hasId && ("result" in m || "error" in m)) {
      const key = String(id);
      const s = pending.server.get(key);
      const c = pending.client.get(key);
      const useServer = direction === "out" ? !!s : direction === "in" ? false : !!s && (!c || s.order > c.order);
      const p = useServer ? s : direction === "out" ? undefined : c;
      if (!p) return { error: `response to unknown request id ${JSON.stringify(id)}`, warn: true };
      (useServer ? pending.server : pending.client).delete(key);
      return { kind: useServer ? "response" : "clientResponse", method: p.method, request: p.message };
    }
    return { error: "not a JSON-RPC message (no method, and no id with result or error)" };
  }

  /** Tagged protocols: unwrap the input line, then find the kind whose tag field names a known type. */
  function classifyTagged(ct: Compiled, m: any, skipInput: boolean, capture?: unknown): { kind: Kind; method: string; message: any; meta?: any } | { error: string; warn?: boolean } | { ignored: string } {
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
        // The wrapper names the message's type (messages with no tag field of their own).
        const kind = w.kind ?? ct.kinds.find((k) => ct.known[k].has(w.type!)) ?? ct.kinds[0];
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

  function dispatch(m: unknown, direction: Direction | undefined, out: CanonicalEvent[], depth: number, ct: Compiled = main, raw: unknown = m, skipInput = false, line: unknown = raw, metaIn?: unknown, capture?: unknown): void {
    if (m === null || typeof m !== "object" || Array.isArray(m)) {
      stats.invalid++;
      emitRuntime(out, "runtime.error", { message: `message is not a JSON object (got ${Array.isArray(m) ? "an array" : m === null ? "null" : typeof m})`, class: "validation_error" }, raw);
      return;
    }
    let kind: Kind;
    let method: string;
    let request: any;
    let message: any = m;
    let meta: any = metaIn;
    if (ct.table.protocol === "tagged") {
      const c = classifyTagged(ct, m, skipInput, capture);
      if ("ignored" in c) { stats.ignored[c.ignored] = (stats.ignored[c.ignored] ?? 0) + 1; return; }
      if ("error" in c) {
        if (c.warn) { stats.unknown++; emitRuntime(out, "runtime.warning", { message: c.error }, raw, undefined, undefined, undefined, "agentnorm#unknown"); }
        else { stats.invalid++; emitRuntime(out, "runtime.error", { message: c.error, class: "validation_error" }, raw); }
        return;
      }
      ({ kind, method, message } = c);
      meta = c.meta ?? metaIn;
    } else {
      const c = classify(m, direction);
      if ("error" in c) {
        if (c.warn) { stats.unknown++; emitRuntime(out, "runtime.warning", { message: c.error }, raw); }
        else { stats.invalid++; emitRuntime(out, "runtime.error", { message: c.error, class: "validation_error" }, raw); }
        return;
      }
      ({ kind, method, request } = c);
    }
    const source = ct.table.sources[kind] ?? "agentnorm.runtime";
    const tryRows = (rows: readonly Row[] | undefined): boolean => {
      if (!rows) return false;
      const startLength = out.length;
      for (const row of rows) {
        const s = new Scope(out, message, request, row.rule, source, method, depth, ct, raw, meta, line);
        let matched: boolean;
        try {
          matched = row.run(message, s);
        } catch (err) {
          stats.invalid++;
          emitRuntime(out, "runtime.error", { message: `${row.rule} failed on this message: ${(err as Error)?.message ?? String(err)}`, class: "validation_error" }, raw, source, method);
          return true;
        }
        if (matched) {
          s.finish();
          if (depth === 0 && out.length === startLength) stats.silent[row.rule] = (stats.silent[row.rule] ?? 0) + 1;
          return true;
        }
      }
      return false;
    };
    const byKind = ct.rowsOf.get(kind);
    if (tryRows(byKind?.get(method))) return;
    const ign = ct.ignoredOf.get(kind)?.get(method);
    if (ign) { stats.ignored[ign] = (stats.ignored[ign] ?? 0) + 1; return; }
    for (const [prefix, rows] of ct.patternsOf.get(kind) ?? []) if (method.startsWith(prefix) && tryRows(rows)) return;
    if (kind === "response" || kind === "clientResponse") {
      const asked = ct.ignoredOf.get(kind === "response" ? "request" : "clientRequest")?.get(method);
      if (asked) { stats.ignored[asked] = (stats.ignored[asked] ?? 0) + 1; return; }
    }
    stats.unknown++;
    const what = byKind?.has(method) ? `no row for ${kind} "${method}" matched this message` : `unknown ${kind} ${ct.table.protocol === "tagged" ? "type" : "method"} "${method}"`;
    emitRuntime(out, "runtime.warning", { message: `${ct.table.surface}: ${what}`, detail: { kind, method } }, raw, source, method, undefined, "agentnorm#unknown");
  }

  function validateAll(out: CanonicalEvent[]): void {
    if (!options.validate) return;
    const n = out.length;
    for (let i = 0; i < n; i++) {
      if (!validateCanonicalEvent(out[i])) {
        stats.invalid++;
        emitRuntime(out, "runtime.error", { message: `event ${out[i].sequence} (${out[i].type}) does not match the canonical schema`, class: "validation_error", detail: { errors: (validateCanonicalEvent as any).errors } }, out[i]);
      }
    }
  }

  const normalizer: Normalizer = {
    sessionId,
    surface: table,
    push(message, opts) {
      const out: CanonicalEvent[] = [];
      stats.messages++;
      if (!depthChecked && message !== null && typeof message === "object" && valueNestsDeeper(message, MAX_NESTING)) {
        stats.invalid++;
        emitRuntime(out, "runtime.error", { message: `message nests deeper than ${MAX_NESTING} levels: not mapped`, class: "validation_error", detail: { maxNesting: MAX_NESTING } }, null);
        stats.events += out.length;
        return out;
      }
      try {
        dispatch(message, opts?.direction, out, 0, main, message, false, message, undefined, opts?.capture);
      } catch (err) {
        stats.invalid++;
        emitRuntime(out, "runtime.error", { message: `internal error: ${(err as Error)?.message ?? String(err)}`, class: "unknown" }, message);
      }
      validateAll(out);
      stats.events += out.length;
      return out;
    },
    pushLine(line, opts) {
      const text = line.trim();
      if (text === "") return [];
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        const out: CanonicalEvent[] = [];
        stats.messages++;
        const where = opts?.lineNumber !== undefined ? `line ${opts.lineNumber}: ` : "";
        if (table.nonJsonLines === "warning") {
          stats.unknown++;
          emitRuntime(out, "runtime.warning", { message: `${where}skipped a line that is not JSON`, detail: { line: opts?.lineNumber, nonJson: true } }, text, undefined, undefined, undefined, "agentnorm#non-json");
        } else {
          stats.invalid++;
          emitRuntime(out, "runtime.error", { message: `${where}not valid JSON (${(err as Error).message})`, class: "validation_error", detail: { line: opts?.lineNumber } }, text);
        }
        stats.events += out.length;
        return out;
      }
      if (text.length > 2 * MAX_NESTING && textNestsDeeper(text, MAX_NESTING)) {
        const out: CanonicalEvent[] = [];
        stats.messages++;
        stats.invalid++;
        const where = opts?.lineNumber !== undefined ? `line ${opts.lineNumber}: ` : "";
        emitRuntime(out, "runtime.error", { message: `${where}JSON nests deeper than ${MAX_NESTING} levels: not mapped`, class: "validation_error", detail: { line: opts?.lineNumber, maxNesting: MAX_NESTING, length: text.length, start: text.slice(0, 200) } }, null);
        stats.events += out.length;
        return out;
      }
      const w = unwrap(parsed);
      if (w.message === parsed && parsed !== null && typeof parsed === "object") {
        lineMessage = parsed;
        lineText = text;
      }
      depthChecked = true; // the text scan above (a line no longer than 2 × MAX_NESTING can't nest deeper)
      try {
        return normalizer.push(w.message, { direction: opts?.direction ?? w.direction, capture: w.message === parsed ? undefined : parsed });
      } finally {
        lineMessage = lineText = undefined;
        depthChecked = false;
      }
    },
    end() {
      const out: CanonicalEvent[] = [];
      const report = (role: Role, what: string) => {
        for (const e of entities[role].live.values()) {
          if (!e.open) continue;
          const ids: Partial<Record<Role, Entity>> = { [role]: e };
          emitRuntime(out, "runtime.warning", { message: `stream ended with ${what} still open`, detail: { role, providerId: e.providerId, state: e.state } }, null, "agentnorm.runtime", undefined, ids, "agentnorm#end");
        }
      };
      for (const [k, list] of held) {
        for (const h of list) emitRuntime(out, "runtime.warning", { message: `stream ended with a message still waiting for ${k}`, detail: { key: k } }, h.raw, "agentnorm.runtime", undefined, undefined, "agentnorm#end");
      }
      held.clear();
      heldCount = 0;
      report("request", "a request");
      report("item", "an item");
      report("turn", "a turn");
      for (const [space, m] of Object.entries(pending)) {
        for (const [id, p] of m) {
          if (space === "server" && entities.request.live.get(`server:${id}`)?.open) continue;
          emitRuntime(out, "runtime.warning", { message: `stream ended before the ${space === "server" ? "client" : "agent"} answered ${p.method} (id ${id})`, detail: { method: p.method, id } }, p.message, "agentnorm.runtime", p.method, undefined, "agentnorm#end");
        }
        m.clear();
      }
      for (const r of ["request", "item", "turn"] as Role[]) {
        entities[r].live.clear();
        entities[r].idle.clear();
        entities[r].recent.clear();
      }
      validateAll(out);
      stats.events += out.length;
      return out;
    },
    stats: () => ({
      ...structuredCloneStats(stats),
      held: {
        threads: entities.thread.live.size,
        turns: entities.turn.live.size,
        items: entities.item.live.size,
        requests: entities.request.live.size,
        pendingCalls: pending.server.size + pending.client.size,
        remembered: (["thread", "turn", "item", "request"] as Role[]).reduce((a, r) => a + entities[r].recent.size + entities[r].idle.size, 0),
      },
    }),
  };
  return normalizer;
}

/** On raw: the provider's own text of raw.payload when it came through pushLine (a symbol: JSON.stringify skips it). */
const SOURCE_TEXT = Symbol("agentnorm.sourceText");

/**
 * One event as a JSON line (no newline). Same result as JSON.stringify(event), except that raw.payload is the
 * provider's own text when the message came through pushLine (not re-serialized: faster, and byte-faithful).
 */
export function serializeEvent(e: CanonicalEvent): string {
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

function structuredCloneStats(s: Omit<NormalizerStats, "held">): Omit<NormalizerStats, "held"> {
  return { ...s, ignored: { ...s.ignored }, silent: { ...s.silent }, rules: { ...s.rules } };
}
/**
 * Keys a row's expressions left undefined are absent from the payload (closed canonical objects — the typed item
 * variants, usage, options — reject present-but-undefined keys). Walks the row-built levels, not provider `data`.
 */
function dropUndefined(o: any, depth: number): void {
  if (depth > 3 || !o || typeof o !== "object") return;
  if (Array.isArray(o)) { for (const x of o) dropUndefined(x, depth + 1); return; }
  for (const k in o) {
    const v = o[k];
    if (v === undefined) delete o[k];
    else if (depth === 0 && (k === "data" || k === "input" || k === "output" || k === "resolution" || k === "args")) continue;
    else if (v && typeof v === "object") dropUndefined(v, depth + 1);
  }
}
