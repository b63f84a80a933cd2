/**
 * One row execution: the RowContext the generated code talks to. Resolves provider ids to entities (ref), and
 * emits events keeping every entity to the lifecycle grammar (lifecycle.ts): nothing about an entity after it
 * ended or a second opening, never an item/request event without its id, and an entity's opening event first.
 */
import type { RuntimeEventSource } from "../../generated/canonical.gen.js";
import { ROLE_KIND } from "../../generated/grammar.gen.js";
import { PAYLOAD_VALIDATORS, validateCanonicalEvent } from "../../generated/validators/canonical-event.gen.js";
import type { SessionSlots, UnkeyedVar } from "../../generated/vars.gen.js";
import type { Compiled } from "./compiled.js";
import { Entity, inTurn, type EntityTable } from "./entities.js";
import { FRESH, STALE, WAS_OPEN } from "./envelope.js";
import { article, EVENT_LIFE, ITEM_END, NEEDS, ROLE_ENDED } from "./lifecycle.js";
import type { CanonicalEvent, NormalizerState } from "./state.js";
import type { IdRef, Op, Role, RowContext } from "./table-types.js";
import type { VarStore } from "./var-store.js";
import { HOLD_LIMIT, varKey, type Held } from "./vars.js";

/** raw.rule of the runtime's own events. */
export const RUNTIME_RULE = "agentnorm#runtime";
/** raw.rule of the warning that replaces an event about an item or turn that already ended. */
export const LATE = "agentnorm#late";
/** raw.rule of the warning about a second answer to a request (the first one resolved it). */
export const ANSWERED_TWICE = "agentnorm#answered-twice";
/** raw.rule of an item.started the runtime synthesizes (an item's body came first). */
export const IMPLICIT_START = "agentnorm#implicit-start";
/** Ignore count: a provider's opening event for an entity the runtime had already started for it. */
export const IMPLIED_LATER = "agentnorm#implicit-start: the provider's own opening came after the runtime started the entity";
/** How deep dispatch steps may nest (a row dispatching to rows that dispatch…); tables iterate with `each`, not by nesting. */
const MAX_DISPATCH_DEPTH = 64;
const INDEX_FIELD: Record<string, "summaryIndex" | "contentIndex"> = { reasoning_summary_text: "summaryIndex", reasoning_text: "contentIndex" };

/**
 * Entity.delivered's key: the stream kind, with its index when it has one (no string is built for most deltas). The
 * kind is a canonical one (only deltas that passed their payload check are recorded), so it holds no ":".
 */
const deltaKey = (stream: string, index: unknown): string => (index === undefined || index === null ? stream : `${stream}:${index}`);

/** The message a row runs on, shared by every row tried for it. */
export interface MessageAt {
  out: CanonicalEvent[];
  message: any;
  /** For response kinds: the request message this response answers. */
  request: any;
  source: RuntimeEventSource;
  method: string | undefined;
  /** Dispatch nesting (0: a pushed message). */
  depth: number;
  /** The direction the message came with (JSON-RPC: "out" is the client's). */
  direction?: "in" | "out";
  ct: Compiled;
  /** The events' raw.payload. */
  raw: unknown;
  meta: any;
  line: any;
  /** The message pushed itself (not one a row dispatched or a hold released). */
  top?: boolean;
}

export class Scope implements RowContext {
  ids: Partial<Record<Role, Entity>> = {};
  /** Per role: WAS_OPEN (open before this row), FRESH (opened by this row), STALE (closed before this row). */
  flags: Partial<Record<Role, number>> = {};
  closes?: [Role, string | undefined, Entity][];
  problems?: string[];
  /** Held messages whose variable this row set: dispatched again after the row. */
  released?: Held<Compiled>[];
  readonly request: any;
  readonly meta: any;
  readonly line: any;

  constructor(readonly rt: NormalizerState, readonly at: MessageAt, public rule: string) {
    this.request = at.request;
    this.meta = at.meta;
    this.line = at.line;
  }

