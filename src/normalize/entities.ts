/**
 * The entity store: per role, the entities the runtime knows (open ones, ones only named, and a bounded memory of
 * closed ones). Memory is bounded by what is open, not by history: at most 4,096 entities only named and 1,024
 * closed ones are remembered per role, the most recent 2,048 / 512 always.
 */
import type { Role } from "./table-types.js";

/**
 * A canonical entity (session, thread, turn, item, request, task). A class with every field present from the start,
 * so every entity has one shape (property reads on the hot path stay monomorphic).
 */
export class Entity {
  providerId: string | undefined;
  /** Lifecycle bits of the openings the runtime synthesized (the provider's own opening, when it comes, is not new). */
  implied: number | undefined = undefined;
  /** A thread the runtime started for a turn that named none (no provider id yet): the first thread the provider
   *  opens in the session is this one (scope.ts adopt). */
  adoptable: boolean | undefined;
  /** content.delta text delivered so far, per "<streamKind>:<index>". */
  delivered: Map<string, string[]> | undefined = undefined;
  /** Items: the turn they were opened in (for closeOpen); set with inTurn(). */
  turn: Entity | undefined = undefined;
  /** Turns: their open items (what closeOpen ends), so a turn's end costs what it holds, not what all turns hold. */
  openItems: Set<Entity> | undefined = undefined;
  /** Items: background work (an item event said `background: true`), or nested under such an item when it opened.
   *  It outlives its turn: closeOpen leaves it open, and its events keep its turn. */
  background: "call" | "nested" | undefined = undefined;
  /** The key the entity is stored under (absent for minted entities). */
  key: string | undefined;
  /** Requests: the turn and item the first of request.opened / user-input.requested named (its answer names them too). */
  openedIn: { turnId?: string; itemId?: string; providerTurnId?: string; providerItemId?: string } | undefined = undefined;
  /** Payload scalars of the entity's opening event (its state, read by rows as `$state`). */
  state: Record<string, unknown> = {};
  /** Lifecycle bits (lifecycle.ts): which of the grammar's entities began / ended on this id. */
  life = 0;

  constructor(
    readonly id: string,
    public open: boolean,
    providerId?: string,
    key?: string,
    adoptable?: boolean,
  ) {
    this.providerId = providerId;
    this.key = key;
    this.adoptable = adoptable;
  }
}

const RECENT_LIMIT = 1024;
const IDLE_LIMIT = 4096;

/**
 * A bounded memory in two generations: entries go to the young one; when it holds half of `limit`, it becomes the
 * old one and the previous old one is forgotten. So at most `limit` entries are held and the most recent half of
 * `limit` always. (A Map trimmed oldest-first, delete + keys().next() per entry, costs more per entry the fuller
 * it is.)
 */
/** The old generation of a Memory that never turned over: empty, never written (only read, deleted from, cleared). */
const NO_OLD = new Map<string, never>();

export class Memory<V> {
  /** NO_OLD (shared, never written) until the first set: a session's many tables cost no Map until they hold something. */
  private young: Map<string, V> = NO_OLD;
  private old: Map<string, V> = NO_OLD;
  private readonly half: number;
  constructor(limit: number) {
    this.half = Math.max(1, Math.floor(limit / 2));
  }
  get(k: string): V | undefined {
    const v = this.young.get(k);
    return v !== undefined ? v : this.old.get(k);
  }
  has(k: string): boolean {
    return this.young.has(k) || this.old.has(k);
  }
  set(k: string, v: V): void {
    if (this.young === NO_OLD) this.young = new Map();
    this.young.set(k, v);
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
  }
  delete(k: string): void {
    this.young.delete(k);
    this.old.delete(k);
  }
  /** Entries held now. */
  get size(): number {
    let n = this.young.size;
    for (const k of this.old.keys()) if (!this.young.has(k)) n++;
    return n;
  }
  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}

/** Entities of one role: open/known ones, plus a bounded memory of closed ones. */
export class EntityTable {
  /** Open entities (what end() reports): bounded by what the provider keeps open. */
  live = new Map<string, Entity>();
  /** Named but never opened (e.g. ids a message mentions in passing): a bounded memory, oldest out first. */
  idle = new Memory<Entity>(IDLE_LIMIT);
  /** Closed: a bounded memory, so late or replayed messages about them are recognized. */
  recent = new Memory<Entity>(RECENT_LIMIT);
  lastOpened?: Entity;
  find(key: string): Entity | undefined {
    return this.live.get(key) ?? this.idle.get(key) ?? this.recent.get(key);
  }
  remember(key: string, e: Entity): void {
    this.idle.set(key, e);
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
    e.turn?.openItems?.delete(e);
    if (key === undefined) return;
    this.live.delete(key);
    if (this.idle.get(key) === e) this.idle.delete(key);
    this.recent.set(key, e);
  }
  clear(): void {
    this.live.clear();
    this.idle.clear();
    this.recent.clear();
  }
}

/** An open item belongs to `turn` (its openItems) from now on. */
export function inTurn(item: Entity, turn: Entity | undefined): void {
  if (item.turn === turn) return;
  item.turn?.openItems?.delete(item);
  item.turn = turn;
  if (turn) (turn.openItems ??= new Set()).add(item);
}

export type EntityStore = Record<Role, EntityTable>;

/** One table per role; a parent is an item, so `parent` shares the item table. */
export function createEntityStore(): EntityStore {
  const item = new EntityTable();
  return {
    session: new EntityTable(), thread: new EntityTable(), turn: new EntityTable(), item,
    request: new EntityTable(), task: new EntityTable(), parent: item,
  };
}
