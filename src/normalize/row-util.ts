/**
 * What the generated row functions call: `arr` (iteration over absent lists does nothing) and the implementations of the
 * DSL's value operators ($join, $str, $text, $tag, $variant, $json, $concat, $add, $list, $find, $uri, $numeric, $merge,
 * $type, $number, $string, $integer, $clip, $shell, $entries, $object, $strings, $split, $product, $round) and tests
 * (sameAs, atLeast). Pure; never throw on provider data; undefined when there is nothing to say.
 */
import { isoTime } from "./iso-time.js";

/** `$uri`: a string (or finite number) encoded as one URI component (`/` and `?` escaped), else undefined. */
export function uri(x: unknown): string | undefined {
  const s = str(x);
  return s === undefined ? undefined : encodeURIComponent(s);
}

/** `$numeric`: a string that is a canonical integer of up to 16 digits (`0`, `42`; not `042`, `-1`, `1e3`) as a number, anything else as is. */
export function numeric(x: unknown): unknown {
  return typeof x === "string" && /^(0|[1-9]\d{0,15})$/.test(x) ? Number(x) : x;
}

/** `$merge`: the objects' own fields, later ones winning (values that are not plain objects count as `{}`). */
export function merge(...xs: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const x of xs) if (x && typeof x === "object" && !Array.isArray(x)) Object.assign(out, x);
  return out;
}

/** `$type`: "string", "number", "boolean", "array", "object" or "null"; undefined when absent. */
export function typeOf(x: unknown): string | undefined {
  if (x === undefined) return undefined;
  if (x === null) return "null";
  if (Array.isArray(x)) return "array";
  const t = typeof x;
  return t === "string" || t === "number" || t === "boolean" || t === "object" ? t : undefined;
}

/** An object with its undefined fields left out (an answer's object expressions: absent means not sent). */
export function compact<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * A provider value as a row reads it where the upstream schema says nothing of its shape (an open value, an input
 * line, a list element of unknown type): any field or index may be read, each again such a value (absent fields read
 * as undefined at run time), and it may be compared with a constant or handed to a helper or the runtime, which take
 * `unknown`. What it holds is checked where it is used: helpers and the DSL operators check types, and the runtime
 * validates every event against the canonical schema. Types only: nothing changes at run time.
 */
export type JsonView = undefined | null | JsonFields | (string & OpenFields) | (number & OpenFields) | (boolean & OpenFields);
/** The fields and elements of a JsonView (a primitive's read as undefined at run time). */
export interface OpenFields {
  readonly [key: string]: JsonView;
  readonly [index: number]: JsonView;
}
/** Marks a JsonView object (no value has it): an object literal such as `{}` is not one. */
declare const JSON_VIEW: unique symbol;
/** A JsonView that is an object or an array. */
export interface JsonFields extends OpenFields {
  readonly [JSON_VIEW]: true;
}
/** The elements of the array members of T (never when T has none). */
type ElementOf<T> = T extends readonly (infer E)[] ? E : never;
/** What a row reads a list's elements as: their type when T is an array type, else a JsonView. */
export type Element<T> = 0 extends 1 & T ? JsonView : [ElementOf<T>] extends [never] ? JsonView : ElementOf<T>;
/**
 * What a `$list` reads its elements as: the schema's element type when T is an array type, its other fields read as
 * JsonViews (the tables read the spellings of several versions of a list's entries); else a JsonView.
 */
export type ListElement<T> = 0 extends 1 & T ? JsonView : [ElementOf<T>] extends [never] ? JsonView : NonNullable<ElementOf<T>> & JsonFields;

/**
 * `$list` with `all: true`: every element of a list (strings, numbers and objects alike), read as open values — such a
 * list holds the elements of several versions' spellings, so the schema's element type does not say what a table
 * reads; [] when absent.
 */
export function elements(x: unknown): readonly JsonView[] {
  return Array.isArray(x) ? (x as JsonView[]) : [];
}

