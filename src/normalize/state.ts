/**
 * What one normalizer holds, shared by its parts (dispatch, the row Scope, the envelope): the entity store,
 * session variables and held messages, pending JSON-RPC calls, the compiled tables and the stats.
 */
import type { CanonicalEvent } from "../../generated/canonical.gen.js";
import type { Compiled, PendingCalls } from "./compiled.js";
import type { EntityStore } from "./entities.js";
import type { Envelope } from "./envelope.js";
import type { SurfaceTable } from "./table-types.js";
import type { Partition, Sessions } from "./sessions.js";
import type { SessionVars } from "./vars.js";

export type Direction = "in" | "out";

export interface DispatchOptions {
  out: CanonicalEvent[];
  depth: number;
  direction?: Direction;
  /** The table (default: the normalizer's surface). */
  ct?: Compiled;
  /** The raw payload of the events (default: the message). */
  raw?: unknown;
  /** Skip the table's input wrappers (the message was already unwrapped). */
  skipInput?: boolean;
  /** The input line (`$line`; default: raw). */
  line?: unknown;
  meta?: unknown;
  /** The capture wrapper pushLine removed. */
  capture?: unknown;
  /**
   * The message pushed (not one a row dispatched or a hold released): it is routed to its session (a table with
   * `sessions:`) and its outcome is recorded (NormalizerState.outcome).
   */
  top?: boolean;
}

/** A canonical event (`CanonicalEvent<"content.delta">`: the event of one type). */
export type { CanonicalEvent };

export interface NormalizerStats {
  messages: number;
  events: number;
  /**
   * Messages deliberately not mapped: per ignore entry and method (`<surface>#ignored-<kind>-<n>:<method>`; a response
   * to an ignored request under its request's), or per input wrapper that ignores lines (`<surface>#input-<name>`).
   */
  ignored: Record<string, number>;
  /** Messages a row matched that emitted nothing (its guards found nothing new: e.g. a repeated completion), per rule. */
  silent: Record<string, number>;
  /** Messages no row or ignore entry knows (each produced a runtime.warning). */
  unknown: number;
  /** Malformed input (each produced a runtime.error validation_error). */
  invalid: number;
  /** Events per rule. */
  rules: Record<string, number>;
  /**
   * Every message pushed (and every blank line pushLine skipped), counted once by what became of it: `mapped` (it
   * produced events), `ignored` (an ignore entry or input wrapper), `silent` (a row matched and had nothing new to
   * emit: a repeated completion, a variable set), `held` (a hold row parked it: its events come with a later message),
   * `unknown` (a runtime.warning says no row knows it, or that it repeats an answer), `malformed` (a runtime.error
   * validation_error). The sum is the number of messages plus blank lines.
   */
  outcomes: { mapped: number; ignored: number; silent: number; held: number; unknown: number; malformed: number; blank: number };
  /**
   * What the runtime holds now: open entities per role, pending JSON-RPC calls, remembered ids (closed or only
   * named; bounded), session variables (bounded) and how many variables the bound has dropped so far, summed over
   * the canonical sessions the runtime keeps apart (`sessions`: 1 unless the table routes by session id).
   */
  held: { sessions: number; threads: number; turns: number; items: number; requests: number; pendingCalls: number; remembered: number; variables: number; variablesDropped: number };
}

export type Counters = Omit<NormalizerStats, "held">;

export interface NormalizerState {
  /** The active session's state (sessions.ts): swapped when a message of another session is mapped. */
  entities: EntityStore;
  vars: SessionVars<Compiled>;
  /** Every session's state, and which is active. */
  sessions: Sessions<Compiled>;
  /** Make a session's state the active one (its entities, variables, stated versions, canonical session id). */
  activate(p: Partition<Compiled>): void;
  /** The pushed message's outcome when it produced no event: ignored by an entry or wrapper, or held by a hold row. */
  outcome?: "ignored" | "held";
  pending: PendingCalls;
  envelope: Envelope;
  stats: Counters;
  /** The normalizer's own surface table. */
  main: Compiled;
  /** Keep each item's streamed deltas (what a snapshot compares with): false when no table that can run snapshots. */
  recordDeltas: boolean;
  /** A surface's compiled table (dispatch to another surface). */
  table(surface: string): Compiled;
  /** The pinned upstream version of a table in effect now (the table's own unless forced or stated by the stream). */
  versionOf(t: SurfaceTable): string;
  /** What the active session's stream stated as its upstream version, per upstream package (`upstreamVersion` steps). */
  statedVersions: Map<string, string>;
  /** Map a message through a table (rows dispatching again, held messages released). */
  dispatch(m: unknown, o: DispatchOptions): void;
}

export type { SurfaceTable };
