/**
 * One-off mechanical converter: mapping tables from DSL v1 to DSL v2 (rewrites the YAML in place, keeping comments).
 *   method/methods/type/types → match;  ignored.methods → match;  hold.until → hold;  upstream.responseTypes dropped
 *   set / snapshot / closeOpen / emit / replay / delegate → one ordered `steps:` list, in v1's fixed evaluation
 *     order (set, row snapshots, closeOpen, emit entries, replay, delegate)
 *   replay {method, params} → dispatch {method, params}; replay {message} → dispatch; {surface, message} and
 *     delegate → dispatch + raw: original (surface left out when it is the table's own)
 *   emit guards that restate the canonical lifecycle's default guard are dropped; emits without it get guard: none
 *   table defaults: ids a majority of rows repeat verbatim (e.g. thread: {op: current}) move to defaults.ids
 * Usage: tsx tools/convert-dsl-v2.ts FILE.yaml…
 */
import { readFileSync, writeFileSync } from "node:fs";
import { isMap, isPair, isScalar, isSeq, parseDocument, Pair, Scalar, YAMLMap, YAMLSeq, type Document, type Node } from "yaml";
import { parse as parseYaml } from "yaml";

const canonical = parseYaml(readFileSync("schemas/canonical/canonical.yaml", "utf8"));
const GUARDS: Record<string, { role: string; guard: string }> = {};
for (const l of Object.values<any>(canonical.lifecycle)) for (const [t, g] of Object.entries<string>(l.guards ?? {})) GUARDS[t] = { role: l.role, guard: g };
const STATE = new Set(["new", "open", "notOpen", "stale", "notStale"]);

function defaultGuard(type: string, op: string | undefined): string[] | undefined {
  const g = GUARDS[type];
  if (!g || op === undefined) return [];
  const r = g.role;
  if (g.guard === "open") return [`open:${r}`];
  if (g.guard === "notStale") return op === "mint" ? [] : [`notStale:${r}`];
  if (op === "mint") return [];
  return op === "open" ? [`new:${r}`] : [`notOpen:${r}`, `notStale:${r}`];
}

const keyOf = (p: Pair): string => String(isScalar(p.key) ? p.key.value : p.key);
const get = (m: YAMLMap, k: string): Pair | undefined => (m.items as Pair[]).find((p) => keyOf(p) === k);
const rename = (p: Pair, k: string): void => { if (isScalar(p.key)) p.key.value = k; else p.key = new Scalar(k); };

function opOf(ids: any, role: string): string | undefined {
  const spec = ids?.[role];
  if (spec === undefined) return undefined;
  return typeof spec === "string" ? "use" : spec.op ?? "use";
}

function convertTable(file: string): void {
  const doc: Document = parseDocument(readFileSync(file, "utf8"));
  const root = doc.contents as YAMLMap;
  const surface = String((doc.toJS() as any).surface);
  const up = get(root, "upstream")!.value as YAMLMap;
  const rt = get(up, "responseTypes");
  if (rt) up.items.splice(up.items.indexOf(rt), 1);

  const rows = (get(root, "rows")!.value as YAMLSeq).items as YAMLMap[];

  // Defaults: an ids entry that most rows repeat verbatim, where taking it out keeps every row's id order.
  const defaults: [string, unknown][] = [];
  for (const role of ["thread", "turn", "session"]) {
    const counts = new Map<string, number>();
    for (const r of rows) {
      const ids = (r.toJSON() as any).ids;
      if (ids && role in ids) counts.set(JSON.stringify(ids[role]), (counts.get(JSON.stringify(ids[role])) ?? 0) + 1);
    }
    const best = [...counts].sort((a, b) => b[1] - a[1])[0];
    if (!best || best[1] * 2 < rows.length) continue;
    const cand = [...defaults, [role, JSON.parse(best[0])] as [string, unknown]];
    if (rows.every((r) => orderKept((r.toJSON() as any).ids ?? {}, cand))) defaults.push([role, JSON.parse(best[0])]);
  }

  for (const r of rows) convertRow(doc, r, surface, defaults);

  if (defaults.length) {
    const d = new YAMLMap();
    const ids = new YAMLMap();
    ids.flow = false;
    for (const [role, v] of defaults) { const n = doc.createNode(v) as YAMLMap; n.flow = true; ids.items.push(new Pair(new Scalar(role), n)); }
    d.items.push(new Pair(new Scalar("ids"), ids));
    const at = root.items.indexOf(get(root, "maps") ?? get(root, "rows")!);
    const pair = new Pair(new Scalar("defaults"), d);
    (pair.key as Scalar).commentBefore = " Every row's identities start from these (a row's own ids.<role> replaces one; <role>: none drops it).";
    (pair.key as Scalar).spaceBefore = true;
    root.items.splice(at, 0, pair);
  }

  const ign = get(root, "ignored");
  if (ign && isSeq(ign.value)) for (const g of ign.value.items as YAMLMap[]) { const m = get(g, "methods"); if (m) rename(m, "match"); }
  writeFileSync(file, unpadSeqs(doc.toString({ lineWidth: 0, flowCollectionPadding: true })));
}