/** The value when it is an array, else an empty one (replay over absent lists does nothing). */
export function arr<T>(x: T): readonly Element<T>[] {
  return Array.isArray(x) ? x : [];
}

/** `$join`: a composite key, the parts joined with ":" (undefined when any part is missing). */
export function joinKey(...parts: unknown[]): string | undefined {
  if (parts.some((p) => p === undefined || p === null || (typeof p !== "string" && typeof p !== "number"))) return undefined;
  return parts.map(String).join(":");
}

/** `$str`: a string as is, a finite number as text, else undefined (null becomes "absent"). */
/** `$number`: a finite number, or a (trimmed, non-empty) string holding one, as a number; else undefined. */
export function numberOf(x: unknown): number | undefined {
  if (typeof x === "number") return Number.isFinite(x) ? x : undefined;
  if (typeof x === "string" && x.trim() !== "") {
    const n = Number(x);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** `$integer`: a whole finite number, or a (trimmed, non-empty) string holding one, as a number; else undefined. */
export function integerOf(x: unknown): number | undefined {
  const n = numberOf(x);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** `$clip`: a string of at most 160 characters (a title): a longer one cut to 159 and "…" added; else undefined. */
export function clip(x: unknown): string | undefined {
  if (typeof x !== "string") return undefined;
  return x.length > 160 ? x.slice(0, 159) + "…" : x;
}

/** One argv element quoted for a POSIX shell where it needs it (`ls` stays, `cat a.txt` → `'cat a.txt'`). */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return "'" + arg.replace(/'/g, `'"'"'`) + "'";
}

/**
 * `$shell`: a command as one line: a string as is; a list's strings, each quoted for a POSIX shell where it needs it,
 * joined with spaces (`["bash", "-lc", "ls -la"]` → `bash -lc 'ls -la'`); undefined for a list without strings or
 * anything else.
 */
export function shellLine(x: unknown): string | undefined {
  if (typeof x === "string") return x;
  if (!Array.isArray(x)) return undefined;
  const args = x.filter((a): a is string => typeof a === "string");
  return args.length ? args.map(shellQuote).join(" ") : undefined;
}

/** `$string`: a string as is, else undefined. */
export function stringOf(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}

export function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : typeof x === "number" && Number.isFinite(x) ? String(x) : undefined;
}

/**
 * `$text`: the text of a string or a list, parts joined with `join`. A list's parts are its strings (`strings`), the
 * `text` of its `{type: "text", text}` blocks (`blocks`), or the `text` of objects whose type is "text" or absent
 * (`untypedBlocks`). With `skipEmpty`, an empty string (the value itself, or a string part) counts as absent.
 */
export function text(x: unknown, join: string, items: "strings" | "blocks" | "untypedBlocks", skipEmpty: boolean): string | undefined {
  if (typeof x === "string") return skipEmpty && x === "" ? undefined : x;
  if (!Array.isArray(x)) return undefined;
  const parts: string[] = [];
  for (const p of x) {
    if (items === "strings") { if (typeof p === "string" && !(skipEmpty && p === "")) parts.push(p); }
    else if (p && typeof p === "object" && typeof (p as any).text === "string" && (items === "blocks" ? (p as any).type === "text" : (p as any).type === undefined || (p as any).type === "text")) parts.push((p as any).text);
  }
  return parts.length ? parts.join(join) : undefined;
}

/**
 * `$tag`: the variant name of an externally tagged value: a string as is; an object's first key whose value is an
 * object, else its only key (`{shellToolCall: {…}}` → "shellToolCall", `{acceptWithExecpolicyAmendment: …}` → its key).
 */
export function tagOf(x: unknown): string | undefined {
  if (typeof x === "string") return x;
  if (!x || typeof x !== "object" || Array.isArray(x)) return undefined;
  const keys = Object.keys(x);
  for (const k of keys) { const v = (x as Record<string, unknown>)[k]; if (v && typeof v === "object") return k; }
  return keys.length === 1 ? keys[0] : undefined;
}

/** `$variant`: the value under an externally tagged value's tag (see tagOf). */
export function variantOf(x: unknown): unknown {
  const k = typeof x === "object" ? tagOf(x) : undefined;
  return k === undefined ? undefined : (x as Record<string, unknown>)[k];
}

/**
 * `$json`: the value of a JSON object/array text, or undefined while it is incomplete or not JSON (e.g. a tool input
 * still streaming). Only texts that end like a complete object or array are parsed, so streaming stays linear.
 */
export function json(x: unknown): unknown {
  if (typeof x !== "string" || !/[}\]]\s*$/.test(x)) return undefined;
  try {
    return JSON.parse(x);
  } catch {
    return undefined;
  }
}

