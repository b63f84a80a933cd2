/**
 * A surface table prepared for dispatch (Maps, so method names like "constructor" or "__proto__" are just unknown),
 * and the JSON-RPC calls awaiting their response. Below dispatch.ts, scope.ts and state.ts, which all read it.
 */
import type { Kind, Row, SurfaceTable } from "./table-types.js";
import { Memory } from "./entities.js";
import type { Partition } from "./sessions.js";

/** A table prepared for dispatch (Maps, so method names like "constructor" or "__proto__" are just unknown). */
export interface Compiled {
  table: SurfaceTable;
  kinds: Kind[];
  rowsOf: Map<Kind, Map<string, readonly Row[]>>;
  /**
   * Per kind: method patterns (`cursor/*`, `*`) as [prefix, rows] (a pattern row) or [prefix, ignore entry id] (an
   * ignore entry's pattern), longest prefix first (rows before an ignore entry of the same prefix).
   */
  patternsOf: Map<Kind, [string, readonly Row[] | string][]>;
  /** Per kind: method → the generated switch choosing the rows that can match a message (SurfaceTable.picks). */
  picksOf: Map<Kind, Map<string, (message: unknown) => readonly Row[]>>;
  ignoredOf: Map<Kind, Map<string, string>>;
  /** Types/methods each kind knows (rows or ignore entries): infers JSON-RPC directions and tagged kinds. */
  known: Record<Kind, Set<string>>;
  /** Per type/method: the first kind (in `kinds` order) that knows it. */
  kindOf: Map<string, Kind>;
  /**
   * The ignore counters' keys (`<ignore id>:<method>`), made once per pair: a message's method is a new string each
   * time, and a counter keyed by a new string costs a hash and a lookup of its text on every ignored message.
   */
  ignoreKeys: Map<string, Map<string, string>>;
}

/** The counter key of an ignore entry for a method (made once: see Compiled.ignoreKeys). */
export function ignoreKey(ct: Compiled, ignore: string, method: string): string {
  let byMethod = ct.ignoreKeys.get(ignore);
  if (!byMethod) ct.ignoreKeys.set(ignore, (byMethod = new Map()));
  let key = byMethod.get(method);
  if (key === undefined) byMethod.set(method, (key = `${ignore}:${method}`));
  return key;
}

export const JSONRPC_KINDS: Kind[] = ["notification", "request", "response", "clientRequest", "clientNotification", "clientResponse"];

export function compileTable(t: SurfaceTable): Compiled {
  const kinds = t.protocol === "tagged" ? Object.keys(t.tags) : JSONRPC_KINDS;
  const rowsOf = new Map(kinds.map((k) => [k, new Map(Object.entries(t.rows[k] ?? {}))] as const));
  const patternsOf = new Map(kinds.map((k) => [k, [...Object.entries(t.rows[k] ?? {}), ...Object.entries(t.ignored[k] ?? {})]
    .filter(([m]) => m.endsWith("*"))
    .map(([m, x]) => [m.slice(0, -1), x] as [string, readonly Row[] | string])
    .sort((a, b) => b[0].length - a[0].length)] as const));
  const ignoredOf = new Map(kinds.map((k) => [k, new Map(Object.entries(t.ignored[k] ?? {}).filter(([m]) => !m.endsWith("*")))] as const));
  const picksOf = new Map(kinds.map((k) => [k, new Map(Object.entries(t.picks?.[k] ?? {}))] as const));
  const known: Record<Kind, Set<string>> = Object.create(null);
  for (const k of kinds) known[k] = new Set([...rowsOf.get(k)!.keys(), ...ignoredOf.get(k)!.keys()].filter((m) => !m.endsWith("*")));
  const kindOf = new Map<string, Kind>();
  for (const k of kinds) for (const m of known[k]) if (!kindOf.has(m)) kindOf.set(m, k);
  return { table: t, kinds, rowsOf, patternsOf, picksOf, ignoredOf, known, kindOf, ignoreKeys: new Map() };
}

/** JSON-RPC calls awaiting their response, per side (the response is classified by the call it answers). */
export interface Pending {
  method: string;
  message: any;
  order: number;
  /** The session the call went to (a response naming no session goes there too). */
  session?: Partition<Compiled>;
}
/** Answered calls remembered per side (a second answer is reported as such): at most this many. */
const ANSWERED_LIMIT = 1024;
export class PendingCalls {
  server = new Map<string, Pending>();
  client = new Map<string, Pending>();
  /** Calls already answered (bounded): a response to one of these is a second answer, not an unknown id. */
  answered = { server: new Memory<Pending>(ANSWERED_LIMIT), client: new Memory<Pending>(ANSWERED_LIMIT) };
  private order = 0;
  private recorded = 0;
  /** An id for a recorded call that carries none (dispatch.ts classifyRpc): `recorded-<n>`, counted per stream. */
  recordedId(): string {
    return `recorded-${++this.recorded}`;
  }
  add(side: "server" | "client", id: string, method: string, message: any): Pending {
    const p: Pending = { method, message, order: ++this.order };
    (side === "server" ? this.server : this.client).set(id, p);
    this.answered[side].delete(id);
    return p;
  }
  /** The call `id` of `side` is answered now. */
  answer(side: "server" | "client", id: string, p: Pending): void {
    (side === "server" ? this.server : this.client).delete(id);
    this.answered[side].set(id, p);
  }
  get size(): number {
    return this.server.size + this.client.size;
  }
}
