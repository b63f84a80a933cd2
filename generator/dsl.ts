/**
 * The mapping DSL: the TypeScript types of a table file (mappings/<surface>.yaml) as written.
 * `schemas/mapping-dsl.schema.json` is generated from these types (`npm run codegen` writes it; `--check` fails when it
 * is stale), so the YAML structure, the conditions and the steps are validated by the same declaration that the
 * loader (generator/tables.ts) reads. The reference with examples is mappings/README.md.
 */

/** A field path written bare (no `$`): `params.item.id`, `message.content.0.type`, `capture.channel`, `.`. */
export type Path = string;

/**
 * A value expression: a `$path` string, a literal (`$$x` is the literal `$x`), an object or array of expressions, or
 * one operator object: `$map`, `$first`, `$state`, `$id`, `$var`, `$join`, `$literal`, `$str`, `$string`, `$number`,
 * `$integer`, `$clip`, `$shell`, `$text`, `$tag`, `$variant`, `$get`, `$json`, `$concat`, `$add`, `$product`, `$round`,
 * `$list`, `$find`, `$entries`, `$object`, `$strings`, `$split`, `$uri`, `$numeric`, `$merge`, `$type`,
 * `$if` (the lazy conditional: `{ $if: CONDITIONS, then: EXPR, else: EXPR }`), or `$helper` (provider data
 * extraction in mappings/helpers/). `$NAME` reads a named value (`let:`) or an each variable.
 */
export type Expr = unknown;

/** An identity role. `parent` is the item that nested activity hangs under. */
export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";

/** What a row does with an identity: see mappings/README.md "Identities". */
export type Op = "use" | "open" | "close" | "current" | "closeCurrent" | "mint";

/**
 * A test of one value: equals a literal, one of them, present or absent, differs; `sameAs`: present and the same as
 * another expression's value; `atLeast`: a number of at least N.
 */
export type Test = string | number | boolean | null | { in: unknown[] } | { exists: boolean } | { not: unknown } | { sameAs: Expr } | { atLeast: number };

/** A test of a computed value (a session variable, a helper's result…): `value` and exactly one test. */
export interface ValueTest {
  value: Expr;
  equals?: unknown;
  in?: unknown[];
  not?: unknown;
  exists?: boolean;
  sameAs?: Expr;
  atLeast?: number;
}

/**
 * Conditions, all of which must hold. One grammar everywhere (a row's `when`, a step's `if`, an input wrapper's `when`,
 * a `$if` expression): keys are field paths with a test, `$NAME` / `$NAME.field` keys (a named value or an each
 * variable) with a test, the runtime-state words `new`, `open`, `notOpen`, `stale`, `notStale` with a role (only in a
 * step's `if` or a step's expressions), and `$if` for tests of computed values.
 */
export interface Conditions {
  new?: Role;
  open?: Role;
  notOpen?: Role;
  stale?: Role;
  notStale?: Role;
  $if?: ValueTest[];
  [path: string]: Test | Role | ValueTest[] | undefined;
}

/** An identity: a path (shorthand for `{ path }`), `none` (drop a table default), or the long form. */
export type IdSpec =
  | Path
  | "none"
  | {
      /** Where the provider id is; a list is a fallback chain: the first path present. */
      path?: Path | Path[];
      /** An expression for the provider id instead of a path, e.g. `{ $join: [...] }` or `{ $var: [...] }`. */
      value?: Expr;
      op?: Op;
      /** request ids: the id space of the peer that sent the request (default: the row's kind says). */
      space?: "server" | "client";
      /** The provider id is unique only within a turn: key it by the row's canonical turn too (declare `turn` first). */
      scope?: "turn";
    };

export type Ids = { [role in Role]?: IdSpec };

/** Text a message carries whole, emitted only as far as content.delta events did not already deliver it. Give one of `text` and `parts`. */
export interface Snapshot {
  stream: string;
  /** One text. */
  text?: Expr;
  /** A list of texts (strings or `{text}`), one per index (for the indexed streams: reasoning_summary_text, reasoning_text). */
  parts?: Expr;
}

/**
 * Named values (`let:` of a row or a step): each `NAME: EXPR` is computed once, in order (a later one may read an
 * earlier one), and read as `$NAME` (or `$NAME.field`). A row's are computed once its identities are resolved; a
 * step's once the step's `if` holds.
 */
