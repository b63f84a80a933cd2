/**
 * Emits generated/mappers/<surface>.gen.ts: one typed function per table row and the dispatch table keyed
 * by kind and method. Built with ts-morph (structures for declarations, writer text for bodies).
 */
import { StructureKind, type StatementStructures } from "ts-morph";
import { withSourceFile } from "./project.ts";
import { allExprs, condExprs, IDENT, subExprs, type Cond, type Expr, type IdIR, type RowIR, type SessionPathIR, type StepIR, type TableIR } from "./ir.ts";
export { allExprs, condExprs, subExprs };
import type { Kind } from "./upstream.ts";

/** The name of the message a row (or the input function) reads: its typed parameter. */
let MSG = "m";
/** Answers (answers.gen.ts): object expressions leave out their undefined fields when built (compact). */
let COMPACT = false;

/**
 * An expression of the answers (generated/answers.gen.ts) as code: its paths are fields of the answer context `a`
 * (`$reply.answers` → `a.reply?.answers`), and its objects leave out undefined fields.
 */
export function answerExprCode(e: Expr): string {
  const [msg, compact] = [MSG, COMPACT];
  [MSG, COMPACT] = ["a", true];
  try {
    return exprCode(e, new Set());
  } finally {
    [MSG, COMPACT] = [msg, compact];
  }
}

/** Conditions of the answers as code (see answerExprCode). */
export function answerCondCode(cs: Cond[]): string {
  const [msg, compact] = [MSG, COMPACT];
  [MSG, COMPACT] = ["a", true];
  try {
    return cs.map((c) => condCode(c)).join(" && ");
  } finally {
    [MSG, COMPACT] = [msg, compact];
  }
}

/**
 * Variable lookups a row repeats (and `$first` lists that read variables) are computed once, in the row's own
 * locals (`let vN: any = UNSET`). A row's body is written twice: the first pass counts each lookup, the second
 * writes one met twice or more as `(vN !== UNSET ? vN : (vN = cx.varAt(…)))` — read when first needed, as before,
 * so short-circuits still skip it. A lookup is the same only while no step in between set a variable whose key may
 * be its key (the keys' fixed beginnings agree) and no step dispatched a message. Lookups inside `each` bodies and
 * lists, or whose key reads an identity or entity state, are not reused.
 */
interface Memo {
  counting: boolean;
  /** Dispatch steps and each bodies so far (every lookup is new after one). */
  epoch: number;
  /** Keys (template code) of the set steps so far. */
  sets: string[];
  /** Inside an each body: no reuse. */
  off: number;
  /** The keys of the lookups an expression being written reads (innermost last). */
  reads: string[][];
  counts: Map<string, number>;
  names: Map<string, string>;
  /** A rewritten lookup → the code the counting pass wrote for it. */
  plain: Map<string, string>;
}
let MEMO: Memo | undefined;

/** The fixed beginning of a key's template code (up to its first interpolation). */
const keyHead = (key: string) => { const i = key.indexOf("${"); return i < 0 ? key + "\u0000" : key.slice(0, i); };
/** Whether a set of `a` may change the variable at `b`. */
const mayBeSame = (a: string, b: string) => { const x = keyHead(a), y = keyHead(b); return x.startsWith(y) || y.startsWith(x); };

/** A variable's name: the first part of its key. */
export const varName = (key: Expr[]): string => (key[0]?.k === "lit" ? String(key[0].v) : "");

/**
 * A session variable's slot (generated/vars.gen.ts): an unkeyed variable is a field of `cx.vars`, a keyed one a store
 * there (`key` its first part, the name, a literal: E266).
 */
export function varSlot(key: Expr[]): string {
  const name = varName(key);
  return IDENT.test(name) ? `cx.vars.${name}` : `cx.vars[${JSON.stringify(name)}]`;
}

/**
 * A keyed variable's key in its store (the parts after the name): one part as it is (the store reads a string as
 * is and anything else as its text, what joining did), several joined with ":" in one template literal.
 */
function slotKeyCode(parts: string[]): string {
  return parts.length === 1 ? parts[0] : varKeyCode(parts);
}