/** v1 wrote flow sequences unpadded (`[a, b]`) and flow maps padded (`{ a: b }`): keep that. */
function unpadSeqs(text: string): string {
  return text.split("\n").map((line) => {
    let out = "";
    let q: string | undefined;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (q) { out += c; if (c === "\\" && q === '"') { out += line[++i] ?? ""; continue; } if (c === q) q = undefined; continue; }
      if (c === '"' || c === "'") { q = c; out += c; continue; }
      if (c === "#" && (i === 0 || line[i - 1] === " ")) { out += line.slice(i); break; }
      if (c === "[" && line[i + 1] === " ") { out += "["; i++; continue; }
      if (c === " " && line[i + 1] === "]" && out.length && !out.endsWith(" ")) { continue; }
      out += c;
    }
    return out;
  }).join("\n");
}

/** Would these defaults, merged like the loader merges them, keep the row's id order? */
function orderKept(ids: Record<string, unknown>, defaults: [string, unknown][]): boolean {
  const merged: string[] = [];
  for (const [role] of defaults) if (role in ids) merged.push(role);
  for (const role of Object.keys(ids)) if (!defaults.some(([d]) => d === role)) merged.push(role);
  return merged.join() === Object.keys(ids).join();
}

function convertRow(doc: Document, r: YAMLMap, surface: string, defaults: [string, unknown][]): void {
  const js = r.toJSON() as any;
  const rowIds = js.ids ?? {};
  // match
  for (const k of ["method", "methods", "type", "types"]) { const p = get(r, k); if (p) rename(p, "match"); }
  // hold
  const hold = get(r, "hold");
  if (hold && isMap(hold.value)) hold.value = (get(hold.value, "until")!.value as Node);

  // steps, in v1's order
  const stepKeys = ["set", "snapshot", "closeOpen", "emit", "replay", "delegate"];
  const present = (r.items as Pair[]).filter((p) => stepKeys.includes(keyOf(p)));
  if (present.length) {
    const steps = new YAMLSeq();
    const carry = (p: Pair, first: Node | undefined) => {
      const c = (p.key as Scalar).commentBefore;
      if (c && first) first.commentBefore = first.commentBefore ? `${c}\n${first.commentBefore}` : c;
    };
    for (const k of stepKeys) {
      const p = get(r, k);
      if (!p) continue;
      const before = steps.items.length;
      if (k === "set") for (const x of (p.value as YAMLSeq).items as YAMLMap[]) { rename(get(x, "key")!, "set"); steps.items.push(x); }
      else if (k === "snapshot") for (const x of (p.value as YAMLSeq).items as YAMLMap[]) steps.items.push(snapStep(doc, x));
      else if (k === "closeOpen") { const m = new YAMLMap(); m.flow = true; m.items.push(new Pair(new Scalar("closeOpen"), p.value)); steps.items.push(m); }
      else if (k === "emit") for (const x of (p.value as YAMLSeq).items as YAMLMap[]) steps.items.push(emitStep(doc, x, rowIds));
      else if (k === "replay") for (const x of (p.value as YAMLSeq).items as YAMLMap[]) steps.items.push(replayStep(doc, x, surface));
      else if (k === "delegate") steps.items.push(dispatchStep(doc, p.value as YAMLMap, surface));
      carry(p, steps.items[before] as Node | undefined);
    }
    const at = r.items.indexOf(present[0]);
    for (const p of present) r.items.splice(r.items.indexOf(p), 1);
    r.items.splice(at, 0, new Pair(new Scalar("steps"), steps));
  }

  // defaults
  const idsPair = get(r, "ids");
  if (defaults.length) {
    let ids = idsPair?.value as YAMLMap | undefined;
    const drop: Pair[] = [];
    const add: [string, string][] = [];
    for (const [role, v] of defaults) {
      if (role in rowIds) { if (JSON.stringify(rowIds[role]) === JSON.stringify(v)) drop.push(get(ids!, role)!); }
      else add.push([role, "none"]);
    }
    if (ids) for (const p of drop) ids.items.splice(ids.items.indexOf(p), 1);
    if (add.length) {
      if (!ids) { ids = new YAMLMap(); ids.flow = true; r.items.splice(r.items.indexOf(get(r, "steps") ?? get(r, "examples") ?? r.items[r.items.length - 1]), 0, new Pair(new Scalar("ids"), ids)); }
      for (const [role, v] of add) ids.items.push(new Pair(new Scalar(role), new Scalar(v)));
    }
    if (ids && ids.items.length === 0) r.items.splice(r.items.indexOf(idsPair!), 1);
  }
}