export type Lets = Record<string, Expr>;

/** The steps of a row, run in order. Each step is one of the forms below. */
export type Step = EmitStep | SnapshotStep | SetStep | CloseOpenStep | DispatchStep | EachStep | UpstreamVersionStep;

/** Emit one canonical event. */
export interface EmitStep {
  emit: string;
  payload?: Record<string, unknown>;
  if?: Conditions;
  /**
   * The lifecycle guard of the event type (schemas/canonical/canonical.yaml `lifecycle.*.guards`) applies unless
   * `guard: none` opts out; the step's `if` is added to it.
   */
  guard?: "none";
  let?: Lets;
}

export interface SnapshotStep {
  snapshot: Snapshot;
  if?: Conditions;
  let?: Lets;
}

/** Remember a session variable: its name (a word), then its key parts (joined with `:`); a null value deletes it. */
export interface SetStep {
  set: Expr[];
  value: Expr;
  if?: Conditions;
  let?: Lets;
}

/**
 * Complete every item still open in the row's turn (`completes`: item types that simply end with their turn;
 * `statusVar`: an item whose session variable `<statusVar>:<its provider id>` holds completed | failed | declined ends
 * with that status — the provider said how it ended before its output came).
 */
export interface CloseOpenStep {
  closeOpen: { status: "completed" | "failed" | "declined"; detail?: string; completes?: string[]; statusVar?: string };
  let?: Lets;
}

/**
 * Hand a message to a table's rows: this table's, or `surface`'s. `raw: dispatched` (default): the dispatched message
 * is the events' raw payload and the target's input wrappers are skipped (restored history re-fed as live messages);
 * `raw: original`: the events keep the original input line as raw and the target's input wrappers classify the message.
 */
export interface DispatchStep {
  dispatch: Expr;
  surface?: string;
  raw?: "dispatched" | "original";
  let?: Lets;
}

/** Run `steps` once per element of a list, with the element as `$<as>` (its paths checked) and its position as `$<index>`. */
export interface EachStep {
  each: Expr;
  as: string;
  index?: string;
  steps: Step[];
  let?: Lets;
}

/**
 * The stream says which upstream version produced it (e.g. `claude_code_version` of a session's first message): rows
 * and ignore entries with `versions` apply by the pinned version it selects (see `upstream.reports`), unless the
 * normalizer was told a version (`upstreamVersion` option). A value that is not a string or number is ignored.
 */
export interface UpstreamVersionStep {
  upstreamVersion: Expr;
  if?: Conditions;
  let?: Lets;
}

/**
 * A version range: space-separated comparators that must all hold, each `OP VERSION` with OP one of `>=`, `>`, `<=`,
 * `<`, `=` (none: `=`); VERSION is numbers separated by dots, missing parts count as 0 (`">=0.3"`, `"<0.3"`,
 * `">=0.2.62 <0.3"`, `"0.2.62"`). Compared with the versions the table pins (`upstream.version`, `upstream.versions`).
 */
export type VersionRange = string;

export interface Example {
  name?: string;
  given?: unknown[];
  in: unknown;
  out: { type: string; payload?: Record<string, unknown>; ids?: Role[] }[];
}

export interface Row {
  /** Unique in the file; events carry raw.rule = "<surface>#<rule>". */
  rule: string;
  description?: string;
  /** The message kind (default: the table's `defaults.kind`, else notification / the first kind). */
  kind?: string;
  /** The upstream method or type this row maps, or several; a pattern is a prefix ending in `*` (JSON-RPC). */
  match: string | string[];
  when?: Conditions;
  /** A hold row: the message waits until this session variable is set. A hold row has only match, when and hold. */
  hold?: Expr[];
  /** The pinned upstream versions the row applies to (default: all of them). */
  versions?: VersionRange;
  ids?: Ids;
  let?: Lets;
  steps?: Step[];
  examples?: Example[];
  /**
   * How the host answers the request this row opens (rows that emit request.opened must say: E336): a list of
   * answer cases, the long form (a shared set, the row's default transport), or `{ none: REASON }`.
   */
  answers?: AnswerCase[] | RowAnswers;
}

/** The type a reply field must have (`any`: present, of any type). */
export type ReplyFieldType = "object" | "array" | "string" | "any";

