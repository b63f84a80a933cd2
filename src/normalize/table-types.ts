/**
 * The contract between generated mapper tables (generated/mappers/*.gen.ts) and the runtime (src/normalize/normalizer.ts).
 * Generated code only calls RowContext; the runtime owns all state.
 */
import type { CanonicalRuntimeEventType, ProviderKind, RuntimeEventPayloadByType, RuntimeEventSource } from "../../generated/canonical.gen.js";
import type { JsonView } from "./row-util.js";
import type { SessionSlots, UnkeyedVar } from "../../generated/vars.gen.js";
import type { VarStore } from "./var-store.js";

/** JSON-RPC kinds (notification, request, response, clientRequest, clientNotification, clientResponse), or a tagged protocol's own. */
export type Kind = string;
export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";
export type Op = "use" | "open" | "close" | "current" | "closeCurrent" | "mint";

/** An identity a row resolves: the role, what the row does with it, and how its provider id is read. */
export interface IdRef {
  readonly role: Role;
  readonly op: Op;
  /** request ids: the id space of the peer that sent the request. */
  readonly space?: "server" | "client";
  /** Where the provider id was read (for the problem reported when it is missing or not an id). */
  readonly field?: string;
  /** The id must be there (the upstream schema requires it): a missing one is a problem. */
  readonly required?: boolean;
  /** The provider id is unique only within a turn. */
  readonly scope?: "turn";
}

export interface RowContext {
  /** For response kinds: the request message this response answers. */
  readonly request: JsonView;
  /** Resolve a provider id for a role to a canonical id (see mappings/README.md "Identities"). */
  ref(id: IdRef, providerId?: unknown): void;
  emit<T extends CanonicalRuntimeEventType>(type: T, payload: RowPayload<RuntimeEventPayloadByType[T]>): void;
  /** The role was opened by this row (it was not open before). */
  isNew(role: Role): boolean;
  /** The role's entity was open before this row. */
  wasOpen(role: Role): boolean;
  /** The role's entity was already closed before this row (a late or replayed message about it). */
  isStale(role: Role): boolean;
  /** The canonical id of the role's entity in this row (`{ $id: task }`), e.g. for task.* payloads. */
  id(role: Role): string | undefined;
  /** What the runtime stored for the role's entity (fields of the payloads that opened it). */
  state(role: Role, field: string): JsonView;
  /** Text a snapshot carries whole; only what deltas did not deliver is emitted. */
  snapshot(stream: string, text: unknown, index: number | undefined): void;
  snapshotParts(stream: string, parts: unknown): void;
  /** Dispatch a message through this table (or `surface`'s): the message is the raw payload of its events. */
  replay(message: unknown, surface?: string): void;
  /** Hand a message to another surface's table (wrapped payloads), sharing this normalizer's state. */
  delegate(surface: string, message: unknown): void;
  /** Complete the row turn's open items with `status` (items whose itemType is in `completes`: completed, no detail). */
  closeOpen(status: "completed" | "failed" | "declined", detail: string | undefined, completes?: readonly string[], statusVar?: string): void;
  /**
   * Session variables (`set:` / `$var`) in slots (generated/vars.gen.ts): an unkeyed variable is a field of `vars`,
   * a keyed one a store keyed by the rest of its key (one part as is; several joined with ":"). Null or undefined
   * deletes.
   */
  readonly vars: SessionSlots;
  setVar(name: UnkeyedVar, value: unknown): void;
  setVarIn(store: VarStore, key: unknown, value: unknown): void;
  /** Append texts to a keyed variable's text (a `set` whose value is `$concat` of that variable first). */
  appendVarIn(store: VarStore, key: unknown, ...parts: unknown[]): void;
  /** A variable by its key parts, the first its name (what a helper, a hand-written table or the runtime names at run time). */
  getVar(key: readonly unknown[]): unknown;
  setVarNamed(key: readonly unknown[], value: unknown): void;
  /** Hold rows: true when the message is held until a row sets the variable `key` (it is unset); false once it is set. */
  hold(key: unknown[]): boolean;
  /** The stream says which upstream version it is (`upstreamVersion` step): selects the pinned version rows apply by. */
  upstreamVersion(stated: unknown): void;
  /** Tagged protocols: the fields the input wrapper extracted (`$meta.x`). */
  readonly meta: JsonView;
  /** The whole input line the message came in (`$line.x`). */
  readonly line: JsonView;
}

