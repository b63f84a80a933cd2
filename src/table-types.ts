/**
 * The contract between generated mapper tables (generated/mappers/*.gen.ts) and the runtime (src/normalizer.ts).
 * Generated code only calls RowContext; the runtime owns all state.
 */
import type { CanonicalRuntimeEventType, ProviderKind, RuntimeEventPayloadByType, RuntimeEventSource } from "../generated/canonical.gen.js";

export type Kind = "notification" | "request" | "response" | "clientRequest" | "clientNotification" | "clientResponse";
export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";
export type Op = "use" | "open" | "close" | "current" | "mint";

export interface RowContext {
  /** For response kinds: the request message this response answers. */
  readonly request: any;
  /** Resolve a provider id for a role to a canonical id (see mappings/README.md "Identity roles"). */
  ref(role: Role, providerId: unknown, op: Op, space: "server" | "client" | undefined, field: string | undefined, required: boolean): void;
  emit<T extends CanonicalRuntimeEventType>(type: T, payload: RuntimeEventPayloadByType[T]): void;
  /** The role was opened by this row (it was not open before). */
  isNew(role: Role): boolean;
  /** The role's entity was open before this row. */
  wasOpen(role: Role): boolean;
  /** The role's entity was already closed before this row (a late or replayed message about it). */
  isStale(role: Role): boolean;
  /** What the runtime stored for the role's entity (fields of the payloads that opened it). */
  state(role: Role, field: string): any;
  /** Text a snapshot carries whole; only what deltas did not deliver is emitted. */
  snapshot(stream: string, text: unknown, index: number | undefined): void;
  snapshotParts(stream: string, parts: unknown, indexField: "contentIndex" | "summaryIndex" | undefined): void;
  /** Dispatch a synthesized message through the live rows (restored history). */
  replay(message: unknown): void;
}

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
  protocol: "jsonrpc";
  file: string;
  upstream: { package: string; version: string };
  sources: Partial<Record<Kind, RuntimeEventSource>>;
  /** kind → method → rows, tried in order; "*" is the fallback of response kinds. */
  rows: Partial<Record<Kind, Record<string, readonly Row[]>>>;
  /** kind → method → ignore entry id. */
  ignored: Partial<Record<Kind, Record<string, string>>>;
  /** ignore entry id → reason. */
  ignoreReasons: Record<string, string>;
}
