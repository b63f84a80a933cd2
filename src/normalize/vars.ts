/**
 * Session variables set by rows (`set:` / `$var`) and the messages hold rows park until a variable is set.
 * Both bounded: the least recently set or read variable goes first; at most HOLD_LIMIT messages wait in all.
 */
export const VAR_LIMIT = 4096;
export const HOLD_LIMIT = 4096;

/** A message a hold row parked, with what its dispatch needs to run it again. */
export interface Held<T = unknown> { message: any; raw: unknown; line: unknown; meta: unknown; ct: T }

/** Variable keys: the parts joined with ":". */
export const varKey = (key: unknown[]): string => key.map(String).join(":");

export class SessionVars<T = unknown> {
  private vars = new Map<string, unknown>();
  private held = new Map<string, Held<T>[]>();
  private heldCount = 0;

  /** Set (null or undefined deletes); returns the messages that waited for it, in arrival order. */
  set(k: string, value: unknown): Held<T>[] | undefined {
    this.vars.delete(k);
    if (value === null || value === undefined) return undefined;
    this.vars.set(k, value);
    const waiting = this.held.get(k);
    if (waiting) {
      this.held.delete(k);
      this.heldCount -= waiting.length;
    }
    if (this.vars.size > VAR_LIMIT) this.vars.delete(this.vars.keys().next().value!);
    return waiting;
  }

  get(k: string): unknown {
    const v = this.vars.get(k);
    if (v !== undefined) {
      // A variable in use stays (e.g. the open turn of a session during a turn with thousands of parts).
      this.vars.delete(k);
      this.vars.set(k, v);
    }
    return v;
  }

  has(k: string): boolean {
    return this.vars.has(k);
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
