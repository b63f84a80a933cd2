/**
 * The generator's IR: what the table stage (tables.ts, rows.ts, expressions.ts, answers.ts, live.ts) makes of a
 * mapping table and what the emitters read, and the walks over its expressions. Types and pure functions only; the
 * stages and emitters import it, it imports none of them.
 */
import type { CanonicalModel } from "./canonical.ts";
import type { Kind, UpstreamSchemas } from "./upstream.ts";
import type { LiveDriverEntry } from "../src/model/matrix.ts";

export type Role = "session" | "thread" | "turn" | "item" | "request" | "task" | "parent";
export type Op = "use" | "open" | "close" | "current" | "closeCurrent" | "mint";

export type Expr =
  | { k: "path"; root: string; segs: string[] }
  | { k: "lit"; v: unknown }
  | { k: "map"; name: string; from: Expr; def?: unknown }
  | { k: "helper"; name: string; args: Expr[]; module?: string }
  | { k: "first"; items: Expr[] }
  | { k: "state"; role: Role; field: string }
  | { k: "obj"; entries: [string, Expr][] }
  | { k: "arr"; items: Expr[] }
  | { k: "var"; key: Expr[] }
  | { k: "id"; role: Role }
  | { k: "join"; items: Expr[] }
  /** Table features over values (implemented in src/normalize/row-util.ts; see mappings/README.md "Value expressions"). */
  | { k: "str"; of: Expr }
  | { k: "text"; of: Expr; join: string; items: "strings" | "blocks" | "untypedBlocks"; skipEmpty: boolean }
  | { k: "tag"; of: Expr }
  | { k: "variant"; of: Expr }
  | { k: "get"; of: Expr; segs: string[] }
  | { k: "json"; of: Expr }
  | { k: "concat"; items: Expr[] }
  | { k: "add"; items: Expr[] }
  | { k: "uri"; of: Expr }
  | { k: "numeric"; of: Expr }
  | { k: "type"; of: Expr }
  | { k: "merge"; items: Expr[] }
  /**
   * `$list`: each element as `as` (its position as `index`), its named values (`lets`, computed per element before
   * `where`), kept when `where` holds, becomes `to`.
   */
  | { k: "list"; of: Expr; as: string; to: Expr; where: Cond[]; all?: boolean; index?: string; lets?: LetIR[] }
  /** `$find`: the first (`last`: the last) element for which `where` holds. */
  | { k: "find"; of: Expr; as: string; where: Cond[]; all?: boolean; last?: boolean }
  /** `$entries`: an object's fields as `{key, value}`; `$object`: such a list as an object; `$strings`: a string or a list's strings as a list. */
  | { k: "entries"; of: Expr }
  | { k: "object"; of: Expr }
  | { k: "strings"; of: Expr }
  /** `$split`: a string's parts between `on`. */
  | { k: "split"; of: Expr; on: string }
  /** `$product`: the product of finite numbers; `$round`: a finite number divided by `unit`, rounded. */
  | { k: "product"; items: Expr[] }
  | { k: "round"; of: Expr; unit: number }
  /** The lazy conditional: `then` when every condition holds, else `else` (only the taken branch is evaluated). */
  | { k: "if"; cond: Cond[]; then: Expr; else?: Expr }
  /** Typed reads: a finite number (or a string holding one); a string. */
  | { k: "number"; of: Expr }
  | { k: "string"; of: Expr }
  /** An integer (a finite number or a string holding one, whole); a string clipped to a title's length; a command as one shell line. */
  | { k: "integer"; of: Expr }
  | { k: "clip"; of: Expr }
  | { k: "shell"; of: Expr };

/** A named value (`let:` of a row or a step): computed once where it is declared, read as `$name`. */
export interface LetIR { name: string; value: Expr }

export type Cond =
  | { k: "eq"; path: Expr; value: unknown }
  | { k: "in"; path: Expr; values: unknown[] }
  | { k: "exists"; path: Expr; exists: boolean }
  | { k: "not"; path: Expr; value: unknown }
  /** The value is present (not null) and the same (===) as the other expression's. */
  | { k: "same"; path: Expr; other: Expr }
  /** The value is a number of at least `min`. */
  | { k: "atLeast"; path: Expr; min: number }
  | { k: "state"; test: "new" | "open" | "notOpen" | "stale" | "notStale"; role: Role };

