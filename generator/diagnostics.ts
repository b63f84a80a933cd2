/**
 * Diagnostics: every user error the generator finds is collected as a Diagnostic with a source position,
 * printed as `file:line:col error CODE message`, and makes the run exit non-zero. Generator bugs throw.
 */
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Document, type Node } from "yaml";

export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  code: string;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} error ${d.code} ${d.message}`;
}

export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message));
}

/** A YAML file parsed with positions, so any value path can be turned back into file:line:col. */
export class SourcedYaml {
  readonly doc: Document;
  readonly value: any;
  private readonly lc = new LineCounter();
  readonly parseErrors: Diagnostic[] = [];

  constructor(readonly file: string, text: string) {
    this.doc = parseDocument(text, { lineCounter: this.lc, prettyErrors: false, uniqueKeys: true });
    for (const e of [...this.doc.errors, ...this.doc.warnings]) {
      const p = this.lc.linePos(e.pos[0]);
      this.parseErrors.push({ file, line: p.line, col: p.col, code: "E001", message: `YAML: ${e.message.split("\n")[0]}` });
    }
    this.value = this.doc.toJS();
  }

  /** Position of the node at `path` (keys and indices); falls back to the nearest ancestor that exists. */
  pos(path: readonly (string | number)[], preferKey = false): { line: number; col: number } {
    for (let n = path.length; n >= 0; n--) {
      const sub = path.slice(0, n);
      const node = sub.length === 0 ? this.doc.contents : this.nodeAt(sub, preferKey && n === path.length);
      if (node && (node as Node).range) {
        const p = this.lc.linePos((node as Node).range![0]);
        return { line: p.line, col: p.col };
      }
    }
    return { line: 1, col: 1 };
  }

  private nodeAt(path: readonly (string | number)[], wantKey: boolean): unknown {
    let node: unknown = this.doc.contents;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg));
        if (!pair) return undefined;
        node = wantKey && i === path.length - 1 ? pair.key : pair.value;
      } else if (isSeq(node)) {
        node = node.items[Number(seg)];
      } else return undefined;
    }
    return node;
  }

  diag(path: readonly (string | number)[], code: string, message: string, atKey = false): Diagnostic {
    const p = this.pos(path, atKey);
    return { file: this.file, line: p.line, col: p.col, code, message };
  }
}

/** Closest candidates by edit distance, for "did you mean" hints. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  let best = "";
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best && bestD <= Math.max(2, Math.floor(word.length / 3)) ? ` (did you mean "${best}"?)` : "";
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/**
 * A user-facing problem found deep inside a stage (a broken or missing upstream schema, a canonical schema the
 * validator cannot be compiled from, …). Stages throw it where returning diagnostics would thread them through every caller; the pipeline
 * catches it and reports its diagnostics like any other. Anything else thrown is a generator bug.
 */
export class DiagnosticError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "DiagnosticError";
  }
}

/** 1-based line and column of a character offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const nl = before.lastIndexOf("\n");
  return { line: before.split("\n").length, col: offset - nl };
}

/** A JSON.parse failure as a diagnostic at the offending position (Node prints "position N" and/or "line L column C"). */
export function jsonParseDiagnostic(file: string, text: string, err: unknown, code: string): Diagnostic {
  const msg = err instanceof Error ? err.message : String(err);
  const lc = /line (\d+) column (\d+)/.exec(msg);
  const pos = /position (\d+)/.exec(msg);
  const at = lc ? { line: Number(lc[1]), col: Number(lc[2]) } : pos ? lineCol(text, Number(pos[1])) : text.trim() === "" ? { line: 1, col: 1 } : lineCol(text, text.length);
  const what = msg.replace(/\s*\(line \d+ column \d+\)/, "").replace(/ in JSON at position \d+.*$/, "").replace(/, "[\s\S]*" is not valid JSON$/, "");
  return { file, line: at.line, col: at.col, code, message: `not valid JSON: ${what}` };
}

/**
 * Offset of the value at a JSON pointer path (keys and indices) in JSON text, or of the deepest ancestor found.
 * A small scanner, enough to point a diagnostic at the member of a schema file it is about.
 */
export function jsonOffset(text: string, path: readonly (string | number)[]): number {
  let i = 0;
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    try { return JSON.parse(text.slice(start, i)); } catch { return ""; }
  };
  const skip = (): void => {
    ws();
    const c = text[i];
    if (c === '"') { str(); return; }
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      while (i < text.length && text[i] !== close) {
        if (c === "{") { str(); ws(); i++; }
        skip();
        ws();
        if (text[i] === ",") { i++; ws(); }
      }
      i++;
      return;
    }
    while (i < text.length && !/[\s,}\]]/.test(text[i])) i++;
  };
  ws();
  let found = i;
  for (const seg of path) {
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      let hit = false;
      while (i < text.length && text[i] !== "}") {
        const k = str();
        ws();
        i++; // ':'
        ws();
        if (k === String(seg)) { hit = true; break; }
        skip();
        ws();
        if (text[i] === ",") { i++; ws(); }
      }
      if (!hit) return found;
    } else if (c === "[") {
      i++;
      ws();
      let n = 0;
      while (i < text.length && text[i] !== "]" && n < Number(seg)) {
        skip();
        ws();
        if (text[i] === ",") { i++; ws(); }
        n++;
      }
      if (n !== Number(seg) || text[i] === "]") return found;
    } else return found;
    found = i;
  }
  return found;
}
