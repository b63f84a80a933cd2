/**
 * What the tables do not account for in a recorded file (the record mode of the drift check): the file is
 * normalized with its surface (every `runtime.warning` of an unknown kind, every validation error), and each message
 * is compared with the member of the pinned schema its kind and type name (tools/drift/shapes.ts): types the pinned
 * schema files do not list, fields they do not declare, string values they do not allow — each named with its kind,
 * type and the subtype on the way.
 *
 * Messages are classified the way the normalizer classifies them (src/normalize/dispatch.ts): the capture wrapper
 * taken off (src/capture/unwrap.ts), a tagged table's input wrappers applied, a JSON-RPC message's kind from its
 * direction and id. Responses (no schema file names their shapes), messages of kinds without a schema file and lines
 * a table's input wrappers ignore are not compared: they are counted as such.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SURFACES } from "../../generated/surfaces.gen.ts";
import { unwrapCaptureLine } from "../../src/capture/unwrap.ts";
import { createNormalizer } from "../../src/normalize/normalizer.ts";
import { UpstreamSchemas, type UpstreamMethod } from "../../generator/upstream.ts";
import { readTableUpstream } from "./inventory.ts";
import { checkShape } from "./shapes.ts";

/** A recorded file's name after `<scenario>`: the form it holds and the surface that normalizes it (default: the recorder's). */
export const FORMS: { suffix: RegExp; form: string; surface?: string }[] = [
  { suffix: /^$/, form: "stream" },
  { suffix: /^\.wire$/, form: "wire", surface: "claude-sdk" },
  { suffix: /^\.transcript$/, form: "transcript", surface: "claude-transcript" },
  { suffix: /^\.transcript-subagents$/, form: "transcript (subagents)", surface: "claude-transcript" },
  { suffix: /^\.rollout(-\d+)?$/, form: "rollout", surface: "codex-rollout" },
  { suffix: /^\.messages$/, form: "history", surface: "opencode-history" },
  { suffix: /^\.load$/, form: "history (session/load)" },
];

export function formOf(suffix: string, recorderSurface: string): { form: string; surface: string } | undefined {
  const f = FORMS.find((x) => x.suffix.test(suffix));
  return f && { form: f.form, surface: f.surface ?? recorderSurface };
}

export interface Tally { key: string; kind: string; method: string; count: number; example: string; files: string[] }
export interface FieldTally extends Tally { what: "field" | "value"; path: string; value?: string; where: string[] }

export interface FileAnalysis {
  surface: string;
  schemaDir: string;
  lines: number;
  /** Messages compared with a schema member. */
  checked: number;
  /** Messages not compared, by reason. */
  unchecked: Record<string, number>;
  /** runtime.warning agentnorm#unknown (and "no row matched") from the normalizer. */
  unknown: Tally[];
  /** runtime.error validation_error from the normalizer. */
  invalid: Tally[];
  /** Types / methods no schema file of the pinned folder lists. */
  notInSchema: Tally[];
  /** Fields and values the pinned member does not declare. */
  shapes: FieldTally[];
}

function tally<T extends Tally>(list: T[], key: string, make: () => Omit<T, "count" | "files">, file: string): void {
  let t = list.find((x) => x.key === key);
  if (!t) list.push((t = { ...make(), count: 0, files: [] } as unknown as T));
  t.count++;
  if (!t.files.includes(file)) t.files.push(file);
}

