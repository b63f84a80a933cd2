/**
 * Per-session state. A table that declares `sessions:` says which provider id names the session (or thread) a
 * message belongs to; every session the stream names gets its own state — entities (and so its own "current" turn,
 * thread and items), session variables, held messages, the upstream version it stated — and its own canonical
 * session id. So sessions interleaved in one stream (a host logging several sessions to one file, several threads on
 * one connection) stay apart. What the runtime knows per session is a Partition; the normalizer keeps one active.
 *
 * Routing (generic; the table only names the paths):
 * - a message naming a session id goes to that session's partition;
 * - a message naming none goes to the current one (the session of the last message that named one), a JSON-RPC
 *   response to the session its request went to; so does a message of the client naming a session the stream has
 *   not named yet while no session was named (the agent's messages open sessions, the client's follow them: a
 *   resumed Claude session answers a prompt naming the old id under a new one);
 * - a message of the client naming a session the stream has not named while another session is current opens a
 *   session of its own (a second session's first prompt); the agent's next new id joins it, unless the agent
 *   speaks in it under that id first;
 * - the first id the stream names binds the partition the stream started in (so a stream of one session, with or
 *   without ids, is mapped exactly as without routing: one canonical session, the normalizer's `sessionId`);
 * - an id first named together with a parent it belongs to (`parent`: a subagent's thread, an opencode child
 *   session) joins its parent's partition, and so does one a message first names as its child (`children`: the
 *   subagent session a tool runs); after a message saying its session goes on under a new id (`next`:
 *   Claude's /clear), the next new id joins that message's partition;
 * - any other new id opens a new partition with a new canonical session id.
 * Memory: at most MAX_SESSIONS partitions; past that the least recently used one is forgotten (said once).
 */
import type { RuntimeSessionId } from "../../generated/canonical.gen.js";
import { createEntityStore, type EntityStore } from "./entities.js";
import type { SessionRoute } from "./table-types.js";
import { SessionVars } from "./vars.js";

export const MAX_SESSIONS = 1024;

export interface Partition<T = unknown> {
  readonly sessionId: RuntimeSessionId;
  /** The provider ids routed here (the first is the session's own; then joined children and successors). */
  readonly keys: string[];
  readonly entities: EntityStore;
  readonly vars: SessionVars<T>;
  /** What the session's stream stated as its upstream version, per upstream package (`upstreamVersion` steps). */
  readonly statedVersions: Map<string, string>;
  /** Forgotten by the bound (MAX_SESSIONS). */
  gone?: boolean;
}

/** A provider session id as a routing key: a non-empty string, or a finite number as text. */
export function sessionKey(v: unknown): string | undefined {
  if (typeof v === "string") return v === "" ? undefined : v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

export class Sessions<T = unknown> {
  /** Every partition, in the order the stream opened them (end() reports them in this order; a Set: the bound forgets one in O(1)). */
  readonly all = new Set<Partition<T>>();
  private readonly byKey = new Map<string, Partition<T>>();
  /** Recency: partitions by last use (a Map's insertion order; re-inserted on a switch, not on every message). */
  private readonly recency = new Set<Partition<T>>();
  current: Partition<T>;
  /** A session that said it goes on under a new id (`next`): the next new id joins it. */
  private renewed?: Partition<T>;
  /** A session the client named first (`follow`), until the agent speaks in it or a new id of the agent's joins it. */
  private asked?: Partition<T>;
  /** Partitions forgotten by the bound (not yet reported by the normalizer). */
  dropped: Partition<T>[] = [];

  constructor(private readonly mint: () => RuntimeSessionId, first?: RuntimeSessionId) {
    this.current = this.open(first ?? mint());
  }

  private open(sessionId: RuntimeSessionId): Partition<T> {
    const p: Partition<T> = { sessionId, keys: [], entities: createEntityStore(), vars: new SessionVars<T>(), statedVersions: new Map() };
    this.all.add(p);
    this.recency.add(p);
    return p;
  }

  /** The partition opened first of those held. */
  private first(): Partition<T> {
    return this.all.values().next().value!;
  }

  private bind(key: string, p: Partition<T>): void {
    this.byKey.set(key, p);
    p.keys.push(key);
  }

  /** The partition of a provider session id, if the stream named it. */
  get(key: string): Partition<T> | undefined {
    return this.byKey.get(key);
  }

  /**
   * The partition a message goes to. `fallback`: where a message naming no session goes (default: the current one;
   * a response: its request's). `follow`: the client's message, which goes to a session the stream already named but
   * never opens or binds one (the agent says which sessions there are: a resumed Claude session answers a prompt that
   * names the old id under a new one).
   */
  route(r: SessionRoute | undefined, fallback?: Partition<T>, follow = false): Partition<T> {
    const key = sessionKey(r?.key);
    let p: Partition<T> | undefined;
    if (key === undefined) p = fallback && !fallback.gone ? fallback : this.current;
    else {
      p = this.byKey.get(key);
      if (p && !follow && p === this.asked) this.asked = undefined; // the agent speaks in the session the client named
      if (!p && follow) {
        const to = fallback && !fallback.gone ? fallback : this.current;
        if (to.keys.length === 0 || fallback) p = to;
        else {
          // The client names a session the stream has not named while another one is current (a second session's
          // first prompt, a session loaded mid-stream): a session of its own, which the agent's next new id joins
          // (a resumed session the agent goes on under a new id) unless the agent names this one first.
          p = this.open(this.mint());
          this.bind(key, p);
          this.bound();
          this.asked = p;
        }
      } else if (!p) {
        const parent = sessionKey(r?.parent);
        const joined = parent !== undefined && parent !== key ? this.byKey.get(parent) : undefined;
        if (joined) p = joined;
        else if (this.renewed && !this.renewed.gone) { p = this.renewed; this.renewed = undefined; }
        else if (this.asked && !this.asked.gone) { p = this.asked; this.asked = undefined; }
        else if (this.all.size === 1 && this.first().keys.length === 0) p = this.first(); // the stream's first id
        else p = this.open(this.mint());
        this.bind(key, p);
        this.bound();
      }
    }
    const children = r?.children;
    if (Array.isArray(children)) for (const c of children) this.child(c, p);
    else if (children !== undefined) this.child(children, p);
    if (r?.next) this.renewed = p;
    if (p !== this.current) {
      this.recency.delete(p);
      this.recency.add(p);
      this.current = p;
    }
    return p;
  }

  /** A child session id the message names joins its session (when the stream has not named it before). */
  private child(c: unknown, p: Partition<T>): void {
    const child = sessionKey(c);
    if (child !== undefined && !this.byKey.has(child)) this.bind(child, p);
  }

  /** The bound: past MAX_SESSIONS partitions the least recently used one (never the current) is forgotten. */
  private bound(): void {
    while (this.all.size > MAX_SESSIONS) {
      let victim: Partition<T> | undefined;
      for (const p of this.recency) if (p !== this.current) { victim = p; break; }
      if (!victim) return;
      this.recency.delete(victim);
      this.all.delete(victim);
      victim.gone = true;
      for (const k of victim.keys) if (this.byKey.get(k) === victim) this.byKey.delete(k);
      this.dropped.push(victim);
    }
  }
}
