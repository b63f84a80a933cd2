/**
 * A real recording with one item's streamed text replaced by given deltas: the first item that streams `kind`
 * (assistant_text, reasoning_text…) gets `pieces` as its deltas, in the provider's own message shape (the first
 * delta message is the template); the item's whole text, where a later message repeats it, becomes their
 * concatenation. For the cross-delta redaction tests (test/redact-stream.test.ts).
 */
import { readFileSync } from "node:fs";
import { unwrapCaptureLine } from "../../src/capture/unwrap.js";
import { counterIds, steppingClock } from "../../src/normalize/ids.js";
import { createNormalizer } from "../../src/normalize/normalizer.js";

function paths(v: unknown, text: string, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (typeof v === "string") { if (v === text) out.push(at); return out; }
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, text, [...at, i], out));
  else if (v && typeof v === "object") for (const k of Object.keys(v)) if (k !== "type" && k !== "field") paths((v as any)[k], text, [...at, k], out);
  return out;
}

function set(v: any, path: (string | number)[], value: unknown): void {
  for (let i = 0; i < path.length - 1; i++) v = v[path[i]];
  v[path[path.length - 1]] = value;
}

function replaceAll(v: any, from: string, to: string): any {
  if (typeof v === "string") return v === from ? to : v;
  if (Array.isArray(v)) return v.map((x) => replaceAll(x, from, to));
  if (v && typeof v === "object") { for (const k of Object.keys(v)) v[k] = replaceAll(v[k], from, to); return v; }
  return v;
}

export interface Planter {
  surface: string;
  kind: string;
  /** The recording with the item's deltas replaced by `pieces`. */
  with(pieces: string[]): string;
}

export function planter(repo: string, surface: string, file: string, kind: string): Planter {
  const lines = readFileSync(`${repo}/${file}`, "utf8").split("\n").filter((l) => l.trim());
  const n = createNormalizer({ surface, ids: counterIds(), clock: steppingClock(), includeRaw: false });
  const hits: { line: number; item: string; delta: string }[] = [];
  lines.forEach((l, i) => {
    const { message, meta } = unwrapCaptureLine(JSON.parse(l));
    for (const e of n.push(message, { direction: meta.direction, capture: meta.capture }) as any[]) {
      if (e.type === "content.delta" && e.payload.streamKind === kind && e.payload.delta) hits.push({ line: i, item: e.itemId, delta: e.payload.delta });
    }
  });
  if (!hits.length) throw new Error(`${file}: no ${kind} deltas`);
  const item = hits[0].item;
  const mine = hits.filter((h) => h.item === item);
  const full = mine.map((h) => h.delta).join("");
  const first = mine[0];
  const template = JSON.parse(lines[first.line]);
  const leaf = paths(unwrapCaptureLine(template).message, first.delta)[0];
  if (!leaf) throw new Error(`${file}: the delta is not a field of its message`);
  const drop = new Set(mine.map((h) => h.line));
  return {
    surface,
    kind,
    with(pieces) {
      const out: string[] = [];
      lines.forEach((l, i) => {
        if (i === first.line) {
          for (const p of pieces) {
            const w = JSON.parse(l);
            const m = unwrapCaptureLine(w).message;
            set(m, leaf, p);
            out.push(JSON.stringify(w));
          }
        } else if (!drop.has(i)) out.push(full ? JSON.stringify(replaceAll(JSON.parse(l), full, pieces.join(""))) : l);
      });
      return out.join("\n") + "\n";
    },
  };
}