/** The declared keys of an object type (not its index signature). */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 };
/** Every declared key of any member of a union. */
type UnionKeys<T> = T extends unknown ? KnownKeys<T> : never;
/** The value at `K` in each member of a union (undefined for a member without `K`). */
type UnionValue<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : undefined) : never;
/** The value type of the members' string index signatures (never when none has one). */
type IndexValue<T> = T extends unknown ? (string extends keyof T ? T[string] : never) : never;
type ObjectPart<T> = Exclude<Extract<T, object>, readonly unknown[]>;
type ArrayPart<T> = Extract<T, readonly unknown[]>;
type Has<T> = [T] extends [never] ? false : true;
/** The object members merged: every declared key optional; an index signature if any member has one. */
type Merged<O> = { readonly [K in UnionKeys<O>]?: View<UnionValue<O, K>> } & (Has<IndexValue<O>> extends true ? { readonly [key: string]: View<IndexValue<O>> } : unknown);
/** The declared keys of the elements of T's array members. */
type ElementKeys<T> = UnionKeys<ObjectPart<ArrayPart<T>[number]>>;
/** Reading any of `K` gives undefined. */
type Absent<K extends PropertyKey> = { readonly [P in K]?: undefined };

/**
 * A message as a generated row reads it, so that tsc checks every field a row reads against the upstream types.
 * The object members of a union are merged into one object type with every member's declared keys, all optional (a
 * row reads the fields of whichever member arrived, always with `?.`), recursively through nested objects and
 * arrays. Where a value may be a primitive, an object or an array, each part also reads the others' keys (and
 * indexes) as undefined, as they do at run time: `content?.[0]?.type` of a string-or-blocks value type-checks and
 * the string part still compares with a string. A value the schema leaves open (`unknown`, an open object's other
 * keys) reads as a JsonView: any key of it may be read, as codegen's own path check treats it. Types only: nothing
 * changes at run time.
 */
export type View<T> = unknown extends T
  ? JsonView
  : Has<ObjectPart<T> | ArrayPart<T>> extends false
    ? T
    :
        | Extract<T, null | undefined>
        | (Exclude<T, object | null | undefined> & Absent<UnionKeys<ObjectPart<T>> | ElementKeys<T>> & { readonly [index: number]: Absent<ElementKeys<T>> | undefined })
        | (Has<ArrayPart<T>> extends true ? readonly View<ArrayPart<T>[number]>[] & Absent<UnionKeys<ObjectPart<T>>> : never)
        | (Has<ObjectPart<T>> extends true ? Merged<ObjectPart<T>> & (Has<ArrayPart<T>> extends true ? { readonly [index: number]: Absent<ElementKeys<T>> | undefined } : unknown) : never);

/**
 * A canonical payload as a row builds it from message fields: any field may be absent or null and arrays may be
 * readonly, and a string, number or boolean field takes any string, number or boolean; any field takes a value the
 * upstream schema leaves open (a JsonView). The event is checked when it is made (the runtime validates every event
 * against the canonical schema and turns a bad one into a runtime.error), and table constants are checked by
 * codegen; tsc checks the payload's keys and shapes.
 */
export type RowPayload<P> = { readonly [K in keyof P]?: RowValue<P[K]> };
type RowValue<V> =
  | null
  | undefined
  | JsonView
  | (V extends string ? string : V extends number ? number : V extends boolean ? boolean : V extends readonly (infer E)[] ? readonly RowValue<E>[] : V extends object ? RowPayload<V> : V);

/**
 * The members of the union `T` whose tag field `K` is `V` (a row's message type); all of `T` when no member spells
 * that tag as a literal (a kind without a schema, or a tag the types leave open).
 */
export type Member<T, K extends PropertyKey, V> = Has<Extract<T, { readonly [P in K]?: V }>> extends true ? Extract<T, { readonly [P in K]?: V }> : T;

/**
 * Which provider session a message belongs to (a table's `sessions:`): its own session id, the session it belongs to
 * when first named (a subagent's parent), a session it names as its child (a subagent's) — values read from the
 * message, not yet checked: the runtime takes non-empty strings and finite numbers — and whether it says its session
 * goes on under the next new id (`next`).
 */
