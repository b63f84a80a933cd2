/**
 * The shape of generated/answers.gen.ts: the tables' answers (`answering:` and each request row's `answers:`,
 * mappings/README.md "Answers"), compiled. Generic: what a request is answered with is the tables' alone.
 */

/** What an answer's expressions read (`$reply`, `$payload`, `$args`, `$refs`, `$requestId`, `$decision`, `$choice`, `$offered`; `$body` in envelopes). */
export interface AnswerContext {
  readonly reply: any;
  readonly payload: any;
  readonly args: any;
  readonly refs: any;
  readonly requestId: string;
  readonly decision: string;
  /** The provider's word for the decision (the request's options, same polarity first); throws no_matching_choice when none. */
  readonly choice: string;
  /** The same, or undefined when the request offers none. */
  readonly offered: string | undefined;
  /** In an envelope: what the case built. */
  body?: any;
}

export type ReplyFieldType = "object" | "array" | "string" | "any";
export type AnswerFailCode = "incomplete_request" | "no_matching_choice" | "unsupported_request" | "invalid_reply";

/** One answer case of a row. */
export interface AnswerCaseData {
  readonly decisions: readonly string[];
  /** Only over this transport. */
  readonly transport?: string;
  readonly when?: (a: AnswerContext) => boolean;
  /** Reply fields the answer needs, with their type. */
  readonly reply?: Readonly<Record<string, ReplyFieldType>>;
  /** The envelopes the body may go in: the first of the transport in use. */
  readonly via?: readonly string[];
  readonly body?: (a: AnswerContext) => unknown;
  readonly fail?: { readonly code: AnswerFailCode; readonly message: string };
  /** Where the case is written (file:line). */
  readonly at: string;
}

/** How the requests one row opens are answered. */
export interface AnswerRowData {
  readonly surface: string;
  readonly provider: string;
  /** The raw.source of the events of the row. */
  readonly source: string;
  /** The request types the row can open. */
  readonly requestTypes: readonly string[];
  /** The row's default transport (else the surface's first). */
  readonly transport?: string;
  /** Not answered through agentnorm: why. */
  readonly none?: string;
  readonly cases: readonly AnswerCaseData[];
  readonly at: string;
}

/** A surface's answer envelopes and transports. */
export interface AnswerSurfaceData {
  /** The answerRequest option that names the transport. */
  readonly option?: string;
  readonly transports: readonly string[];
  readonly envelopes: Readonly<Record<string, { readonly kind: string; readonly transport?: string; readonly answer: (a: AnswerContext) => Record<string, unknown> }>>;
}

export interface AnswerTables {
  readonly surfaces: Readonly<Record<string, AnswerSurfaceData>>;
  /** By raw.rule ("<surface>#<rule>"), in table order (surfaces by name). */
  readonly rows: Readonly<Record<string, AnswerRowData>>;
}