  ref(id: IdRef, providerId?: unknown): void {
    const { role, op, space, field, scope } = id;
    const required = id.required === true;
    const t = this.rt.entities[role];
    if (op === "current" || op === "closeCurrent") {
      // The current entity: the last one opened, while open and not ended (a turn a row minted and ended at once is
      // no one's current turn).
      const last = t.lastOpened;
      const e = last?.open && !(last.life & (ROLE_ENDED[role] ?? 0)) ? last : undefined;
      if (e) {
        this.ids[role] = e;
        this.flags[role] = WAS_OPEN;
        if (op === "closeCurrent") (this.closes ??= []).push([role, e.key, e]);
      }
      return;
    }
    if (op === "mint") {
      const e = new Entity(this.rt.envelope.mint(ROLE_KIND[role]), true);
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
    if (!e && op === "open" && t.lastOpened?.adoptable) e = adopt(t, t.lastOpened, pid, key);
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
    } else if (e && role === "item" && !e.open && e.turn && this.ids.turn && this.ids.turn !== e.turn && t.recent.get(key) === e) {
      // An item id seen again after its item ended, in another turn (a provider reusing ids across turns): the item
      // of that turn if there was one (a replayed history), else a new item with a canonical id of its own. The ended
      // one stays known under its turn, so a late or replayed message about it still finds it.
      t.recent.delete(key);
      t.recent.set(`${key}|${e.turn.id}`, e);
      const earlier = t.recent.get(`${key}|${this.ids.turn.id}`);
      if (earlier) {
        t.recent.delete(`${key}|${this.ids.turn.id}`);
        t.recent.set(key, earlier);
      }
      e = earlier;
    }
    if (!e) {
      e = new Entity(this.rt.envelope.mint(ROLE_KIND[role]), false, pid, key);
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
        if (role === "item") inTurn(e, this.ids.turn);
      }
    } else if (op === "close") {
      (this.closes ??= []).push([role, key, e]);
    }
    this.flags[role] = flags;
  }

  emit(type: string, payload: any, rule = this.rule): void {
    payload = dropUndefined(payload, 0);
    const life = EVENT_LIFE.get(type);
    const owner = this.backgroundTurn(type, life, payload);
    if (owner && this.ids.turn !== owner) {
      // Background work belongs to the turn that started it, also after that turn ended (the canonical model's
      // background items): its events carry that turn, whichever turn (if any) is current.
      const saved = this.ids, savedFlags = this.flags;
      this.ids = { ...saved, turn: owner };
      this.flags = { ...savedFlags, turn: WAS_OPEN };
      try { this.emitEvent(type, payload, rule, life, true); } finally { this.ids = saved; this.flags = savedFlags; }
      return;
    }
    this.emitEvent(type, payload, rule, life, owner !== undefined);
  }

  /**
   * The turn background work belongs to: for an event of a background item or of an item nested under one (when it
   * opened), that item's turn; for another event nested (parentId) under an open background item, the parent's turn.
   * Marks the item: `background: true` in an item event's payload makes it background work; an item opening under
   * an open background item is nested in it.
   */
  private backgroundTurn(type: string, life: ReturnType<typeof EVENT_LIFE.get>, payload: any): Entity | undefined {
    const item = life?.role === "item" ? this.ids.item : undefined;
    if (item && payload?.background === true && !(item.life & ROLE_ENDED.item!)) item.background = "call";
    const parent = this.ids.parent;
    const bgParent = parent?.background && parent.open && !(parent.life & ROLE_ENDED.item!) && parent.turn ? parent : undefined;
    if (item) {
      if (!item.background && bgParent && life!.phase === "opens" && !(item.life & life!.began)) {
        item.background = "nested";
        inTurn(item, bgParent.turn);
      }
      return item.background ? item.turn : undefined;
    }
    return bgParent?.turn;
  }

  private emitEvent(type: string, payload: any, rule: string, life: ReturnType<typeof EVENT_LIFE.get>, background: boolean): void {
    const e = life ? this.ids[life.role] : undefined;
    if (life && e) {
      // Late or repeated (a duplicated or reordered line): the entity already ended (or began).
      // Reported, not re-emitted: an entity's opening and ending events come once each.
      const opening = life.phase === "opens";
      if (opening && !(e.life & life.ended) && (e.implied ?? 0) & life.began) {
        // The provider's own opening of an entity the runtime had to start for it (a thread whose turn came
        // first): what it says is already in the synthesized start. Counted, not repeated, not a warning.
        e.implied! &= ~life.began;
        const ig = this.rt.stats.ignored;
        ig[IMPLIED_LATER] = (ig[IMPLIED_LATER] ?? 0) + 1;
        return;
      }
      if (e.life & life.ended || (opening && e.life & life.began)) {
        this.warn(`${rule}: ${type} for ${article(life.role)} that already ${opening ? "began" : "ended"} (a late or repeated message) — not emitted`, { type }, LATE);
        return;
      }
      const w = life.within;
      if (w && !background && this.ids[w.role] && this.ids[w.role]!.life & w.ended) {
        // An entity opening after the one it belongs to ended (an item after its turn) belongs to none.
        const saved = this.ids;
        const ids = { ...saved };
        delete ids[w.role];
        this.ids = ids;
        try { this.emit(type, payload, rule); } finally { this.ids = saved; }
        return;
      }
      let we = w?.implicit ? this.ids[w.role] : undefined;
      if (!we && w?.implicit && !background) we = this.threadless(w.role);
      if (we && !(we.life & w!.began)) {
        // The entity it belongs to never began (a turn in a thread that never started): it starts first.
        const ids = this.ids;
        this.ids = { [w!.role]: we, ...(ids.session ? { session: ids.session } : {}) };
        try { this.emit(w!.implicit!.type, w!.implicit!.payload(payload, we), IMPLICIT_START); } finally { this.ids = ids; }
        if (we.life & w!.began) we.implied = (we.implied ?? 0) | w!.began;
      }
    }
    const needs = NEEDS.get(type);
    if (needs && !this.ids[needs]) {
      // An item/request event the message names no usable id for (bad provider data): reported, never emitted bare.
      this.reject(type, `${type} needs ${article(needs)}, and this message names none (or not as a string or number)`, undefined);
      return;
    }
    const imp = life?.implicit;
    if (imp && e && !(e.life & life!.began)) {
      // The grammar holds even when the stream joined mid-way (or the provider skipped the start): an entity's
      // first event is its opening event, synthesized from what the row says about it when needed.
      this.emit(imp.type, imp.payload(payload, e), IMPLICIT_START);
      if (!(e.life & life!.began)) {
        // the start itself was not canonical (bad data): the body can't come without it
        this.reject(type, imp.failure, undefined);
        return;
      }
      if (life!.phase === "body" && !e.open && e.key !== undefined) {
        // now open: its turn's end completes it, or end() reports it
        e.open = true;
        this.rt.entities[life!.role].opened(e);
        if (!e.turn) inTurn(e, this.ids.turn);
      }
    }
    const at = this.at;
    const request = this.ids.request;
    // An answer belongs where its request was asked, whether or not the answering message says so.
    const answerOf = request?.openedIn && (type === "request.resolved" || type === "user-input.resolved") ? request.openedIn : undefined;
    const ev = this.rt.envelope.event(type, payload, at.ct.table.provider, at.source, at.method, at.raw, rule, this.ids, this.flags, answerOf);
    if (rule !== RUNTIME_RULE) {
      // Provider data of the wrong shape reached a typed canonical field: the event is replaced by an error
      // carrying the message, so every event out of the runtime is canonical. What a row builds is the payload;
      // the envelope is the runtime's own typed construction (envelope.ts), so the payload is what is checked
      // here (`validate: true` checks whole events as well).
      const check = (PAYLOAD_VALIDATORS as Record<string, ((d: unknown) => boolean) | undefined>)[type];
      const ok = check ? check(payload) : validateCanonicalEvent(ev);
      if (!ok) {
        const errors = (((check ?? validateCanonicalEvent) as any).errors ?? []).map((x: { instancePath?: string }) => (check ? { ...x, instancePath: `/payload${x.instancePath ?? ""}` } : x)) as { instancePath?: string; message?: string }[];
        this.reject(type, errors.slice(0, 3).map((x) => `${x.instancePath || "/"} ${x.message}`).join("; "), errors.slice(0, 5));
        return;
      }
    }
    // Text delivered (a snapshot later sends only what is missing): only a delta that went out counts, not one
    // replaced by an error.
    const item = this.ids.item;
    if (type === "content.delta" && item && typeof payload.delta === "string" && this.rt.recordDeltas) {
      const k = deltaKey(payload.streamKind, payload.summaryIndex ?? payload.contentIndex);
      const d = (item.delivered ??= new Map());
      const chunks = d.get(k);
      if (chunks) chunks.push(payload.delta);
      else d.set(k, [payload.delta]);
    }
    const rules = this.rt.stats.rules;
    rules[rule] = (rules[rule] ?? 0) + 1;
    at.out.push(ev as CanonicalEvent);
    if (request && (type === "request.opened" || type === "user-input.requested")) request.openedIn ??= { turnId: ev.turnId, itemId: ev.itemId, providerTurnId: ev.providerRefs?.providerTurnId, providerItemId: ev.providerRefs?.providerItemId };
    if (life && e) {
      if (life.phase === "opens") e.life |= life.began;
      else if (life.phase === "ends") e.life |= life.ended;
    }
  }

  /**
   * An entity opening in none of the entity it belongs to (a turn naming no thread: Claude's host sends the first
   * prompt before system/init says the session): it belongs to the current one, or — when the session has none yet — to
   * one the runtime starts now, with no provider id; the first one the provider opens later is that one (adopt), so
   * the thread starts before its first turn, always.
   */
  private threadless(role: Role): Entity {
    const t = this.rt.entities[role];
    const cur = t.lastOpened;
    let e: Entity;
    if (cur?.open) e = cur;
    else {
      e = new Entity(this.rt.envelope.mint(ROLE_KIND[role]), true, undefined, undefined, true);
      t.lastOpened = e;
    }
    this.ids[role] = e;
    this.flags[role] = WAS_OPEN;
    return e;
  }

  /** A runtime.warning about this row's message. */
  warn(message: string, detail: unknown, rule: string): void {
    const at = this.at;
    emitRuntime(this.rt, { out: at.out, type: "runtime.warning", payload: { message, detail }, raw: at.raw, source: at.source, method: at.method, rule });
  }

  /** A row's event that can't be emitted as it stands: a runtime.error (validation_error) in its place. */
  reject(type: string, why: string, errors: unknown): void {
    this.rt.stats.invalid++;
    const at = this.at;
    emitRuntime(this.rt, { out: at.out, type: "runtime.error", payload: { message: `${this.rule}: the ${type} this message maps to is not canonical: ${why}`, class: "validation_error", detail: { type, ...(errors ? { errors } : {}) } }, raw: at.raw, source: at.source, method: at.method });
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
    const key = deltaKey(stream, index);
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
    const at = this.at;
    // A message re-fed to its own table keeps the client's direction (a client request dispatched again); else "in".
    const direction = surface === undefined && at.direction === "out" ? "out" : "in";
    this.rt.dispatch(message, { direction, out: at.out, depth: at.depth + 1, ct: surface === undefined ? at.ct : this.rt.table(surface), raw: message, skipInput: true });
  }

  delegate(surface: string, message: unknown): void {
    if (this.tooDeep(message)) return;
    // The target table's input wrappers run too (they may name the message's kind/type), without a capture.
    const at = this.at;
    this.rt.dispatch(message, { direction: "in", out: at.out, depth: at.depth + 1, ct: this.rt.table(surface), raw: at.raw, line: at.line, meta: at.meta });
  }

  upstreamVersion(stated: unknown): void {
    if (typeof stated === "string" ? stated.trim() === "" : typeof stated !== "number") return;
    this.rt.statedVersions.set(this.at.ct.table.upstream.package, String(stated).trim());
  }

  /** The session's variables (generated/vars.gen.ts): rows read their slots directly. */
  get vars(): SessionSlots {
    return this.rt.vars.slots;
  }
  /** Set an unkeyed variable (null or undefined deletes); the messages held for it run after the row. */
  setVar(name: UnkeyedVar, value: unknown): void {
    const vars = this.rt.vars;
    if (value === null || value === undefined) {
      vars.slots[name] = undefined;
      return;
    }
    vars.slots[name] = value;
    if (vars.heldCount !== 0) this.releasing(vars.release(name));
  }
  /** Set a keyed variable's value at `key` (the rest of its key: one part, or the parts joined with ":"). */
  setVarIn(store: VarStore, key: unknown, value: unknown): void {
    const k = store.set(key, value);
    if (value !== null && value !== undefined) this.setIn(store, k);
  }
  /** `setVarIn(store, key, concat(store.get(key), ...parts))`, with the text kept ready for `$json` (VarStore.append). */
  appendVarIn(store: VarStore, key: unknown, ...parts: unknown[]): void {
    this.setIn(store, store.append(key, ...parts));
  }
  /** A keyed variable was set at `k` (the key as its store holds it): the messages held for it run after the row. */
  private setIn(store: VarStore, k: string): void {
    const vars = this.rt.vars;
    if (vars.heldCount !== 0) this.releasing(vars.release(`${store.name}:${k}`));
  }
  /** A variable by its key parts (the first is its name), through the same slots. */
  getVar(key: readonly unknown[]): unknown {
    return this.rt.vars.get(key);
  }
  setVarNamed(key: readonly unknown[], value: unknown): void {
    this.releasing(this.rt.vars.set(key, value));
  }
  private releasing(waiting: Held<Compiled>[] | undefined): void {
    if (waiting) (this.released ??= []).push(...waiting);
  }

  hold(key: unknown[]): boolean {
    if (key.some((p) => p === undefined || p === null)) return false;
    const vars = this.rt.vars;
    if (vars.has(key)) return false;
    const k = varKey(key);
    if (vars.full) {
      this.warn(`${this.rule}: more than ${HOLD_LIMIT} messages held; dispatching this one without waiting for ${k}`, { key: k }, "agentnorm#hold");
      return false;
    }
    const at = this.at;
    vars.hold(k, { message: at.message, raw: at.raw, line: at.line, meta: at.meta, ct: at.ct });
    if (at.top) this.rt.outcome = "held";
    return true;
  }

  closeOpen(status: "completed" | "failed" | "declined", detail: string | undefined, completes?: readonly string[], statusVar?: string): void {
    const turn = this.ids.turn;
    if (!turn) return;
    const items = this.rt.entities.item;
    if (!turn.openItems?.size) return;
    // background work outlives its turn: it completes when the background work ends
    const left = [...turn.openItems].filter((e) => e.open && !e.background && e.key !== undefined && items.live.get(e.key) === e);
    const saved = this.ids.item;
    const savedFlags = this.flags.item;
    for (const e of left) {
      this.ids.item = e;
      this.flags.item = WAS_OPEN;
      const itemType = (e.state.itemType as string) ?? "unknown";
      const said = statusVar !== undefined && e.providerId !== undefined ? this.getVar([statusVar, e.providerId]) : undefined;
      if (said === "completed" || said === "failed" || said === "declined") this.emit(ITEM_END, { itemType, status: said });
      else if (completes?.includes(itemType)) this.emit(ITEM_END, { itemType, status: "completed" });
      else this.emit(ITEM_END, { itemType, status, ...(detail ? { detail } : {}) });
      items.close(e.key, e);
    }
    if (saved) { this.ids.item = saved; this.flags.item = savedFlags; } else { delete this.ids.item; delete this.flags.item; }
  }

  /** Dispatch nests (a dispatched message's rows may dispatch again): past the limit, said, never silently. */
  tooDeep(message: unknown): boolean {
    if (this.at.depth < MAX_DISPATCH_DEPTH) return false;
    this.warn(`${this.rule}: dispatch nested deeper than ${MAX_DISPATCH_DEPTH} levels; this message was not mapped`, { message }, "agentnorm#dispatch-depth");
    return true;
  }

  finish(): void {
    const at = this.at;
    if (this.problems) {
      this.rt.stats.invalid++;
      emitRuntime(this.rt, { out: at.out, type: "runtime.error", payload: { message: `${this.rule}: ${this.problems.join("; ")}`, class: "validation_error", detail: { problems: this.problems } }, raw: at.raw, source: at.source, method: at.method, ids: this.ids });
    }
    if (this.closes) for (const [role, key, e] of this.closes) this.rt.entities[role].close(key, e);
    // Messages that waited for a variable this row set go through the rows again, in arrival order.
    if (this.released) for (const h of this.released) this.rt.dispatch(h.message, { out: at.out, depth: 0, ct: h.ct, raw: h.raw, skipInput: true, line: h.line, meta: h.meta });
  }
}

