/**
 * Session variables set by rows (`set:` / `$var`) and the messages hold rows park until a variable is set.
 * Both bounded. Variables live in two generations: sets and reads go to the young one; when it holds VAR_LIMIT
 * variables it becomes the old one and the previous old one is dropped, except what was read or set since (moved
 * to the young one when used). So the VAR_LIMIT most recently used variables always survive, at most 2 × VAR_LIMIT
 * are held, and nothing is re-inserted on every read (a Map's delete + set per read degrades near its size). The
 * variables dropped are counted (stats().held.variablesDropped). At most HOLD_LIMIT messages wait in all.
 */
export const VAR_LIMIT = 4096;
export const HOLD_LIMIT = 4096;

/** A message a hold row parked, with what its dispatch needs to run it again. */
export interface Held<T = unknown> { message: any; raw: unknown; line: unknown; meta: unknown; ct: T }

/** Variable keys: the parts joined with ":". */
export const varKey = (key: unknown[]): string => key.map(String).join(":");

export class SessionVars<T = unknown> {
  private young = new Map<string, unknown>();
  private old = new Map<string, unknown>();
  private held = new Map<string, Held<T>[]>();
  private heldCount = 0;
  /** Variables dropped by the bound (not used within the last VAR_LIMIT variables used). */
  dropped = 0;

  private put(k: string, value: unknown): void {
    this.young.set(k, value);
    if (this.young.size >= VAR_LIMIT) {
      for (const key of this.old.keys()) if (!this.young.has(key)) this.dropped++;
      this.old = this.young;
      this.young = new Map();
    }
  }

  /** Set (null or undefined deletes); returns the messages that waited for it, in arrival order. */
  set(k: string, value: unknown): Held<T>[] | undefined {
    if (value === null || value === undefined) {
      this.young.delete(k);
      this.old.delete(k);
      return undefined;
    }
    this.put(k, value);
    if (this.heldCount === 0) return undefined;
    const waiting = this.held.get(k);
    if (waiting) {
      this.held.delete(k);
      this.heldCount -= waiting.length;
    }
    return waiting;
  }

  get(k: string): unknown {
    const v = this.young.get(k);
    if (v !== undefined) return v;
    const o = this.old.get(k);
    // A variable in use stays (e.g. the open turn of a session during a turn with thousands of parts).
    if (o !== undefined) this.put(k, o);
    return o;
  }

  /** Variables held now. */
  get size(): number {
    let n = this.young.size;
    for (const k of this.old.keys()) if (!this.young.has(k)) n++;
    return n;
  }

  has(k: string): boolean {
    return this.young.has(k) || this.old.has(k);
  }

  get full(): boolean {
    return this.heldCount >= HOLD_LIMIT;
  }

  /** Park a message until `k` is set. */
  hold(k: string, h: Held<T>): void {
    const list = this.held.get(k);
    if (list) list.push(h);
    else this.held.set(k, [h]);
    this.heldCount++;
  }

  /** End of stream: every message still waiting, per variable; the store is emptied. */
  drain(): [string, Held<T>[]][] {
    const all = [...this.held];
    this.held.clear();
    this.heldCount = 0;
    return all;
  }
}
