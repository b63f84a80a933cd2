import { json, type JsonView } from "./row-util.js";

/**
 * One keyed session variable (`set: [NAME, KEY…]`): its values by key, bounded. The key is what follows the name:
 * one part is the Map key itself (a string as is, anything else as String(part), so 1 and "1" are one key, as when
 * the parts were joined); several parts are joined with ":".
 *
 * Bound (per session, over its keyed variables: VarBudget): values live in two generations: sets and reads go to the
 * young one; when the session's young generations hold VAR_LIMIT values, every store's young one becomes its old one
 * and the previous old one is dropped, except what was read or set since (moved to the young one when used). So the
 * VAR_LIMIT most recently used values of a session always survive, at most 2 × VAR_LIMIT are held, and nothing is
 * re-inserted on every read (a Map's delete + set per read degrades near its size). The values dropped are counted
 * (stats().held.variablesDropped). A store made without a session's budget is bounded the same way on its own.
 */
export const VAR_LIMIT = 4096;

/** A key part as the Map key: strings as they are, anything else as its text. */
export const keyOf = (k: unknown): string => (typeof k === "string" ? k : String(k));

/**
 * One session's bound over all its keyed variables: the values set or read since the last turnover, counted across
 * the stores; at VAR_LIMIT every store turns over at once (its young generation becomes the old one, the previous old
 * one is dropped but for what was used since). So, as with one store, the VAR_LIMIT most recently used values of the
 * session survive and at most 2 × VAR_LIMIT are held, whichever variables they are.
 */
export class VarBudget {
  /** Values in the stores' young generations. */
  count = 0;
  readonly stores: VarStore[] = [];
  turnOver(): void {
    for (const s of this.stores) s.turnOver();
    this.count = 0;
  }
}

/**
 * What a text built by appending (`set: [V, K], value: { $concat: [{ $var: [V, K] }, …] }`) says of itself as JSON,
 * kept as the chunks arrive so `$json` of it needs no look at the whole text (which grows with every chunk: reading it
 * each time made a streamed tool input quadratic). Outside strings, the nesting depth of brackets and braces; whether
 * a string is open, or an escape in it; the last character that is not white space (as `\s`).
 */
class JsonScan {
  depth = 0;
  inString = false;
  escaped = false;
  last = 0;

  feed(t: string): void {
    let { depth, inString, escaped } = this;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92 /* \\ */) escaped = true;
        else if (c === 34 /* " */) inString = false;
      } else if (c === 34) inString = true;
      else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
      else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    for (let i = t.length - 1; i >= 0; i--) {
      if (!WHITE.test(t[i])) { this.last = t.charCodeAt(i); break; }
    }
  }

  /**
   * Whether the text could be JSON ending in `}` or `]`: if not, `json()` of it is undefined (a JSON text ends its
   * brackets and strings, and json() reads only a text ending in one of those two); if so, json() decides.
   */
  get mayParse(): boolean {
    return this.depth === 0 && !this.inString && (this.last === 125 || this.last === 93);
  }
}
const WHITE = /\s/;

export class VarStore {
  private young: Map<string, unknown> | undefined;
  private old: Map<string, unknown> | undefined;
  /** For values built by append(): what they say of themselves as JSON (dropped when the value is set otherwise). */
  private scans: Map<string, JsonScan> | undefined;
  /** Values dropped by the bound (not used within the last VAR_LIMIT keys used). */
  dropped = 0;

  /**
   * `name`: the variable's name (the first part of its key in the tables). `budget`: the session's bound this store
   * shares with the session's other stores (by default one of its own: the store is bounded alone).
   */
  constructor(readonly name: string, private readonly budget = new VarBudget()) {
    budget.stores.push(this);
  }

  private put(k: string, value: unknown): void {
    const young = (this.young ??= new Map());
    const before = young.size;
    young.set(k, value);
    if (young.size !== before && ++this.budget.count >= VAR_LIMIT) this.budget.turnOver();
  }

  /** The young generation becomes the old one; the old one's values not used since are dropped (counted). */
  turnOver(): void {
    const young = this.young;
    if (this.old) for (const key of this.old.keys()) if (!young?.has(key)) this.dropped++;
    this.old = young;
    this.young = undefined;
    if (this.scans) for (const key of this.scans.keys()) if (!young?.has(key)) this.scans.delete(key);
  }

  /** The value at `key` (read as an open JSON value: rows narrow it with `$string`/`$number`, the validator checks it). */
  get(key: unknown): JsonView {
    const k = typeof key === "string" ? key : String(key);
    const v = this.young?.get(k);
    if (v !== undefined) return v as JsonView;
    const o = this.old?.get(k);
    // A value in use stays (e.g. the open turn of a session during a turn with thousands of parts).
    if (o !== undefined) this.put(k, o);
    return o as JsonView;
  }

  /** Set (null or undefined deletes). Returns the key as the Map holds it. */
  set(key: unknown, value: unknown): string {
    const k = typeof key === "string" ? key : String(key);
    this.scans?.delete(k);
    if (value === null || value === undefined) {
      if (this.young?.delete(k)) this.budget.count--;
      this.old?.delete(k);
    } else this.put(k, value);
    return k;
  }

  /**
   * `set(key, concat(get(key), ...parts))`, the same value, kept with what it says of itself as JSON (see jsonAt):
   * each part is read once, never the whole text. Returns the key as the Map holds it.
   */
  append(key: unknown, ...parts: unknown[]): string {
    const k = typeof key === "string" ? key : String(key);
    const before = this.get(k);
    let scan = this.scans?.get(k);
    let text = "";
    if (typeof before === "string") {
      text = before;
      // a value set otherwise: read once, then kept up chunk by chunk
      if (!scan) (scan = new JsonScan()).feed(before);
    } else scan = new JsonScan();
    for (const p of parts) {
      if (typeof p !== "string") continue;
      text += p;
      scan.feed(p);
    }
    this.put(k, text);
    (this.scans ??= new Map()).set(k, scan);
    return k;
  }

  /** `json(get(key))`: for a value append() built, the JSON text is parsed only when it may be whole. */
  jsonAt(key: unknown): unknown {
    const k = typeof key === "string" ? key : String(key);
    const v = this.get(k);
    const scan = this.scans?.get(k);
    if (scan && !scan.mayParse) return undefined;
    return json(v);
  }

  has(key: unknown): boolean {
    const k = keyOf(key);
    return this.young?.has(k) === true || this.old?.has(k) === true;
  }

  /** Values held now. */
  get size(): number {
    let n = this.young?.size ?? 0;
    if (this.old) for (const k of this.old.keys()) if (!this.young?.has(k)) n++;
    return n;
  }
}