export interface IdIR { role: Role; op: Op; path?: Expr; field?: string; required: boolean; space?: "server" | "client"; scope?: "turn" }
export interface SnapIR { stream: string; text?: Expr; parts?: Expr }
/** A row's steps, run in order. */
export type StepIR = (
  | { k: "emit"; type: string; cond: Cond[]; payload: Expr; line: number }
  | { k: "snapshot"; snap: SnapIR; cond: Cond[] }
  | { k: "set"; key: Expr[]; value: Expr; cond: Cond[] }
  | { k: "closeOpen"; status: string; detail?: string; completes?: string[]; statusVar?: string }
  | { k: "dispatch"; message: Expr; surface?: string; raw: "dispatched" | "original"; line: number }
  | { k: "each"; each: Expr; as: string; index?: string; steps: StepIR[] }
  | { k: "upstreamVersion"; value: Expr; cond: Cond[] }
) & {
  /** The step's named values (`let:`), computed once the step's condition holds, before the step runs. */
  lets?: LetIR[];
};
export interface InputIR { name: string; when: Cond[]; message?: Expr; meta: [string, Expr][]; ignore?: string; line: number; kind?: string; type?: string; typeFrom?: Expr }
export interface ExampleIR { name: string; line: number; given: unknown[]; input: unknown; out: { type: string; payload?: unknown; ids?: Role[] }[] }
export interface RowIR {
  rule: string; kind: Kind; methods: string[]; line: number; description?: string;
  when: Cond[]; ids: IdIR[]; steps: StepIR[]; examples: ExampleIR[];
  /** The row's named values (`let:`), computed in order once its identities are resolved, before its steps. */
  lets?: LetIR[];
  /** A hold row: the session variable the message waits for. */
  hold?: Expr[];
  /** The pinned upstream versions the row applies to (`versions:`); absent: all of them. */
  versions?: string[];
  /** A row that opens a request (emits request.opened): what it says about the request, and how it is answered. */
  request?: RequestOpenIR;
  answers?: RowAnswersIR;
}
/** `unlisted`: methods the upstream schema does not list (the provider sends them beside the typed ones). */
export interface IgnoredIR { id: string; kind: Kind; methods: string[]; reason: string; line: number; versions?: string[]; when?: Cond[]; unlisted?: boolean }
export interface MapIR { name: string; values: Record<string, unknown>; def?: unknown; line: number; prefixes?: Record<string, unknown> }
/** `extraFiles`: method files of upstream.extensions for this kind (their folder, relative to the project root). */
export interface KindIR {
  kind: Kind; source: string; file?: string; tag: string; upstreamMethods?: string[]; extraFiles?: { dir: string; file: string; extension: string }[]; methodSources?: Record<string, string>;
  /** The field naming a message's subtype (`upstream.kinds.<kind>.subtag`). */
  subtag?: string;
  /** With a subtag: per pinned version, the subtypes the schema lists and how many rows / ignore entries account for. */
  subtypeCoverage?: Record<string, { total: number; mapped: number; ignored: number; missing: number }>;
  /** Tables pinning several versions: the kind's methods at each pinned version (upstreamMethods: their union). */
  versionMethods?: Record<string, string[]>;
}
/** Another pinned upstream version of a table (`upstream.versions`). */
export interface PinnedVersionIR { version: string; dir: string; reports?: string }
export interface ExtensionIR { name: string; package: string; version: string; dir: string }
export interface TableIR {
  file: string; surface: string; provider: string; protocol: "jsonrpc" | "tagged";
  upstream: { package: string; version: string; dir: string; extensions?: ExtensionIR[]; reports?: string; versions?: PinnedVersionIR[] };
  kinds: KindIR[]; maps: MapIR[]; rows: RowIR[]; ignored: IgnoredIR[];
  /** tagged protocols: how to find the message inside an input line, tried in order. */
  input: InputIR[];
  nonJsonLines: "error" | "warning";
  /** Where a message carries its own time (paths on the message, or `meta.<key>`), first that holds one. */
  time?: TimeIR;
  /** Which provider id names a message's session (`sessions:`). */
  sessions?: SessionsIR;
  /** The message mapped when the stream ends (`atEnd:`): its kind and tag value. */
  atEnd?: { kind: string; method: string };
  /** Top-level fields only this surface's messages carry (`detect:`), for input detection. */
  detectFields?: string[];
  /** How the table's requests are answered (`answering:`). */
  answering?: AnsweringIR;
  /** The live agents that drive this surface (`live:`). */
  live?: LiveIR[];
}
export interface TimeIR { from: (Expr & { k: "path" })[]; numbers: "ms" | "s"; line: number }

