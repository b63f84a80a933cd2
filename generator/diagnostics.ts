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