function snapStep(doc: Document, x: YAMLMap): YAMLMap {
  const idx = get(x, "index");
  if (idx) x.items.splice(x.items.indexOf(idx), 1);
  const m = new YAMLMap();
  m.flow = true;
  m.items.push(new Pair(new Scalar("snapshot"), x));
  return m;
}

function emitStep(doc: Document, x: YAMLMap, rowIds: any): YAMLMap {
  const snap = get(x, "snapshot");
  if (snap) {
    const idx = isMap(snap.value) ? get(snap.value, "index") : undefined;
    if (idx) (snap.value as YAMLMap).items.splice((snap.value as YAMLMap).items.indexOf(idx), 1);
    return x; // { snapshot: {...}, if? }
  }
  const typeP = get(x, "type")!;
  const type = String((typeP.value as Scalar).value);
  rename(typeP, "emit");
  const g = GUARDS[type];
  const want = defaultGuard(type, g ? opOf(rowIds, g.role) : undefined) ?? [];
  if (!want.length) return x;
  const ifP = get(x, "if");
  const conds = ifP && isMap(ifP.value) ? (ifP.value.items as Pair[]) : [];
  const have = conds.filter((p) => STATE.has(keyOf(p))).map((p) => `${keyOf(p)}:${String((p.value as Scalar).value)}`);
  if (want.every((w) => have.includes(w))) {
    const m = ifP!.value as YAMLMap;
    for (const w of want) { const p = (m.items as Pair[]).find((q) => `${keyOf(q)}:${String((q.value as Scalar).value)}` === w)!; m.items.splice(m.items.indexOf(p), 1); }
    if (!m.items.length) x.items.splice(x.items.indexOf(ifP!), 1);
  } else {
    x.items.splice(x.items.indexOf(typeP) + 1, 0, new Pair(new Scalar("guard"), new Scalar("none")));
  }
  return x;
}

function dispatchStep(doc: Document, x: YAMLMap, surface: string): YAMLMap {
  const m = new YAMLMap();
  m.flow = x.flow;
  const msg = get(x, "message")!;
  const s = get(x, "surface");
  m.items.push(new Pair(new Scalar("dispatch"), msg.value));
  if (s && String((s.value as Scalar).value) !== surface) m.items.push(new Pair(new Scalar("surface"), s.value));
  m.items.push(new Pair(new Scalar("raw"), new Scalar("original")));
  return m;
}

function replayStep(doc: Document, x: YAMLMap, surface: string): YAMLMap {
  if (get(x, "each")) {
    const msgs = get(x, "messages")!;
    rename(msgs, "steps");
    const seq = msgs.value as YAMLSeq;
    seq.items = (seq.items as YAMLMap[]).map((y) => replayStep(doc, y, surface));
    return x;
  }
  if (get(x, "surface")) return dispatchStep(doc, x, surface);
  if (get(x, "message")) { rename(get(x, "message")!, "dispatch"); return x; }
  // JSON-RPC: { method, params } → dispatch: { method, params }
  const m = new YAMLMap();
  m.flow = x.flow;
  const inner = new YAMLMap();
  inner.flow = true;
  for (const p of x.items as Pair[]) inner.items.push(p);
  m.items.push(new Pair(new Scalar("dispatch"), inner));
  return m;
}

for (const f of process.argv.slice(2)) { convertTable(f); console.error(`converted ${f}`); }
void isPair;