/**
 * The provider opens its first entity of a role while the runtime's own stands in for it (`threadless`): the provider
 * id becomes that entity's, and the provider's opening event — its start was already emitted — is counted, not
 * repeated (IMPLIED_LATER).
 */
function adopt(t: EntityTable, e: Entity, pid: string, key: string): Entity {
  e.adoptable = undefined;
  e.providerId = pid;
  e.key = key;
  if (e.open) t.live.set(key, e);
  else t.remember(key, e);
  return e;
}

export interface RuntimeEventOptions {
  out: CanonicalEvent[];
  /** runtime.warning / runtime.error; the live layer (Normalizer.hostEvent) also ends turns and requests and reports an exit. */
  type: "runtime.warning" | "runtime.error" | "turn.completed" | "request.resolved" | "session.exited" | "session.state.changed";
  payload: any;
  /** raw.payload (null: none). */
  raw: unknown;
  source?: RuntimeEventSource;
  method?: string;
  /** Entities the event is about (envelope ids). */
  ids?: Partial<Record<Role, Entity>>;
  rule?: string;
  /** Before the event: end the turn's open items (not background work) with this status, as a table's closeOpen does. */
  closeOpen?: { status: "completed" | "failed" | "declined"; detail?: string };
}

/** The runtime's own runtime.warning / runtime.error. */
export function emitRuntime(rt: NormalizerState, o: RuntimeEventOptions): void {
  const s = new Scope(rt, { out: o.out, message: o.raw, request: undefined, source: o.source ?? "agentnorm.runtime", method: o.method, depth: 0, ct: rt.main, raw: o.raw, meta: undefined, line: o.raw }, o.rule ?? RUNTIME_RULE);
  if (o.ids) for (const r in o.ids) s.ids[r as Role] = o.ids[r as Role];
  if (o.closeOpen) s.closeOpen(o.closeOpen.status, o.closeOpen.detail);
  s.emit(o.type, o.payload);
}

/**
 * Keys a row's expressions left undefined are absent from the payload (closed canonical objects — the typed item
 * variants, usage, options — reject present-but-undefined keys). Walks the row-built levels, not provider `data`.
 * An object with such keys is replaced by a copy without them, keys in the same order (deleting keys would turn it
 * into a slow dictionary object for everything that reads or writes it later); one without any is kept as it is.
 */
function dropUndefined(o: any, depth: number): any {
  if (depth > 3 || !o || typeof o !== "object") return o;
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const x = o[i];
      if (x && typeof x === "object") { const y = dropUndefined(x, depth + 1); if (y !== x) o[i] = y; }
    }
    return o;
  }
  let missing = false;
  for (const k in o) {
    const v = o[k];
    if (v === undefined) missing = true;
    else if (depth === 0 && (k === "data" || k === "input" || k === "output" || k === "resolution" || k === "args")) continue;
    else if (v && typeof v === "object") { const w = dropUndefined(v, depth + 1); if (w !== v) o[k] = w; }
  }
  if (!missing) return o;
  const copy: any = {};
  for (const k in o) if (o[k] !== undefined) copy[k] = o[k];
  return copy;
}
