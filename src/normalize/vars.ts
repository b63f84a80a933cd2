/**
 * Session variables set by rows (`set:` / `$var`) and the messages hold rows park until a variable is set.
 *
 * The variables live in slots: the generator knows every variable name of every table (the first part of a key is
 * its name) and emits one record type over all tables (generated/vars.gen.ts `SessionSlots`; tables dispatch into
 * each other's rows within one session, so a name is one variable whatever table reads it). An unkeyed variable is a
 * plain field of the record; a keyed one a VarStore (var-store.ts) keyed by the rest of the key. Rows read and write
 * the slots directly; what reads a variable by name at run time (`closeOpen`'s statusVar, hold rows) goes through
 * the same record.
 *
 * Bounded: a session's keyed variables keep at most 2 × VAR_LIMIT values in all (the VAR_LIMIT most recently used
 * always survive: one bound over every store, var-store.ts VarBudget); unkeyed variables are one value each. At most
 * HOLD_LIMIT messages wait in all.
 */
import { KEYED_VARS, SessionSlots, UNKEYED_VARS } from "../../generated/vars.gen.js";
import { keyOf, VarStore } from "./var-store.js";

export { VAR_LIMIT, VarStore } from "./var-store.js";
export const HOLD_LIMIT = 4096;

/** A message a hold row parked, with what its dispatch needs to run it again. */
export interface Held<T = unknown> { message: any; raw: unknown; line: unknown; meta: unknown; ct: T }

/** Variable keys as text (held messages, warnings): the parts joined with ":". */
export const varKey = (key: readonly unknown[]): string => key.map(String).join(":");

/** A variable named at run time: its slot (a field's name, or a store and the key there). */
type Slot = { field: string } | { store: VarStore; key: string };

export class SessionVars<T = unknown> {
  /** The variables, one slot each. */
  readonly slots = new SessionSlots();
  /**
   * Variables no generated table declares (a table written by hand, or a name given the other arity), by their whole
   * key joined with ":" — bounded like a keyed variable.
   */
  private readonly loose = new VarStore("", this.slots.budget);
  private held = new Map<string, Held<T>[]>();
  /** Messages waiting (a set releases the ones waiting for it only while some wait). */
  heldCount = 0;

  /** Values dropped by the bound, over every keyed variable. */
  get dropped(): number {
    let n = 0;
    for (const s of this.slots.stores) n += s.dropped;
    return n;
  }

  /** Variables held now (each value of a keyed variable counts). */
  get size(): number {
    let n = 0;
    for (const s of this.slots.stores) n += s.size;
    for (const name of UNKEYED_VARS) if (this.field(name) !== undefined) n++;
    return n;
  }

  private field(name: string): unknown {
    return (this.slots as unknown as Record<string, unknown>)[name];
  }

  /** The slot of a key given as its parts (the first is the name). */
  private slot(key: readonly unknown[]): Slot {
    const name = String(key[0]);
    if (key.length === 1 && UNKEYED_VARS.has(name)) return { field: name };
    const store = key.length > 1 && KEYED_VARS.has(name) ? this.field(name) : undefined;
    if (store instanceof VarStore) return { store, key: key.length === 2 ? keyOf(key[1]) : varKey(key.slice(1)) };
    return { store: this.loose, key: varKey(key) };
  }

  /** A variable by its key parts. */
  get(key: readonly unknown[]): unknown {
    const s = this.slot(key);
    return "field" in s ? this.field(s.field) : s.store.get(s.key);
  }

  has(key: readonly unknown[]): boolean {
    const s = this.slot(key);
    return "field" in s ? this.field(s.field) !== undefined : s.store.has(s.key);
  }

  /** Set a variable by its key parts (null or undefined deletes); returns the messages that waited for it, in arrival order. */
  set(key: readonly unknown[], value: unknown): Held<T>[] | undefined {
    const s = this.slot(key);
    if ("field" in s) (this.slots as unknown as Record<string, unknown>)[s.field] = value ?? undefined;
    else s.store.set(s.key, value);
    return this.heldCount !== 0 && value !== null && value !== undefined ? this.release(varKey(key)) : undefined;
  }

  /** The messages waiting for the variable `k` (its key parts joined), taken out of the store; in arrival order. */
  release(k: string): Held<T>[] | undefined {
    const waiting = this.held.get(k);
    if (waiting) {
      this.held.delete(k);
      this.heldCount -= waiting.length;
    }
    return waiting;
  }

  get full(): boolean {
    return this.heldCount >= HOLD_LIMIT;
  }

  /** Park a message until the variable `k` (its key parts joined) is set. */
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