/**
 * One way of answering: for the reply decisions listed, when `when` holds (and, with `transport`, only over that
 * transport), the answer is `body` wrapped in the envelopes of `via` — or answerRequest fails with `fail`.
 * Expressions read the answer's context: `$reply.*`, `$payload.*`, `$args.*`, `$refs.*`, `$requestId`, `$decision`,
 * `$choice` (the provider's word for the decision, from payload.options), `$offered` (the same, or absent).
 */
export interface AnswerCase {
  /** Reply decisions (checked by codegen, E330): allow_once, allow_always, reject_once, reject_always, cancelled, answered, completed, failed, answered_elsewhere. */
  decisions: string[];
  when?: Conditions;
  /** Only over this transport (a name of `answering.transports`). */
  transport?: string;
  /** Reply fields the answer needs, with their type (else answerRequest fails: invalid_reply). */
  reply?: Record<string, ReplyFieldType>;
  /** The envelopes (of `answering.envelopes`) the body goes in: the one of the transport in use. Default: `answering.via`. */
  via?: string | string[];
  body?: Expr;
  /** answerRequest fails with this code and message instead of answering. */
  fail?: { code: "incomplete_request" | "no_matching_choice" | "unsupported_request" | "invalid_reply"; message: string };
}

/** A row's answers, long form: a shared set of cases, the row's own cases (tried first), the row's default transport; or `none` with the reason. */
export interface RowAnswers {
  /** A set of `answering.sets` (tried after the row's own cases). */
  use?: string;
  /** The transport used when the host's options name none (default: the first of `answering.transports`). */
  transport?: string;
  cases?: AnswerCase[];
  /** The request is not answered through agentnorm: why. */
  none?: string;
}

/** An answer envelope: a RequestAnswer `kind` and the answer's other fields, around `$body`. */
export interface AnswerEnvelope {
  /** A RequestAnswer kind (checked by codegen, E331): jsonrpc, http, codex-submission, claude-can-use-tool, claude-elicitation, claude-user-dialog, claude-answered-elsewhere, claude-control-response. */
  kind: string;
  /** The transport it belongs to (a name of `answering.transports`); none: every transport. */
  transport?: string;
  /** The answer's fields besides `kind` (an object of expressions that may read `$body`). */
  answer: Record<string, unknown>;
}

/** How the table's requests are answered (answerRequest): transports, envelopes, shared sets of answer cases. */
export interface Answering {
  /** The answerRequest option that names the transport (`claude`, `opencode`). */
  option?: "claude" | "opencode";
  /** The transports a request can be answered over; the first is the default. */
  transports?: string[];
  envelopes: Record<string, AnswerEnvelope>;
  /** The envelopes a case uses when it names none. */
  via?: string | string[];
  /** Sets of answer cases rows share (`answers: { use: NAME }`). */
  sets?: Record<string, AnswerCase[]>;
}

export interface Ignored {
  kind: string;
  match: string[];
  reason: string;
  /** The pinned upstream versions the entry applies to (default: all of them). */
  versions?: VersionRange;
  /**
   * Only the messages these conditions hold for are ignored (tried after the method's rows): e.g. one subtype of a
   * type that rows map otherwise. Field tests and `$if` only.
   */
  when?: Conditions;
  /**
   * The methods are not in the upstream schema: the provider sends them beside the messages its schema types (opencode's
   * server writes a keep-alive into its event stream that the SDK's Event union does not list). Without it such a
   * method is E214; with it, a method the schema does list is E231. Not a pattern, and no `versions` (nothing of the
   * schema to select by).
   */
  unlisted?: boolean;
}

/** Another upstream version the table covers besides `upstream.version`: its own pinned schema folder. */
export interface PinnedVersion {
  version: string;
  /** The schema folder: the same file names as `upstream.dir` for the kinds with a `file`. */
  dir: string;
  /** The version the stream reports when it is this one (compared with an `upstreamVersion` step's value). */
  reports?: string;
}

