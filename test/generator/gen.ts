/**
 * Shared setup for the generator tests.
 *
 * The generator's modules import each other with `.ts` extensions (they run under tsx). `npm run typecheck`
 * (tsc -p tsconfig.json, which covers test/**) has allowImportingTsExtensions off, so a static
 * `import … from "../../generator/x.ts"` here would pull generator/ into that program and break the
 * typecheck. The modules are therefore loaded by URL at run time (vitest transforms them like any other
 * import), and the little of their API the tests use is typed below.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURES = join(ROOT, "test/generator/fixtures");
export const MINI_UPSTREAM = join(FIXTURES, "mini-upstream");
/** The name the mini table is loaded under (what diagnostics print). */
export const MINI_FILE = "test/generator/fixtures/mini.yaml";
export const CODEX_DIR = join(ROOT, "schemas/upstream/codex-app-server/0.171.0");
/** The opencode 1.18.33 schemas the small tagged tables of the DSL word tests are written over. */
export const OPENCODE_DIR = join(ROOT, "schemas/upstream/opencode/1.18.33");

/** A small tagged table over the opencode 1.18.33 event schema: its header, then `rest` (YAML, from `rows:` on). */
export const opencodeTable = (surface: string, rest: string): string => `surface: ${surface}
provider: opencode
protocol: tagged
upstream:
  package: "@opencode-ai/sdk"
  version: 1.18.33
  dir: schemas/upstream/opencode/1.18.33
  kinds:
    event: { file: Event.json, source: opencode.event, tag: type }
${rest}`;

export interface Diagnostic { file: string; line: number; col: number; code: string; message: string }
export interface SchemaRef { file: string; doc: any; node: any }
export interface PathResult { ok: boolean; required: boolean; targets: SchemaRef[]; failedAt?: number; known?: string[] }
export interface UpstreamMethod { method: string; message: SchemaRef; paramsRefName?: string }
export interface UpstreamSchemas {
  readonly dir: string;
  readonly read: Set<string>;
  doc(file: string): any;
  exists(file: string): boolean;
  methods(file: string): Map<string, UpstreamMethod>;
  responseSchema(paramsRefName: string | undefined): SchemaRef | undefined;
}
export interface CanonicalModel { eventTypes: string[]; enums: Record<string, string[]>; payloads: Record<string, any> }
export interface TableIR { file: string; surface: string; rows: { rule: string; line: number; methods: string[] }[]; maps: { name: string }[] }
export interface TableContext {
  canonical: CanonicalModel;
  dslSchema: object;
  helpers: Map<string, { min: number; max: number }>;
  helperFile: string;
  usedHelpers: Set<string>;
  upstream: (dir: string) => UpstreamSchemas | undefined;
}
export type FileMap = Map<string, string>;

export interface Generator {
  diagnostics: {
    formatDiagnostic(d: Diagnostic): string;
  };
  upstream: {
    UpstreamSchemas: new (dir: string, label?: string) => UpstreamSchemas;
    resolvePath(root: SchemaRef, segments: string[]): PathResult;
    variants(s: SchemaRef): SchemaRef[];
    enumValues(targets: SchemaRef[]): string[] | undefined;
  };
  canonical: {
    loadCanonical(file: string, text: string): { model?: CanonicalModel; diagnostics: Diagnostic[] };
  };
  tables: {
    loadTable(file: string, text: string, cx: TableContext): { table?: TableIR; diagnostics: Diagnostic[] };
  };
  pipeline: {
    helperSignatures(root: string): Map<string, { min: number; max: number; line: number; file: string; module: string }>;
    buildAll(root: string, only?: { tables?: string[] }): Promise<{ diagnostics: Diagnostic[]; files?: FileMap }>;
    checkFiles(root: string, files: FileMap): string[];
  };
  emitMapper: {
    emitMapper(t: TableIR, upstreamTypesModule: string, typeNames: Record<string, string | undefined>, header: string): string;
    exprCode(e: unknown, scope: Set<string>): string;
    expandBlocks(text: string): string;
  };
  emitVars: { emitVars(tables: TableIR[], header: string): string };
}

