/**
 * The data a viewer page embeds (`agentnorm view`). Plain JSON; shared by the Node side that builds it
 * (src/view/data.ts) and the page that shows it (src/view/app.ts). No Node APIs.
 */

/** One canonical event as the page sees it: the event minus raw.payload, plus the index of its native message. */
export interface ViewerEvent {
  sequence: number;
  type: string;
  eventId?: string;
  createdAt?: string;
  threadId?: string;
  turnId?: string;
  itemId?: string;
  requestId?: string;
  parentId?: string;
  payload: unknown;
  providerRefs?: Record<string, string>;
  raw?: { source?: string; method?: string; messageType?: string; rule?: string };
  /** Index into ViewerData.natives of the provider message behind this event (absent: none known). */
  native?: number;
}

/** One provider message (a recording's line, a capture's native_in entry, or a canonical event's raw.payload). */
export interface ViewerNative {
  payload: unknown;
  /** 1-based line of the input file, when known. */
  line?: number;
  /** "in" (from the agent) / "out" (from the client), when the input said so. */
  dir?: string;
  /** Sequence numbers of the canonical events it produced. */
  events: number[];
}

/** violation: the verifier (src/verify/verify.ts); error/warning: runtime.error/warning (and the verifier's warnings); unknown: unknown provider input passed through; redaction: listed by a capture; repair: what the accumulator had to repair. */
export type ProblemKind = "violation" | "error" | "warning" | "unknown" | "redaction" | "repair";
export const PROBLEM_KINDS: readonly ProblemKind[] = ["violation", "error", "warning", "unknown", "redaction", "repair"];

export interface ViewerProblem {
  kind: ProblemKind;
  /** The event it is about (absent: the stream as a whole). */
  sequence?: number;
  message: string;
}

/** One card of the transcript pane. */
export interface TranscriptBlock {
  /** Stable identity (the canonical item/request/task id, or a synthetic one). */
  id: string;
  kind: "user" | "text" | "thinking" | "tool" | "permission" | "question" | "request" | "plan" | "diff" | "task" | "usage" | "status" | "notice" | "error";
  /** What the card is, for its header (permission/question/request cards: named from the canonical request type). */
  label?: string;
  /** Canonical item type, request type… (what the card is about, for its header). */
  subtype?: string;
  title?: string;
  /** Lifecycle state: pending | running | completed | failed | declined | open | resolved | … */
  status?: string;
  text?: string;
  input?: unknown;
  output?: string;
  durationMs?: number;
  /** Permission/question resolution (decision, answers). */
  resolution?: unknown;
  /** A request's canonical options (request.opened payload.options), in the order offered. */
  options?: { decision: string; label?: string }[];
  /** A request's canonical decision (request.resolved payload.decision). */
  decision?: string;
  /** A runtime error the provider says it retries (shown as a warning). */
  retrying?: boolean;
  plan?: { step: string; status: string }[];
  diff?: string;
  /** Everything else worth showing (the item's data). */
  detail?: unknown;
  /** Sequence numbers of the events this block was built from, ascending. */
  seqs: number[];
  children?: TranscriptBlock[];
}

export interface TranscriptTurn {
  id: string;
  /** 1-based position. */
  index: number;
  state?: string;
  seqs: number[];
  blocks: TranscriptBlock[];
}

export interface TranscriptView {
  /** What built it: the accumulator (src/render/accumulator.ts). */
  source: "accumulator";
  /** What the accumulator had to repair (out-of-order, completion without start, …), by sequence. */
  repairs: { sequence?: number; message: string }[];
  /** Blocks outside any turn (session setup, warnings before the first turn, …). */
  preamble: TranscriptBlock[];
  turns: TranscriptTurn[];
}

export interface ViewerData {
  meta: {
    title: string;
    /** What the input was: a native recording, a canonical stream or a capture file. */
    input: "native" | "canonical" | "capture";
    surface?: string;
    provider?: string;
    generator: string;
    /** Whether the verifier (src/verify/verify.ts) ran: its violations and warnings are among the problems. */
    verified: boolean;
    /** A capture input's line counts, as `agentnorm capture check` reports them. */
    capture?: CaptureSummary;
    /** Present when the page shows only part of the stream (its cap): what it shows and what it leaves out. */
    cut?: ViewerCut;
  };
  events: ViewerEvent[];
  natives: ViewerNative[];
  transcript: TranscriptView;
  problems: ViewerProblem[];
}

/** What `agentnorm capture check` counts in a capture file. */
export interface CaptureSummary {
  /** "fixture" (sanitized: no captureId) or "capture". */
  kind: "fixture" | "capture";
  /** Lines with content. */
  lines: number;
  /** Valid records. */
  records: number;
  /** Records per stage. */
  stages: Record<string, number>;
  /** Redactions listed by all records (every stage). */
  redactions: number;
  /** Unreadable or invalid lines. */
  problems: number;
}

/**
 * A page that shows part of its stream (`agentnorm view --max-mb / --turns`): the last turns whose input fits the
 * cap. Everything left out is counted here; the page's problems are those of what it shows.
 */
export interface ViewerCut {
  /** The cap in input characters (absent: only a turn limit). */
  maxBytes?: number;
  /** The turn limit, when one was given. */
  maxTurns?: number;
  /** Input lines read (with content), and the first line the page shows after what it left out. */
  lines: number;
  fromLine?: number;
  /** Turns the stream started, and turns the page shows. */
  turns: { total: number; shown: number };
  /** Left out: whole turns; events, provider messages and input characters (those of a partly shown turn too); and the problems among them, by kind. */
  left: { turns: number; events: number; natives: number; chars: number; problems: Partial<Record<ProblemKind, number>> };
  /** A turn larger than the cap alone: its turn.started and its last events are shown, this many events between them are not. */
  partial?: { turnId?: string; events: number };
}