/** Two expressions alike (the same IR: a variable's key as a set and a read of it write it). */
function sameExpr(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A variable read: the unkeyed field itself; a keyed store's get (reused, see Memo). */
function varLookup(key: Expr[], scope: Set<string>): string {
  const parts = key.slice(1).map((a) => exprCode(a, scope));
  // (the memo tells variables apart by their whole key, as the tables write it)
  const whole = varKeyCode([lit(varName(key)), ...parts]);
  const m = MEMO;
  if (m) for (const r of m.reads) r.push(whole);
  if (!parts.length) return varSlot(key);
  return reused(`${varSlot(key)}.get(${slotKeyCode(parts)})`, [whole]);
}

/** Code as the counting pass wrote it: the rewritten lookups inside it put back. */
function plainCode(m: Memo, code: string): string {
  let plain = code;
  for (const [w, p] of m.plain) plain = plain.split(w).join(p);
  return plain;
}

/** Code reading the variables at `keys`, written once when the row repeats it with none of them set in between. */
function reused(code: string, keys: string[]): string {
  const m = MEMO;
  if (!m || m.off > 0 || /\bs_|cx\.(?:id|state)\(/.test(code)) return code;
  // the key is the code as the counting pass wrote it, with the sets it depends on
  const plain = plainCode(m, code);
  const version = keys.map((k) => m.sets.filter((s) => mayBeSame(s, k)).length).join(",");
  const k = `${m.epoch}|${version}|${plain}`;
  if (m.counting) {
    m.counts.set(k, (m.counts.get(k) ?? 0) + 1);
    return code;
  }
  if ((m.counts.get(k) ?? 0) < 2) return code;
  let name = m.names.get(k);
  if (!name) m.names.set(k, (name = `v${m.names.size + 1}`));
  const w = `(${name} !== UNSET ? ${name} : (${name} = ${code}))`;
  m.plain.set(w, plain);
  return w;
}

function pascalKind(k: string): string {
  return k[0].toUpperCase() + k.slice(1);
}

/** The module constant of a row (its Row entry). */
function rowName(rule: string): string {
  return "ROW_" + rule.replace(/[^A-Za-z0-9]/g, "_");
}

/**
 * Which message field a method's rows switch on: a field of the message (a path from it, no computed part) that at
 * least two of the rows test against constants in their `when` (`eq` or `in`, strings, numbers or booleans); the one
 * most rows test. Each such row can match only when the field has one of its values.
 */
function pickFor(rs: RowIR[], used: ReadonlySet<string> = new Set()): { path: Expr; key: string; values: Map<RowIR, unknown[]>; first: RowIR } | undefined {
  if (rs.length < 2) return undefined;
  const byPath = new Map<string, { path: Expr; key: string; values: Map<RowIR, unknown[]>; first: RowIR }>();
  for (const r of rs) {
    for (const c of r.when) {
      if ((c.k !== "eq" && c.k !== "in") || c.path.k !== "path" || ["request", "meta", "line", "capture"].includes(c.path.root)) continue;
      const vs: unknown[] = c.k === "eq" ? [c.value] : c.values;
      if (!vs.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")) continue;
      const key = JSON.stringify(c.path);
      if (used.has(key)) continue;
      let e = byPath.get(key);
      if (!e) byPath.set(key, (e = { path: c.path, key, values: new Map(), first: r }));
      // two tests of the same field in one row: both must hold (the values both allow)
      const had = e.values.get(r);
      e.values.set(r, had ? had.filter((v) => vs.some((w) => w === v)) : vs);
    }
  }
  let best: { path: Expr; key: string; values: Map<RowIR, unknown[]>; first: RowIR } | undefined;
  for (const e of byPath.values()) if (e.values.size >= 2 && (!best || e.values.size > best.values.size)) best = e;
  return best;
}

export function fnName(rule: string): string {
  return "r_" + rule.replace(/[^A-Za-z0-9]/g, "_");
}

function access(base: string, segs: string[]): string {
  return segs.reduce((acc, s) => acc + (/^\d+$/.test(s) ? `?.[${s}]` : IDENT.test(s) ? `?.${s}` : `?.[${JSON.stringify(s)}]`), base);
}

function lit(v: unknown): string {
  return v === undefined ? "undefined" : JSON.stringify(v);
}

/**
 * Block markers in expression code (the statements of a `$list` element's arrow function): the printer writes a
 * statement's text on one line, so expandBlocks() puts each statement of the block on a line of its own, indented
 * from the line the block opens on.
 */
const BLOCK_IN = "\u0001", BLOCK_LINE = "\u0002", BLOCK_OUT = "\u0003";
/** Past this many characters, a `$first` chain is laid out one alternative a line. */
const LONG = 120;

/** The generated text with its blocks laid out (see BLOCK_IN). */
export function expandBlocks(text: string): string {
  if (!text.includes(BLOCK_IN)) return text;
  return text.split("\n").map((line) => {
    if (!line.includes(BLOCK_IN)) return line;
    const base = /^ */.exec(line)![0];
    let depth = 0;
    let out = "";
    for (const ch of line) {
      if (ch === BLOCK_IN) out += `\n${base}${"  ".repeat(++depth)}`;
      else if (ch === BLOCK_LINE) out += `\n${base}${"  ".repeat(depth)}`;
      else if (ch === BLOCK_OUT) out += `\n${base}${"  ".repeat(--depth)}`;
      else out += ch;
    }
    return out;
  }).join("\n");
}

export function exprCode(e: Expr, scope: Set<string>): string {
  switch (e.k) {
    case "path": {
      const base = scope.has(e.root) ? `s_${e.root}` : e.root === "msg" ? MSG : e.root === "request" ? "cx.request" : e.root === "meta" ? "cx.meta" : e.root === "line" ? "cx.line" : e.root === "capture" ? "(capture as JsonView)" : `${MSG}${IDENT.test(e.root) ? "." + e.root : `[${JSON.stringify(e.root)}]`}`;
      return access(base, e.segs);
    }
    case "lit":
      return lit(e.v);
    case "map":
      return `map_${e.name}(${exprCode(e.from, scope)}${e.def !== undefined ? `, ${lit(e.def)}` : ""})`;
    case "helper":
      return `h_${e.module ?? "unknown"}.${e.name}(${e.args.map((a) => exprCode(a, scope)).join(", ")})`;
    case "first": {
      MEMO?.reads.push([]);
      const items = e.items.map((a) => exprCode(a, scope));
      // a long chain: one alternative a line
      const code = items.reduce((n, x) => n + x.length, 0) > LONG ? `(${BLOCK_IN}${items.join(`${BLOCK_LINE}?? `)}${BLOCK_OUT})` : `(${items.join(" ?? ")})`;
      const keys = MEMO?.reads.pop() ?? [];
      return keys.length ? reused(code, keys) : code;
    }
    case "state":
      return `cx.state(${lit(e.role)}, ${lit(e.field)})`;
    case "obj": {
      const fields = e.entries.map(([k, v]) => `${IDENT.test(k) ? k : JSON.stringify(k)}: ${exprCode(v, scope)}`);
      // a long object: one field a line
      const code = !fields.length ? "{}" : fields.reduce((n, x) => n + x.length, 0) > LONG ? `{${BLOCK_IN}${fields.join(`,${BLOCK_LINE}`)},${BLOCK_OUT}}` : `{ ${fields.join(", ")} }`;
      return COMPACT && e.entries.length ? `compact(${code})` : code;
    }
    case "arr":
      return `[${e.items.map((a) => exprCode(a, scope)).join(", ")}]`;
    case "var":
      return varLookup(e.key, scope);
    case "id":
      return `cx.id(${lit(e.role)})`;
    case "join":
      return `joinKey(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
    case "str":
      return `str(${exprCode(e.of, scope)})`;
    case "text":
      return `text(${exprCode(e.of, scope)}, ${lit(e.join)}, ${lit(e.items)}, ${e.skipEmpty})`;
    case "tag":
      return `tagOf(${exprCode(e.of, scope)})`;
    case "variant":
      return `variantOf(${exprCode(e.of, scope)})`;
    case "get":
      // a list is an array (its elements read by index as they are); any other value is read as a JsonView
      if (e.of.k === "list" && /^\d+$/.test(e.segs[0] ?? "")) return access(exprCode(e.of, scope), e.segs);
      return access(`(${exprCode(e.of, scope)} as JsonView)`, e.segs);
    case "json":
      // a keyed variable's text: its store parses it only when it may be whole (VarStore.jsonAt)
      if (e.of.k === "var" && e.of.key.length > 1) return `${varSlot(e.of.key)}.jsonAt(${slotKeyCode(e.of.key.slice(1).map((a) => exprCode(a, scope)))})`;
      return `json(${exprCode(e.of, scope)})`;
    case "concat":
      return `concat(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
    case "add":
      return `add(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
    case "merge":
      return `merge(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
    case "uri":
      return `uri(${exprCode(e.of, scope)})`;
    case "numeric":
      return `numeric(${exprCode(e.of, scope)})`;
    case "type":
      return `typeOf(${exprCode(e.of, scope)})`;
    case "number":
      return `numberOf(${exprCode(e.of, scope)})`;
    case "string":
      return `stringOf(${exprCode(e.of, scope)})`;
    case "integer":
      return `integerOf(${exprCode(e.of, scope)})`;
    case "clip":
      return `clip(${exprCode(e.of, scope)})`;
    case "shell":
      return `shellLine(${exprCode(e.of, scope)})`;
    case "if":
      return `(${e.cond.map((c) => condCode(c, scope)).join(" && ") || "true"} ? ${exprCode(e.then, scope)} : ${e.else ? exprCode(e.else, scope) : "undefined"})`;
    case "list": {
      const inner = new Set(scope).add(e.as);
      if (e.lets?.length || e.index) {
        // per element: its named values, then the test, then what it becomes (SKIP: left out)
        if (e.index) inner.add(e.index);
        const lets = (e.lets ?? []).map((l) => { const code = `const s_${l.name} = ${exprCode(l.value, inner)};`; inner.add(l.name); return code; });
        const test = e.where.map((c) => condCode(c, inner)).join(" && ");
        const to = exprCode(e.to, inner);
        const fn = e.all ? "mapElements" : "mapObjects";
        use(fn);
        if (test) use("SKIP");
        return `${fn}(${exprCode(e.of, scope)}, (s_${e.as}${e.index ? `, s_${e.index}` : ""}) => {${BLOCK_IN}${[...lets, `return ${test ? `${test} ? ${to} : SKIP` : to};`].join(BLOCK_LINE)}${BLOCK_OUT}})`;
      }
      const where = e.where.length ? `.filter((s_${e.as}) => ${e.where.map((c) => condCode(c, inner)).join(" && ")})` : "";
      return `${e.all ? "elements" : "objects"}(${exprCode(e.of, scope)})${where}.map((s_${e.as}) => (${exprCode(e.to, inner)}))`;
    }
    case "find": {
      const inner = new Set(scope).add(e.as);
      const list = `${e.all ? "elements" : "objects"}(${exprCode(e.of, scope)})`;
      const test = `(s_${e.as}) => ${e.where.map((c) => condCode(c, inner)).join(" && ") || "true"}`;
      if (e.last) use("findLast");
      return e.last ? `findLast(${list}, ${test})` : `${list}.find(${test})`;
    }
    case "entries":
      use("entries");
      return `entries(${exprCode(e.of, scope)})`;
    case "object":
      use("objectOf");
      return `objectOf(${exprCode(e.of, scope)})`;
    case "strings":
      use("strings");
      return `strings(${exprCode(e.of, scope)})`;
    case "split":
      use("split");
      return `split(${exprCode(e.of, scope)}, ${lit(e.on)})`;
    case "product":
      use("product");
      return `product(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
    case "round":
      use("round");
      return `round(${exprCode(e.of, scope)}, ${lit(e.unit)})`;
  }
}

/**
 * The row-util functions the new words' code calls, noted as it is written (the emitters import them): the words
 * whose functions are imported by kind (emitMapper's `rare`, emit-answers' UTIL) are not noted.
 */
let USED: Set<string> | undefined;
const use = (fn: string): void => { USED?.add(fn); };

/** The row-util functions noted so far by the collectUsed being run. */
export function usedNow(): string[] {
  return [...(USED ?? [])];
}

/** Collects the row-util functions `write` notes (see USED). */
export function collectUsed<T>(write: () => T): { out: T; used: string[] } {
  const outer = USED;
  USED = new Set();
  try {
    const out = write();
    return { out, used: [...USED] };
  } finally {
    if (outer) for (const f of USED) outer.add(f);
    USED = outer;
  }
}

/** Longest line the emitter writes on one line; a longer payload object gets one field per line. */
const WIDTH = 120;

/** A payload object: on one line when it fits after `used` columns, else one field per line (recursively). */
function payloadCode(e: Expr, scope: Set<string>, indent: string, used: number): string {
  // (the lookups the one-line form counted or named are taken back when it is not the form written)
  const saved = MEMO && { counts: new Map(MEMO.counts), names: new Map(MEMO.names), plain: new Map(MEMO.plain) };
  const flat = exprCode(e, scope);
  if (e.k !== "obj" || !e.entries.length || used + flat.length <= WIDTH) return flat;
  if (MEMO && saved) Object.assign(MEMO, saved);
  const inner = indent + "  ";
  const fields = e.entries.map(([k, v]) => {
    const key = `${IDENT.test(k) ? k : JSON.stringify(k)}: `;
    return `${inner}${key}${payloadCode(v, scope, inner, inner.length + key.length)},`;
  });
  return `{\n${fields.join("\n")}\n${indent}}`;
}

function condCode(c: Cond, scope: Set<string> = new Set()): string {
  switch (c.k) {
    case "eq": return `${exprCode(c.path, scope)} === ${lit(c.value)}`;
    case "not": return `${exprCode(c.path, scope)} !== ${lit(c.value)}`;
    case "in": return `(${c.values.map((v) => `${exprCode(c.path, scope)} === ${lit(v)}`).join(" || ")})`;
    case "exists": return c.exists ? `${exprCode(c.path, scope)} != null` : `${exprCode(c.path, scope)} == null`;
    case "same": use("same"); return `same(${exprCode(c.path, scope)}, ${exprCode(c.other, scope)})`;
    case "atLeast": use("atLeast"); return `atLeast(${exprCode(c.path, scope)}, ${lit(c.min)})`;
    case "state": {
      const role = lit(c.role);
      return { new: `cx.isNew(${role})`, open: `cx.wasOpen(${role})`, notOpen: `!cx.wasOpen(${role})`, stale: `cx.isStale(${role})`, notStale: `!cx.isStale(${role})` }[c.test];
    }
  }
}

function stepsCode(steps: StepIR[], surface: string, scope: Set<string>, indent: string): string[] {
  const out: string[] = [];
  const guarded = (cond: Cond[], call: string) => `${indent}${cond.length ? `if (${cond.map((c) => condCode(c, scope)).join(" && ")}) ` : ""}${call}`;
  for (const s of steps) {
    if (s.lets?.length) {
      // A step's named values: a block, run once the step's condition holds, that computes them and runs the step.
      const cond = "cond" in s ? s.cond : [];
      out.push(guarded(cond, "{"));
      const inner = new Set(scope);
      for (const l of s.lets) {
        out.push(`${indent}  const s_${l.name} = ${exprCode(l.value, inner)};`);
        inner.add(l.name);
      }
      out.push(...stepsCode([{ ...s, lets: undefined, ...("cond" in s ? { cond: [] } : {}) } as StepIR], surface, inner, indent + "  "));
      out.push(`${indent}}`);
      continue;
    }
    switch (s.k) {
      case "emit":
        out.push(guarded(s.cond, `cx.emit(${lit(s.type)}, ${payloadCode(s.payload, scope, indent, guarded(s.cond, "").length + `cx.emit(${lit(s.type)}, `.length)});`));
        break;
      case "snapshot":
        out.push(guarded(s.cond, s.snap.text
          ? `cx.snapshot(${lit(s.snap.stream)}, ${exprCode(s.snap.text, scope)}, undefined);`
          : `cx.snapshotParts(${lit(s.snap.stream)}, ${exprCode(s.snap.parts!, scope)});`));
        break;
      case "set": {
        // an unkeyed variable by name (typed: the record's fields), a keyed one through its store; a keyed text that
        // grows by `$concat` of itself first is appended to (its store keeps what $json needs, read chunk by chunk)
        const parts = s.key.slice(1).map((k) => exprCode(k, scope));
        const grows = parts.length && s.value.k === "concat" && s.value.items[0]?.k === "var" && sameExpr(s.value.items[0].key, s.key);
        out.push(guarded(s.cond, grows && s.value.k === "concat"
          ? `cx.appendVarIn(${varSlot(s.key)}, ${slotKeyCode(parts)}, ${s.value.items.slice(1).map((a) => exprCode(a, scope)).join(", ")});`
          : parts.length
          ? `cx.setVarIn(${varSlot(s.key)}, ${slotKeyCode(parts)}, ${exprCode(s.value, scope)});`
          : `cx.setVar(${lit(varName(s.key))}, ${exprCode(s.value, scope)});`));
        if (MEMO) MEMO.sets.push(plainCode(MEMO, varKeyCode([lit(varName(s.key)), ...parts])));
        break;
      }
      case "upstreamVersion":
        out.push(guarded(s.cond, `cx.upstreamVersion(${exprCode(s.value, scope)});`));
        break;
      case "closeOpen":
        out.push(`${indent}cx.closeOpen(${lit(s.status)}, ${lit(s.detail)}${s.completes?.length || s.statusVar ? `, [${(s.completes ?? []).map(lit).join(", ")}]` : ""}${s.statusVar ? `, ${lit(s.statusVar)}` : ""});`);
        break;
      case "dispatch":
        // raw original: the events keep the input line as raw, the target's input wrappers run (cx.delegate);
        // raw dispatched: the dispatched message is the raw payload (cx.replay).
        out.push(s.raw === "original"
          ? `${indent}cx.delegate(${lit(s.surface ?? surface)}, ${exprCode(s.message, scope)});`
          : `${indent}cx.replay(${exprCode(s.message, scope)}${s.surface ? `, ${lit(s.surface)}` : ""});`);
        if (MEMO) MEMO.epoch++;
        break;
      case "each": {
        const inner = new Set(scope).add(s.as);
        if (s.index) inner.add(s.index);
        out.push(s.index
          ? `${indent}for (const [s_${s.index}, s_${s.as}] of arr(${exprCode(s.each, scope)}).entries()) {`
          : `${indent}for (const s_${s.as} of arr(${exprCode(s.each, scope)})) {`);
        if (MEMO) { MEMO.epoch++; MEMO.off++; }
        out.push(...stepsCode(s.steps, surface, inner, indent + "  "));
        if (MEMO) { MEMO.epoch++; MEMO.off--; }
        out.push(`${indent}}`);
        break;
      }
    }
  }
  return out;
}

const MESSAGE_TYPE: Record<string, string> = {
  notification: "Notification",
  request: "ServerRequestMessage",
  clientRequest: "ClientRequestMessage",
  clientNotification: "ClientNotificationMessage",
  response: "JsonRpcResponse",
  clientResponse: "JsonRpcResponse",
};

/** Kind → the name of its generated upstream message type. */
export type UpstreamTypeNames = Record<string, string | undefined>;

/** An identity a row resolves, as the runtime's IdRef (see src/normalize/table-types.ts). */
function idRefLiteral(id: IdIR): string {
  return `{ ${[`role: ${lit(id.role)}`, `op: ${lit(id.op)}`, ...(id.space ? [`space: ${lit(id.space)}`] : []), ...(id.field ? [`field: ${lit(id.field)}`] : []), ...(id.required ? ["required: true"] : []), ...(id.scope ? [`scope: ${lit(id.scope)}`] : [])].join(", ")} }`;
}

/**
 * A session variable's key as one template literal: the parts joined with ":" (what varKey does to a key list at
 * run time — `${x}` and String(x) agree for every JSON value), so no list is built per lookup. String-literal parts
 * are written into the template.
 */
function varKeyCode(parts: string[]): string {
  const esc = (t: string) => t.replace(/[\\`]/g, "\\$&").replace(/\$\{/g, "\\${");
  return "`" + parts.map((p) => {
    if (/^"(?:[^"\\]|\\.)*"$/.test(p)) return esc(JSON.parse(p) as string);
    return "${" + p + "}";
  }).join(":") + "`";
}

/**
 * A row's body. `refs` names the module-level IdRef constant of an identity (the mapper declares each distinct one
 * once); without it the IdRef is written inline.
 */
export function rowBody(r: RowIR, surface: string, refs?: (id: IdIR) => string): string {
  MEMO = { counting: true, epoch: 0, sets: [], off: 0, reads: [], counts: new Map(), names: new Map(), plain: new Map() };
  try {
    rowLines(r, surface, refs);
    MEMO.counting = false;
    MEMO.epoch = 0;
    MEMO.sets = [];
    const lines = rowLines(r, surface, refs);
    if (MEMO.names.size) lines.unshift(`let ${[...MEMO.names.values()].map((n) => `${n}: unknown = UNSET`).join(", ")};`);
    return lines.join("\n");
  } finally {
    MEMO = undefined;
  }
}

function rowLines(r: RowIR, surface: string, refs?: (id: IdIR) => string): string[] {
  MSG = "m";
  const lines: string[] = [];
  if (r.when.length) lines.push(`if (!(${r.when.map((c) => condCode(c)).join(" && ")})) return false;`);
  if (r.hold) {
    // A hold row: claims the message (held until the variable is set) only while the variable is unset.
    lines.push(`return cx.hold([${r.hold.map((k) => exprCode(k, new Set())).join(", ")}]);`);
    return lines;
  }
  for (const id of r.ids) {
    const ref = refs ? refs(id) : idRefLiteral(id);
    lines.push(id.path ? `cx.ref(${ref}, ${exprCode(id.path, new Set())});` : `cx.ref(${ref});`);
  }
  // the row's named values, once its identities are resolved
  const scope = new Set<string>();
  for (const l of r.lets ?? []) {
    lines.push(`const s_${l.name} = ${exprCode(l.value, scope)};`);
    scope.add(l.name);
  }
  lines.push(...stepsCode(r.steps, surface, scope, ""));
  lines.push("return true;");
  return lines;
}

/**
 * `snapshots`: whether a row of this table, or of a table it dispatches to (transitively), takes a snapshot (the
 * runtime keeps a record of streamed deltas only then).
 */
export function emitMapper(t: TableIR, upstreamTypesModule: string, typeNames: UpstreamTypeNames, header: string, snapshots = true): string {
  return collectUsed(() => mapperText(t, upstreamTypesModule, typeNames, header, snapshots)).out;
}

function mapperText(t: TableIR, upstreamTypesModule: string, typeNames: UpstreamTypeNames, header: string, snapshots: boolean): string {
  // The whole file as structures (and text for the maps and the table), printed once: adding declarations one by
  // one would re-parse the file each time.
  const statements: (StatementStructures | string)[] = [];
  const sf = {
    addImportDeclaration: (x: Omit<Extract<StatementStructures, { kind: StructureKind.ImportDeclaration }>, "kind">) => statements.push({ kind: StructureKind.ImportDeclaration, ...x }),
    addTypeAlias: (x: Omit<Extract<StatementStructures, { kind: StructureKind.TypeAlias }>, "kind">) => statements.push({ kind: StructureKind.TypeAlias, ...x }),
    addFunction: (x: Omit<Extract<StatementStructures, { kind: StructureKind.Function }>, "kind">) => statements.push({ kind: StructureKind.Function, ...x }),
  };
  sf.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: "../../src/normalize/table-types.js", namedImports: ["IdRef", ...(t.input.length ? ["InputMatch"] : []), "Member", "Row", "RowContext", ...(t.sessions ? ["SessionRoute"] : []), "SurfaceTable", "View"] });
  for (const mod of helperModules(t)) sf.addImportDeclaration({ moduleSpecifier: `../../mappings/helpers/${mod}.js`, namespaceImport: `h_${mod}` });
  // (UNSET joins once the rows are written, when one of them reuses a variable lookup)
  // (the operators most tables never use are imported only by the tables that do)
  const kinds = new Set(tableExprs(t).map((e) => e.k));
  const rare: [string, string][] = [["clip", "clip"], ["integer", "integerOf"], ["merge", "merge"], ["number", "numberOf"], ["numeric", "numeric"], ["shell", "shellLine"], ["string", "stringOf"], ["type", "typeOf"], ["uri", "uri"]];
  const utilImports: (string | { name: string; isTypeOnly: true })[] = ["add", "arr", "concat", "elements", "joinKey", "json", ...rare.filter(([k]) => kinds.has(k as Expr["k"])).map(([, f]) => f), "objects", "str", "tagOf", "text", ...(t.time ? ["timeOf"] : []), ...(t.sessions ? ["firstId"] : []), ...(t.sessions?.children.some((p) => p.each) ? ["allIds", "eachId"] : []), "variantOf"].sort((a, b) => a.localeCompare(b));
  sf.addImportDeclaration({ moduleSpecifier: "../../src/normalize/row-util.js", namedImports: utilImports });
  sf.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: upstreamTypesModule, namespaceImport: "U" });
  // (an ignore entry's `when` reads the session variables through the record of slots)
  if (t.ignored.some((g) => g.when?.length)) sf.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: "../vars.gen.js", namedImports: ["SessionSlots"] });

  // Message types of each kind, from the upstream schema.
  const aliases: [string, string][] = [
    // A kind without an upstream file has no schema: its params are open (read as a JsonView, see View).
    ["Notification", typeNames.notification ? `U.${typeNames.notification}` : "{ method: string; params?: unknown }"],
    ["ServerRequestMessage", typeNames.request ? `U.${typeNames.request}` : "{ id: string | number; method: string; params?: unknown }"],
    ["ClientRequestMessage", typeNames.clientRequest ? `U.${typeNames.clientRequest}` : "{ id: string | number; method: string; params?: unknown }"],
    ["ClientNotificationMessage", typeNames.clientNotification ? `U.${typeNames.clientNotification}` : "{ method: string; params?: unknown }"],
  ];
  const kindType = (k: string) => (t.protocol === "tagged" ? `${pascalKind(k)}Message` : MESSAGE_TYPE[k]);
  if (t.protocol === "tagged") {
    for (const k of t.kinds) sf.addTypeAlias({ name: kindType(k.kind), isExported: true, type: typeNames[k.kind] ? `U.${typeNames[k.kind]}` : `{ ${k.tag}: string; [key: string]: unknown }` });
    sf.addTypeAlias({ name: "Message", isExported: true, docs: [`Any message of the ${t.surface} surface.`], type: t.kinds.map((k) => kindType(k.kind)).join(" | ") || "never" });
  } else {
    for (const [name, type] of aliases) sf.addTypeAlias({ name, type, isExported: true });
    // `result` is checked by codegen against the answered method's <X>Response schema, not typed here.
    sf.addTypeAlias({ name: "JsonRpcResponse", isExported: true, type: "{ id: string | number; result?: unknown; error?: { code: number; message: string; data?: unknown } }" });
    sf.addTypeAlias({
      name: `Message`,
      isExported: true,
      docs: [`Any message of the ${t.surface} surface (both directions).`],
      type: "Notification | ServerRequestMessage | ClientRequestMessage | ClientNotificationMessage | JsonRpcResponse",
    });
  }

  for (const m of t.maps) {
    const outs = [...new Set([...Object.values(m.values), ...Object.values(m.prefixes ?? {})])];
    const values = outs.map((o) => lit(o));
    const outType = `V_${m.name}`;
    const union = `type ${outType} = ${values.join(" | ") || "never"};`;
    // The map: its value type, one entry per line, and the lookup the rows call.
    statements.push(
      `\n// map "${m.name}" (${t.file}:${m.line})\n${union.length <= WIDTH ? union : `type ${outType} =\n${values.map((v) => `  | ${v}`).join("\n")};`}\n` +
        `const M_${m.name}: ReadonlyMap<string, ${outType}> = new Map([\n${Object.entries(m.values).map(([k, v]) => `  [${lit(k)}, ${lit(v)}],\n`).join("")}]);`,
    );
    // The value for an unmapped value is the use's default, else the map's: its type is the default's (a const type parameter).
    const prefixes = Object.entries(m.prefixes ?? {}).sort(([a], [b]) => b.length - a.length);
    sf.addFunction({
      name: `map_${m.name}`,
      overloads: [
        { parameters: [{ name: "v", type: "unknown" }], returnType: m.def !== undefined && outs.includes(m.def as never) ? outType : `${outType} | ${m.def !== undefined ? lit(m.def) : "undefined"}` },
        { typeParameters: [{ name: "const D" }], parameters: [{ name: "v", type: "unknown" }, { name: "d", type: "D" }], returnType: `${outType} | D` },
      ],
      parameters: [{ name: "v", type: "unknown" }, { name: "d", type: "unknown", initializer: lit(m.def) }],
      returnType: "unknown",
      statements: prefixes.length
        // exact values first, then prefixes (longest first)
        ? `if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return d;\nconst k = String(v);\nconst hit = M_${m.name}.get(k);\nif (hit !== undefined) return hit;\n${prefixes.map(([p, to]) => `if (k.startsWith(${lit(p)})) return ${lit(to)};`).join("\n")}\nreturn d;`
        : `return (typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? M_${m.name}.get(String(v)) : undefined) ?? d;`,
    });
  }

  // The identities rows resolve: one constant per distinct IdRef (role, op and how the id is read), shared by rows.
  const refNames = new Map<string, string>();
  const refDecls: string[] = [];
  const refCount = new Map<string, number>();
  const refOf = (id: IdIR): string => {
    const literal = idRefLiteral(id);
    let name = refNames.get(literal);
    if (!name) {
      const base = `ID_${id.role}_${id.op}`;
      const n = (refCount.get(base) ?? 0) + 1;
      refCount.set(base, n);
      name = n === 1 ? base : `${base}_${n}`;
      refNames.set(literal, name);
      refDecls.push(`const ${name}: IdRef = ${literal};`);
    }
    return name;
  };
  const bodies = new Map(t.rows.map((r) => [r, rowBody(r, t.surface, refOf)]));
  if ([...bodies.values()].some((b) => b.includes("UNSET"))) utilImports.unshift("UNSET");
  if (refDecls.length) statements.push(`\n// identities the rows resolve (mappings/README.md "Identities")\n${refDecls.join("\n")}`);

  for (const r of t.rows) {
    const tag = t.kinds.find((k) => k.kind === r.kind)?.tag ?? "method";
    // The row reads the message through View: the members of its type merged, every key optional (see table-types).
    const methodType = r.kind === "response" || r.kind === "clientResponse" || r.methods.length !== 1 || r.methods[0] === "*" ? `View<${kindType(r.kind)}>` : `View<Member<${kindType(r.kind)}, ${lit(tag)}, ${lit(r.methods[0])}>>`;
    sf.addFunction({
      name: fnName(r.rule),
      docs: [`${t.file}:${r.line} — ${r.kind} ${r.methods.join(", ")}${emittedTypes(r.steps).length ? " → " + emittedTypes(r.steps).join(", ") : ""}${r.description ? `\n${r.description}` : ""}`],
      parameters: [{ name: "m", type: methodType }, { name: "cx", type: "RowContext" }],
      returnType: "boolean",
      statements: bodies.get(r)!,
    });
  }

  const byKind = new Map<Kind, Map<string, RowIR[]>>();
  for (const r of t.rows) {
    const km = byKind.get(r.kind) ?? new Map();
    byKind.set(r.kind, km);
    for (const m of r.methods) km.set(m, [...(km.get(m) ?? []), r]);
  }
  // One row per line; a row function takes its own message type, which `Row.run` (message: any) accepts as is.
  const rowDecls = t.rows.map((r) => `const ${rowName(r.rule)}: Row = { rule: ${lit(`${t.surface}#${r.rule}`)}, line: ${r.line}, ${r.versions ? `versions: ${JSON.stringify(r.versions)}, ` : ""}run: ${fnName(r.rule)} };`);
  statements.push(`\n// the rows, each once (a row of several methods is in each method's list)\n${rowDecls.join("\n")}`);
  const rowsCode = [...byKind].map(([k, km]) =>
    `${k}: {\n${[...km].map(([m, rs]) => `      ${lit(m)}: [${rs.map((r) => rowName(r.rule)).join(", ")}],\n`).join("")}    },`,
  ).join("\n    ");
  // Compiled dispatch: a method whose rows test one message field against constants gets a switch on that field
  // returning the rows that can match (a row testing it elsewhere is never tried; rows not testing it are in every
  // case), in table order.
  // A case whose rows test another field against constants switches again on that one (sub-dispatch), up to
  // MAX_PICK_DEPTH fields deep.
  const picks: [Kind, string, string][] = [];
  const MAX_PICK_DEPTH = 3;
  /** The switch function over `rs` named `name` (undefined when no field splits them), for a message typed like `m`'s rows. */
  const emitPick = (name: string, what: string, rs: RowIR[], used: ReadonlySet<string>, paramType: string): string | undefined => {
    const p = pickFor(rs, used);
    if (!p) return undefined;
    const inner = new Set([...used, p.key]);
    const lists = new Map<string, string>();
    const listOf = (v: unknown): string => {
      const key = JSON.stringify(v);
      let l = lists.get(key);
      if (!l) {
        const n = `${name.toUpperCase()}_${lists.size + 1}`;
        const these = rs.filter((r) => { const vs = p.values.get(r); return !vs || vs.includes(v); });
        const sub = inner.size < MAX_PICK_DEPTH ? emitPick(`${name}_${lists.size + 1}`, `${what}, ${exprCode(p.path, new Set())} ${lit(v)}`, these, inner, paramType) : undefined;
        if (sub) l = `${sub}(m)`;
        else {
          statements.push(`const ${n}: readonly Row[] = [${these.map((r) => rowName(r.rule)).join(", ")}];`);
          l = n;
        }
        lists.set(key, l);
      }
      return l;
    };
    const cases = [...new Set([...p.values.values()].flat())].map((v) => `  case ${lit(v)}: return ${listOf(v)};`);
    const rest = rs.filter((r) => !p.values.has(r));
    const other = `${name.toUpperCase()}_OTHER`;
    statements.push(`const ${other}: readonly Row[] = [${rest.map((r) => rowName(r.rule)).join(", ")}];`);
    sf.addFunction({
      name,
      docs: [`${what}: the rows that can match a message, by ${exprCode(p.path, new Set())}.`],
      parameters: [{ name: "m", type: paramType }],
      returnType: "readonly Row[]",
      statements: `switch (${exprCode(p.path, new Set())}) {\n${cases.join("\n")}\n  default: return ${other};\n}`,
    });
    return name;
  };
  for (const [k, km] of byKind) {
    for (const [m, rs] of km) {
      const first = pickFor(rs);
      if (!first) continue;
      const name = emitPick(`pick_${k}_${m.replace(/[^A-Za-z0-9]/g, "_")}`, `${k} ${lit(m)}`, rs, new Set(), `Parameters<typeof ${fnName(first.first.rule)}>[0]`);
      if (name) picks.push([k, m, name]);
    }
  }
  const picksCode = [...new Set(picks.map(([k]) => k))].map((k) => `${k}: { ${picks.filter(([x]) => x === k).map(([, m, n]) => `${lit(m)}: ${n}`).join(", ")} }`).join(",\n    ");
  const ignoredByKind = new Map<Kind, [string, string][]>();
  for (const g of t.ignored) ignoredByKind.set(g.kind, [...(ignoredByKind.get(g.kind) ?? []), ...g.methods.map((m) => [m, `${t.surface}#${g.id}`] as [string, string])]);
  const ignoredCode = [...ignoredByKind].map(([k, ms]) => `${k}: {\n${ms.map(([m, id]) => `      ${lit(m)}: ${lit(id)},\n`).join("")}    },`).join("\n    ");
  const ignoreWhen = t.ignored.filter((g) => g.when?.length).map((g) => `    ${lit(`${t.surface}#${g.id}`)}: (m: JsonView, cx: { readonly vars: SessionSlots }) => ${g.when!.map((c) => condCode(c)).join(" && ")},\n`).join("");
  const ignoreVersions = t.ignored.filter((g) => g.versions).map((g) => `    ${lit(`${t.surface}#${g.id}`)}: ${JSON.stringify(g.versions)},\n`).join("");
  const pinned = t.upstream.versions
    ? `, versions: [${[{ version: t.upstream.version, reports: t.upstream.reports }, ...t.upstream.versions].map((x) => `{ version: ${lit(x.version)}${x.reports !== undefined ? `, reports: ${lit(x.reports)}` : ""} }`).join(", ")}]`
    : "";
  const reasons = [
    ...t.ignored.map((g) => `    ${lit(`${t.surface}#${g.id}`)}: ${lit(`${g.reason} (${t.file}:${g.line})`)},\n`),
    ...t.input.filter((w) => w.ignore).map((w) => `    ${lit(`${t.surface}#input-${w.name}`)}: ${lit(`${w.ignore} (${t.file}:${w.line})`)},\n`),
  ].join("");
  const sources = t.kinds.map((k) => `${k.kind}: ${lit(k.source)}`).join(", ");
  const methodSources = t.kinds.filter((k) => k.methodSources).map((k) => `${k.kind}: { ${Object.entries(k.methodSources!).sort().map(([m, s]) => `${lit(m)}: ${lit(s)}`).join(", ")} }`).join(",\n    ");
  const tags = t.kinds.map((k) => `${k.kind}: ${lit(k.tag)}`).join(", ");
  if (t.input.length) {
    // An input line has no upstream schema (the wrappers are the table's own): `line` is read unchecked.
    MSG = "line";
    const body: string[] = [];
    let unconditional = false;
    for (const w of t.input) {
      const meta = w.meta.length ? `, meta: { ${w.meta.map(([k, e]) => `${IDENT.test(k) ? k : lit(k)}: ${exprCode(e, new Set())}`).join(", ")} }` : "";
      body.push(`// ${t.file}:${w.line} — input wrapper "${w.name}"`);
      const ret = w.ignore
        ? `return { ignore: ${lit(`${t.surface}#input-${w.name}`)} };`
        : `return { wrapper: ${lit(w.name)}, message: ${exprCode(w.message!, new Set())}${meta}${w.kind ? `, kind: ${lit(w.kind)}` : ""}${w.type ? `, type: ${lit(w.type)}` : w.typeFrom ? `, type: ${exprCode(w.typeFrom, new Set())}` : ""} };`;
      body.push(w.when.length ? `if (${w.when.map((c) => condCode(c)).join(" && ")}) ${ret}` : ret);
      // A wrapper without conditions takes every line that reaches it: later wrappers are never tried.
      if (!w.when.length) { unconditional = true; break; }
    }
    if (!unconditional) body.push("return undefined;");
    MSG = "m";
    sf.addFunction({ name: "input", docs: ["Finds the message inside an input line: the input wrappers of the table, in order. `capture` is the capture wrapper pushLine removed, if any."], parameters: [{ name: "line", type: "JsonView" }, { name: "capture", type: "unknown", hasQuestionToken: true }], returnType: "InputMatch | undefined", statements: body.join("\n") });
  }

  if (t.time) {
    // The message's own time (`time:` of the table): read unchecked like the input line (codegen checked each path
    // is a field of some message of the table); the first that holds a valid time wins.
    const tries = t.time.from.map((e) => `timeOf(${exprCode(e, new Set())}, ${lit(t.time!.numbers)})`).join(" ?? ");
    sf.addFunction({ name: "time", docs: [`The time a message carries (${t.file}:${t.time.line}), as an ISO date-time; undefined when it carries none.`], parameters: [{ name: "m", type: "View<Message>" }, { name: "cx", type: "{ readonly meta: JsonView }" }], returnType: "string | undefined", statements: `return ${tries};` });
  }

  if (t.sessions) {
    // The session a message belongs to (`sessions:`): paths read unchecked like time's (codegen checked them), the
    // first non-empty string or number of each part.
    const part = (ps: SessionPathIR[]): string => {
      if (!ps.length) return "undefined";
      const read = (p: SessionPathIR) => (p.each ? `eachId(${exprCode(p.each, new Set())}, (s_el) => ${exprCode(p.path, new Set(["el"]))})` : exprCode(p.path, new Set()));
      const one = (p: SessionPathIR) => (p.match ? `(${p.match.map((x) => `cx.method === ${lit(x)}`).join(" || ")} ? ${read(p)} : undefined)` : read(p));
      // children with an `each` entry: every id of every entry (a list)
      if (ps.some((p) => p.each)) return `allIds(${ps.map(one).join(", ")})`;
      return ps.length === 1 && !ps[0].match ? one(ps[0]) : `firstId(${ps.map(one).join(", ")})`;
    };
    const fields = ([["key", t.sessions.key], ["parent", t.sessions.parent], ["children", t.sessions.children]] as const).filter(([, ps]) => ps.length).map(([n, ps]) => `${n}: ${part(ps)}`);
    if (t.sessions.next.length) fields.push(`next: ${t.sessions.next.map((x) => `cx.method === ${lit(x)}`).join(" || ")}`);
    sf.addFunction({ name: "session", docs: [`The provider session a message belongs to (${t.file}:${t.sessions.line}).`], parameters: [{ name: "m", type: "View<Message>" }, { name: "cx", type: "{ readonly meta: JsonView; readonly method: string }" }], returnType: "SessionRoute", statements: `return { ${fields.join(", ")} };` });
  }

  // (the functions of the words the code above calls that are not imported by kind)
  for (const f of [...(USED ?? [])].sort()) {
    if (utilImports.includes(f)) continue;
    const at = utilImports.findIndex((x) => typeof x === "string" && x !== "UNSET" && x.localeCompare(f) > 0);
    utilImports.splice(at < 0 ? utilImports.length : at, 0, f);
  }
  // (the type of open values joins the imports when some code of the table reads one)
  if (statements.some((x) => typeof x === "string" ? /\bJsonView\b/.test(x) : JSON.stringify(x).includes("JsonView")) || ignoreWhen.includes("JsonView")) {
    const at = utilImports.findIndex((x) => typeof x === "string" && x !== "UNSET" && x.localeCompare("JsonView") > 0);
    utilImports.splice(at < 0 ? utilImports.length : at, 0, { name: "JsonView", isTypeOnly: true });
  }
  statements.push(`\n/** The ${t.surface} mapping table (${t.file}), compiled. */\nexport const table: SurfaceTable = {
  surface: ${lit(t.surface)},
  provider: ${lit(t.provider)},
  protocol: ${lit(t.protocol)},
  file: ${lit(t.file)},
  tags: { ${tags} },${t.input.length ? "\n  input," : ""}${t.sessions ? "\n  session," : ""}${t.time ? "\n  time," : ""}${t.nonJsonLines === "warning" ? '\n  nonJsonLines: "warning",' : ""}${t.atEnd ? `\n  atEnd: { kind: ${lit(t.atEnd.kind)}, method: ${lit(t.atEnd.method)} },` : ""}${t.detectFields ? `\n  detectFields: [${t.detectFields.map(lit).join(", ")}],` : ""}
  upstream: { package: ${lit(t.upstream.package)}, version: ${lit(t.upstream.version)}${pinned} },
  sources: { ${sources} },${methodSources ? `\n  methodSources: {\n    ${methodSources},\n  },` : ""}
  rows: {${rowsCode ? `\n    ${rowsCode}\n  ` : ""}},${picksCode ? `\n  picks: {\n    ${picksCode},\n  },` : ""}${snapshots ? "" : "\n  snapshots: false,"}
  ignored: {${ignoredCode ? `\n    ${ignoredCode}\n  ` : ""}},
  ignoreReasons: {${reasons ? `\n${reasons}  ` : ""}},${ignoreVersions ? `\n  ignoreVersions: {\n${ignoreVersions}  },` : ""}${ignoreWhen ? `\n  ignoreWhen: {\n${ignoreWhen}  },` : ""}
};`);
  // A blank line after the imports and after the type aliases.
  return withSourceFile(`${t.surface}.gen.ts`, { kind: StructureKind.SourceFile, statements }, (file) => {
    // One blank line between declarations, and after the imports.
    const text = expandBlocks(file.getFullText()).replace(/\n{3,}/g, "\n\n").replace(/^((?:import .*\n)+)(?!\n)/m, "$1\n");
    return `${header}\n${text}`;
  });
}

/** The event types a row's steps emit (in order, once each; nested each steps included). */
export function emittedTypes(steps: StepIR[]): string[] {
  const out: string[] = [];
  const walk = (ss: StepIR[]) => { for (const s of ss) { if (s.k === "emit" && !out.includes(s.type)) out.push(s.type); else if (s.k === "each") walk(s.steps); } };
  walk(steps);
  return out;
}

/** Every expression of a table's rows (conditions, identities, holds, steps), depth first. */
export function tableExprs(t: TableIR): Expr[] {
  const out: Expr[] = [];
  const expr = (e: Expr | undefined): void => { out.push(...allExprs(e)); };
  const cond = (c: Cond): void => { condExprs([c]).forEach(expr); };
  const steps = (ss: StepIR[]): void => {
    for (const s of ss) {
      s.lets?.forEach((l) => expr(l.value));
      if (s.k === "emit") { expr(s.payload); s.cond.forEach(cond); }
      else if (s.k === "snapshot") { expr(s.snap.text); expr(s.snap.parts); s.cond.forEach(cond); }
      else if (s.k === "set") { s.key.forEach(expr); expr(s.value); s.cond.forEach(cond); }
      else if (s.k === "upstreamVersion") { expr(s.value); s.cond.forEach(cond); }
      else if (s.k === "dispatch") expr(s.message);
      else if (s.k === "each") { expr(s.each); steps(s.steps); }
    }
  };
  for (const r of t.rows) { r.when.forEach(cond); r.ids.forEach((i) => expr(i.path)); r.hold?.forEach(expr); r.lets?.forEach((l) => expr(l.value)); steps(r.steps); }
  for (const w of t.input) { w.when.forEach(cond); expr(w.message); if (w.typeFrom) expr(w.typeFrom); w.meta.forEach(([, e]) => expr(e)); }
  return out;
}

/** Does a row of `t`, or of a table its rows dispatch to (transitively), take a snapshot? */
export function takesSnapshots(t: TableIR, tables: readonly TableIR[]): boolean {
  const seen = new Set<string>();
  const todo = [t.surface];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    const u = tables.find((x) => x.surface === s);
    if (!u) return true; // a surface codegen does not know: assume it does
    let snaps = false;
    const walk = (ss: StepIR[]): void => {
      for (const st of ss) {
        if (st.k === "snapshot") snaps = true;
        else if (st.k === "dispatch") todo.push(st.surface ?? s);
        else if (st.k === "each") walk(st.steps);
      }
    };
    for (const r of u.rows) walk(r.steps);
    if (snaps) return true;
  }
  return false;
}

/** The helper modules (mappings/helpers/<module>.ts) a table's rows call. */
function helperModules(t: TableIR): string[] {
  return [...new Set(tableExprs(t).flatMap((e) => (e.k === "helper" && e.module ? [e.module] : [])))].sort();
}
