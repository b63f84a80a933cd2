#!/usr/bin/env node
/**
 * Bundles the package's entry points with esbuild (devDependency) into dist/pkg/: one ES module per entry point
 * (the root, accumulator, validate, compatibility, tables, live, sessions, one per surface, the CLI) and shared chunks, minified,
 * with source maps (positions only: with `node --enable-source-maps` stack traces name the original file and line).
 * The root and the accumulator are one self-contained module each (loading one file instead of the ~90 tsc emits is
 * what keeps an import cheap); a surface's entry pulls only its own mappers. Declarations stay tsc's (dist/src/).
 * Also writes a CommonJS stub per entry (require() on a Node.js without require(esm) gets a clear message).
 *   node scripts/bundle-package.mjs [--verbose]
 */
import { build } from "esbuild";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/pkg");

/** Entry point name (its path under dist/pkg, without .js) → source file. */
export function entryPoints() {
  const entries = {
    index: "src/index.ts",
    accumulator: "src/render/accumulator.ts",
    validate: "src/validate.ts",
    compatibility: "src/normalize/matrix.ts",
    tables: "src/tables.ts",
    live: "src/live/index.ts",
    sessions: "src/sessions/index.ts",
    cli: "src/cli/cli.ts",
  };
  for (const f of readdirSync(join(root, "generated/entries")).sort()) {
    if (f.endsWith(".gen.ts")) entries[`surfaces/${f.slice(0, -".gen.ts".length)}`] = `generated/entries/${f}`;
  }
  return entries;
}

const entries = entryPoints();
rmSync(out, { recursive: true, force: true });
// The root and the accumulator: one self-contained module each (a Node import then reads and compiles one file:
// the per-module cost of an ES module import is most of the time otherwise). The other entry points share chunks.
const common = { absWorkingDir: root, bundle: true, format: "esm", platform: "neutral", external: ["node:*", "@anthropic-ai/claude-agent-sdk"], target: "es2022", minify: true, sourcemap: true, sourcesContent: false, legalComments: "none", charset: "utf8", logLevel: "warning" };
const SELF_CONTAINED = ["index", "accumulator"];
const outputs = {};
for (const name of SELF_CONTAINED) {
  const r = await build({ ...common, entryPoints: [join(root, entries[name])], outfile: join(out, `${name}.js`), metafile: true });
  Object.assign(outputs, r.metafile.outputs);
}
const result = await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(entries).filter(([k]) => !SELF_CONTAINED.includes(k)).map(([k, v]) => [k, join(root, v)])),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  external: ["node:*", "@anthropic-ai/claude-agent-sdk"],
  target: "es2022",
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: "none",
  charset: "utf8",
  chunkNames: "chunks/[name]-[hash]",
  outdir: out,
  metafile: true,
  logLevel: "warning",
});

// esbuild keeps `import "./chunks/x.js";` (a chunk imported for its evaluation only) where an entry uses nothing of a
// chunk that another chunk needs. The modules have no side effects (package.json "sideEffects": false), so these
// imports only cost Node a module load and make every bundler warn: blank them out (same length, so the source
// maps stay right).
Object.assign(outputs, result.metafile.outputs);
for (const file of Object.keys(outputs)) {
  if (!file.endsWith(".js")) continue;
  const abs = join(root, file);
  const text = readFileSync(abs, "utf8");
  const blanked = text.replace(/import"(\.\.?\/(?:\.\.\/)*chunks\/chunk-[A-Za-z0-9_-]+\.js)";/g, (m) => `/*${" ".repeat(m.length - 4)}*/`);
  if (blanked !== text) writeFileSync(abs, blanked);
}

// require() of an ES module works on Node.js >= 20.19 / >= 22.12 (the "module-sync" condition); older versions
// take the "require" condition: this stub, which says so instead of ERR_REQUIRE_ESM's generic text.
mkdirSync(join(out, "cjs"), { recursive: true });
for (const name of Object.keys(entries)) {
  if (name === "cli") continue;
  const file = join(out, "cjs", `${name.replace(/\//g, "__")}.cjs`);
  const target = `../${name}.js`;
  writeFileSync(file, `"use strict";
try {
  module.exports = require(${JSON.stringify(target)});
} catch (err) {
  if (err && (err.code === "ERR_REQUIRE_ESM" || err.code === "ERR_REQUIRE_ASYNC_MODULE")) {
    throw new Error("agentnorm is an ES module: require() of it needs Node.js >= 20.19 or >= 22.12 (where require(esm) is on by default); this is Node.js " + process.version + ". Use import() / an ES module, or upgrade Node.js.", { cause: err });
  }
  throw err;
}
`);
}

// The compatibility matrix is committed once, as generated/compatibility.json; its Markdown rendering is made here.
const { renderCompatibilityMarkdown } = await import(join(out, "compatibility.js"));
writeFileSync(join(root, "dist/COMPATIBILITY.md"), renderCompatibilityMarkdown(JSON.parse(readFileSync(join(root, "generated/compatibility.json"), "utf8"))));

if (process.argv.includes("--verbose")) {
  for (const [f, o] of Object.entries(outputs)) if (f.endsWith(".js")) console.error(`${f}: ${o.bytes} bytes`);
}