export interface InputWrapper {
  name: string;
  when?: Conditions;
  /** Where the message is in the input line ("." for the line itself). */
  message?: Path;
  meta?: Record<string, Path>;
  /** Lines this wrapper matches are ignored, with this reason. */
  ignore?: string;
  /** The kind of the message (for messages with no tag field; JSON-RPC: the kind of the recorded call). */
  kind?: string;
  /** The type (tag value) of the message (for messages with no tag field; JSON-RPC: the recorded call's method). */
  type?: string;
  /** Where the line names the message's type (instead of `type`). */
  typeFrom?: Path;
}

export interface KindSpec {
  file?: string;
  source: string;
  /** tagged protocols: the field of the message that names its type. */
  tag?: string;
  /**
   * tagged protocols: the field (a path) that names a message's subtype, when the upstream schema lists them as an
   * enum (`subtype`, `request.subtype`): each listed subtype must be named by a row's or ignore entry's `when`
   * (an equals or `in` test of that field), or be left to a row or entry of the type that does not test it (E302).
   */
  subtag?: string;
}

export interface Extension {
  name: string;
  package: string;
  version: string;
  dir: string;
  /**
   * Per declared kind: `file` lists more methods of the kind; `source` is the `raw.source` of the events of this
   * extension's methods (default: the kind's). A response kind takes only `source` (for the answers to the extension's requests).
   */
  kinds: Record<string, { file?: string; source?: string }>;
}

export interface MapSpec {
  values: Record<string, string | number | boolean>;
  /** Values that start with a key map to its value (after `values`, the longest prefix first). */
  prefixes?: Record<string, string | number | boolean>;
  default?: string | number | boolean;
}

/** Table-wide defaults: a row's own `kind` / `ids.<role>` replaces the default (`<role>: none` drops it). */
export interface Defaults {
  kind?: string;
  ids?: Ids;
}

/**
 * Where a message carries its own time, which becomes its events' `createdAt`: paths tried in order (the first that
 * holds a valid time wins), on the message, or `meta.<key>` for what the input wrapper extracted. A string is read as
 * a date (ISO 8601); a number as epoch milliseconds, or seconds with `numbers: s`. When none holds a time, the
 * normalizer's clock gives it.
 */
export interface TimeSpec {
  from: Path | Path[];
  numbers?: "ms" | "s";
}

/**
 * The provider's own session (or thread) id a message belongs to. The runtime keeps each session's state apart
 * (entities, the current turn, variables, held messages, the stated upstream version) and gives it its own canonical
 * session id, so sessions interleaved in one stream do not mix. A message that names no session belongs to the session
 * of the last one that did (a JSON-RPC response: to its request's). Each entry is a path on the message (`meta.<key>`:
 * what an input wrapper extracted; in a JSON-RPC table `result.…` reads a response's result, unchecked), optionally for
 * some types or methods only; the first entry that holds a non-empty string or a number wins.
 */
export interface SessionsSpec {
  /** The message's own session id. */
  key: SessionPath | SessionPath[];
  /** The session the message's session belongs to, when the stream first names it (a subagent's parent thread): it joins that session. */
  parent?: SessionPath | SessionPath[];
  /** Sessions the message names as its own session's children (the subagent session a tool runs): when the stream first names them, they join it. */
  children?: SessionPath | SessionPath[];
  /**
   * Types (tagged) or methods (JSON-RPC) of messages saying that their session goes on under a new id the stream has
   * not named yet (Claude's /clear): the next new id the stream names joins their session.
   */
  next?: string | string[];
}

/**
 * A path, or a path read only on messages of these types (tagged) or methods (JSON-RPC; a response: its request's),
 * or (children) read on each element of a list.
 */
export type SessionPath = Path | SessionPathWhen;

export interface SessionPathWhen {
  path: Path;
  match?: string | string[];
  /**
   * `children` only: a list on the message; `path` is read on each of its elements (relative to the element), and
   * every id found is a child (a restored message naming the subagent sessions its tool calls ran).
   */
  each?: Path;
}