const load = (name: string): Promise<any> => import(/* @vite-ignore */ pathToFileURL(join(ROOT, "generator", `${name}.ts`)).href);

export async function loadGenerator(): Promise<Generator> {
  const [diagnostics, upstream, canonical, tables, pipeline, emitMapper, emitVars] = await Promise.all(
    ["diagnostics", "upstream", "canonical", "tables", "pipeline", "emit-mapper", "emit-vars"].map(load),
  );
  return { diagnostics, upstream, canonical, tables, pipeline, emitMapper, emitVars };
}

/** The repo's canonical model, DSL schema and helper names, plus an upstream opener that always opens `dir`. */
export function tableContext(gen: Generator, upstreamDir = MINI_UPSTREAM): TableContext {
  // Loaded once per test file (the same objects each call, so the compiled DSL schema is reused too).
  if (!base || base.gen !== gen) {
    const canonicalText = readFileSync(join(ROOT, "schemas/canonical/canonical.yaml"), "utf8");
    const c = gen.canonical.loadCanonical("schemas/canonical/canonical.yaml", canonicalText);
    if (!c.model || c.diagnostics.length) throw new Error(`canonical model does not load: ${JSON.stringify(c.diagnostics)}`);
    base = {
      gen,
      canonical: c.model,
      dslSchema: JSON.parse(readFileSync(join(ROOT, "schemas/mapping-dsl.schema.json"), "utf8")),
      helpers: gen.pipeline.helperSignatures(ROOT),
    };
  }
  return {
    canonical: base.canonical,
    dslSchema: base.dslSchema,
    helpers: new Map(base.helpers),
    helperFile: "mappings/helpers/*.ts",
    usedHelpers: new Set(),
    upstream: () => new gen.upstream.UpstreamSchemas(upstreamDir),
  };
}
let base: { gen: Generator; canonical: CanonicalModel; dslSchema: object; helpers: ReturnType<Generator["pipeline"]["helperSignatures"]> } | undefined;

export const miniText = (): string => readFileSync(join(FIXTURES, "mini.yaml"), "utf8");

export const sha256 = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

/** Where miniRoot() pins the mini upstream, relative to its root. */
export const MINI_PINNED = "schemas/upstream/mini/1.0.0";

/**
 * A throwaway project root with the real canonical model, DSL schema and helpers, and one table: the mini table,
 * its upstream pinned at MINI_PINNED with a PROVENANCE.md that lists it. Tests break one input and run buildAll on it.
 */
export function miniRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "agentnorm-mini-root-"));
  for (const p of ["schemas/canonical", "schemas/mapping-dsl.schema.json", "mappings/helpers"]) cpSync(join(ROOT, p), join(root, p), { recursive: true });
  mkdirSync(join(root, MINI_PINNED), { recursive: true });
  const schema = readFileSync(join(MINI_UPSTREAM, "Notifications.json"));
  writeFileSync(join(root, MINI_PINNED, "Notifications.json"), schema);
  writeFileSync(join(root, MINI_PINNED, "PROVENANCE.md"), provenance({ "Notifications.json": sha256(schema) }));
  mkdirSync(join(root, "mappings"), { recursive: true });
  writeFileSync(join(root, "mappings/mini.yaml"), miniText().replace("dir: test/generator/fixtures/mini-upstream", `dir: ${MINI_PINNED}`));
  return root;
}

/** Rewrites the PROVENANCE.md of miniRoot()'s pinned folder to list its .json files as they are now. */
export function relist(root: string): void {
  const dir = join(root, MINI_PINNED);
  writeFileSync(join(dir, "PROVENANCE.md"), provenance(Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => [f, sha256(readFileSync(join(dir, f)))]))));
}

/** A PROVENANCE.md with the file table codegen checks. */
export function provenance(files: Record<string, string>): string {
  return `# Provenance: mini\n\nA fake upstream for tests.\n\n| file | sha256 |\n|---|---|\n${Object.entries(files).map(([f, h]) => `| \`${f}\` | ${h} |`).join("\n")}\n`;
}
