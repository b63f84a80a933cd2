/**
 * The contract between generated mapper tables (generated/mappers/*.gen.ts) and the runtime (src/normalize/normalizer.ts).
 * Generated code only calls RowContext; the runtime owns all state.
 */
import type { CanonicalRuntimeEventType, ProviderKind, RuntimeEventPayloadByType, RuntimeEventSource } from "../../generated/canonical.gen.js";

/** JSON-RPC kinds (notification, request, response, clientRequest, clientNotification, clientResponse), or a tagged protocol's own. */
export type Kind = string;
export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";
export type Op = "use" | "open" | "close" | "current" | "closeCurrent" | "mint";

export interface RowContext {
  /** For response kinds: the request message this response answers. */
  readonly request: any;
  /** Resolve a provider id for a role to a canonical id (see mappings/README.md "Identity roles"). */
  ref(role: Role, providerId: unknown, op: Op, space: "server" | "client" | undefined, field: string | undefined, required: boolean, scope?: "turn"): void;
  emit<T extends CanonicalRuntimeEventType>(type: T, payload: RuntimeEventPayloadByType[T]): void;
  /** The role was opened by this row (it was not open before). */
  isNew(role: Role): boolean;
  /** The role's entity was open before this row. */
  wasOpen(role: Role): boolean;
  /** The role's entity was already closed before this row (a late or replayed message about it). */
  isStale(role: Role): boolean;
  /** The canonical id of the role's entity in this row (`{ $id: task }`), e.g. for task.* payloads. */
  id(role: Role): any;
  /** What the runtime stored for the role's entity (fields of the payloads that opened it). */
  state(role: Role, field: string): any;
  /** Text a snapshot carries whole; only what deltas did not deliver is emitted. */
  snapshot(stream: string, text: unknown, index: number | undefined): void;
  snapshotParts(stream: string, parts: unknown): void;
  /** Dispatch a message through this table (or `surface`'s): the message is the raw payload of its events. */
  replay(message: unknown, surface?: string): void;
  /** Hand a message to another surface's table (wrapped payloads), sharing this normalizer's state. */
  delegate(surface: string, message: unknown): void;
  /** Complete the row turn's open items with `status` (items whose itemType is in `completes`: completed, no detail). */
  closeOpen(status: "completed" | "failed" | "declined", detail: string | undefined, completes?: readonly string[]): void;
  /** Session variables (`set:` / `$var`): key parts joined with ":"; null or undefined deletes. */
  setVar(key: unknown[], value: unknown): void;
  getVar(key: unknown[]): any;
  /** Hold rows: true when the message is held until a row sets the variable `key` (it is unset); false once it is set. */
  hold(key: unknown[]): boolean;
  /** Tagged protocols: the fields the input wrapper extracted (`$meta.x`). */
  readonly meta: any;
  /** The whole input line the message came in (`$line.x`). */
  readonly line: any;
}

/** What a tagged table's input wrappers found in a line. */
export type InputMatch = { wrapper: string; message: unknown; meta?: Record<string, unknown>; kind?: Kind; type?: string } | { ignore: string };

export interface Row {
  /** `<surface>#<rule>`, carried as raw.rule. */
  rule: string;
  /** Source line of the row in its mapping table. */
  line: number;
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
  /** Tagged protocols: finds the message inside an input line (absent: the line is the message). */
  input?: (line: unknown, capture?: unknown) => InputMatch | undefined;
  /** How pushLine reports a line that is not JSON (default "error"; "warning" for logs mixing text and JSON). */
  nonJsonLines?: "error" | "warning";
  upstream: { package: string; version: string };
  sources: Partial<Record<Kind, RuntimeEventSource>>;
  /** kind → method → rows, tried in order; a key ending in "*" is a pattern (a method prefix; "*" matches any),
   *  tried after exact rows and ignore entries, longest prefix first. */
  rows: Partial<Record<Kind, Record<string, readonly Row[]>>>;
  /** kind → method → ignore entry id. */
  ignored: Partial<Record<Kind, Record<string, string>>>;
  /** ignore entry id → reason. */
  ignoreReasons: Record<string, string>;
}