const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Analyze one recorded file (capture lines or bare messages, one per line) as `surface`, against the pinned schema
 * folder `schemaDir` (default: the table's upstream.dir).
 */
export function analyzeFile(root: string, file: string, surface: string, opts: { schemaDir?: string; label?: string } = {}): FileAnalysis {
  const table = SURFACES[surface];
  if (!table) throw new Error(`no surface "${surface}" (surfaces: ${Object.keys(SURFACES).join(", ")})`);
  const up = readTableUpstream(root, surface);
  const schemaDir = opts.schemaDir ?? up.dir;
  const schemas = new UpstreamSchemas(join(root, schemaDir), schemaDir);
  const members = new Map<string, Map<string, UpstreamMethod>>();
  const kindFile = new Map(up.kinds.map((k) => [k.kind, k]));
  for (const k of up.kinds) if (schemas.exists(k.file)) members.set(k.kind, schemas.methods(k.file, k.tag));
  // an extension's kinds (its own folder: e.g. ACP's session-model request) add members to the kind
  for (const k of up.extensionKinds) {
    const ext = new UpstreamSchemas(join(root, k.dir!), k.dir);
    if (!ext.exists(k.file)) continue;
    const mine = members.get(k.kind) ?? new Map<string, UpstreamMethod>();
    for (const [m, u] of ext.methods(k.file, k.tag)) if (!mine.has(m)) mine.set(m, u);
    members.set(k.kind, mine);
  }
  const label = opts.label ?? file;
  const res: FileAnalysis = { surface, schemaDir, lines: 0, checked: 0, unchecked: {}, unknown: [], invalid: [], notInSchema: [], shapes: [] };
  const skip = (why: string) => { res.unchecked[why] = (res.unchecked[why] ?? 0) + 1; };

  const n = createNormalizer({ surface, includeRaw: true });
  const text = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  res.lines = text.length;
  const events = [...text.flatMap((l, i) => n.pushLine(l, { lineNumber: i + 1 })), ...n.end()];
  for (const e of events as any[]) {
    if (e.type === "runtime.warning" && e.raw?.rule === "agentnorm#unknown") {
      const d = e.payload?.detail ?? {};
      const msg = String(e.payload?.message ?? "");
      tally(res.unknown, `${d.kind ?? "?"} ${d.method ?? msg}`, () => ({ key: `${d.kind ?? "?"} ${d.method ?? msg}`, kind: String(d.kind ?? "?"), method: String(d.method ?? ""), example: clip(msg) }), label);
    }
    if (e.type === "runtime.error" && e.payload?.class === "validation_error") {
      const msg = String(e.payload?.message ?? "");
      const key = msg.replace(/^line \d+: /, "").replace(/#\d+/g, "#n");
      tally(res.invalid, key, () => ({ key, kind: "", method: String(e.raw?.method ?? ""), example: clip(msg) }), label);
    }
  }

  for (const line of text) {
    let parsed: unknown;
    try { parsed = JSON.parse(line); } catch { skip("not JSON"); continue; }
    const { message: m0, meta } = unwrapCaptureLine(parsed);
    let message: any = m0;
    let kind: string | undefined;
    let method: string | undefined;
    if (table.protocol === "jsonrpc") {
      if (!message || typeof message !== "object" || typeof message.method !== "string") { skip("responses (no schema file)"); continue; }
      const hasId = typeof message.id === "string" || typeof message.id === "number";
      const dir = meta.direction ?? "in";
      kind = dir === "in" ? (hasId ? "request" : "notification") : hasId ? "clientRequest" : "clientNotification";
      method = message.method;
    } else {
      let wrapperKind: string | undefined;
      let wrapperType: string | undefined;
      if (table.input) {
        const w = table.input(message, meta.capture);
        if (!w) { skip("no input wrapper matches"); continue; }
        if ("ignore" in w) { skip("ignored by the table's input wrappers"); continue; }
        message = w.message;
        wrapperKind = w.kind;
        wrapperType = typeof w.type === "string" ? w.type : undefined;
      }
      if (!message || typeof message !== "object" || Array.isArray(message)) { skip("not an object"); continue; }
      const tagged = Object.keys(table.tags).filter((k) => !wrapperKind || k === wrapperKind);
      for (const k of tagged) {
        const v = wrapperType ?? message[table.tags[k]];
        if (typeof v === "string" && members.get(k)?.has(v)) { kind = k; method = v; break; }
      }
      if (!kind) {
        // the first kind with a schema file whose tag field the message has: a type the pinned files do not list
        const k = tagged.find((x) => members.has(x) && typeof (wrapperType ?? message[table.tags[x]]) === "string");
        if (k) { kind = k; method = wrapperType ?? message[table.tags[k]]; }
        else { skip(tagged.some((x) => members.has(x)) ? "no type tag" : "kind without a schema file"); continue; }
      }
    }
    const mine = members.get(kind!);
    if (!mine) { skip("kind without a schema file"); continue; }
    const member = mine.get(method!);
    if (!member) {
      const key = `${kind} ${method}`;
      tally(res.notInSchema, key, () => ({ key, kind: kind!, method: method!, example: clip(JSON.stringify(message)) }), label);
      continue;
    }
    res.checked++;
    const tag = kindFile.get(kind!)?.tag ?? "type";
    for (const f of checkShape(member.message.doc, member.message.node, message)) {
      // the JSON-RPC envelope's version field: no member declares it
      if (table.protocol === "jsonrpc" && f.path === "jsonrpc") continue;
      const where = f.where.filter((w) => w !== `${tag} = ${JSON.stringify(method)}`);
      const key = `${kind} ${method} ${f.what} ${f.path} ${f.value ?? ""} ${where.join(", ")}`;
      tally(res.shapes, key, () => ({ key, kind: kind!, method: method!, what: f.what, path: f.path, value: f.value, where, example: "" }), label);
    }
  }
  return res;
}