/** `sessions:`: per part, the paths tried in order, each for some types / methods only (`match`) or for all. */
export interface SessionPathIR { path: Expr & { k: "path" }; match?: string[]; /** children: `path` is read on each element of this list (root `el`). */ each?: Expr & { k: "path" } }
export interface SessionsIR { key: SessionPathIR[]; parent: SessionPathIR[]; children: SessionPathIR[]; next: string[]; line: number }

export interface TableContext {
  canonical: CanonicalModel;
  dslSchema: object;
  /** The helpers rows may call (`$helper`): name → accepted argument counts. */
  helpers: Map<string, { min: number; max: number; module?: string }>;
  /** Where the helpers are (for messages). */
  helperFile: string;
  /** Filled with the helpers the tables call (the pipeline reports unused ones). */
  usedHelpers: Set<string>;
  /** Opens the upstream schema folder named by a table (relative to the project root). */
  upstream: (dir: string) => UpstreamSchemas | undefined;
}

export interface AnswerCaseIR {
  decisions: string[];
  when: Cond[];
  transport?: string;
  reply: [string, "object" | "array" | "string" | "any"][];
  via: string[];
  body?: Expr;
  fail?: { code: string; message: string };
  line: number;
}
export interface RowAnswersIR {
  none?: string;
  transport?: string;
  /** The row's own cases, then those of the set it uses. */
  cases: AnswerCaseIR[];
  /** The set of `answering.sets` it uses (its cases are the tail of `cases`, after the row's own `own`). */
  use?: string;
  own: number;
  line: number;
}
export interface AnswerEnvelopeIR { name: string; kind: string; transport?: string; answer: Expr; line: number }
export interface AnsweringIR { option?: string; transports: string[]; envelopes: AnswerEnvelopeIR[]; via: string[]; line: number }

/** A row's request: what its (first) request.opened emit says. */
export interface RequestOpenIR {
  /** The request types it can open (from a literal, or the outputs of the maps it names); all of them when unknown. */
  requestTypes: string[];
  /** The keys of its `args`, when args is written as an object; undefined when any key may be there. */
  argsKeys?: string[];
}

/** A table's live agent: the matrix entry and where it is declared. */
export interface LiveIR extends LiveDriverEntry { line: number }

/** A JavaScript identifier: a property an emitted access may write with a dot. */
export const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The expressions directly inside an expression. */
export function subExprs(e: Expr): Expr[] {
  switch (e.k) {
    case "helper": return e.args;
    case "map": return [e.from];
    case "first": case "arr": case "join": case "concat": case "add": case "merge": case "product": return e.items;
    case "var": return e.key;
    case "obj": return e.entries.map(([, x]) => x);
    case "str": case "text": case "tag": case "variant": case "get": case "json": case "uri": case "numeric": case "type": case "number": case "string": case "integer": case "clip": case "shell":
    case "entries": case "object": case "strings": case "split": case "round": return [e.of];
    case "if": return [...condExprs(e.cond), e.then, ...(e.else ? [e.else] : [])];
    case "list": return [e.of, ...(e.lets ?? []).map((l) => l.value), e.to, ...condExprs(e.where)];
    case "find": return [e.of, ...condExprs(e.where)];
    default: return [];
  }
}

/** The expressions conditions test. */
export function condExprs(cs: Cond[]): Expr[] {
  return cs.flatMap((c) => (c.k === "state" ? [] : c.k === "same" ? [c.path, c.other] : [c.path]));
}

/** Every expression in `e` (itself included), depth first. */
export function allExprs(e: Expr | undefined): Expr[] {
  return e ? [e, ...subExprs(e).flatMap(allExprs)] : [];
}