/** `$concat`: the parts as one text (parts that are not strings count as ""). */
export function concat(...parts: unknown[]): string {
  let out = "";
  for (const p of parts) if (typeof p === "string") out += p;
  return out;
}

/** `$add`: the sum (values that are not finite numbers count as 0), e.g. a counter in a session variable. */
export function add(...xs: unknown[]): number {
  let n = 0;
  for (const x of xs) if (typeof x === "number" && Number.isFinite(x)) n += x;
  return n;
}

/** `$list`: the elements of a list that are objects (what a $list reshapes); [] when absent. */
export function objects<T>(x: T): ListElement<T>[] {
  return Array.isArray(x) ? x.filter((e) => e !== null && typeof e === "object") : [];
}

/** What a `$list` element becomes when its `where` does not hold: left out (mapObjects, mapElements). */
export const SKIP: unique symbol = Symbol("agentnorm.skip");

/**
 * `$list` with `let` or `index`: each element of a list that is an object, with its position in the list (every
 * element counted), through `f`; what `f` gives, SKIP left out; [] when absent.
 */
export function mapObjects<T, R>(x: T, f: (element: ListElement<T>, index: number) => R | typeof SKIP): R[] {
  const out: R[] = [];
  if (!Array.isArray(x)) return out;
  for (let i = 0; i < x.length; i++) {
    const e = x[i];
    if (e === null || typeof e !== "object") continue;
    const r = f(e, i);
    if (r !== SKIP) out.push(r);
  }
  return out;
}

/** `$list` with `all: true` and `let` or `index`: as mapObjects, over every element (read as open values). */
export function mapElements<R>(x: unknown, f: (element: JsonView, index: number) => R | typeof SKIP): R[] {
  const out: R[] = [];
  if (!Array.isArray(x)) return out;
  for (let i = 0; i < x.length; i++) {
    const r = f(x[i] as JsonView, i);
    if (r !== SKIP) out.push(r);
  }
  return out;
}

/** `$find` with `last: true`: the last element for which `test` holds; undefined when none. */
export function findLast<E>(list: readonly E[], test: (element: E) => boolean): E | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return list[i];
  return undefined;
}

/** `$entries`: an object's own fields as `{key, value}`, in its key order; [] for anything else (a list too). */
export function entries(x: unknown): { key: string; value: JsonView }[] {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return [];
  return Object.entries(x).map(([key, value]) => ({ key, value: value as JsonView }));
}

/**
 * `$object`: a list of `{key, value}` as one object, in order (a later entry of a key replaces its value; a key that
 * is a finite number is its text); entries without a string or number key, or without a value, are left out. `{}`
 * when there are none or the value is not a list.
 */
export function objectOf<V>(list: readonly ({ readonly key?: unknown; readonly value?: V } | null | undefined)[]): Record<string, Exclude<V, undefined>>;
export function objectOf(list: unknown): Record<string, JsonView>;
export function objectOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const e of list) {
    if (e === null || typeof e !== "object") continue;
    const key = str((e as { key?: unknown }).key);
    const value = (e as { value?: unknown }).value;
    if (key !== undefined && value !== undefined) out[key] = value;
  }
  return out;
}