/** A mapping table: mappings/<surface>.yaml. */
export interface Table {
  /** The name users pass to --from. */
  surface: string;
  /** The canonical ProviderKind. */
  provider: string;
  /** jsonrpc: JSON-RPC 2.0 messages of both peers; tagged: messages discriminated by a tag field. */
  protocol: "jsonrpc" | "tagged";
  description?: string;
  upstream: {
    package: string;
    version: string;
    dir: string;
    kinds: Record<string, KindSpec>;
    extensions?: Extension[];
    /** The version the stream reports when it is `version` (see `versions[].reports`). */
    reports?: string;
    /** Other upstream versions the same rows cover; rows and ignore entries say which apply with `versions`. */
    versions?: PinnedVersion[];
  };
  /** tagged protocols: wrappers tried in order to find the message inside an input line. */
  input?: InputWrapper[];
  /** How pushLine reports a line that is not JSON (default error; warning for logs mixing text and JSON). */
  nonJsonLines?: "error" | "warning";
  defaults?: Defaults;
  time?: TimeSpec;
  /** Which provider id names a message's session: each session's state is kept apart (absent: the stream is one session). */
  sessions?: SessionsSpec;
  /**
   * A message of one of the table's own kinds (no upstream file) that the runtime maps through the rows once, when
   * the stream ends (`end()`), before it reports what is still open: for tables that decide something only when
   * they know nothing more comes (a transcript's last turn end).
   */
  atEnd?: AtEndSpec;
  /** What tells this surface's messages from another surface's that the rows of both recognise (input detection). */
  detect?: DetectSpec;
  maps?: Record<string, MapSpec>;
  /** How the table's requests are answered (the reverse direction: answerRequest). */
  answering?: Answering;
  rows: Row[];
  ignored?: Ignored[];
  /**
   * The live agents (agentnorm/live, src/live/drivers) whose messages this surface maps: one entry per agent, an agent
   * in one table only (E342). The compatibility matrix lists them ("Live drivers"); test/live-declared.test.ts checks
   * them against the drivers.
   */
  live?: LiveAgentSpec[];
}

/** A live agent that drives this surface: how its driver runs the agent and how it makes each LiveSession call. */
export interface LiveAgentSpec {
  /** The `agent` name `connect()` takes (a key of the drivers, src/live/index.ts DRIVERS). */
  agent: string;
  /**
   * The program the driver runs (its command line, the pinned version it was tested against).
   * @minLength 1
   */
  program: string;
  /**
   * What the messages travel over (stdio JSON-RPC, HTTP + SSE, stream-json lines…).
   * @minLength 1
   */
  transport: string;
  /** Every LiveSession call, each said once (E340: an unknown call; E341: a missing one). */
  calls: LiveCalls;
}

/** The LiveSession calls: how the driver makes each, or `{ none: REASON }` when it does not support it. */
export interface LiveCalls {
  /** Starting the agent and opening (or resuming) a session. */
  connect: LiveCall;
  /** `prompt(text)`: how a prompt is sent (and the turn started). */
  prompt: LiveCall;
  /** `answer(request, reply)`: where the answer to an open request goes. */
  answer: LiveCall;
  /** `cancel()`: the native interrupt. */
  cancel: LiveCall;
  /** `load(id?)`: how a stored session's history is read (and the surface that maps it, when another). */
  load: LiveCall;
  /** `resume(id)` (and the `resume` option): how a stored session is continued. */
  resume: LiveCall;
  /** `setMode(mode)` (and the `permissionMode` option): the agent's mode or approval setting for the coming turns. */
  mode: LiveCall;
  /** `setModel(model)` (and the `model` option): the model for the coming turns. */
  model: LiveCall;
}

/**
 * How a call is made: a short text (`turn/start`, `POST /session/{id}/abort`); or `{ none: REASON }`: the driver does
 * not support the call (the session refuses it), and why.
 */
export type LiveCall = string | LiveCallNone;

export interface LiveCallNone {
  /**
   * Why the driver does not support the call.
   * @minLength 1
   */
  none: string;
}

/**
 * `detect`: top-level fields that only this surface's messages carry among the surfaces whose rows also recognise
 * them (a Claude Code transcript line's `parentUuid`, an SDK message's `parent_tool_use_id`). Detection counts the
 * sampled messages (the line, or the message inside a capture wrapper) holding one of them; when two surfaces
 * recognise as many messages, the one with more such messages wins.
 */
export interface DetectSpec {
  /** @minItems 1 */
  fields: string[];
}

/** `atEnd`: the message `{ <the kind's tag>: match }` is mapped through the rows when the stream ends. */
export interface AtEndSpec {
  /** A kind of the table with no upstream `file` (the table's own messages). */
  kind: string;
  /** The tag value a row of that kind matches. */
  match: string;
}