export interface SessionRoute { key?: unknown; parent?: unknown; children?: unknown; next?: boolean }

/** What an input wrapper found: the message (its kind and type when the line names them: `type` is read from the line with `typeFrom`, so unchecked), or an ignore entry. */
export type InputMatch = { wrapper: string; message: unknown; meta?: Record<string, unknown>; kind?: Kind; type?: unknown } | { ignore: string };

export interface Row {
  /** `<surface>#<rule>`, carried as raw.rule. */
  rule: string;
  /** Source line of the row in its mapping table. */
  line: number;
  /** The pinned upstream versions the row applies to (absent: all). */
  versions?: readonly string[];
  /** Returns false when the row's `when` does not hold (the next row is tried). */
  run(message: any, cx: RowContext): boolean;
}

export interface SurfaceTable {
  surface: string;
  provider: ProviderKind;
  protocol: "jsonrpc" | "tagged";
  file: string;
  /** kind → the field that names a message's type (`method` for JSON-RPC). */
  tags: Record<Kind, string>;
  /**
   * Finds the message inside an input line (absent: the line is the message). Tagged: undefined = no wrapper matches (a
   * warning). JSON-RPC: a recorded call without its envelope, named by `kind` and `type` (its method); undefined = the
   * line is a JSON-RPC message.
   */
  input?: (line: JsonView, capture?: unknown) => InputMatch | undefined;
  /** How pushLine reports a line that is not JSON (default "error"; "warning" for logs mixing text and JSON). */
  nonJsonLines?: "error" | "warning";
  /** The table's own message mapped through its rows when the stream ends (`atEnd:`): its kind and tag value. */
  atEnd?: { kind: string; method: string };
  /** Top-level fields only this surface's messages carry among the surfaces whose rows also recognise them (`detect:`). */
  detectFields?: readonly string[];
  /**
   * The provider session a message belongs to (`sessions:`): the runtime keeps each session's state apart. Absent: the
   * stream is one session. `method` is the message's type (tagged) or method (JSON-RPC; a response's: its request's).
   */
  session?: (message: any, cx: { readonly meta: any; readonly method: string }) => SessionRoute;
  /** The time a message carries (its events' createdAt), as an ISO date-time; undefined when it carries none. */
  time?: (message: any, cx: { readonly meta: any }) => string | undefined;
  /**
   * The pinned upstream: `version` is in effect until the stream says otherwise. A table covering several versions
   * lists them all in `versions` (with what a stream of that version reports).
   */
  upstream: { package: string; version: string; versions?: readonly { version: string; reports?: string }[] };
  sources: Partial<Record<Kind, RuntimeEventSource>>;
  /** kind → method → the raw.source of an extension's methods (upstream.extensions), where it is not the kind's. */
  methodSources?: Partial<Record<Kind, Readonly<Record<string, RuntimeEventSource>>>>;
  /** kind → method → rows, tried in order; a key ending in "*" is a pattern (a method prefix; "*" matches any),
   *  tried after exact rows and ignore entries, longest prefix first. */
  rows: Partial<Record<Kind, Record<string, readonly Row[]>>>;
  /**
   * kind → method → the rows that can match a message (compiled dispatch: a switch on the field the method's rows
   * test), a part of `rows[kind][method]` in its order. Methods not listed: all their rows are tried.
   */
  picks?: Partial<Record<Kind, Record<string, (message: any) => readonly Row[]>>>;
  /** kind → method → ignore entry id. */
  ignored: Partial<Record<Kind, Record<string, string>>>;
  /** ignore entry id → reason. */
  ignoreReasons: Record<string, string>;
  /** ignore entry id → the pinned versions it applies to (entries not listed: all). */
  ignoreVersions?: Record<string, readonly string[]>;
  /**
   * false: no row of this table, nor of a table its rows dispatch to (transitively), takes a snapshot, so the
   * runtime keeps no record of the deltas an item streamed (what a snapshot compares with). Absent: it does.
   */
  snapshots?: false;
  /** ignore entry id → the test a message must pass to be ignored by it (entries not listed: every message of the method). */
  ignoreWhen?: Record<string, (message: any, cx: { readonly vars: SessionSlots }) => boolean>;
}