/** `$strings`: a string as a list of it; a list's strings; [] for anything else. */
export function strings(x: unknown): string[] {
  if (typeof x === "string") return [x];
  return Array.isArray(x) ? x.filter((e): e is string => typeof e === "string") : [];
}

/** `$split`: a string's parts between `on` (a string without `on`: one part); undefined for anything else. */
export function split(x: unknown, on: string): string[] | undefined {
  return typeof x === "string" ? x.split(on) : undefined;
}

/** `$product`: the product of the values when every one is a finite number and so is the product; else undefined. */
export function product(...xs: unknown[]): number | undefined {
  let n = 1;
  for (const x of xs) {
    if (typeof x !== "number" || !Number.isFinite(x)) return undefined;
    n *= x;
  }
  return Number.isFinite(n) ? n : undefined;
}

/** `$round`: a finite number divided by `unit` and rounded to the nearest whole number (halves up); else undefined. */
export function round(x: unknown, unit: number): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? Math.round(x / unit) : undefined;
}

/** The `sameAs` test: `a` is present (neither undefined nor null) and the same value (===) as `b`. */
export function same(a: unknown, b: unknown): boolean {
  return a !== undefined && a !== null && a === b;
}

/** The `atLeast` test: `x` is a number of at least `min`. */
export function atLeast(x: unknown, min: number): boolean {
  return typeof x === "number" && x >= min;
}

/**
 * A provider timestamp as an ISO date-time: a date string, or a number of epoch milliseconds (`s`: seconds).
 * Undefined for anything else, or a date outside years 1970–9999 (so the normalizer's clock gives the time).
 */
export function timeOf(x: unknown, numbers: "ms" | "s"): string | undefined {
  let ms: number;
  if (typeof x === "number") ms = numbers === "s" ? x * 1000 : x;
  else if (typeof x === "string" && x.length >= 10 && /^\d{4}-\d{2}-\d{2}/.test(x)) {
    // already what toISOString writes (UTC, milliseconds): as is, once its date is checked
    if (x === lastText) return x;
    if (ISO_UTC.test(x) && Date.parse(x) > 0 && x < "9999-12-31T23:59:60") return (lastText = x);
    ms = Date.parse(x);
  } else return undefined;
  if (ms === lastMs) return lastIso;
  if (!Number.isFinite(ms) || ms <= 0 || ms >= 253402300800000) return undefined;
  lastMs = ms;
  return (lastIso = isoTime(ms));
}
/** A session id (`sessions:`): the first value that is a non-empty string or a finite number; else undefined. */
export function firstId(...xs: unknown[]): string | number | undefined {
  for (const x of xs) if ((typeof x === "string" && x !== "") || (typeof x === "number" && Number.isFinite(x))) return x;
  return undefined;
}

/** Session ids read on each element of a list (`sessions: children: { each }`): the elements' ids that are one. */
export function eachId(list: unknown, read: (element: JsonView) => unknown): (string | number)[] {
  const out: (string | number)[] = [];
  if (Array.isArray(list)) for (const x of list) { const id = firstId(read(x)); if (id !== undefined) out.push(id); }
  return out;
}
/** Every session id of the values (each an id, or a list of them from eachId): a message's children. */
export function allIds(...xs: unknown[]): (string | number)[] {
  const out: (string | number)[] = [];
  for (const x of xs) for (const v of Array.isArray(x) ? x : [x]) { const id = firstId(v); if (id !== undefined) out.push(id); }
  return out;
}

/** The last number and text converted (consecutive messages often carry the same time). */
let lastMs = NaN;
let lastIso: string | undefined;
let lastText: string | undefined;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A generated row's reused variable lookup not read yet (see the generator's emit-mapper). */
export const UNSET: unique symbol = Symbol("agentnorm.unset");
